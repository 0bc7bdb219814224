"""Help channels (issue 26): a new post in a configured channel or forum is a run with no mention.

threads.py keeps which threads are help threads, stepped back, handed off, and each channel's
hourly count; handoff.py is how a help run ends when it is not confident; followups.py starts the
run that answers the asker's messages that arrived while a run was still working.
"""
