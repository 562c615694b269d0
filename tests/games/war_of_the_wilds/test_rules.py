"""Scenario tests for War of the Wilds: hand-built states, one rule at a time."""

import itertools

import numpy as np
import pytest
from wotw_table import DK, K, Table, attack, main_phase, morning, ready

from simkit.games.war_of_the_wilds import check_state
from simkit.games.war_of_the_wilds import rules as R
from simkit.games.war_of_the_wilds.state import *  # noqa: F403


@pytest.fixture
def t2():
    return Table(2)


# --- setup ---------------------------------------------------------------------------------

def test_setup_deals_five_and_four_resources_then_keep_five(t2):
    t = t2
    assert t[PHASE] == PH_SETUP and t[ACTOR] == 0  # noqa: F405
    for p in range(2):
        assert R.hand_size(t.state, p) == 5 and R.res_total(t.state, p) == 4
    assert t[WILD] == 30  # noqa: F405
    deck_before = t[DECK_N]  # noqa: F405
    t.play(RETURN_RES + 0)  # noqa: F405
    k = [m for m in t.legal() if DISCARD_CARD <= m < RETURN_RES][0]  # noqa: F405
    t.play(k)
    t.play(t.legal()[0])
    t.play(t.legal()[0])
    assert R.hand_size(t.state, 0) + R.res_total(t.state, 0) == 5
    assert t[ACTOR] == 1  # noqa: F405
    assert t[DECK_N] >= deck_before + 1  # noqa: F405


def test_first_game_variant_starts_with_militia_sparrow_and_one_of_each():
    t = Table(3, {"first_game": True})
    assert t[PHASE] == PH_DAWN  # noqa: F405
    for p in range(3):
        assert t.get(p, HAND + K["mouse_militia"]) == 1  # noqa: F405
        assert t.get(p, HAND + K["sparrow"]) == 1  # noqa: F405
        assert R.hand_size(t.state, p) == 2
        assert [t.get(p, RES + r) for r in range(4)] == [1, 1, 1, 1]  # noqa: F405
    t.play(END_PLAY)  # noqa: F405
    assert t[DAY] == 1 and t[PHASE] == PH_ACTION and t[SEAT] == 0  # noqa: F405
    assert sum(t.state[ROW:ROW + 3] >= 0) == 3  # noqa: F405


# --- the day -------------------------------------------------------------------------------

def test_row_is_replaced_from_day_two_and_day_card_turned():
    t = ready()
    row1 = t.state[ROW:ROW + 3].copy()  # noqa: F405
    discard = t[DISCARD_N]  # noqa: F405
    t.state[DAY] = 1  # noqa: F405
    morning(t, "quiet_day")
    assert t[DAY] == 2 and t[DAY_CARD] == DK["quiet_day"]  # noqa: F405
    assert t[DISCARD_N] == discard + 3  # noqa: F405
    assert list(t.state[DISCARD + discard:DISCARD + discard + 3]) == list(row1)  # noqa: F405
    assert (t.state[ROW:ROW + 3] >= 0).all()  # noqa: F405
    assert t[PHASE] == PH_ACTION and t[SEAT] == 0  # noqa: F405


def test_game_ends_after_day_sixteen_with_tie_breaks():
    t = ready(3)
    t.set_acorns(0, stored=5, buried=4)
    t.set_acorns(1, stored=1, buried=6)
    t.set_acorns(2, stored=2, buried=6)
    t.state[DAY] = 16  # noqa: F405
    t.state[SEAT] = 2  # noqa: F405
    R.end_turn(t.params[0], t.state, t.chance, t.items)
    assert R.is_over(t.state)
    scores, ranks = np.zeros(3), np.zeros(3, np.int32)
    R.finish(t.params, t.state, scores, ranks)
    assert scores.tolist() == [4, 6, 6] and ranks.tolist() == [3, 2, 1]
    t.set_acorns(1, stored=2)  # still tied: they share the win
    R.finish(t.params, t.state, scores, ranks)
    assert ranks.tolist() == [3, 1, 1]


# --- actions -------------------------------------------------------------------------------

def test_gather_takes_three_of_the_home_kinds_in_any_mix():
    t = ready()
    home = tables(t.params)[2][t.get(0, HOME)]  # noqa: F405
    t.play(GATHER + 1)  # noqa: F405
    got = [t.get(0, RES + r) for r in range(4)]  # noqa: F405
    assert got[home[0]] == 2 and got[home[1]] == 1 and sum(got) == 3
    assert t[PHASE] == PH_MAIN  # noqa: F405


def test_draw_from_row_and_deck_refills_row_after():
    t = ready()
    row = t.state[ROW:ROW + 3].copy()  # noqa: F405
    t.play(DRAW)  # noqa: F405
    t.play(TAKE_ROW + 1)  # noqa: F405
    assert t[ROW + 1] == -1  # noqa: F405  (not refilled before the second draw)
    t.play(TAKE_DECK)  # noqa: F405
    assert R.hand_size(t.state, 0) == 2 and t.get(0, HAND + row[1]) >= 1  # noqa: F405
    assert t[ROW + 1] >= 0 and t[PHASE] == PH_MAIN  # noqa: F405


def test_draw_may_refresh_the_row_first():
    t = ready()
    row = t.state[ROW:ROW + 3].copy()  # noqa: F405
    d = t[DISCARD_N]  # noqa: F405
    t.play(DRAW_REFRESH)  # noqa: F405
    assert t[DISCARD_N] == d + 3 and list(t.state[DISCARD + d:DISCARD + d + 3]) == list(row)  # noqa: F405
    assert t[PHASE] == PH_DRAW  # noqa: F405


def test_forage_three_and_the_wild_running_out():
    t = ready()
    t.play(FORAGE)  # noqa: F405
    assert t.get(0, STORE) == 3 and t[WILD] == 27  # noqa: F405
    t = ready()
    t.set_acorns(1, buried=28)
    t.play(FORAGE)  # noqa: F405
    assert t.get(0, STORE) == 2 and t[WILD] == 0  # noqa: F405


def test_bury_up_to_three():
    t = ready()
    t.set_acorns(0, stored=5)
    legal = t.legal()
    assert BURY + 2 in legal and BURY + 3 not in legal  # noqa: F405
    t.play(BURY + 2)  # noqa: F405
    assert t.get(0, STORE) == 2 and t.get(0, BURIED) == 3  # noqa: F405
    t = ready()
    t.set_acorns(0, stored=1)
    assert BURY in t.legal() and BURY + 1 not in t.legal()  # noqa: F405


# --- playing cards ---------------------------------------------------------------------------

def test_cost_specific_and_circled_any_kind():
    t = ready()
    main_phase(t)
    t.give_card(0, "badger")  # pebble 2 + any 2
    t.give_res(0, pebble=2, berry=1)
    assert PLAY + 4 * K["badger"] not in t.legal()  # noqa: F405
    t.give_res(0, pebble=2, berry=1, feather=1)
    assert PLAY + 4 * K["badger"] in t.legal()  # noqa: F405
    t.play(PLAY + 4 * K["badger"])  # noqa: F405
    assert R.res_total(t.state, 0) == 0 and t.army(0) == ["badger"]


def pay_choices(t):
    """The payment kinds offered now, by name."""
    return [RESOURCE_NAMES[m - PAY_RES] for m in t.legal()]  # noqa: F405


def test_the_player_chooses_which_cards_pay_the_circle():
    """Circled 2 of the Badger (pebble 2 + any 2) from berry, twig and feather: the player
    picks the two, in kind order, so each of the three ways is one line of choices."""
    def badger():
        t = ready()
        main_phase(t)
        t.give_card(0, "badger")
        t.give_res(0, berry=1, twig=1, pebble=2, feather=1)
        t.play(PLAY + 4 * K["badger"])  # noqa: F405
        assert t[PHASE] == PH_PAY and pay_choices(t) == ["berry", "twig"]  # noqa: F405
        return t

    t = badger()
    t.play(PAY_RES + 1)  # noqa: F405  twig first: berry can no longer be chosen
    assert t[PHASE] == PH_MAIN and t.army(0) == ["badger"]  # noqa: F405  (the rest forced)
    assert [t.get(0, RES + r) for r in range(4)] == [1, 0, 0, 0]  # noqa: F405
    for second, kept in (("twig", [0, 0, 0, 1]), ("pebble", [0, 1, 0, 0])):
        t = badger()
        t.play(PAY_RES + 0)  # noqa: F405  berry first
        assert pay_choices(t) == ["twig", "pebble"]  # a pebble now: the feather pays the circle
        t.play(PAY_RES + RESOURCE_NAMES.index(second))  # noqa: F405
        assert t[PHASE] == PH_MAIN and t.army(0) == ["badger"]  # noqa: F405
        assert [t.get(0, RES + r) for r in range(4)] == kept, second  # noqa: F405


