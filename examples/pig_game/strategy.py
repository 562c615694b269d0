"""``hold-at``: Pig's classic heuristic. Roll until the turn total reaches ``threshold``."""

from simkit.jit import kernel
from simkit.registry import StrategySpec, register_strategy

from .rules import HOLD, TURN_TOTAL


@kernel
def choose_hold_at(params, obs, seat, moves, n_moves, weights, stream):
    if obs[TURN_TOTAL] >= weights[0]:
        for k in range(n_moves):
            if moves[k] == HOLD:
                return k
    return 0


register_strategy(StrategySpec("hold-at", choose_hold_at, game="pig",
                               weights={"threshold": 20.0},
                               summary="roll until the turn total reaches the threshold"))
