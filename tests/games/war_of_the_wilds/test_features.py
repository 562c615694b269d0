"""The features kernel (NOTES.md, Features): every entry on a built table, read through
``observe`` for a seat; the seats of one table see each other's entries in play order from
themselves (own, next, second, third); raids against blockers, fliers, Bands and the day
card; the fights under way, the Fox, the hand, the offer; on random games each seat's
progress is the progress kernel's; and a call allocates nothing."""

import re

import numpy as np
import pytest
from wotw_table import DK, Table, attack, main_phase, morning, ready

from simkit.games.war_of_the_wilds import GAME
from simkit.games.war_of_the_wilds import rules as R
from simkit.games.war_of_the_wilds.state import (
    ACTOR,
    AFLAG,
    ARMY,
    ATTACK,
    BLOCK,
    BLOCK_FOX,
    BURIED,
    DAY,
    DAY_CARD,
    DAY_ORDER,
    END_PLAY,
    HOME,
    MIX_BACK,
    N_TRADE_KINDS,
    NEW,
    OFFER_ADD,
    OFFER_MAKE,
    OFFER_START,
    PH_ACTION,
    PH_AFTER,
    PH_ASSIGN,
    PH_BLOCK,
    PH_DAWN,
    PH_DISCARD,
    PH_DRAW,
    PH_FOX_BLOCK,
    PH_MAIN,
    PH_MIX,
    PH_OFFER,
    PH_OVER,
    PH_PAY,
    PH_REPLY,
    PH_SETUP,
    PHASE,
    RALLY,
    STAY,
    STORE,
    TIRED,
    TRADE_ACORN,
    TURNS,
    WILD,
)
from simkit.rng import seed_streams

FEATURES = R.FEATURES
WHO = R.SEATS


def features(t, seat):
    """The seat's features of the table's true state, through its observation."""
    obs = np.empty_like(t.state)
    R.observe(t.params, t.state, seat, obs)
    out = np.full(len(FEATURES), np.nan)
    R.features(t.params, obs, seat, out)
    assert np.isfinite(out).all()
    return dict(zip(FEATURES, out.tolist(), strict=True))


def army(t, p, *names, flags=0):
    return [t.put_creature(p, name, flags) for name in names]


def test_the_names_are_the_specs_one_each_in_snake_case():
    assert GAME.features == FEATURES and GAME.has_features
    assert len(FEATURES) == 81 and len(set(FEATURES)) == len(FEATURES)
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", n) for n in FEATURES)
    for name in R.SEAT_FEATURES:  # own_, next_, second_, third_ side by side
        i = FEATURES.index(f"own_{name}")
        assert FEATURES[i:i + 4] == tuple(f"{who}_{name}" for who in WHO)


# --- each seat's entries, from every seat ----------------------------------------------------

def four_seats():
    """Day 1, P1 (seat 0) to act: acorns, resource cards, hands and armies all different."""
    t = ready(4)
    t.set_acorns(0, stored=4, buried=6)
    t.set_acorns(1, stored=7, buried=2)
    t.set_acorns(2, stored=0, buried=9)
    t.give_res(0, berry=2, twig=1)
    t.give_res(1, pebble=3)
    t.give_card(0, "boar")
    t.give_card(0, "windfall")
    t.give_card(1, "crow", 2)
    army(t, 0, "boar", "weasel")
    army(t, 1, "hedgehog", flags=TIRED)
    army(t, 1, "sparrow")
    army(t, 2, "badger")
    t.set_acorns(3, stored=3, buried=1)
    t.give_res(3, feather=1)
    t.give_card(3, "sparrow")
    army(t, 3, "mole")
    army(t, 3, "squirrel_scout", flags=TIRED)
    t.ok()
    return t


