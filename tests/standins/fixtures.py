"""Pytest fixture for the scripted Responses API stand-in.

Import it in tests/conftest.py:  from tests.standins.fixtures import scripted_model  # noqa: F401
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.standins.responses_api import ScriptedModel


@pytest.fixture
def scripted_model() -> Iterator[ScriptedModel]:
    """A started, empty, strict stand-in; teardown fails the test on any recorded failure or unused turn."""
    with ScriptedModel() as model:
        yield model
        model.assert_done()
