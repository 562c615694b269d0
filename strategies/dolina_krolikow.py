"""``heuristic`` for Dolina królików (v2, issue 16): a greedy player that values each move by
the change it makes to what its Houses and Forest card are worth, with a little look-ahead
for Large rabbits, partial credit for missions on the way, and an eye on what the next
players to pick need. ``heuristic-v1`` (``dolina_krolikow_v1.py``) is the first version,
frozen, for comparison (NOTES.md, Heuristic (v2)).

* **What a seat's valley is worth**: for each House, the scoring table (family size, two
  Large, its House mission completed) plus a ``potential`` for a House that is not yet a
  Family (a lone Large waiting for a partner, Small rabbits waiting for a Large); and the
  Forest mission. A mission not yet completed is worth ``mission`` x its points x
  ``mission_decay`` ** (rabbits still missing), and nothing once it can no longer be
  completed (an ``only brown`` House with a white rabbit in it) or when more rabbits are
  missing than the seat has picks left. So a rabbit that brings a mission one rabbit closer
  is worth something before the mission is complete, and one that spoils a mission costs.
* **A rabbit** is worth the best gain it brings to one of the seat's Houses, plus
  ``rabbit``; one that fits no House (a Wanderer) 0.1.
* **A die on a card** is worth that rabbit when it completes the card; when it starts a Large
  rabbit, the rabbit times the chance of finishing it this round (``odds_two`` with two dice
  left that could finish it, ``odds_one`` with one, 0 with no pick to come). Resource tokens
  paid cost ``token`` each. A die taken as resources is worth ``resources`` x (the tokens
  that survive the end of the round + a quarter of the pips).
* **Denial**: every pick also scores ``deny`` x what it takes away from the players who pick
  next, before the seat picks again (divided by the number of opponents). For each such
  player the heuristic finds, from what it can see (their Houses and tokens, never their
  hidden missions), the best die-and-card they could play next: a card they could complete
  is worth its rabbit to them, a Large card they could only start ``odds_one`` of it. A pick
  that takes that die, or marks or takes that card, costs them the difference to their next
  best option, which is what the pick denies. It costs little when the seat's own options
  are close, and wins when the opponent is about to finish a Large rabbit with the only die
  that fits.
* **The leftover die**: a token of a kind the seat has room for (as v1), unless swapping a
  card away denies the players who pick first next round a rabbit worth at least
  ``deny_swap`` more to them than to the seat (0: never swap).
* Setup and House cards: keep the missions that look easiest; draw Houses up to ``houses``.
* Tokens for a pip change: from the largest pile first (an even spread keeps the most after
  the end-of-round limits).

Weights (``--weight heuristic.NAME=V``): ``token``, ``resources``, ``odds_two``,
``odds_one``, ``houses``, ``rabbit``, ``lone_large``, ``small_waiting`` as in v1;
``mission`` (0 turns partial credit off: missions count only once completed),
``mission_decay``, ``deny`` (0 turns denial off) and ``deny_swap`` (0 turns the swap off).

Cost: the parameter array is taken out of its tuple once a decision, the valley is valued
from scalars (no state is changed and restored), the odds of finishing a Large rabbit are
two bitmask tests a die, and the denial looks only at the opponents' best die and card.
"""

import numpy as np

from simkit.games.dolina_krolikow import rules as R
from simkit.games.dolina_krolikow import state as S
from simkit.games.dolina_krolikow import tables as T
from simkit.jit import kernel
from simkit.registry import StrategySpec, register_strategy

(W_TOKEN, W_RES, P_TWO, P_ONE, W_HOUSES, W_BASE, W_LONE_LARGE, W_SMALL_WAIT, W_MISSION,
 W_DECAY, W_DENY, W_DENY_SWAP) = range(12)
NO_DIE = S.MAXD  # the denial table's row for a move that uses no die (the exchange)
UNMARKED = -1  # the position of a move that marks no card (resources)
NO_CARD = -2.0  # an opponent's option that uses no card (resources): no move marks it