def test_which_cards_pay_matters_so_it_is_not_automatic():
    """A Windfall (circled 1) from a berry, a twig and a pebble: with a Mouse Militia (a
    berry) also in hand the berry must stay, with a Mole (a twig and a pebble) it must go.
    The old rule (the kind held most, ties berry first) always paid the berry."""
    for other, keep, pay in (("mouse_militia", "berry", "twig"), ("mole", "twig", "berry")):
        for paid, both in ((pay, True), (keep, False)):
            t = ready()
            main_phase(t)
            t.give_card(0, "windfall")
            t.give_card(0, other)
            t.give_res(0, berry=1, twig=1, pebble=1)
            t.play_paid(PLAY + 4 * K["windfall"], paid)  # noqa: F405
            assert (PLAY + 4 * K[other] in t.legal()) == both, (other, paid)  # noqa: F405


def test_a_payment_with_one_way_is_made_at_once():
    t = ready()
    main_phase(t)
    t.give_card(0, "badger")
    t.give_res(0, berry=2, pebble=2)
    t.play(PLAY + 4 * K["badger"])  # noqa: F405
    assert t[PHASE] == PH_MAIN and R.res_total(t.state, 0) == 0  # noqa: F405
    t.give_card(0, "windfall")  # any 1, from one kind held
    t.give_res(0, twig=3)
    t.play(PLAY + 4 * K["windfall"])  # noqa: F405
    assert t[PHASE] == PH_MAIN and t.get(0, RES + 1) == 2  # noqa: F405


def valid_payments(spec, circle, discount, held):
    """Every way to pay (resource multisets as 4-tuples), by brute force: as many cards as
    the cost less the discount, at most what is held, the specific cards missing no more
    than the discount (it waives them)."""
    total = max(0, sum(spec) + circle - discount)
    out = set()
    for m in itertools.product(*(range(h + 1) for h in held)):
        if sum(m) == total and sum(max(0, a - b) for a, b in zip(spec, m, strict=True)) <= discount:
            out.add(m)
    return out


def reachable_payments(t, move):
    """Play ``move`` and follow every line of payment choices: the multisets paid (each
    line's), as a list, so that a payment reached by two lines shows twice."""
    start = t.state.copy()
    before = [t.get(0, RES + r) for r in range(4)]  # noqa: F405
    out = []

    def walk():
        if t[PHASE] != PH_PAY:  # noqa: F405
            out.append(tuple(b - t.get(0, RES + r) for r, b in enumerate(before)))  # noqa: F405
            return
        here = t.state.copy()
        for m in t.legal():
            t.state[:] = here
            t.play(m)
            walk()

    t.play(move)
    walk()
    t.state[:] = start
    return out


@pytest.mark.parametrize("day", ["quiet_day", "call_to_arms"])
def test_the_pay_step_offers_exactly_every_way_to_pay_once(day):
    """Every card, on many holdings: the payments the pay step can reach are exactly the
    valid ones (brute force), each by one line of choices, and the card is playable exactly
    when there is one."""
    rng = np.random.default_rng(11)
    cards = tables(Table(2).params)[0]  # noqa: F405
    for name, k in K.items():
        spec = [int(v) for v in cards[k, C_COST:C_COST + 4]]  # noqa: F405
        circle = int(cards[k, C_ANY])  # noqa: F405
        trick = bool(cards[k, C_TRICK])  # noqa: F405
        move = PLAY + 4 * k + (1 if cards[k, C_TARGETED] else 0)  # noqa: F405
        discount = 1 if day == "call_to_arms" and not trick else 0
        for _ in range(12):
            held = [int(v) for v in rng.integers(0, 4, 4)]
            t = ready(day_card=day)
            main_phase(t)
            t.give_card(0, name)
            t.give_res(0, *held)
            valid = valid_payments(spec, circle, discount, held)
            assert (move in t.legal()) == bool(valid), (name, held)
            if valid:
                got = reachable_payments(t, move)
                assert sorted(got) == sorted(valid), (name, held, got, valid)


def test_creature_cannot_attack_the_turn_it_is_played():
    t = ready()
    main_phase(t)
    t.give_card(0, "boar")
    t.give_res(0, berry=2, pebble=1, twig=2)
    t.play(PLAY + 4 * K["boar"])  # noqa: F405
    t.play(END_PLAY)  # noqa: F405
    assert t[PHASE] == PH_ACTION and t[SEAT] == 1  # noqa: F405  (no attack was offered)


def test_trick_resolves_and_is_discarded():
    t = ready()
    main_phase(t)
    t.give_card(0, "windfall")
    t.give_res(0, twig=1)
    d = t[DISCARD_N]  # noqa: F405
    t.play(PLAY + 4 * K["windfall"])  # noqa: F405
    assert t.get(0, STORE) == 3 and t[DISCARD_N] == d + 1  # noqa: F405
    assert t[DISCARD + d] == K["windfall"]  # noqa: F405
    assert t.item(0, "windfall:played") == 1


def test_targeted_tricks_pickpocket_dig_up_ambush():
    t = ready(3)
    main_phase(t)
    t.set_acorns(2, stored=3, buried=5)
    t.give_card(0, "pickpocket")
    t.give_card(0, "dig_up")
    t.give_card(0, "ambush")
    t.give_res(0, berry=4, pebble=4, twig=4)
    t.put_creature(2, "hedgehog")  # health 3: killable
    t.put_creature(2, "boar")  # health 4: safe
    t.put_creature(2, "sparrow")
    assert PLAY + 4 * K["pickpocket"] + 0 not in t.legal()  # noqa: F405  (not yourself)
    t.play_paid(PLAY + 4 * K["pickpocket"] + 2)  # noqa: F405
    assert t.get(0, STORE) == 2 and t.get(2, STORE) == 1  # noqa: F405
    t.play_paid(PLAY + 4 * K["dig_up"] + 2)  # noqa: F405
    assert t.get(2, BURIED) == 3 and t.get(2, STORE) == 3  # noqa: F405
    t.play_paid(PLAY + 4 * K["ambush"] + 2)  # noqa: F405
    assert sorted(t.army(2)) == ["boar", "sparrow"]


def test_war_cry_adds_strength_to_attackers_this_turn():
    t = ready()
    main_phase(t)
    t.put_creature(0, "weasel")  # 2 strength, +1 unblocked
    t.give_card(0, "war_cry")
    t.give_res(0, berry=1)
    t.set_acorns(1, stored=10)
    t.play(PLAY + 4 * K["war_cry"])  # noqa: F405
    t.play(END_PLAY)  # noqa: F405
    t.play(ATTACK + 1)  # noqa: F405
    assert t.get(0, STORE) == 4  # noqa: F405  (2 + 1 war cry + 1 weasel)


# --- abilities -------------------------------------------------------------------------------

def test_tiring_ability_uses_the_creature_up_for_attacks():
    t = ready()
    main_phase(t)
    i = t.put_creature(0, "squirrel_scout")
    t.set_acorns(1, stored=4)
    t.play(ABILITY + i)  # noqa: F405
    assert t.get(0, STORE) == 2 and t.get(0, AFLAG + i) & TIRED  # noqa: F405
    assert ABILITY + i not in t.legal()  # noqa: F405
    t.play(END_PLAY)  # noqa: F405
    assert t[SEAT] == 1  # noqa: F405  (a tired creature cannot attack)


def test_just_played_creature_uses_ability_at_once_but_owl_waits():
    t = ready()
    main_phase(t)
    t.give_card(0, "mole")
    t.give_card(0, "owl_sentinel")
    t.give_res(0, twig=1, pebble=1, feather=3)
    t.set_acorns(0, stored=3)
    t.play(PLAY + 4 * K["mole"])  # noqa: F405
    t.play(PLAY + 4 * K["owl_sentinel"])  # noqa: F405
    mole, owl = 0, 1
    assert ABILITY + mole in t.legal() and ABILITY + owl not in t.legal()  # noqa: F405
    t.play(ABILITY + mole)  # noqa: F405
    assert t.get(0, BURIED) == 2  # noqa: F405
    t.play(END_PLAY)  # noqa: F405
    R.start_turn(t.params[0], t.state, 0)
    t.state[PHASE] = PH_MAIN  # noqa: F405
    assert ABILITY + owl in t.legal()  # noqa: F405
    hand = R.hand_size(t.state, 0)
    t.play(ABILITY + owl)  # noqa: F405
    assert R.hand_size(t.state, 0) == hand + 1


# The Beaver (tire: gather 2) takes its cards "in any mix", as Gather: "Take 3 resource cards
# of the two kinds on your home card, in any mix." Before VERSION 6 it always took from the
# fuller pile.

def beaver_table(phase=PH_MAIN, overrides=None):  # noqa: F405
    """P1, home berry and twig, a standing Beaver; ``phase`` the step it is used in."""
    t = ready(overrides=overrides)
    assert list(tables(t.params)[2][0]) == [BERRY, TWIG]  # noqa: F405
    t.set(0, HOME, 0)  # noqa: F405
    t.state[PHASE] = phase  # noqa: F405
    return t, t.put_creature(0, "beaver")


