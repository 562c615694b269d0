"""``heuristic-v1`` for War of the Wilds: the heuristic as it was before issue 16, frozen
(``heuristic`` in ``war_of_the_wilds.py`` is its successor). Forage and bury steadily, raid
the fattest store, block to protect your own, and spend resources on the cards that bring
acorns. Kept as it was, so that new heuristics can be measured against it.

Weights:
  bury_at        bury when the store holds at least this many acorns
  raid_min       attack a player only if their store holds at least this many acorns
  block_always   1: block whenever something could be blocked while the store is at risk
  creature_bias  how much a creature's fighting value counts against acorn tricks
"""

from simkit.games.war_of_the_wilds.state import (
    ABILITY,
    ACCEPT,
    ALINK,
    ARMY,
    ATGT,
    ATTACK,
    BLOCK,
    BLOCK_FOX,
    BURY,
    C_AMOUNT,
    C_COST,
    C_EFFECT,
    C_FLY,
    C_HP,
    C_RANGED,
    C_STR,
    C_TRICK,
    CARD,
    D_FROST,
    DAY,
    DAY_CARD,
    DECLINE,
    DISCARD_CARD,
    DRAW,
    E_AMBUSH,
    E_BURY,
    E_DEFEND,
    E_DIG_UP,
    E_DRAW,
    E_FORAGE,
    E_RALLY,
    E_STEAL_STORE,
    E_TIRE_BURY,
    E_TIRE_DRAW,
    E_TIRE_FORAGE,
    E_TIRE_GATHER,
    E_UNBLOCKED_DIG,
    E_UNBLOCKED_STEAL,
    END_PLAY,
    FORAGE,
    GATHER,
    HAND,
    MAX_ARMY,
    N_CARD_COLS,
    N_PLAYERS,
    NO_BLOCK,
    OFFER_DROP,
    OFFER_GET,
    OFFER_GIVE,
    PAY_CARD,
    PAY_RES,
    PH_ACTION,
    PH_AFTER,
    PH_ASSIGN,
    PH_BLOCK,
    PH_DISCARD,
    PH_DRAW,
    PH_FOX_BLOCK,
    PH_MAIN,
    PH_OFFER,
    PH_PAY,
    PH_REPLY,
    PH_SETUP,
    PHASE,
    PLAY,
    PLAYERS,
    PS,
    R_BURY,
    R_DAYS,
    R_NK,
    RES,
    RETURN_RES,
    ROW,
    SEAT,
    SLOT,
    STAY,
    STORE,
    SWAP,
    TAKE_DECK,
    TAKE_ROW,
    TRADE_ACORN,
    WILD,
)
from simkit.jit import kernel
from simkit.registry import StrategySpec, register_strategy

W_BURY_AT, W_RAID_MIN, W_BLOCK_ALWAYS, W_CREATURE_BIAS = 0, 1, 2, 3


@kernel
def find(moves, n_moves, m):
    for i in range(n_moves):
        if moves[i] == m:
            return i
    return -1


@kernel
def card_value(P, k, w):
    """How much a card in hand is worth to this strategy (higher is better)."""
    e = P[CARD + k * N_CARD_COLS + C_EFFECT]
    if P[CARD + k * N_CARD_COLS + C_TRICK] == 1:
        if e == E_FORAGE or e == E_BURY:
            return 3.0 + P[CARD + k * N_CARD_COLS + C_AMOUNT]
        if e == E_STEAL_STORE or e == E_DIG_UP:
            return 2.0 + P[CARD + k * N_CARD_COLS + C_AMOUNT]
        if e == E_DRAW:
            return 2.0
        return 1.0
    c = CARD + k * N_CARD_COLS
    v = P[c + C_STR] + 0.5 * P[c + C_HP] + 0.5 * (P[c + C_FLY] + P[c + C_RANGED])
    if e == E_TIRE_FORAGE or e == E_TIRE_BURY:
        v += 2.0 * P[CARD + k * N_CARD_COLS + C_AMOUNT]
    elif e == E_DEFEND or e == E_UNBLOCKED_DIG or e == E_UNBLOCKED_STEAL:
        v += P[CARD + k * N_CARD_COLS + C_AMOUNT]
    elif e != 0:
        v += 1.0
    return v * w[W_CREATURE_BIAS]


