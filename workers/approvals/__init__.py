"""Approvals: the records and their atomic decisions, the gate that pauses a run, the exactly-once ledger, who may
approve, expiry and the audit log."""
