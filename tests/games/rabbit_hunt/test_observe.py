"""What each seat may know (NOTES.md: Hidden information) and that the conservation check
used by every scenario does catch a broken state."""

import numpy as np
from rh_table import E, Table

from simkit.games.rabbit_hunt import memory as M
from simkit.games.rabbit_hunt import state as S
from simkit.games.rabbit_hunt.transcript import check_state

HIDDEN = -2


def hand_seen(t, viewer, seat):
    return t.observe(viewer)[S.HAND + seat * S.N_KINDS:S.HAND + (seat + 1) * S.N_KINDS]


def test_fresh_game_observation():
    t = Table(3)
    for viewer in range(3):
        obs = t.observe(viewer)
        for c in t.ring():
            assert obs[S.CELLS + c] == HIDDEN
        assert obs[S.CELLS + t.center] == S.WAREHOUSE
        assert (obs[S.PILE:S.PILE + 75] == HIDDEN).all()
        assert obs[S.PILE_LEN] == t[S.PILE_LEN]  # how many is public
        for seat in range(3):
            if seat == viewer:
                assert (hand_seen(t, viewer, seat) == t.hand(seat)).all()
            else:
                assert (hand_seen(t, viewer, seat) == HIDDEN).all()
        # of the memory, the viewer keeps its own groups; the others' read HIDDEN
        own = slice(M.group_at(viewer, 0), M.group_at(viewer + 1, 0))
        assert (obs[own] == t.st[own]).all()
        groups = slice(S.GROUPS, S.CELLS)
        assert (np.delete(obs[groups], np.arange(own.start, own.stop) - S.GROUPS)
                == HIDDEN).all()
        # everything else is public and untouched (no card is tagged yet)
        mask = np.ones(len(t.st), bool)
        mask[S.PILE:S.PILE + 75] = False
        mask[S.HAND:S.HAND + 4 * S.N_KINDS] = False
        mask[S.CELLS:S.CELLS + t.n_cells] = False
        mask[groups] = False
        assert (obs[mask] == t.st[mask]).all()


def test_own_placement_visible_to_its_placer_only():
    t = Table(3)
    c = t.cell(1, 1)
    t.apply(E(S.M_PLACE, S.BUNNY * 256 + c))
    assert t.observe(0)[S.CELLS + c] == S.BUNNY + 0
    assert t.observe(1)[S.CELLS + c] == HIDDEN and t.observe(2)[S.CELLS + c] == HIDDEN
    # who placed it is public
    assert t.observe(1)[S.CELLS + 3 * t.n_cells + c] == 0


def test_face_up_cards_are_seen_by_all():
    t = Table(2)
    t.to_actions(0)
    c = t.ring()[0]
    kind = t.card(c)
    t.apply(E(S.M_MOVE, c))
    for viewer in range(2):
        assert t.observe(viewer)[S.CELLS + c] == kind


def test_peeked_card_visible_to_the_peeker_only():
    t = Table(3)
    t.strip_ring()
    c = t.cell(1, 0)
    t.lay(c, S.PEEK)
    target = t.cell(-1, 0)
    t.lay(target, S.DRAW_2)
    t.to_actions(0)
    t.apply(E(S.M_MOVE, c))
    t.apply(E(S.M_PEEK, target))
    assert t.observe(0)[S.CELLS + target] == S.DRAW_2
    assert t.observe(1)[S.CELLS + target] == HIDDEN
    assert t.observe(2)[S.CELLS + target] == HIDDEN


def test_shown_hand_visible_until_it_changes():
    t = Table(3)
    t.strip_ring()
    c = t.cell(1, 0)
    t.lay(c, S.SHOW)
    t.to_actions(0)
    t.apply(E(S.M_MOVE, c))
    for viewer in (1, 2):
        assert (hand_seen(t, viewer, 0) == t.hand(0)).all()
    t.apply(E(S.M_DRAW, 0))  # the hand changes: nobody knows it any more
    for viewer in (1, 2):
        assert (hand_seen(t, viewer, 0) == HIDDEN).all()
    assert (hand_seen(t, 0, 0) == t.hand(0)).all()


def test_a_placement_hides_a_shown_hand_again_but_not_from_memory():
    t = Table(2)
    t.strip_ring()
    c = t.cell(1, 0)
    t.lay(c, S.SHOW)
    t.to_actions(0)
    t.set_carrots(0, 1)
    t.apply(E(S.M_MOVE, c))
    shown = t.hand_kinds(0)
    assert (hand_seen(t, 1, 0) == t.hand(0)).all()
    t[S.PHASE] = S.PH_PLACE
    t.apply(t.legal()[0])
    assert (hand_seen(t, 1, 0) == HIDDEN).all()  # no longer known card for card...
    g = t.group(1, 0)  # ...but the hand and the card laid hold them
    assert (g.places, g.unknown, g.known) == (1, 0, shown)


def test_caught_bunnys_replacement_is_hidden_from_all():
    t = Table(2)
    t.strip_ring()
    c = t.cell(1, 0)
    t.lay(c, S.BUNNY + 1, seen=2, placer=1)
    t.to_actions(0)
    t.apply(E(S.M_MOVE, c))
    assert t[S.CAUGHT + 0] == 1
    assert t.observe(0)[S.CELLS + c] == HIDDEN and t.observe(1)[S.CELLS + c] == HIDDEN


def test_check_state_catches_broken_states():
    t = Table(2)
    assert check_state(t.params, 2, t.st) == []
    broken = t.st.copy()
    broken[S.HAND + S.EMPTY] += 1
    assert check_state(t.params, 2, broken)
    broken = t.st.copy()
    broken[S.HAND + S.BUNNY] -= 1
    assert check_state(t.params, 2, broken)
    broken = t.st.copy()
    broken[S.CARROTS] += 1
    assert check_state(t.params, 2, broken)
    broken = t.st.copy()
    broken[S.CAUGHT] += 1
    assert check_state(t.params, 2, broken)