# --- what a House and the Forest card are worth -------------------------------------------
@kernel
def colour_count(a, c0, c1, c2):
    if a == 0:
        return c0
    return c1 if a == 1 else c2


@kernel
def house_need(kind, a, b, n, large, c0, c1, c2):
    """Rabbits still to add for the House (n rabbits, large Large, c0 c1 c2 white brown
    spotted) to be a Family that meets the family condition (kind, a, b): 0 when it is one,
    -1 when it never can be (rabbits never leave a House)."""
    fam = R.family_short(n, large)
    if kind == R.P_HAS:
        return max(fam, b - colour_count(a, c0, c1, c2))
    if kind == R.P_ONLY:
        return fam if colour_count(a, c0, c1, c2) == n else -1
    if kind == R.P_NONE:
        return fam if colour_count(a, c0, c1, c2) == 0 else -1
    if kind == R.P_RAINBOW:
        if n > 3 or c0 > 1 or c1 > 1 or c2 > 1 or (n == 3 and large == 0):
            return -1
        return max(fam, 3 - n)
    if kind == R.P_SIZE:
        return max(fam, a - n)
    if kind == R.P_LARGE:
        return max(fam, a - large)
    if kind == R.P_SMALL:
        need = max(0, a - (n - large))
        return max(fam, need + (1 if large == 0 else 0))
    colours = (c0 > 0) + (c1 > 0) + (c2 > 0)  # P_MONO
    return fam if colours <= 1 else -1


@kernel
def progress(P, w, done_pts, fail_pts, need, later):
    """A mission's worth: its points when done, else the failure points plus partial credit
    for the rabbits still missing (none if it cannot be done in the picks left)."""
    if need == 0:
        return float(done_pts)
    v = float(fail_pts)
    if 0 < need <= later:
        v += w[W_MISSION] * (done_pts - fail_pts) * w[W_DECAY] ** need
    return v


@kernel
def house_value(P, w, mission, n, large, c0, c1, c2, later):
    """Worth of one House from its numbers; ``mission`` is its House card (< 0: hidden)."""
    v = 0.0
    if n >= 2 and 1 <= large <= 2:
        v += P[T.O_SIZE + min(n, 5)]
        if large == 2:
            v += P[R.C_TWO_LARGE]
    elif n > 0:
        pts = P[T.O_SIZE + min(n + 1, 5)]
        v += (w[W_LONE_LARGE] if large >= 1 else w[W_SMALL_WAIT]) * pts
    if mission >= 0:
        m = T.O_HOUSE + 3 * mission
        need = house_need(P[m], P[m + 1], P[m + 2], n, large, c0, c1, c2)
        v += progress(P, w, P[R.C_HOUSE_DONE], P[R.C_HOUSE_FAIL], need, later)
    return v


@kernel
def forest_value(P, obs, seat, w, later, hx, nx, lx, x0, x1, x2):
    """Worth of the seat's Forest card (0 if hidden or none), with House hx's numbers
    replaced by (nx, lx, x0, x1, x2) (hx < 0: none replaced)."""
    f = obs[S.FOREST_KEPT + seat]
    if f < 0:
        return 0.0
    q = T.O_FOREST + 5 * f
    quant, k, kind, a, b = P[q], P[q + 1], P[q + 2], P[q + 3], P[q + 4]
    families, need_sum, best_other, bad = 0, 0, 1 << 20, False
    total_fam, total_all = 0, 0
    chosen = 0  # Q_COUNT: sum of the k smallest needs, by repeated minimum over a bitmask
    for h in range(obs[S.HOUSE_COUNT + seat]):
        i = seat * S.MAXH + h
        n, large = obs[S.HOUSE_N + i], obs[S.HOUSE_LARGE + i]
        c0, c1, c2 = obs[S.HOUSE_COLS + 3 * i], obs[S.HOUSE_COLS + 3 * i + 1], \
            obs[S.HOUSE_COLS + 3 * i + 2]
        if h == hx:
            n, large, c0, c1, c2 = nx, lx, x0, x1, x2
        fam = n >= 2 and 1 <= large <= 2
        if quant == R.Q_TOTAL:
            have = n if a == 3 else colour_count(a, c0, c1, c2)
            total_all += have
            if fam:
                total_fam += have
            continue
        need = house_need(kind, a, b, n, large, c0, c1, c2)
        if quant == R.Q_EVERY:
            if fam:
                families += 1
                if need < 0:
                    bad = True
                need_sum += need
            elif need >= 0:
                best_other = min(best_other, need)
        elif need >= 0:  # Q_COUNT: the Houses that can still meet it
            chosen |= 1 << h
    if quant == R.Q_TOTAL:
        need = max(0, b - total_all)
        if need == 0 and total_fam < b:
            need = 1  # enough rabbits, some not yet in a Family
    elif quant == R.Q_EVERY:
        if bad:
            need = -1
        elif families == 0:
            need = best_other if best_other < (1 << 20) else -1
        else:
            need = need_sum
    else:
        need = count_need(P, obs, seat, k, kind, a, b, chosen, hx, nx, lx, x0, x1, x2)
    return progress(P, w, P[R.C_FOREST_DONE], P[R.C_FOREST_FAIL], need, later)


