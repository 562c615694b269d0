"""Rabbit Hunt: 2-4 players (4 in two teams) hide bunnies on a growing farmland and hunt
each other's with their farmers. Rulebook: shared/rulebooks/rabbit-hunt.txt."""

from pathlib import Path

from simkit.game import GameSpec

from . import rules
from .state import END_REASONS, ITEM_COLUMNS, compile_params, teams
from .transcript import check_state, describe_choice, describe_move, describe_setup

GAME = GameSpec(
    name="rabbit-hunt",
    package_dir=Path(__file__).parent,
    rules=rules,
    players=(2, 3, 4),
    compile=compile_params,
    item_columns=ITEM_COLUMNS,
    choice_events=frozenset({"placed"}),
    end_reasons=END_REASONS,
    teams=teams,
    describe_setup=describe_setup,
    describe_move=describe_move,
    describe_choice=describe_choice,
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
)
