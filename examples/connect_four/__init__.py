"""Connect Four: simkit's second example game, a complete plugin package like Pig, and the
yardstick of the engine's speed (``benchmarks/loop_overhead.py``)."""

from pathlib import Path

import numpy as np

from simkit.errors import SimkitError
from simkit.game import GameSpec

from . import rules, strategy  # noqa: F401  (strategy registers itself)
from .transcript import check_state, describe_move, describe_setup


def compile_params(values: dict, n_players: int) -> tuple:
    """Effective data values -> the kernels' parameter arrays: one int32 array (rows,
    columns, connect)."""
    rows, columns, connect = values["rows"], values["columns"], values["connect"]
    if connect > max(rows, columns):
        raise SimkitError(f"connect = {connect} is longer than both the rows ({rows}) and "
                          f"the columns ({columns}): no game could be won")
    return (np.array([rows, columns, connect], dtype=np.int32),)


def move_label(params, n_players, move) -> str:
    """The decision log's name of a move: the column, counted from 1 as a player would."""
    return f"column {move + 1}"


GAME = GameSpec(
    name="connect-four",
    package_dir=Path(__file__).parent,
    rules=rules,
    players=(2,),
    compile=compile_params,
    item_columns=rules.ITEM_COLUMNS,
    end_reasons=rules.END_REASONS,
    describe_setup=describe_setup,
    describe_move=describe_move,
    move_label=move_label,
    check_state=check_state,
    summary="drop discs, connect four in a row (example game)",
    hidden_zones=(),  # a board in full view: nothing hidden
)
