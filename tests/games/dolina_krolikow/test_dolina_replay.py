"""Golden transcripts (a seeded game's replay text, committed and diffed) and determinism.

After a deliberate rules or transcript change, regenerate the golden files with
``python tests/games/dolina_krolikow/test_dolina_replay.py`` and read the diff."""

from pathlib import Path

import pytest

from simkit import simulate
from simkit.replay import replay

HERE = Path(__file__).parent
GOLDEN = [(2, 42, "heuristic,random"), (4, 7, "heuristic,random,heuristic,random")]


def golden_path(players, seed):
    return HERE / f"golden_{players}p_seed{seed}.txt"


def transcript(players, seed, strategies):
    return "\n".join(replay("dolina-krolikow", players, seed, strategies).lines) + "\n"


@pytest.mark.parametrize("players,seed,strategies", GOLDEN)
def test_replay_matches_the_golden_transcript(players, seed, strategies):
    assert transcript(players, seed, strategies) == golden_path(players, seed).read_text(
        encoding="utf-8")


def test_replay_tells_every_round_and_the_scoring():
    text = transcript(3, 5, "heuristic,random,random")
    for r in range(2, 10):
        assert f"=== round {r}," in text
    assert text.count("scores") >= 3 and "end: rounds_played after 9 turns" in text


def test_same_seed_same_tables_whatever_the_workers():
    a = simulate("dolina-krolikow", 3, 300, seed=9, strategies="heuristic,random,random",
                 workers=1)
    b = simulate("dolina-krolikow", 3, 300, seed=9, strategies="heuristic,random,random",
                 workers=2)
    assert a.games.equals(b.games)
    assert a.items.equals(b.items)


if __name__ == "__main__":
    for p, s, strat in GOLDEN:
        golden_path(p, s).write_text(transcript(p, s, strat), encoding="utf-8")