@pytest.mark.parametrize("twigs", [0, 1, 2])
def test_the_beaver_gathers_any_mix_the_player_chooses(twigs):
    t, i = beaver_table()
    t.play(ABILITY + i)  # noqa: F405
    assert t[PHASE] == PH_MIX and t.get(0, AFLAG + i) & TIRED  # noqa: F405
    assert t.legal() == [MIX + 0, MIX + 1, MIX + 2]  # noqa: F405
    assert t.get(0, RES + BERRY) == t.get(0, RES + TWIG) == 0  # noqa: F405  (nothing yet)
    t.play(MIX + twigs)  # noqa: F405
    assert t.get(0, RES + BERRY) == 2 - twigs and t.get(0, RES + TWIG) == twigs  # noqa: F405
    assert t[PILE + BERRY] == 15 - (2 - twigs) and t[PILE + TWIG] == 15 - twigs  # noqa: F405
    assert t[PHASE] == PH_MAIN and ABILITY + i not in t.legal()  # noqa: F405


def test_the_beaver_is_one_move_among_the_turns_moves():
    """The mix is asked after the ability, so a random player picks the Beaver as often as
    any other ability, whatever its number of mixes."""
    t, i = beaver_table()
    legal = t.legal()
    assert legal.count(ABILITY + i) == 1 and not [m for m in legal if m >= MIX]  # noqa: F405


@pytest.mark.parametrize("step", [PH_ACTION, PH_AFTER])  # noqa: F405
def test_the_turn_goes_on_where_the_beaver_was_used(step):
    t, i = beaver_table()
    if step == PH_AFTER:  # noqa: F405  a fight fought: the step after the attacks opens
        t.put_creature(0, "crow")
        t.set_acorns(1, stored=2)
        attack(t, [None, 1])
    else:
        t.state[PHASE] = PH_ACTION  # noqa: F405
    assert t[PHASE] == step  # noqa: F405
    t.play(ABILITY + i)  # noqa: F405
    assert t[PHASE] == PH_MIX and t[MIX_BACK] == step  # noqa: F405
    t.play(MIX + 1)  # noqa: F405
    assert t[PHASE] == step and t[MIX_N] == 0 and t[MIX_CARD] == -1  # noqa: F405
    assert t.get(0, RES + BERRY) == t.get(0, RES + TWIG) == 1  # noqa: F405
    if step == PH_ACTION:  # noqa: F405
        assert FORAGE in t.legal()  # noqa: F405  (the action is still to take)


@pytest.mark.parametrize("berries,twigs,mixes,taken", [
    (1, 15, [1, 2], None),  # one berry left: 1 berry and 1 twig, or 2 twigs
    (0, 15, [], (0, 2)),  # no berry left: the one way, taken without asking
    (15, 0, [], (2, 0)),
    (1, 0, [], (1, 0)),  # fewer than 2 in the two piles: all they hold
    (0, 0, [], (0, 0)),
])
def test_the_beaver_is_offered_the_mixes_the_piles_can_fill(berries, twigs, mixes, taken):
    t, i = beaver_table()
    t.give_res(1, berry=15 - berries, twig=15 - twigs)  # P2 holds the rest of the piles
    t.play(ABILITY + i)  # noqa: F405
    assert t.get(0, AFLAG + i) & TIRED  # noqa: F405
    if mixes:
        assert t[PHASE] == PH_MIX and t.legal() == [MIX + g for g in mixes]  # noqa: F405
    else:
        assert t[PHASE] == PH_MAIN  # noqa: F405
        assert (t.get(0, RES + BERRY), t.get(0, RES + TWIG)) == taken  # noqa: F405


def test_a_beaver_of_three_has_four_mixes():
    t, i = beaver_table(overrides={"cards.beaver.amount": 3})
    t.play(ABILITY + i)  # noqa: F405
    assert t.legal() == [MIX + g for g in range(4)]  # noqa: F405
    t.play(MIX + 3)  # noqa: F405
    assert t.get(0, RES + BERRY) == 0 and t.get(0, RES + TWIG) == 3  # noqa: F405


def test_a_mix_left_standing_is_a_broken_state():
    t, i = beaver_table()
    t.state[MIX_N] = 2  # noqa: F405
    assert check_state(t.params, t.n, t.state) == ["a mix is left standing outside the mix step"]
    t.state[MIX_N] = 0  # noqa: F405
    t.play(ABILITY + i)  # noqa: F405
    t.state[MIX_CARD] = K["mole"]  # noqa: F405
    assert check_state(t.params, t.n, t.state)[0].startswith("mix: card")


# --- attacks ---------------------------------------------------------------------------------

def test_unblocked_attacker_steals_its_strength_from_the_store_only():
    t = ready()
    main_phase(t)
    t.put_creature(0, "boar")  # 4 strength
    t.set_acorns(1, stored=3, buried=5)
    attack(t, [1])
    assert t.get(0, STORE) == 3 and t.get(1, STORE) == 0 and t.get(1, BURIED) == 5  # noqa: F405
    assert t.get(0, AFLAG) & TIRED and t.item(0, "boar:attacked") == 1  # noqa: F405


def test_blocked_fight_simultaneous_damage_least_health_first_excess_lost():
    t = ready()
    main_phase(t)
    t.put_creature(0, "boar")  # 4/4
    t.put_creature(1, "hedgehog")  # 1/3, +2 defending -> 3
    t.put_creature(1, "sparrow")  # 1/1
    t.put_creature(1, "crow")  # 2/2
    t.set_acorns(1, stored=6)
    attack(t, [1])
    assert t[PHASE] == PH_BLOCK and t[ACTOR] == 1  # noqa: F405
    for _ in range(3):
        t.play(BLOCK + 0)  # noqa: F405
    # boar's 4 damage: sparrow (1) dies, crow (2) dies, 1 left < hedgehog's 3: lost
    assert t.army(1) == ["hedgehog"]
    # blockers deal 3 + 1 + 2 = 6 >= 4: the boar dies
    assert t.army(0) == []
    assert t.get(1, STORE) == 6 and t.get(0, STORE) == 0  # noqa: F405  (blocked: no theft)
    assert t.item(1, "crow:died") == 1 and t.item(0, "boar:died") == 1
    assert t.item(1, "hedgehog:blocked") == 1


def test_survivors_heal_completely():
    t = ready()
    main_phase(t)
    t.put_creature(0, "weasel")  # 2/1
    t.put_creature(1, "boar")  # 4/4
    attack(t, [1])
    t.play(BLOCK + 0)  # noqa: F405
    assert t.army(1) == ["boar"] and t.army(0) == []
    # the boar took 2 and healed: a 3-strength attack later still does not kill it
    R.start_turn(t.params[0], t.state, 0)
    t.state[PHASE] = PH_MAIN  # noqa: F405
    t.put_creature(0, "badger")  # 3/4
    attack(t, [1])
    t.play(BLOCK + 0)  # noqa: F405
    assert t.army(1) == ["boar"] and t.army(0) == []  # 2 + 3 would have killed it


def test_tired_creatures_cannot_block_until_their_owner_turn():
    t = ready()
    main_phase(t)
    t.put_creature(1, "boar", flags=TIRED)  # noqa: F405
    t.put_creature(0, "crow")
    t.set_acorns(1, stored=5)
    attack(t, [1])
    assert t.get(0, STORE) == 2  # noqa: F405  (no block was asked)
    t.end_after_attacks()
    assert not t.get(1, AFLAG) & TIRED  # noqa: F405  (it stood up at P2's turn start)


def test_flying_blocked_only_by_flying_or_ranged():
    t = ready()
    main_phase(t)
    t.put_creature(0, "crow")  # flying
    t.put_creature(1, "boar")
    t.put_creature(1, "frog_slinger")  # ranged
    t.put_creature(1, "sparrow")  # flying
    attack(t, [1])
    assert t[SLOT] == 1  # noqa: F405  (the boar is skipped: it cannot block a flier)
    assert t.legal() == [NO_BLOCK, BLOCK + 0]  # noqa: F405
    t.play(NO_BLOCK)  # noqa: F405
    assert t[SLOT] == 2  # noqa: F405
    t.play(BLOCK + 0)  # noqa: F405


def test_band_attacks_as_one_and_dies_one_at_a_time():
    t = ready()
    main_phase(t)
    for _ in range(3):
        t.put_creature(0, "mouse_militia")  # 1/1 band
    t.put_creature(0, "mouse_militia", flags=NEW)  # noqa: F405  (cannot attack: stays)
    t.put_creature(1, "crow")  # 2/2
    t.set_acorns(1, stored=9)
    attack(t, [1])  # one decision sends the whole band
    assert t[PHASE] == PH_BLOCK  # noqa: F405
    t.play(BLOCK + 0)  # noqa: F405
    # band strength 3 kills the crow (2); crow's 2 kills two mice, one at a time
    assert t.army(1) == [] and t.army(0) == ["mouse_militia", "mouse_militia"]
    assert t.item(0, "mouse_militia:attacked") == 3 and t.item(0, "mouse_militia:died") == 2


def test_unblocked_band_steals_summed_strength():
    t = ready()
    main_phase(t)
    for _ in range(3):
        t.put_creature(0, "mouse_militia")
    t.set_acorns(1, stored=9)
    attack(t, [1])
    assert t.get(0, STORE) == 3  # noqa: F405


