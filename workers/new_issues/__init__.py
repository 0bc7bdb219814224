"""What happens to a new issue (issue 24): it becomes one triage run, its suggestions one card of
actions in the maintainers' triage channel, each action an approval like any other.

claim.py starts the one run of an issue; triage_run.py triages it and applies each decided action;
actions.py turns suggestions into tool calls; maintainers.py ends a card when a maintainer acted first.
"""
