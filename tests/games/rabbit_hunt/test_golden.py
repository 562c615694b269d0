"""Layer 3: three seeded random games told as text, compared with committed transcripts.
``SIMKIT_UPDATE_GOLDEN=1 pytest tests/games/rabbit_hunt/test_golden.py`` rewrites them."""

import os
from pathlib import Path

import pytest

from simkit.replay import replay

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("n, seed", [(2, 11), (3, 22), (4, 33)])
def test_golden_transcript(n, seed):
    text = "\n".join(replay("rabbit-hunt", n, seed, "random").lines) + "\n"
    path = GOLDEN / f"rabbit_hunt_{n}p_seed{seed}.txt"
    if os.environ.get("SIMKIT_UPDATE_GOLDEN") == "1":
        path.write_text(text)
    assert path.exists(), f"{path.name} missing: run with SIMKIT_UPDATE_GOLDEN=1"
    assert text == path.read_text(), f"{path.name} differs from the replay"
