"""``heuristic`` for War of the Wilds (v2, issue 16): build an army early, forage and bury,
raid the store its army can reach past the blockers, bury sooner when the day cards or the
other armies threaten the store, and trade resource cards for the ones a card in hand
lacks. It reads only the observation.

Each behaviour new in v2 is gated by a weight; 0 turns it off (the v1 behaviour for that
decision). ``heuristic-v1``, the heuristic before issue 16, is this kernel with all of them
off and ``bury_at`` 3 (``V1_WEIGHTS``); it plays exactly as the old kernel did.

Weights:
  bury_at        bury when the store holds at least this many acorns (v1)
  raid_min       attack a target only if the raid is worth at least this many acorns (v1:
                 the target's store; v2 with ``raid_blockers``: the acorns the army is
                 expected to carry past the blockers)
  block_always   1: block whenever something could be blocked (v1)
  creature_bias  how much a creature's fighting value counts against acorn tricks (v1)
  build_days     while the wild has acorns, Gather (or Draw) instead of Forage up to this
                 day when that makes a card in hand worth ``build_min`` playable (0: never,
                 as v1: it gathered or drew only once the wild was empty)
  build_min      the value (``card_value``) a card must have to gather for it
  setup_keep     at setup, a resource card a kept deck card needs is worth this much to
                 keep (v1 valued every resource at 1.5, so it kept almost none)
  offer_trades   1: offer another player one resource card it holds that a card in hand
                 lacks for one of ours the hand does not need, and accept such 1-for-1
                 offers when the card given is surplus and the card taken is needed; and
                 swap 2 surplus cards for the missing one when no offer was taken (0: no
                 offers or swaps, and only acorns-for-cards replies, as v1)
  raid_blockers  1: weigh each target's standing blockers against the attackers (how many
                 get through, whether a lone attacker survives a block) instead of raiding
                 the richest store whatever defends it; equal raids go against the player
                 with the most buried acorns (v1: the lowest seat)
  threat_bury    1: bury sooner when the day cards threaten the store: the Fox still to
                 come (its chance tomorrow: the Foxes among the day cards not yet turned
                 over) while ours is the richest store and nobody of ours can block it,
                 and the acorns the Jay or the Flood dug up this morning (buried back at
                 once when another army could reach them)
  raid_bury      1: also count, as a threat, the other armies' strength that our blockers
                 cannot stop (off: measured no better)
  threat_min     bury below ``bury_at`` when the acorns the store is expected to lose
                 before our next turn reach this many
  gather_mix     1: a gathering ability's mix (the Beaver's, VERSION 6) makes a card in hand
                 worth ``build_min`` playable if it can, else takes the kinds the hand's
                 costs lack most (0: each card from the fuller pile, the rule before VERSION
                 6, as v1)
"""

from simkit.games.war_of_the_wilds.state import (
    ABILITY,
    ACCEPT,
    AFLAG,
    ALINK,
    ARMY,
    ATGT,
    ATTACK,
    BLOCK,
    BLOCK_FOX,
    BURIED,
    BURY,
    C_AMOUNT,
    C_ANY,
    C_BAND,
    C_COST,
    C_EFFECT,
    C_FLY,
    C_HP,
    C_RANGED,
    C_STR,
    C_TRICK,
    CARD,
    D_CALL,
    D_FLOOD,
    D_FOG,
    D_FOX,
    D_FROST,
    D_JAY,
    D_MOON,
    D_WINDY,
    DAY,
    DAY_CARD,
    DAY_ORDER,
    DAYD,
    DAYV,
    DECIDED,
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
    HOME,
    HOMES,
    MAX_ARMY,
    MIX,
    MIX_N,
    MORNING,
    N_CARD_COLS,
    N_PLAYERS,
    N_TRADE_KINDS,
    NEW,
    NO_BLOCK,
    OFFER_ADD,
    OFFER_DROP,
    OFFER_GET,
    OFFER_GIVE,
    OFFER_MAKE,
    OFFER_START,
    OFFERS_USED,
    PAIRS,
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
    PH_MIX,
    PH_OFFER,
    PH_PAY,
    PH_REPLY,
    PH_SETUP,
    PHASE,
    PILE,
    PLAY,
    PLAYERS,
    PS,
    R_BURY,
    R_DAYS,
    R_GATHER,
    R_NDAYS,
    R_NK,
    RALLY,
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
    TIRED,
    TRADE_ACORN,
    WILD,
)
from simkit.jit import kernel
from simkit.registry import StrategySpec, register_strategy

