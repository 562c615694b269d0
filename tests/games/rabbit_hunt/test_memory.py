"""What a seat remembers (NOTES.md: What a seat remembers), on hand-built tables.

The first tests need no knowledge of the memory's layout: two worlds that differ only in
what one seat saw must give that seat different observations (it can tell them apart, so
its observation must), and worlds it cannot tell apart must give it equal ones."""

import numpy as np
import pytest
from rh_table import E, Table

from simkit.games.rabbit_hunt import memory as M
from simkit.games.rabbit_hunt import state as S
from simkit.games.rabbit_hunt.transcript import describe_move


def tells_apart(a, b, seat):
    return not np.array_equal(a.observe(seat), b.observe(seat))


# ------------------------------------------------------------------ two worlds each
def look_then_put_back(world):
    """P1 looks at P2, who puts an empty card back and draws again. World 0: P2 held its
    three bunnies; world 1: two, the third lying on a card P2 laid earlier (in world 0 that
    card is a peek). Everything public is the same."""
    t = Table(3)
    t.strip_ring()
    laid = t.cell(2, -1)
    if world == 0:
        t.set_hand(1, {S.EMPTY: 2, S.DRAW_2: 1})
        t.lay(laid, S.PEEK, seen=2, placer=1)
    else:
        t.set_hand(1, {S.EMPTY: 3, S.DRAW_2: 1})
        t.lay(laid, S.BUNNY + 1, seen=2, placer=1)
    t.set_pile([S.CARROT_1] * 10 + [S.TURN_ENDS, S.MOVE_ANY])
    t.to_actions(0)
    t.set_carrots(0, 3)
    t.apply(E(S.M_LOOK, 1))
    t.apply(E(S.M_RETURN, S.EMPTY))
    t.apply(E(S.M_DONE, 0))
    return t


def test_the_looker_still_knows_the_bunnies_after_a_put_back_and_redraw():
    a, b = look_then_put_back(0), look_then_put_back(1)
    assert a.hand(1, S.BUNNY) == 3 and b.hand(1, S.BUNNY) == 2
    assert tells_apart(a, b, 0)  # P1 saw three bunnies, and none can have gone back
    assert not tells_apart(a, b, 2)  # P3 saw nothing


def show_then_place(world):
    """P1 turns up "show your hand" (everyone sees it), then lays an empty card. World 0:
    P1 showed an empty and a draw-1 card, world 1 two empty cards."""
    t = Table(3)
    t.strip_ring()
    show = t.cell(1, 0)
    t.lay(show, S.SHOW)
    t.set_hand(0, {S.EMPTY: 1, S.DRAW_1: 1} if world == 0 else {S.EMPTY: 2})
    t.to_actions(0)
    t.set_carrots(0, 1)
    t.apply(E(S.M_MOVE, show))
    t[S.PHASE] = S.PH_PLACE
    t.apply(E(S.M_PLACE, S.EMPTY * 256 + t.cell(2, -1)))
    return t


def test_a_shown_hand_is_remembered_after_a_placement():
    a, b = show_then_place(0), show_then_place(1)
    # the card laid is one of the five shown: P2 knows the hand and that card hold them all
    assert tells_apart(a, b, 1) and tells_apart(a, b, 2)


def look_then_draw(world):
    """P1 looks at P2 (who puts nothing back); later P2 draws a card."""
    t = Table(3)
    t.set_hand(1, {S.EMPTY: 1, S.DRAW_1: 1} if world == 0 else {S.EMPTY: 2})
    t.set_pile([S.CARROT_1] * 10 + [S.PEEK])
    t.to_actions(0)
    t.set_carrots(0, 3)
    t.apply(E(S.M_LOOK, 1))
    t.apply(E(S.M_DONE, 0))
    t.to_actions(1)
    t.apply(E(S.M_DRAW, 0))
    return t


def test_cards_seen_in_a_hand_stay_known_when_it_draws():
    a, b = look_then_draw(0), look_then_draw(1)
    assert tells_apart(a, b, 0)
    assert not tells_apart(a, b, 2)


