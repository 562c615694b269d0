"""``heuristic`` for Watership Down: plays whichever side its seat is (v2; ``heuristic-v1``
is the same kernel with the v2 weights at 0, which plays exactly as v1 did).

Moves are scored one ply ahead from what the seat can see (``obs``): unknown opponent
tokens count at the average strength of the opponent's unseen characters. The hlessil
march on Watership Down, fetch the joining rabbits (Clover, the doe, at Nuthanger Farm;
Hyzenthlay by an escape from Efrafa), keep out of reach of elil and attack only when
clearly stronger; the elil hold the Down and Efrafa with their strong characters, attack
when stronger and spend their limited forward moves on the others.

Battle cards (v2, ``count_cards``): hands are public, so each card of the hand is scored
by its expected result against the cards left in the opponent's hand (the card itself
when it lies face up), the rules' resolution order followed (the elil's text card, then
the hlessil's, then strengths); the opponent plays its own best answer with weight
``card_read``, any card of its hand otherwise; a card spent costs ``card_cost`` (hlessil)
or ``e_card_cost`` (elil) per point of its worth, since it is gone until the hand comes
back. The Cat's no-cards choice compares the bare fight with the best card. v1 (weight 0):
the smallest number that wins when the opponent's card is known, Kehaar or a retreat
when clearly weaker, otherwise the highest number left.

Weights (``--weight heuristic.NAME=V``); v1's first seventeen, then v2's:
    attack, reluctance    a rabbit's attack: margin of strength, against the rabbit's value
    progress, down, leave_down, escape, join, danger, doe
                          rabbit moves: rows gained, reaching / leaving the Down, entering
                          Efrafa, joiners brought, elil in reach, a doe's extra value
                          (``down`` is 5 in v2, 3 in v1: with the cards counted, rabbits
                          that step onto the Down win there more often)
    e_attack, e_aggression, e_block, e_hold, e_guard, e_hunt, e_backward
                          elil moves: attack margin and bias, holding the Down, guarding
                          Efrafa, standing next to rabbits, attacks that gain rows back
    gift_cost             what Gift to the Thousand is worth kept
    count_cards    1.0    0 plays v1's card rules; otherwise the counted cards above
    card_cost      0.2    the hlessil's cost of spending a card, per point of its worth
    card_read      0.75   weight of the opponent's best answer in the card model
    placement      1.0    0 places the rabbits at random (v1); otherwise by their gifts
    doe_safety     0.3    extra weight on a doe's exposure (elil that can reach her, the
                          Kestrel, Woundwort from beside, shared among her guards)
    e_deny         0.0    elil: hold the Down empty of rabbits and Efrafa guarded while
                          Hyzenthlay awaits the first escape (measured harmful: off)
    e_deny_join    0.0    elil: stand on Clover's and Strawberry's spaces before they join
                          (they then appear in Sandleford, nearer the Down: off)
    e_budget       1.0    elil: no stranding move into Sandleford; when few forward moves
                          are left, spend them from the character with most to spare
    e_card_cost    0.2    the elil's cost of spending a card, per point of its worth
"""

from simkit.games.watership_down import rules
from simkit.games.watership_down.state import (
    BIGWIG,
    BLACKBERRY,
    BSPACE,
    BUCKTHORN,
    CAMPION,
    CARD_E,
    CARD_H,
    CLOVER,
    CNT,
    D_BACK,
    D_FWD,
    D_SIDE,
    DANDELION,
    ELIL,
    ELIL_FIRST,
    ENSNARED,
    FIRST_JOINER,
    FIVER,
    GIFT,
    HAND,
    HAWKBIT,
    HAZEL,
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
    PIPKIN,
    Q_BLACKBERRY,
    Q_CAT,
    Q_EL_E,
    Q_EL_H,
    QUESTION,
    RATS,
    SETUP,
    SILVER,
    SNARE,
    STAT,
    WOUNDWORT,
)
from simkit.jit import inline, kernel
from simkit.registry import StrategySpec, register_strategy
from simkit.rng import rand_below