(W_BURY_AT, W_RAID_MIN, W_BLOCK_ALWAYS, W_CREATURE_BIAS, W_BUILD_DAYS, W_BUILD_MIN,
 W_SETUP_KEEP, W_OFFER_TRADES, W_RAID_BLOCKERS, W_THREAT_BURY, W_RAID_BURY,
 W_THREAT_MIN, W_GATHER_MIX) = range(13)


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
    if ph == PH_MIX:
        return choose_mix(P, obs, seat, moves, n_moves, weights)
    if ph == PH_AFTER:
        return choose_main(P, obs, seat, moves, n_moves, weights)
    if ph == PH_REPLY:
        return choose_reply(P, obs, seat, moves, n_moves, weights)
    if ph == PH_OFFER:
        return choose_offer(P, obs, seat, moves, n_moves, weights)
    if ph == PH_ASSIGN:
        if weights[W_RAID_BLOCKERS] > 0:
            return choose_assign(P, obs, seat, moves, n_moves, weights)
        return choose_assign_richest(P, obs, seat, moves, n_moves, weights)
    if ph == PH_BLOCK or ph == PH_FOX_BLOCK:
        return choose_block(P, obs, seat, moves, n_moves, weights)
    if ph == PH_DISCARD or ph == PH_SETUP:
        return choose_discard(P, obs, seat, moves, n_moves, weights)
    return 0


# --- what the hand needs --------------------------------------------------------------------

@kernel
def cost_cut(P, obs, k):
    """Call to Arms takes this many cards off creature ``k``'s cost today."""
    if obs[DAY_CARD] == D_CALL and P[CARD + k * N_CARD_COLS + C_TRICK] == 0:
        return P[DAYV + D_CALL * 4 + 1]
    return 0


@kernel
def shortfall(P, obs, me, k, r, extra, r2, extra2):
    """Card ``k`` against the resources held, with ``extra`` more of kind ``r`` and
    ``extra2`` more of kind ``r2`` (-1: no kind; an extra may be negative):
    (cards missing in all, specific cards missing beyond what Call to Arms waives). Both 0:
    payable, the same test as the rules' ``legal_plays``."""
    c = CARD + k * N_CARD_COLS
    cut = cost_cut(P, obs, k)
    specific = 0
    cover = 0
    held = 0
    for q in range(4):
        need = P[c + C_COST + q]
        h = obs[me + RES + q] + (extra if q == r else 0) + (extra2 if q == r2 else 0)
        specific += need
        cover += min(need, h)
        held += h
    total = max(0, specific + P[c + C_ANY] - cut)
    return max(0, total - held), max(0, specific - min(total, cover) - cut)


@kernel
def spare_cards(P, obs, me, k):
    """Resource cards held beyond card ``k``'s cost today (negative: short)."""
    c = CARD + k * N_CARD_COLS
    total = P[c + C_ANY]
    held = 0
    for q in range(4):
        total += P[c + C_COST + q]
        held += obs[me + RES + q]
    return held - max(0, total - cost_cut(P, obs, k))


@kernel
def hand_need(P, obs, me, r):
    """Resource cards of kind ``r`` the specific costs of the cards in hand ask for."""
    want = 0
    for k in range(P[R_NK]):
        n = obs[me + HAND + k]
        if n > 0:
            want += n * P[CARD + k * N_CARD_COLS + C_COST + r]
    return want


