"""The replay text: golden transcripts (seeded games told day by day, committed and diffed),
and the account every move gives of its fights and of the morning it starts.

Regenerate the golden files after a deliberate change of rules or wording with
``WOTW_GOLDEN=write pytest tests/games/war_of_the_wilds/test_transcript.py``."""

import os
import re
from pathlib import Path

import numpy as np
import pytest
from wotw_table import DK, main_phase, ready

from simkit.games.war_of_the_wilds import GAME
from simkit.games.war_of_the_wilds import rules as R
from simkit.games.war_of_the_wilds.state import (
    ABILITY,
    ARMY,
    ATTACK,
    BLOCK,
    BURIED,
    DAY,
    DAY_ORDER,
    END_PLAY,
    FOUGHT,
    HOME,
    MIX,
    PH_ACTION,
    PH_DRAW,
    PH_MAIN,
    PH_REPLY,
    PH_SETUP,
    PHASE,
    PLAYERS,
    PS,
    STAY,
    STORE,
)
from simkit.games.war_of_the_wilds.transcript import describe_move
from simkit.replay import replay
from simkit.rng import seed_streams
from simkit.runner import RunSpec, plan

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
    assert lines[-1].startswith("end: last_day after 32 turns")


# --- fights and mornings, on hand-built states -----------------------------------------------

def told(t, move):
    """Play ``move`` on table ``t``; the lines the transcript tells for it."""
    before = t.state.copy()
    t.play(move)
    return describe_move(t.params, t.n, before, move, t.state.copy())


def test_the_fight_is_told_when_the_last_creature_stays_home():
    t = ready(3)
    t.put_creature(0, "crow")  # asked first: sent against P2
    t.put_creature(0, "hedgehog")  # asked last: stays home, and the fights begin
    t.set_acorns(1, stored=8)
    main_phase(t)
    t.play(END_PLAY)
    t.play(ATTACK + 1)
    lines = told(t, STAY)
    assert lines[0] == "keeps Hedgehog home"
    assert "fight: P1 against P2: P1 stored 0->2; P2 stored 8->6" in lines


def test_a_fight_where_nothing_happens_is_told_too():
    t = ready(2)
    t.put_creature(0, "beaver")  # 2/3 against 2/3: neither dies
    t.put_creature(1, "beaver")
    t.set_acorns(1, stored=4)
    main_phase(t)
    t.play(END_PLAY)
    t.play(ATTACK + 1)
    lines = told(t, BLOCK + 0)
    assert lines[:2] == ["blocks Beaver with Beaver",
                         "fight: P1 against P2: no acorns taken, nobody dies"]


def test_the_beavers_gather_and_its_mix_are_told():
    t = ready(2)
    t.set(0, HOME, 0)  # berry and twig
    main_phase(t)
    i = t.put_creature(0, "beaver")
    assert told(t, ABILITY + i) == ["tires Beaver for its ability (2 cards to gather, the mix "
                                    "to choose)"]
    assert told(t, MIX + 1) == ["gathers 1 berry, 1 twig with Beaver"]
    t = ready(2)
    t.set(0, HOME, 0)
    t.give_res(1, berry=15)  # no berry left: the one way is taken at once, and told
    main_phase(t)
    i = t.put_creature(0, "beaver")
    assert told(t, ABILITY + i) == ["tires Beaver for its ability: gathers 2 twig"]


MORNING_CARDS = {  # a day card that strikes when turned over -> how its effect is told
    "spring_flood": "Spring Flood: P1 stored +2; P1 buried -2; P2 stored +2; P2 buried -2",
    "good_harvest": "Good Harvest: P1 stored +2; P2 stored +2",
    "the_jay": "The Jay: P1 stored +2; P1 buried -2",
    "mr_buttons": "Mr Buttons: eats P2's ",
}