def look_then_lay_a_known_card(world):
    """P1 looks at P2 and sees only bunnies (world 0) or two bunnies and an empty card (world
    1, whose third bunny P2 laid earlier where world 0 has an empty card); then P2 lays a
    bunny. In world 0, P1 knows that card is a bunny."""
    t = Table(3)
    t.strip_ring()
    earlier = t.cell(2, -1)
    if world == 0:
        t.set_hand(1, {})
        t.lay(earlier, S.EMPTY, seen=2, placer=1)
    else:
        t.set_hand(1, {S.EMPTY: 1})
        t.lay(earlier, S.BUNNY + 1, seen=2, placer=1)
    t.set_pile([S.CARROT_1] * 10)
    t.to_actions(0)
    t.set_carrots(0, 3)
    t.apply(E(S.M_LOOK, 1))
    t.apply(E(S.M_DONE, 0))
    t[S.TURN_SEAT] = t[S.TO_MOVE] = 1
    t[S.PHASE] = S.PH_PLACE
    t.apply(E(S.M_PLACE, S.BUNNY * 256 + t.cell(2, 0)))
    return t


def test_a_card_laid_from_a_hand_of_one_kind_is_known():
    a, b = look_then_lay_a_known_card(0), look_then_lay_a_known_card(1)
    assert tells_apart(a, b, 0)
    assert not tells_apart(a, b, 2)


@pytest.mark.parametrize("build", [look_then_put_back, show_then_place, look_then_draw,
                                   look_then_lay_a_known_card])
def test_the_two_worlds_agree_on_everything_public(build):
    """The pairs above are fair: a seat that saw nothing cannot tell them apart before the
    seen event either (same pile, hands of the same size, same cards laid by the same seats).
    """
    a, b = build(0), build(1)
    for seat in range(3):
        assert a.hand_total(seat) == b.hand_total(seat)
    assert a.pile() == b.pile() and a[S.REMOVED] == b[S.REMOVED]
    for c in range(a.n_cells):
        assert a.placer(c) == b.placer(c) and a.up(c) == b.up(c) and a.seen(c) == b.seen(c)


# ------------------------------------------------------------------ each case, in detail
HIDDEN = -2


def certain(t, viewer, owner):
    """({kind: cards viewer knows are in owner's hand}, how many of them it does not know)."""
    out = np.zeros(S.N_KINDS, np.int32)
    unknown = M.hand_certain(t.p, t.observe(viewer), viewer, owner, out)
    return {k: int(x) for k, x in enumerate(out) if x}, int(unknown)


def bunny_range(t, viewer, owner):
    return tuple(int(x) for x in M.bunnies_in_hand(t.p, t.observe(viewer), viewer, owner))


def hand_row(t, viewer, owner):
    return t.observe(viewer)[S.HAND + owner * S.N_KINDS:S.HAND + (owner + 1) * S.N_KINDS]


def looked_at_table(pile):
    """3 players; P1 (seat 0) has 6 carrots to look at P2, whose hand is 2 empty, a draw-2,
    a peek and its 3 bunnies."""
    t = Table(3)
    t.set_hand(1, {S.EMPTY: 2, S.DRAW_2: 1, S.PEEK: 1})
    t.set_pile(pile)
    t.to_actions(0)
    t.set_carrots(0, 6)
    return t


def test_a_look_shows_the_whole_hand_to_the_looker_only():
    t = looked_at_table([S.CARROT_1] * 10)
    t.apply(E(S.M_LOOK, 1))
    assert (hand_row(t, 0, 1) == t.hand(1)).all()
    assert certain(t, 0, 1) == (t.hand_kinds(1), 0)
    assert (hand_row(t, 2, 1) == HIDDEN).all()
    assert certain(t, 2, 1) == ({S.BUNNY: 3}, 4)  # P3 knows the bunnies, handed out openly


