"""Runs and their queue: the run's state and its store, queueing a run as an RQ job, the worker and its lease, the job
entry point, conversations and the settings check."""
