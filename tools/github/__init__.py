"""GitHub writes: the tracker over GitHub's REST API, its pacing and what GitHub refuses."""
