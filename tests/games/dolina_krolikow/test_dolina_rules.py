"""Scenario tests on hand-built states: one or more for every rule of Dolina królików, and the
rulebook's worked examples (Szaruś's two modifications, the two-way card, Koniczynka's
Family, Łatek's 17 points)."""

import copy
import itertools

import numpy as np
import pytest

from simkit import data
from simkit.errors import SimkitError
from simkit.games.dolina_krolikow import card_text, compile_params, missions, rabbit_cards
from simkit.games.dolina_krolikow import rules as R
from simkit.games.dolina_krolikow import state as S
from simkit.games.dolina_krolikow.tables import view
from simkit.games.dolina_krolikow.transcript import check_state, describe_move, house_name
from simkit.registry import get_game

GAME = get_game("dolina-krolikow")
VALUES = data.values(GAME.data)
CARDS = [card_text(c) for _, c in rabbit_cards(VALUES)]  # "Large white: B1 *2 / G G"
HOUSES = [t for _, t in missions(VALUES, "house")]
FORESTS = [t for _, t in missions(VALUES, "forest")]
ORANGE, GREEN, BLUE = 0, 1, 2
CARROT, CABBAGE, CORNFLOWER = 0, 1, 2


def card(text):
    return CARDS.index(text)


def house(text):
    return HOUSES.index(text)


def forest(text):
    return FORESTS.index(text)


def face(colour, pips):
    return colour * 6 + pips - 1


def params_for(players, **overrides):
    vals = data.values(data.apply_overrides(GAME.data, overrides))
    return compile_params(vals, players)


