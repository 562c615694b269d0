"""Lets the scenario tests import ``rh_table`` (pytest runs in importlib mode), and checks
the conservation laws (``check_state``) of every table a test built once the test is done."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import rh_table  # noqa: E402


@pytest.fixture(autouse=True)
def conservation_after_each_scenario():
    rh_table.LIVE.clear()
    yield
    for t in rh_table.LIVE:
        t.check()
    rh_table.LIVE.clear()
