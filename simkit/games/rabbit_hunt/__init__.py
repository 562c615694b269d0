"""Rabbit Hunt: 2-4 players (4 in two teams) hide bunnies on a growing farmland and hunt
each other's with their farmers. Rulebook: shared/rulebooks/rabbit-hunt.txt."""

from pathlib import Path

from simkit.checks import CopiesRule
from simkit.game import GameSpec, HiddenZone

from . import rules, state
from .state import DECK_MAX, END_REASONS, ITEM_COLUMNS, PILE, compile_params, teams
from .transcript import check_state, describe_choice, describe_move, describe_setup


def _kind(k: int) -> str:
    if k == state.BUNNY:
        return "a bunny"
    return "an empty farmland" if k == state.EMPTY else state.KINDS[k].replace("_", " ")


ACTIONS = {state.M_MOVE: "move farmer", state.M_MOVE_ANY: "move any farmer",
           state.M_STEP: "step farmer", state.M_TO_HOME: "farmer to warehouse"}
"""Labels of actions whose move name alone would be unclear."""


def move_label(params, n_players, move) -> str:
    """The decision log's name of a move (``state.py``'s encoding, kind << 16 | argument),
    by what is done and which card kind, never by cell or seat: "place peek", "draw",
    "move", "return take 2 carrots"."""
    kind, arg = move >> 16, move & 0xFFFF
    if kind == state.M_PLACE:
        return f"place {_kind(arg // 256)}"
    if kind in (state.M_SWAP, state.M_RETURN):
        return f"{state.MOVE_NAMES[kind]} {_kind(arg)}"
    if 0 <= kind < len(state.MOVE_NAMES):
        return ACTIONS.get(kind, state.MOVE_NAMES[kind].replace("_", " "))
    return f"move {move}"


def hidden_zones(params, n_players) -> tuple[HiddenZone, ...]:
    """Where the farmland cards a seat may not see lie (NOTES.md, Determinisation), all
    dealt from one set: the pile, the other hands (counts by kind; a hand's own bunnies,
    at 14, are no farmland card) and the face-down cells (a bunny on a cell, 14 and up, and
    the warehouse are not either). The cards put away at setup (``REMOVED``) lie nowhere
    in the state, so a determinisation may deal as many others in their stead."""
    cells = int(params[0][state.P_CELLS])
    return (HiddenZone("pile", PILE, DECK_MAX, pool="farmland", away=state.REMOVED),
            HiddenZone("hands", state.HAND, state.MAX_SEATS * state.N_KINDS,
                       counts=state.N_KINDS, kinds=state.N_FARMLAND, pool="farmland"),
            HiddenZone("cells", state.CELLS, cells, kinds=state.N_FARMLAND, pool="farmland"))


GAME = GameSpec(
    name="rabbit-hunt",
    package_dir=Path(__file__).parent,
    rules=rules,
    players=(2, 3, 4),
    compile=compile_params,
    item_columns=ITEM_COLUMNS,
    # a farmland card laid from the hand is a choice; drawing one, turning one up and the
    # bunnies (placed when the state calls for one, caught, lost) are outcomes (NOTES.md)
    choice_columns=frozenset(c for c in ITEM_COLUMNS
                             if c.endswith(":placed") and not c.startswith("bunny:")),
    remove_copy=CopiesRule(lists=(("", "farmland"),)),
    end_reasons=END_REASONS,
    teams=teams,
    describe_setup=describe_setup,
    describe_move=describe_move,
    describe_choice=describe_choice,
    move_label=move_label,
    check_state=check_state,
    summary="hide your bunnies on the farmland, catch the others'",
    # heuristic rollouts at 250 iterations, one move in two random: about 45 ms a
    # decision, and a model of the other players loose enough to beat random players too
    # (NOTES.md, Search)
    search_knobs={"iterations": 250, "rollout_random": 0.5},
    guided_knobs={"iterations": 500},  # ~28 ms a decision (docs/search.md)
    progress_unit="bunnies caught, with rule a's bonus",
    phases=rules.PHASES,
    features=rules.FEATURES,
    move_features=rules.MOVE_FEATURES,
    strong="learned",  # NOTES.md, "Strong player": above the heuristic, fast enough
    hidden_zones=hidden_zones,
)
