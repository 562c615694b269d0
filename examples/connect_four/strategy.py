"""``win-block``: drop where it connects now; else where the opponent would connect next;
else at random, from the seat's own stream. A one-ply heuristic that reads its ``obs``."""

from simkit.jit import kernel
from simkit.registry import StrategySpec, register_strategy
from simkit.rng import rand_below

from .rules import HEIGHT, ROWS, SEAT, line_through


@kernel
def choose_win_block(params, obs, seat, moves, n_moves, weights, stream):
    rows = obs[ROWS]
    block = -1
    for k in range(n_moves):
        c = moves[k]
        r = obs[HEIGHT + c]
        if r >= rows:
            continue
        if line_through(obs, r, c, seat) >= 0:
            return k
        if block < 0 and weights[0] > 0 and line_through(obs, r, c, 1 - obs[SEAT]) >= 0:
            block = k
    if block >= 0:
        return block
    return rand_below(stream, n_moves)


register_strategy(StrategySpec("win-block", choose_win_block, game="connect-four",
                               weights={"block": 1.0},
                               summary="connect when it can, else block, else at random"))
