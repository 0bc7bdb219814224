"""Discord's render half: pure functions from what Atlas says to Discord message payloads (`content`, `components`,
`embeds`), with no network and no Redis. Posting them is the other half (bot/discord/surface.py, cards.py)."""
