"""A real model's answer from code and history cites the permalinks and URLs the tools showed, and only
those (scripted model on the Responses stand-in, real loop and tools; issue 27)."""

from __future__ import annotations

import json
from pathlib import Path

from datasets import generate, knowledge_generate
from datasets.knowledge_files import REPO
from tests.standins.responses_api import ScriptedModel
from tests.standins.responses_render import call_outputs
from tests.standins.turns import reply_calls, reply_text
from tests.support.agent_harness import build_agent, settings_for
from workers.runs.state import RunState


def test_permalinks_and_urls_the_tools_showed_are_the_sources(
    tmp_path: Path, redis_url: str, scripted_model: ScriptedModel
) -> None:
    settings = settings_for(tmp_path, redis_url, scripted_model.base_url)
    knowledge_generate.write(settings.data_dir, generate.issue_numbers())
    commit = json.loads((settings.data_dir / REPO).read_text())["commit"]
    link = f"https://github.com/orbit-jobs/orbit/blob/{commit}/orbit/lease.py#L29-L39"
    talk = "https://github.com/orbit-jobs/orbit/discussions/245"
    made_up = "https://github.com/orbit-jobs/orbit/pull/999"
    scripted_model.script(
        reply_calls(
            [
                ("read_file", {"path": "orbit/lease.py", "start": 29, "end": 39}, "c1"),
                ("get_history_item", {"kind": "discussion", "id": "245"}, "c2"),
            ]
        ),
        reply_text(
            f"`renew_lease` pushes the expiry out ({link}). Lambda is not for workers ({talk}); see also {made_up}."
        ),
    )
    _, agent, _ = build_agent(settings)
    # "discussions" asks for the history tools (workers/agent/toolset.py: a call is offered what the words ask for)
    run = agent.run(
        RunState(question="Where is the lease renewed, and do the discussions say workers can run in Lambda?")
    )
    outputs = call_outputs(scripted_model.requests[1].body)
    assert outputs["c1"].splitlines()[0].endswith(link) and "Lambda freezes" in outputs["c2"]
    assert run.sources == [link, talk]
