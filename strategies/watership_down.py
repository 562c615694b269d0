"""``heuristic`` for Watership Down: plays whichever side its seat is.

Moves are scored one ply ahead from what the seat can see (``obs``): unknown opponent
tokens count at the average strength of the opponent's unseen characters. The hlessil
march on Watership Down, fetch the joining rabbits (Clover, the doe, at Nuthanger Farm;
Hyzenthlay by an escape from Efrafa), keep out of reach of elil and attack only when
clearly stronger; the elil hold the Down and Efrafa with their strong characters, attack
when stronger and spend their limited forward moves on the others. Battle cards: the
smallest number that wins when the opponent's card is known, Kehaar or a retreat when
clearly weaker, otherwise the highest number left.
"""

from simkit.games.watership_down import rules
from simkit.games.watership_down.state import (
    BIGWIG,
    BLACKBERRY,
    BSPACE,
    CAMPION,
    CARD_E,
    CARD_H,
    CNT,
    D_FWD,
    ELIL,
    ELIL_FIRST,
    ENSNARED,
    FIRST_JOINER,
    HLESSIL,
    HYZENTHLAY,
    IN_PLAY,
    JOIN_AT,
    K_FLAME,
    K_KEHAAR,
    K_NUM,
    K_RET_BACK,
    K_RET_FWD,
    K_RET_SIDE,
    K_TRACKER,
    KESTREL,
    LOC,
    M_CARD,
    M_CHAR,
    M_GIFT,
    M_NO,
    M_PASS,
    M_SPACE,
    M_YES,
    N_CARDS,
    N_CHARS,
    N_RABBITS,
    N_SPACES,
    O_CARDS,
    O_CH,
    O_JOIN,
    O_NB,
    O_SP,
    P_CARD,
    P_DAND,
    P_ESCAPE,
    P_FLAME,
    P_GROUP,
    P_HOLLY,
    P_MOVE,
    P_QUESTION,
    P_RETREAT,
    P_SETUP,
    PENDING,
    PHASE,
    Q_BLACKBERRY,
    Q_CAT,
    Q_EL_E,
    Q_EL_H,
    QUESTION,
    RATS,
    SILVER,
    SNARE,
    STAT,
    WOUNDWORT,
)
from simkit.jit import kernel
from simkit.registry import StrategySpec, register_strategy
from simkit.rng import rand_below

HIDDEN = -2
W_ATTACK, W_RELUCTANCE, W_PROGRESS, W_DOWN, W_LEAVE_DOWN, W_ESCAPE, W_JOIN, W_DANGER, \
    W_DOE, W_E_ATTACK, W_E_AGGR, W_E_BLOCK, W_E_HOLD, W_E_GUARD, W_E_HUNT, W_E_BACK, \
    W_GIFT_COST = range(17)


# ---- what the seat can see ------------------------------------------------------------

@kernel
def tokens(obs, side, s):
    return obs[CNT + side * N_SPACES + s]


@kernel
def unseen_mean(params, obs, side):
    """Mean strength of the opponent's in-play characters whose place is unknown."""
    lo = 0 if side == HLESSIL else N_RABBITS
    hi = N_RABBITS if side == HLESSIL else N_CHARS
    tot, n = 0.0, 0
    for c in range(lo, hi):
        if obs[STAT + c] == IN_PLAY and obs[LOC + c] == HIDDEN and c != SNARE:
            tot += params[0][O_CH + c * 4]
            n += 1
    return tot / n if n > 0 else 2.5


@kernel
def known_at(obs, c, s):
    return obs[STAT + c] == IN_PLAY and obs[LOC + c] == s


@kernel
def elil_estimate(params, obs, t):
    """Expected strength of the elil a rabbit would fight on ``t``."""
    n = tokens(obs, ELIL, t)
    if n == 0:
        return 0.0
    tot, seen = 0.0, 0
    for e in range(N_RABBITS, N_CHARS):
        if known_at(obs, e, t):
            tot += rules.elil_strength(params, obs, e, t) if e != SNARE else 2.0
            seen += 1
    tot += (n - seen) * unseen_mean(params, obs, ELIL)
    return tot / n


