"""The layout of the game's parameters: one flat int32 array (``params = (P,)``).

The kernels read every table from one array because a call that hands a kernel a tuple of
many arrays costs a reference count per array (measured: ~340 ns for twelve arrays against
~33 ns for one), and the game's loop makes dozens of such calls per decision. Sections have
fixed capacities (see ``state.py``), so their offsets are constants:

    [0 .. 32)        cfg: the C_* numbers of rules.py
    O_CARDS          cards[64][2]       size (0 Small, 1 Large), colour (0 white 1 brown 2 spotted)
    O_FIT1           fit1[64][18]       1 if a first die of face f starts (Small: completes) it
    O_FIT2           fit2[64][18][18]   1 if two dice of faces f1, f2 complete the Large card
    O_HOUSE          house[24][3]       House mission (kind, a, b)
    O_FOREST         forest[12][5]      Forest mission (quantifier, k, kind, a, b)
    O_CLASH          clash[12][24]      1 if the Forest and House cards clash (setup redeal)
    O_TABLE          table[9]           colour table: bitmask allowed after colours [c1*3 + c2]
    O_SIZE           size_points[6]     family points by size (index 5: five or more)
    O_REQ            req[64][2][2][3]   the markings (kind, colour, pips), for the transcript
    O_ACCEPT         accept[64][19]     bitmask of faces that fit a card: [0] empty card,
                                        [1 + d1] after a first die of face d1
    O_REACH          reach[18][37][8]   bitmask of faces a die of face f0 can be modified
                                        into with ``total`` tokens (capped at 36) and enough
                                        tokens to recolour into the kinds of bitmask ``rich``
"""

import numpy as np

from .state import MAXC, MAXF, MAXHC

N_CFG_SLOTS = 32
REACH_TOTALS = 37
O_CARDS = N_CFG_SLOTS
O_FIT1 = O_CARDS + 2 * MAXC
O_FIT2 = O_FIT1 + 18 * MAXC
O_HOUSE = O_FIT2 + 18 * 18 * MAXC
O_FOREST = O_HOUSE + 3 * MAXHC
O_CLASH = O_FOREST + 5 * MAXF
O_TABLE = O_CLASH + MAXF * MAXHC
O_SIZE = O_TABLE + 9
O_REQ = O_SIZE + 6
O_ACCEPT = O_REQ + 12 * MAXC
O_REACH = O_ACCEPT + 19 * MAXC
P_SIZE = O_REACH + 18 * REACH_TOTALS * 8

SECTIONS = {  # name: (offset, shape), for Python-side views
    "cfg": (0, (N_CFG_SLOTS,)),
    "cards": (O_CARDS, (MAXC, 2)),
    "fit1": (O_FIT1, (MAXC, 18)),
    "fit2": (O_FIT2, (MAXC, 18 * 18)),
    "house": (O_HOUSE, (MAXHC, 3)),
    "forest": (O_FOREST, (MAXF, 5)),
    "clash": (O_CLASH, (MAXF, MAXHC)),
    "table": (O_TABLE, (9,)),
    "size_points": (O_SIZE, (6,)),
    "req": (O_REQ, (MAXC, 2, 2, 3)),
    "accept": (O_ACCEPT, (MAXC, 19)),
    "reach": (O_REACH, (18, REACH_TOTALS, 8)),
}


def view(params, name: str) -> np.ndarray:
    """A named section of the parameter array as a numpy view of its shape."""
    off, shape = SECTIONS[name]
    return params[0][off:off + int(np.prod(shape))].reshape(shape)


def pack(**sections) -> tuple:
    """Build ``params`` from the sections (each at most its capacity, padded with zeros)."""
    P = np.zeros(P_SIZE, np.int32)
    for name, arr in sections.items():
        off, shape = SECTIONS[name]
        dst = P[off:off + int(np.prod(shape))].reshape(shape)
        arr = np.asarray(arr)
        dst[tuple(slice(0, k) for k in arr.shape)] = arr
    return (P,)
