"""Watership Down: the hlessil (rabbits, seat 1) against the elil (seat 0)."""

from pathlib import Path

import numpy as np

from simkit.errors import SimkitError
from simkit.game import GameSpec

from . import rules
from .state import (
    CHAR_KEYS,
    D_BACK,
    D_FWD,
    D_SIDE,
    ELIL,
    HLESSIL,
    KIND_NAMES,
    N_CHARS,
    N_JOINERS,
    N_RABBITS,
    N_SPACES,
    O_CARDS,
    O_CH,
    O_JOIN,
    O_NB,
    O_NBM,
    O_SETUP,
    O_SP,
    PARAMS_SIZE,
)
from .transcript import check_state, describe_move, describe_setup

JOIN_ENTER, JOIN_ESCAPE, JOIN_DEFEAT = 0, 1, 2


def _space(names, name, key):
    if name not in names:
        raise SimkitError(f"{key}: unknown space {name!r}; spaces: {', '.join(names)}")
    return names.index(name)


def board_tables(values):
    """Neighbour table int32[2 sides, 3 directions, 16, 2] and space facts int32[16, 3]
    (row, wooded, Watership Down) from the board's rows and columns."""
    names, rows, cols = values["board.spaces"], values["board.rows"], values["board.columns"]
    if not len(names) == len(rows) == len(cols) == N_SPACES:
        raise SimkitError("board.spaces, board.rows and board.columns must list 16 spaces")
    nb = np.full((2, 3, N_SPACES, 2), -1, np.int32)
    for side in (ELIL, HLESSIL):
        ahead = 1 if side == HLESSIL else -1
        for a in range(N_SPACES):
            for b in range(N_SPACES):
                dr, dx = rows[b] - rows[a], abs(cols[b] - cols[a])
                d = (D_FWD if dr == ahead and dx == 1 else D_BACK if dr == -ahead and dx == 1
                     else D_SIDE if dr == 0 and dx == 2 else -1)
                if d < 0:
                    continue
                k = 0 if nb[side, d, a, 0] < 0 else 1
                if k == 1 and nb[side, d, a, 1] >= 0:
                    raise SimkitError(f"board: {names[a]} has more than two {d} neighbours")
                nb[side, d, a, k] = b
    sp = np.zeros((N_SPACES, 3), np.int32)
    sp[:, 0] = rows
    for w in values["board.wooded"]:
        sp[_space(names, w, "board.wooded"), 1] = 1
    for w in values["board.watership_down"]:
        sp[_space(names, w, "board.watership_down"), 2] = 1
    return nb, sp


