"""The core (agent/, approvals/, runs/, triage/, inbox/, help/, followup/) and the worker process (process/) with its RQ jobs (jobs/)."""