@kernel
def wanted_card(P, obs, me, w):
    """The most valuable card in hand worth ``build_min`` that cannot be paid for now
    (-1: none)."""
    best = -1
    bv = w[W_BUILD_MIN] - 1e-9
    for k in range(P[R_NK]):
        if obs[me + HAND + k] == 0:
            continue
        v = card_value(P, k, w)
        if v <= bv:
            continue
        miss, spec = shortfall(P, obs, me, k, -1, 0, -1, 0)
        if miss > 0 or spec > 0:
            bv = v
            best = k
    return best


@kernel
def surplus(P, obs, me, r, k):
    """Cards of kind ``r`` held beyond what the hand's specific costs ask for, card ``k``'s
    cost counted first."""
    return obs[me + RES + r] - max(hand_need(P, obs, me, r), P[CARD + k * N_CARD_COLS + C_COST + r])


# --- the action -----------------------------------------------------------------------------

@kernel
def day_cards_left(P, obs, d):
    """(day cards of kind ``d`` not yet turned over, day cards not yet turned over)."""
    left = 0
    for i in range(P[R_NDAYS]):
        if P[DAYD + i] == d:
            left += 1
    turned = min(max(obs[DAY], 0), P[R_NDAYS])
    for i in range(turned):
        if obs[DAY_ORDER + i] == d:
            left -= 1
    return left, P[R_NDAYS] - turned


@kernel
def raid_exposure(P, obs, seat):
    """The most acorns one other player's army could carry off our store on their turn,
    past our standing blockers (each stops one attacker, the strongest first): their
    creatures' strength less the strongest ones our blockers would stop."""
    n = obs[N_PLAYERS]
    me = PLAYERS + seat * PS
    guards = 0
    for i in range(MAX_ARMY):
        if obs[me + ARMY + i] >= 0:
            guards += 1
    worst = 0
    for t in range(n):
        if t == seat:
            continue
        b = PLAYERS + t * PS
        total = 0
        top = 0  # the strengths our guards would stop: a greedy pick of the strongest
        used = 0
        for _ in range(guards):
            best = -1
            bs = -1
            for i in range(MAX_ARMY):
                k = obs[b + ARMY + i]
                if k >= 0 and not (used >> i) & 1 and P[CARD + k * N_CARD_COLS + C_STR] > bs:
                    bs = P[CARD + k * N_CARD_COLS + C_STR]
                    best = i
            if best < 0:
                break
            used |= 1 << best
            top += bs
        for i in range(MAX_ARMY):
            k = obs[b + ARMY + i]
            if k >= 0:
                total += P[CARD + k * N_CARD_COLS + C_STR]
        worst = max(worst, total - top)
    return worst


@kernel
def threat_loss(P, obs, seat, store, w):
    """The acorns the store is expected to lose before our next turn: to the Fox, if it is
    still to come while ours is the richest store and nobody of ours stands to block it
    (its chance: the Foxes among the day cards not yet turned over), and (``raid_bury``) to
    the other armies' strength that our blockers cannot stop."""
    loss = 0.0
    me = PLAYERS + seat * PS
    if w[W_THREAT_BURY] > 0 and obs[DAY] < P[R_DAYS]:
        guards = 0
        for i in range(MAX_ARMY):
            if obs[me + ARMY + i] >= 0:
                guards += 1
        richest_store = True
        for t in range(obs[N_PLAYERS]):
            if t != seat and obs[PLAYERS + t * PS + STORE] > store:
                richest_store = False
        fox, left = day_cards_left(P, obs, D_FOX)
        if fox > 0 and left > 0 and guards == 0 and richest_store:
            loss += fox / left * min(P[DAYV + D_FOX * 4 + 1], store)
    if w[W_RAID_BURY] > 0 and store >= 2:
        loss += min(store, raid_exposure(P, obs, seat))
    return loss


