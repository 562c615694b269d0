"""Layer 3: golden transcripts. A change in these texts is a change in the rules or the
heuristic: regenerate them deliberately (see the command below) and bump VERSION.

    python -c "from simkit.replay import replay; print('\\n'.join(replay(
        'watership-down', 2, 12345, 'heuristic').lines))"
"""

from pathlib import Path

import pytest

from simkit.replay import replay

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("name,seed,strategies", [("heuristic_12345", 12345, "heuristic"),
                                                  ("random_777", 777, "random")])
def test_golden_transcript(name, seed, strategies):
    lines = replay("watership-down", 2, seed, strategies).lines
    assert "\n".join(lines) + "\n" == (GOLDEN / f"{name}.txt").read_text()


def test_transcript_tells_battles_cards_and_secrets():
    text = (GOLDEN / "heuristic_12345.txt").read_text()
    assert "battle on" in text and "revealed:" in text
    assert "[seen by elil]" in text and "[seen by hlessil]" in text
    assert "joins the hlessil" in text and "escape from Efrafa" in text
    assert "game over" in text
