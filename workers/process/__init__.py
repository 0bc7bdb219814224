"""The worker process: what `atlas worker` builds once (the runtime, the chat platforms) and the RQ worker classes."""