@kernel
def best_gather(P, obs, seat, w, n, lo, hi):
    """(the mix of a gather of ``n`` cards, ``g`` of the home's second kind for lo <= g <=
    hi, the value of the best card it makes playable; 0: none)."""
    me = PLAYERS + seat * PS
    h = obs[me + HOME]
    ka = P[HOMES + h * 2 + 0]
    kb = P[HOMES + h * 2 + 1]
    best_g = lo
    bv = 0.0
    for k in range(P[R_NK]):
        if obs[me + HAND + k] == 0:
            continue
        v = card_value(P, k, w)
        if v < w[W_BUILD_MIN] or v <= bv:
            continue
        miss, spec = shortfall(P, obs, me, k, -1, 0, -1, 0)
        if miss == 0 and spec == 0:
            continue  # payable already: gathering does not make it so
        for g in range(lo, hi + 1):  # g of the home's second kind, n - g of its first
            m2, s2 = shortfall(P, obs, me, k, ka, n - g, kb, g)
            if m2 == 0 and s2 == 0:
                bv = v
                best_g = g
                break
    return best_g, bv


@kernel
def choose_action(P, obs, seat, moves, n_moves, weights):
    me = PLAYERS + seat * PS
    store = obs[me + STORE]
    last = obs[DAY] >= P[R_DAYS]
    if store > 0 and obs[DAY_CARD] != D_FROST:
        bury_at = weights[W_BURY_AT]
        d = obs[DAY_CARD]
        if weights[W_THREAT_BURY] > 0 and (d == D_JAY or d == D_FLOOD) \
                and obs[MORNING + 3 * seat + 1] < 0 and raid_exposure(P, obs, seat) > 0:
            # this morning dug up acorns we had buried, and another army can reach them:
            # bury them back at once
            bury_at = min(bury_at, -obs[MORNING + 3 * seat + 1])
        threat = threat_loss(P, obs, seat, store, weights) >= weights[W_THREAT_MIN]
        if store >= bury_at or obs[WILD] == 0 or last or threat:
            i = find(moves, n_moves, BURY + min(store, P[R_BURY]) - 1)
            if i >= 0:
                return i
    if obs[WILD] > 0 and not last:
        if obs[DAY] <= weights[W_BUILD_DAYS]:
            g, v = best_gather(P, obs, seat, weights, P[R_GATHER], 0, P[R_GATHER])
            if v > 0:
                i = find(moves, n_moves, GATHER + g)
                if i >= 0:
                    return i
            hand = 0
            for k in range(P[R_NK]):
                hand += obs[me + HAND + k]
            res = obs[me + RES] + obs[me + RES + 1] + obs[me + RES + 2] + obs[me + RES + 3]
            if hand == 0 and res >= 2:
                i = find(moves, n_moves, DRAW)
                if i >= 0:
                    return i
        return find(moves, n_moves, FORAGE)
    # the wild is empty: build the army to raid with
    i = find(moves, n_moves, DRAW)
    if i >= 0 and obs[me + RES] + obs[me + RES + 1] + obs[me + RES + 2] + obs[me + RES + 3] > 3:
        return i
    if weights[W_BUILD_DAYS] > 0 and not last:
        g, v = best_gather(P, obs, seat, weights, P[R_GATHER], 0, P[R_GATHER])
        if v > 0:
            i = find(moves, n_moves, GATHER + g)
            if i >= 0:
                return i
    return find(moves, n_moves, GATHER + 1)


@kernel
def fuller_pile_mix(P, obs, me, n):
    """v1's mix of ``n`` cards (the rule before VERSION 6): each card from the fuller of the
    home's two piles, ties from its first kind: how many of its second kind."""
    h = obs[me + HOME]
    pa = obs[PILE + P[HOMES + h * 2 + 0]]
    pb = obs[PILE + P[HOMES + h * 2 + 1]]
    g = 0
    for _ in range(n):
        if pb > pa:
            pb -= 1
            g += 1
        elif pa > 0:
            pa -= 1
    return g


