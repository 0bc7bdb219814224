"""The web process: `atlas serve` (Slack events, Discord interactions, GitHub webhooks, MCP) behind one HTTP server."""