def test_band_blocks_together():
    t = ready()
    main_phase(t)
    t.put_creature(0, "boar")  # 4/4
    for _ in range(3):
        t.put_creature(1, "mouse_militia")
    attack(t, [1])
    t.play(BLOCK + 0)  # noqa: F405  (one decision: all three block the boar)
    # 3 mice deal 3 < 4: boar lives; boar's 4 kills all three (1 each, 1 lost)
    assert t.army(1) == [] and t.army(0) == ["boar"]


def test_weasel_and_badger_unblocked_abilities():
    t = ready()
    main_phase(t)
    t.put_creature(0, "weasel")  # 2, +1 unblocked
    t.put_creature(0, "badger")  # 3, unblocked: 1 buried
    t.set_acorns(1, stored=10, buried=4)
    attack(t, [1, 1])
    assert t.get(0, STORE) == 7 and t.get(1, STORE) == 4 and t.get(1, BURIED) == 3  # noqa: F405


def test_attack_several_players_fought_in_turn_order():
    t = ready(3)
    main_phase(t)
    t.put_creature(0, "crow")
    t.put_creature(0, "weasel")
    t.put_creature(1, "frog_slinger")
    t.put_creature(2, "boar")
    t.set_acorns(1, stored=5)
    t.set_acorns(2, stored=5)
    attack(t, [1, 2])
    assert t[DEFENDER] == 1 and t[ACTOR] == 1  # noqa: F405  (P2 fights first)
    t.play(NO_BLOCK)  # noqa: F405
    assert t[DEFENDER] == 2 and t[ACTOR] == 2  # noqa: F405
    t.play(NO_BLOCK)  # noqa: F405
    assert t.get(0, STORE) == 2 + 3  # noqa: F405


# --- Relentless: "each creature can go on one attack, unless its card says otherwise" -------

def assign_step(t, move):
    """Play one assignment; returns its transcript line."""
    from simkit.games.war_of_the_wilds.transcript import describe_move

    before = t.state.copy()
    t.play(move)
    return describe_move(t.params, t.n, before, move, t.state)[0]


def test_the_designed_deck_keeps_its_size_and_its_boar_is_relentless():
    cards = tables(Table(2).params)[0]  # noqa: F405
    assert cards[:, C_COUNT].sum() == 108  # noqa: F405
    assert cards[cards[:, C_TRICK] == 0, C_COUNT].sum() == 88  # noqa: F405
    assert cards[K["boar"], C_ATTACKS] == 2  # noqa: F405
    assert (np.delete(cards[:, C_ATTACKS], K["boar"]) == 1).all()  # noqa: F405


def test_relentless_creature_sent_against_two_players_fights_both():
    t = ready(3)
    main_phase(t)
    t.put_creature(0, "boar")  # 4/4, relentless
    t.set_acorns(1, stored=5)
    t.set_acorns(2, stored=6)
    t.play(END_PLAY)  # noqa: F405
    assert "against P2" in assign_step(t, ATTACK + 1)  # noqa: F405
    # asked again, the same boar: only the player it is not yet sent against
    assert t[PHASE] == PH_ASSIGN and t[SLOT] == 0  # noqa: F405
    assert t.legal() == [STAY, ATTACK + 2]  # noqa: F405
    line = assign_step(t, ATTACK + 2)  # noqa: F405
    assert "against P3 too (Relentless" in line
    # two fights, one at a time, nobody to block: 4 from each store
    assert t.get(1, STORE) == 1 and t.get(2, STORE) == 2  # noqa: F405
    assert t.get(0, STORE) == 8 and t.item(0, "boar:attacked") == 2  # noqa: F405
    assert t.get(0, AFLAG) & TIRED  # noqa: F405  (tired once)
    t.end_after_attacks()


def test_relentless_creature_may_stop_after_one_attack():
    t = ready(3)
    main_phase(t)
    t.put_creature(0, "boar")
    t.set_acorns(1, stored=5)
    t.set_acorns(2, stored=6)
    t.play(END_PLAY)  # noqa: F405
    t.play(ATTACK + 1)  # noqa: F405
    assert "on no more attacks (only against P2)" in assign_step(t, STAY)  # noqa: F405
    assert t.get(1, STORE) == 1 and t.get(2, STORE) == 6  # noqa: F405
    assert t.item(0, "boar:attacked") == 1


def test_relentless_creature_killed_in_its_first_fight_misses_the_second():
    t = ready(3)
    main_phase(t)
    t.put_creature(0, "boar")  # 4/4
    t.put_creature(1, "boar")  # blocks: 4 damage each way, both die
    t.put_creature(2, "crow")  # could block, but is never asked
    t.set_acorns(1, stored=5)
    t.set_acorns(2, stored=6)
    attack(t, [1, 2])
    assert t[DEFENDER] == 1 and t[ACTOR] == 1  # noqa: F405  (P2 fights first)
    before = t.state.copy()
    t.play(BLOCK + 0)  # noqa: F405
    assert t.army(0) == [] and t.army(1) == []
    # the dead boar does not fight P3: no block asked, nothing stolen, P2's turn
    assert t[SEAT] == 1 and t[PHASE] == PH_ACTION  # noqa: F405
    assert t.get(2, STORE) == 6 and t.get(0, STORE) == 0  # noqa: F405
    assert t.item(0, "boar:attacked") == 1 and t.item(2, "crow:blocked") == 0
    from simkit.games.war_of_the_wilds.transcript import describe_move

    told = describe_move(t.params, 3, before, BLOCK + 0, t.state)  # noqa: F405
    assert any("Boar died and does not go on to P3" in line for line in told)


def test_relentless_band_goes_on_led_by_a_survivor():
    t = ready(3, overrides={"cards.mouse_militia.words": ["band", "relentless"]})
    main_phase(t)
    for _ in range(3):
        t.put_creature(0, "mouse_militia")  # 1/1 each, one unit of 3/3
    t.put_creature(1, "crow")  # 2/2: kills two mice, the first one (the unit's lead) first
    t.put_creature(2, "sparrow")  # 1/1, may block what is left
    t.set_acorns(1, stored=5)
    t.set_acorns(2, stored=5)
    attack(t, [1, 2])  # one decision for the name each time
    t.play(BLOCK + 0)  # noqa: F405
    assert t.army(0) == ["mouse_militia"] and t.army(1) == []
    # the survivor at place 2 leads what is left of the unit against P3
    assert t[DEFENDER] == 2 and t.legal() == [NO_BLOCK, BLOCK + 2]  # noqa: F405
    t.play(NO_BLOCK)  # noqa: F405
    assert t.get(2, STORE) == 4 and t.get(0, STORE) == 1  # noqa: F405
    assert t.item(0, "mouse_militia:attacked") == 3 + 1


def test_ordinary_creature_is_offered_one_attack_only():
    t = ready(3)
    main_phase(t)
    t.put_creature(0, "badger")  # not relentless
    t.put_creature(0, "boar")
    t.play(END_PLAY)  # noqa: F405
    assert t.legal() == [STAY, ATTACK + 1, ATTACK + 2]  # noqa: F405
    t.play(ATTACK + 1)  # noqa: F405
    assert t[SLOT] == 1  # noqa: F405  (on to the boar: the badger is not asked again)


def test_relentless_with_two_players_changes_nothing():
    t = ready(2)
    main_phase(t)
    t.put_creature(0, "boar")
    t.set_acorns(1, stored=6)
    attack(t, [1])  # the one other player: no second question
    assert t.get(1, STORE) == 2 and t[PHASE] == PH_AFTER  # noqa: F405
    assert t.item(0, "boar:attacked") == 1


def test_relentless_attacks_is_the_number_of_players_a_creature_may_go_against():
    t = ready(4)
    main_phase(t)
    t.put_creature(0, "boar")
    attack(t, [1, 3])
    assert t[PHASE] != PH_ASSIGN  # noqa: F405  (two attacks: the limit, P3 is not offered)
    t = ready(4, overrides={"relentless_attacks": 3})
    main_phase(t)
    t.put_creature(0, "boar")
    attack(t, [1, 3])
    assert t.legal() == [STAY, ATTACK + 2]  # noqa: F405
    t = ready(3, overrides={"relentless_attacks": 1})  # the word switched off
    main_phase(t)
    t.put_creature(0, "boar")
    attack(t, [1])
    assert t[PHASE] != PH_ASSIGN  # noqa: F405


def test_only_a_creature_can_be_relentless():
    from simkit.errors import SimkitError

    with pytest.raises(SimkitError, match="relentless"):
        Table(2, {"cards.war_cry.words": ["trick", "relentless"]})


# --- trading and the end of the turn --------------------------------------------------------

def pair(a, b):
    """The index in PAIRS of the resource pair (a, b)."""
    return [i for i, p in enumerate(PAIRS.tolist()) if p == [a, b]][0]  # noqa: F405


def swaps(t):
    return [m for m in t.legal() if SWAP <= m < OFFER_START]  # noqa: F405