@kernel
def choose_wotw(params, obs, seat, moves, n_moves, weights, stream):
    P = params[0]
    ph = obs[PHASE]
    if ph == PH_ACTION:
        return choose_action(P, obs, seat, moves, n_moves, weights)
    if ph == PH_DRAW:
        return choose_draw(P, obs, moves, n_moves, weights)
    if ph == PH_MAIN:
        return choose_main(P, obs, seat, moves, n_moves, weights)
    if ph == PH_PAY:
        return choose_pay(P, obs, seat, moves, n_moves)
    if ph == PH_AFTER:
        return choose_main(P, obs, seat, moves, n_moves, weights)
    if ph == PH_REPLY:
        return choose_reply(obs, moves, n_moves)
    if ph == PH_OFFER:  # it makes no offers of its own
        return find(moves, n_moves, OFFER_DROP)
    if ph == PH_ASSIGN:
        return choose_assign(P, obs, seat, moves, n_moves, weights)
    if ph == PH_BLOCK or ph == PH_FOX_BLOCK:
        return choose_block(P, obs, seat, moves, n_moves, weights)
    if ph == PH_DISCARD or ph == PH_SETUP:
        return choose_discard(P, obs, moves, n_moves, weights)
    return 0


@kernel
def choose_reply(obs, moves, n_moves):
    """Accept acorns for resource cards, at least one acorn a card asked (cards offered as
    well are a bonus); giving acorns away, or cards for cards, is not worth it."""
    acorns_in = obs[OFFER_GIVE + TRADE_ACORN]
    cards_out = 0
    for c in range(TRADE_ACORN):
        cards_out += obs[OFFER_GET + c]
    if acorns_in == 0 or obs[OFFER_GET + TRADE_ACORN] > 0 or acorns_in < cards_out:
        return find(moves, n_moves, DECLINE)
    i = find(moves, n_moves, ACCEPT)
    return i if i >= 0 else find(moves, n_moves, DECLINE)


@kernel
def choose_action(P, obs, seat, moves, n_moves, weights):
    me = PLAYERS + seat * PS
    store = obs[me + STORE]
    last = obs[DAY] >= P[R_DAYS]
    if store > 0 and obs[DAY_CARD] != D_FROST:
        if store >= weights[W_BURY_AT] or obs[WILD] == 0 or last:
            i = find(moves, n_moves, BURY + min(store, P[R_BURY]) - 1)
            if i >= 0:
                return i
    if obs[WILD] > 0 and not last:
        return find(moves, n_moves, FORAGE)
    # the wild is empty: build the army to raid with
    i = find(moves, n_moves, DRAW)
    if i >= 0 and obs[me + RES] + obs[me + RES + 1] + obs[me + RES + 2] + obs[me + RES + 3] > 3:
        return i
    return find(moves, n_moves, GATHER + 1)


@kernel
def choose_draw(P, obs, moves, n_moves, weights):
    best = -1
    bv = 2.5
    for i in range(n_moves):
        m = moves[i]
        if TAKE_ROW <= m < TAKE_DECK:
            v = card_value(P, obs[ROW + m - TAKE_ROW], weights)
            if v > bv:
                bv = v
                best = i
    if best >= 0:
        return best
    i = find(moves, n_moves, TAKE_DECK)
    return i if i >= 0 else 0


@kernel
def richest(obs, seat, off):
    best = -1
    bv = 0
    for t in range(obs[N_PLAYERS]):
        if t != seat and obs[PLAYERS + t * PS + off] > bv:
            bv = obs[PLAYERS + t * PS + off]
            best = t
    return best


