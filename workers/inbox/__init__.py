"""The triage inbox (issue 24): a new issue becomes one triage run, its suggestions one card of
actions in the maintainers' triage channel, each action an approval like any other.

claim.py starts the one run of an issue; job.py triages it and applies each decided action;
actions.py turns suggestions into tool calls; maintainers.py ends a card when a maintainer acted first.
"""
