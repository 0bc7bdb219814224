"""Closing the loop with the tracker: a thread filed as an issue or linked to one, and what it hears later."""
