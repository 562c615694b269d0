"""``random``: uniform over the legal moves. Plays any game; the baseline every heuristic
is measured against."""

from simkit.jit import kernel
from simkit.registry import StrategySpec, register_strategy
from simkit.rng import rand_below


@kernel
def choose_random(params, obs, seat, moves, n_moves, weights, stream):
    return rand_below(stream, n_moves)


register_strategy(StrategySpec(
    "random", choose_random, needs_obs=False, summary="uniform over the legal moves"))
