"""The console (issue 30): a read-only web page on `atlas serve`, under `/console/`, for the people who run
Atlas: runs, health, cost and use, coverage gaps, approvals and triage. Server-rendered HTML, every value
escaped; pages read the indexes kept as runs finish (workers/console_data/run_index.py), never scan; nothing but
signing in and out changes anything. Off unless a way in is configured (atlas/console_settings.py).
"""