SEATS_OF_FOUR = {  # P1's, P2's, P3's, P4's
    "buried": (6, 2, 9, 1),
    "stored": (4, 7, 0, 3),
    "resource_cards": (3, 3, 0, 1),
    "hand_cards": (2, 2, 0, 1),
    "creatures": (2, 2, 1, 2),
    "army_strength": (4 + 2, 1 + 1, 3, 1 + 1),
    "standing_creatures": (2, 1, 1, 1),    # P2's hedgehog and P4's squirrel are tired
}


def test_each_seats_entries_and_its_progress_as_the_kernel_counts_it():
    t = four_seats()
    progress = np.empty(4)
    R.progress(t.params, t.state, progress)
    for seat in range(4):
        f = features(t, seat)
        for o, who in enumerate(WHO):
            p = (seat + o) % 4
            for name, values in SEATS_OF_FOUR.items():
                assert f[f"{who}_{name}"] == values[p], (seat, who, name)
            assert f[f"{who}_progress"] == pytest.approx(progress[p])
    assert len(set(progress)) == 4


def test_the_seats_absent_at_three_players_are_0():
    t = ready(3)
    for p in range(3):
        t.set_acorns(p, stored=2, buried=1)
        army(t, p, "sparrow")
    f = features(t, 1)
    assert f["second_stored"] == 2 and f["second_raid_on_own"] == 0  # P1's, blocked
    for name in R.SEAT_FEATURES:
        assert f[f"third_{name}"] == 0
    assert f["own_raid_on_third"] == f["third_raid_on_own"] == f["own_sent_against_third"] == 0


def test_the_seats_see_each_other_in_play_order():
    t = four_seats()
    f = [features(t, s) for s in range(4)]
    for name in R.SEAT_FEATURES:
        for s in range(4):
            after = f[(s + 1) % 4]
            assert f[s][f"own_{name}"] == after[f"third_{name}"]
            assert f[s][f"next_{name}"] == after[f"own_{name}"]
            assert f[s][f"second_{name}"] == after[f"next_{name}"]
            assert f[s][f"third_{name}"] == after[f"second_{name}"]
    # one raid, seen by the raider as its own and by its victim as the raider's place from
    # it: P2's sparrow stops the boar, the weasel gets through
    assert f[0]["own_raid_on_next"] == f[1]["third_raid_on_own"] == 3
    assert f[0]["own_raid_on_third"] == f[3]["next_raid_on_own"] == 3  # P4's mole blocks


# --- the turn and the decision ---------------------------------------------------------------

def test_the_turn_as_fractions_and_the_turns_left():
    t = ready(2, seat=1)
    t.state[TURNS] = 2 * 5 + 1  # day 6, P1 has played, P2 to play
    f0, f1 = features(t, 0), features(t, 1)
    assert f0["game_fraction"] == f1["game_fraction"] == pytest.approx(11 / 32)
    assert f0["turns_fraction_of_cap"] == pytest.approx(11 / 200)  # max_turns 200
    assert (f0["own_turns_left"], f1["own_turns_left"]) == (10, 11)
    assert (f0["own_turn"], f1["own_turn"]) == (0, 1)
    assert (f0["own_decision"], f1["own_decision"]) == (0, 1)


@pytest.mark.parametrize("phase, back, kind", [
    (PH_SETUP, 0, "setup"), (PH_DAWN, 0, "setup"), (PH_ACTION, 0, "action"),
    (PH_DRAW, 0, "action"), (PH_MIX, PH_ACTION, "action"), (PH_MAIN, 0, "play"),
    (PH_PAY, 0, "play"), (PH_AFTER, 0, "play"), (PH_MIX, PH_AFTER, "play"),
    (PH_OFFER, 0, "trade"), (PH_REPLY, 0, "trade"), (PH_ASSIGN, 0, "attack"),
    (PH_BLOCK, 0, "block"), (PH_FOX_BLOCK, 0, "block"), (PH_DISCARD, 0, "discard"),
])
def test_the_kind_of_decision_is_one_of_seven(phase, back, kind):
    t = ready(2)
    t.state[PHASE] = phase
    t.state[MIX_BACK] = back
    f = features(t, 0)
    assert [k for k in R.PHASES if f[f"decision_is_{k}"] == 1] == [kind]
    assert sum(f[f"decision_is_{k}"] for k in R.PHASES) == 1
    # the turn is a player's only while one is being played (the morning's Fox is not)
    in_turn = phase not in (PH_SETUP, PH_DAWN, PH_FOX_BLOCK)
    assert f["own_turn"] == (1 if in_turn else 0)