@kernel
def count_need(P, obs, seat, k, kind, a, b, open_houses, hx, nx, lx, x0, x1, x2):
    """Rabbits missing for k Families to meet the condition: the k smallest needs among the
    Houses that can still meet it, 3 for each House still to draw (-1 if none can be)."""
    total = 0
    for _ in range(k):
        best, best_h = 1 << 20, -1
        for h in range(obs[S.HOUSE_COUNT + seat]):
            if (open_houses >> h) & 1 == 0:
                continue
            i = seat * S.MAXH + h
            n, large = obs[S.HOUSE_N + i], obs[S.HOUSE_LARGE + i]
            c0, c1, c2 = obs[S.HOUSE_COLS + 3 * i], obs[S.HOUSE_COLS + 3 * i + 1], \
                obs[S.HOUSE_COLS + 3 * i + 2]
            if h == hx:
                n, large, c0, c1, c2 = nx, lx, x0, x1, x2
            need = house_need(kind, a, b, n, large, c0, c1, c2)
            if need < best:
                best, best_h = need, h
        if best_h < 0:
            if obs[S.HOUSE_COUNT + seat] >= P[R.C_HOUSE_LIMIT]:
                return -1
            best = 3
        else:
            open_houses &= ~(1 << best_h)
        total += best
    return total


@kernel
def fits(P, obs, seat, h, card):
    """Can ``card`` join seat's House h (h < its House count)? As ``rules.house_fits``, but
    a House whose card is hidden from the observer counts."""
    i = seat * S.MAXH + h
    if P[T.O_CARDS + 2 * card] == R.LARGE and obs[S.HOUSE_LARGE + i] >= 2:
        return False
    if P[R.C_ADV_TABLE] != 0 and obs[S.HOUSE_N + i] >= 2:
        allowed = P[T.O_TABLE + obs[S.HOUSE_C1 + i] * 3 + obs[S.HOUSE_C2 + i]]
        return (allowed >> P[T.O_CARDS + 2 * card + 1]) & 1 == 1
    return True


@kernel
def house_gain(P, obs, seat, h, card, w, later, forest_before):
    """What putting ``card`` into seat's House h adds to the valley's worth."""
    i = seat * S.MAXH + h
    n, large = obs[S.HOUSE_N + i], obs[S.HOUSE_LARGE + i]
    c0, c1, c2 = obs[S.HOUSE_COLS + 3 * i], obs[S.HOUSE_COLS + 3 * i + 1], \
        obs[S.HOUSE_COLS + 3 * i + 2]
    mission = obs[S.HOUSE_CARD + i]
    before = house_value(P, w, mission, n, large, c0, c1, c2, later)
    colour = P[T.O_CARDS + 2 * card + 1]
    n2, l2 = n + 1, large + P[T.O_CARDS + 2 * card]
    d0, d1, d2 = c0 + (colour == 0), c1 + (colour == 1), c2 + (colour == 2)
    after = house_value(P, w, mission, n2, l2, d0, d1, d2, later)
    forest = forest_value(P, obs, seat, w, later, h, n2, l2, d0, d1, d2)
    return after - before + forest - forest_before