def test_put_back_and_redraw_what_the_looker_the_returner_and_the_others_know():
    t = looked_at_table([S.CARROT_1] * 10 + [S.TURN_ENDS, S.SHOW])
    seen = t.hand_kinds(1)
    t.apply(E(S.M_LOOK, 1))
    t.apply(E(S.M_RETURN, S.DRAW_2))
    t.apply(E(S.M_RETURN, S.EMPTY))
    t.apply(E(S.M_DONE, 0))
    # P1: the hand and the two cards under the pile hold the seven it saw, plus the two
    # drawn. Bunnies never go under the pile: all three are certain; of the farmland cards
    # none is (each could be among the two put back).
    g = t.group(0, 1)
    assert (g.places, g.unknown, g.known) == (2, 2, seen)
    assert certain(t, 0, 1) == ({S.BUNNY: 3}, 4)
    assert bunny_range(t, 0, 1) == (3, 3)
    # P3 saw nothing but the two cards going under the pile
    g = t.group(2, 1)
    assert (g.places, g.unknown, g.known) == (2, 6, {S.BUNNY: 3})
    assert certain(t, 2, 1) == ({S.BUNNY: 3}, 4)
    # P2 knows the two cards under the pile; nobody else sees the pile
    assert t.observe(1)[S.PILE:S.PILE + 3].tolist() == [S.EMPTY, S.DRAW_2, HIDDEN]
    for viewer in (0, 2):
        assert (t.observe(viewer)[S.PILE:S.PILE + S.DECK_MAX] == HIDDEN).all()
    # the pile runs down to those two; P1 draws the draw-2 P2 put back
    for _ in range(5):
        t.to_actions(0)
        t.apply(E(S.M_DRAW, 0))
        t.apply(E(S.M_DRAW, 0))
    assert t.pile() == [S.EMPTY, S.DRAW_2]
    p1_knew = certain(t, 1, 0)[0].get(S.DRAW_2, 0)
    t.to_actions(0)
    t.apply(E(S.M_DRAW, 0))
    assert certain(t, 1, 0)[0].get(S.DRAW_2, 0) == p1_knew + 1  # P2 knows P1 drew it
    g = t.group(0, 1)  # P1 now sees one of the two cards and takes it out of the group
    assert (g.places, g.unknown) == (1, 2)
    assert g.known == {k: v for k, v in seen.items() if k != S.DRAW_2}
    # P3 cannot follow a card of P2's group into P1's hand: it keeps P2's bunnies
    g = t.group(2, 1)
    assert (g.places, g.known) == (1, {S.BUNNY: 3})
    assert certain(t, 2, 1) == ({S.BUNNY: 3}, 4)
    # P3 draws the last one: P2 knows it is an empty card
    t.to_actions(2)
    t.apply(E(S.M_DRAW, 0))
    assert t[S.END] == S.PILE_EMPTY
    assert certain(t, 1, 2)[0].get(S.EMPTY, 0) >= 1


def test_cards_seen_stay_known_when_the_hand_draws():
    t = looked_at_table([S.CARROT_1] * 10)
    seen = t.hand_kinds(1)
    t.apply(E(S.M_LOOK, 1))
    t.apply(E(S.M_DONE, 0))
    t.to_actions(1)
    t.apply(E(S.M_DRAW, 0))
    t.apply(E(S.M_DRAW, 0))
    assert (hand_row(t, 0, 1) == HIDDEN).all()  # not card for card any more
    assert certain(t, 0, 1) == (seen, 2)  # but all it saw, and two it did not


def shown_table(n=3, hand=None):
    """P1 (seat 0) turns up "show your hand" on (1,0): every other seat sees its hand."""
    t = Table(n)
    t.strip_ring()
    show = t.cell(1, 0)
    t.lay(show, S.SHOW)
    if hand is not None:
        t.set_hand(0, hand)
    t.to_actions(0)
    t.set_carrots(0, 4)
    t.apply(E(S.M_MOVE, show))
    return t


def test_a_card_laid_from_a_shown_hand_then_turned_up():
    t = shown_table(hand={S.EMPTY: 1, S.CARROT_2: 1})
    shown = t.hand_kinds(0)
    laid = t.cell(2, -1)
    t[S.PHASE] = S.PH_PLACE
    t.apply(E(S.M_PLACE, S.CARROT_2 * 256 + laid))
    for viewer in (1, 2):
        g = t.group(viewer, 0)
        assert (g.places, g.unknown, g.known) == (1, 0, shown)
        assert t.tagged(viewer, 0) == [laid]
        # one card of the five is on the farmland: of each kind, one fewer is certain
        assert certain(t, viewer, 0) == ({S.BUNNY: 2}, 2)
        assert bunny_range(t, viewer, 0) == (2, 3)
    # P2 turns the card up: the hand is known card for card again
    t.to_actions(1)
    t.set_carrots(1, 3)
    t.apply(E(S.M_MOVE, laid))
    for viewer in (1, 2):
        assert (hand_row(t, viewer, 0) == t.hand(0)).all()
        assert certain(t, viewer, 0) == (t.hand_kinds(0), 0)


