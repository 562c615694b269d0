"""Golden transcripts: seeded games told day by day, committed and diffed.

Regenerate after a deliberate change of rules or wording with
``WOTW_GOLDEN=write pytest tests/games/war_of_the_wilds/test_transcript.py``."""

import os
from pathlib import Path

import pytest

from simkit.replay import replay

GOLDEN = Path(__file__).parent / "golden"
# p3_seed124: a Relentless Boar sent against two players dies in its first fight
CASES = [(2, 12345, "heuristic,random"), (3, 777, "heuristic,random,random"),
         (4, 4242, "random"), (3, 124, "heuristic")]


@pytest.mark.parametrize("players,seed,strategies", CASES)
def test_replay_matches_golden(players, seed, strategies):
    text = "\n".join(replay("war-of-the-wilds", players, seed, strategies).lines) + "\n"
    path = GOLDEN / f"p{players}_seed{seed}.txt"
    if os.environ.get("WOTW_GOLDEN") == "write":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_replay_tells_every_day():
    lines = replay("war-of-the-wilds", 2, 99, "heuristic,random").lines
    days = [line for line in lines if "== Day " in line]
    assert len(days) == 16 and "Day 16:" in days[-1]
    assert lines[-1].startswith("end: sixteen_days after 32 turns")
