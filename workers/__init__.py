"""The core (agent/, approvals/, runs/, triage/, new_issues/, help/, followup/) and the worker process (process/) with
its RQ jobs (jobs/)."""
