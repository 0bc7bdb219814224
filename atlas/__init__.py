"""Atlas's floor, under every layer (settings, Redis, tokens, API clients, errors); its commands sit apart in
atlas/cli/."""
