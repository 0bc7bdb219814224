"""The `atlas` command: each subcommand a module. Commands sit above everything; nothing imports them."""