@kernel
def rabbit_value(P, obs, seat, card, w, later, forest_before):
    best = -1e9
    for h in range(obs[S.HOUSE_COUNT + seat]):
        if fits(P, obs, seat, h, card):
            best = max(best, house_gain(P, obs, seat, h, card, w, later, forest_before))
    if best == -1e9:
        return 0.1  # a Wanderer
    return best + w[W_BASE]


@kernel
def picks_after(P, obs, seat_step):
    """The picks a seat has after the one at step ``seat_step`` of this round, this round and
    in the rounds to come."""
    picks = P[R.C_PICKS]
    return (P[R.C_ROUNDS] - obs[S.ROUND] - 1) * picks + picks - seat_step // obs[S.N_PLAYERS] - 1


# --- the picks ------------------------------------------------------------------------------
@kernel
def reach(P, obs, seat, f0, total):
    """Faces a die showing f0 can become with the seat's tokens (``rules.reachable_faces``)."""
    return R.reachable_faces(P, obs, S.TOKENS + 3 * seat, total, f0)


@kernel
def completion_odds(P, obs, d, pos, f, spare, w):
    """Chance of finishing a Large rabbit started with die d as face f this round: the other
    dice on the table that ``spare`` tokens could turn into a face that completes it (the
    recolour tokens' kinds not checked)."""
    if obs[S.STEP] // obs[S.N_PLAYERS] + 1 >= P[R.C_PICKS]:
        return 0.0
    card = obs[S.POS_CARD + pos]
    wants = P[T.O_ACCEPT + card * 19 + 1 + f]
    row = T.O_REACH + min(spare, T.REACH_TOTALS - 1) * 8 + 7
    found = 0
    for e in range(P[R.C_N_DICE]):
        if e == d or obs[S.DIE_USE + e] != -1:
            continue
        if P[row + obs[S.DIE_FACE + e] * T.REACH_TOTALS * 8] & wants != 0:
            found += 1
            if found == 2:
                return w[P_TWO]
    return w[P_ONE] if found == 1 else 0.0


@kernel
def opponent_options(P, obs, o, step, w, best):
    """Fill best[e*3 .. e*3+3) for each die e on the table with the best and second best
    worth to seat o, picking at ``step``, of playing it, and the position of the card the
    best uses (NO_CARD: none): a die is worth its resources to o, or a rabbit o could
    complete with it, or ``odds_one`` of a Large rabbit o could only start with it
    (nothing without a later pick this round). Returns the best over all dice."""
    later = picks_after(P, obs, step)
    start = w[P_ONE] if step // obs[S.N_PLAYERS] + 1 < P[R.C_PICKS] else 0.0
    forest_o = forest_value(P, obs, o, w, later, -1, 0, 0, 0, 0, 0)
    tb = S.TOKENS + 3 * o
    total = obs[tb] + obs[tb + 1] + obs[tb + 2]
    top = 0.0
    for e in range(P[R.C_N_DICE]):  # every die can at least be taken as resources
        v = resource_value(P, obs, o, obs[S.DIE_FACE + e], w) if obs[S.DIE_USE + e] == -1 \
            else 0.0
        best[3 * e], best[3 * e + 1], best[3 * e + 2] = v, v, NO_CARD
        top = max(top, v)
    for q in range(P[R.C_POSITIONS]):
        card = obs[S.POS_CARD + q]
        owner = obs[S.POS_OWNER + q]
        if card < 0 or (owner >= 0 and owner != o) or obs[S.POS_D2 + q] >= 0:
            continue
        d1 = obs[S.POS_D1 + q]
        v = rabbit_value(P, obs, o, card, w, later, forest_o)
        if P[T.O_CARDS + 2 * card] == R.LARGE and d1 < 0:
            v *= start
        wants = P[T.O_ACCEPT + card * 19 + 1 + d1]  # d1 = -1: column 0, an empty card
        for e in range(P[R.C_N_DICE]):
            if obs[S.DIE_USE + e] != -1:
                continue
            if R.reachable_faces(P, obs, tb, total, obs[S.DIE_FACE + e]) & wants == 0:
                continue
            if v > best[3 * e]:
                best[3 * e + 1] = best[3 * e]
                best[3 * e], best[3 * e + 2] = v, q
            elif v > best[3 * e + 1]:
                best[3 * e + 1] = v
            top = max(top, v)
    return top


