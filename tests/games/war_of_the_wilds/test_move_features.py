"""The move_features kernel (NOTES.md, Move features): each entry on a built table, read
through ``observe`` for the seat deciding; one vector for every legal move of two true
states with one observation; every entry finite over random play; a call allocates
nothing (the last is ``simkit check``'s)."""

import re

import numpy as np
import pytest
from wotw_table import DK, Table, main_phase, morning, ready

from simkit.games.war_of_the_wilds import GAME
from simkit.games.war_of_the_wilds import rules as R
from simkit.games.war_of_the_wilds.state import (
    ABILITY,
    ACCEPT,
    ACTOR,
    ATTACK,
    BLOCK,
    BLOCK_FOX,
    BURY,
    DAY,
    DAY_CARD,
    DECLINE,
    DISCARD_CARD,
    DRAW,
    DRAW_REFRESH,
    END_PLAY,
    FORAGE,
    GATHER,
    HOME,
    MIX,
    N_TRADE_KINDS,
    NO_BLOCK,
    OFFER_ADD,
    OFFER_DROP,
    OFFER_MAKE,
    OFFER_START,
    PAIRS,
    PAY_RES,
    PH_ASSIGN,
    PH_BLOCK,
    PH_DISCARD,
    PH_DRAW,
    PH_FOX_BLOCK,
    PH_MIX,
    PH_PAY,
    PH_REPLY,
    PHASE,
    PLAY,
    RETURN_RES,
    ROW,
    STAY,
    SWAP,
    TAKE_DECK,
    TAKE_ROW,
    TRADE_ACORN,
    WILD,
)
from simkit.rng import seed_streams

NAMES = R.MOVE_FEATURES
CARD_ENTRIES = R.CARD_MOVE_FEATURES


def mf(t, move, seat=None):
    """What ``move`` does, for the seat deciding (or ``seat``), through its observation;
    only the entries that are not 0."""
    seat = t[ACTOR] if seat is None else seat
    obs = np.empty_like(t.state)
    R.observe(t.params, t.state, seat, obs)
    out = np.full(len(NAMES), np.nan)
    R.move_features(t.params, obs, seat, move, out)
    assert np.isfinite(out).all()
    return {name: v for name, v in zip(NAMES, out.tolist(), strict=True) if v != 0}


def card(t, move, sign=1):
    """The card entries of ``move``, by name, all of them."""
    f = mf(t, move)
    return {name: f.get(name, 0) * sign for name in CARD_ENTRIES}


def kind(t, name):
    return t.kinds.index(name)


def play(t, name, target=0):
    return PLAY + 4 * kind(t, name) + target


def army(t, p, *names, flags=0):
    return [t.put_creature(p, name, flags) for name in names]


def test_the_names_are_the_specs_one_each_in_snake_case():
    assert GAME.move_features == NAMES and GAME.has_move_features
    assert len(NAMES) == 33 and len(set(NAMES)) == len(NAMES)
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", n) for n in NAMES)
    assert not set(NAMES) & set(R.FEATURES)  # a model's card lists both


# --- the action ------------------------------------------------------------------------------

def action_table(day_card="quiet_day"):
    t = ready(2, day_card=day_card)
    t.set(0, HOME, 0)  # berry and twig
    t.give_res(0, berry=1)
    t.give_card(0, "squirrel_scout")  # a berry and a twig
    t.set_acorns(0, stored=4)
    return t


def test_gather_by_its_mix_and_what_it_makes_payable():
    t = action_table()
    assert mf(t, GATHER + 0) == {"resource_cards": 3}  # 3 berries: still no twig
    assert mf(t, GATHER + 1) == {"resource_cards": 3, "cards_payable": 1,
                                 "resources_short": -1}  # a twig: the scout is payable
    t = action_table("busy_day")  # Gather also takes an acorn from the wild
    assert mf(t, GATHER + 0) == {"resource_cards": 3, "acorns_stored": 1,
                                 "acorns_from_wild": 1}


def test_forage_takes_what_the_wild_holds_and_bury_what_the_store_holds():
    t = action_table()
    assert mf(t, FORAGE) == {"acorns_stored": 3, "acorns_from_wild": 3}
    assert mf(t, BURY + 2) == {"acorns_buried": 3, "acorns_stored": -3}
    assert mf(action_table("bumper_crop"), FORAGE)["acorns_stored"] == 3 + 2
    t.state[WILD] = 2
    assert mf(t, FORAGE) == {"acorns_stored": 2, "acorns_from_wild": 2}