@kernel
def rabbit_estimate(params, obs, t):
    n = tokens(obs, HLESSIL, t)
    if n == 0:
        return 0.0
    if known_at(obs, BIGWIG, t):
        return rules.base_strength(params, BIGWIG, t)
    tot, seen = 0.0, 0
    for r in range(N_RABBITS):
        if known_at(obs, r, t):
            tot += rules.base_strength(params, r, t)
            seen += 1
    bonus = params[0][4] if rules.is_down(params[0], t) else 0
    tot += (n - seen) * (unseen_mean(params, obs, HLESSIL) + bonus)
    return tot / n


@kernel
def threat(params, obs, t):
    """Elil tokens that could attack ``t`` on their next move (forward, or across the Down)."""
    n = 0
    for k in range(2):
        u = params[0][O_NB + HLESSIL * 96 + D_FWD * 32 + t * 2 + k]
        if u >= 0:
            n += tokens(obs, ELIL, u)
    if rules.is_down(params[0], t):
        n += tokens(obs, ELIL, rules.other_down(params[0], t))
    return n


@kernel
def progress(params, s):
    """How far a rabbit on ``s`` has come: rows up to the middle (the Down's row), a
    little less beyond it."""
    row = params[0][O_SP + s * 3]
    mid = params[0][rules.G_MIDDLE_ROW]
    return row if row <= mid else mid - 0.25 * (row - mid)


@kernel
def down_count(params, obs):
    n, doe = 0, 0
    for r in range(N_RABBITS):
        if obs[STAT + r] == IN_PLAY and rules.is_down(params[0], obs[LOC + r]):
            n += 1
            doe += params[0][O_CH + r * 4 + 2]
    return n, doe


@kernel
def join_bonus(params, obs, r, t):
    """Value of a rabbit arriving on ``t`` for the joining rabbits it would bring."""
    b = 0.0
    for j in range(5):
        c = FIRST_JOINER + j
        if obs[STAT + c] == PENDING and obs[JOIN_AT + j] < 0:
            kind, spaces = params[0][O_JOIN + j * 3], params[0][O_JOIN + j * 3 + 1]
            hit = (kind == 0 and (spaces >> t) & 1 == 1) or (kind == 1 and t == params[0][0])
            if hit:
                b += 1.0 + 2.0 * params[0][O_CH + c * 4 + 2]
    return b


# ---- the hlessil ---------------------------------------------------------------------------

@kernel
def rabbit_value(params, r, w):
    return 1.0 + w[W_DOE] * params[0][O_CH + r * 4 + 2]


@kernel
def score_rabbit_move(params, obs, r, t, w):
    s = obs[LOC + r]
    v = rabbit_value(params, r, w)
    if tokens(obs, ELIL, t) > 0 and not (obs[ENSNARED] >= 0 and obs[LOC + SNARE] == t
                                         and tokens(obs, ELIL, t) == 1):
        margin = rules.base_strength(params, r, t) - elil_estimate(params, obs, t)
        if r == SILVER and known_at(obs, RATS, t) and tokens(obs, ELIL, t) == 1:
            margin = 5.0
        if r == BLACKBERRY and known_at(obs, SNARE, t) and tokens(obs, ELIL, t) == 1:
            margin = 5.0
        sc = w[W_ATTACK] * margin - w[W_RELUCTANCE] * v
        if t == params[0][0]:
            sc += w[W_ESCAPE] * 0.5
        return sc
    sc = w[W_PROGRESS] * (progress(params, t) - progress(params, s))
    n_down, doe = down_count(params, obs)
    if rules.is_down(params[0], t) and not rules.is_down(params[0], s):
        sc += w[W_DOWN]
        if n_down + 1 >= params[0][12] and doe + params[0][O_CH + r * 4 + 2] > 0:
            sc += 1000.0
    if rules.is_down(params[0], s) and not rules.is_down(params[0], t):
        sc -= w[W_LEAVE_DOWN]
    if t == params[0][0]:
        sc += w[W_ESCAPE]
    sc += w[W_JOIN] * join_bonus(params, obs, r, t)
    sc -= w[W_DANGER] * v * (threat(params, obs, t) - threat(params, obs, s))
    return sc


