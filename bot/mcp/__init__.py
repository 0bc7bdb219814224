"""Atlas's read tools served to other agents over MCP (stdio and streamable HTTP)."""