HIDDEN = -2
W_ATTACK, W_RELUCTANCE, W_PROGRESS, W_DOWN, W_LEAVE_DOWN, W_ESCAPE, W_JOIN, W_DANGER, \
    W_DOE, W_E_ATTACK, W_E_AGGR, W_E_BLOCK, W_E_HOLD, W_E_GUARD, W_E_HUNT, W_E_BACK, \
    W_GIFT_COST, W_COUNT_CARDS, W_CARD_COST, W_CARD_READ, W_PLACEMENT, W_DOE_SAFETY, \
    W_E_DENY, W_E_DENY_JOIN, W_E_BUDGET, W_E_CARD_COST, W_E_DENY_EFRAFA, W_E_STRIKE = range(28)


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
        if w[W_DOE_SAFETY] != 0.0 and params[0][O_CH + r * 4 + 2] == 1:
            sc -= w[W_DOE_SAFETY] * 3.0       # a doe does not pick fights
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
    if w[W_DOE_SAFETY] != 0.0:
        sc -= w[W_DOE_SAFETY] * doe_exposure_change(params, obs, r, s, t)
    return sc


@kernel
def exposure(params, obs, t, others):
    """How exposed a doe on ``t`` is, with ``others`` rabbits beside her: the elil that
    could attack ``t`` next turn (forward, across the Down, the Kestrel from anywhere, a
    Woundwort from beside), shared among her guards (Clover is attacked last, and every
    rabbit there must fall first; Bigwig is always attacked first)."""
    a = float(threat(params, obs, t))
    if obs[STAT + KESTREL] == IN_PLAY and obs[LOC + KESTREL] != t:
        a += 0.5
    if obs[STAT + WOUNDWORT] == IN_PLAY:
        for k in range(2):
            u = params[0][O_NB + HLESSIL * 96 + D_SIDE * 32 + t * 2 + k]
            if u >= 0 and tokens(obs, ELIL, u) > 0:
                a += 0.3
    guard = 1.0 + 2.0 * others
    if known_at(obs, BIGWIG, t):
        guard += 2.0
    return a / guard


@kernel
def doe_exposure_change(params, obs, r, s, t):
    """How much the move of ``r`` from ``s`` to ``t`` exposes the does, weighted by their
    value: a doe walking towards the elil or away from her guards, a guard leaving a doe
    alone, or coming to stand by her (negative)."""
    d = 0.0
    for doe in (CLOVER, HYZENTHLAY):
        if obs[STAT + doe] != IN_PLAY:
            continue
        ds = obs[LOC + doe]
        if doe == r:
            d += 3.0 * (exposure(params, obs, t, tokens(obs, HLESSIL, t))
                        - exposure(params, obs, s, tokens(obs, HLESSIL, s) - 1))
        elif ds == s:
            n = tokens(obs, HLESSIL, s)
            d += 3.0 * (exposure(params, obs, s, n - 2) - exposure(params, obs, s, n - 1))
        elif ds == t:
            n = tokens(obs, HLESSIL, t)
            d += 3.0 * (exposure(params, obs, t, n) - exposure(params, obs, t, n - 1))
    return d


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
        if w[W_E_STRIKE] != 0.0 and escape_pending(obs) and next_to_efrafa(params, t):
            sc += w[W_E_STRIKE]               # strike the rabbits about to escape
        if w[W_E_BUDGET] != 0.0:
            sc += budget_score(params, obs, s, t, True, w)
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
    if w[W_E_DENY] != 0.0 or w[W_E_DENY_JOIN] != 0.0 or w[W_E_DENY_EFRAFA] != 0.0:
        sc += deny_score(params, obs, s, t, w)
    if w[W_E_BUDGET] != 0.0:
        sc += budget_score(params, obs, s, t, False, w)
    return sc


@kernel
def escape_pending(obs):
    """Hyzenthlay still waits for the first escape from Efrafa."""
    j = HYZENTHLAY - FIRST_JOINER
    return obs[STAT + HYZENTHLAY] == PENDING and obs[JOIN_AT + j] < 0


@kernel
def next_to_efrafa(params, t):
    ef = params[0][0]
    for k in range(2):
        if params[0][O_NB + HLESSIL * 96 + D_FWD * 32 + t * 2 + k] == ef:
            return True
    return False


