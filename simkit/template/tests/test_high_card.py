"""High card's tests: simkit's checks (``simkit check high-card`` runs the same), then a
scenario test for each rule on a hand-built state."""

import numpy as np
from high_card import rules
from high_card.state import DECK_N, HAND, LEADER, LED, MAX_HAND, POINTS, TO_MOVE

import simkit.testing
from simkit.runner import RunSpec, plan


def test_high_card_passes_simkit_check():
    simkit.testing.check_game("high-card")


def table(hands):
    """A state with these hands (lists of ranks), the deck empty, seat 1 to lead."""
    p = plan(RunSpec.make("high-card", 2, 1))
    st = np.empty(p.state_size, np.int32)
    rules.new_game(p.compiled, 2, st, np.array([1], np.uint64))
    st[HAND:HAND + 2 * MAX_HAND] = -1
    for s, hand in enumerate(hands):
        st[HAND + s * MAX_HAND:HAND + s * MAX_HAND + len(hand)] = hand
    st[DECK_N] = 0
    return p, st


def play(p, st, *moves):
    items = np.zeros((2, len(p.item_columns)), np.int32)
    for m in moves:
        rules.apply_move(p.compiled, st, m, np.array([1], np.uint64), items)


def test_the_higher_card_wins_the_trick_and_leads_the_next():
    p, st = table([[3, 5], [4, 7]])
    play(p, st, 5, 7)
    assert st[POINTS + 1] == 1 and st[LEADER] == 1 and st[TO_MOVE] == 1 and st[LED] == -1


def test_equal_cards_win_nothing_and_the_leader_leads_again():
    p, st = table([[4], [4]])
    play(p, st, 4, 4)
    assert st[POINTS] == st[POINTS + 1] == 0 and st[LEADER] == 0
    assert rules.is_over(st)