def test_setup_and_the_end():
    t = Table(2)
    f = features(t, t[ACTOR])
    assert f["decision_is_setup"] == 1 and f["own_turn"] == 0 and f["own_decision"] == 1
    assert f["game_fraction"] == 0 and f["own_turns_left"] == 16
    assert f["fox_chance_tomorrow"] == pytest.approx(1 / 20)  # day 1 is still to turn
    t = ready(2)
    t.state[PHASE] = PH_OVER
    t.state[TURNS] = 32
    t.state[DAY] = 17
    f = features(t, 0)
    assert all(f[f"decision_is_{k}"] == 0 for k in R.PHASES)
    assert f["own_turn"] == f["own_decision"] == f["own_turns_left"] == 0
    assert f["game_fraction"] == 1 and f["fox_chance_tomorrow"] == 0


# --- the day ---------------------------------------------------------------------------------

@pytest.mark.parametrize("card, entry, value", [
    ("heavy_rain", "rain_today", 1), ("hard_frost", "frost_today", 1),
    ("thick_fog", "fog_today", 1), ("windy_day", "windy_today", 1),
    ("full_moon", "moon_bonus_today", 1), ("bumper_crop", "forage_today", 3 + 2),
])
def test_todays_card(card, entry, value):
    quiet = features(ready(2, day_card="quiet_day"), 0)
    f = features(ready(2, day_card=card), 0)
    assert f[entry] == value
    assert quiet[entry] == (3 if entry == "forage_today" else 0)
    for other in ("rain_today", "frost_today", "fog_today", "windy_today",
                  "moon_bonus_today", "forage_today"):
        if other != entry:
            assert f[other] == quiet[other]


def turned(t, *cards):
    """The day cards turned so far, in order (swapped into place: the day deck stays
    whole); the last is today's."""
    for d, card in enumerate(cards):
        order = t.state[DAY_ORDER:DAY_ORDER + 20]
        i = d + int(np.flatnonzero(order[d:] == DK[card])[0])
        order[d], order[i] = order[i], order[d]
    t.state[DAY] = len(cards)
    t.state[DAY_CARD] = DK[cards[-1]]


def test_the_wild_and_the_foxs_chance_tomorrow():
    t = ready(2)
    turned(t, "quiet_day", "heavy_rain")
    f = features(t, 0)
    assert f["wild"] == t[WILD] == 30
    assert f["fox_chance_tomorrow"] == pytest.approx(1 / 18)  # 1 Fox in 18 cards unturned
    turned(t, "quiet_day", "the_fox")
    assert features(t, 0)["fox_chance_tomorrow"] == 0  # the only Fox is out
    others = [c for c in DK if c not in ("quiet_day", "the_fox")]
    turned(t, *["quiet_day"] * 3, *others[:12], "the_fox")
    assert t[DAY] == 16 and features(t, 0)["fox_chance_tomorrow"] == 0  # no tomorrow


def test_the_fox_would_come_for_the_richest_store():
    t = ready(3)
    t.set_acorns(0, stored=5)
    t.set_acorns(1, stored=5)
    t.set_acorns(2, stored=2)
    assert [features(t, s)["own_fox_target"] for s in range(3)] == [1, 1, 0]
    for p in range(3):
        t.set_acorns(p, stored=0)
    assert [features(t, s)["own_fox_target"] for s in range(3)] == [0, 0, 0]


# --- raids -----------------------------------------------------------------------------------

def raids(t, seat=0):
    f = features(t, seat)
    return f["own_raid_on_next"], f["next_raid_on_own"]


