"""Pig, the dice game: simkit's example of a complete game package."""

from pathlib import Path

import numpy as np

from simkit.game import GameSpec

from . import rules, strategy  # noqa: F401  (strategy registers itself)
from .transcript import check_state, describe_choice, describe_move, describe_setup


def compile_params(values: dict, n_players: int) -> tuple:
    """Effective data values -> the kernels' parameter arrays."""
    return (np.array([values["target"], values["die_faces"], values["max_turns"]],
                     dtype=np.int32),)


def move_label(params, n_players, move) -> str:
    """The decision log's name of a move."""
    return "hold" if move == rules.HOLD else "roll"


GAME = GameSpec(
    name="pig",
    package_dir=Path(__file__).parent,
    rules=rules,
    players=(2, 3, 4),
    compile=compile_params,
    item_columns=rules.ITEM_COLUMNS,
    choice_events=frozenset({"made"}),  # rolls and holds; a bust happens to you
    end_reasons=rules.END_REASONS,
    describe_setup=describe_setup,
    describe_move=describe_move,
    describe_choice=describe_choice,
    move_label=move_label,
    check_state=check_state,
    summary="roll or hold; the first to the target wins (example game)",
    progress_unit="points",
    features=rules.FEATURES,
    move_features=rules.MOVE_FEATURES,
    hidden_zones=(),  # dice and banked points: nothing is dealt, nothing hidden
)
