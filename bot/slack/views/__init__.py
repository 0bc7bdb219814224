"""What goes out to Slack, rendered: pure functions from a message value (workers/messages/) to Block Kit or text.

No network, no Redis, no run: a view module imports only the message values, Slack's wording, slack_sdk's models and
the pure text helpers (tests/house/test_render_imports.py). The modules beside this package post what they render.
"""