def test_a_raid_is_the_armys_steal_up_to_the_store():
    t = ready(2)
    army(t, 0, "boar", "weasel")  # 4, and 2 + the weasel's 1 unblocked
    t.set_acorns(1, stored=10, buried=5)
    assert raids(t) == (4 + 2 + 1, 0)
    assert raids(t, 1) == (0, 7)  # the victim sees it as the next seat's
    t.set_acorns(1, stored=5)
    assert raids(t) == (5, 0)


def test_a_blocker_stops_the_unit_worth_most_and_tired_ones_do_not_block():
    t = ready(2)
    army(t, 0, "boar", "weasel")
    t.set_acorns(1, stored=10)
    (hedgehog,) = army(t, 1, "hedgehog")
    assert raids(t)[0] == 3  # the boar is stopped
    t.set(1, AFLAG + hedgehog, TIRED)
    assert raids(t)[0] == 7


def test_fliers_are_stopped_only_by_flying_or_ranged_blockers():
    t = ready(2)
    army(t, 0, "crow", "mouse_militia")  # 2 flying, 1 on the ground
    t.set_acorns(1, stored=10)
    (blocker,) = army(t, 1, "hedgehog")  # the ground only: stops the militia
    assert raids(t)[0] == 2
    t.set(1, ARMY + blocker, t.kinds.index("frog_slinger"))  # ranged: stops the crow
    assert raids(t)[0] == 1
    army(t, 1, "hedgehog")
    assert raids(t)[0] == 0


def test_a_band_attacks_as_one_unit_and_blocks_as_one():
    t = ready(2)
    army(t, 0, "mouse_militia", "mouse_militia", "mouse_militia")
    t.set_acorns(1, stored=10)
    assert raids(t)[0] == 3
    army(t, 1, "hedgehog")  # one blocker stops the whole Band
    assert raids(t)[0] == 0
    t = ready(2)
    army(t, 0, "boar", "weasel")
    army(t, 1, "mouse_militia", "mouse_militia")  # a Band blocks one attacker
    t.set_acorns(1, stored=10)
    assert raids(t)[0] == 3


def test_a_badger_unblocked_digs_buried_acorns():
    t = ready(2)
    army(t, 0, "badger")
    t.set_acorns(1, stored=2, buried=5)
    assert raids(t)[0] == 2 + 1  # 3 to steal, 2 in the store; 1 dug up


def test_who_can_go_on_the_next_attack_step():
    t = ready(2)  # P1's turn, before its attacks
    army(t, 0, "boar", flags=NEW)  # just played: cannot attack this turn, but blocks
    army(t, 0, "weasel", flags=TIRED)  # tired (an ability): neither attacks nor blocks
    army(t, 1, "boar", "crow", flags=TIRED)  # P2's stand at the start of its turn
    t.set_acorns(0, stored=10)
    t.set_acorns(1, stored=10)
    assert raids(t) == (0, 2)  # P1's new boar stands before P2's; the crow flies past


def test_the_day_card_counts_on_the_raids_day():
    t = ready(2)
    army(t, 0, "boar", "crow")  # P1 raids today
    army(t, 1, "heron")  # flies and is ranged: blocks either
    t.set_acorns(1, stored=10)
    for card, raid in (("quiet_day", 2),  # the heron stops the boar
                       ("full_moon", 3),  # + 1 each
                       ("windy_day", 4),  # the crow stays home, the heron cannot block
                       ("thick_fog", 4 + 2),  # nobody blocks
                       ("heavy_rain", 0)):
        t.state[DAY_CARD] = DK[card]
        assert raids(t)[0] == raid, card
    # P2's raid comes later today in 2 players; in 3, P2 to play: P3 later today, P1 tomorrow
    for n, seat, raider in ((2, 0, "next"), (3, 1, "next"), (3, 1, "second")):
        t = ready(n, seat=seat, day_card="heavy_rain")
        for p in range(n):
            if p != seat:
                army(t, p, "boar", flags=TIRED)
        t.set_acorns(seat, stored=10)
        today = raider == "next"
        assert features(t, seat)[f"{raider}_raid_on_own"] == (0 if today else 4)
        t.state[DAY_CARD] = DK["quiet_day"]
        assert features(t, seat)[f"{raider}_raid_on_own"] == 4


