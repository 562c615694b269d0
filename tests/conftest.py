"""Shared fixtures. The example games Pig (examples/pig_game) and Connect Four
(examples/connect_four) are registered for every test, as a third-party game would be, so the
engine is always tested on games it does not own."""

import os
import signal
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

# a cold run compiles alone here (its compile-ahead helper would only compete with the other
# test workers for the cores); tests/test_ahead.py switches the helper on where it tests it
os.environ.setdefault("SIMKIT_COMPILE_AHEAD", "0")

# the Ctrl-C tests send SIGINT to the process: a shell that starts the suite in the background
# (`pytest &`) leaves SIGINT ignored, and Python then keeps it ignored, so those tests would
# see no interrupt at all; here, as at a terminal, Ctrl-C is KeyboardInterrupt
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