@kernel
def rabbits_near_efrafa(params, obs):
    n = 0
    for u in range(N_SPACES):
        if next_to_efrafa(params, u):
            n += tokens(obs, HLESSIL, u)
    return n


@kernel
def appear_space(params, obs, j):
    """Where the pending, untriggered joiner ``j`` (an entering trigger) would appear:
    a bitmask of spaces, 0 when it is in play, triggered or joins otherwise."""
    c = FIRST_JOINER + j
    if obs[STAT + c] != PENDING or obs[JOIN_AT + j] >= 0 or params[0][O_JOIN + j * 3] != 0:
        return 0
    a = params[0][O_JOIN + j * 3 + 2]
    return params[0][O_JOIN + j * 3 + 1] if a < 0 else 1 << a


@kernel
def deny_score(params, obs, s, t, w):
    """The elil deny the joiners their spaces. Hyzenthlay appears where the first escape
    from Efrafa lands, and an escape cannot land on elil: keep both Down spaces held and
    Efrafa guarded while a rabbit stands next to it. The entering joiners (Clover,
    Strawberry) appear in Sandleford when elil stand on their space."""
    sc = 0.0
    if escape_pending(obs):
        if rules.is_down(params[0], t) and tokens(obs, ELIL, t) == 0 and not rules.is_down(
                params[0], s):
            sc += w[W_E_DENY]
        if rules.is_down(params[0], s) and tokens(obs, ELIL, s) == 1 and not rules.is_down(
                params[0], t):
            sc -= w[W_E_DENY]
        ef = params[0][0]
        if s == ef and tokens(obs, ELIL, ef) <= 2:
            sc -= w[W_E_DENY_EFRAFA] * rabbits_near_efrafa(params, obs)
    for j in range(5):
        m = appear_space(params, obs, j)
        if m == 0:
            continue
        if (m >> t) & 1 == 1 and tokens(obs, ELIL, t) == 0:
            sc += w[W_E_DENY_JOIN]
        if (m >> s) & 1 == 1 and tokens(obs, ELIL, s) == 1:
            sc -= w[W_E_DENY_JOIN]
    return sc


@kernel
def moves_left(params, obs):
    """The elil's forward moves left: every movable elil's rows to go."""
    n = 0
    for e in range(N_RABBITS, N_CHARS):
        if obs[STAT + e] == IN_PLAY and not (e == SNARE and obs[ENSNARED] >= 0):
            n += params[0][O_SP + obs[LOC + e] * 3]
    return n


@kernel
def budget_score(params, obs, s, t, attack, w):
    """The elil's forward moves are limited (no move left loses). A move into Sandleford
    strands its mover; when few moves are left, spend them from the character with most
    to spare, and prize the attacks that cost none (across the Down, the Kestrel's and
    Woundwort's sideways and backward ones)."""
    rs, rt = params[0][O_SP + s * 3], params[0][O_SP + t * 3]
    pressure = max(0.0, 1.0 - moves_left(params, obs) / 20.0)
    if attack:
        return w[W_E_BUDGET] * pressure * (1.0 if rt >= rs else 0.0)
    sc = w[W_E_BUDGET] * pressure * rs / 6.0
    if rt == 0:
        sc -= w[W_E_BUDGET]
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


# ---- battles with the cards counted ---------------------------------------------------------

@inline
def card_worth(params, side, k):
    """What a card is worth kept in the hand, in points of a number card."""
    kind, v = card_kind(params, side, k)
    if kind == K_NUM:
        return float(v)
    if kind == K_KEHAAR or kind == K_FLAME:
        return 5.0
    if kind == K_RET_BACK and side == ELIL:
        return 3.0
    return 2.0


@kernel
def flame_value(params, obs, r, b, vr):
    """The Flaming Stick's cost to the hlessil: every rabbit on ``b`` retreats, each in a
    direction of its own; those left without one, and an ensnared one, are defeated."""
    n = tokens(obs, HLESSIL, b)
    dirs = 0
    for d in range(3):
        if rules.retreat_mask(params, obs, r, 1 << d, 0) != 0:
            dirs += 1
    lost = 0.0
    if obs[ENSNARED] >= 0 and obs[LOC + obs[ENSNARED]] == b:
        lost += 1.0
        n -= 1
    dead = max(0, n - dirs)
    lost += vr if (n == 1 and dead == 1) else float(dead)
    if rules.is_down(params[0], b):
        lost += 0.3 * (n - dead)          # the rabbits are driven off the Down
    return -lost