def test_a_card_laid_from_a_hand_of_bunnies_only_is_a_bunny():
    """P1 looks at P2's three cards: three bunnies. For P3 one of them might be the card P2
    laid earlier; for P1, the card P2 lays next is a bunny."""
    t = looked_at_table([S.CARROT_1] * 10)
    t.set_hand(1, {})
    t.lay(t.cell(1, 1), S.EMPTY, seen=2, placer=1)
    t.apply(E(S.M_LOOK, 1))
    t.apply(E(S.M_DONE, 0))
    t[S.TURN_SEAT] = t[S.TO_MOVE] = 1
    t[S.PHASE] = S.PH_PLACE
    laid = t.placeable()[0]
    t.apply(E(S.M_PLACE, S.BUNNY * 256 + laid))
    assert M.cell_certain(t.p, t.observe(0), 0, laid) == S.BUNNY + 1
    assert (hand_row(t, 0, 1) == t.hand(1)).all()  # two bunnies, nothing else
    assert M.cell_certain(t.p, t.observe(2), 2, laid) == HIDDEN
    assert t.observe(0)[S.CELLS + laid] == HIDDEN  # deduced, not seen: SEEN is unchanged


def test_a_show_tells_how_many_bunnies_lie_among_the_cards_laid_before():
    t = Table(3)
    t.strip_ring()
    laid = [t.cell(2, -1), t.cell(2, 0), t.cell(-2, 1)]
    t.lay(laid[0], S.BUNNY + 1, seen=2, placer=1)
    t.lay(laid[1], S.EMPTY, seen=2, placer=1)
    t.lay(laid[2], S.PEEK, seen=2, placer=1)
    show = t.cell(1, 0)
    t.lay(show, S.SHOW)
    t.to_actions(1)
    t.set_carrots(1, 1)
    t.apply(E(S.M_MOVE, show))
    for viewer in (0, 2):
        assert certain(t, viewer, 1) == (t.hand_kinds(1), 0)
        [(g, cells)] = t.cut_off(viewer, 1).values()
        assert sorted(cells) == sorted(laid)
        assert (g.places, g.unknown, g.known) == (3, 2, {S.BUNNY: 1})
    # P1 catches that bunny: the other two cards hold nothing P1 or P3 knows of any more
    t.to_actions(0)
    t.set_carrots(0, 3)
    t.apply(E(S.M_MOVE, laid[0]))
    assert t[S.CAUGHT + 0] == 1
    for viewer in (0, 2):
        assert t.cut_off(viewer, 1) == {}
        assert all(t.tags(c) == 0 for c in laid)


def test_an_emptied_hand_holds_no_bunny_whatever_it_draws():
    t = Table(2)
    t.set_hand(1, {S.EMPTY: 1})
    for c in [t.cell(1, 1), t.cell(2, -1), t.cell(-1, 2), t.cell(-2, 1)]:
        t[S.TURN_SEAT] = t[S.TO_MOVE] = 1
        t[S.PHASE] = S.PH_PLACE
        kind = S.BUNNY if t.hand(1, S.BUNNY) else S.EMPTY
        t.apply(E(S.M_PLACE, kind * 256 + c))
    assert t.hand_total(1) == 0
    [(g, cells)] = t.cut_off(0, 1).values()
    assert (g.places, g.unknown, g.known) == (4, 1, {S.BUNNY: 3})
    t.to_actions(1)
    t.apply(E(S.M_DRAW, 0))
    t.apply(E(S.M_DRAW, 0))
    assert bunny_range(t, 0, 1) == (0, 0)
    assert certain(t, 0, 1) == ({}, 2)


def test_a_hand_that_shrank_holds_no_more_bunnies_than_it_then_held():
    t = Table(2)
    t.set_hand(1, {S.EMPTY: 2})
    for c in [t.cell(1, 1), t.cell(2, -1), t.cell(-1, 2), t.cell(-2, 1)]:
        t[S.TURN_SEAT] = t[S.TO_MOVE] = 1
        t[S.PHASE] = S.PH_PLACE
        t.apply(E(S.M_PLACE, (S.EMPTY if t.hand(1, S.EMPTY) else S.BUNNY) * 256 + c))
    assert t.hand_kinds(1) == {S.BUNNY: 1}
    t.to_actions(1)
    t.apply(E(S.M_DRAW, 0))
    t.apply(E(S.M_DRAW, 0))
    # three bunnies among the hand and the four cards, but the hand was down to one card
    assert t.group(0, 1).known == {S.BUNNY: 3} and t.group(0, 1).cap == 1
    assert bunny_range(t, 0, 1) == (0, 1)


