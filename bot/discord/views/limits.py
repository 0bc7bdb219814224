"""What one Discord message holds (Discord's documented limits); every view fits its payload within them."""

from __future__ import annotations

CONTENT_LIMIT = 2000  # characters (code points) of a message's content
EMBED_DESCRIPTION_LIMIT = 4096  # one embed's description
EMBEDS_TOTAL_LIMIT = 6000  # all of a message's embeds together
EMBEDS_PER_MESSAGE = 10
