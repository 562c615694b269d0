"""``first``: always the first legal move. Deterministic, for tests and as a floor."""

from simkit.jit import kernel
from simkit.registry import StrategySpec, register_strategy


@kernel
def choose_first(params, obs, seat, moves, n_moves, weights, stream):
    return 0


register_strategy(StrategySpec(
    "first", choose_first, needs_obs=False, summary="always the first legal move"))
