"""Atlas: cross-cutting pieces shared by the bot, the workers and the tools (settings, Redis, tokens, CLI)."""