@kernel
def after_taking(P, obs, best, d, p):
    """Seat's best option once die d is gone (NO_DIE: none) and card p marked or taken."""
    v = 0.0
    for e in range(P[R.C_N_DICE]):
        if e == d or obs[S.DIE_USE + e] != -1:
            continue
        v = max(v, best[3 * e + 1] if best[3 * e + 2] == p else best[3 * e])
    return v


@kernel
def fill_denial(P, obs, w, deny, best):
    """deny[d*9 + p + 1] += what a pick with die d (NO_DIE: the exchange) that marks or
    takes the card at p (-1: none) takes away from each player who picks before the seat
    picks again this round, divided by the number of opponents."""
    n = obs[S.N_PLAYERS]
    share = 1.0 / (n - 1)
    last = n * P[R.C_PICKS]
    for j in range(1, n):
        step = obs[S.STEP] + j
        if step >= last:
            break
        o = (obs[S.FIRST] + step) % n
        top = opponent_options(P, obs, o, step, w, best)
        if top <= 0.0:
            continue
        best_e, best_q = -1, -1.0
        for e in range(P[R.C_N_DICE]):
            if obs[S.DIE_USE + e] == -1 and best[3 * e] == top:
                best_e, best_q = e, best[3 * e + 2]
                break
        # only a pick that takes o's best die or its best card changes o's best option
        for p in range(-1, S.MAXPOS):
            v = top - after_taking(P, obs, best, best_e, p)
            if v > 0:
                deny[best_e * 9 + p + 1] += share * v
        for d in range(S.MAXD + 1):
            if d != best_e and best_q >= 0 and (d == NO_DIE or obs[S.DIE_USE + d] == -1):
                v = top - after_taking(P, obs, best, d, best_q)
                if v > 0:
                    deny[d * 9 + int(best_q) + 1] += share * v


