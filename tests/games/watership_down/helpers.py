"""Hand-built Watership Down positions for the scenario tests."""

import numpy as np

from simkit import registry
from simkit.data import records, values
from simkit.games.watership_down import rules
from simkit.games.watership_down.state import (  # noqa: F401
    CHAR_NAMES,
    DECIDER,
    HAND,
    IN_PLAY,
    LOC,
    M_CARD,
    N_CARDS,
    N_CHARS,
    P_MOVE,
    PHASE,
    S_WAIT,
    SIDE,
    STAT,
    STATE_SIZE,
    STEP,
)

SPEC = registry.get_game("watership-down")


# The scenario tests are written on the diamond-7 board: its geometry is in their assertions
# (the rules themselves do not depend on the layout). Tests of other boards say so.
LAYOUT = "diamond-7"


def params(**overrides):
    vals = values(SPEC.data)
    vals["board.layout"] = LAYOUT
    vals.update(overrides)
    return SPEC.compile(vals, 2)


P = params()
C = {n.lower(): i for i, n in enumerate(CHAR_NAMES)}
S = {n: i for i, (n, _) in enumerate(records(values(SPEC.data), f"board.{LAYOUT}.spaces"))}
# short names for spaces (diamond-7)
SAND, ENBORNE, NEWTOWN, ECCH, HEATHER, ROAD = 0, 1, 2, 3, 4, 5
COWSLIP, BEECH, HONEY, NUTHANGER = 6, 7, 8, 9
BELT, HAWTHORN, TEST_WOODS, NEAR_HIND, RIVER, EFRAFA = 10, 11, 12, 13, 14, 15


def chance(seed=1):
    return np.array([seed], np.uint64)


def position(side, params=P, **where):
    """A state in the P_MOVE phase for ``side`` with the named characters on the named
    spaces (space index); every other character is off the board (pending)."""
    st = np.empty(STATE_SIZE, np.int32)
    rules.new_game(params, 2, st, chance())
    for name, s in where.items():
        c = C[name]
        st[LOC + c] = s
        st[STAT + c] = IN_PLAY
    st[SIDE] = side
    st[DECIDER] = side
    st[PHASE] = P_MOVE
    st[STEP] = S_WAIT
    rules.recount(st)
    return st


def legal(st, params=P):
    moves = np.empty(rules.MAX_MOVES, np.int32)
    n = rules.legal_moves(params, st, moves)
    return moves[:n].tolist()


def items_zero():
    return np.zeros((2, len(rules.ITEM_COLUMNS)), np.int32)


def play(st, move, params=P, ch=None, items=None):
    assert move in legal(st, params), f"{move} not legal in phase {st[PHASE]}: {legal(st)}"
    rules.apply_move(params, st, move, chance() if ch is None else ch,
                     items_zero() if items is None else items)
    return st


def mv(name, space):
    return C[name] * 16 + space


def card(k):
    return M_CARD + k


def hand(st, side, cards):
    for k in range(N_CARDS):
        st[HAND + side * N_CARDS + k] = 1 if k in cards else 0


def where(st, name):
    return int(st[LOC + C[name]])


def status(st, name):
    return int(st[STAT + C[name]])


def col(name):
    return rules.ITEM_COLUMNS.index(name)


