"""Avalon: knights, enchantresses and a row of face-down territories, for two players."""

from pathlib import Path

import numpy as np

from simkit.errors import SimkitError
from simkit.game import GameSpec

from . import rules
from .state import N_TERR, N_TILE_KINDS, SPECIAL_NAMES, TERRAIN_NAMES
from .transcript import check_state, describe_move, describe_setup


def compile_params(values: dict, n_players: int) -> tuple:
    """Effective data values -> ``(int32[rules.N_PARAMS],)``: one flat array (see rules.py)."""
    colours = values["cards.colours"]
    knights = values["cards.knights_per_colour"]
    ench = values["cards.enchantresses_per_colour"]
    ncards = colours * (knights + ench)
    per_side, start_hand = values["setup.cards_per_side"], values["setup.hand"]
    if 2 * N_TERR * per_side + 2 * start_hand > ncards:
        raise SimkitError(f"setup.cards_per_side / setup.hand deal more than the {ncards} cards")
    main = np.zeros(rules.N_PARAMS, np.int32)
    main[rules.M_COLOURS], main[rules.M_KNIGHTS], main[rules.M_ENCH] = colours, knights, ench
    main[rules.M_NCARDS] = ncards
    main[rules.M_WIN] = values["rules.win_crowns"]
    main[rules.M_HAND_LIMIT] = values["rules.hand_limit"]
    main[rules.M_MAX_CONQ] = values["rules.max_conquests"]
    main[rules.M_CASTLE_DEF] = values["rules.castle_defence"]
    main[rules.M_CASTLE_LOSS] = values["rules.castle_loss"]
    main[rules.M_AVALON_RED] = values["rules.avalon_reduction"]
    main[rules.M_START_HAND], main[rules.M_PER_SIDE] = start_hand, per_side
    main[rules.M_EXHAUSTED_DRAW] = values["rules.cards_exhausted"] == "draw"
    main[rules.P_CROWNS:rules.P_CROWNS + N_TERR] = values["territories.crowns"]
    for key, names, at in (("territories.terrain", TERRAIN_NAMES, rules.P_TERRAIN),
                           ("territories.special", SPECIAL_NAMES, rules.P_SPECIAL)):
        for i, name in enumerate(values[key]):
            if name not in names:
                raise SimkitError(f"{key}[{i}] = {name!r}; choices: {', '.join(names)}")
            main[at + i] = names.index(name)
    if sum(values["supply.count"]) < 2:
        raise SimkitError("supply.count must give at least 2 tiles (one may lie before a player)")
    main[rules.P_TILE_COUNT:rules.P_TILE_COUNT + N_TILE_KINDS] = values["supply.count"]
    main[rules.P_TILE_CARDS:rules.P_TILE_CARDS + N_TILE_KINDS] = values["supply.cards"]
    return (main,)


GAME = GameSpec(
    name="avalon",
    package_dir=Path(__file__).parent,
    rules=rules,
    players=(2,),
    compile=compile_params,
    item_columns=rules.ITEM_COLUMNS,
    end_reasons=rules.END_REASONS,
    describe_setup=describe_setup,
    describe_move=describe_move,
    check_state=check_state,
    summary="knights and enchantresses conquer a row of territories; first to 15 crowns",
)