@kernel
def choose_mix(P, obs, seat, moves, n_moves, w):
    """A gathering ability's mix (the moves are MIX + g, g rising). With ``gather_mix``: the
    mix that makes the best card in hand worth ``build_min`` playable, else the one that
    brings most of the cards the hand's specific costs lack (ties: the nearest to v1's);
    without: v1's, each card from the fuller pile."""
    me = PLAYERS + seat * PS
    n = obs[MIX_N]
    g0 = fuller_pile_mix(P, obs, me, n)
    if w[W_GATHER_MIX] <= 0:
        i = find(moves, n_moves, MIX + g0)
        return i if i >= 0 else 0
    g, v = best_gather(P, obs, seat, w, n, moves[0] - MIX, moves[n_moves - 1] - MIX)
    if v > 0:
        return find(moves, n_moves, MIX + g)
    h = obs[me + HOME]
    ka = P[HOMES + h * 2 + 0]
    kb = P[HOMES + h * 2 + 1]
    short_a = max(0, hand_need(P, obs, me, ka) - obs[me + RES + ka])
    short_b = max(0, hand_need(P, obs, me, kb) - obs[me + RES + kb])
    best = 0
    bv = -1e9
    for i in range(n_moves):
        g = moves[i] - MIX
        v = min(n - g, short_a) + min(g, short_b) - 0.001 * abs(g - g0)
        if v > bv:
            bv = v
            best = i
    return best


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


# --- the play step, trades ------------------------------------------------------------------

@kernel
def choose_main(P, obs, seat, moves, n_moves, weights):
    """The play step, and the step after the attacks (no cards then): the best acorn trick
    or tiring acorn ability, then creatures by value; then (``offer_trades``) a trade offer
    or a swap for the card a wanted card in hand lacks."""
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
    if weights[W_OFFER_TRADES] > 0 and obs[PHASE] == PH_MAIN:
        i = trade_move(P, obs, seat, moves, n_moves, weights)
        if i >= 0:
            return i
    return find(moves, n_moves, END_PLAY)  # ends the play step, or the turn after attacks


@kernel
def trade_plan(P, obs, seat, w):
    """The 1-for-1 trade the wanted card needs: (card, kind to get, kind to give) or
    (-1, -1, -1). The card lacks exactly one specific card of one kind, and the hand holds
    enough cards in all, one of them a kind the hand does not need."""
    me = PLAYERS + seat * PS
    k = wanted_card(P, obs, me, w)
    if k < 0:
        return -1, -1, -1
    miss, spec = shortfall(P, obs, me, k, -1, 0, -1, 0)
    if miss > 0 or spec != 1:
        return -1, -1, -1
    get = -1
    for r in range(4):
        m2, s2 = shortfall(P, obs, me, k, r, 1, -1, 0)
        if m2 == 0 and s2 == 0:
            get = r
            break
    if get < 0:
        return -1, -1, -1
    give = -1
    gs = 0
    for r in range(4):
        if r != get:
            s = surplus(P, obs, me, r, k)
            if s > gs:
                gs = s
                give = r
    return k, get, give