def test_swap_two_for_one_and_market_day_one_for_one():
    t = ready()
    main_phase(t)
    t.give_res(0, berry=1, twig=1)
    t.play(SWAP + 4 * pair(0, 1) + 3)  # noqa: F405
    assert [t.get(0, RES + r) for r in range(4)] == [0, 0, 0, 1]  # noqa: F405
    t = ready(day_card="market_day")
    main_phase(t)
    t.give_res(0, berry=1)
    qb = pair(0, 0)
    assert all((m - SWAP) // 4 == qb for m in swaps(t))  # noqa: F405
    t.play(SWAP + 4 * qb + 2)  # noqa: F405
    assert [t.get(0, RES + r) for r in range(4)] == [0, 0, 1, 0]  # noqa: F405


def test_swaps_are_not_capped_but_never_give_back_a_kind_a_swap_took():
    """'Swap 2 resource cards for 1 of any kind': as often as the cards last (each swap
    costs a card), but a swap may not give away a kind a swap took this turn (NOTES.md)."""
    t = ready()
    main_phase(t)
    t.give_res(0, berry=10)
    for _ in range(4):  # more than the old cap of 3
        t.play(SWAP + 4 * pair(0, 0) + 1)  # noqa: F405  2 berries for a twig
    assert [t.get(0, RES + r) for r in range(4)] == [2, 4, 0, 0]  # noqa: F405
    assert SWAP + 4 * pair(0, 0) + 2 in swaps(t)  # noqa: F405  berries may still go
    assert not [m for m in swaps(t) if 1 in PAIRS[(m - SWAP) // 4]]  # noqa: F405  no twigs
    t.play(END_PLAY)  # noqa: F405  next turn: the twigs may go again
    R.start_turn(t.params[0], t.state, 0)
    main_phase(t)
    assert SWAP + 4 * pair(1, 1) + 2 in swaps(t)  # noqa: F405


def test_market_day_swaps_end_by_themselves():
    """1 for 1 swaps could go round for ever; without giving back what a swap took, any
    line of swaps ends within as many swaps as cards held."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        t = ready(day_card="market_day")
        main_phase(t)
        t.give_res(0, *[int(v) for v in rng.integers(0, 4, 4)])
        held = R.res_total(t.state, 0)
        done = 0
        while swaps(t):
            t.play(int(rng.choice(swaps(t))))
            done += 1
        assert done <= held and R.res_total(t.state, 0) == held


BERRY, TWIG, PEBBLE, FEATHER, ACORN = range(5)  # trade kinds; ACORN: a stored acorn


def make_offer(t, to, give, get, make=True):
    """Build the offer to ``to``: ``give`` and ``get`` map trade kinds to counts."""
    t.play(OFFER_START + to)  # noqa: F405
    for i, side in ((0, give), (N_TRADE_KINDS, get)):  # noqa: F405
        for kind in sorted(side):
            for _ in range(side[kind]):
                t.play(OFFER_ADD + i + kind)  # noqa: F405
    if make:
        t.play(OFFER_MAKE)  # noqa: F405


def items(t):
    """The items that may go into the offer now: ("give", kind) and ("get", kind)."""
    out = set()
    for m in t.legal():
        if OFFER_ADD <= m < OFFER_MAKE:  # noqa: F405
            i = m - OFFER_ADD  # noqa: F405
            out.add(("give", i) if i < N_TRADE_KINDS else ("get", i - N_TRADE_KINDS))  # noqa: F405
    return out


def holdings(t, p):
    """``p``'s berry, twig, pebble, feather and stored acorns."""
    return [t.get(p, RES + c) for c in range(5)]  # noqa: F405


def can_offer(t):
    return any(OFFER_START <= m < OFFER_ADD for m in t.legal())  # noqa: F405


def test_trade_offer_accepted_and_declined():
    t = ready()
    main_phase(t)
    t.give_res(0, berry=1)
    t.give_res(1, feather=1)
    t.set_acorns(0, stored=2)
    make_offer(t, 1, {BERRY: 1}, {FEATHER: 1})  # my berry for P2's feather
    assert t[ACTOR] == 1 and sorted(t.legal()) == [ACCEPT, DECLINE]  # noqa: F405
    t.play(ACCEPT)  # noqa: F405
    assert t.get(0, RES + 3) == 1 and t.get(1, RES + 0) == 1 and t[ACTOR] == 0  # noqa: F405
    assert t[PHASE] == PH_MAIN  # noqa: F405  (back in the step it was made in)
    t = ready()
    main_phase(t)
    t.give_res(1, pebble=1)
    t.set_acorns(0, stored=2)
    make_offer(t, 1, {ACORN: 1}, {PEBBLE: 1})  # an acorn for P2's pebble
    t.play(DECLINE)  # noqa: F405
    assert t.get(0, STORE) == 2 and t.get(1, RES + 2) == 1  # noqa: F405
    t = ready()
    main_phase(t)
    t.give_res(0, twig=1)
    t.set_acorns(1, stored=1)
    make_offer(t, 1, {TWIG: 1}, {ACORN: 1})  # my twig for an acorn
    t.play(ACCEPT)  # noqa: F405
    assert t.get(0, STORE) == 1 and t.get(1, RES + 1) == 1  # noqa: F405


def test_two_for_one_resource_trade_accepted():
    t = ready()
    main_phase(t)
    t.give_res(0, berry=3, pebble=1)
    t.give_res(1, feather=2)
    make_offer(t, 1, {BERRY: 2}, {FEATHER: 1})
    assert t[PHASE] == PH_REPLY and sorted(t.legal()) == [ACCEPT, DECLINE]  # noqa: F405
    t.play(ACCEPT)  # noqa: F405
    assert holdings(t, 0) == [1, 0, 1, 1, 0] and holdings(t, 1) == [2, 0, 0, 1, 0]
    assert t[PHASE] == PH_MAIN and t[ACTOR] == 0  # noqa: F405


def test_resources_for_several_stored_acorns_and_the_reverse():
    t = ready()
    main_phase(t)
    t.give_res(0, twig=2)
    t.set_acorns(1, stored=4)
    make_offer(t, 1, {TWIG: 1}, {ACORN: 3})  # one twig for three stored acorns
    t.play(ACCEPT)  # noqa: F405
    assert holdings(t, 0) == [0, 1, 0, 0, 3] and holdings(t, 1) == [0, 1, 0, 0, 1]
    t = ready(seat=1)
    main_phase(t)
    t.set_acorns(1, stored=3, buried=5)
    t.give_res(0, pebble=2)
    make_offer(t, 0, {ACORN: 3}, {PEBBLE: 2})  # three stored acorns (never buried)
    t.play(ACCEPT)  # noqa: F405
    assert holdings(t, 1) == [0, 0, 2, 0, 0] and t.get(1, BURIED) == 5  # noqa: F405
    assert holdings(t, 0) == [0, 0, 0, 0, 3]


def test_mixed_bundles_on_any_terms():
    """'On any terms': several kinds on each side, e.g. a berry, a twig and an acorn for
    two feathers and a pebble."""
    t = ready()
    main_phase(t)
    t.give_res(0, berry=1, twig=2)
    t.set_acorns(0, stored=1)
    t.give_res(1, pebble=1, feather=3)
    make_offer(t, 1, {BERRY: 1, TWIG: 1, ACORN: 1}, {PEBBLE: 1, FEATHER: 2})
    t.play(ACCEPT)  # noqa: F405
    assert holdings(t, 0) == [0, 1, 1, 2, 0] and holdings(t, 1) == [1, 1, 0, 1, 1]


def test_an_offer_holds_only_what_each_side_has():
    t = ready()
    main_phase(t)
    t.give_res(0, berry=2)  # no other resource, no stored acorn (buried ones do not trade)
    t.set_acorns(0, stored=0, buried=4)
    t.give_res(1, feather=1, berry=1)
    t.set_acorns(1, stored=2)
    t.play(OFFER_START + 1)  # noqa: F405
    assert items(t) == {("give", BERRY)}  # nothing asked before something is given
    assert OFFER_MAKE not in t.legal() and OFFER_DROP in t.legal()  # noqa: F405
    t.play(OFFER_ADD + BERRY)  # noqa: F405
    t.play(OFFER_ADD + BERRY)  # noqa: F405
    # both berries given: no more; of P2's, not the berry (on my side), 1 feather, 2 acorns
    assert items(t) == {("get", FEATHER), ("get", ACORN)}
    t.play(OFFER_ADD + N_TRADE_KINDS + FEATHER)  # noqa: F405
    assert items(t) == {("get", ACORN)}  # in kind order, and P2 has one feather only
    t.play(OFFER_ADD + N_TRADE_KINDS + ACORN)  # noqa: F405
    t.play(OFFER_ADD + N_TRADE_KINDS + ACORN)  # noqa: F405
    assert items(t) == set() and OFFER_MAKE in t.legal()  # noqa: F405
    t.play(OFFER_DROP)  # noqa: F405  withdrawn: nothing changes hands
    assert t[PHASE] == PH_MAIN and holdings(t, 0) == [2, 0, 0, 0, 0]  # noqa: F405


def test_receiver_cannot_accept_what_they_cannot_pay():
    t = ready()
    main_phase(t)
    t.give_res(0, berry=1)
    t.give_res(1, feather=3)
    make_offer(t, 1, {BERRY: 1}, {FEATHER: 3})
    assert sorted(t.legal()) == [ACCEPT, DECLINE]  # noqa: F405
    t.give_res(1, feather=2)  # hand-built: P2 now holds less than is asked
    assert t.legal() == [DECLINE]  # noqa: F405
    t.play(DECLINE)  # noqa: F405
    assert holdings(t, 0) == [1, 0, 0, 0, 0] and holdings(t, 1) == [0, 0, 0, 2, 0]


def test_offers_per_turn_are_capped_and_a_withdrawn_one_counts():
    t = ready(overrides={"trade.offers_per_turn": 3})
    main_phase(t)
    t.give_res(0, berry=3)
    t.give_res(1, twig=3)
    make_offer(t, 1, {BERRY: 1}, {TWIG: 2})
    t.play(DECLINE)  # noqa: F405
    make_offer(t, 1, {BERRY: 1}, {TWIG: 1}, make=False)
    t.play(OFFER_DROP)  # noqa: F405
    make_offer(t, 1, {BERRY: 2}, {TWIG: 1})
    t.play(ACCEPT)  # noqa: F405
    assert holdings(t, 0) == [1, 1, 0, 0, 0] and not can_offer(t)  # the cap of 3 reached
    t = ready(overrides={"trade.offers_per_turn": 0})
    main_phase(t)
    t.give_res(0, berry=3)
    t.give_res(1, twig=3)
    assert not can_offer(t)


def test_max_give_and_max_get_bound_each_side():
    t = ready(overrides={"trade.max_give": 1, "trade.max_get": 2})
    main_phase(t)
    t.give_res(0, berry=3, twig=1)
    t.give_res(1, feather=3)
    t.play(OFFER_START + 1)  # noqa: F405
    t.play(OFFER_ADD + BERRY)  # noqa: F405
    assert items(t) == {("get", FEATHER)}  # one item given is the most
    t.play(OFFER_ADD + N_TRADE_KINDS + FEATHER)  # noqa: F405
    t.play(OFFER_ADD + N_TRADE_KINDS + FEATHER)  # noqa: F405
    assert items(t) == set()  # two asked is the most


def test_trade_data_values_are_bounded():
    from simkit.errors import SimkitError

    with pytest.raises(SimkitError):
        Table(2, {"trade.max_give": 0})


def test_offers_are_told_with_their_terms():
    from simkit.games.war_of_the_wilds.transcript import describe_move

    t = ready()
    main_phase(t)
    t.give_res(0, berry=2)
    t.set_acorns(1, stored=3)
    make_offer(t, 1, {BERRY: 2}, {ACORN: 1}, make=False)
    before = t.state.copy()
    t.play(OFFER_MAKE)  # noqa: F405
    assert describe_move(t.params, t.n, before, OFFER_MAKE, t.state) == [  # noqa: F405
        "offers P2 2 berry for 1 stored acorn"]


# --- the turn's timing: abilities, swaps and offers before the action and after attacks -----

def test_a_mole_kept_home_buries_acorns_stolen_this_turn():
    """'Use a creature's ability on your own turn': after the attacks too."""
    t = ready()
    main_phase(t)
    t.put_creature(0, "boar")
    mole = t.put_creature(0, "mole")  # tire: bury 2
    t.set_acorns(1, stored=5)
    attack(t, [1, None])  # the boar raids, the mole stays home
    assert t[PHASE] == PH_AFTER and t.get(0, STORE) == 4  # noqa: F405
    assert ABILITY + mole in t.legal()  # noqa: F405
    assert not [m for m in t.legal() if PLAY <= m < ABILITY]  # noqa: F405  (no cards now)
    t.play(ABILITY + mole)  # noqa: F405
    assert t.get(0, STORE) == 2 and t.get(0, BURIED) == 2  # noqa: F405
    t.end_after_attacks()
    assert t[SEAT] == 1  # noqa: F405


def test_abilities_swaps_and_offers_before_the_action():
    t = ready()
    owl = t.put_creature(0, "owl_sentinel")  # tire: draw 1 (it waits only the turn played)
    t.give_res(0, berry=2)
    t.give_res(1, twig=1)
    assert t[PHASE] == PH_ACTION  # noqa: F405
    legal = t.legal()
    assert ABILITY + owl in legal and can_offer(t) and swaps(t)  # noqa: F405
    t.play(ABILITY + owl)  # noqa: F405  draw first, then choose the action
    assert R.hand_size(t.state, 0) == 1 and t[PHASE] == PH_ACTION  # noqa: F405
    make_offer(t, 1, {BERRY: 1}, {TWIG: 1})
    t.play(ACCEPT)  # noqa: F405
    assert t[PHASE] == PH_ACTION and holdings(t, 0) == [1, 1, 0, 0, 0]  # noqa: F405
    t.play(FORAGE)  # noqa: F405
    assert t[PHASE] == PH_MAIN  # noqa: F405


def test_no_step_after_the_attacks_when_nobody_fought():
    t = ready()
    main_phase(t)
    t.put_creature(0, "crow")
    t.give_res(0, berry=3)
    t.set_acorns(1, stored=5)
    attack(t, [None])
    assert t[SEAT] == 1 and t[PHASE] == PH_ACTION  # noqa: F405


def test_discard_down_to_seven_resources_do_not_count():
    t = ready()
    main_phase(t)
    t.give_card(0, "sparrow", 5)
    t.give_card(0, "hedgehog", 4)
    t.give_res(0, berry=6)
    t.play(END_PLAY)  # noqa: F405
    assert t[PHASE] == PH_DISCARD and t[ACTOR] == 0  # noqa: F405
    t.play(DISCARD_CARD + K["hedgehog"])  # noqa: F405
    t.play(DISCARD_CARD + K["hedgehog"])  # noqa: F405
    assert R.hand_size(t.state, 0) == 7 and t.get(0, RES) == 6  # noqa: F405
    assert t[SEAT] == 1 and t[PHASE] == PH_ACTION  # noqa: F405


# --- day cards -------------------------------------------------------------------------------

def test_quiet_day_changes_nothing():
    t = ready()
    before = t.state.copy()
    morning(t, "quiet_day")
    same = np.ones(len(before), bool)
    same[[DAY, DAY_CARD]] = False  # noqa: F405
    same[ROW:ROW + 3] = False  # noqa: F405
    same[DISCARD:DISCARD + 200] = False  # noqa: F405
    same[[DECK_N, DISCARD_N]] = False  # noqa: F405
    same[DECK:DECK + MAX_CARDS] = False  # noqa: F405
    same[DAY_ORDER:DAY_ORDER + MAX_DAY_CARDS] = False  # noqa: F405
    same[MORNING:MORNING + 3 * MAXP] = False  # noqa: F405  (the transcript's record)
    same[DECK_CAN:DECK_CAN + MAX_KINDS] = False  # noqa: F405  (the new row left the deck)
    assert (before[same] == t.state[same]).all()
    assert t.item(0, "day_quiet_day:seen") == 1 and t.item(1, "day_quiet_day:seen") == 1


def test_mr_buttons_eats_from_the_most_creatures_each_if_tied():
    t = ready(3)
    t.put_creature(0, "boar")
    t.put_creature(0, "crow")
    t.put_creature(1, "sparrow")
    t.put_creature(2, "weasel")
    morning(t, "mr_buttons")
    assert len(t.army(0)) == 1 and t.army(1) == ["sparrow"]
    assert t.item(0, "day_mr_buttons:affected") == 1 and t.item(1, "day_mr_buttons:affected") == 0
    t.put_creature(1, "hedgehog")
    morning(t, "mr_buttons")
    assert len(t.army(0)) == 1 and len(t.army(1)) == 1 and t.army(2) == ["weasel"]


def test_the_fox_attacks_the_richest_store_and_can_be_blocked():
    t = ready(3)
    t.set_acorns(0, stored=2)
    t.set_acorns(1, stored=5)
    t.set_acorns(2, stored=5)
    t.put_creature(2, "hedgehog")  # 1+2 defending vs the Fox's 3 health
    wild = t[WILD]  # noqa: F405
    morning(t, "the_fox")
    # P2 has nobody to block: the Fox takes 3 back to the wild; then P3 is asked
    assert t.get(1, STORE) == 2 and t[WILD] == wild + 3  # noqa: F405
    assert t[PHASE] == PH_FOX_BLOCK and t[ACTOR] == 2  # noqa: F405
    t.play(BLOCK_FOX)  # noqa: F405
    # the Fox's 3 damage kills the hedgehog (health 3); P3's store is safe
    assert t.get(2, STORE) == 5 and t.army(2) == []  # noqa: F405
    assert t[PHASE] == PH_ACTION and t[SEAT] == 0 and t.get(0, STORE) == 2  # noqa: F405


def test_the_fox_stays_away_from_empty_stores():
    t = ready()
    morning(t, "the_fox")
    assert t[PHASE] == PH_ACTION  # noqa: F405


def test_the_jay_digs_up_from_the_most_buried():
    t = ready(3)
    t.set_acorns(0, buried=4)
    t.set_acorns(1, buried=4)
    t.set_acorns(2, buried=1)
    morning(t, "the_jay")
    assert [t.get(p, BURIED) for p in range(3)] == [2, 2, 1]  # noqa: F405
    assert [t.get(p, STORE) for p in range(3)] == [2, 2, 0]  # noqa: F405


def test_lost_hoard_goes_to_the_fewest_buried():
    t = ready(3)
    t.set_acorns(0, buried=4)
    morning(t, "lost_hoard")
    assert [t.get(p, STORE) for p in range(3)] == [0, 3, 3]  # noqa: F405


def test_heavy_rain_no_attacks():
    t = ready(day_card="heavy_rain")
    main_phase(t)
    t.put_creature(0, "boar")
    t.set_acorns(1, stored=5)
    t.play(END_PLAY)  # noqa: F405
    assert t[SEAT] == 1 and t.get(1, STORE) == 5  # noqa: F405


def test_hard_frost_nobody_buries():
    t = ready(day_card="hard_frost")
    t.set_acorns(0, stored=3)
    assert not [m for m in t.legal() if BURY <= m < TAKE_ROW]  # noqa: F405
    t.play(FORAGE)  # noqa: F405
    t.give_card(0, "deep_burrow")
    t.give_res(0, twig=3)
    i = t.put_creature(0, "mole")
    assert PLAY + 4 * K["deep_burrow"] not in t.legal() and ABILITY + i not in t.legal()  # noqa: F405


def test_windy_day_flying_cannot_attack_or_block():
    t = ready(day_card="windy_day")
    main_phase(t)
    t.put_creature(0, "crow")
    t.put_creature(0, "weasel")
    t.put_creature(1, "sparrow")
    t.put_creature(1, "heron")
    t.set_acorns(1, stored=5)
    t.play(END_PLAY)  # noqa: F405
    assert t[SLOT] == 1  # noqa: F405  (the crow is not asked)
    t.play(ATTACK + 1)  # noqa: F405
    assert t.get(0, STORE) == 3  # noqa: F405  (no flier could block the weasel)


def test_full_moon_every_creature_stronger():
    t = ready(day_card="full_moon")
    main_phase(t)
    t.put_creature(0, "weasel")  # 2 (+1 moon) +1 unblocked
    t.set_acorns(1, stored=9)
    attack(t, [1])
    assert t.get(0, STORE) == 4  # noqa: F405
    t = ready(day_card="full_moon")
    main_phase(t)
    t.put_creature(0, "crow")  # 2/2
    t.put_creature(1, "sparrow")  # 1 (+1) kills the crow under a full moon
    attack(t, [1])
    t.play(BLOCK + 0)  # noqa: F405
    assert t.army(0) == [] and t.army(1) == []


def test_call_to_arms_creatures_cost_one_less():
    t = ready(day_card="call_to_arms")
    main_phase(t)
    t.give_card(0, "frog_slinger")  # twig 1 + any 1
    t.give_card(0, "sparrow")  # feather 1, no circle
    t.give_card(0, "windfall")  # a trick: any 1, full price
    t.give_res(0, twig=1)
    legal = t.legal()
    assert PLAY + 4 * K["frog_slinger"] in legal and PLAY + 4 * K["sparrow"] in legal  # noqa: F405
    assert PLAY + 4 * K["windfall"] in legal  # noqa: F405  (it costs 1 of any kind)
    t.play_paid(PLAY + 4 * K["sparrow"])  # noqa: F405
    assert t.get(0, RES + 1) == 1  # noqa: F405  (the sparrow cost nothing)
    t.play_paid(PLAY + 4 * K["frog_slinger"])  # noqa: F405
    assert R.res_total(t.state, 0) == 0
    assert PLAY + 4 * K["windfall"] not in t.legal()  # noqa: F405


def test_call_to_arms_takes_off_any_card_of_the_cost_the_player_likes():
    """'Creatures cost 1 less': one card fewer, whichever the player chooses; a specific
    card may be the one left out (NOTES.md)."""
    t = ready(day_card="call_to_arms")
    main_phase(t)
    t.give_card(0, "frog_slinger")  # twig 1 + any 1: with no twig, one berry pays it
    t.give_res(0, berry=1)
    t.play_paid(PLAY + 4 * K["frog_slinger"])  # noqa: F405
    assert t.army(0) == ["frog_slinger"] and R.res_total(t.state, 0) == 0
    t = ready(day_card="call_to_arms")
    main_phase(t)
    t.give_card(0, "squirrel_scout")  # berry 1 + twig 1, no circle: the player keeps one
    t.give_res(0, berry=1, twig=1)
    t.play(PLAY + 4 * K["squirrel_scout"])  # noqa: F405
    assert pay_choices(t) == ["berry", "twig"]
    t.play(PAY_RES + 1)  # noqa: F405
    assert [t.get(0, RES + r) for r in range(4)] == [1, 0, 0, 0]  # noqa: F405
    t = ready(day_card="quiet_day")
    main_phase(t)
    t.give_card(0, "frog_slinger")
    t.give_res(0, berry=2)
    assert PLAY + 4 * K["frog_slinger"] not in t.legal()  # noqa: F405  (full price: a twig)


def test_good_harvest_two_each_in_turn_order_while_the_wild_lasts():
    t = ready(3)
    t.set_acorns(0, buried=42)  # wild: 45 - 42 = 3
    morning(t, "good_harvest")
    assert [t.get(p, STORE) for p in range(3)] == [2, 1, 0] and t[WILD] == 0  # noqa: F405


def test_travelling_pedlar_everyone_draws_one():
    t = ready(3)
    morning(t, "travelling_pedlar")
    assert [R.hand_size(t.state, p) for p in range(3)] == [1, 1, 1]


def test_thick_fog_no_blocks():
    t = ready(day_card="thick_fog")
    main_phase(t)
    t.put_creature(0, "boar")
    t.put_creature(1, "boar")
    t.set_acorns(1, stored=5)
    attack(t, [1])
    assert t.get(0, STORE) == 4 and t[PHASE] == PH_AFTER  # noqa: F405  (nobody blocked)


def test_spring_thaw_and_spring_flood():
    t = ready()
    t.set_acorns(0, stored=2, buried=1)
    t.set_acorns(1, stored=0, buried=3)
    morning(t, "spring_thaw")
    assert [t.get(0, STORE), t.get(0, BURIED), t.get(1, STORE), t.get(1, BURIED)] == [1, 2, 0, 3]  # noqa: F405
    morning(t, "spring_flood")
    assert [t.get(0, STORE), t.get(0, BURIED), t.get(1, STORE), t.get(1, BURIED)] == [3, 0, 2, 1]  # noqa: F405


def test_bumper_crop_forage_takes_two_more():
    t = ready(day_card="bumper_crop")
    t.play(FORAGE)  # noqa: F405
    assert t.get(0, STORE) == 5  # noqa: F405


def test_busy_day_gather_and_draw_take_an_acorn():
    t = ready(day_card="busy_day")
    t.play(GATHER)  # noqa: F405
    assert t.get(0, STORE) == 1  # noqa: F405
    t.play(END_PLAY)  # noqa: F405
    t.play(DRAW)  # noqa: F405
    assert t.get(1, STORE) == 1  # noqa: F405
    t = ready(day_card="busy_day")
    t.play(FORAGE)  # noqa: F405
    assert t.get(0, STORE) == 3  # noqa: F405


def test_every_day_card_is_in_the_day_deck_with_its_count():
    t = ready()
    order = sorted(t.state[DAY_ORDER:DAY_ORDER + 20].tolist())  # noqa: F405
    assert order.count(DK["quiet_day"]) == 3
    assert sorted(set(order)) == list(range(len(DAY_NAMES)))  # noqa: F405
    fox = tables(t.params)[1][DK["the_fox"]]  # noqa: F405
    assert len(order) == 20 and fox[1:3].tolist() == [3, 3]


# --- the rulebook's own sentences, as cases --------------------------------------------------

def test_rulebook_full_moon_and_heavy_rain_sentences():
    """'A full moon makes every creature stronger. Heavy rain means nobody can attack.'"""
    t = ready(day_card="full_moon")
    t.put_creature(0, "sparrow")
    assert R.strength(t.params[0], t.state, 0, 0, True) == 2
    assert R.strength(t.params[0], t.state, 0, 0, False) == 2
    t = ready(day_card="heavy_rain")
    main_phase(t)
    t.put_creature(0, "sparrow")
    t.play(END_PLAY)  # noqa: F405
    assert t[PHASE] != PH_ASSIGN  # noqa: F405


def test_rulebook_stored_acorns_can_be_stolen_buried_cannot():
    """'Acorns you forage or steal go into your store, where anyone can steal them. Once
    they're buried, they're safe from most attacks, and only buried acorns count.'"""
    t = ready()
    t.play(FORAGE)  # noqa: F405
    t.play(END_PLAY)  # noqa: F405
    R.start_turn(t.params[0], t.state, 1)
    t.state[PHASE] = PH_MAIN  # noqa: F405
    t.put_creature(1, "crow")
    attack(t, [0])
    assert t.get(1, STORE) == 2 and t.get(0, STORE) == 1  # noqa: F405


def test_mr_buttons_is_recorded_for_the_transcript():
    t = ready()
    t.put_creature(1, "crow")
    place = t.put_creature(1, "boar")
    t.put_creature(0, "sparrow")
    morning(t, "mr_buttons")  # P2 has the most creatures: one of its two is eaten
    eaten = t[MORNING + 3 + 2]  # noqa: F405  (bit i: army place i)
    assert eaten in (1 << 0, 1 << place) and t[MORNING + 2] == 0  # noqa: F405
    assert t.get(1, ARMY + eaten.bit_length() - 1) == -1  # noqa: F405


# --- data: the designer's numbers ------------------------------------------------------------

def test_action_sizes_and_hand_limit_follow_the_data():
    t = Table(2, {"actions.forage": 5, "hand_limit": 2})
    t.to_turn(0)
    t.play(FORAGE)  # noqa: F405
    assert t.get(0, STORE) == 5  # noqa: F405
    t.give_card(0, "sparrow", 3)
    t.play(END_PLAY)  # noqa: F405
    assert t[PHASE] == PH_DISCARD  # noqa: F405


def test_card_list_is_checked_against_the_deck_size():
    from simkit.errors import SimkitError

    with pytest.raises(SimkitError, match="deck_size"):
        Table(2, {"cards.sparrow.count": 9})
    with pytest.raises(SimkitError, match="ability"):
        Table(2, {"cards.sparrow.ability": "forage"})


def test_a_redesigned_card_changes_play_without_code():
    t = Table(2, {"cards.sparrow.strength": 5, "cards.sparrow.ability": "unblocked_steal",
                  "cards.sparrow.amount": 2})
    t.to_turn(0)
    main_phase(t)
    t.put_creature(0, "sparrow")
    t.set_acorns(1, stored=10)
    attack(t, [1])
    assert t.get(0, STORE) == 7  # noqa: F405


def test_one_field_override_changes_play_as_the_field_says():
    """--set cards.sparrow.strength=3: an unblocked Sparrow steals 3 acorns, not 1."""
    for strength, stolen in ((1, 1), (3, 3)):
        t = Table(2, {"cards.sparrow.strength": strength})
        t.to_turn(0)
        main_phase(t)
        t.put_creature(0, "sparrow")
        t.set_acorns(1, stored=10)
        attack(t, [1])
        assert t.get(0, STORE) == stolen  # noqa: F405


def default_rows():
    """The card list of data.toml as the rows a card file gives."""
    from simkit import data
    from simkit.games.war_of_the_wilds import GAME

    return [{"name": name, **{f: p.value for f, p in row.items()}}
            for name, row in data.table(GAME.data, "cards")]


def test_a_card_kind_added_as_a_row_plays_at_once():
    """A new kind with an effect the kernels know: its own index, its own item columns,
    its ability works (a 1/3 Stag that defends with +3 strength kills a 1/2 Mole)."""
    rows = default_rows()
    next(r for r in rows if r["name"] == "boar")["count"] = 2
    rows.append({"name": "stag", "count": 2, "strength": 1, "health": 3,
                 "ability": "defend_strength", "amount": 3})
    t = Table(2, {"cards": rows})
    assert t.kinds[-1] == "stag" and t.params[0][R_NK] == 22  # noqa: F405
    assert "stag:blocked" in t.columns and "stag:died" in t.columns
    t.to_turn(0)
    main_phase(t)
    t.put_creature(0, "mole")
    t.put_creature(1, "stag")
    t.set_acorns(1, stored=5)
    attack(t, [1])
    t.play(BLOCK + 0)  # noqa: F405
    assert t.army(0) == [] and t.army(1) == ["stag"]
    assert t.item(1, "stag:blocked") == 1 and t.item(0, "mole:died") == 1


def test_fewer_days():
    t = Table(2, {"days": 3})
    t.to_turn(1, day=3)
    R.end_turn(t.params[0], t.state, t.chance, t.items)
    assert R.is_over(t.state)


# --- what a seat can see ---------------------------------------------------------------------

def test_observe_hides_other_hands_the_deck_order_and_days_to_come():
    t = ready(3)
    t.give_card(1, "boar")
    t.give_card(0, "crow")
    obs = np.empty_like(t.state)
    R.observe(t.params, t.state, 0, obs)
    b0, b1 = t.b(0), t.b(1)
    assert obs[b0 + HAND + K["crow"]] == 1  # noqa: F405  (your own hand)
    assert (obs[b1 + HAND:b1 + HAND + MAX_KINDS] == -2).all()  # noqa: F405
    assert obs[b1 + HAND_N] == 1  # noqa: F405  (how many cards: on the table for all to see)
    assert (obs[DECK:DECK + t[DECK_N]] == -2).all()  # noqa: F405
    assert obs[DAY_ORDER] == t[DAY_ORDER] and obs[DAY_ORDER + 1] == -2  # noqa: F405
    assert obs[b1 + STORE] == t.get(1, STORE) and obs[ROW] == t[ROW]  # noqa: F405  (public)
    assert (obs[b1 + ARMY:b1 + PS] == t.state[b1 + ARMY:b1 + PS]).all()  # noqa: F405


def test_a_card_taken_from_the_row_is_known_to_all_until_one_of_its_kind_leaves():
    t = ready()
    t.give_card(0, "crow")  # drawn unseen earlier
    old = t[ROW]  # noqa: F405  (a crow into the row, from the deck: it is taken face up)
    t._take_from_deck(K["crow"], 1)
    t.state[DECK + t[DECK_N]] = old  # noqa: F405
    t.state[DECK_N] += 1  # noqa: F405
    t.state[ROW] = K["crow"]  # noqa: F405
    t.state[DECK_CAN + old] += 1  # noqa: F405  (as if the crow, not it, had been turned)
    t.state[DECK_CAN + K["crow"]] -= 1  # noqa: F405
    t.play(DRAW)  # noqa: F405
    t.play(TAKE_ROW + 0)  # noqa: F405
    t.play(TAKE_DECK)  # noqa: F405
    obs = np.empty_like(t.state)
    R.observe(t.params, t.state, 1, obs)
    b0 = t.b(0)
    assert obs[b0 + HAND + K["crow"]] == -2 and obs[b0 + HAND_N] == 3  # noqa: F405
    assert obs[b0 + KNOWN + K["crow"]] == 1  # noqa: F405  (one of its crows, for sure)
    t.give_res(0, twig=1, feather=1, berry=1)
    t.play_paid(PLAY + 4 * K["crow"])  # noqa: F405  a crow played: which one, nobody knows
    R.observe(t.params, t.state, 1, obs)
    assert obs[b0 + KNOWN + K["crow"]] == 0 and obs[b0 + HAND_N] == 2  # noqa: F405


def test_the_day_cards_never_turned_stay_hidden_when_the_game_ends():
    t = Table(2, {"days": 3})
    t.to_turn(1, day=3)
    R.end_turn(t.params[0], t.state, t.chance, t.items)
    assert R.is_over(t.state) and t[DAY] == 4  # noqa: F405
    obs = np.empty_like(t.state)
    R.observe(t.params, t.state, 0, obs)
    assert (obs[DAY_ORDER:DAY_ORDER + 3] == t.state[DAY_ORDER:DAY_ORDER + 3]).all()  # noqa: F405
    assert (obs[DAY_ORDER + 3:DAY_ORDER + 20] == -2).all()  # noqa: F405  (day 4 never came)


def test_the_fox_attacks_each_tied_player_in_turn_order():
    t = ready(3)
    t.set_acorns(0, stored=4)
    t.set_acorns(2, stored=4)
    t.put_creature(0, "boar")
    t.put_creature(2, "crow")
    morning(t, "the_fox")
    assert t[ACTOR] == 0 and t[PHASE] == PH_FOX_BLOCK  # noqa: F405
    t.play(NO_BLOCK)  # noqa: F405
    assert t.get(0, STORE) == 1 and t[ACTOR] == 2  # noqa: F405
    t.play(BLOCK_FOX)  # noqa: F405  (crow 2/2 dies to the Fox's 3)
    assert t.get(2, STORE) == 4 and t.army(2) == [] and t[PHASE] == PH_ACTION  # noqa: F405
    assert t.item(2, "crow:blocked") == 1 and t.item(2, "crow:died") == 1


def test_lost_hoard_when_the_wild_runs_out():
    t = ready(3)
    t.set_acorns(0, buried=41)  # wild 4: P2 takes 3, P3 the last 1
    morning(t, "lost_hoard")
    assert [t.get(p, STORE) for p in range(3)] == [0, 3, 1] and t[WILD] == 0  # noqa: F405