def compile_params(values: dict, n_players: int) -> tuple:
    """Effective data values -> (table,): one flat int32 table laid out in ``state.py``."""
    names = values["board.spaces"]
    nb, sp = board_tables(values)
    down = [i for i in range(N_SPACES) if sp[i, 2]]
    if len(down) != 2:
        raise SimkitError("board.watership_down must name exactly two spaces")
    sandleford = _space(names, values["board.hlessil_home"], "board.hlessil_home")
    efrafa = _space(names, values["board.elil_home"], "board.elil_home")
    if values["board.home_count"] != 4:
        raise SimkitError("board.home_count: the setup places the rest one per side space; "
                          "only 4 fits nine characters and six spaces a side")
    g = np.array([
        efrafa, sandleford, down[0], down[1], values["board.down_bonus"],
        values["abilities.strawberry_down_strength"], values["abilities.dog_wood_strength"],
        values["abilities.fox_wood_strength"], values["abilities.pipkin_bonus"],
        values["abilities.fiver_with_hazel_strength"], values["abilities.snare_group_strength"],
        values["board.wood_cap"], values["rules.warren_rabbits"],
        values["rules.elil_win_defeated"], values["board.home_count"],
        int(values["cards.refill_when_empty"]), int(values["rules.warren_check_every_turn"]),
        int(sum(1 << i for i in range(N_SPACES) if sp[i, 1])),
        int(values["cards.optional"]), values["cards.gift_bonus"],
        int(values["abilities.blackberry_snare_on_his_space"]),
    ], np.int32)
    ch = np.zeros((N_CHARS, 4), np.int32)
    for c, key in enumerate(CHAR_KEYS):
        side = HLESSIL if c < N_RABBITS else ELIL
        base = f"hlessil.{key}" if side == HLESSIL else f"elil.{key}"
        ch[c, 0] = values[f"{base}.strength"]
        ch[c, 1] = side
        ch[c, 2] = int(values.get(f"{base}.doe", False))
        ch[c, 3] = int(values.get(f"{base}.starts", True))
    if ch[:N_RABBITS, 3].sum() != 9 or ch[N_RABBITS:, 3].sum() != 9:
        raise SimkitError("hlessil.*.starts: exactly nine rabbits start the game")
    cards = np.zeros((2, 11, 2), np.int32)
    for side, key in ((HLESSIL, "hlessil"), (ELIL, "elil")):
        kinds, vals = values[f"cards.{key}.kinds"], values[f"cards.{key}.values"]
        for k, (kind, v) in enumerate(zip(kinds, vals, strict=True)):
            if kind not in KIND_NAMES:
                raise SimkitError(f"cards.{key}.kinds: unknown kind {kind!r}")
            cards[side, k] = (KIND_NAMES.index(kind), v)
    join = np.zeros((N_JOINERS, 3), np.int32)
    for j in range(N_JOINERS):
        key = CHAR_KEYS[9 + j]
        trig, appear = values[f"joining.{key}.trigger"], values[f"joining.{key}.appears"]
        if trig == "escape":
            join[j, :2] = (JOIN_ESCAPE, 0)
        elif trig == "defeat_elil":
            join[j, :2] = (JOIN_DEFEAT, 0)
        elif trig == "enter:down":
            join[j, :2] = (JOIN_ENTER, (1 << down[0]) | (1 << down[1]))
        elif trig.startswith("enter:"):
            join[j, :2] = (JOIN_ENTER, 1 << _space(names, trig[6:], f"joining.{key}.trigger"))
        else:
            raise SimkitError(f"joining.{key}.trigger: {trig!r} is not enter:<space>, "
                              "enter:down, escape or defeat_elil")
        join[j, 2] = -1 if appear == "trigger" else _space(names, appear,
                                                           f"joining.{key}.appears")
    setup = np.zeros((2, 5), np.int32)
    for side, home in ((HLESSIL, sandleford), (ELIL, efrafa)):
        rows = sp[:, 0]
        own = [i for i in range(N_SPACES)
               if (rows[i] < 3 if rows[home] < 3 else rows[i] > 3) and i != home]
        if len(own) != 5:
            raise SimkitError("board: each side must have six spaces (home and five more)")
        setup[side] = own
    nbmask = np.zeros((2, 3, N_SPACES), np.int32)
    for k in range(2):
        hit = nb[:, :, :, k] >= 0
        nbmask[hit] |= (1 << nb[:, :, :, k][hit]).astype(np.int32)
    table = np.zeros(PARAMS_SIZE, np.int32)
    table[:len(g)] = g
    for off, arr in ((O_NB, nb), (O_NBM, nbmask), (O_SP, sp), (O_CH, ch), (O_CARDS, cards),
                     (O_JOIN, join), (O_SETUP, setup)):
        table[off:off + arr.size] = arr.ravel()
    return (table,)


GAME = GameSpec(
    name="watership-down",
    package_dir=Path(__file__).parent,
    rules=rules,
    players=(2,),
    compile=compile_params,
    item_columns=rules.ITEM_COLUMNS,
    end_reasons=rules.END_REASONS,
    describe_setup=describe_setup,
    describe_move=describe_move,
    check_state=check_state,
    summary="hlessil against elil: hidden identities, secret battle cards, a warren to found",
)
