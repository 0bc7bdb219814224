"""RQ jobs that run Atlas's agent: the loop, context management, model adapters, reporting."""