@kernel
def choose_main(P, obs, seat, moves, n_moves, weights):
    """The play step, and the step after the attacks (no cards then): the best acorn trick
    or tiring acorn ability, then creatures by value; swaps and offers are never made."""
    best = -1
    bv = 0.0
    rich = richest(obs, seat, STORE)
    for i in range(n_moves):
        m = moves[i]
        v = 0.0
        if PLAY <= m < ABILITY:
            k = (m - PLAY) // 4
            t = (m - PLAY) % 4
            e = P[CARD + k * N_CARD_COLS + C_EFFECT]
            if P[CARD + k * N_CARD_COLS + C_TRICK] == 0:
                v = 1.0 + card_value(P, k, weights)
            elif e == E_FORAGE and obs[WILD] > 0:
                v = 10.0
            elif e == E_BURY and obs[PLAYERS + seat * PS + STORE] > 0:
                v = 10.0
            elif e == E_STEAL_STORE and t == rich:
                v = 9.0
            elif e == E_DRAW or e == E_RALLY:
                v = 0.5
            elif e == E_AMBUSH:
                v = 0.6
        elif ABILITY <= m < SWAP:
            k = obs[PLAYERS + seat * PS + ARMY + m - ABILITY]
            e = P[CARD + k * N_CARD_COLS + C_EFFECT]
            if e == E_TIRE_FORAGE and obs[WILD] > 0:
                v = 8.0
            elif e == E_TIRE_BURY and obs[PLAYERS + seat * PS + STORE] > 0:
                v = 8.0
            elif e == E_TIRE_DRAW or e == E_TIRE_GATHER:
                v = 0.8
        if v > bv:
            bv = v
            best = i
    if best >= 0:
        return best
    return find(moves, n_moves, END_PLAY)  # ends the play step, or the turn after attacks


@kernel
def choose_pay(P, obs, seat, moves, n_moves):
    """Pay with the kind the rest of the hand wants least: the most cards held beyond what
    the other cards' specific costs ask for (ties: the kind held most)."""
    me = PLAYERS + seat * PS
    best = 0
    bv = -1e9
    for i in range(n_moves):
        r = moves[i] - PAY_RES
        want = 0
        for k in range(P[R_NK]):
            copies = obs[me + HAND + k] - (1 if k == obs[PAY_CARD] else 0)
            if copies > 0:
                want += copies * P[CARD + k * N_CARD_COLS + C_COST + r]
        v = obs[me + RES + r] - want + 0.01 * obs[me + RES + r]
        if v > bv:
            bv = v
            best = i
    return best


@kernel
def choose_assign(P, obs, seat, moves, n_moves, weights):
    """Against the richest store still offered, if it holds ``raid_min``: the richest of all
    for the first attack, the next richest for a Relentless creature's second."""
    best = -1
    bv = 0
    for i in range(n_moves):
        m = moves[i]
        if m >= ATTACK and obs[PLAYERS + (m - ATTACK) * PS + STORE] > bv:
            bv = obs[PLAYERS + (m - ATTACK) * PS + STORE]
            best = i
    if best >= 0 and bv >= weights[W_RAID_MIN]:
        return best
    return find(moves, n_moves, STAY)


@kernel
def choose_block(P, obs, seat, moves, n_moves, weights):
    me = PLAYERS + seat * PS
    k = obs[me + ARMY + obs[SLOT]]
    my_hp = P[CARD + k * N_CARD_COLS + C_HP]
    if obs[PHASE] == PH_FOX_BLOCK:
        return find(moves, n_moves, BLOCK_FOX)
    a = PLAYERS + obs[SEAT] * PS
    best = -1
    bv = -1.0
    for i in range(n_moves):
        m = moves[i]
        if m < BLOCK or m >= BLOCK + MAX_ARMY:
            continue
        j = m - BLOCK
        s = 0
        for q in range(MAX_ARMY):
            if (obs[a + ATGT + q] >> seat) & 1 and obs[a + ALINK + q] == j:
                s += P[CARD + obs[a + ARMY + q] * N_CARD_COLS + C_STR]
        taken = 0
        for q in range(MAX_ARMY):
            if obs[me + ARMY + q] >= 0 and obs[me + ALINK + q] == j:
                taken += 1
        v = s - 2.0 * taken + (1.0 if my_hp > s else 0.0)
        if v > bv:
            bv = v
            best = i
    if best >= 0 and (weights[W_BLOCK_ALWAYS] > 0 or obs[me + STORE] > 0):
        return best
    return find(moves, n_moves, NO_BLOCK)


@kernel
def choose_discard(P, obs, moves, n_moves, weights):
    best = 0
    bv = 1e9
    for i in range(n_moves):
        m = moves[i]
        if m >= RETURN_RES:
            v = 1.5
        else:
            v = card_value(P, m - DISCARD_CARD, weights)
        if v < bv:
            bv = v
            best = i
    return best


register_strategy(StrategySpec(
    "heuristic-v1", choose_wotw, game="war-of-the-wilds",
    weights={"bury_at": 3.0, "raid_min": 1.0, "block_always": 1.0, "creature_bias": 1.0},
    summary="the heuristic before issue 16: forage and bury, raid the fattest store"))