@kernel
def best_move(params, obs, seat, moves, n_moves, w, stream):
    best, arg, ties = -1e18, 0, 0
    for k in range(n_moves):
        m = moves[k]
        gift = 0.0
        if m >= M_GIFT:                 # the same attack with Gift to the Thousand (+2)
            m -= M_GIFT
            gift = 2.0 * w[W_ATTACK if seat == HLESSIL else W_E_ATTACK] - w[W_GIFT_COST]
        if m == M_PASS:
            sc = 0.0
        elif seat == HLESSIL:
            sc = score_rabbit_move(params, obs, m // 16, m % 16, w) + gift
        else:
            sc = score_elil_move(params, obs, m // 16, m % 16, w) + gift
        if sc > best + 1e-9:
            best, arg, ties = sc, k, 1
        elif sc > best - 1e-9:
            ties += 1
            if rand_below(stream, ties) == 0:
                arg = k
    return arg


@kernel
def escape_score(params, obs, t, w):
    n_down, doe = down_count(params, obs)
    sc = -w[W_DANGER] * threat(params, obs, t)
    if rules.is_down(params[0], t):
        sc += w[W_DOWN] * 2.0
    sc += w[W_JOIN] * join_bonus(params, obs, HYZENTHLAY, t) + progress(params, t)
    return sc


@kernel
def best_space(params, obs, moves, n_moves, w, base, stream):
    """The escape / retreat / Holly-look option on the best space (moves base + space)."""
    best, arg = -1e18, 0
    for k in range(n_moves):
        m = moves[k]
        if m == M_PASS:
            continue
        t = m - base if base > 0 else m % 16
        sc = escape_score(params, obs, t, w) + 0.001 * rand_below(stream, 100)
        if sc > best:
            best, arg = sc, k
    return arg


# ---- the elil ------------------------------------------------------------------------------

@kernel
def score_elil_move(params, obs, e, t, w):
    s = obs[LOC + e]
    es = rules.elil_strength(params, obs, e, t)
    if tokens(obs, HLESSIL, t) > 0:
        if e == SNARE:
            return w[W_E_ATTACK] * 1.5
        margin = es - rabbit_estimate(params, obs, t)
        sc = w[W_E_ATTACK] * margin + w[W_E_AGGR]
        if rules.is_down(params[0], t):
            sc += w[W_E_BLOCK]
        if params[0][O_SP + t * 3] > params[0][O_SP + s * 3]:
            sc += w[W_E_BACK] * (params[0][O_SP + t * 3] - params[0][O_SP + s * 3])
        return sc
    sc = 0.0
    ef = params[0][0]
    if s == ef and tokens(obs, ELIL, ef) <= 2:
        sc -= w[W_E_GUARD] * (3 - tokens(obs, ELIL, ef))
    if rules.is_down(params[0], s):
        sc -= w[W_E_HOLD] * es
    if rules.is_down(params[0], t):
        sc += w[W_E_BLOCK] * es / 5.0
    hunt = 0
    for k in range(2):
        u = params[0][O_NB + ELIL * 96 + D_FWD * 32 + t * 2 + k]
        if u >= 0:
            hunt += tokens(obs, HLESSIL, u)
    sc += w[W_E_HUNT] * hunt * (es - 2.5)
    if params[0][O_SP + t * 3] == 0:
        sc -= 0.5
    return sc


# ---- battles -------------------------------------------------------------------------------

@kernel
def battle_strengths(params, obs):
    r, e = rules.battlers(obs)
    b = obs[BSPACE]
    return r, e, rules.rabbit_strength(params, obs, r, b), rules.elil_strength(params, obs, e, b)


@kernel
def find_card(moves, n_moves, k):
    for i in range(n_moves):
        if moves[i] == M_CARD + k:
            return i
    return -1


@kernel
def card_kind(params, side, k):
    return params[0][O_CARDS + side * 22 + k * 2], params[0][O_CARDS + side * 22 + k * 2 + 1]


@kernel
def pick_number(params, moves, n_moves, side, need, lowest):
    """The smallest number card >= need (or the highest/lowest number when none fits)."""
    best, arg, hi, hi_arg, lo, lo_arg = 99, -1, -1, -1, 99, -1
    for i in range(n_moves):
        k = moves[i] - M_CARD
        if k < 0 or k >= N_CARDS:
            continue
        kind, v = card_kind(params, side, k)
        if kind != K_NUM:
            continue
        if v >= need and v < best:
            best, arg = v, i
        if v > hi:
            hi, hi_arg = v, i
        if v < lo:
            lo, lo_arg = v, i
    if lowest:
        return lo_arg
    return arg if arg >= 0 else hi_arg


@kernel
def find_kind(params, moves, n_moves, side, kind):
    for i in range(n_moves):
        k = moves[i] - M_CARD
        if 0 <= k < N_CARDS and card_kind(params, side, k)[0] == kind:
            return i
    return -1


@kernel
def rabbit_card(params, obs, moves, n_moves):
    r, e, rs, es = battle_strengths(params, obs)
    if r == obs[ENSNARED]:
        return max(pick_number(params, moves, n_moves, HLESSIL, 0, True), 0)
    ek, ev = -1, 0
    if obs[ELIL_FIRST] == 1 and obs[CARD_E] >= 0:
        ek, ev = card_kind(params, ELIL, obs[CARD_E])
    if ek == K_RET_BACK or ek == K_FLAME:
        return max(pick_number(params, moves, n_moves, HLESSIL, 0, True), 0)
    kehaar = find_kind(params, moves, n_moves, HLESSIL, K_KEHAAR)
    in_efrafa = obs[BSPACE] == params[0][0]
    if ek == K_NUM or ek == K_TRACKER:
        need = es + ev - rs + 1
        i = pick_number(params, moves, n_moves, HLESSIL, need, False)
        if i >= 0 and params[0][O_CARDS + HLESSIL * 22 + (moves[i] - M_CARD) * 2 + 1] >= need:
            return i
        if kehaar >= 0 and not in_efrafa:
            return kehaar
    else:
        gap = es + 3.5 - rs
        if gap >= 2.0 and kehaar >= 0 and not in_efrafa:
            return kehaar
        if gap >= 4.0 and e != CAMPION:
            for kind in (K_RET_BACK, K_RET_SIDE, K_RET_FWD):
                i = find_kind(params, moves, n_moves, HLESSIL, kind)
                if i >= 0:
                    return i
        if gap <= -4.0 or gap >= 6.0:
            return max(pick_number(params, moves, n_moves, HLESSIL, 0, True), 0)
        i = pick_number(params, moves, n_moves, HLESSIL, 99, False)
        if i >= 0:
            return i
    return max(pick_number(params, moves, n_moves, HLESSIL, 0, True), 0)


@kernel
def elil_card(params, obs, moves, n_moves):
    r, e, rs, es = battle_strengths(params, obs)
    paralysed = r == obs[ENSNARED]
    gap = es - rs - (0 if paralysed else 3.0)
    if gap >= 4.0:
        return max(pick_number(params, moves, n_moves, ELIL, 0, True), 0)
    if gap <= -3.0:
        i = find_kind(params, moves, n_moves, ELIL, K_FLAME)
        if i >= 0:
            return i
        i = find_kind(params, moves, n_moves, ELIL, K_RET_BACK)
        if i >= 0 and obs[BSPACE] != params[0][0]:
            return i
    i = pick_number(params, moves, n_moves, ELIL, 99, False)
    return i if i >= 0 else 0


# ---- the choice ----------------------------------------------------------------------------

@kernel
def answer(params, obs, seat, moves, n_moves):
    q = obs[QUESTION]
    yes = 1
    if q == Q_CAT:
        r, e, rs, es = battle_strengths(params, obs)
        yes = 1 if es >= rs else 0
    elif q == Q_BLACKBERRY or q == Q_EL_H or q == Q_EL_E:
        r, e, rs, es = battle_strengths(params, obs)
        hk, hv = card_kind(params, HLESSIL, obs[CARD_H])
        ek, ev = card_kind(params, ELIL, obs[CARD_E])
        plain = hk == K_NUM and ek == K_NUM
        if q == Q_EL_E:
            yes = 1 if (plain and es + ev <= rs + hv) else 0
        else:
            yes = 1 if (plain and rs + hv <= es + ev) else 0
    elif q == 0 or q == 1:            # Hyzenthlay's or Blackavar's retreat
        r, e, rs, es = battle_strengths(params, obs)
        yes = 1 if es + 1 > rs else 0
    want = M_YES if yes == 1 else M_NO
    for k in range(n_moves):
        if moves[k] == want:
            return k
    return 0


@kernel
def setup_choice(params, obs, seat, moves, n_moves, stream):
    """The elil put their strong characters (and the far-reaching Kestrel) forward and keep
    Woundwort home to guard Efrafa; the hlessil spread at random."""
    if seat == HLESSIL:
        return rand_below(stream, n_moves)
    best, arg = -1, 0
    for k in range(n_moves):
        c = moves[k] - M_CHAR
        v = params[0][O_CH + c * 4] + (3 if c == KESTREL else 0) - (9 if c == WOUNDWORT else 0)
        if v > best:
            best, arg = v, k
    return arg


@kernel
def choose_heuristic(params, obs, seat, moves, n_moves, weights, stream):
    ph = obs[PHASE]
    if ph == P_MOVE or ph == P_DAND:
        return best_move(params, obs, seat, moves, n_moves, weights, stream)
    if ph == P_CARD:
        if seat == HLESSIL:
            return rabbit_card(params, obs, moves, n_moves)
        return elil_card(params, obs, moves, n_moves)
    if ph == P_QUESTION:
        return answer(params, obs, seat, moves, n_moves)
    if ph == P_ESCAPE or ph == P_HOLLY:
        if ph == P_HOLLY:
            return n_moves - 1
        return best_space(params, obs, moves, n_moves, weights, M_SPACE, stream)
    if ph == P_RETREAT or ph == P_FLAME:
        return best_space(params, obs, moves, n_moves, weights, 0, stream)
    if ph == P_GROUP:
        return n_moves - 1 if rules.is_down(params[0], obs[LOC + 0]) else 0
    if ph == P_SETUP:
        return setup_choice(params, obs, seat, moves, n_moves, stream)
    return 0


register_strategy(StrategySpec(
    "heuristic", choose_heuristic, game="watership-down",
    weights={"attack": 1.0, "reluctance": 1.5, "progress": 1.0, "down": 3.0,
             "leave_down": 4.0, "escape": 3.0, "join": 2.0, "danger": 0.8, "doe": 2.0,
             "e_attack": 1.0, "e_aggression": 0.5, "e_block": 1.0, "e_hold": 0.6,
             "e_guard": 1.0, "e_hunt": 0.3, "e_backward": 0.5, "gift_cost": 1.5},
    summary="one-ply scoring: the hlessil march on the Down and fetch the does; the elil "
            "hold the Down and Efrafa and fight when stronger"))
