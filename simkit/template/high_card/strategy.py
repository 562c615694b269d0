"""``heuristic``: High card's strong fast player (the search strategies roll out with it).
Answers with its lowest card that wins, or its lowest card when none does; leads its
highest card (or its lowest, with the weight ``lead_high`` at 0)."""

from simkit.jit import kernel
from simkit.registry import StrategySpec, register_strategy

from .state import LED


@kernel
def choose_heuristic(params, obs, seat, moves, n_moves, weights, stream):
    led = obs[LED]
    low, high, win = 0, 0, -1
    for k in range(n_moves):
        if moves[k] < moves[low]:
            low = k
        if moves[k] > moves[high]:
            high = k
        if led >= 0 and moves[k] > led and (win < 0 or moves[k] < moves[win]):
            win = k
    if led < 0:
        return high if weights[0] > 0.5 else low
    return win if win >= 0 else low


register_strategy(StrategySpec("heuristic", choose_heuristic, game="high-card",
                               weights={"lead_high": 1.0},
                               summary="answer with the lowest winning card; lead high"))
