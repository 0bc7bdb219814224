"""Pytest fixtures for the scripted Responses API stand-in, and for checking it with or without the spec.

Import them in a test module:  from tests.standins.fixtures import scripted_model  # noqa: F401
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.standins import openai_spec
from tests.standins.responses_api import ScriptedModel


@pytest.fixture
def scripted_model() -> Iterator[ScriptedModel]:
    """A started, empty, strict stand-in; teardown fails the test on any recorded failure or unused turn."""
    with ScriptedModel() as model:
        yield model
        model.assert_done()


@pytest.fixture(params=["spec", "sdk_types"])
def validation(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    """Run a test once against OpenAI's spec (skipped when it is not beside the clone) and once as a
    plain clone does, against the openai SDK's types."""
    if request.param == "spec" and not openai_spec.spec_available():
        pytest.skip(
            "OpenAI's spec is not beside the clone (../shared/specs/); the sdk_types run of this test checks it"
        )
    if request.param == "sdk_types":
        monkeypatch.delenv(openai_spec.SPEC_ENV, raising=False)
        monkeypatch.setattr(openai_spec, "spec_path", lambda: tmp_path / "no-shared" / "openai-openapi.json")
    return str(request.param)