@kernel
def trade_move(P, obs, seat, moves, n_moves, w):
    """Begin an offer (one a turn) to the player holding the most of the kind we lack
    (ties: the first from our left), else swap two surplus cards for it."""
    k, get, give = trade_plan(P, obs, seat, w)
    if k < 0:
        return -1
    n = obs[N_PLAYERS]
    if give >= 0 and obs[OFFERS_USED] == 0:
        best = -1
        most = 0
        for o in range(1, n):
            t = (seat + o) % n
            if obs[PLAYERS + t * PS + RES + get] > most:
                most = obs[PLAYERS + t * PS + RES + get]
                best = t
        if best >= 0:
            i = find(moves, n_moves, OFFER_START + best)
            if i >= 0:
                return i
    # a swap: two cards the hand does not need (a pair of kinds) for the one it lacks
    me = PLAYERS + seat * PS
    for i in range(n_moves):
        m = moves[i]
        if SWAP <= m < OFFER_START and (m - SWAP) % 4 == get:
            q = (m - SWAP) // 4
            a = PAIRS[q, 0]
            b = PAIRS[q, 1]
            if a == b:
                ok = surplus(P, obs, me, a, k) >= 2
            else:
                ok = surplus(P, obs, me, a, k) >= 1 and surplus(P, obs, me, b, k) >= 1
            if ok:
                # the swap costs a card: the card must still be payable after it (a
                # surplus kind given away leaves card k's own kinds covered)
                miss, spec = shortfall(P, obs, me, k, get, 1, -1, 0)
                if spec == 0 and spare_cards(P, obs, me, k) >= 1:
                    return i
    return -1


@kernel
def choose_offer(P, obs, seat, moves, n_moves, w):
    """Build the offer ``trade_move`` began: one card of ours the hand does not need for
    one of theirs it lacks (our items go in first: item order)."""
    if w[W_OFFER_TRADES] <= 0:
        return find(moves, n_moves, OFFER_DROP)
    k, get, give = trade_plan(P, obs, seat, w)
    if k < 0 or give < 0:
        return find(moves, n_moves, OFFER_DROP)
    if obs[OFFER_GIVE + give] == 0:
        i = find(moves, n_moves, OFFER_ADD + give)
    elif obs[OFFER_GET + get] == 0:
        i = find(moves, n_moves, OFFER_ADD + N_TRADE_KINDS + get)
    else:
        i = find(moves, n_moves, OFFER_MAKE)
    return i if i >= 0 else find(moves, n_moves, OFFER_DROP)


@kernel
def choose_reply(P, obs, seat, moves, n_moves, w):
    """Accept acorns for resource cards, at least one acorn a card asked (cards offered as
    well are a bonus); with ``offer_trades``, also cards for cards, when every card asked
    is one our hand does not need and a card offered is one it does. Giving acorns away is
    never worth it."""
    acorns_in = obs[OFFER_GIVE + TRADE_ACORN]
    cards_out = 0
    cards_in = 0
    for c in range(TRADE_ACORN):
        cards_out += obs[OFFER_GET + c]
        cards_in += obs[OFFER_GIVE + c]
    i = find(moves, n_moves, ACCEPT)
    if i < 0 or obs[OFFER_GET + TRADE_ACORN] > 0:
        return find(moves, n_moves, DECLINE)
    if acorns_in > 0 and acorns_in >= cards_out:
        return i
    if w[W_OFFER_TRADES] > 0 and acorns_in == 0 and cards_in >= cards_out:
        me = PLAYERS + seat * PS
        useful = False
        for c in range(TRADE_ACORN):
            out = obs[OFFER_GET + c]
            if out > 0 and obs[me + RES + c] - out < hand_need(P, obs, me, c):
                return find(moves, n_moves, DECLINE)
            if obs[OFFER_GIVE + c] > 0 and obs[me + RES + c] < hand_need(P, obs, me, c):
                useful = True
        if useful:
            return i
    return find(moves, n_moves, DECLINE)


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


# --- attacks --------------------------------------------------------------------------------

@kernel
def choose_assign_richest(P, obs, seat, moves, n_moves, weights):
    """v1: against the richest store still offered, if it holds ``raid_min``: the richest of
    all for the first attack, the next richest for a Relentless creature's second."""
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
def may_attack(P, obs, me, i):
    k = obs[me + ARMY + i]
    if k < 0 or obs[me + AFLAG + i] & (TIRED | NEW | DECIDED):
        return False
    return not (obs[DAY_CARD] == D_WINDY and P[CARD + k * N_CARD_COLS + C_FLY] == 1)