@kernel
def resource_value(P, obs, seat, f, w):
    """A die of face f taken as resources: the tokens that survive the end of the round,
    and a little for the pips."""
    have = obs[S.TOKENS + 3 * seat + f // 6]
    kept = min(have + f % 6 + 1, P[R.C_KIND_LIMIT]) - min(have, P[R.C_KIND_LIMIT])
    return w[W_RES] * (kept + 0.25 * (f % 6 + 1))


@kernel
def pick_value(P, obs, seat, move, values, w):
    if move >= R.EXCHANGE:
        return values[move - R.EXCHANGE] + 1.0
    if move < R.PLACE:
        return resource_value(P, obs, seat, obs[S.DIE_FACE + move - R.RES], w)
    m = move - R.PLACE
    f = m % S.N_FACES
    m //= S.N_FACES
    d, pos = m // S.MAXPOS, m % S.MAXPOS
    f0 = obs[S.DIE_FACE + d]
    cost = P[R.C_PIP] * abs(f % 6 - f0 % 6) + (P[R.C_RECOLOUR] if f // 6 != f0 // 6 else 0)
    card = obs[S.POS_CARD + pos]
    if P[T.O_CARDS + 2 * card] == R.LARGE and obs[S.POS_D1 + pos] < 0:
        spare = R.token_total(obs, seat) - cost
        return values[pos] * completion_odds(P, obs, d, pos, f, spare, w) \
            - w[W_TOKEN] * cost - 0.3
    return values[pos] - w[W_TOKEN] * cost


@kernel
def move_die_and_card(move):
    """(die, position) a pick move uses: (-1 or NO_DIE, -1) when none."""
    if move >= R.EXCHANGE:
        return NO_DIE, move - R.EXCHANGE
    if move < R.PLACE:
        return move - R.RES, UNMARKED
    m = (move - R.PLACE) // S.N_FACES
    return m // S.MAXPOS, m % S.MAXPOS


@kernel
def choose_pick(P, obs, seat, moves, n_moves, w):
    # scratch: own worth of each position's rabbit [0, 8), the denial table [8, 98), the
    # opponents' options [98, 125)
    scratch = np.zeros(S.MAXPOS + (S.MAXD + 1) * 9 + 3 * S.MAXD)
    values = scratch[:S.MAXPOS]
    deny = scratch[S.MAXPOS:S.MAXPOS + (S.MAXD + 1) * 9]
    later = picks_after(P, obs, obs[S.STEP])
    forest_before = forest_value(P, obs, seat, w, later, -1, 0, 0, 0, 0, 0)
    for pos in range(P[R.C_POSITIONS]):
        c = obs[S.POS_CARD + pos]
        if c >= 0:
            values[pos] = rabbit_value(P, obs, seat, c, w, later, forest_before)
    denying = w[W_DENY] != 0.0
    if denying:
        fill_denial(P, obs, w, deny, scratch[S.MAXPOS + (S.MAXD + 1) * 9:])
    best, best_v = 0, -1e9
    for k in range(n_moves):
        v = pick_value(P, obs, seat, moves[k], values, w)
        if denying:
            d, p = move_die_and_card(moves[k])
            v += w[W_DENY] * deny[d * 9 + p + 1]
        if v > best_v:
            best, best_v = k, v
    return best


# --- setup, House cards, placing, the leftover die, paying ----------------------------------
@kernel
def mission_ease(kind, a, b):
    if kind == R.P_HAS:
        return 3.0 - b
    if kind in (R.P_NONE, R.P_SIZE, R.P_SMALL):
        return 1.5 if kind == R.P_NONE else 3.5 - a
    if kind == R.P_LARGE:
        return 1.0
    return 0.0  # only one colour, rainbow, mono: hard to plan for


@kernel
def forest_ease(P, f):
    q = T.O_FOREST + 5 * f
    if P[q] == R.Q_EVERY:
        return mission_ease(P[q + 2], P[q + 3], P[q + 4]) + 0.5
    if P[q] == R.Q_COUNT:
        return mission_ease(P[q + 2], P[q + 3], P[q + 4]) - P[q + 1] + 2.0
    return 3.0 - P[q + 4] / 4.0


@kernel
def choose_place(P, obs, seat, moves, n_moves, w):
    card = obs[S.PEND_CARD + obs[S.PEND_I]]
    later = (P[R.C_ROUNDS] - obs[S.ROUND] - 1) * P[R.C_PICKS]
    forest_before = forest_value(P, obs, seat, w, later, -1, 0, 0, 0, 0, 0)
    best, best_v = 0, -1e9
    for k in range(n_moves):
        v = house_gain(P, obs, seat, moves[k] - R.HOUSE, card, w, later, forest_before)
        if v > best_v:
            best, best_v = k, v
    return best


@kernel
def swap_gain(P, obs, seat, pos, w):
    """How much more the rabbit at pos is worth to the best-placed of the players who pick
    first next round than to the seat (the seat picks last of them)."""
    card = obs[S.POS_CARD + pos]
    later = (P[R.C_ROUNDS] - obs[S.ROUND] - 1) * P[R.C_PICKS]
    mine = rabbit_value(P, obs, seat, card, w, later,
                        forest_value(P, obs, seat, w, later, -1, 0, 0, 0, 0, 0))
    theirs = 0.0
    for o in range(obs[S.N_PLAYERS]):
        if o != seat:
            v = rabbit_value(P, obs, o, card, w, later,
                             forest_value(P, obs, o, w, later, -1, 0, 0, 0, 0, 0))
            theirs = max(theirs, v)
    return theirs - mine


@kernel
def choose_leftover(P, obs, seat, moves, n_moves, w):
    best, best_v = n_moves - 1, 0.5
    for k in range(n_moves):
        m = moves[k]
        if R.LEFT_COLOUR <= m < R.LEFT_SWAP:
            kind = obs[S.DIE_FACE + m - R.LEFT_COLOUR] // 6
            v = P[R.C_KIND_LIMIT] - obs[S.TOKENS + 3 * seat + kind]
            if v > best_v:
                best, best_v = k, v
    if w[W_DENY_SWAP] <= 0.0 or obs[S.ROUND] + 1 >= P[R.C_ROUNDS]:
        return best
    swap, swap_v = -1, w[W_DENY_SWAP]
    for k in range(n_moves):
        m = moves[k]
        if R.LEFT_SWAP <= m < R.LEFT_PASS:
            v = swap_gain(P, obs, seat, obs[S.DIE_FACE + m - R.LEFT_SWAP] % 6, w)
            if v >= swap_v:
                swap, swap_v = k, v
    return best if swap < 0 else swap


@kernel
def choose_pay(obs, seat, moves, n_moves):
    """Pay so that the largest piles shrink first (what is above the end-of-round limits is
    lost anyway, and an even spread keeps the most): the smallest kind among the tokens that
    taking one at a time from the largest pile (ties: carrot, cabbage, cornflower) would
    pay."""
    h0, h1, h2 = obs[S.TOKENS + 3 * seat], obs[S.TOKENS + 3 * seat + 1], \
        obs[S.TOKENS + 3 * seat + 2]
    lowest = 3
    for _ in range(obs[S.PAY_LEFT]):
        if h2 > h1 and h2 > h0:
            h2 -= 1
            lowest = min(lowest, 2)
        elif h1 > h0:
            h1 -= 1
            lowest = min(lowest, 1)
        else:
            h0 -= 1
            lowest = 0
    for i in range(n_moves):
        if moves[i] - R.PAY_TOKEN == lowest:
            return i
    return 0


@kernel
def choose_heuristic(params, obs, seat, moves, n_moves, weights, stream):
    P = params[0]
    ph = obs[S.PHASE]
    if ph == S.PH_PAY:
        return choose_pay(obs, seat, moves, n_moves)
    if ph == S.PH_PICK:
        return choose_pick(P, obs, seat, moves, n_moves, weights)
    if ph == S.PH_PLACE:
        return choose_place(P, obs, seat, moves, n_moves, weights)
    if ph == S.PH_LEFTOVER:
        return choose_leftover(P, obs, seat, moves, n_moves, weights)
    if ph == S.PH_DRAW:
        want = obs[S.HOUSE_COUNT + seat] < weights[W_HOUSES]
        return 1 if want and moves[1] == R.DRAW_TAKE else 0
    if ph == S.PH_KEEP:
        best, best_v = 0, -1e9
        for k in range(n_moves):
            b = T.O_HOUSE + 3 * obs[S.DRAWN + k]
            v = mission_ease(P[b], P[b + 1], P[b + 2])
            if v > best_v:
                best, best_v = k, v
        return best
    if ph == S.PH_WANDER_ADD:
        return 0  # a Wanderer in a House beats a Wanderer
    if ph == S.PH_SETUP_FOREST or ph == S.PH_REDEAL:
        a = forest_ease(P, obs[S.FOREST_HAND + 2 * seat])
        b = forest_ease(P, obs[S.FOREST_HAND + 2 * seat + 1])
        return 1 if b > a else 0
    return 0  # setup House cards: keep them all (a House is room for a Family)


register_strategy(StrategySpec(
    "heuristic", choose_heuristic, game="dolina-krolikow",
    weights={"token": 0.15, "resources": 0.35, "odds_two": 0.75, "odds_one": 0.45,
             "houses": 5.0, "rabbit": 1.0, "lone_large": 0.6, "small_waiting": 0.4,
             "mission": 1.0, "mission_decay": 0.6, "deny": 0.5, "deny_swap": 0.0},
    summary="greedy on the change to its valley's worth (partial credit for missions on the "
            "way), with odds for finishing Large rabbits and an eye on what the next "
            "players to pick need"))
