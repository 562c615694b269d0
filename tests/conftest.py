"""Shared fixtures. The example games Pig (examples/pig_game) and Connect Four
(examples/connect_four) are registered for every test, as a third-party game would be, so the
engine is always tested on games it does not own."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "tests"))  # shared checks: determinize_checks

from connect_four import GAME as CONNECT_FOUR  # noqa: E402
from pig_game import GAME as PIG  # noqa: E402

from simkit import registry  # noqa: E402

registry.register_game(PIG)
registry.register_game(CONNECT_FOUR)


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