@kernel
def battle_facts(params, obs, r, e, b, vr):
    """What the cards' effects depend on, computed once a decision: can the elil battler
    retreat backward, can the rabbit retreat backward / sideways / forward (bits 0, 1, 2),
    and the Flaming Stick's cost to the hlessil."""
    e_back = rules.retreat_mask(params, obs, e, 1 << D_BACK, 0) != 0
    r_dirs = 0
    for d in range(3):
        if rules.retreat_mask(params, obs, r, 1 << d, 0) != 0:
            r_dirs |= 1 << d
    return e_back, r_dirs, flame_value(params, obs, r, b, vr)


@inline
def battle_value(params, obs, e, b, rs, es, hk, hv, ek, ev, vr, ve, e_back, r_dirs, flame):
    """The hlessil's gain from one battle round with these cards (their effects), resolved
    as the rules do: the elil's text card first, then the hlessil's, then strengths."""
    e_gone = False
    if ek == K_RET_BACK:
        e_gone = e_back
    elif ek == K_FLAME:
        return flame
    val = 0.0
    if hk == K_RET_BACK or hk == K_RET_SIDE or hk == K_RET_FWD:
        if ek != K_TRACKER and e != CAMPION and not e_gone:
            d = D_BACK if hk == K_RET_BACK else (D_SIDE if hk == K_RET_SIDE else D_FWD)
            if (r_dirs >> d) & 1 == 1:
                return -0.1
    elif hk == K_KEHAAR and b != params[0][0]:
        return 0.2 + 0.1 * tokens(obs, ELIL, b)
    if e_gone:
        return 0.1
    if rs + hv <= es + ev:
        val -= vr
    if rs + hv >= es + ev:
        val += ve
    return val


@inline
def effect(params, obs, side, k, r):
    """(kind, value) a card of ``side`` would have: none for an ensnared rabbit's."""
    if k < 0 or (side == HLESSIL and r == obs[ENSNARED]):
        return K_NUM, 0
    return card_kind(params, side, k)


