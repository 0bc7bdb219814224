"""Offline triage of issues (issue 24) and its backtest (issue 25).

The interface the triage inbox calls: `Triage.open(data_dir, home)` once per data folder (a worker keeps it in its
runtime and grows it by new issues: `engine_cache.EngineCache`), then
`Triage.triage(number or NewIssue) -> Suggestions` per issue (pure: it reads, never writes);
`backtest.run(triage, last, since) -> Result`; `autonomy.may_auto(label, autonomy.last_per_label(...))`.
"""
