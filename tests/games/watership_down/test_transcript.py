"""Layer 3: golden transcripts. A change in these texts is a change in the rules or the
heuristic: regenerate them deliberately (see the command below) and bump VERSION.

    python -c "from simkit.replay import replay; print('\\n'.join(replay(
        'watership-down', 2, 12352, 'heuristic').lines))"
"""

from pathlib import Path

import pytest

from simkit.games.watership_down.state import DECIDER, SIDE
from simkit.games.watership_down.transcript import describe_move
from simkit.replay import replay

from .helpers import HONEY, NUTHANGER, ROAD, SAND, P, card, mv, play, position

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("name,seed,strategies", [("heuristic_12352", 12352, "heuristic"),
                                                  ("random_777", 777, "random")])
def test_golden_transcript(name, seed, strategies):
    lines = replay("watership-down", 2, seed, strategies).lines
    assert "\n".join(lines) + "\n" == (GOLDEN / f"{name}.txt").read_text()


def test_transcript_tells_battles_cards_and_secrets():
    text = (GOLDEN / "heuristic_12352.txt").read_text()
    assert "battle on" in text and "revealed:" in text
    assert "[seen by elil]" in text and "[seen by hlessil]" in text
    assert "joins the hlessil" in text and "escape from Efrafa" in text
    assert "game over" in text


def test_snare_caught_and_defeated_in_one_move_is_told_in_order():
    # The Snare attacks Bigwig's stack: Bigwig is caught first, and the group (4 + 3 >= 6)
    # defeats the Snare at once. The text names the catch, then the fall on the attacked
    # space (not the space the Snare came from), then the release.
    st = position(0, snare=NUTHANGER, bigwig=ROAD, buckthorn=ROAD, hazel=SAND)
    before = st.copy()
    play(st, mv("snare", ROAD))
    lines = describe_move(P, 2, before, mv("snare", ROAD), st.copy())
    body = lines[1:]
    assert body[:3] == ["the Snare catches Bigwig: both lie face up, Bigwig is paralysed",
                        "Snare is defeated on The Road", "Bigwig is free of the Snare"]
    assert not any("Nuthanger" in x for x in body)


def test_a_mover_defeated_in_its_own_move_falls_where_it_attacked():
    st = position(0, rats=NUTHANGER, silver=ROAD, hazel=SAND)
    before = st.copy()
    play(st, mv("rats", ROAD))            # Silver defeats the Rats at once
    lines = describe_move(P, 2, before, mv("rats", ROAD), st.copy())
    assert "Rats is defeated on The Road" in lines


def test_snare_laid_face_down_again_is_told():
    st = position(0, snare=NUTHANGER, buckthorn=ROAD, hazel=SAND, woundwort=HONEY)
    play(st, mv("snare", ROAD))
    st[SIDE] = st[DECIDER] = 0
    for m in (mv("woundwort", ROAD), card(0)):
        play(st, m)
    before = st.copy()
    play(st, card(0))                     # the ensnared Buckthorn falls, no rabbit is left
    lines = describe_move(P, 2, before, card(0), st.copy())
    assert lines[-2:] == ["Buckthorn is defeated on The Road", "the Snare is concealed again"]