def test_no_raid_after_the_last_days_attacks():
    t = ready(2, seat=1)  # P2's turn: P1 has attacked today
    army(t, 0, "boar", "crow", flags=TIRED)
    army(t, 1, "boar")
    for p in range(2):
        t.set_acorns(p, stored=10)
    assert raids(t, 1) == (4, 2)  # P1's boar is stopped by P2's tomorrow, its crow is not
    t.state[DAY] = 16
    assert raids(t, 1) == (4, 0)  # P2 still attacks today; P1 never again
    assert raids(t, 0) == (0, 4)


def test_after_its_attacks_the_seat_raids_next_on_the_next_day():
    t = ready(2, day_card="heavy_rain")
    army(t, 0, "boar")
    army(t, 1, "weasel", flags=TIRED)
    for p in range(2):
        t.set_acorns(p, stored=10)
    assert raids(t) == (0, 0)  # both attack today, in the rain
    t.state[PHASE] = PH_DISCARD  # P1's attacks are over: its next are tomorrow's
    assert raids(t) == (4, 0)
    t.state[DAY] = 16
    assert raids(t) == (0, 0)


# --- the fights under way --------------------------------------------------------------------

def test_sending_attackers_and_the_raids_left():
    t = ready(3)
    weasel, boar = army(t, 0, "weasel", "boar")
    for p in (1, 2):
        t.set_acorns(p, stored=10)
    main_phase(t)
    t.play(END_PLAY)
    assert t[PHASE] == PH_ASSIGN
    f = features(t, 0)
    assert (f["own_raid_on_next"], f["own_raid_on_second"]) == (7, 7)
    assert f["decision_is_attack"] == 1 and f["own_sent_against_next"] == 0
    t.play(ATTACK + 1)  # the weasel goes against P2; the boar is asked next
    f = features(t, 0)
    assert (f["own_raid_on_next"], f["own_raid_on_second"]) == (7, 4)
    assert (f["own_sent_against_next"], f["own_sent_against_second"]) == (2, 0)
    f1 = features(t, 1)
    assert (f1["attack_on_own"], f1["attack_on_own_unblocked"]) == (2, 2)
    assert f1["next_raid_on_own"] == 0 and f1["second_raid_on_own"] == 7  # P1 is P2's second
    assert features(t, 2)["attack_on_own"] == 0


def test_sending_attackers_at_four():
    t = ready(4)
    army(t, 0, "weasel", "boar", "crow")  # the boar is Relentless: up to 2 attacks
    army(t, 3, "hedgehog")
    for p in (1, 2, 3):
        t.set_acorns(p, stored=10)
    main_phase(t)
    t.play(END_PLAY)

    def entries(seat, *names):
        f = features(t, seat)
        return tuple(f[name] for name in names)

    raids = ("own_raid_on_next", "own_raid_on_second", "own_raid_on_third")
    sent = ("own_sent_against_next", "own_sent_against_second", "own_sent_against_third")
    assert entries(0, *raids) == (3 + 4 + 2, 9, 3 + 2)  # P4's hedgehog stops the boar
    t.play(ATTACK + 2)  # the weasel against P3
    assert entries(0, *raids) == (4 + 2, 9, 2)
    t.play(ATTACK + 3)  # the boar against P4; it is asked again
    assert entries(0, *sent) == (0, 2, 4)
    assert entries(0, *raids) == (4 + 2, 9, 2)
    t.play(STAY)  # no second attack: the crow is asked
    assert entries(0, *raids) == (2, 3 + 2, 2)
    assert entries(3, "attack_on_own", "attack_on_own_unblocked", "next_raid_on_own") == (4, 4, 2)
    assert entries(1, "third_raid_on_own") == (2,)  # only the crow may still come