def test_a_peek_takes_the_card_out_of_the_peekers_group_only():
    t = Table(3)
    t.strip_ring()
    x = t.cell(2, -1)
    t.lay(x, S.BUNNY + 1, seen=2, placer=1)
    peek = t.cell(1, 0)
    t.lay(peek, S.PEEK)
    assert t.tagged(0, 1) == [x] and t.tagged(2, 1) == [x]
    t.to_actions(0)
    t.set_carrots(0, 1)
    t.apply(E(S.M_MOVE, peek))
    t.apply(E(S.M_PEEK, x))
    assert t.observe(0)[S.CELLS + x] == S.BUNNY + 1
    assert t.tagged(0, 1) == [] and t.group(0, 1).known == {S.BUNNY: 2}
    assert t.tagged(2, 1) == [x] and t.group(2, 1).known == {S.BUNNY: 3}


def test_an_own_bunny_swapped_goes_back_into_the_hand_as_a_known_card():
    t = Table(2)
    t.strip_ring()
    c = t.cell(-1, 2)
    t.lay(c, S.BUNNY + 0, seen=1, placer=0)
    t.set_hand(0, {S.PEEK: 1, S.TURN_ENDS: 1})
    before = t.group(1, 0)
    assert t.tagged(1, 0) == [c]
    t.to_actions(0)
    t.set_carrots(0, 3)
    t.apply(E(S.M_MOVE, c))
    assert t.tagged(1, 0) == [] and t.group(1, 0).known == {S.BUNNY: 2}  # shown to all
    t.apply(E(S.M_SWAP, S.TURN_ENDS))
    g = t.group(1, 0)  # the bunny is back in the hand, an unknown card of the hand on c
    assert t.tagged(1, 0) == [c]
    assert (g.places, g.unknown, g.known) == (before.places, before.unknown, before.known)


def test_an_own_bunny_put_back_with_an_empty_hand_is_known_to_all():
    t = Table(2)
    t.strip_ring()
    cells = [t.cell(1, 1), t.cell(2, -1), t.cell(-1, 2), t.cell(-2, 1)]
    for c in cells[:3]:
        t.lay(c, S.BUNNY + 0, seen=1, placer=0)
    t.lay(cells[3], S.EMPTY, seen=1, placer=0)
    t.set_hand(0, {})
    t.to_actions(0)
    t.set_carrots(0, 3)
    t.apply(E(S.M_MOVE, cells[0]))
    assert t.card(cells[0]) == S.BUNNY + 0 and t.observe(1)[S.CELLS + cells[0]] == S.BUNNY + 0
    assert M.tag_of(t.tags(cells[0]), 1) == 0
    # the other three hold P1's two other bunnies and one card P2 knows nothing of
    [(g, tagged)] = t.cut_off(1, 0).values()
    assert sorted(tagged) == sorted(cells[1:])
    assert (g.places, g.unknown, g.known) == (3, 1, {S.BUNNY: 2})


def test_elimination_the_hand_goes_into_the_pile_and_is_known_empty():
    t = Table(3)
    t.strip_ring()
    t.lose_bunnies(1, 0, 2)
    c = t.cell(1, 0)
    t.lay(c, S.BUNNY + 1, seen=2, placer=1)
    t.set_hand(1, {S.PEEK: 2})
    other = t.cell(2, -1)
    t.lay(other, S.EMPTY, seen=2, placer=1)
    t.to_actions(0)
    t.set_carrots(0, 6)
    t.apply(E(S.M_LOOK, 1))
    t.apply(E(S.M_RETURN, S.PEEK))  # one peek goes under the pile
    t.apply(E(S.M_DONE, 0))
    t.to_actions(0)
    t.apply(E(S.M_MOVE, c))
    assert t[S.ELIMINATED + 1] == 1
    assert not t.st[S.PILE_TAGS:S.PILE_TAGS + S.DECK_MAX].any()  # shuffled: forgotten
    for viewer in (0, 2):
        assert (hand_row(t, viewer, 1) == 0).all()
        assert t.cut_off(viewer, 1) == {}  # no bunny left to look for among P2's cards
        assert t.tags(other) == 0


def test_four_players_partners_know_no_more_of_each_other():
    t = Table(4)
    t.strip_ring()
    x = t.cell(2, -1)
    t.lay(x, S.BUNNY + 2, seen=4, placer=2)  # P3, P1's partner
    t.to_actions(0)
    t.set_carrots(0, 6)
    # P3 knows P1's hand no better than P2 or P4 do
    for viewer in (1, 2, 3):
        assert (hand_row(t, viewer, 0) == HIDDEN).all()
        assert certain(t, viewer, 0) == ({S.BUNNY: 3}, 5)
    t.apply(E(S.M_LOOK, 2))  # looking at one's partner is a look like any other
    t.apply(E(S.M_DONE, 0))
    assert (hand_row(t, 0, 2) == t.hand(2)).all()
    assert (hand_row(t, 1, 2) == HIDDEN).all() and (hand_row(t, 3, 2) == HIDDEN).all()
    # the partner's bunny turned up is shown and put back: everyone knows where it is
    t.apply(E(S.M_MOVE, x))
    assert t.card(x) == S.BUNNY + 2
    for viewer in range(4):
        assert t.observe(viewer)[S.CELLS + x] == S.BUNNY + 2
        assert M.tag_of(t.tags(x), viewer) == 0


