"""What `atlas worker` does once at start, before it takes a job, that its first run would otherwise wait on (issue 40).

Measured in one worker, its first run against its next (bench/worker_memory.py, a docs search then the answer):
- RQ imports a job's function by its dotted name when the first job runs: workers.jobs.runs and what it
  imports, about 5 ms;
- RQ reads the job's dates with `strptime`, whose first call imports `_strptime` and builds its tables: 1 to 2 ms
  of CPU, and 10 ms or more of waiting on a busy machine;
- the openai SDK builds the headers every request carries on its first call, running `uname -p` in a subprocess
  (a fork of the worker): 2 to 7 ms.
Not the tokenizer (47 MiB, built only for a text too long to fit by its bytes: atlas/tokens.py `bound`), and not a
pass of the docs encoder: it would save the first search about 3 ms of CPU (550 page faults on the mapped weights),
but it maps 43 MiB of the weights' file into a lone worker before its first run and, measured, adds 8 MiB of each
worker's own memory (a second worker beside the first: 101 MiB more, against 93 without it; the goal is 110).
"""

from __future__ import annotations

from rq.utils import import_attribute, now, utcformat, utcparse

from workers.agent.capped_model import CappedModel
from workers.agent.model import Model, ResponsesModel
from workers.process.runtime import Runtime
from workers.runs.job_names import CONTINUE_RUN


def warm(rt: Runtime) -> None:
    """Import the run job's module, read a date as RQ reads a job's, and build the model clients' request headers."""
    import_attribute(CONTINUE_RUN)
    utcparse(utcformat(now()))
    for model in (rt.model, rt.summary_model):
        client = _client_of(model)
        if client is not None:
            client.warm()


def _client_of(model: Model | None) -> ResponsesModel | None:
    inner = model.inner if isinstance(model, CappedModel) else model
    return inner if isinstance(inner, ResponsesModel) else None