def test_a_draw_shows_the_most_the_row_offers():
    t = action_table()
    for i, name in enumerate(("boar", "sparrow", "windfall")):
        t.state[ROW + i] = kind(t, name)
    f = mf(t, DRAW)
    assert f["hand_cards"] == 2
    assert card(t, DRAW) == {"card_strength": 4, "card_health": 4, "card_flying": 1,
                             "card_ranged": 0, "card_band": 0, "card_trick": 1,
                             "card_cost": 5, "card_acorns": 3,
                             "card_payable": 1}  # the windfall: 1 of any kind
    assert mf(t, DRAW_REFRESH) == {"hand_cards": 2}  # the new row is not known
    t = action_table("busy_day")
    assert mf(t, DRAW_REFRESH) == {"hand_cards": 2, "acorns_stored": 1, "acorns_from_wild": 1}


def test_taking_a_card_from_the_row_or_the_deck():
    t = ready(2)
    t.give_res(0, berry=1, feather=1)
    for i, name in enumerate(("boar", "weasel", "windfall")):
        t.state[ROW + i] = kind(t, name)
    t.state[PHASE] = PH_DRAW
    weasel = card(t, TAKE_ROW + 1)
    assert weasel == {"card_strength": 2, "card_health": 1, "card_flying": 0,
                      "card_ranged": 0, "card_band": 0, "card_trick": 0, "card_cost": 2,
                      "card_acorns": 1, "card_payable": 1}  # steals 1 more unblocked
    f = mf(t, TAKE_ROW + 1)
    assert (f["hand_cards"], f["cards_payable"], f.get("resources_short", 0)) == (1, 1, 0)
    f = mf(t, TAKE_ROW + 0)  # the boar lacks a berry and a pebble
    assert (f.get("cards_payable", 0), f["resources_short"], f["card_cost"]) == (0, 2, 5)
    assert "card_payable" not in f
    assert mf(t, TAKE_DECK) == {"hand_cards": 1}


# --- plays -----------------------------------------------------------------------------------

def test_playing_a_creature():
    t = ready(2)
    t.give_res(0, berry=2, twig=1, pebble=1, feather=1)
    t.give_card(0, "boar")
    t.give_card(0, "mouse_militia")
    main_phase(t)
    f = mf(t, play(t, "boar"))
    assert f == {"resource_cards": -5, "hand_cards": -1, "cards_payable": -2,
                 "card_strength": 4, "card_health": 4, "card_cost": 5, "card_payable": 1,
                 "army_strength": 4, "standing_strength": 4}  # the militia's berry is spent
    f = mf(t, play(t, "mouse_militia"))
    assert (f["resource_cards"], f["cards_payable"], f["card_band"]) == (-1, -2, 1)
    assert (f["army_strength"], f["standing_strength"]) == (1, 1)
    t.state[DAY_CARD] = DK["call_to_arms"]  # creatures cost 1 less today
    f = mf(t, play(t, "boar"))
    assert (f["resource_cards"], f["card_cost"]) == (-4, 4)


def trick_table():
    t = ready(2)
    t.give_res(0, berry=3, twig=3, pebble=3, feather=3)
    for name in ("windfall", "pickpocket", "dig_up", "ambush", "scavenge", "deep_burrow"):
        t.give_card(0, name)
    t.set_acorns(0, stored=2)
    t.set_acorns(1, stored=1, buried=5)
    army(t, 1, "hedgehog", "boar", "crow")
    main_phase(t)
    return t


def test_the_tricks_acorns_cards_and_creatures():
    t = trick_table()

    def entries(name, *keys, target=0):
        f = mf(t, play(t, name, target))
        return tuple(f.get(k, 0) for k in keys)

    assert entries("windfall", "acorns_stored", "acorns_from_wild", "card_acorns") == (3, 3, 3)
    # the pickpocket steals 2 from P2's store, which holds 1
    assert entries("pickpocket", "acorns_stored", "rivals_stored", "card_acorns",
                   target=1) == (1, -1, 2)
    assert entries("dig_up", "rivals_buried", "rivals_stored", target=1) == (-2, 2)
    # the strongest creature with health 3 or less: the crow (2), not the hedgehog (1)
    assert entries("ambush", "rivals_army_strength", target=1) == (-2,)
    assert entries("scavenge", "hand_cards", "card_trick") == (-1 + 2, 1)
    assert entries("deep_burrow", "acorns_buried", "acorns_stored") == (2, -2)  # 2 stored