@kernel
def best_card(params, obs, side, w):
    """The card of ``side``'s hand with the best expected result, and that result: the
    opponent's card is one of the cards left in its hand (hands are public), known when
    it was played face up; the opponent plays, with weight ``card_read``, its own best
    answer to a card of ours drawn at random, and otherwise any card of its hand. A card
    played is gone until the hand comes back: each costs ``card_cost`` / ``e_card_cost``
    per point of its worth. Returns (card, value), card -1 when the hand is empty."""
    r, e, rs0, es0 = battle_strengths(params, obs)
    b = obs[BSPACE]
    rs, es = float(rs0), float(es0)
    if obs[GIFT] == r:
        rs += params[0][rules.G_GIFT_BONUS]
    elif obs[GIFT] == e:
        es += params[0][rules.G_GIFT_BONUS]
    vr = rabbit_value(params, r, w)
    ve = 1.0
    e_back, r_dirs, flame = battle_facts(params, obs, r, e, b, vr)
    opp = 1 - side
    cost = w[W_CARD_COST] if side == HLESSIL else w[W_E_CARD_COST]
    opp_cost = w[W_E_CARD_COST] if side == HLESSIL else w[W_CARD_COST]
    known = -1
    if side == HLESSIL and obs[ELIL_FIRST] == 1 and obs[CARD_E] >= 0:
        known = obs[CARD_E]
    answers = side == ELIL and obs[ELIL_FIRST] == 1      # the hlessil will see our card
    mine, theirs = 0, 0                  # bitmasks of the cards in play for each side
    for k in range(9):
        if obs[HAND + side * N_CARDS + k] == 1:
            mine |= 1 << k
        if obs[HAND + opp * N_CARDS + k] == 1:
            theirs |= 1 << k
    if known >= 0:
        theirs = 1 << known
    n_mine, n_opp = rules.popcount(mine), rules.popcount(theirs)
    if n_mine == 0:
        return -1, 0.0
    read, read_v = -1, -1e18       # the opponent's best answer to a card of ours at random
    if n_opp > 1 and not answers:
        for j in range(9):
            if (theirs >> j) & 1 == 0:
                continue
            tot = 0.0
            for i in range(9):
                if (mine >> i) & 1 == 1:
                    tot -= pair_value(params, obs, side, i, j, r, e, b, rs, es, vr, ve,
                                      e_back, r_dirs, flame)
            v = tot / n_mine - opp_cost * card_worth(params, opp, j)
            if v > read_v:
                read, read_v = j, v
    lam = w[W_CARD_READ] if read >= 0 else 0.0
    best, best_v = -1, -1e18
    for i in range(9):
        if (mine >> i) & 1 == 0:
            continue
        if n_opp == 0:
            ev = pair_value(params, obs, side, i, -1, r, e, b, rs, es, vr, ve, e_back,
                            r_dirs, flame)
        elif answers:
            ev = 1e18
            for j in range(9):
                if (theirs >> j) & 1 == 1:
                    ev = min(ev, pair_value(params, obs, side, i, j, r, e, b, rs, es, vr, ve,
                                            e_back, r_dirs, flame)
                             + opp_cost * card_worth(params, opp, j))
        else:
            tot = 0.0
            for j in range(9):
                if (theirs >> j) & 1 == 1:
                    tot += pair_value(params, obs, side, i, j, r, e, b, rs, es, vr, ve,
                                      e_back, r_dirs, flame)
            ev = (1.0 - lam) * tot / n_opp
            if read >= 0:
                ev += lam * pair_value(params, obs, side, i, read, r, e, b, rs, es, vr, ve,
                                       e_back, r_dirs, flame)
        ev -= cost * card_worth(params, side, i) * (n_mine - 1) / 8.0
        if ev > best_v:
            best, best_v = i, ev
    return best, best_v


@inline
def pair_value(params, obs, side, mine, theirs, r, e, b, rs, es, vr, ve, e_back, r_dirs,
               flame):
    """``side``'s gain when it plays card ``mine`` and the other side ``theirs`` (-1 none)."""
    h, x = (mine, theirs) if side == HLESSIL else (theirs, mine)
    hk, hv = effect(params, obs, HLESSIL, h, r)
    ek, ev = effect(params, obs, ELIL, x, r)
    v = battle_value(params, obs, e, b, rs, es, hk, hv, ek, ev, vr, ve, e_back, r_dirs, flame)
    return v if side == HLESSIL else -v


@kernel
def counted_card(params, obs, seat, moves, n_moves, w):
    k, v = best_card(params, obs, seat, w)
    for i in range(n_moves):
        if moves[i] == M_CARD + k:
            return i
    return 0


@kernel
def cat_no_cards(params, obs, w):
    """The Cat's choice with the cards counted: no cards when the bare strengths do at
    least as well for the elil as their best card would."""
    r, e, rs, es = battle_strengths(params, obs)
    bare = -battle_value(params, obs, e, obs[BSPACE], float(rs), float(es), K_NUM, 0,
                         K_NUM, 0, rabbit_value(params, r, w), 1.0, False, 0, 0.0)
    k, v = best_card(params, obs, ELIL, w)
    return 1 if k < 0 or bare >= v else 0


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
def placement_value(c, slot):
    """How well rabbit ``c`` suits setup slot ``slot`` (the hlessil's five non-home spaces
    in placement order: the two of the first row, then the three of the second; a rabbit
    left unplaced starts in Sandleford). The second row meets the elil first and steps onto
    the Down and the joiners' spaces: the strong there (Bigwig, who guards Clover once she
    joins, on the space before her farm); Dandelion, whose double move reaches the Down
    from the first row; Hazel, Fiver and Pipkin, whose gifts work in company, at home with
    the group Hazel leads."""
    if c == HAZEL or c == FIVER or c == PIPKIN:
        return -10.0
    if slot == 4:
        return 10.0 if c == BIGWIG else (6.0 if c == SILVER or c == BUCKTHORN else 1.0)
    if slot == 2 or slot == 3:
        if c == SILVER or c == BUCKTHORN:
            return 9.0
        return 6.0 if c == BIGWIG else (3.0 if c == BLACKBERRY else 1.0)
    if c == DANDELION:
        return 8.0
    if c == BLACKBERRY or c == HAWKBIT:
        return 4.0
    return 1.0