@pytest.mark.parametrize("card", sorted(MORNING_CARDS))
@pytest.mark.parametrize("after_step", [False, True])
def test_the_morning_is_told_under_its_card_not_as_the_fight_before(card, after_step):
    """The last seat's fight, then the next day. With nothing to do after the attacks (no
    offers allowed here), the fight's move also turns over the day; otherwise the move that
    ends the step after the attacks does."""
    over = {} if after_step else {"trade.offers_per_turn": 0}
    t = ready(2, seat=1, overrides=over)  # the last seat's turn
    t.set_acorns(0, stored=5, buried=6)
    t.set_acorns(1, stored=1, buried=4)
    t.put_creature(1, "boar")  # sent against P1, who cannot block: steals 4
    t.put_creature(1, "crow")  # kept home; P2 has the most creatures for Mr. Buttons
    t.state[DAY_ORDER + t[DAY]] = DK[card]  # day 2's card
    main_phase(t)
    t.play(END_PLAY)
    t.play(ATTACK + 0)
    lines = told(t, STAY)
    assert lines[1] == "fight: P2 against P1: P1 stored 5->1; P2 stored 1->5", lines
    if after_step:
        assert len(lines) == 2
        lines = told(t, END_PLAY)
        assert lines[0] == "ends the turn"
    assert lines[-4].startswith("== Day 2:"), lines
    assert lines[-3].strip().startswith(MORNING_CARDS[card]), lines
    assert not any("fight" in line for line in lines[-4:])


# --- whole games: every acorn a fight or a morning moves is told, and every fight ------------

def told_moves(players, seed, strategies):
    """Replay a recorded game move by move: (before, move, after, the lines told)."""
    rep = replay("war-of-the-wilds", players, seed, strategies)
    p = plan(RunSpec.make("war-of-the-wilds", players, 1, 0, strategies, rotate=False))
    streams = np.empty(1 + players, np.uint64)
    seed_streams(np.uint64(seed), players, streams)
    chance = streams[0:1]
    st = np.empty(p.state_size, np.int32)
    items = np.zeros((players, len(GAME.item_columns)), np.int32)
    R.new_game(p.compiled, players, st, chance)
    for move in rep.moves:
        before = st.copy()
        R.apply_move(p.compiled, st, move, chance, items)
        yield before, move, st.copy(), describe_move(p.compiled, players, before, move, st)


ARROW = re.compile(r"\bP(\d) (stored|buried) (\d+)->(\d+)")  # a fight, the Fox, a card
SIGNED = re.compile(r"\bP(\d) (stored|buried) ([+-]\d+)")  # the morning's card
LOSES = re.compile(r"\bP(\d) loses ([^;]+)")
EATS = re.compile(r"\beats P(\d)'s ")
FOUGHT_LINE = re.compile(r"^fight: P\d against (.*?):")
# a 3-player game of `simkit run war-of-the-wilds --players 3 --games 10 --seed 5` (game 7)
# whose fights after "keeps ... home" went untold
GAMES = [(3, 17999115464209352787, "random"), (2, 12345, "heuristic,random"),
         (3, 777, "heuristic,random,random"), (4, 4242, "random"), (4, 31, "heuristic")]


@pytest.mark.parametrize("players,seed,strategies", GAMES)
def test_every_fight_and_every_morning_effect_is_told_on_its_move(players, seed, strategies):
    """For every move that can fight or end a day (the play step, attacks, blocks, the Fox,
    discards, the dawn), the acorns and creatures it moves are exactly those the text tells:
    a fight's or card's "P2 stored 5->4", a morning's "P2 stored -3", "P3 loses Crow",
    "eats P1's Sparrow"; and every fight the kernels fought has its line."""
    fights = 0
    for before, _move, after, lines in told_moves(players, seed, strategies):
        if before[PHASE] in (PH_ACTION, PH_DRAW, PH_REPLY, PH_SETUP):
            continue  # their own words ("forages 3 acorns", "accepts the offer")
        told = {}
        lost = [0] * players
        for line in lines:
            for p, kind, a, b in ARROW.findall(line):
                told[int(p) - 1, kind] = told.get((int(p) - 1, kind), 0) + int(b) - int(a)
            for p, kind, d in SIGNED.findall(line):
                told[int(p) - 1, kind] = told.get((int(p) - 1, kind), 0) + int(d)
            for p, names in LOSES.findall(line):
                lost[int(p) - 1] += len(names.split(", "))
            for p in EATS.findall(line):
                lost[int(p) - 1] += 1
        for p in range(players):
            b = PLAYERS + p * PS
            for kind, off in (("stored", STORE), ("buried", BURIED)):
                assert told.get((p, kind), 0) == after[b + off] - before[b + off], (lines, p)
            dead = int(((before[b + ARMY:b + ARMY + 16] >= 0)
                        & (after[b + ARMY:b + ARMY + 16] < 0)).sum())
            assert lost[p] == dead, lines
        new = int(after[FOUGHT]) & ~int(before[FOUGHT]) if before[PHASE] != PH_MAIN else 0
        named = sum(len(m.split(" and ")) for line in lines for m in FOUGHT_LINE.findall(line))
        assert named == bin(new).count("1"), lines
        fights += named
    assert fights > 0
