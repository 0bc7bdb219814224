"""Slack: inbound (the Bolt app, mentions and DMs through one atomic intake, the slash command,
approval and feedback clicks, the assistant view) and outbound (how a run shows in its Slack thread:
progress, the streamed or posted answer, approval cards, delivery through an outage)."""
