"""Offline triage of issues (issue 24) and its backtest (issue 25).

The interface the triage inbox calls: `Triage.open(data_dir, home)` once per data folder (a worker keeps it in its
runtime and grows it by new issues: `engine_cache.EngineCache`), then
`Triage.triage(number or NewIssue) -> Suggestions` per issue (pure: it reads, never writes);
`backtest.run(triage, last, since) -> Result`; `model_backtest.run(...)`: the same replay with the model (its tools
over `as_of.AsOfIssues`, its replies kept by `answer_cache.CachedModel`); `autonomy.may_auto(label,
autonomy.acting_per_label(data_dir, home, model), model)`: the figures of the engine that will act.
"""
