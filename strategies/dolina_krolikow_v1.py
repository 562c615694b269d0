"""``heuristic-v1`` for Dolina królików: the game's first heuristic, frozen (issue 16) as the
yardstick the new ``heuristic`` (``dolina_krolikow.py``) is measured against on the same
seeds. Do not change it. A greedy player that values each move by the change it makes to
its own final score, with a little look-ahead for Large rabbits:

* A rabbit is worth the best gain it brings to one of the player's Houses: the scoring table
  (family size, two Large, House and Forest missions) plus a small ``potential`` for Houses
  that are not yet a Family (a lone Large waiting for a partner, Small rabbits waiting for a
  Large).
* A die on a card is worth that rabbit, when it completes the card; when it starts a Large
  rabbit, the rabbit times the chance of finishing it this round (another pick to come and
  dice on the table that can complete it). Resource tokens paid cost ``token`` each.
* A die taken as resources is worth the tokens that survive the end of the round.
* Setup and House cards: keep the missions that look easiest; draw Houses up to ``houses``.
* Tokens for a pip change: from the largest pile first (an even spread keeps the most after
  the end-of-round limits).
"""

import numpy as np

from simkit.games.dolina_krolikow import rules as R
from simkit.games.dolina_krolikow import state as S
from simkit.games.dolina_krolikow import tables as T
from simkit.jit import kernel
from simkit.registry import StrategySpec, register_strategy

W_TOKEN, W_RES, P_TWO, P_ONE, W_HOUSES, W_BASE, W_LONE_LARGE, W_SMALL_WAIT = range(8)


@kernel
def potential(params, obs, i, weights):
    """What a House that is not yet a Family may become: the size points it would score if
    the missing Large rabbit (or, for a lone Large, a partner) joined, discounted."""
    n = obs[S.HOUSE_N + i]
    if n == 0 or R.is_family(obs, i):
        return 0.0
    pts = params[0][T.O_SIZE + min(n + 1, 5)]
    if obs[S.HOUSE_LARGE + i] >= 1:
        return weights[W_LONE_LARGE] * pts
    return weights[W_SMALL_WAIT] * pts


@kernel
def seat_value(params, obs, seat, weights):
    v = float(R.seat_score(params, obs, seat))
    for h in range(obs[S.HOUSE_COUNT + seat]):
        v += potential(params, obs, seat * S.MAXH + h, weights)
    return v


@kernel
def house_gain(params, obs, seat, h, card, weights, base):
    """Value gained by putting ``card`` in House h (the obs is changed and restored)."""
    i = seat * S.MAXH + h
    saved = (obs[S.HOUSE_N + i], obs[S.HOUSE_LARGE + i], obs[S.HOUSE_C1 + i],
             obs[S.HOUSE_C2 + i], obs[S.CARD_LOC + card])
    colour = params[0][T.O_CARDS + 2 * card + 1]
    R.add_to_house(params, obs, seat, h, card)
    after = seat_value(params, obs, seat, weights)
    obs[S.HOUSE_N + i], obs[S.HOUSE_LARGE + i], obs[S.HOUSE_C1 + i] = saved[0], saved[1], saved[2]
    obs[S.HOUSE_C2 + i], obs[S.CARD_LOC + card] = saved[3], saved[4]
    obs[S.HOUSE_COLS + 3 * i + colour] -= 1
    return after - base


@kernel
def rabbit_value(params, obs, seat, card, weights):
    base = seat_value(params, obs, seat, weights)
    best = -1e9
    for h in range(obs[S.HOUSE_COUNT + seat]):
        if R.house_fits(params, obs, seat, h, card):
            best = max(best, house_gain(params, obs, seat, h, card, weights, base))
    if best == -1e9:
        return 0.1  # a Wanderer
    return best + weights[W_BASE]


@kernel
def completion_odds(params, obs, seat, d, pos, f, spare, weights):
    """Chance of finishing a Large rabbit started with die d as face f this round."""
    if obs[S.STEP] // obs[S.N_PLAYERS] + 1 >= params[0][R.C_PICKS]:
        return 0.0
    card = obs[S.POS_CARD + pos]
    found = 0
    for e in range(params[0][R.C_N_DICE]):
        if e == d or obs[S.DIE_USE + e] != -1:
            continue
        f0 = obs[S.DIE_FACE + e]
        for f2 in range(S.N_FACES):
            if params[0][T.O_FIT2 + card * 324 + f * S.N_FACES + f2] == 0:
                continue
            need = params[0][R.C_PIP] * abs(f2 % 6 - f0 % 6)
            if f2 // 6 != f0 // 6:
                need += params[0][R.C_RECOLOUR]
            if need <= spare:
                found += 1
                break
    if found >= 2:
        return weights[P_TWO]
    return weights[P_ONE] if found == 1 else 0.0


@kernel
def pick_value(params, obs, seat, move, values, weights):
    cfg = params[0]
    if move >= R.EXCHANGE:
        return values[move - R.EXCHANGE] + 1.0
    if move < R.PLACE:
        f = obs[S.DIE_FACE + move - R.RES]
        kind = f // 6
        have = obs[S.TOKENS + 3 * seat + kind]
        kept = min(have + f % 6 + 1, cfg[R.C_KIND_LIMIT]) - min(have, cfg[R.C_KIND_LIMIT])
        return weights[W_RES] * (kept + 0.25 * (f % 6 + 1))
    m = move - R.PLACE
    f = m % S.N_FACES
    m //= S.N_FACES
    d, pos = m // S.MAXPOS, m % S.MAXPOS
    f0 = obs[S.DIE_FACE + d]
    cost = R.modify_cost(params, obs, seat, f0, f)
    card = obs[S.POS_CARD + pos]
    v = values[pos] - weights[W_TOKEN] * cost
    if params[0][T.O_CARDS + 2 * card] == R.LARGE and obs[S.POS_D1 + pos] < 0:
        spare = R.token_total(obs, seat) - cost
        v = values[pos] * completion_odds(params, obs, seat, d, pos, f, spare, weights) \
            - weights[W_TOKEN] * cost - 0.3
    return v