def test_abilities_tire_the_creature():
    t = ready(2)
    squirrel, mole, owl, beaver = army(t, 0, "squirrel_scout", "mole", "owl_sentinel",
                                       "beaver")
    t.set_acorns(0, stored=1)
    main_phase(t)
    assert mf(t, ABILITY + squirrel) == {"free_move": 1, "acorns_stored": 2,
                                         "acorns_from_wild": 2, "standing_strength": -1}
    assert mf(t, ABILITY + mole) == {"free_move": 1, "acorns_buried": 1, "acorns_stored": -1,
                                     "standing_strength": -1}
    assert mf(t, ABILITY + owl) == {"free_move": 1, "hand_cards": 1, "standing_strength": -2}
    assert mf(t, ABILITY + beaver) == {"free_move": 1, "resource_cards": 2,
                                       "standing_strength": -2}


def test_a_swap_for_the_kind_the_hand_lacks():
    t = ready(2)
    t.give_res(0, berry=3)
    t.give_card(0, "squirrel_scout")  # a berry and a twig
    main_phase(t)
    berries = next(q for q, pair in enumerate(PAIRS.tolist()) if pair == [0, 0])
    assert mf(t, SWAP + 4 * berries + 1) == {"free_move": 1, "resource_cards": -1,
                                              "cards_payable": 1, "resources_short": -1}
    assert mf(t, SWAP + 4 * berries + 2) == {"free_move": 1, "resource_cards": -1}
    t.state[DAY_CARD] = DK["market_day"]  # 1 for 1
    assert mf(t, SWAP + 4 * berries + 1) == {"free_move": 1, "cards_payable": 1,
                                              "resources_short": -1}


def test_paying_keeps_or_spends_what_the_rest_of_the_hand_needs():
    t = ready(2)
    t.give_res(0, berry=2, twig=1, pebble=2, feather=1)
    t.give_card(0, "hedgehog")  # a pebble and 1 of any
    t.give_card(0, "sparrow")   # a feather
    main_phase(t)
    t.play(play(t, "hedgehog"))  # its pebble is paid at once; the card of any kind is asked
    assert t[PHASE] == PH_PAY
    assert mf(t, PAY_RES + 3) == {"resource_cards": -1, "cards_payable": -1,
                                  "resources_short": 1}  # the sparrow's feather
    assert mf(t, PAY_RES + 0) == {"resource_cards": -1}


def test_a_gathering_abilitys_mix():
    t = ready(2)
    t.set(0, HOME, 0)  # berry and twig
    t.give_card(0, "squirrel_scout")
    t.give_res(0, berry=1)
    (beaver,) = army(t, 0, "beaver")
    main_phase(t)
    t.play(ABILITY + beaver)
    assert t[PHASE] == PH_MIX
    assert mf(t, MIX + 0) == {"resource_cards": 2}
    assert mf(t, MIX + 1) == {"resource_cards": 2, "cards_payable": 1, "resources_short": -1}


# --- attacks and blocks ----------------------------------------------------------------------

def test_sending_a_creature_against_the_blockers_it_meets():
    t = ready(2)
    army(t, 0, "weasel", "boar")
    t.set_acorns(1, stored=10, buried=3)
    army(t, 1, "hedgehog")  # 1 + 2 defending, health 3
    main_phase(t)
    t.play(END_PLAY)
    assert t[PHASE] == PH_ASSIGN
    assert mf(t, STAY) == {"passes": 1}
    assert mf(t, ATTACK + 1) == {"raid_acorns": 2 + 1, "raid_blockers": 1, "raid_risk": 1,
                                 "standing_strength": -2}  # the hedgehog kills the weasel
    t.play(ATTACK + 1)
    # the boar: the hedgehog is left one unit for two, and cannot kill it
    assert mf(t, ATTACK + 1) == {"raid_acorns": 4, "standing_strength": -4}