class Table:
    """A game set up by new_game, then steered by hand."""

    def __init__(self, players=2, seed=7, **overrides):
        self.n = players
        self.params = params_for(players, **overrides)
        self.state = np.empty(S.STATE_SIZE, np.int32)
        self.chance = np.array([seed], np.uint64)
        self.items = np.zeros((players, len(GAME.item_columns)), np.int32)
        R.new_game(self.params, players, self.state, self.chance)

    def __getitem__(self, i):
        return int(self.state[i])

    def __setitem__(self, i, v):
        self.state[i] = v

    def moves(self):
        buf = np.empty(R.MAX_MOVES, np.int32)
        return buf[:R.legal_moves(self.params, self.state, buf)].tolist()

    def play(self, move):
        assert move in self.moves(), f"move {move} is not legal"
        R.apply_move(self.params, self.state, move, self.chance, self.items)

    def finish_setup(self):
        while self[S.PHASE] in (S.PH_SETUP_FOREST, S.PH_SETUP_HOUSE, S.PH_REDEAL):
            self.play(self.moves()[0])

    def to_picks(self):
        """Past setup and the House draws, to the first pick of round 1."""
        self.finish_setup()
        while self[S.PHASE] == S.PH_DRAW:
            self.play(R.DRAW_PASS)
        assert self[S.PHASE] == S.PH_PICK

    def roll(self, *faces):
        for d in range(9):
            self[S.DIE_FACE + d] = faces[d] if d < len(faces) else face(d // 3, 6)
            self[S.DIE_USE + d] = -1

    def put(self, pos, c):
        """Put rabbit card c at position pos (the displaced card goes into the deck)."""
        old = self[S.POS_CARD + pos]
        if old == c:
            return
        where = self[S.CARD_LOC + c]
        assert where in (S.LOC_DECK, S.LOC_TABLE)
        if where == S.LOC_TABLE:
            other = [p for p in range(8) if self[S.POS_CARD + p] == c][0]
            self[S.POS_CARD + other] = old
        else:
            k = [i for i in range(self[S.DECK_N]) if self[S.DECK + i] == c][0]
            self[S.DECK + k] = old
            self[S.CARD_LOC + old] = S.LOC_DECK
        self[S.POS_CARD + pos] = c
        self[S.CARD_LOC + c] = S.LOC_TABLE

    def give_tokens(self, seat, carrot, cabbage, cornflower):
        for k, n in enumerate((carrot, cabbage, cornflower)):
            self[S.GARDEN + k] += self[S.TOKENS + 3 * seat + k] - n
            self[S.TOKENS + 3 * seat + k] = n

    def tokens(self, seat):
        return [self[S.TOKENS + 3 * seat + k] for k in range(3)]

    def house_rabbit(self, seat, h, c):
        """Move card c from wherever it is into seat's House h."""
        self.take_out(c)
        R.add_to_house(self.params, self.state, seat, h, c)

    def take_out(self, c):
        loc = self[S.CARD_LOC + c]
        if loc == S.LOC_TABLE:
            pos = [p for p in range(8) if self[S.POS_CARD + p] == c][0]
            self[S.POS_CARD + pos] = -1
        elif loc == S.LOC_DECK:
            k = [i for i in range(self[S.DECK_N]) if self[S.DECK + i] == c][0]
            n = self[S.DECK_N]
            self[S.DECK + k] = self[S.DECK + n - 1]
            self[S.DECK + n - 1] = -1
            self[S.DECK_N] = n - 1
        else:
            raise AssertionError("card already placed")

    def set_houses(self, seat, missions):
        """Give seat exactly these House cards, empty (trading with the stack)."""
        for h in range(S.MAXH):
            old = self[S.HOUSE_CARD + seat * S.MAXH + h]
            if old >= 0:
                self[S.HSTACK + self[S.HSTACK_N]] = old
                self[S.HSTACK_N] += 1
                self[S.HOUSE_CARD + seat * S.MAXH + h] = -1
        for h, m in enumerate(missions):
            k = [i for i in range(self[S.HSTACK_N]) if self[S.HSTACK + i] == m][0]
            n = self[S.HSTACK_N]
            self[S.HSTACK + k] = self[S.HSTACK + n - 1]
            self[S.HSTACK + n - 1] = -1
            self[S.HSTACK_N] = n - 1
            self[S.HOUSE_CARD + seat * S.MAXH + h] = m
        self[S.HOUSE_COUNT + seat] = len(missions)

    def problems(self):
        return check_state(self.params, self.n, self.state)

    def place_move(self, die, pos, f):
        return R.PLACE + (die * S.MAXPOS + pos) * S.N_FACES + f


# --- setup ------------------------------------------------------------------------------
@pytest.mark.parametrize("players,houses", [(2, 4), (3, 3), (4, 3)])
def test_setup_deals_two_forest_cards_and_the_house_cards(players, houses):
    t = Table(players)
    for s in range(players):
        assert sum(t[S.FOREST_HAND + 2 * s + k] >= 0 for k in range(2)) == 2
        assert sum(t[S.HOUSE_HAND + 4 * s + k] >= 0 for k in range(4)) == houses
    assert sum(t[S.POS_CARD + p] >= 0 for p in range(8)) == 8
    assert t[S.DECK_N] == 51 - 8
    assert [t[S.GARDEN + k] for k in range(3)] == [20, 20, 20]
    assert t.problems() == []


def test_setup_keeps_one_forest_card_and_may_discard_one_house():
    t = Table(2)
    dealt_f = [t[S.FOREST_HAND + k] for k in range(2)]
    dealt_h = [t[S.HOUSE_HAND + k] for k in range(4)]
    pool, stack = t[S.FPOOL_N], t[S.HSTACK_N]
    assert R.F_KEEP in t.moves() and R.F_KEEP + 1 in t.moves()
    t.play(R.F_KEEP + 1)
    assert sorted(t.moves()) == [R.H_DISCARD + k for k in range(4)] + [R.H_KEEP_ALL]
    t.play(R.H_DISCARD + 2)
    # noted in secret; nothing moves before every seat has chosen
    assert t[S.CHOSEN_FOREST] == 1 and t[S.CHOSEN_HOUSE] == 2
    assert t[S.FOREST_KEPT] == -1 and t[S.HOUSE_COUNT] == 0
    assert (t[S.FPOOL_N], t[S.HSTACK_N]) == (pool, stack)
    assert t[S.PHASE] == S.PH_SETUP_FOREST and t[S.ACTOR] == 1
    assert t.problems() == []
    t.play(R.F_KEEP)
    t.play(R.H_KEEP_ALL)
    assert t[S.FOREST_KEPT] == dealt_f[1]
    assert dealt_f[0] in [t[S.FPOOL + i] for i in range(t[S.FPOOL_N])]
    assert [t[S.HOUSE_CARD + h] for h in range(3)] == [dealt_h[0], dealt_h[1], dealt_h[3]]
    assert t[S.HOUSE_COUNT] == 3 and t[S.HOUSE_COUNT + 1] == 4
    assert dealt_h[2] in [t[S.HSTACK + i] for i in range(t[S.HSTACK_N])]
    assert all(t[S.CHOSEN_FOREST + s] == -1 and t[S.CHOSEN_HOUSE + s] == -1 for s in range(4))
    assert t.problems() == []


def observe_seat(t, seat):
    obs = np.empty_like(t.state)
    R.observe(t.params, t.state, seat, obs)
    return obs


def test_other_seats_do_not_see_the_secret_choices():
    t = Table(2)
    t.play(R.F_KEEP)
    t.play(R.H_DISCARD)
    obs = observe_seat(t, 1)
    assert obs[S.CHOSEN_FOREST] == -2 and obs[S.CHOSEN_HOUSE] == -2
    assert obs[S.FOREST_HAND] == -2 and obs[S.HOUSE_HAND] == -2
    assert obs[S.FOREST_HAND + 2] == t[S.FOREST_HAND + 2]  # its own hand
    obs = observe_seat(t, 0)
    assert obs[S.CHOSEN_FOREST] == 0 and obs[S.CHOSEN_HOUSE] == 0  # its own choice
    assert obs[S.DECK] == -2 and obs[S.HSTACK] == -2


def clone(t):
    """A copy of the table to play on (its params shared: compiling them is slow)."""
    c = copy.copy(t)
    c.state, c.chance, c.items = t.state.copy(), t.chance.copy(), t.items.copy()
    return c


def setup_observations(t, chooser, forest_move, house_move):
    """The chooser makes these secret choices, every later seat keeps its first Forest card
    and all its House cards: each later seat's observation at each of its choices, and the
    true state before the last choice."""
    t = clone(t)
    t.play(forest_move)
    t.play(house_move)
    seen = []
    for _ in range(chooser + 1, t.n):
        seen.append(observe_seat(t, t[S.ACTOR]).tobytes())
        t.play(R.F_KEEP)
        seen.append(observe_seat(t, t[S.ACTOR]).tobytes())
        if t[S.ACTOR] < t.n - 1:
            t.play(R.H_KEEP_ALL)
    return seen, t.state.tobytes()


@pytest.mark.parametrize("players,chooser", [(2, 0), (3, 0), (3, 1), (4, 2)])
def test_a_later_seat_sees_the_same_whatever_an_earlier_seat_chose(players, chooser):
    """Setup 5, "in secret": the choices are made in turn, but a later seat's observation
    is the same for every choice of an earlier one (the chooser is dealt two Forest cards
    that clash with a House, so the redeal is open to it too)."""
    t = Table(players)
    deal_clash(t, chooser)
    for _ in range(chooser):  # the seats before choose first
        t.play(R.F_KEEP)
        t.play(R.H_KEEP_ALL)
    dealt = sum(t[S.HOUSE_HAND + 4 * chooser + k] >= 0 for k in range(4))
    forest_moves = [R.F_KEEP, R.F_KEEP + 1, R.F_REDEAL]
    house_moves = [R.H_KEEP_ALL] + [R.H_DISCARD + k for k in range(dealt)]
    assert sorted(t.moves()) == sorted(forest_moves)
    outcomes = [setup_observations(t, chooser, f, h) for f in forest_moves for h in house_moves]
    assert len({truth for _, truth in outcomes}) == len(outcomes)  # the choices were real
    assert all(seen == outcomes[0][0] for seen, _ in outcomes)
    mine = {observe_seat(t, chooser).tobytes()}
    for f in forest_moves:  # the chooser itself sees its own choice
        c = clone(t)
        c.play(f)
        mine.add(observe_seat(c, chooser).tobytes())
    assert len(mine) == 1 + len(forest_moves)


def test_the_choices_are_revealed_together_once_every_seat_has_chosen():
    t = Table(3)
    deal_clash(t, 1)
    hands = [[t[S.HOUSE_HAND + 4 * s + k] for k in range(3)] for s in range(3)]
    t.play(R.F_KEEP)
    t.play(R.H_DISCARD + 1)  # P1 discards its second House card
    t.play(R.F_REDEAL)  # P2 will wait for the redeal
    t.play(R.H_KEEP_ALL)
    t.play(R.F_KEEP + 1)
    assert t[S.HSTACK_N] == 16 - 9 and t[S.FPOOL_N] == 9 - 6
    assert [t[S.HOUSE_COUNT + s] + t[S.REDEAL + s] for s in range(3)] == [0, 0, 0]
    before = t.state.copy()
    t.play(R.H_DISCARD)  # the last choice: all are carried out at once
    assert [t[S.HOUSE_COUNT + s] for s in range(3)] == [2, 3, 2]
    assert [t[S.REDEAL + s] for s in range(3)] == [0, 1, 0]
    assert t[S.HSTACK_N] == 16 - 9 + 2 and t[S.FPOOL_N] == 9 - 6 + 2 + 2 - 2
    assert [t[S.HOUSE_CARD + h] for h in range(2)] == [hands[0][0], hands[0][2]]
    assert t[S.FOREST_KEPT] >= 0 and t[S.FOREST_KEPT + 2] >= 0
    assert t[S.PHASE] == S.PH_REDEAL and t[S.ACTOR] == 1  # then the redeal
    for seat in range(3):  # what the reveal shows, everyone sees
        obs = observe_seat(t, seat)
        for s in range(3):
            assert obs[S.HOUSE_COUNT + s] == t[S.HOUSE_COUNT + s]
            assert obs[S.REDEAL + s] == t[S.REDEAL + s]
    assert t.problems() == []
    lines = describe_move(t.params, 3, before, R.H_DISCARD, t.state)
    assert lines == [
        f"chooses in secret to discard {house_name(t.params, hands[2][0])} [seen by P3]",
        "all have chosen; the secret choices are revealed:",
        "  P1 keeps a Forest card and 2 House cards",
        "  P2 keeps 3 House cards and waits for the redeal",
        "  P3 keeps a Forest card and 2 House cards"]


def test_face_up_missions_are_shown_after_the_secret_choices():
    t = Table(2, **{"missions.face_up": True})
    t.play(R.F_KEEP)
    t.play(R.H_KEEP_ALL)
    obs = observe_seat(t, 1)
    assert obs[S.FOREST_KEPT] == -1 and obs[S.CHOSEN_FOREST] == -2  # P1 chose, in secret
    t.finish_setup()
    obs = observe_seat(t, 1)
    assert obs[S.FOREST_KEPT] == t[S.FOREST_KEPT] and obs[S.HOUSE_CARD] == t[S.HOUSE_CARD]
    assert obs[S.FOREST_KEPT] >= 0


def test_check_state_sees_a_secret_choice_out_of_turn_or_not_allowed():
    t = Table(2, **{"forest.redeal_allowed": False})
    t.play(R.F_KEEP)
    assert t.problems() == []
    t[S.CHOSEN_HOUSE] = 1  # P1 has not made its House choice yet
    assert any("secret setup choice" in p for p in t.problems())
    t[S.CHOSEN_HOUSE] = -1
    t[S.CHOSEN_FOREST] = R.F_REDEAL - R.F_KEEP  # the redeal is not open to it
    assert any("do not allow" in p for p in t.problems())


def deal_clash(t, seat):
    """Seat 0 holds 'every has brown 1' and 'every has white 1' and a House 'only spotted'."""
    pool = [t[S.FPOOL + i] for i in range(t[S.FPOOL_N])]
    hand = [t[S.FOREST_HAND + 2 * seat + k] for k in range(2)]
    want = [forest("every has brown 1"), forest("every has white 1")]
    everyone = pool + hand + [t[S.FOREST_HAND + 2 * s + k] for s in range(t.n) if s != seat
                              for k in range(2)]
    rest = [f for f in everyone if f not in want]
    for s in range(t.n):
        for k in range(2):
            t[S.FOREST_HAND + 2 * s + k] = want[k] if s == seat else rest.pop()
    for i in range(t[S.FPOOL_N]):
        t[S.FPOOL + i] = rest.pop()
    houses_all = [t[S.HSTACK + i] for i in range(t[S.HSTACK_N])] + [
        t[S.HOUSE_HAND + 4 * s + k] for s in range(t.n) for k in range(4)
        if t[S.HOUSE_HAND + 4 * s + k] >= 0]
    spotted = house("only spotted")
    mine = [spotted] + [h for h in houses_all if h != spotted][:3]
    others = [h for h in houses_all if h not in mine]
    dealt = sum(t[S.HOUSE_HAND + 4 * seat + k] >= 0 for k in range(4))
    for k in range(dealt):
        t[S.HOUSE_HAND + 4 * seat + k] = mine[k]
    others += mine[dealt:]
    for s in range(t.n):
        if s != seat:
            for k in range(dealt):
                t[S.HOUSE_HAND + 4 * s + k] = others.pop()
    for i in range(t[S.HSTACK_N]):
        t[S.HSTACK + i] = others.pop()
    assert t.problems() == []


def test_redeal_is_offered_only_when_both_forest_cards_clash():
    t = Table(2)
    deal_clash(t, 0)
    assert R.F_REDEAL in t.moves()
    t.play(R.F_REDEAL)
    t.play(R.H_KEEP_ALL)
    # seat 1's hand does not clash with its Houses (no 'only'/'none' House for its cards)
    if R.F_REDEAL in t.moves():
        pytest.skip("the deal happened to give seat 1 a clash too")
    t.play(R.F_KEEP)
    t.play(R.H_KEEP_ALL)
    assert t[S.PHASE] == S.PH_REDEAL and t[S.ACTOR] == 0
    new = [t[S.FOREST_HAND + k] for k in range(2)]
    assert all(f >= 0 for f in new)
    t.play(R.R_KEEP + 1)
    assert t[S.FOREST_KEPT] == new[1]
    assert t.problems() == []
    assert t[S.PHASE] in (S.PH_DRAW, S.PH_PICK)


def test_redeal_switch_off():
    t = Table(2, **{"forest.redeal_allowed": False})
    deal_clash(t, 0)
    assert R.F_REDEAL not in t.moves()


# --- House cards during the game ----------------------------------------------------------
def test_house_draw_takes_two_keeps_one_and_returns_the_other():
    t = Table(2)
    t.finish_setup()
    assert t[S.PHASE] == S.PH_DRAW and t[S.ACTOR] == 0
    stack = t[S.HSTACK_N]
    t.play(R.DRAW_TAKE)
    assert t[S.DRAWN_N] == 2 and t[S.PHASE] == S.PH_KEEP
    drawn = [t[S.DRAWN], t[S.DRAWN + 1]]
    count = t[S.HOUSE_COUNT]
    t.play(R.KEEP + 1)
    assert t[S.HOUSE_CARD + count] == drawn[1] and t[S.HOUSE_COUNT] == count + 1
    assert t[S.HSTACK_N] == stack - 1
    assert drawn[0] in [t[S.HSTACK + i] for i in range(t[S.HSTACK_N])]
    assert t.problems() == []


def test_only_one_house_card_left_is_received_without_a_choice():
    t = Table(2)
    t.finish_setup()
    keep = t[S.HSTACK]
    for i in range(1, t[S.HSTACK_N]):
        t[S.HSTACK + i] = -1
    t[S.HSTACK_N] = 1  # (cards removed from play: this test checks no conservation)
    count = t[S.HOUSE_COUNT]
    t.play(R.DRAW_TAKE)
    assert t[S.HOUSE_CARD + count] == keep and t[S.HSTACK_N] == 0
    assert t[S.PHASE] != S.PH_KEEP


@pytest.mark.parametrize("players,limit", [(2, 5), (3, 4), (4, 4)])
def test_no_house_draw_at_the_house_limit(players, limit):
    t = Table(players)
    t.finish_setup()
    for s in range(players):
        t[S.HOUSE_COUNT + s] = limit  # the draw only looks at the count
    t[S.PHASE] = S.PH_DRAW
    R.start_round(t.params, t.state, t.chance, t.items)
    assert t[S.PHASE] == S.PH_PICK


# --- dice -----------------------------------------------------------------------------------
@pytest.mark.parametrize("players,picks", [(2, 3), (3, 2), (4, 2)])
def test_each_player_picks_the_rulebook_number_of_dice_then_the_leftover(players, picks):
    t = Table(players)
    t.to_picks()
    colours = sorted(t[S.DIE_FACE + d] // 6 for d in range(9))
    assert colours == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    seats = []
    while t[S.PHASE] == S.PH_PICK:
        seats.append(t[S.ACTOR])
        t.play(min(m for m in t.moves() if m < R.PLACE))  # resources: no House choice
    assert seats == [s % players for s in range(players * picks)]
    assert t[S.PHASE] == S.PH_LEFTOVER and t[S.ACTOR] == 0


def test_a_die_taken_as_resources_gives_its_pips_in_its_colour():
    t = Table(2)
    t.to_picks()
    t.roll(face(ORANGE, 4))
    t.play(R.RES + 0)
    assert t.tokens(0) == [4, 0, 0] and t[S.GARDEN] == 16
    t.roll(face(ORANGE, 1), face(ORANGE, 2), face(ORANGE, 3), face(GREEN, 5))
    t[S.GARDEN + 1] = 3
    t.play(R.RES + 3)  # only 3 cabbages left in the Garden
    assert t.tokens(1) == [0, 3, 0]


def test_no_die_on_a_card_another_player_has_marked():
    t = Table(2)
    t.to_picks()
    t.put(0, card("Large brown: G G"))
    t.roll(face(GREEN, 2), face(GREEN, 5))
    t.play(t.place_move(0, 0, face(GREEN, 2)))
    assert t[S.ACTOR] == 1
    assert not [m for m in t.moves() if R.PLACE <= m < R.EXCHANGE
                and (m - R.PLACE) // S.N_FACES % S.MAXPOS == 0]
    t.play(R.RES + 1)
    assert t[S.ACTOR] == 0
    assert t.place_move(1, 0, face(GREEN, 5)) not in t.moves()  # die 1 was taken
    t.roll(face(GREEN, 2), face(GREEN, 5))
    t[S.DIE_USE] = 0
    assert t.place_move(1, 0, face(GREEN, 5)) in t.moves()  # completing its own card


def test_a_die_must_fit_the_card_it_goes_on():
    t = Table(2)
    t.to_picks()
    t.put(0, card("Small brown: B4"))
    t.roll(face(ORANGE, 4), face(BLUE, 3), face(BLUE, 4))
    t.give_tokens(0, 0, 0, 0)
    legal = t.moves()
    assert t.place_move(2, 0, face(BLUE, 4)) in legal
    assert t.place_move(0, 0, face(ORANGE, 4)) not in legal
    assert t.place_move(1, 0, face(BLUE, 3)) not in legal


def test_szarus_recolours_an_orange_four_with_two_cornflowers():
    t = Table(2)
    t.to_picks()
    t.put(0, card("Small brown: B4"))
    t.roll(face(ORANGE, 4))
    t.give_tokens(0, 0, 0, 2)
    move = t.place_move(0, 0, face(BLUE, 4))
    t.play(move)
    assert t.tokens(0) == [0, 0, 0]
    assert [t[S.POS_TOK + k] for k in range(3)] == [0, 0, 2]
    assert t[S.POS_D1] == face(BLUE, 4) and t[S.DIE_FACE] == face(ORANGE, 4)
    assert t.items[0, R.I_RECOLOUR] == 1 and t.items[0, R.I_PIPS] == 0
    assert t.problems() == []


def test_recolouring_needs_two_tokens_of_the_target_colour():
    t = Table(2)
    t.to_picks()
    t.put(0, card("Small brown: B4"))
    t.roll(face(ORANGE, 4))
    t.give_tokens(0, 2, 1, 1)  # four tokens, but one cornflower
    assert t.place_move(0, 0, face(BLUE, 4)) not in t.moves()


def test_szarus_lowers_a_green_two_with_a_carrot_and_a_cornflower():
    t = Table(2)
    t.to_picks()
    t.put(0, card("Small brown: G1"))
    t.roll(face(GREEN, 2))
    t.give_tokens(0, 1, 0, 1)
    t.play(t.place_move(0, 0, face(GREEN, 1)))
    assert t.tokens(0) == [0, 0, 0]
    assert [t[S.POS_TOK + k] for k in range(3)] == [1, 0, 1]
    assert t.items[0, R.I_PIPS] == 1
    assert t.problems() == []


def test_colour_and_pips_modified_in_one_move():
    t = Table(2)
    t.to_picks()
    t.put(0, card("Small brown: B4"))
    t.roll(face(ORANGE, 6))
    t.give_tokens(0, 0, 2, 2)
    assert t.place_move(0, 0, face(BLUE, 4)) not in t.moves()  # needs 2 + 2*2 = 6 tokens
    t.give_tokens(0, 1, 2, 3)
    assert t.place_move(0, 0, face(BLUE, 4)) in t.moves()
    t.play(t.place_move(0, 0, face(BLUE, 4)))
    assert sum(t.tokens(0)) == 0


def paid_on(t, pos):
    return tuple(t[S.POS_TOK + 3 * pos + k] for k in range(3))


def test_the_seat_chooses_which_tokens_pay_for_pips():
    """'2 any resource tokens add or subtract 1 pip': the seat picks them, in kind order."""
    t = Table(2)
    t.to_picks()
    t.put(0, card("Small brown: G1"))
    t.roll(face(GREEN, 2))
    t.give_tokens(0, 3, 2, 0)
    t.play(t.place_move(0, 0, face(GREEN, 1)))
    assert t[S.PHASE] == S.PH_PAY and t[S.ACTOR] == 0 and t[S.PAY_LEFT] == 2
    assert t.moves() == [R.PAY_TOKEN + CARROT, R.PAY_TOKEN + CABBAGE]
    assert t.problems() == []
    t.play(R.PAY_TOKEN + CABBAGE)  # cabbage first: the second must be a cabbage too
    assert t[S.PHASE] == S.PH_PICK and t[S.ACTOR] == 1
    assert t.tokens(0) == [3, 0, 0] and paid_on(t, 0) == (0, 2, 0)
    assert t.problems() == []


def test_which_tokens_pay_matters_so_it_is_not_automatic():
    """No payment is best for every seat: from 3 carrots and 2 cabbages, the largest pile
    first (carrot, carrot: the old automatic payment) keeps a recolour to green for a later
    die this round, a carrot and a cabbage keep one to orange instead; both keep 3 tokens
    after the end-of-round limits (NOTES.md)."""
    kept = {}
    for first, second in ((CARROT, CARROT), (CARROT, CABBAGE)):
        t = Table(2)
        t.to_picks()
        t.put(0, card("Small brown: G1"))
        t.roll(face(GREEN, 2), face(BLUE, 5))
        t.give_tokens(0, 3, 2, 0)
        t.play(t.place_move(0, 0, face(GREEN, 1)))
        t.play(R.PAY_TOKEN + first)
        t.play(R.PAY_TOKEN + second)
        recolour = [R.modify_cost(t.params, t.state, 0, face(BLUE, 5), face(c, 5)) >= 0
                    for c in (ORANGE, GREEN)]
        R.discard_excess(t.params, t.state, 0)
        kept[first, second] = (recolour, sum(t.tokens(0)))
    assert kept[CARROT, CARROT] == ([False, True], 3)
    assert kept[CARROT, CABBAGE] == ([True, False], 3)


def payments_reached(t, pos=0):
    """From a pay step, every line of token choices: the tokens each leaves on the card."""
    if t[S.PHASE] != S.PH_PAY:
        return [paid_on(t, pos)]
    here = t.state.copy()
    out = []
    for m in t.moves():
        t.state[:] = here
        t.play(m)
        out += payments_reached(t, pos)
    return out


def test_the_pay_step_offers_exactly_every_way_to_pay_once():
    """On many holdings and pip changes, the token payments the pay step can reach are all
    the multisets of that many tokens the seat holds, each by one line of choices."""
    rng = np.random.default_rng(5)
    for _ in range(60):
        held = [int(v) for v in rng.integers(0, 5, 3)]
        pips = int(rng.integers(2, 5))  # a die showing 2..4 lowered to the card's 1
        need = 2 * (pips - 1)
        t = Table(2)
        t.to_picks()
        t.put(0, card("Small white: *1"))
        t.roll(face(GREEN, pips))
        t.give_tokens(0, *held)
        move = t.place_move(0, 0, face(GREEN, 1))
        assert (move in t.moves()) == (sum(held) >= need)
        if sum(held) < need:
            continue
        valid = sorted(m for m in itertools.product(*(range(h + 1) for h in held))
                       if sum(m) == need)
        t.play(move)
        assert sorted(payments_reached(t)) == valid, (held, pips)


def test_resources_cannot_buy_more_resources():
    t = Table(2)
    t.to_picks()
    t.roll(face(ORANGE, 1))
    t.give_tokens(0, 2, 2, 2)
    t.play(R.RES + 0)
    assert t.tokens(0) == [3, 2, 2]  # one carrot, and nothing spent


def test_the_two_way_rabbit_card():
    """'Large white: B1 *2 / G G': a blue 1 and any 2, or two green dice."""
    c = card("Large white: B1 *2 / G G")
    fit2 = view(t_params(), "fit2")
    ok = lambda a, b: bool(fit2[c, a * 18 + b])  # noqa: E731
    assert ok(face(BLUE, 1), face(ORANGE, 2)) and ok(face(GREEN, 2), face(BLUE, 1))
    assert ok(face(GREEN, 6), face(GREEN, 6)) and ok(face(GREEN, 1), face(GREEN, 4))
    assert not ok(face(BLUE, 1), face(GREEN, 3))
    assert not ok(face(BLUE, 2), face(ORANGE, 2))
    t = Table(2)
    t.to_picks()
    t.put(0, c)
    t.roll(face(BLUE, 1), face(ORANGE, 2), face(GREEN, 3), face(GREEN, 5))
    t.give_tokens(0, 0, 0, 0)
    t.play(t.place_move(0, 0, face(BLUE, 1)))
    t.play(R.RES + 3)
    legal = t.moves()
    assert t.place_move(1, 0, face(ORANGE, 2)) in legal
    assert t.place_move(2, 0, face(GREEN, 3)) not in legal


def t_params():
    return params_for(2)


def test_pair_markings():
    fit2 = view(t_params(), "fit2")
    sc, sp = card("Large brown: SC"), card("Large brown: SP")
    assert fit2[sc, face(BLUE, 1) * 18 + face(BLUE, 5)]
    assert not fit2[sc, face(BLUE, 3) * 18 + face(BLUE, 3)]
    assert not fit2[sc, face(BLUE, 3) * 18 + face(GREEN, 4)]
    assert fit2[sp, face(ORANGE, 4) * 18 + face(GREEN, 4)]
    assert not fit2[sp, face(ORANGE, 4) * 18 + face(ORANGE, 4)]


# --- acquiring -------------------------------------------------------------------------------
def play_round_to_acquire(t, picks_seat0, picks_seat1, leftover=R.LEFT_PASS):
    for a, b in zip(picks_seat0, picks_seat1, strict=True):
        t.play(a)
        while t[S.PHASE] == S.PH_PLACE:
            t.play(t.moves()[0])
        t.play(b)
    t.play(leftover)


def test_large_rabbit_for_two_dice_and_a_failed_attempt_loses_die_and_tokens():
    t = Table(2)
    t.to_picks()
    large, other = card("Large brown: G G"), card("Large white: O O")
    t.put(0, large)
    t.put(1, other)
    t.roll(face(GREEN, 2), face(GREEN, 5), face(ORANGE, 3), face(BLUE, 1), face(BLUE, 2),
           face(BLUE, 3), face(BLUE, 4), face(BLUE, 5))
    t.give_tokens(1, 0, 0, 0)
    t.give_tokens(0, 2, 0, 0)
    play_round_to_acquire(
        t, [t.place_move(0, 0, face(GREEN, 2)), t.place_move(1, 0, face(GREEN, 5)),
            t.place_move(3, 1, face(ORANGE, 1))],
        [R.RES + 4, R.RES + 5, R.RES + 6])
    # seat 0 acquired the Large brown and failed the Large white (recoloured with 2 carrots)
    assert t[S.PHASE] == S.PH_PLACE and t[S.ACTOR] == 0
    t.play(t.moves()[0])
    assert t[S.CARD_LOC + large] >= S.LOC_SEAT
    assert other in [t[S.POS_CARD + p] for p in range(8)]
    assert t.tokens(0) == [0, 0, 0] and t[S.GARDEN] == 20
    assert t.items[0, R.I_FAILED] == 1
    assert t.items[0, R.I_RABBIT + 3 * large + R.EV_ACQUIRED] == 1
    assert t.problems() == []


def test_acquired_rabbit_goes_to_a_house_of_the_players_choice():
    t = Table(2)
    t.to_picks()
    t.set_houses(0, [0, 1, 2])
    big1, big2 = card("Large white: O O"), card("Large brown: G G")
    t.house_rabbit(0, 1, big1)
    t.house_rabbit(0, 1, big2)
    t.put(0, card("Large spotted: B B"))
    t.roll(face(BLUE, 1), face(BLUE, 2), face(ORANGE, 3), face(GREEN, 1), face(GREEN, 2),
           face(GREEN, 3))
    play_round_to_acquire(
        t, [t.place_move(0, 0, face(BLUE, 1)), t.place_move(1, 0, face(BLUE, 2)), R.RES + 2],
        [R.RES + 3, R.RES + 4, R.RES + 5])
    assert t[S.PHASE] == S.PH_PLACE
    assert sorted(t.moves()) == [R.HOUSE + 0, R.HOUSE + 2]  # House 2 already has 2 Large
    t.play(R.HOUSE + 2)
    assert t[S.HOUSE_N + 2] == 1 and t[S.HOUSE_LARGE + 2] == 1
    assert t.problems() == []


@pytest.mark.parametrize("sizes,family", [
    ("LL", True), ("LLSSS", True), ("LS", True), ("LSSSS", True), ("SS", False), ("L", False),
    ("S", False)])
def test_the_four_family_shapes(sizes, family):
    t = Table(2)
    t.finish_setup()
    t.set_houses(0, [0])
    larges = [card(c) for c in CARDS if c.startswith("Large")]
    smalls = [card(c) for c in CARDS if c.startswith("Small")]
    for ch in sizes:
        t.house_rabbit(0, 0, larges.pop() if ch == "L" else smalls.pop())
    assert bool(R.is_family(t.state, 0)) == family
    expected = {2: 1, 3: 1, 4: 2, 5: 3}.get(len(sizes), 0) + (sizes.count("L") == 2)
    assert R.family_points(t.params, t.state, 0) == (expected if family else 0)


def test_koniczynka_family_under_the_advanced_colour_table():
    """A white, a spotted and a white rabbit: only white or spotted may join."""
    for table_on in (True, False):
        t = Table(2, **{"advanced.colour_table": table_on})
        t.finish_setup()
        t.set_houses(0, [0])
        for c in ("Large white: O O", "Small spotted: G", "Small white: O"):
            t.house_rabbit(0, 0, card(c))
        fits = {c: bool(R.house_fits(t.params, t.state, 0, 0, card(c)))
                for c in ("Small white: G", "Small spotted: B", "Small brown: O")}
        assert fits["Small white: G"] and fits["Small spotted: B"]
        assert fits["Small brown: O"] == (not table_on)


def test_colour_table_white_and_brown_take_only_spotted():
    t = Table(2, **{"advanced.colour_table": True})
    t.finish_setup()
    t.set_houses(0, [0])
    t.house_rabbit(0, 0, card("Large white: O O"))
    assert R.house_fits(t.params, t.state, 0, 0, card("Small brown: O"))  # first two: any
    t.house_rabbit(0, 0, card("Small brown: O"))
    assert not R.house_fits(t.params, t.state, 0, 0, card("Small white: G"))
    assert not R.house_fits(t.params, t.state, 0, 0, card("Small brown: G"))
    assert R.house_fits(t.params, t.state, 0, 0, card("Small spotted: G"))


# --- Wanderers ----------------------------------------------------------------------------
def fill_houses_with_two_large(t, seat, n):
    larges = [card(c) for c in CARDS if c.startswith("Large")]
    t.set_houses(seat, list(range(n)))
    for h in range(n):
        for _ in range(2):
            c = larges.pop()
            while t[S.CARD_LOC + c] not in (S.LOC_DECK,):
                c = larges.pop()
            t.house_rabbit(seat, h, c)


def acquire_directly(t, seat, c):
    t.take_out(c)
    t[S.PEND_SEAT], t[S.PEND_CARD], t[S.PEND_N], t[S.PEND_I] = seat, c, 1, 0
    t[S.CARD_LOC + c] = S.LOC_PENDING
    t[S.PLACE_FOR] = 1
    t[S.PICKER] = t[S.ACTOR]
    R.next_placement(t.params, t.state, t.chance, t.items)


def test_a_rabbit_that_fits_no_house_wanders_and_a_third_goes_to_the_deck():
    t = Table(2)
    t.to_picks()
    fill_houses_with_two_large(t, 0, 2)
    in_deck = [t[S.DECK + i] for i in range(t[S.DECK_N])]
    larges = [c for c in in_deck if CARDS[c].startswith("Large")][:3]
    for c in larges[:2]:
        acquire_directly(t, 0, c)
    assert [t[S.WAND], t[S.WAND + 1]] == larges[:2]
    deck = t[S.DECK_N]
    acquire_directly(t, 0, larges[2])
    assert [t[S.WAND], t[S.WAND + 1]] == larges[:2]
    assert t[S.DECK_N] == deck and t[S.CARD_LOC + larges[2]] == S.LOC_DECK
    assert t.items[0, R.I_WAND_DECK] == 1
    assert t.problems() == []


def test_two_wanderers_are_traded_for_an_unmarked_rabbit_before_the_pick():
    t = Table(2)
    t.to_picks()
    fill_houses_with_two_large(t, 0, 2)
    in_deck = [t[S.DECK + i] for i in range(t[S.DECK_N])]
    wand = [c for c in in_deck if CARDS[c].startswith("Large")][:2]
    for c in wand:
        acquire_directly(t, 0, c)
    small = card("Small white: O")
    if t[S.CARD_LOC + small] != S.LOC_TABLE:
        t.put(3, small)
    pos = [p for p in range(8) if t[S.POS_CARD + p] == small][0]
    t.roll(face(GREEN, 2))
    t.put((pos + 1) % 8, card("Large brown: G G"))
    t.give_tokens(0, 0, 0, 0)
    t.play(t.place_move(0, (pos + 1) % 8, face(GREEN, 2)))  # seat 0 marks a card
    t.play(R.RES + 1)  # seat 1
    assert t[S.ACTOR] == 0
    legal = t.moves()
    assert R.EXCHANGE + pos in legal
    marked = [p for p in range(8) if t[S.POS_OWNER + p] >= 0]
    assert all(R.EXCHANGE + p not in legal for p in marked)
    deck = t[S.DECK_N]
    t.play(R.EXCHANGE + pos)
    assert t[S.PHASE] == S.PH_PLACE
    t.play(t.moves()[0])
    assert t[S.CARD_LOC + small] >= S.LOC_SEAT and t[S.WAND] == -1 and t[S.WAND + 1] == -1
    assert t[S.DECK_N] == deck + 2 and t[S.POS_CARD + pos] == -1
    assert t[S.PHASE] == S.PH_PICK and t[S.ACTOR] == 0  # the normal pick follows
    assert t.problems() == []


def test_a_wanderer_moves_into_a_newly_drawn_house():
    t = Table(2)
    t.finish_setup()
    t.set_houses(0, [])
    fill_houses_with_two_large(t, 0, 1)
    w = [c for c in (t[S.DECK + i] for i in range(t[S.DECK_N])) if CARDS[c].startswith("Large")][0]
    t.take_out(w)
    t[S.WAND] = w
    t[S.CARD_LOC + w] = S.LOC_SEAT + S.LOC_WANDER
    assert t[S.PHASE] == S.PH_DRAW and t[S.ACTOR] == 0
    t.play(R.DRAW_TAKE)
    t.play(R.KEEP)
    assert t[S.PHASE] == S.PH_WANDER_ADD
    assert sorted(t.moves()) == [R.WAND_ADD, R.WAND_DONE]
    t.play(R.WAND_ADD)
    assert t[S.HOUSE_N + 1] == 1 and t[S.WAND] == -1
    assert t[S.PHASE] != S.PH_WANDER_ADD
    assert t.problems() == []


# --- the leftover die ------------------------------------------------------------------------
def to_leftover(t, faces):
    t.to_picks()
    t.roll(*faces)
    while t[S.PHASE] == S.PH_PICK:
        t.play(min(m for m in t.moves() if m < R.PLACE))
    assert t[S.PHASE] == S.PH_LEFTOVER


def test_leftover_colour_gives_everyone_one_token():
    t = Table(3)
    to_leftover(t, [face(ORANGE, 1)] * 3 + [face(GREEN, 1)] * 3 + [face(BLUE, 5)] * 3)
    before = [t.tokens(s)[CORNFLOWER] for s in range(3)]
    blue = [m for m in t.moves() if R.LEFT_COLOUR <= m < R.LEFT_SWAP
            and t[S.DIE_FACE + m - R.LEFT_COLOUR] // 6 == BLUE][0]
    t.play(blue)
    assert [t.tokens(s)[CORNFLOWER] for s in range(3)] == [b + 1 for b in before]


def test_leftover_colour_stops_when_the_garden_runs_out():
    t = Table(3)
    to_leftover(t, [face(ORANGE, 1)] * 3 + [face(GREEN, 1)] * 3 + [face(BLUE, 5)] * 3)
    t[S.GARDEN + CORNFLOWER] = 2  # (tokens taken out of play: only the hand-out is checked)
    blue = [m for m in t.moves() if R.LEFT_COLOUR <= m < R.LEFT_SWAP
            and t[S.DIE_FACE + m - R.LEFT_COLOUR] // 6 == BLUE][0]
    first = t[S.FIRST]
    before = [t.tokens(s)[CORNFLOWER] for s in range(3)]
    R.use_leftover(t.params, t.state, t.chance, blue, t.items)  # before the round's discards
    got = [t.tokens(s)[CORNFLOWER] - before[s] for s in range(3)]
    assert got[first] == 1 and got[(first + 1) % 3] == 1 and got[(first + 2) % 3] == 0
    assert t[S.GARDEN + CORNFLOWER] == 0


def test_leftover_pips_swap_the_rabbit_at_that_position_if_unmarked():
    t = Table(2)
    t.to_picks()
    t.roll(face(ORANGE, 1), face(ORANGE, 2), face(ORANGE, 4), face(GREEN, 1), face(GREEN, 2),
           face(GREEN, 4), face(BLUE, 6), face(BLUE, 3), face(BLUE, 5))
    for d in range(6):
        t[S.DIE_USE + d] = S.USE_GARDEN  # the players' six picks
    t[S.POS_OWNER + 2], t[S.POS_D1 + 2] = 1, face(GREEN, 2)  # position 3 is marked
    t[S.DIE_USE + 4] = 2
    t[S.PHASE], t[S.ACTOR] = S.PH_LEFTOVER, 0
    legal = t.moves()
    assert R.LEFT_SWAP + 6 in legal  # a six: position 6 is unmarked
    assert R.LEFT_SWAP + 7 not in legal  # a three: position 3 has a marker
    assert R.LEFT_SWAP + 8 in legal and R.LEFT_PASS in legal
    assert {R.LEFT_COLOUR + d for d in (6, 7, 8)} <= set(legal)
    old = t[S.POS_CARD + 5]
    top = t[S.DECK + t[S.DECK_N] - 1]
    t.play(R.LEFT_SWAP + 6)
    assert t.items[0, R.I_LEFT_SWAP] == 1
    assert t[S.CARD_LOC + old] == S.LOC_DECK and t[S.POS_CARD + 5] == top
    assert t.problems() == []


def test_positions_seven_and_eight_cannot_be_swapped():
    t = Table(2, **{"table.swap_positions": 6})
    to_leftover(t, [face(ORANGE, 6)] * 9)
    moves = t.moves()
    assert any(R.LEFT_SWAP <= m < R.LEFT_PASS for m in moves)  # a six names position 6
    t2 = Table(2, **{"table.swap_positions": 5})
    to_leftover(t2, [face(ORANGE, 6)] * 9)
    assert not any(R.LEFT_SWAP <= m < R.LEFT_PASS for m in t2.moves())


def test_a_marked_card_cannot_be_swapped():
    t = Table(2)
    t.to_picks()
    t.put(1, card("Large brown: G G"))
    t.roll(face(GREEN, 3), face(GREEN, 2), face(GREEN, 2), face(GREEN, 2), face(GREEN, 2),
           face(GREEN, 2), face(GREEN, 2), face(GREEN, 2), face(GREEN, 2))
    t.give_tokens(0, 0, 0, 0)
    t.play(t.place_move(0, 1, face(GREEN, 3)))
    while t[S.PHASE] == S.PH_PICK:
        t.play(min(m for m in t.moves() if m < R.PLACE))
    assert not any(R.LEFT_SWAP <= m < R.LEFT_PASS for m in t.moves())  # all twos: position 2


# --- end of the round ---------------------------------------------------------------------
@pytest.mark.parametrize("players,cap", [(2, 2), (3, 2), (4, 3)])
def test_resources_are_discarded_to_the_limits(players, cap):
    t = Table(players)
    t.to_picks()
    t.give_tokens(0, 6, 1, 5)
    R.discard_excess(t.params, t.state, 0)
    assert t.tokens(0) == [cap, 1, cap]
    assert t.problems() == []


def test_total_limit_discards_from_the_largest_pile():
    t = Table(2, **{"resources.kind_limit": 5, "resources.total_limit": 6})
    t.to_picks()
    t.give_tokens(0, 5, 1, 3)
    R.discard_excess(t.params, t.state, 0)
    assert t.tokens(0) == [2, 1, 3]  # 5 1 3 -> 4 1 3 -> 3 1 3 -> (tie: carrots first)


def test_round_end_refills_positions_and_passes_the_first_player_marker():
    t = Table(3)
    t.to_picks()
    t.put(0, card("Small white: O"))
    t.roll(face(ORANGE, 2))
    t.give_tokens(0, 0, 0, 0)
    t.play(t.place_move(0, 0, face(ORANGE, 2)))
    while t[S.PHASE] == S.PH_PICK:
        t.play(min(m for m in t.moves() if m < R.PLACE))
    t.play(R.LEFT_PASS)
    while t[S.PHASE] == S.PH_PLACE:
        t.play(t.moves()[0])
    assert t[S.ROUND] == 1 and t[S.FIRST] == 1
    assert all(t[S.POS_CARD + p] >= 0 for p in range(8))
    assert t[S.CARD_LOC + card("Small white: O")] >= S.LOC_SEAT
    assert all(t[S.DIE_USE + d] == -1 for d in range(9))
    assert t.problems() == []


# --- missions and scoring ---------------------------------------------------------------------
def build_family(t, seat, h, spec):
    """spec like 'Lw Sb Ss': size and colour letters."""
    names = {"S": "Small", "L": "Large", "w": "white", "b": "brown", "s": "spotted"}
    pool = {(s, c): [card(x) for x in CARDS if x.startswith(f"{names[s]} {names[c]}:")
                     and t[S.CARD_LOC + card(x)] in (S.LOC_DECK, S.LOC_TABLE)]
            for s in "SL" for c in "wbs"}
    for tok in spec.split():
        t.house_rabbit(seat, h, pool[(tok[0], tok[1])].pop())


def test_the_rulebook_mission_examples():
    t = Table(2)
    t.finish_setup()
    t.set_houses(0, [house("has brown 1"), house("only brown"), house("has white 3"),
                     house("rainbow")])
    build_family(t, 0, 0, "Lw Sb")
    build_family(t, 0, 1, "Lb Sb Sb")
    build_family(t, 0, 2, "Lw Sw Sw")
    build_family(t, 0, 3, "Lw Sb Ss")
    assert all(R.house_mission_done(t.params, t.state, 0, h) for h in range(4))
    t2 = Table(2)
    t2.finish_setup()
    t2.set_houses(0, [house("has brown 1"), house("only brown"), house("has white 3"),
                      house("rainbow")])
    build_family(t2, 0, 0, "Lw Sw")
    build_family(t2, 0, 1, "Lb Sb Sw")
    build_family(t2, 0, 2, "Lw Sw Sb")
    build_family(t2, 0, 3, "Lw Sb Ss Ss")
    assert not any(R.house_mission_done(t2.params, t2.state, 0, h) for h in range(4))


def test_forest_every_family_has_brown():
    t = Table(2)
    t.finish_setup()
    t[S.FPOOL + t[S.FPOOL_N]] = t[S.FOREST_KEPT]
    t[S.FPOOL_N] += 1
    f = forest("every has brown 1")
    k = [i for i in range(t[S.FPOOL_N]) if t[S.FPOOL + i] == f]
    if not k:  # held by seat 1: swap
        t[S.FOREST_KEPT + 1], t[S.FPOOL] = t[S.FPOOL], t[S.FOREST_KEPT + 1]
        k = [0]
    t[S.FPOOL + k[0]] = t[S.FPOOL + t[S.FPOOL_N] - 1]
    t[S.FPOOL + t[S.FPOOL_N] - 1] = -1
    t[S.FPOOL_N] -= 1
    t[S.FOREST_KEPT] = f
    t.set_houses(0, [0, 1])
    assert not R.forest_mission_done(t.params, t.state, 0)  # no Family at all
    build_family(t, 0, 0, "Lb Sw")
    assert R.forest_mission_done(t.params, t.state, 0)
    build_family(t, 0, 1, "Lw Sw")
    assert not R.forest_mission_done(t.params, t.state, 0)
    assert t.problems() == []


def give_forest(t, seat, f):
    """Seat keeps Forest card f: swapped with whoever (or the box) holds it."""
    mine = t[S.FOREST_KEPT + seat]
    for s in range(t.n):
        if t[S.FOREST_KEPT + s] == f:
            t[S.FOREST_KEPT + s] = mine
    for i in range(t[S.FPOOL_N]):
        if t[S.FPOOL + i] == f:
            t[S.FPOOL + i] = mine
    t[S.FOREST_KEPT + seat] = f


def latek(advanced):
    t = Table(2, **{"advanced.scoring": advanced})
    t.finish_setup()
    give_forest(t, 0, forest("count 3 size 2"))
    t.set_houses(1, [])
    t.set_houses(0, [house("size 5"), house("rainbow"), house("has brown 1"), house("mono")])
    build_family(t, 0, 0, "Lw Sw Sb Ss Ss")  # 5 rabbits: +3, 'size 5' completed
    build_family(t, 0, 1, "Lw Lb Ss")  # 3 rabbits, 2 Large: +1 +1, 'rainbow' completed
    build_family(t, 0, 2, "Lb Sw Sw")  # 3 rabbits: +1, 'has brown 1' completed
    build_family(t, 0, 3, "Sw")  # no Family: 'mono' uncompleted
    return t


def test_latek_scores_17():
    t = latek(False)
    assert R.forest_mission_done(t.params, t.state, 0)
    assert [R.house_mission_done(t.params, t.state, 0, h) for h in range(4)] == [
        True, True, True, False]
    assert R.seat_score(t.params, t.state, 0) == 5 + 6 + 1 + 1 + 3 + 1
    assert t.problems() == []


def test_advanced_column_takes_two_for_an_uncompleted_house():
    t = latek(True)
    assert R.seat_score(t.params, t.state, 0) == 17 - 2


def test_finish_ranks_by_points_then_resources():
    t = Table(2)
    t.finish_setup()
    give_forest(t, 0, forest("count 3 size 2"))
    give_forest(t, 1, forest("count 2 large 2"))
    t.set_houses(0, [house("only brown")])
    t.set_houses(1, [house("none white")])
    build_family(t, 0, 0, "Lw Sw")
    build_family(t, 1, 0, "Lw Sw")
    assert t.problems() == []
    scores, ranks = np.zeros(2), np.zeros(2, np.int32)
    t.give_tokens(0, 1, 0, 0)
    t.give_tokens(1, 1, 1, 0)
    R.finish(t.params, t.state, scores, ranks)
    assert list(scores) == [1, 1] and list(ranks) == [2, 1]
    t.give_tokens(1, 0, 0, 1)
    R.finish(t.params, t.state, scores, ranks)
    assert list(ranks) == [1, 1]
    build_family(t, 0, 0, "Sb Sb")  # 4 rabbits: 2 points beat any number of tokens
    R.finish(t.params, t.state, scores, ranks)
    assert list(scores) == [2, 1] and list(ranks) == [1, 2]


def test_item_events_at_the_end_of_a_game():
    from simkit import simulate

    res = simulate("dolina-krolikow", 2, 40, seed=2, strategies="heuristic,random", workers=1)
    items = res.items
    forest = [c for c in items.columns if c.startswith("forest_")]
    kept = items[[c for c in forest if c.endswith(":kept")]].sum(axis=1)
    done = items[[c for c in forest if c.endswith(":completed")]].sum(axis=1)
    failed = items[[c for c in forest if c.endswith(":failed")]].sum(axis=1)
    assert len(forest) == 27
    assert (kept == 1).all() and ((done + failed) == 1).all()
    houses = [c for c in items.columns if c.startswith("house_") and c.endswith(":kept")]
    ends = [c for c in items.columns if c.startswith("house_") and c.endswith(("ted", "led"))]
    assert (items[houses].sum(axis=1) == items[ends].sum(axis=1)).all()
    acquired = items[[c for c in items.columns if c.endswith(":acquired")]].sum(axis=1)
    assert (acquired > 0).any()


# --- check_state itself -------------------------------------------------------------------
def test_check_state_sees_a_lost_token_and_a_doubled_card():
    t = Table(2)
    t.to_picks()
    assert t.problems() == []
    t[S.GARDEN] -= 1
    assert any("carrot" in p for p in t.problems())
    t[S.GARDEN] += 1
    t[S.POS_CARD + 1] = t[S.POS_CARD]
    assert any("rabbit" in p for p in t.problems())


def test_check_state_sees_house_counts_that_do_not_match_the_rabbits():
    t = Table(2)
    t.finish_setup()
    build_family(t, 0, 0, "Lw Sb")
    assert t.problems() == []
    t[S.HOUSE_LARGE] = 3
    assert any("Large" in p or "counts" in p for p in t.problems())


# --- the card lists as data ---------------------------------------------------------------
def test_one_field_override_changes_play_as_the_field_says():
    """--set rabbits.cards.7.colour=brown: card 7 (Small white: *1) is then a brown rabbit,
    so a Family of it and a brown Large completes 'only brown'."""
    seven = card("Small white: *1")
    assert seven + 1 == 7
    for colour, done in (("white", False), ("brown", True)):
        t = Table(2, **{"rabbits.cards.7.colour": colour})
        t.finish_setup()
        t.set_houses(0, [house("only brown")])
        t.house_rabbit(0, 0, card("Large brown: G G"))
        t.house_rabbit(0, 0, seven)
        assert bool(R.house_mission_done(t.params, t.state, 0, 0)) == done


def test_a_cards_needs_changed_in_one_field_changes_which_dice_fit():
    b4 = card("Small brown: B4")
    t = Table(2, **{f"rabbits.cards.{b4 + 1}.needs": "O4"})
    t.to_picks()
    t.put(0, b4)
    t.roll(face(ORANGE, 4), face(BLUE, 3), face(BLUE, 4))
    t.give_tokens(0, 0, 0, 0)
    legal = t.moves()
    assert t.place_move(0, 0, face(ORANGE, 4)) in legal
    assert t.place_move(2, 0, face(BLUE, 4)) not in legal


def test_a_card_added_as_a_row_is_dealt_and_gets_its_own_item_columns():
    import simkit

    rows = [dict(c) for _, c in rabbit_cards(VALUES)] + [
        {"size": "large", "colour": "spotted", "needs": "SP / O6 B6"}]
    res = simkit.simulate("dolina-krolikow", 2, 40, seed=2, overrides={"rabbits.cards": rows},
                          workers=1)
    assert res.meta["params"]["rabbits.cards.52.needs"]["value"] == "SP / O6 B6"
    assert "rabbit_52_large_spotted:acquired" in res.items.columns
    assert len(res.games) == 40
    with pytest.raises(SimkitError, match=r"rabbits\.cards\.52\.needs: bad marking 'X9'"):
        params_for(2, **{"rabbits.cards": rows[:-1] + [{**rows[-1], "needs": "SP / X9 B6"}]})