def test_a_card_put_back_that_fills_a_caught_bunnys_place_is_known_to_its_returner():
    t = Table(3)
    t.strip_ring()
    c = t.cell(1, 0)
    t.lay(c, S.BUNNY + 2, seen=4, placer=2)
    t.set_hand(1, {S.EMPTY: 2, S.DRAW_2: 1, S.PEEK: 1})
    t.set_pile([S.TURN_ENDS])
    t.to_actions(0)
    t.set_carrots(0, 6)
    t.apply(E(S.M_LOOK, 1))
    t.apply(E(S.M_RETURN, S.PEEK))
    t.apply(E(S.M_DONE, 0))  # P2 draws the turn-ends card: the pile is the peek alone
    assert t.pile() == [S.PEEK]
    t.apply(E(S.M_MOVE, c))  # P1 catches P3's bunny; the peek fills its place
    assert t.card(c) == S.PEEK and t.seen(c) == 1 << 1
    assert t.observe(1)[S.CELLS + c] == S.PEEK
    assert t.observe(0)[S.CELLS + c] == HIDDEN and t.observe(2)[S.CELLS + c] == HIDDEN
    assert t.tagged(0, 1) == [c] and t.tagged(2, 1) == [c]  # one of P2's cards, for them


def test_more_groups_than_rows_are_merged_keeping_the_bunnies():
    """Every show after a placement cuts the card laid off as a group of its own (of one
    card, known); past N_SPLIT rows two are merged to make room for the new one."""
    t = Table(2)
    t.strip_ring()
    t.set_hand(1, {S.EMPTY: 8, S.PEEK: 8})
    for i in range(S.N_SPLIT + 3):
        t[S.TURN_SEAT] = t[S.TO_MOVE] = 1
        t[S.PHASE] = S.PH_PLACE
        kind = S.BUNNY if i in (0, 5) else S.EMPTY if i % 2 else S.PEEK
        cell, show = t.placeable()[:2]
        t.apply(E(S.M_PLACE, kind * 256 + cell))
        t.lay(show, S.SHOW)
        t.to_actions(1)
        t.set_carrots(1, 3)
        t.apply(E(S.M_MOVE, show))
        t.check()
    groups = t.cut_off(0, 1)
    assert len(groups) == S.N_SPLIT
    assert sum(g.known.get(S.BUNNY, 0) for g, _ in groups.values()) == 2
    assert sum(len(cells) for _, cells in groups.values()) == S.N_SPLIT + 3
    # the newest cards laid are still known one by one
    assert M.cell_certain(t.p, t.observe(0), 0, cell) == kind


def test_the_replay_tells_who_knows_a_card_from_under_the_pile():
    t = looked_at_table([S.CARROT_1, S.CARROT_1])
    t.apply(E(S.M_LOOK, 1))
    t.apply(E(S.M_RETURN, S.EMPTY))
    t.apply(E(S.M_DONE, 0))
    t.to_actions(0)
    t.apply(E(S.M_DRAW, 0))
    before, move = t.st.copy(), E(S.M_DRAW, 0)
    t.apply(move)
    assert "P1 draws 1x empty [seen by P1; P2 put it back]" in " ".join(
        describe_move(t.params, 3, before, move, t.st))
    # a card put back that fills a caught bunny's place
    t = Table(3)
    t.strip_ring()
    c = t.cell(1, 0)
    t.lay(c, S.BUNNY + 2, seen=4, placer=2)
    t.set_pile([S.TURN_ENDS])
    t.to_actions(0)
    t.set_carrots(0, 6)
    t.apply(E(S.M_LOOK, 1))
    t.apply(E(S.M_RETURN, t.legal()[0] & 0xFFFF))
    t.apply(E(S.M_DONE, 0))
    before, move = t.st.copy(), E(S.M_MOVE, c)
    t.apply(move)
    assert "filled from the pile face down [seen by P2]" in " ".join(
        describe_move(t.params, 3, before, move, t.st))
