"""The agent: the budgeted loop, the context window, model adapters (the Responses API and the offline model), what the
model is told, tool-result stash and sources."""