def test_a_flier_a_band_a_badger_and_the_fog():
    t = ready(2)
    army(t, 0, "crow")
    army(t, 0, "mouse_militia", "mouse_militia", "mouse_militia")
    army(t, 0, "badger")
    army(t, 1, "hedgehog")
    t.set_acorns(1, stored=2, buried=5)
    main_phase(t)
    t.play(END_PLAY)
    assert mf(t, ATTACK + 1) == {"raid_acorns": 2, "standing_strength": -2}  # flies past
    t.play(STAY)
    # the Band goes as one: 3 to steal (the store holds 2), its least health 1
    assert mf(t, ATTACK + 1) == {"raid_acorns": 2, "raid_blockers": 1, "raid_risk": 1,
                                 "standing_strength": -3}
    t.play(STAY)
    f = mf(t, ATTACK + 1)
    assert (f["raid_acorns"], f["raid_blockers"], f.get("raid_risk", 0)) == (2 + 1, 1, 0)
    t.state[DAY_CARD] = DK["thick_fog"]
    assert "raid_blockers" not in mf(t, ATTACK + 1)


def raid_on_own(t, seat=0):
    obs = np.empty_like(t.state)
    R.observe(t.params, t.state, seat, obs)
    out = np.empty(len(R.FEATURES))
    R.features(t.params, obs, seat, out)
    return out[R.FEATURES.index("next_raid_on_own")]


def raid_table():
    """P2's boar and crow would raid P1's store of 10 past P1's mole (it stops the boar)."""
    t = ready(2)
    t.give_res(0, berry=1, twig=2)
    t.give_card(0, "frog_slinger")   # ranged: it would stop the crow too
    t.give_card(0, "mouse_militia")  # on the ground: the crow flies past it
    (mole,) = army(t, 0, "mole")
    army(t, 1, "boar", "crow")
    t.set_acorns(0, stored=10)
    main_phase(t)
    assert raid_on_own(t) == 2
    return t, mole


@pytest.mark.parametrize("move, change", [
    ("frog_slinger", -2), ("mouse_militia", 0), ("ability", 4), ("attack", 4)])
def test_what_a_move_does_to_the_rivals_raid_as_the_features_count_it(move, change):
    t, mole = raid_table()
    if move == "attack":
        t.play(END_PLAY)
        assert t[PHASE] == PH_ASSIGN
        code = ATTACK + 1
    else:
        code = ABILITY + mole if move == "ability" else play(t, move)
    assert mf(t, code).get("rivals_raids", 0) == change
    before = raid_on_own(t)
    t.play_paid(code) if move in ("frog_slinger", "mouse_militia") else t.play(code)
    assert raid_on_own(t) - before == change  # the features see it after the move


def test_blocking_an_attacker_and_doubling_up():
    t = ready(2)
    boar, weasel = army(t, 0, "boar", "weasel")
    army(t, 1, "hedgehog", "frog_slinger")
    t.set_acorns(1, stored=10)
    main_phase(t)
    t.play(END_PLAY)
    t.play(ATTACK + 1)
    t.play(ATTACK + 1)
    assert t[PHASE] == PH_BLOCK and t[ACTOR] == 1
    assert mf(t, NO_BLOCK) == {"passes": 1}
    # the hedgehog (3 defending, health 3) before the boar (4/4): it saves 4 and dies
    assert mf(t, BLOCK + boar) == {"block_saves": 4, "block_dies": 1}
    assert mf(t, BLOCK + weasel) == {"block_saves": 2 + 1, "block_kills": 1}
    t.play(BLOCK + boar)
    # the frog joins it: 1 + 3 kill the boar; the boar is stopped already
    assert mf(t, BLOCK + boar) == {"block_kills": 1, "block_dies": 1, "block_shared": 1}


def test_blocking_the_fox():
    t = ready(2)
    t.set_acorns(1, stored=6)
    army(t, 1, "hedgehog")
    t.state[DAY] = 15
    morning(t, "the_fox")
    assert t[PHASE] == PH_FOX_BLOCK and t[ACTOR] == 1
    assert mf(t, BLOCK_FOX) == {"block_saves": 3, "block_kills": 1, "block_dies": 1}


# --- discards and setup ----------------------------------------------------------------------

