"""The chat platforms (slack/, discord/, GitHub's webhook in github/, mcp/, the console/) and the web process (web/)."""
