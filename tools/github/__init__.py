"""GitHub writes: the tracker over GitHub's REST API, how its requests are sent, its pacing and what GitHub refuses."""
