"""What a seat remembers (NOTES.md: What a seat remembers), on hand-built tables.

The first tests need no knowledge of the memory's layout: two worlds that differ only in
what one seat saw must give that seat different observations (it can tell them apart, so
its observation must), and worlds it cannot tell apart must give it equal ones."""

import numpy as np
import pytest
from rh_table import E, Table

from simkit.games.rabbit_hunt import state as S


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