@kernel
def choose_pick(params, obs, seat, moves, n_moves, weights):
    values = np.zeros(S.MAXPOS)
    for pos in range(params[0][R.C_POSITIONS]):
        c = obs[S.POS_CARD + pos]
        if c >= 0:
            values[pos] = rabbit_value(params, obs, seat, c, weights)
    best, best_v = 0, -1e9
    for k in range(n_moves):
        v = pick_value(params, obs, seat, moves[k], values, weights)
        if v > best_v:
            best, best_v = k, v
    return best


@kernel
def mission_ease(params, kind, a, b):
    if kind == R.P_HAS:
        return 3.0 - b
    if kind in (R.P_NONE, R.P_SIZE, R.P_SMALL):
        return 1.5 if kind == R.P_NONE else 3.5 - a
    if kind == R.P_LARGE:
        return 1.0
    return 0.0  # only one colour, rainbow, mono: hard to plan for


@kernel
def forest_ease(params, f):
    q = params[0][T.O_FOREST + 5 * f:T.O_FOREST + 5 * f + 5]
    if q[0] == R.Q_EVERY:
        return mission_ease(params, q[2], q[3], q[4]) + 0.5
    if q[0] == R.Q_COUNT:
        return mission_ease(params, q[2], q[3], q[4]) - q[1] + 2.0
    return 3.0 - q[4] / 4.0


@kernel
def choose_place(params, obs, seat, moves, n_moves, weights):
    card = obs[S.PEND_CARD + obs[S.PEND_I]]
    base = seat_value(params, obs, seat, weights)
    best, best_v = 0, -1e9
    for k in range(n_moves):
        v = house_gain(params, obs, seat, moves[k] - R.HOUSE, card, weights, base)
        if v > best_v:
            best, best_v = k, v
    return best


@kernel
def choose_leftover(params, obs, seat, moves, n_moves):
    best, best_v = n_moves - 1, 0.5
    for k in range(n_moves):
        m = moves[k]
        if R.LEFT_COLOUR <= m < R.LEFT_SWAP:
            kind = obs[S.DIE_FACE + m - R.LEFT_COLOUR] // 6
            v = params[0][R.C_KIND_LIMIT] - obs[S.TOKENS + 3 * seat + kind]
            if v > best_v:
                best, best_v = k, v
    return best


@kernel
def choose_pay(obs, seat, moves, n_moves):
    """Pay so that the largest piles shrink first (what is above the end-of-round limits is
    lost anyway, and an even spread keeps the most): the smallest kind among the tokens that
    taking one at a time from the largest pile (ties: carrot, cabbage, cornflower) would
    pay."""
    held = np.zeros(3, np.int64)
    for k in range(3):
        held[k] = obs[S.TOKENS + 3 * seat + k]
    lowest = 3
    for _ in range(obs[S.PAY_LEFT]):
        k = 0
        if held[1] > held[k]:
            k = 1
        if held[2] > held[k]:
            k = 2
        held[k] -= 1
        lowest = min(lowest, k)
    for i in range(n_moves):
        if moves[i] - R.PAY_TOKEN == lowest:
            return i
    return 0


@kernel
def choose_heuristic(params, obs, seat, moves, n_moves, weights, stream):
    ph = obs[S.PHASE]
    if ph == S.PH_PAY:
        return choose_pay(obs, seat, moves, n_moves)
    if ph == S.PH_PICK:
        return choose_pick(params, obs, seat, moves, n_moves, weights)
    if ph == S.PH_PLACE:
        return choose_place(params, obs, seat, moves, n_moves, weights)
    if ph == S.PH_LEFTOVER:
        return choose_leftover(params, obs, seat, moves, n_moves)
    if ph == S.PH_DRAW:
        want = obs[S.HOUSE_COUNT + seat] < weights[W_HOUSES]
        return 1 if want and moves[1] == R.DRAW_TAKE else 0
    if ph == S.PH_KEEP:
        best, best_v = 0, -1e9
        for k in range(n_moves):
            b = T.O_HOUSE + 3 * obs[S.DRAWN + k]
            hm = params[0][b:b + 3]
            v = mission_ease(params, hm[0], hm[1], hm[2])
            if v > best_v:
                best, best_v = k, v
        return best
    if ph == S.PH_WANDER_ADD:
        return 0  # a Wanderer in a House beats a Wanderer
    if ph == S.PH_SETUP_FOREST or ph == S.PH_REDEAL:
        a = forest_ease(params, obs[S.FOREST_HAND + 2 * seat])
        b = forest_ease(params, obs[S.FOREST_HAND + 2 * seat + 1])
        return 1 if b > a else 0
    return 0  # setup House cards: keep them all (a House is room for a Family)


register_strategy(StrategySpec(
    "heuristic-v1", choose_heuristic, game="dolina-krolikow",
    weights={"token": 0.15, "resources": 0.35, "odds_two": 0.75, "odds_one": 0.45,
             "houses": 5.0, "rabbit": 1.0, "lone_large": 0.6, "small_waiting": 0.4},
    summary="the first heuristic, frozen: greedy on the change to its own score, with "
            "odds for finishing Large rabbits"))
