"""Avalon: knights, enchantresses and a row of face-down territories, for two players."""

from pathlib import Path

import numpy as np

from simkit.cards import names_of, remember_names
from simkit.checks import CopiesRule
from simkit.data import fixed_records, records
from simkit.errors import SimkitError
from simkit.game import GameSpec, HiddenZone

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


CHOICE_COLUMNS = frozenset(
    c for c in rules.ITEM_COLUMNS
    if c.startswith("tile_") or c == "avalon_reduction:used"
    or c.partition(":")[2] in ("strengthen", "attack", "defend", "enchant", "counter_spell")
    and c.startswith(("knight_", "enchantress_")))
"""A player's choices: a supply tile taken, a knight or enchantress played to strengthen,
attack, defend, enchant or counter, Avalon's reduction used. A territory conquered, held or
lost and an enchantment or attack warded off are outcomes (NOTES.md, Items); the columns
that follow the data (the territories) are all outcomes, so the choices are fixed."""


def _type_name(t: int) -> str:
    return rules.TYPE_NAMES[t].replace("_", " ")


def move_label(params, n_players, move) -> str:
    """The decision log's name of a move (the encoding in rules.py), by card type and
    action, never by slot: "lay knight red", "attack with enchantress blue", "take tile"."""
    n, t = rules.N_TERR, rules.N_TYPES
    if move == rules.END_PLAYS:
        return "end plays"
    if move < rules.ENCHANT:
        return f"lay {_type_name((move - rules.STRENGTHEN) // n)}"
    if move < rules.ATTACK:
        return "enchant"
    if move < rules.COUNTER_NO:
        return f"attack with {_type_name((move - rules.ATTACK) // n)}"
    named = {rules.COUNTER_NO: "no counter-spell", rules.COUNTER_YES: "counter-spell",
             rules.DEFEND_NO: "no ward", rules.DEFEND_YES: "ward off",
             rules.LOSS_AVALON: "use Avalon's reduction"}
    if move in named:
        return named[move]
    if move < rules.LOSS_LAYOUT:
        return f"lose {_type_name(move - rules.LOSS_HAND)} from hand"
    if move < rules.LOSS_AVALON:
        return "lose a laid card"
    if move < rules.DISCARD_CARD:
        return f"take tile {rules.TILE_NAMES[move - rules.SUPPLY_TILE].replace('_', ' ')}"
    if move < rules.DISCARD_CARD + t:
        return f"discard {_type_name(move - rules.DISCARD_CARD)}"
    return f"move {move}"


def hidden_zones(params: tuple, n_players: int) -> tuple[HiddenZone, ...]:
    """What a seat may not see (``rules.observe``): the other hand (counts by type, less
    what its SHOWN says is there) and the draw pile, dealt from one set of cards, and the
    face-down territory cards."""
    from .state import DECK, HAND, N_TERR, N_TYPES, SHOWN, TERR_CARD

    ncards = (rules.state_size(params, n_players) - DECK) // (1 + 2 * N_TERR)
    return (HiddenZone("hands", HAND, 2 * N_TYPES, counts=N_TYPES, known=SHOWN, pool="cards"),
            HiddenZone("draw pile", DECK, ncards, pool="cards"),
            HiddenZone("territories", TERR_CARD, N_TERR))


GAME = GameSpec(
    name="avalon",
    package_dir=Path(__file__).parent,
    rules=rules,
    players=(2,),
    compile=compile_params,
    item_columns=rules.ITEM_COLUMNS,
    item_columns_of=item_columns_of,
    choice_columns=CHOICE_COLUMNS,
    remove_copy=CopiesRule(lists=(("tile_", "supply"),), fixed=(
        ("knight_", "the data counts knights per colour for all five colours at once "
                    "(cards.knights_per_colour), so one colour cannot lose a copy alone"),
        ("enchantress_", "the data counts enchantresses per colour for all five colours at "
                         "once (cards.enchantresses_per_colour), so one colour cannot lose a "
                         "copy alone"),
        ("avalon_reduction", "it is the Avalon territory's rule, not a card"))),
    end_reasons=rules.END_REASONS,
    describe_setup=describe_setup,
    describe_move=describe_move,
    describe_choice=describe_choice,
    move_label=move_label,
    check_state=check_state,
    summary="knights and enchantresses conquer a row of territories; first to 15 crowns",
    progress_unit="crowns",
    phases=rules.PHASES,
    features=rules.FEATURES,
    move_features=rules.MOVE_FEATURES,
    strong="learned",  # NOTES.md, "Strong player": above the heuristic, fast enough
    hidden_zones=hidden_zones,
    guided_knobs={"iterations": 500},  # ~32 ms a decision (docs/search.md)
)