def test_a_discard_gives_the_card_up():
    t = ready(2)
    t.give_res(0, berry=1)
    t.give_card(0, "weasel")
    t.give_card(0, "boar")
    t.state[PHASE] = PH_DISCARD
    assert card(t, DISCARD_CARD + kind(t, "weasel"), -1) == {
        "card_strength": 2, "card_health": 1, "card_flying": 0, "card_ranged": 0,
        "card_band": 0, "card_trick": 0, "card_cost": 2, "card_acorns": 1,
        "card_payable": 0}  # a berry and 1 of any: one card is not enough
    f = mf(t, DISCARD_CARD + kind(t, "boar"))
    # the boar lacked a pebble and a berry (the weasel has the one held)
    assert (f["hand_cards"], f["resources_short"], f["card_strength"]) == (-1, -3, -4)


def test_setup_puts_back_a_resource_card():
    t = Table(2)
    p = t[ACTOR]
    t.give_res(p, berry=1, twig=1, pebble=1, feather=1)
    moves = [m for m in t.legal() if m >= RETURN_RES]
    assert moves
    for m in moves:
        f = mf(t, m)
        assert f["resource_cards"] == -1 and f.get("resources_short", 0) >= 0


# --- trades ----------------------------------------------------------------------------------

def test_an_offer_item_by_item_and_its_answer():
    t = ready(2)
    t.give_res(0, berry=2)
    t.give_res(1, twig=2)
    t.give_card(0, "squirrel_scout")  # a berry and a twig
    t.give_card(1, "mouse_militia")   # a berry
    t.set_acorns(0, stored=3)
    main_phase(t)
    assert mf(t, OFFER_START + 1) == {"free_move": 1}
    t.play(OFFER_START + 1)
    assert mf(t, OFFER_ADD + 0) == {"offer_cards": -1}  # a berry to spare
    assert mf(t, OFFER_ADD + TRADE_ACORN) == {"offer_acorns": -1}
    assert mf(t, OFFER_DROP) == {"passes": 1}
    t.play(OFFER_ADD + 0)
    t.play(OFFER_ADD + TRADE_ACORN)
    assert mf(t, OFFER_ADD + N_TRADE_KINDS + 1) == {"offer_cards": 1, "cards_payable": 1,
                                                    "resources_short": -1}
    t.play(OFFER_ADD + N_TRADE_KINDS + 1)
    # a berry and an acorn for a twig: the twig pays for the scout
    assert mf(t, OFFER_MAKE) == {"offer_acorns": -1, "cards_payable": 1,
                                 "resources_short": -1}
    t.play(OFFER_MAKE)
    assert t[PHASE] == PH_REPLY and t[ACTOR] == 1
    assert mf(t, DECLINE) == {"passes": 1}
    assert mf(t, ACCEPT) == {"acorns_stored": 1, "rivals_stored": -1, "cards_payable": 1,
                             "resources_short": -1}  # P2's militia gets its berry


# --- the contract on random play ---------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 3])
def test_one_observation_one_vector_every_entry_finite(n):
    """Every legal move of random play: the seat's observation of the true state and of a
    determinisation of it (the other hands and the deck dealt again) give one vector, every
    entry written and finite, the observation left alone. (That a call allocates nothing is
    ``simkit check``'s, tests/test_check.py.)"""
    t = Table(n)
    size = t.state.size
    obs, obs2, other, scratch = (np.empty(size, np.int32) for _ in range(4))
    out, out2 = np.empty(len(NAMES)), np.empty(len(NAMES))
    stream = np.array([4242], np.uint64)
    checked = 0
    for g in range(2):
        streams = np.empty(1 + n, np.uint64)
        seed_streams(np.uint64(300 + g), n, streams)
        chance, rng = streams[0:1], np.random.default_rng(g)
        R.new_game(t.params, n, t.state, chance)
        while not R.is_over(t.state):
            k = R.legal_moves(t.params, t.state, t.moves)
            seat = int(R.to_move(t.state))
            R.observe(t.params, t.state, seat, obs)
            R.determinize(t.params, obs, seat, other, stream, scratch)
            R.observe(t.params, other, seat, obs2)
            before = obs.copy()
            for m in t.moves[:k]:
                out[:] = np.nan
                R.move_features(t.params, obs, seat, m, out)
                R.move_features(t.params, obs2, seat, m, out2)
                assert np.isfinite(out).all(), (m, out)
                assert np.array_equal(out, out2), \
                    (m, [NAMES[i] for i in np.flatnonzero(out != out2)])
                checked += 1
            assert np.array_equal(before, obs)
            R.apply_move(t.params, t.state, t.moves[rng.integers(k)], chance, t.items)
    assert checked > 1000