def test_the_strength_sent_counts_the_moon_and_a_war_cry():
    t = ready(2, day_card="full_moon")
    army(t, 0, "boar", "weasel")
    main_phase(t)
    t.play(END_PLAY)
    t.play(ATTACK + 1)  # the boar; the weasel is asked next
    assert features(t, 0)["own_sent_against_next"] == 4 + 1
    t.state[RALLY] = 1
    assert features(t, 0)["own_sent_against_next"] == 4 + 1 + 1
    assert features(t, 1)["attack_on_own"] == 4 + 1 + 1


def test_a_fight_from_both_seats():
    t = ready(2)
    boar, weasel = army(t, 0, "boar", "weasel")
    army(t, 1, "hedgehog", "frog_slinger")
    t.set_acorns(1, stored=10)
    main_phase(t)
    attack(t, [1, 1])
    assert t[PHASE] == PH_BLOCK
    f0, f1 = features(t, 0), features(t, 1)
    assert f0["own_sent_against_next"] == 6 and f0["own_standing_creatures"] == 0
    assert (f1["attack_on_own"], f1["attack_on_own_unblocked"]) == (6, 6)
    assert f1["decision_is_block"] == 1 and f1["own_decision"] == 1 and f1["own_turn"] == 0
    assert f0["own_raid_on_next"] == f1["next_raid_on_own"] == 0  # two blockers, two units
    t.play(BLOCK + boar)  # the hedgehog stands before the boar
    f1 = features(t, 1)
    assert (f1["attack_on_own"], f1["attack_on_own_unblocked"]) == (6, 2)
    t.play(BLOCK + weasel)  # the fight is fought: nothing is under way any more
    f0, f1 = features(t, 0), features(t, 1)
    assert f0["own_sent_against_next"] == 0 and f1["attack_on_own"] == 0


def test_the_fox_attacking():
    t = ready(2)
    t.set_acorns(1, stored=6)
    hedgehog, frog = army(t, 1, "hedgehog", "frog_slinger")
    army(t, 0, "boar", "weasel", "crow")
    t.state[DAY] = 15
    morning(t, "the_fox")  # the last day's: every turn of it is still to come
    assert t[PHASE] == PH_FOX_BLOCK and t[DAY] == 16
    f0, f1 = features(t, 0), features(t, 1)
    assert (f1["attack_on_own"], f1["attack_on_own_unblocked"]) == (3, 3)
    assert f0["attack_on_own"] == 0 and f1["decision_is_block"] == 1
    assert f0["own_raid_on_next"] == 2  # the boar and the weasel stopped, the crow not
    t.play(BLOCK_FOX)
    assert features(t, 1)["attack_on_own_unblocked"] == 0


# --- the hand --------------------------------------------------------------------------------

def hand_table(day_card="quiet_day"):
    t = ready(2, day_card=day_card)
    t.set(0, HOME, 1)  # berry and pebble
    t.give_res(0, berry=2, twig=1, pebble=0, feather=3)
    t.give_card(0, "boar")               # 2 berries, a pebble and 2 of any kind
    t.give_card(0, "mouse_militia", 2)   # a berry each
    t.give_card(0, "windfall")           # 1 of any: forage 3
    t.give_card(0, "pickpocket")         # a berry and 1 of any: steal 2
    t.give_card(0, "deep_burrow")        # a twig and 1 of any: bury 3
    t.give_card(1, "mouse_militia", 3)   # P2's hand is not P1's
    return t