@kernel
def unit_of(P, obs, me, i):
    """The attacker unit creature ``i`` leads (its Band: every one of its name that can
    attack): (strength, least health, digs buried acorns, bitmask of its places)."""
    k = obs[me + ARMY + i]
    band = P[CARD + k * N_CARD_COLS + C_BAND] == 1
    moon = P[DAYV + D_MOON * 4 + 1] if obs[DAY_CARD] == D_MOON else 0
    s = 0
    hp = 99
    dig = 0
    mask = 0
    for j in range(i, MAX_ARMY):
        if j == i or (band and obs[me + ARMY + j] == k and may_attack(P, obs, me, j)):
            c = CARD + obs[me + ARMY + j] * N_CARD_COLS
            s += P[c + C_STR] + moon + obs[RALLY]
            if P[c + C_EFFECT] == E_UNBLOCKED_STEAL:
                s += P[c + C_AMOUNT]
            elif P[c + C_EFFECT] == E_UNBLOCKED_DIG:
                dig += P[c + C_AMOUNT]
            hp = min(hp, P[c + C_HP])
            mask |= 1 << j
    return s, hp, dig, mask


@kernel
def blockers_of(P, obs, t, flying):
    """Player ``t``'s blocker units able to block an attacker (``flying`` or not) this turn:
    (how many, the greatest strength a blocker has, the least health). A Band blocks as one."""
    if obs[DAY_CARD] == D_FOG:
        return 0, 0, 0
    b = PLAYERS + t * PS
    moon = P[DAYV + D_MOON * 4 + 1] if obs[DAY_CARD] == D_MOON else 0
    windy = obs[DAY_CARD] == D_WINDY
    n = 0
    top = 0
    low = 99
    bands = 0  # bit k: a Band of kind k already counted
    for i in range(MAX_ARMY):
        k = obs[b + ARMY + i]
        if k < 0 or obs[b + AFLAG + i] & TIRED:
            continue
        c = CARD + k * N_CARD_COLS
        if windy and P[c + C_FLY] == 1:
            continue
        if flying and P[c + C_FLY] == 0 and P[c + C_RANGED] == 0:
            continue
        s = P[c + C_STR] + moon
        if P[c + C_EFFECT] == E_DEFEND:
            s += P[c + C_AMOUNT]
        if P[c + C_BAND] == 1:
            if (bands >> k) & 1:
                continue
            bands |= 1 << k
            s = 0
            for j in range(MAX_ARMY):
                if obs[b + ARMY + j] == k and obs[b + AFLAG + j] & TIRED == 0:
                    s += P[c + C_STR] + moon
        n += 1
        top = max(top, s)
        low = min(low, P[c + C_HP])
    return n, top, low


