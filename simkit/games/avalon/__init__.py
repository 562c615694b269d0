"""Avalon: knights, enchantresses and a row of face-down territories, for two players."""

from pathlib import Path

import numpy as np

from simkit.cards import names_of, remember_names
from simkit.data import fixed_records, records
from simkit.errors import SimkitError
from simkit.game import GameSpec

from . import rules
from .state import (
    M_AVALON_RED,
    M_CASTLE_DEF,
    M_CASTLE_LOSS,
    M_COLOURS,
    M_ENCH,
    M_EXHAUSTED_DRAW,
    M_HAND_LIMIT,
    M_KNIGHTS,
    M_MAX_CONQ,
    M_MAX_TURNS,
    M_NCARDS,
    M_PER_SIDE,
    M_START_HAND,
    M_WIN,
    N_PARAMS,
    N_TERR,
    P_CROWNS,
    P_SPECIAL,
    P_TERRAIN,
    P_TILE_CARDS,
    P_TILE_COUNT,
    RULES,
    SPECIAL_NAMES,
    TERRAIN_NAMES,
    TILE_NAMES,
)
from .transcript import check_state, describe_choice, describe_move, describe_setup


def compile_params(values: dict, n_players: int) -> tuple:
    """Effective data values -> ``(int32[N_PARAMS],)``: the state's RULES block (state.py)."""
    colours = values["cards.colours"]
    knights = values["cards.knights_per_colour"]
    ench = values["cards.enchantresses_per_colour"]
    ncards = colours * (knights + ench)
    per_side, start_hand = values["setup.cards_per_side"], values["setup.hand"]
    if 2 * N_TERR * per_side + 2 * start_hand > ncards:
        raise SimkitError(f"setup.cards_per_side / setup.hand deal more than the {ncards} cards")
    main = np.zeros(N_PARAMS, np.int32)

    def put(at, value):  # at: the number's offset in the state's RULES block
        main[at - RULES:at - RULES + np.size(value)] = value

    put(M_COLOURS, colours)
    put(M_KNIGHTS, knights)
    put(M_ENCH, ench)
    put(M_NCARDS, ncards)
    put(M_WIN, values["rules.win_crowns"])
    put(M_HAND_LIMIT, values["rules.hand_limit"])
    put(M_MAX_CONQ, values["rules.max_conquests"])
    put(M_CASTLE_DEF, values["rules.castle_defence"])
    put(M_CASTLE_LOSS, values["rules.castle_loss"])
    put(M_AVALON_RED, values["rules.avalon_reduction"])
    put(M_START_HAND, start_hand)
    put(M_PER_SIDE, per_side)
    put(M_EXHAUSTED_DRAW, values["rules.cards_exhausted"] == "draw")
    put(M_MAX_TURNS, values["max_turns"])
    terr = territories(values)
    put(P_CROWNS, [t["crowns"] for _, t in terr])
    for field, names, at in (("terrain", TERRAIN_NAMES, P_TERRAIN),
                             ("special", SPECIAL_NAMES, P_SPECIAL)):
        for name, t in terr:
            if t[field] not in names:
                raise SimkitError(f"territories.{name}.{field} = {t[field]!r}; choices: "
                                  f"{', '.join(names)}")
        put(at, [names.index(t[field]) for _, t in terr])
    tiles = fixed_records(values, "supply", TILE_NAMES, "tile kind")
    count = [tiles[k]["count"] for k in TILE_NAMES]
    if sum(count) < 2:
        raise SimkitError("supply: the counts must give at least 2 tiles (one may lie before "
                          "a player)")
    put(P_TILE_COUNT, count)
    put(P_TILE_CARDS, [tiles[k]["cards"] for k in TILE_NAMES])
    remember_names(main, "territories", [name for name, _ in terr])
    return (main,)


def territories(values: dict) -> list[tuple[str, dict]]:
    """The territory cards in card id order: [(name, {crowns, terrain, special})]."""
    terr = records(values, "territories")
    if len(terr) != N_TERR:
        raise SimkitError(f"territories: the row has {N_TERR} territory cards (the kernels "
                          f"take {N_TERR}), not {len(terr)}")
    return terr


def territory_names(params) -> list[str]:
    """The territories' names, by card id, of the data ``params`` was compiled from."""
    return names_of(params[0], "territories", rules.TERRITORY_NAMES)


def item_columns_of(values: dict) -> list[str]:
    """The item columns of these data values: the territories under their own names."""
    return rules.item_columns([name for name, _ in territories(values)])


GAME = GameSpec(
    name="avalon",
    package_dir=Path(__file__).parent,
    rules=rules,
    players=(2,),
    compile=compile_params,
    item_columns=rules.ITEM_COLUMNS,
    item_columns_of=item_columns_of,
    choice_events=frozenset({"attack", "defend", "enchant", "counter_spell", "strengthen",
                             "taken", "used"}),
    end_reasons=rules.END_REASONS,
    describe_setup=describe_setup,
    describe_move=describe_move,
    describe_choice=describe_choice,
    check_state=check_state,
    summary="knights and enchantresses conquer a row of territories; first to 15 crowns",
    progress_unit="crowns",
    phases=rules.PHASES,
    features=rules.FEATURES,
    guided_knobs={"iterations": 500},  # ~32 ms a decision (docs/search.md)
)
