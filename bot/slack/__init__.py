"""Slack, outbound: how a run shows in its Slack thread (progress, the streamed or posted answer,
approval cards, delivery through an outage) and the assistant view's thread state. Inbound Slack
handlers are the other modules of `bot/`."""
