"""The third surface: plain text (no markup, no buttons), rendered from the same message values as Slack and Discord
(workers/messages/). `atlas ask` prints its answer through it. One folder: nothing in the core changed for it."""