@kernel
def choose_assign(P, obs, seat, moves, n_moves, weights):
    """Each attacker unit in turn: to the target where the raid is worth most, counting
    the target's blockers able to block it against our attackers (already sent there, and
    still to be asked, who would go with it): those beyond the blockers get through and
    steal; a unit that would surely be blocked goes only if no blocker can kill it. Stay
    home when no raid is worth ``raid_min``."""
    me = PLAYERS + seat * PS
    i = obs[SLOT]
    s_i, hp_i, dig_i, mask_i = unit_of(P, obs, me, i)
    fly_i = P[CARD + obs[me + ARMY + i] * N_CARD_COLS + C_FLY] == 1
    # the units still to be asked after this one (a Band counted once)
    rest = 0
    rest_str = 0
    seen = mask_i
    for j in range(i + 1, MAX_ARMY):
        if (seen >> j) & 1 or not may_attack(P, obs, me, j):
            continue
        s_j, hp_j, dig_j, mask_j = unit_of(P, obs, me, j)
        seen |= mask_j
        rest += 1
        rest_str += s_j
    best = -1
    bv = weights[W_RAID_MIN] - 1e-9
    for x in range(n_moves):
        m = moves[x]
        if m < ATTACK:
            continue
        t = m - ATTACK
        b = PLAYERS + t * PS
        sent = 0
        sent_str = 0
        for j in range(MAX_ARMY):
            if (obs[me + ATGT + j] >> t) & 1 and obs[me + ARMY + j] >= 0:
                if obs[me + ALINK + j] == j:
                    sent += 1
                c = CARD + obs[me + ARMY + j] * N_CARD_COLS
                sent_str += P[c + C_STR]
        nb, top, low = blockers_of(P, obs, t, fly_i)
        loot = obs[b + STORE] + (min(dig_i, obs[b + BURIED]))
        units = sent + 1 + rest
        through = units - nb
        if nb == 0:
            v = min(loot, s_i + sent_str + rest_str)
        elif through > 0:
            # the blockers stop the strongest; the weakest units get through
            avg = (s_i + sent_str + rest_str) / units
            v = min(loot, through * avg)
        elif top < hp_i:
            v = 0.5 * (loot > 0) + (0.5 if s_i >= low else 0.0)  # safe: nothing to lose
        else:
            v = 0.0
        if v > 0:
            v += 0.01 * obs[b + BURIED]  # equal raids: against the player further ahead
        if v > bv:
            bv = v
            best = x
    if best >= 0:
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
def choose_discard(P, obs, seat, moves, n_moves, weights):
    """The lowest-valued card goes. At setup (``setup_keep``) a resource card that a deck
    card still held needs is worth ``setup_keep`` (a card to pay with), others 1.5."""
    me = PLAYERS + seat * PS
    setup = obs[PHASE] == PH_SETUP and weights[W_SETUP_KEEP] > 0
    best = 0
    bv = 1e9
    for i in range(n_moves):
        m = moves[i]
        if m >= RETURN_RES:
            v = 1.5
            if setup:
                r = m - RETURN_RES
                if obs[me + RES + r] <= hand_need(P, obs, me, r):
                    v = weights[W_SETUP_KEEP]
        else:
            v = card_value(P, m - DISCARD_CARD, weights)
        if v < bv:
            bv = v
            best = i
    return best


# the kernel reads the weights by position (W_*): this order is theirs
V2_WEIGHTS = {"bury_at": 4.0, "raid_min": 1.0, "block_always": 1.0, "creature_bias": 1.0,
              "build_days": 9.0, "build_min": 3.0, "setup_keep": 3.0, "offer_trades": 1.0,
              "raid_blockers": 1.0, "threat_bury": 1.0, "raid_bury": 0.0,
              "threat_min": 0.3, "gather_mix": 1.0}
assert list(V2_WEIGHTS).index("threat_min") == W_THREAT_MIN
assert list(V2_WEIGHTS).index("raid_bury") == W_RAID_BURY
assert list(V2_WEIGHTS).index("threat_bury") == W_THREAT_BURY
assert list(V2_WEIGHTS).index("build_days") == W_BUILD_DAYS
assert list(V2_WEIGHTS).index("gather_mix") == W_GATHER_MIX

# heuristic-v1, the heuristic before issue 16: the same kernel with every v2 behaviour off
# (it reproduces the old kernel game for game: NOTES.md, Heuristic (v2))
V1_WEIGHTS = {**V2_WEIGHTS, "bury_at": 3.0, "build_days": 0.0, "setup_keep": 0.0,
              "offer_trades": 0.0, "raid_blockers": 0.0, "threat_bury": 0.0, "raid_bury": 0.0,
              "gather_mix": 0.0}

register_strategy(StrategySpec(
    "heuristic", choose_wotw, game="war-of-the-wilds", weights=V2_WEIGHTS,
    summary="build an army early, forage and bury, raid past the blockers, trade for cards"))
register_strategy(StrategySpec(
    "heuristic-v1", choose_wotw, game="war-of-the-wilds", weights=V1_WEIGHTS,
    summary="the heuristic before issue 16: forage and bury, raid the fattest store"))