@kernel
def rabbit_placement(params, obs, moves, n_moves, stream):
    """The hlessil's setup: the rabbit that best suits the next slot (ties at random)."""
    slot = obs[SETUP] % 5
    best, arg, ties = -1e18, 0, 0
    for k in range(n_moves):
        v = placement_value(moves[k] - M_CHAR, slot)
        if v > best:
            best, arg, ties = v, k, 1
        elif v == best:
            ties += 1
            if rand_below(stream, ties) == 0:
                arg = k
    return arg


@kernel
def choose_heuristic(params, obs, seat, moves, n_moves, weights, stream):
    ph = obs[PHASE]
    if ph == P_MOVE or ph == P_DAND:
        return best_move(params, obs, seat, moves, n_moves, weights, stream)
    if ph == P_CARD:
        if weights[W_COUNT_CARDS] != 0.0:
            return counted_card(params, obs, seat, moves, n_moves, weights)
        if seat == HLESSIL:
            return rabbit_card(params, obs, moves, n_moves)
        return elil_card(params, obs, moves, n_moves)
    if ph == P_QUESTION:
        if obs[QUESTION] == Q_CAT and weights[W_COUNT_CARDS] != 0.0:
            want = M_YES if cat_no_cards(params, obs, weights) == 1 else M_NO
            return 1 if moves[1] == want else 0
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
        if seat == HLESSIL and weights[W_PLACEMENT] != 0.0:
            return rabbit_placement(params, obs, moves, n_moves, stream)
        return setup_choice(params, obs, seat, moves, n_moves, stream)
    return 0


register_strategy(StrategySpec(
    "heuristic", choose_heuristic, game="watership-down",
    weights={"attack": 1.0, "reluctance": 1.5, "progress": 1.0, "down": 5.0,
             "leave_down": 4.0, "escape": 3.0, "join": 2.0, "danger": 0.8, "doe": 2.0,
             "e_attack": 1.0, "e_aggression": 0.5, "e_block": 1.0, "e_hold": 0.6,
             "e_guard": 1.0, "e_hunt": 0.3, "e_backward": 0.5, "gift_cost": 1.5,
             "count_cards": 1.0, "card_cost": 0.2, "card_read": 0.75, "placement": 1.0,
             "doe_safety": 0.3, "e_deny": 0.5, "e_deny_join": 0.0, "e_budget": 1.0,
             "e_card_cost": 0.2, "e_deny_efrafa": 0.0, "e_strike": 0.0},
    summary="one-ply scoring: the hlessil march on the Down and fetch the does; the elil "
            "hold the Down and Efrafa and fight when stronger"))

V1_WEIGHTS = {"attack": 1.0, "reluctance": 1.5, "progress": 1.0, "down": 3.0,
              "leave_down": 4.0, "escape": 3.0, "join": 2.0, "danger": 0.8, "doe": 2.0,
              "e_attack": 1.0, "e_aggression": 0.5, "e_block": 1.0, "e_hold": 0.6,
              "e_guard": 1.0, "e_hunt": 0.3, "e_backward": 0.5, "gift_cost": 1.5,
              "count_cards": 0.0, "card_cost": 0.0, "card_read": 0.0, "placement": 0.0,
              "doe_safety": 0.0, "e_deny": 0.0, "e_deny_join": 0.0, "e_budget": 0.0,
              "e_card_cost": 0.0, "e_deny_efrafa": 0.0, "e_strike": 0.0}

register_strategy(StrategySpec(
    "heuristic-v1", choose_heuristic, game="watership-down", weights=V1_WEIGHTS,
    summary="the heuristic as it was before v2 (the same kernel, the v2 behaviours off)"))