def test_the_hand_by_what_its_cards_do_and_cost():
    f = features(hand_table(), 0)
    assert [f[f"own_{r}_cards"] for r in ("berry", "twig", "pebble", "feather")] == [2, 1, 0, 3]
    assert (f["own_creatures_in_hand"], f["own_tricks_in_hand"]) == (3, 3)
    assert f["own_cards_payable"] == 2 + 1 + 1 + 1  # not the boar: it lacks a pebble
    assert f["own_resources_short"] == (5 + 2 + 1 + 2 + 2) - 6
    assert f["own_home_kinds_short"] == (5 - 2) + (1 - 0)  # berries and the pebble
    assert (f["own_acorn_tricks"], f["own_bury_tricks"]) == (3 + 2, 3)


def test_call_to_arms_makes_creatures_payable():
    f = features(hand_table("call_to_arms"), 0)
    assert f["own_cards_payable"] == 6  # the boar's missing pebble is the card let off
    assert f["own_resources_short"] == (4 + 0 + 1 + 2 + 2) - 6


def test_the_abilities_ready():
    t = ready(2)
    army(t, 0, "squirrel_scout", "squirrel_scout", "mole")
    army(t, 0, "squirrel_scout", flags=TIRED)
    army(t, 0, "owl_sentinel")  # draws: not an acorn ability
    f = features(t, 0)
    assert (f["own_forage_abilities"], f["own_bury_abilities"]) == (2 + 2, 2)
    t = Table(2, {"cards.mole.words": ["waits"]})  # a designer's mole that waits, as the owl
    t.to_turn(0)
    army(t, 0, "mole", flags=NEW)
    army(t, 0, "mole")
    assert features(t, 0)["own_bury_abilities"] == 2  # the one just played must wait


# --- the offer -------------------------------------------------------------------------------

def test_an_offer_as_each_side_gains_and_gives():
    t = ready(3)
    t.give_res(0, berry=2)
    t.give_res(1, twig=2)
    t.set_acorns(0, stored=3)
    t.play(OFFER_START + 1)
    for item in (0, TRADE_ACORN, N_TRADE_KINDS + 1):  # a berry and an acorn for a twig
        t.play(OFFER_ADD + item)
    assert t[PHASE] == PH_OFFER
    entries = ("own_offer_cards_in", "own_offer_acorns_in", "own_offer_cards_out",
               "own_offer_acorns_out")
    f = features(t, 0)
    assert [f[e] for e in entries] == [1, 0, 1, 1] and f["decision_is_trade"] == 1
    t.play(OFFER_MAKE)
    assert t[PHASE] == PH_REPLY
    f = features(t, 1)
    assert [f[e] for e in entries] == [1, 1, 1, 0] and f["own_decision"] == 1
    assert [features(t, 2)[e] for e in entries] == [0, 0, 0, 0]
    assert features(t, 0)["own_turn"] == 1 and features(t, 0)["own_decision"] == 0


# --- random games ----------------------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_seats_progress_is_the_kernels_on_random_games(n):
    """Each seat's view of every seat's progress is ``progress``'s (it reads only public
    numbers); a raid never takes more than the target holds; absent seats are 0."""
    t = Table(n)
    moves = t.moves
    checked = 0
    progress = np.empty(n)
    for g in range(3):
        streams = np.empty(1 + n, np.uint64)
        seed_streams(np.uint64(100 + g), n, streams)
        chance, rng = streams[0:1], np.random.default_rng(g)
        R.new_game(t.params, n, t.state, chance)
        while not R.is_over(t.state):
            R.progress(t.params, t.state, progress)
            for seat in range(n):
                f = features(t, seat)
                for o, who in enumerate(WHO):
                    if o >= n:
                        assert f[f"{who}_progress"] == f[f"{who}_stored"] == 0
                        continue
                    p = (seat + o) % n
                    assert f[f"{who}_progress"] == pytest.approx(progress[p])
                    if o > 0:
                        reach = t.get(p, STORE) + t.get(p, BURIED)
                        assert 0 <= f[f"own_raid_on_{who}"] <= reach
                checked += 1
            k = R.legal_moves(t.params, t.state, moves)
            R.apply_move(t.params, t.state, moves[rng.integers(k)], chance, t.items)
    assert checked > 500
