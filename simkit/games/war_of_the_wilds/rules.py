"""War of the Wilds: the kernels. The layout and move encoding are in ``state.py``.

P = (cards int32[K, N_CARD_COLS], deck int32[D] (card kinds), day_deck int32[Y],
          day_vals int32[N_DAY_KINDS, 4] (count, number, second number, affected column),
          homes int32[H, 2], rules int32[N_RULES])
"""

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from simkit.jit import copy_into, inline, kernel
from simkit.rng import rand_below, shuffle

from .state import (
    ABILITY,
    ACCEPT,
    ACTOR,
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
    C_ATTACKS,
    C_BAND,
    C_COST,
    C_COUNT,
    C_EFFECT,
    C_FLY,
    C_HP,
    C_RANGED,
    C_STR,
    C_TARGETED,
    C_TRICK,
    C_WAITS,
    CARD,
    D_BUMPER,
    D_BUSY,
    D_BUTTONS,
    D_CALL,
    D_FLOOD,
    D_FOG,
    D_FOX,
    D_FROST,
    D_HARVEST,
    D_JAY,
    D_LOST_HOARD,
    D_MARKET,
    D_MOON,
    D_PEDLAR,
    D_RAIN,
    D_THAW,
    D_WINDY,
    DAY,
    DAY_CARD,
    DAY_ORDER,
    DAYD,
    DAYV,
    DECIDED,
    DECK,
    DECK0,
    DECK_CAN,
    DECK_N,
    DECLINE,
    DEFENDER,
    DISCARD,
    DISCARD_CARD,
    DISCARD_N,
    DRAW,
    DRAW_REFRESH,
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
    EV_ATTACKED,
    EV_BLOCKED,
    EV_DIED,
    EV_DRAWN,
    EV_PLAYED,
    FLAT,
    FORAGE,
    FOUGHT,
    FOX_LINK,
    FOX_MASK,
    GATHER,
    HAND,
    HAND_N,
    HOME,
    HOMES,
    KNOWN,
    MAX_ARMY,
    MAX_CARDS,
    MAX_KINDS,
    MAX_MOVES,
    MAXP,
    MIX,
    MIX_BACK,
    MIX_CARD,
    MIX_N,
    MORNING,
    N_CARD_COLS,
    N_DAY_KINDS,
    N_PLAYERS,
    N_TRADE_KINDS,
    NEW,
    NO_BLOCK,
    OFFER_ADD,
    OFFER_BACK,
    OFFER_DROP,
    OFFER_GET,
    OFFER_GIVE,
    OFFER_LAST,
    OFFER_MAKE,
    OFFER_START,
    OFFER_TO,
    OFFERS_USED,
    PAID,
    PAIRS,
    PAY_CARD,
    PAY_LEFT,
    PAY_MIN,
    PAY_RES,
    PAY_TARGET,
    PH_ACTION,
    PH_AFTER,
    PH_ASSIGN,
    PH_BLOCK,
    PH_DAWN,
    PH_DISCARD,
    PH_DRAW,
    PH_FOX_BLOCK,
    PH_MAIN,
    PH_MIX,
    PH_OFFER,
    PH_OVER,
    PH_PAY,
    PH_REPLY,
    PH_SETUP,
    PHASE,
    PILE,
    PLAY,
    PLAYERS,
    PS,
    R_ACORNS_PP,
    R_ARMY_LIMIT,
    R_BURY,
    R_DAYS,
    R_DEAL,
    R_DRAW,
    R_FIRST_A,
    R_FIRST_B,
    R_FIRST_GAME,
    R_FORAGE,
    R_GATHER,
    R_HAND_LIMIT,
    R_IT_DAY,
    R_IT_HOME,
    R_KEEP,
    R_MAX_GET,
    R_MAX_GIVE,
    R_MAX_TURNS,
    R_N_HOMES,
    R_ND,
    R_NDAYS,
    R_NK,
    R_OFFERS_PT,
    R_RES_PER_KIND,
    R_ROW,
    R_SETUP_RES,
    R_SWAP_GIVE,
    RALLY,
    RES,
    RESOURCE_NAMES,
    RETURN_RES,
    ROW,
    SEAT,
    SETUP_SEAT,
    SLOT,
    STATE_SIZE,
    STAY,
    STORE,
    SUB,
    SWAP,
    SWAP_TAKEN,
    TAKE_DECK,
    TAKE_ROW,
    TIRED,
    TRADE_ACORN,
    TURNS,
    WILD,
)

# "last_day", not the number of days: `days` is a number of the data (12 to 18 in a
# sweep), and an end reason read `sixteen_days` at 12 days
END_REASONS = ["timeout", "last_day"]


# --- sizes, small helpers -----------------------------------------------------------------

@kernel
def state_size(params, n_players):
    return STATE_SIZE


@kernel
def max_moves(params, n_players):
    return MAX_MOVES


@inline
def pb(p):
    """The first index of seat ``p``'s block. ``p`` is a seat, 0 to MAXP - 1, and the mask
    tells the compiler so: then it knows every index into a seat's block is not negative,
    drops numba's fix-up of negative indices from each (a compare and an add), and reads the
    loops over an army or a hand as plain runs of memory (with the fix-up it gathered them
    one element at a time, the dearest part of the play step's legal moves)."""
    return PLAYERS + (p & (MAXP - 1)) * PS


@kernel
def to_move(state):
    return state[ACTOR]


@kernel
def is_over(state):
    return state[PHASE] == PH_OVER


@kernel
def turn_number(state):
    return state[TURNS]


@inline
def hand_size(state, p):
    return state[pb(p) + HAND_N]


@inline
def hand_add(state, p, k, seen):
    """Card ``k`` goes into ``p``'s hand; ``seen``: face up, so the whole table knows."""
    state[pb(p) + HAND + k] += 1
    state[pb(p) + HAND_N] += 1
    if seen:
        state[pb(p) + KNOWN + k] += 1


@inline
def hand_remove(state, p, k):
    """Card ``k`` leaves ``p``'s hand (face up, or at setup, before anything is known)."""
    state[pb(p) + HAND + k] -= 1
    state[pb(p) + HAND_N] -= 1
    if state[pb(p) + KNOWN + k] > 0:
        state[pb(p) + KNOWN + k] -= 1


@inline
def res_total(state, p):
    b = pb(p) + RES
    return state[b] + state[b + 1] + state[b + 2] + state[b + 3]


@inline
def army_count(state, p):
    b = pb(p) + ARMY
    n = 0
    for i in range(MAX_ARMY):
        if state[b + i] >= 0:
            n += 1
    return n


@inline
def take_wild(state, p, n):
    """Up to ``n`` acorns from the wild into ``p``'s store; returns how many."""
    m = min(n, state[WILD])
    state[WILD] -= m
    state[pb(p) + STORE] += m
    return m


@inline
def bury(state, p, n):
    m = min(n, state[pb(p) + STORE])
    state[pb(p) + STORE] -= m
    state[pb(p) + BURIED] += m
    return m


@inline
def dig_up(state, p, n):
    m = min(n, state[pb(p) + BURIED])
    state[pb(p) + BURIED] -= m
    state[pb(p) + STORE] += m
    return m


@inline
def to_discard(state, k):
    state[DISCARD + state[DISCARD_N]] = k
    state[DISCARD_N] += 1


@inline
def draw_card(state, chance):
    """The top card of the deck (the discard pile shuffled in when it is empty), or -1.
    The table saw the pile go in, so it knows the deck holds those cards (DECK_CAN)."""
    if state[DECK_N] == 0:
        n = state[DISCARD_N]
        if n == 0:
            return -1
        state[DECK_CAN:DECK_CAN + MAX_KINDS] = 0
        for i in range(n):
            state[DECK + i] = state[DISCARD + i]
            state[DECK_CAN + state[DISCARD + i]] += 1
            state[DISCARD + i] = -1
        state[DISCARD_N] = 0
        state[DECK_N] = n
        shuffle(chance, state[DECK:DECK + n], n)
    state[DECK_N] -= 1
    k = state[DECK + state[DECK_N]]
    state[DECK + state[DECK_N]] = -1
    return k


@inline
def draw_to_hand(state, p, n, chance, items):
    for _ in range(n):
        k = draw_card(state, chance)
        if k < 0:
            return
        hand_add(state, p, k, False)
        items[p, k * 5 + EV_DRAWN] += 1


@inline
def refill_row(P, state, chance):
    for i in range(P[R_ROW]):
        if state[ROW + i] < 0:
            k = draw_card(state, chance)
            state[ROW + i] = k
            if k >= 0:  # turned face up: the table knows the deck holds one fewer
                state[DECK_CAN + k] -= 1


@inline
def new_row(P, state, chance):
    for i in range(P[R_ROW]):
        if state[ROW + i] >= 0:
            to_discard(state, state[ROW + i])
            state[ROW + i] = -1
    refill_row(P, state, chance)


@inline
def kill(P, state, p, i, items):
    """The creature at ``p``'s army place ``i`` dies and goes to the discard pile."""
    b = pb(p)
    k = state[b + ARMY + i]
    items[p, k * 5 + EV_DIED] += 1
    to_discard(state, k)
    state[b + ARMY + i] = -1
    state[b + AFLAG + i] = 0
    state[b + ATGT + i] = 0
    state[b + ALINK + i] = -1


# --- setup ---------------------------------------------------------------------------------

@kernel
def new_game(params, n_players, state, chance):
    P = params[FLAT]
    lay_out(P, n_players, state)
    deal_homes(P, n_players, state, chance)
    nd = P[R_ND]
    shuffle(chance, state[DAY_ORDER:DAY_ORDER + P[R_NDAYS]], P[R_NDAYS])
    if P[R_FIRST_GAME] == 1:
        first_game_setup(P, n_players, state, chance)
        return
    shuffle(chance, state[DECK:DECK + nd], nd)
    for p in range(n_players):
        draw_card_no_items(P, state, p, P[R_DEAL], chance)
        for r in range(4):
            m = min(P[R_SETUP_RES], state[PILE + r])
            state[PILE + r] -= m
            state[pb(p) + RES + r] += m
    state[PHASE] = PH_SETUP
    state[SETUP_SEAT] = -1
    next_setup_seat(P, state, chance)


@kernel
def lay_out(P, n_players, state):
    """The box opened: empty places, the wild, the piles, the deck and the day cards in
    their printed order (shuffled next)."""
    state[:] = 0
    state[ROW:PLAYERS] = -1
    for p in range(n_players):
        b = pb(p)
        state[b + ARMY:b + PS] = -1
        state[b + AFLAG:b + AFLAG + MAX_ARMY] = 0
        state[b + ATGT:b + ATGT + MAX_ARMY] = 0
        state[b + KNOWN:b + PS] = 0
    state[N_PLAYERS] = n_players
    state[DAY_CARD] = -1
    state[SLOT] = -1
    state[DEFENDER] = -1
    state[OFFER_TO] = -1
    state[OFFER_LAST] = -1
    state[PAY_CARD] = -1
    state[PAY_TARGET] = -1
    state[MIX_CARD] = -1
    state[WILD] = P[R_ACORNS_PP] * n_players
    for r in range(4):
        state[PILE + r] = P[R_RES_PER_KIND]
    for i in range(P[R_ND]):
        state[DECK + i] = P[DECK0 + i]
        state[DECK_CAN + P[DECK0 + i]] += 1
    state[DECK_N] = P[R_ND]
    for i in range(P[R_NDAYS]):
        state[DAY_ORDER + i] = P[DAYD + i]


@kernel
def deal_homes(P, n_players, state, chance):
    nh = P[R_N_HOMES]
    order = np.arange(nh)
    shuffle(chance, order, nh)
    for p in range(n_players):
        state[pb(p) + HOME] = order[p % nh]


@kernel
def draw_card_no_items(P, state, p, n, chance):
    for _ in range(n):
        k = draw_card(state, chance)
        if k < 0:
            return
        hand_add(state, p, k, False)


@kernel
def first_game_setup(P, n_players, state, chance):
    """First game: each player starts with the two named cards and one resource of each kind
    (taken out of the deck and piles before the shuffle)."""
    nd = state[DECK_N]
    for p in range(n_players):
        for want in (P[R_FIRST_A], P[R_FIRST_B]):
            for i in range(nd):
                if state[DECK + i] == want:
                    state[DECK + i] = state[DECK + nd - 1]
                    state[DECK + nd - 1] = -1
                    nd -= 1
                    state[DECK_CAN + want] -= 1
                    hand_add(state, p, want, True)  # everyone starts with them
                    break
        for r in range(4):
            if state[PILE + r] > 0:
                state[PILE + r] -= 1
                state[pb(p) + RES + r] += 1
    state[DECK_N] = nd
    shuffle(chance, state[DECK:DECK + nd], nd)
    refill_row(P, state, chance)
    state[PHASE] = PH_DAWN
    state[ACTOR] = 0


@kernel
def next_setup_seat(P, state, chance):
    """Move to the next seat that still has cards to put back; after the last, the day."""
    n = state[N_PLAYERS]
    p = state[SETUP_SEAT] + 1
    while p < n and hand_size(state, p) + res_total(state, p) <= P[R_KEEP]:
        p += 1
    state[SETUP_SEAT] = p
    if p < n:
        state[ACTOR] = p
        return
    nd = state[DECK_N]
    shuffle(chance, state[DECK:DECK + nd], nd)
    refill_row(P, state, chance)
    state[PHASE] = PH_DAWN
    state[ACTOR] = 0


@kernel
def apply_dawn(P, state, chance, items):
    """Count the homes and the kept hands, then turn over the first day."""
    for p in range(state[N_PLAYERS]):
        items[p, P[R_IT_HOME] + state[pb(p) + HOME]] += 1
        for k in range(P[R_NK]):
            items[p, k * 5 + EV_DRAWN] += state[pb(p) + HAND + k]
    start_day(P, state, chance, items)


# --- the day -------------------------------------------------------------------------------

@kernel
def start_day(P, state, chance, items):
    """Turn the day over: new row (from day two), the day card and its effect, then turns."""
    state[DAY] += 1
    if state[DAY] > P[R_DAYS]:
        state[PHASE] = PH_OVER
        state[ACTOR] = 0
        return
    if state[DAY] >= 2:
        new_row(P, state, chance)
    d = state[DAY_ORDER + state[DAY] - 1]
    state[DAY_CARD] = d
    n = state[N_PLAYERS]
    for p in range(n):
        items[p, P[R_IT_DAY] + d] += 1
    state[FOX_MASK] = 0
    for p in range(n):
        state[MORNING + 3 * p] = state[pb(p) + STORE]
        state[MORNING + 3 * p + 1] = state[pb(p) + BURIED]
        state[MORNING + 3 * p + 2] = 0
    day_effect(P, state, d, chance, items)
    next_fox(P, state, chance, items)
    for p in range(n):
        state[MORNING + 3 * p] = state[pb(p) + STORE] - state[MORNING + 3 * p]
        state[MORNING + 3 * p + 1] = state[pb(p) + BURIED] - state[MORNING + 3 * p + 1]


@kernel
def affected(P, items, p, d):
    col = P[DAYV + d * 4 + 3]
    if col >= 0:
        items[p, col] += 1


@kernel
def day_effect(P, state, d, chance, items):
    """What day card ``d`` does when it is turned over (the day-long cards act elsewhere)."""
    n = state[N_PLAYERS]
    num = P[DAYV + d * 4 + 1]
    hit = 0
    if d == D_BUTTONS:
        hit = most_creatures(state)
    elif d == D_FOX:
        hit = extreme(state, STORE, True)
    elif d == D_JAY:
        hit = extreme(state, BURIED, True)
    elif d == D_LOST_HOARD:
        hit = extreme(state, BURIED, False)
    elif d == D_HARVEST or d == D_PEDLAR or d == D_THAW or d == D_FLOOD:
        hit = (1 << n) - 1
    for p in range(n):  # in turn order: the wild may run out on the way
        if hit & (1 << p) and day_strikes(P, state, d, p, num, chance, items):
            affected(P, items, p, d)


@kernel
def day_strikes(P, state, d, p, num, chance, items):
    """Day card ``d`` strikes seat ``p``; True if something happened to them."""
    if d == D_BUTTONS:
        for _ in range(num):
            cat_eats(P, state, p, chance, items)
        return True
    if d == D_FOX:
        state[FOX_MASK] |= 1 << p  # it attacks once the morning is done
        return True
    if d == D_PEDLAR:
        draw_to_hand(state, p, num, chance, items)
        return True
    if d == D_JAY or d == D_FLOOD:
        return dig_up(state, p, num) > 0
    if d == D_THAW:
        return bury(state, p, num) > 0
    return take_wild(state, p, num) > 0  # Lost Hoard, Good Harvest


@kernel
def extreme(state, off, most):
    """Bit p set for the seats holding the most (``most``) or the fewest acorns at ``off``
    (STORE or BURIED); nobody when the most is 0 (the Fox and the Jay find nothing)."""
    n = state[N_PLAYERS]
    best = state[pb(0) + off]
    for p in range(n):
        v = state[pb(p) + off]
        best = max(best, v) if most else min(best, v)
    if most and best == 0:
        return 0
    mask = 0
    for p in range(n):
        if state[pb(p) + off] == best:
            mask |= 1 << p
    return mask


@kernel
def most_creatures(state):
    """Bit p set for the seats with the most creatures (none if nobody has one)."""
    n = state[N_PLAYERS]
    best = 0
    for p in range(n):
        best = max(best, army_count(state, p))
    mask = 0
    for p in range(n):
        if best > 0 and army_count(state, p) == best:
            mask |= 1 << p
    return mask


@kernel
def cat_eats(P, state, p, chance, items):
    """Mr. Buttons eats one of ``p``'s creatures, chosen at random."""
    c = army_count(state, p)
    if c == 0:
        return
    r = rand_below(chance, c)
    b = pb(p) + ARMY
    for i in range(MAX_ARMY):
        if state[b + i] >= 0:
            if r == 0:
                state[MORNING + 3 * p + 2] |= 1 << i
                kill(P, state, p, i, items)
                return
            r -= 1


@kernel
def next_fox(P, state, chance, items):
    """The Fox attacks each of its targets in turn order; then the first player's turn."""
    n = state[N_PLAYERS]
    for p in range(n):
        if state[FOX_MASK] & (1 << p):
            state[FOX_MASK] &= ~(1 << p)
            state[DEFENDER] = p
            state[SLOT] = -1
            if next_blocker(P, state, p, True):
                state[PHASE] = PH_FOX_BLOCK
                state[ACTOR] = p
                return
            resolve_fox(P, state, p, items)
    state[DEFENDER] = -1
    start_turn(P, state, 0)


@kernel
def resolve_fox(P, state, p, items):
    """The Fox against ``p``: blocked, its strength hits the blockers (least health first) and
    it leaves with nothing, killed or not (so its health changes nothing); unblocked, it takes
    up to its strength in stored acorns back to the wild."""
    fox_str = P[DAYV + D_FOX * 4 + 1]
    b = pb(p)
    blocked = False
    for i in range(MAX_ARMY):
        if state[b + ALINK + i] == FOX_LINK:
            blocked = True
            items[p, state[b + ARMY + i] * 5 + EV_BLOCKED] += 1
    if blocked:
        deal_damage(P, state, p, FOX_LINK, 0, fox_str, items)
    else:
        m = min(fox_str, state[b + STORE])
        state[b + STORE] -= m
        state[WILD] += m
    clear_links(state, p)


# --- the turn ------------------------------------------------------------------------------

@inline
def start_turn(P, state, s):
    b = pb(s)
    for i in range(MAX_ARMY):
        state[b + AFLAG + i] = 0
    state[SEAT] = s
    state[ACTOR] = s
    state[SWAP_TAKEN] = 0
    state[OFFERS_USED] = 0
    state[RALLY] = 0
    state[PHASE] = PH_ACTION


@inline
def end_turn(P, state, chance, items):
    s = state[SEAT]
    if hand_size(state, s) > P[R_HAND_LIMIT]:
        state[PHASE] = PH_DISCARD
        state[ACTOR] = s
        return
    state[TURNS] += 1
    b = pb(s)
    for i in range(MAX_ARMY):
        state[b + AFLAG + i] &= TIRED  # "new" lasts only the turn a creature is played
    if s + 1 < state[N_PLAYERS]:
        start_turn(P, state, s + 1)
    else:
        start_day(P, state, chance, items)


# --- costs ---------------------------------------------------------------------------------
# A cost is specific resource cards plus a circled number of cards of any kind; Call to Arms
# takes cards off a creature's cost, any cards of it the player likes. Which cards pay is
# the player's choice, made one card at a time in kind order (berry, twig, pebble, feather)
# so that each payment is chosen in one way only; cards with no choice left are paid at once.

@inline
def cost_discount(P, state, k):
    """How many cards Call to Arms takes off card ``k``'s cost today (0 for a trick)."""
    if state[DAY_CARD] == D_CALL and P[CARD + k * N_CARD_COLS + C_TRICK] == 0:
        return P[DAYV + D_CALL * 4 + 1]
    return 0


@inline
def cost_total(P, state, k):
    """How many resource cards card ``k`` costs today."""
    c = CARD + k * N_CARD_COLS
    n = P[c + C_ANY]
    for r in range(4):
        n += P[c + C_COST + r]
    return max(0, n - cost_discount(P, state, k))


@inline
def can_complete(P, state, s, k):
    """Can seat ``s`` finish paying card ``k`` (PAID so far, PAY_LEFT cards still to pay,
    of kinds PAY_MIN and up)? It needs that many cards of those kinds, and the specific
    cards it has not paid and no longer can (kinds below PAY_MIN, or not held) must be no
    more than the discount: the discount waives them."""
    b = pb(s) + RES
    c = CARD + k * N_CARD_COLS
    left = state[PAY_LEFT]
    held = 0
    cover = 0
    unpaid = 0
    for r in range(4):
        need = max(0, P[c + C_COST + r] - state[PAID + r])
        unpaid += need
        if r >= state[PAY_MIN]:
            held += state[b + r]
            cover += min(need, state[b + r])
    return held >= left and unpaid - min(left, cover) <= cost_discount(P, state, k)


@inline
def pay_one(state, s, r):
    """Seat ``s`` pays one resource card of kind ``r`` back to its pile."""
    state[pb(s) + RES + r] -= 1
    state[PILE + r] += 1
    state[PAID + r] += 1
    state[PAY_MIN] = r
    state[PAY_LEFT] -= 1


@inline
def may_pay_with(P, state, s, r):
    """Paying the next card with kind ``r`` still leaves a way to finish paying."""
    if r < state[PAY_MIN] or state[pb(s) + RES + r] == 0:
        return False
    m = state[PAY_MIN]
    pay_one(state, s, r)
    ok = can_complete(P, state, s, state[PAY_CARD])
    state[pb(s) + RES + r] += 1
    state[PILE + r] -= 1
    state[PAID + r] -= 1
    state[PAY_MIN] = m
    state[PAY_LEFT] += 1
    return ok


@inline
def legal_pay(P, state, moves):
    s = state[SEAT]
    n = 0
    for r in range(4):
        if may_pay_with(P, state, s, r):
            moves[n] = PAY_RES + r
            n += 1
    return n


@inline
def advance_payment(P, state, chance, items):
    """Pay every card that leaves no choice; stop at a choice (PH_PAY) or, when the card is
    paid in full, play it."""
    s = state[SEAT]
    while state[PAY_LEFT] > 0:
        only = -1
        ways = 0
        for r in range(4):
            if may_pay_with(P, state, s, r):
                ways += 1
                only = r
        if ways != 1:
            state[PHASE] = PH_PAY
            return
        pay_one(state, s, only)
    k = state[PAY_CARD]
    t = state[PAY_TARGET]
    state[PAY_CARD] = -1
    state[PAY_TARGET] = -1
    state[PAY_MIN] = 0
    for r in range(4):
        state[PAID + r] = 0
    state[PHASE] = PH_MAIN
    put_into_play(P, state, s, k, t, chance, items)


# --- legal moves ---------------------------------------------------------------------------

@kernel
def legal_moves(params, state, moves):
    P = params[FLAT]
    ph = state[PHASE]
    if ph == PH_MAIN:  # the play step: half of all decisions, so its lists are here
        s = state[SEAT]
        n = legal_plays(P, state, s, moves, 0)
        n = legal_free(P, state, s, moves, n)
        moves[n] = END_PLAY
        return n + 1
    if ph == PH_ACTION:
        n = legal_action(P, state, moves)
        return legal_free(P, state, state[SEAT], moves, n)
    if ph == PH_AFTER:
        n = legal_free(P, state, state[SEAT], moves, 0)
        moves[n] = END_PLAY
        return n + 1
    if ph == PH_OFFER:
        return legal_offer_items(P, state, moves)
    if ph == PH_PAY:
        return legal_pay(P, state, moves)
    if ph == PH_MIX:
        return legal_mix(P, state, moves)
    if ph == PH_DRAW:
        return legal_draw(P, state, moves)
    if ph == PH_REPLY:  # accept only what the player offered the trade can pay
        moves[0] = DECLINE
        if holds_offer(state, state[OFFER_TO], OFFER_GET):
            moves[1] = ACCEPT
            return 2
        return 1
    if ph == PH_ASSIGN:
        return legal_assign(P, state, moves)
    if ph == PH_BLOCK or ph == PH_FOX_BLOCK:
        return legal_block(P, state, moves)
    if ph == PH_DISCARD or ph == PH_SETUP:
        return legal_discard(P, state, moves)
    if ph == PH_DAWN:
        moves[0] = END_PLAY
        return 1
    return 0


@inline
def legal_action(P, state, moves):
    s = state[SEAT]
    n = 0
    for g in range(P[R_GATHER] + 1):
        moves[n] = GATHER + g
        n += 1
    if state[DECK_N] + state[DISCARD_N] > 0 or row_count(P, state) > 0:
        moves[n] = DRAW
        n += 1
    if state[DECK_N] + state[DISCARD_N] > 0:
        moves[n] = DRAW_REFRESH
        n += 1
    moves[n] = FORAGE
    n += 1
    if state[DAY_CARD] != D_FROST:
        for m in range(1, min(P[R_BURY], state[pb(s) + STORE]) + 1):
            moves[n] = BURY + m - 1
            n += 1
    return n


@inline
def row_count(P, state):
    c = 0
    for i in range(P[R_ROW]):
        if state[ROW + i] >= 0:
            c += 1
    return c


@inline
def can_draw(P, state):
    return state[DECK_N] + state[DISCARD_N] > 0 or row_count(P, state) > 0


@inline
def legal_draw(P, state, moves):
    n = 0
    for i in range(P[R_ROW]):
        if state[ROW + i] >= 0:
            moves[n] = TAKE_ROW + i
            n += 1
    if state[DECK_N] + state[DISCARD_N] > 0:
        moves[n] = TAKE_DECK
        n += 1
    return n


@inline
def legal_plays(P, state, s, moves, n):
    """Every card in hand that can be paid for (see ``can_complete``). The cost test is
    written out here (not a call per card): this loop runs at every decision of the play
    step. The kinds held are found first as a mask, without a branch per kind (which kinds
    a hand holds is as good as random, and a branch per kind was mispredicted for most of
    them), and the army is counted only for a creature that can be paid for."""
    b = pb(s)
    held_kinds = 0
    for k in range(P[R_NK]):
        held_kinds |= (1 if state[b + HAND + k] > 0 else 0) << k
    if held_kinds == 0:
        return n
    r0 = state[b + RES]
    r1 = state[b + RES + 1]
    r2 = state[b + RES + 2]
    r3 = state[b + RES + 3]
    held = r0 + r1 + r2 + r3
    call = P[DAYV + D_CALL * 4 + 1] if state[DAY_CARD] == D_CALL else 0
    frost = state[DAY_CARD] == D_FROST
    room = -1  # the army not counted yet
    while held_kinds != 0:
        k = trailing_zeros(held_kinds)
        held_kinds &= held_kinds - 1
        c = CARD + k * N_CARD_COLS
        trick = P[c + C_TRICK] == 1
        cut = 0 if trick else call
        # payable: enough cards in all, and the specific ones missing waived by the discount
        n0 = P[c + C_COST]
        n1 = P[c + C_COST + 1]
        n2 = P[c + C_COST + 2]
        n3 = P[c + C_COST + 3]
        specific = n0 + n1 + n2 + n3
        total = max(0, specific + P[c + C_ANY] - cut)
        if held < total:
            continue
        cover = min(n0, r0) + min(n1, r1) + min(n2, r2) + min(n3, r3)
        if specific - min(total, cover) > cut:
            continue
        if not trick:
            if room < 0:
                room = 1 if army_count(state, s) < P[R_ARMY_LIMIT] else 0
            if room == 1:
                moves[n] = PLAY + 4 * k
                n += 1
        elif P[c + C_TARGETED] == 1:
            for t in range(state[N_PLAYERS]):
                if t != s:
                    moves[n] = PLAY + 4 * k + t
                    n += 1
        elif not (frost and P[c + C_EFFECT] == E_BURY):
            moves[n] = PLAY + 4 * k
            n += 1
    return n


@inline
def ready_abilities(P, state, s):
    """Bit i set: the creature at ``s``'s army place ``i`` may use its ability now: it
    stands, its ability is one that tires it (not a burying one on Hard Frost), and it does
    not wait (or was not played this turn). The standing creatures are found first without
    a branch per place."""
    b = pb(s)
    standing = 0
    for i in range(MAX_ARMY):
        up = state[b + ARMY + i] >= 0 and (state[b + AFLAG + i] & TIRED) == 0
        standing |= (1 if up else 0) << i
    frost = state[DAY_CARD] == D_FROST
    ready = 0
    while standing != 0:
        i = trailing_zeros(standing)
        standing &= standing - 1
        c = CARD + state[b + ARMY + i] * N_CARD_COLS
        e = P[c + C_EFFECT]
        if e < E_TIRE_FORAGE or e > E_TIRE_GATHER or (e == E_TIRE_BURY and frost):
            continue
        if P[c + C_WAITS] == 1 and state[b + AFLAG + i] & NEW:
            continue
        ready |= 1 << i
    return ready


@inline
def legal_abilities(P, state, s, moves, n):
    ready = ready_abilities(P, state, s)
    while ready != 0:
        moves[n] = ABILITY + trailing_zeros(ready)
        n += 1
        ready &= ready - 1
    return n


@inline
def swap_give(P, state):
    if state[DAY_CARD] == D_MARKET:
        return P[DAYV + D_MARKET * 4 + 1]
    return P[R_SWAP_GIVE]


@inline
def swap_pairs(state, s, give):
    """Bit q set: ``s`` can give the resource pair PAIRS[q] in a swap of ``give`` cards
    (never a kind a swap took this turn, SWAP_TAKEN: that would undo it, and the rule keeps
    the turn finite even when a swap is 1 for 1, Market Day)."""
    b = pb(s) + RES
    if state[b] + state[b + 1] + state[b + 2] + state[b + 3] < give:
        return 0  # no pair holds that many
    taken = state[SWAP_TAKEN]
    ga = (give + 1) // 2
    gb = give // 2
    pairs = 0
    for q in range(PAIRS.shape[0]):
        a = PAIRS[q, 0]
        c2 = PAIRS[q, 1]
        if gb == 0 and a != c2:
            continue
        if (taken >> a) & 1 or (gb > 0 and (taken >> c2) & 1):
            continue
        if a == c2:
            ok = state[b + a] >= give
        else:
            ok = state[b + a] >= ga and state[b + c2] >= gb
        if ok:
            pairs |= 1 << q
    return pairs


@inline
def swap_takes(state, q):
    """Bit c set: a swap giving the pair PAIRS[q] may take a card of kind ``c`` (another
    kind, still in its pile)."""
    a = PAIRS[q, 0]
    c2 = PAIRS[q, 1]
    takes = 0
    for c in range(4):
        if c != a and c != c2 and state[PILE + c] > 0:
            takes |= 1 << c
    return takes


@inline
def legal_swaps(state, s, moves, n, give):
    """Swaps of ``give`` resource cards (a pair of kinds) for 1 of another kind from the
    piles (``swap_pairs``, ``swap_takes``)."""
    pairs = swap_pairs(state, s, give)
    while pairs != 0:
        q = trailing_zeros(pairs)
        pairs &= pairs - 1
        takes = swap_takes(state, q)
        while takes != 0:
            moves[n] = SWAP + 4 * q + trailing_zeros(takes)
            n += 1
            takes &= takes - 1
    return n


@inline
def may_offer(P, state, s):
    """``s`` may begin one more trade offer this turn and has something to trade."""
    return state[OFFERS_USED] < P[R_OFFERS_PT] and trade_goods(state, s) > 0


@inline
def legal_free(P, state, s, moves, n):
    """The moves a player may make at any point of their turn outside the action itself,
    the draws and the fights: abilities, swaps, and beginning a trade offer."""
    n = legal_abilities(P, state, s, moves, n)
    n = legal_swaps(state, s, moves, n, swap_give(P, state))
    if may_offer(P, state, s):
        for t in range(state[N_PLAYERS]):
            if t != s and trade_goods(state, t) > 0:
                moves[n] = OFFER_START + t
                n += 1
    return n


@inline
def any_free(P, state, s):
    """``legal_free`` would find a move (without writing the moves out)."""
    if ready_abilities(P, state, s) != 0:
        return True
    pairs = swap_pairs(state, s, swap_give(P, state))
    while pairs != 0:
        if swap_takes(state, trailing_zeros(pairs)) != 0:
            return True
        pairs &= pairs - 1
    if may_offer(P, state, s):
        for t in range(state[N_PLAYERS]):
            if t != s and trade_goods(state, t) > 0:
                return True
    return False


@inline
def trade_goods(state, p):
    """What ``p`` could put in a trade: resource cards and stored acorns."""
    b = pb(p) + RES
    return state[b] + state[b + 1] + state[b + 2] + state[b + 3] + state[b + TRADE_ACORN]


@inline
def holds_offer(state, p, side):
    """``p`` holds every item of the offer's side ``side`` (OFFER_GIVE or OFFER_GET)."""
    for c in range(N_TRADE_KINDS):
        if state[pb(p) + RES + c] < state[side + c]:
            return False
    return True


@inline
def legal_offer_items(P, state, moves):
    """Building an offer: one more of my trade kinds to give, then one more of theirs to ask
    for (in item order, OFFER_LAST, so each offer is built one way; a kind is never on both
    sides; each side at most what its player holds and trade.max_give / max_get); make it
    once both sides hold something; withdraw it at any point."""
    me = pb(state[SEAT]) + RES
    them = pb(state[OFFER_TO]) + RES
    gives = 0
    gets = 0
    for c in range(N_TRADE_KINDS):
        gives += state[OFFER_GIVE + c]
        gets += state[OFFER_GET + c]
    n = 0
    for i in range(max(state[OFFER_LAST], 0), 2 * N_TRADE_KINDS):
        if i < N_TRADE_KINDS:
            ok = gives < P[R_MAX_GIVE] and state[me + i] > state[OFFER_GIVE + i]
        else:
            c = i - N_TRADE_KINDS
            ok = gives > 0 and gets < P[R_MAX_GET] and state[OFFER_GIVE + c] == 0 \
                and state[them + c] > state[OFFER_GET + c]
        if ok:
            moves[n] = OFFER_ADD + i
            n += 1
    if gives > 0 and gets > 0:
        moves[n] = OFFER_MAKE
        n += 1
    moves[n] = OFFER_DROP
    return n + 1


@inline
def can_attack(P, state, s, i):
    """Creature at ``s``'s place ``i`` may still be sent on an attack this turn."""
    b = pb(s)
    k = state[b + ARMY + i]
    if k < 0 or state[b + AFLAG + i] & (TIRED | NEW | DECIDED):
        return False
    return not (state[DAY_CARD] == D_WINDY and P[CARD + k * N_CARD_COLS + C_FLY] == 1)


@inline
def next_attacker(P, state):
    """Advance SLOT to the next creature of the turn's seat that can attack; False if none."""
    b = pb(state[SEAT])
    windy = state[DAY_CARD] == D_WINDY
    for i in range(state[SLOT] + 1, MAX_ARMY):
        k = state[b + ARMY + i]
        if k < 0 or state[b + AFLAG + i] & (TIRED | NEW | DECIDED):
            continue
        if windy and P[CARD + k * N_CARD_COLS + C_FLY] == 1:
            continue
        state[SLOT] = i
        return True
    return False


@inline
def legal_assign(P, state, moves):
    """Stay (or, for a Relentless creature already sent, go on no more attacks), or attack
    a player it is not already sent against."""
    s = state[SEAT]
    sent = state[pb(s) + ATGT + state[SLOT]]
    moves[0] = STAY
    n = 1
    for t in range(state[N_PLAYERS]):
        if t != s and ((sent >> t) & 1) == 0:
            moves[n] = ATTACK + t
            n += 1
    return n


@inline
def more_attacks(P, state, s, i):
    """``s``'s creature at place ``i``, already sent, may be sent against another player:
    its card allows more attacks (C_ATTACKS) and a player it is not sent against is left."""
    sent = state[pb(s) + ATGT + i]
    left = P[CARD + state[pb(s) + ARMY + i] * N_CARD_COLS + C_ATTACKS]
    free = 0
    for t in range(state[N_PLAYERS]):
        if (sent >> t) & 1:
            left -= 1
        elif t != s:
            free += 1
    return left > 0 and free > 0


@inline
def can_block(P, state, d, i, j):
    """Defender ``d``'s creature at place ``i`` may block the attacker unit led by place ``j``
    of the turn's seat (``j`` = FOX_LINK for the Fox)."""
    b = pb(d)
    k = state[b + ARMY + i]
    if k < 0 or state[b + AFLAG + i] & (TIRED | DECIDED) or state[DAY_CARD] == D_FOG:
        return False
    if state[DAY_CARD] == D_WINDY and P[CARD + k * N_CARD_COLS + C_FLY] == 1:
        return False
    if j == FOX_LINK:
        return True
    ka = state[pb(state[SEAT]) + ARMY + j]
    c = CARD + k * N_CARD_COLS
    return P[CARD + ka * N_CARD_COLS + C_FLY] == 0 or P[c + C_FLY] == 1 or P[c + C_RANGED] == 1


@inline
def attacker_masks(P, state, d):
    """Bit j set: the attacker unit led by place j attacks ``d`` (all units, then the ones
    that do not fly)."""
    a = pb(state[SEAT])
    every = 0
    ground = 0
    for j in range(MAX_ARMY):
        if (state[a + ATGT + j] >> d) & 1 and state[a + ALINK + j] == j:
            every |= 1 << j
            if P[CARD + state[a + ARMY + j] * N_CARD_COLS + C_FLY] == 0:
                ground |= 1 << j
    return every, ground


@inline
def next_blocker(P, state, d, fox):
    """Advance SLOT to the defender's next creature that could block something."""
    if state[DAY_CARD] == D_FOG:
        return False
    every, ground = attacker_masks(P, state, d)
    if fox:
        every = ground = 1
    windy = state[DAY_CARD] == D_WINDY
    b = pb(d)
    for i in range(state[SLOT] + 1, MAX_ARMY):
        k = state[b + ARMY + i]
        if k < 0 or state[b + AFLAG + i] & (TIRED | DECIDED):
            continue
        c = CARD + k * N_CARD_COLS
        if windy and P[c + C_FLY] == 1:
            continue
        reach = every if P[c + C_FLY] == 1 or P[c + C_RANGED] == 1 else ground
        if reach != 0:
            state[SLOT] = i
            return True
    return False


@inline
def legal_block(P, state, moves):
    d = state[DEFENDER]
    i = state[SLOT]
    moves[0] = NO_BLOCK
    if state[PHASE] == PH_FOX_BLOCK:
        moves[1] = BLOCK_FOX
        return 2
    n = 1
    a = pb(state[SEAT])
    for j in range(MAX_ARMY):
        if (state[a + ATGT + j] >> d) & 1 and state[a + ALINK + j] == j:
            if can_block(P, state, d, i, j):
                moves[n] = BLOCK + j
                n += 1
    return n


@inline
def legal_discard(P, state, moves):
    p = state[ACTOR]
    b = pb(p)
    n = 0
    for k in range(P[R_NK]):
        if state[b + HAND + k] > 0:
            moves[n] = DISCARD_CARD + k
            n += 1
    if state[PHASE] == PH_SETUP:
        for r in range(4):
            if state[b + RES + r] > 0:
                moves[n] = RETURN_RES + r
                n += 1
    return n


# --- applying a move -----------------------------------------------------------------------

@kernel
def apply_move(params, state, move, chance, items):
    P = params[FLAT]
    ph = state[PHASE]
    if ph == PH_MAIN:  # the play step: half of all decisions, so dispatched here
        s = state[SEAT]
        if move == END_PLAY:
            begin_attacks(P, state, chance, items)
        elif move >= ABILITY:
            apply_free(P, state, s, move, chance, items)
        else:
            play_card(P, state, s, (move - PLAY) // 4, (move - PLAY) % 4, chance, items)
    elif ph == PH_ACTION:
        if move >= ABILITY:
            apply_free(P, state, state[SEAT], move, chance, items)
        else:
            apply_action(P, state, move, chance, items)
    elif ph == PH_AFTER:
        if move == END_PLAY:
            end_turn(P, state, chance, items)
        else:
            apply_free(P, state, state[SEAT], move, chance, items)
    elif ph == PH_OFFER:
        apply_offer_item(state, move)
    elif ph == PH_PAY:
        pay_one(state, state[SEAT], move - PAY_RES)
        advance_payment(P, state, chance, items)
    elif ph == PH_MIX:
        apply_mix(P, state, move)
    elif ph == PH_DRAW:
        apply_draw(P, state, move, chance, items)
    elif ph == PH_REPLY:
        apply_reply(state, move)
    elif ph == PH_ASSIGN:
        apply_assign(P, state, move, chance, items)
    elif ph == PH_BLOCK:
        apply_block(P, state, move, chance, items)
    elif ph == PH_FOX_BLOCK:
        apply_fox_block(P, state, move, chance, items)
    elif ph == PH_DISCARD:
        apply_discard(P, state, move, chance, items)
    elif ph == PH_SETUP:
        apply_setup(P, state, move, chance)
    elif ph == PH_DAWN:
        apply_dawn(P, state, chance, items)


@inline
def apply_free(P, state, s, move, chance, items):
    """An ability, a swap or the start of an offer, in whichever step of the turn."""
    if move >= OFFER_START:
        state[OFFERS_USED] += 1  # a withdrawn offer counts too: the cap keeps turns finite
        state[OFFER_TO] = move - OFFER_START
        state[OFFER_BACK] = state[PHASE]
        state[OFFER_LAST] = -1
        state[PHASE] = PH_OFFER
    elif move >= SWAP:
        do_swap(P, state, s, move - SWAP)
    else:
        use_ability(P, state, s, move - ABILITY, chance, items)


@inline
def busy_bonus(P, state, s):
    if state[DAY_CARD] == D_BUSY:
        take_wild(state, s, P[DAYV + D_BUSY * 4 + 1])


@inline
def apply_action(P, state, move, chance, items):
    s = state[SEAT]
    state[PHASE] = PH_MAIN
    if move <= GATHER + 6:
        gather(P, state, s, P[R_GATHER], move - GATHER)
        busy_bonus(P, state, s)
    elif move == DRAW or move == DRAW_REFRESH:
        if move == DRAW_REFRESH:
            new_row(P, state, chance)
        state[SUB] = P[R_DRAW]
        state[PHASE] = PH_DRAW
        busy_bonus(P, state, s)
        if not can_draw(P, state) or state[SUB] == 0:
            finish_draw(P, state, chance)
    elif move == FORAGE:
        n = P[R_FORAGE]
        if state[DAY_CARD] == D_BUMPER:
            n += P[DAYV + D_BUMPER * 4 + 1]
        take_wild(state, s, n)
    else:
        bury(state, s, move - BURY + 1)


@inline
def gather(P, state, s, n, g):
    """``n`` cards of the home's two kinds: ``g`` of its second kind, the rest of its first
    (what the piles hold)."""
    h = state[pb(s) + HOME]
    ka = P[HOMES + h * 2 + 0]
    kb = P[HOMES + h * 2 + 1]
    na = min(n - g, state[PILE + ka])
    nb = min(g, state[PILE + kb])
    state[PILE + ka] -= na
    state[pb(s) + RES + ka] += na
    state[PILE + kb] -= nb
    state[pb(s) + RES + kb] += nb


# A gathering ability (tire_gather, the Beaver's) takes its cards "in any mix", as Gather:
# the player chooses after tiring the creature (PH_MIX), so the ability is one move among the
# turn's moves whatever its number, as every other ability is (NOTES.md, The Beaver's gather).

@inline
def mix_range(P, state, s, n):
    """(lo, hi): the mixes of ``n`` cards the piles can fill, ``g`` of the home's second
    kind for lo <= g <= hi; lo > hi when the two piles hold fewer than ``n`` together."""
    h = state[pb(s) + HOME]
    lo = max(0, n - state[PILE + P[HOMES + h * 2 + 0]])
    hi = min(n, state[PILE + P[HOMES + h * 2 + 1]])
    return lo, hi


@inline
def begin_mix(P, state, s, k, n):
    """Creature ``k`` of seat ``s`` gathers ``n`` cards: the mix is asked for when the piles
    can fill more than one; the one way (or, when they hold fewer than ``n``, all they hold)
    is taken without asking."""
    lo, hi = mix_range(P, state, s, n)
    if lo >= hi:
        gather(P, state, s, n, hi)
        return
    state[MIX_N] = n
    state[MIX_CARD] = k
    state[MIX_BACK] = state[PHASE]
    state[PHASE] = PH_MIX


@inline
def legal_mix(P, state, moves):
    lo, hi = mix_range(P, state, state[SEAT], state[MIX_N])
    for g in range(lo, hi + 1):
        moves[g - lo] = MIX + g
    return hi - lo + 1


@inline
def apply_mix(P, state, move):
    gather(P, state, state[SEAT], state[MIX_N], move - MIX)
    state[PHASE] = state[MIX_BACK]
    state[MIX_N] = 0
    state[MIX_BACK] = 0
    state[MIX_CARD] = -1


@inline
def apply_draw(P, state, move, chance, items):
    s = state[SEAT]
    if move == TAKE_DECK:
        draw_to_hand(state, s, 1, chance, items)
    else:
        i = move - TAKE_ROW
        k = state[ROW + i]
        state[ROW + i] = -1
        hand_add(state, s, k, True)  # taken from the face-up row: the table saw it
        items[s, k * 5 + EV_DRAWN] += 1
    state[SUB] -= 1
    if state[SUB] <= 0 or not can_draw(P, state):
        finish_draw(P, state, chance)


@inline
def finish_draw(P, state, chance):
    state[SUB] = 0
    refill_row(P, state, chance)
    state[PHASE] = PH_MAIN


@inline
def play_card(P, state, s, k, t, chance, items):
    """Seat ``s`` plays card ``k`` (a trick picks player ``t``): first its payment."""
    state[PAY_CARD] = k
    state[PAY_TARGET] = t
    state[PAY_MIN] = 0
    state[PAY_LEFT] = cost_total(P, state, k)
    for r in range(4):
        state[PAID + r] = 0
    advance_payment(P, state, chance, items)


@inline
def put_into_play(P, state, s, k, t, chance, items):
    """Card ``k``, paid for, leaves the hand: a creature joins the army, a trick acts."""
    b = pb(s)
    hand_remove(state, s, k)
    items[s, k * 5 + EV_PLAYED] += 1
    if P[CARD + k * N_CARD_COLS + C_TRICK] == 0:
        for i in range(MAX_ARMY):
            if state[b + ARMY + i] < 0:
                state[b + ARMY + i] = k
                state[b + AFLAG + i] = NEW
                return
    do_effect(P, state, s, k, t, chance, items)
    to_discard(state, k)


@inline
def use_ability(P, state, s, i, chance, items):
    b = pb(s)
    state[b + AFLAG + i] |= TIRED
    do_effect(P, state, s, state[b + ARMY + i], -1, chance, items)


@inline
def do_effect(P, state, s, k, t, chance, items):
    """The effect of card ``k`` for seat ``s`` (``t``: the player a trick picked)."""
    e = P[CARD + k * N_CARD_COLS + C_EFFECT]
    a = P[CARD + k * N_CARD_COLS + C_AMOUNT]
    if e == E_FORAGE or e == E_TIRE_FORAGE:
        take_wild(state, s, a)
    elif e == E_BURY or e == E_TIRE_BURY:
        bury(state, s, a)
    elif e == E_DRAW or e == E_TIRE_DRAW:
        draw_to_hand(state, s, a, chance, items)
    elif e == E_TIRE_GATHER:
        begin_mix(P, state, s, k, a)
    elif e == E_STEAL_STORE:
        m = min(a, state[pb(t) + STORE])
        state[pb(t) + STORE] -= m
        state[pb(s) + STORE] += m
    elif e == E_DIG_UP:
        dig_up(state, t, a)
    elif e == E_AMBUSH:
        ambush(P, state, t, a, items)
    elif e == E_RALLY:
        state[RALLY] += a


@inline
def ambush(P, state, t, a, items):
    """``t``'s strongest creature with health at most ``a`` dies (first place on ties)."""
    b = pb(t)
    best = -1
    for i in range(MAX_ARMY):
        k = state[b + ARMY + i]
        if k >= 0 and P[CARD + k * N_CARD_COLS + C_HP] <= a:
            kb = state[b + ARMY + best] if best >= 0 else k
            if best < 0 or P[CARD + k * N_CARD_COLS + C_STR] > P[CARD + kb * N_CARD_COLS + C_STR]:
                best = i
    if best >= 0:
        kill(P, state, t, best, items)


@inline
def do_swap(P, state, s, code):
    q = code // 4
    c = code % 4
    give = swap_give(P, state)
    b = pb(s) + RES
    a = PAIRS[q, 0]
    a2 = PAIRS[q, 1]
    ga = (give + 1) // 2
    if a == a2:
        ga = give
    gb = give - ga
    state[b + a] -= ga
    state[PILE + a] += ga
    state[b + a2] -= gb
    state[PILE + a2] += gb
    state[PILE + c] -= 1
    state[b + c] += 1
    state[SWAP_TAKEN] |= 1 << c


@inline
def apply_offer_item(state, move):
    if move == OFFER_DROP:
        close_offer(state)
        return
    if move == OFFER_MAKE:
        state[PHASE] = PH_REPLY
        state[ACTOR] = state[OFFER_TO]
        return
    i = move - OFFER_ADD
    if i < N_TRADE_KINDS:
        state[OFFER_GIVE + i] += 1
    else:
        state[OFFER_GET + i - N_TRADE_KINDS] += 1
    state[OFFER_LAST] = i


@inline
def close_offer(state):
    """The offer is over: the turn goes on in the step it was made in."""
    for c in range(N_TRADE_KINDS):
        state[OFFER_GIVE + c] = 0
        state[OFFER_GET + c] = 0
    state[OFFER_TO] = -1
    state[OFFER_LAST] = -1
    state[PHASE] = state[OFFER_BACK]
    state[OFFER_BACK] = 0
    state[ACTOR] = state[SEAT]


@inline
def apply_reply(state, move):
    """Accepted, the offered items change hands (a resource card or a stored acorn, each
    kind at RES + kind); either way the turn's player goes on."""
    if move == ACCEPT:
        me = pb(state[SEAT]) + RES
        other = pb(state[OFFER_TO]) + RES
        for c in range(N_TRADE_KINDS):
            x = state[OFFER_GIVE + c]
            y = state[OFFER_GET + c]
            state[me + c] += y - x
            state[other + c] += x - y
    close_offer(state)


# --- attacks -------------------------------------------------------------------------------

@inline
def begin_attacks(P, state, chance, items):
    state[SLOT] = -1
    state[FOUGHT] = 0
    if state[DAY_CARD] != D_RAIN and next_attacker(P, state):
        state[PHASE] = PH_ASSIGN
        return
    end_turn(P, state, chance, items)


@inline
def apply_assign(P, state, move, chance, items):
    s = state[SEAT]
    b = pb(s)
    i = state[SLOT]
    k = state[b + ARMY + i]
    band = P[CARD + k * N_CARD_COLS + C_BAND] == 1
    if move != STAY:
        bit = 1 << (move - ATTACK)
        for j in range(i, MAX_ARMY):
            if j == i or (band and state[b + ARMY + j] == k and can_attack(P, state, s, j)):
                state[b + ATGT + j] |= bit
                state[b + ALINK + j] = i
        if more_attacks(P, state, s, i):
            return  # a Relentless creature is asked again (its Band with it)
    for j in range(i, MAX_ARMY):
        if j == i or (band and state[b + ARMY + j] == k and can_attack(P, state, s, j)):
            state[b + AFLAG + j] |= DECIDED
    if not next_attacker(P, state):
        for j in range(MAX_ARMY):
            state[b + AFLAG + j] &= ~DECIDED
        state[DEFENDER] = s
        next_defender(P, state, chance, items)


@inline
def next_defender(P, state, chance, items):
    """Fight the attacks one defender at a time, in turn order from the attacker's left."""
    s = state[SEAT]
    n = state[N_PLAYERS]
    a = pb(s)
    o = (state[DEFENDER] - s) % n
    for o2 in range(o + 1, n):
        d = (s + o2) % n
        attacked = False
        for j in range(MAX_ARMY):
            if (state[a + ATGT + j] >> d) & 1:
                attacked = True
        if not attacked:
            continue
        state[DEFENDER] = d
        state[SLOT] = -1
        if next_blocker(P, state, d, False):
            state[PHASE] = PH_BLOCK
            state[ACTOR] = d
            return
        resolve_fight(P, state, d, items)
    state[DEFENDER] = -1
    state[SLOT] = -1
    state[ACTOR] = s
    # after a fight, abilities, swaps and offers once more (if there are any to make); when
    # all stayed home nothing changed, and there is nothing that could not be done before
    if state[FOUGHT] != 0 and any_free(P, state, s):
        state[PHASE] = PH_AFTER
    else:
        end_turn(P, state, chance, items)


@inline
def set_block(P, state, d, move, fox):
    """Record a blocker's choice; a Band's standing members of that name block with it."""
    b = pb(d)
    i = state[SLOT]
    k = state[b + ARMY + i]
    band = P[CARD + k * N_CARD_COLS + C_BAND] == 1
    j = FOX_LINK if fox else move - BLOCK
    for m in range(i, MAX_ARMY):
        if m == i or (band and state[b + ARMY + m] == k and state[b + AFLAG + m] & TIRED == 0
                      and state[b + AFLAG + m] & DECIDED == 0):
            joins = move != NO_BLOCK and (m == i or can_block(P, state, d, m, j))
            state[b + AFLAG + m] |= DECIDED
            if joins:
                state[b + ALINK + m] = j


@inline
def apply_block(P, state, move, chance, items):
    d = state[DEFENDER]
    set_block(P, state, d, move, False)
    if not next_blocker(P, state, d, False):
        resolve_fight(P, state, d, items)
        next_defender(P, state, chance, items)
    else:
        state[ACTOR] = d


@inline
def apply_fox_block(P, state, move, chance, items):
    d = state[DEFENDER]
    set_block(P, state, d, move, True)
    if not next_blocker(P, state, d, True):
        resolve_fox(P, state, d, items)
        next_fox(P, state, chance, items)


@inline
def strength(P, state, p, i, attacking):
    k = state[pb(p) + ARMY + i]
    v = P[CARD + k * N_CARD_COLS + C_STR]
    if state[DAY_CARD] == D_MOON:
        v += P[DAYV + D_MOON * 4 + 1]
    if attacking:
        v += state[RALLY]
    elif P[CARD + k * N_CARD_COLS + C_EFFECT] == E_DEFEND:
        v += P[CARD + k * N_CARD_COLS + C_AMOUNT]
    return v


@inline
def deal_damage(P, state, p, link, bit, dmg, items):
    """``dmg`` to ``p``'s creatures with ALINK == link whose ATGT holds ``bit`` (an attacker's
    unit: the defender's bit; blockers: 0), least health first; damage not enough to kill the
    next one is lost."""
    b = pb(p)
    while True:
        best = -1
        for i in range(MAX_ARMY):
            if state[b + ARMY + i] >= 0 and state[b + ALINK + i] == link \
                    and (state[b + ATGT + i] & bit) == bit:
                if best < 0 or P[CARD + (state[b + ARMY + i]) * N_CARD_COLS + C_HP] < \
                        P[CARD + (state[b + ARMY + best]) * N_CARD_COLS + C_HP]:
                    best = i
        if best < 0 or dmg < P[CARD + (state[b + ARMY + best]) * N_CARD_COLS + C_HP]:
            return
        dmg -= P[CARD + (state[b + ARMY + best]) * N_CARD_COLS + C_HP]
        kill(P, state, p, best, items)


@inline
def resolve_fight(P, state, d, items):
    """Every unit attacking ``d``, in army order: blocked ones trade damage, unblocked ones
    steal (from the store, and the Badger's dig from the buried); then every attacker tires
    (once, however many fights it goes to) and leaves this fight; a Relentless one that lives
    stays sent against its other players, and one that died is no longer in any fight."""
    s = state[SEAT]
    a = pb(s)
    b = pb(d)
    steal = 0
    dig = 0
    for j in range(MAX_ARMY):
        if (state[a + ATGT + j] >> d) & 1 and state[a + ALINK + j] == j:
            st, dg = fight_unit(P, state, s, d, j, items)
            steal += st
            dig += dg
    m = min(steal, state[b + STORE])
    state[b + STORE] -= m
    state[a + STORE] += m
    m = min(dig, state[b + BURIED])
    state[b + BURIED] -= m
    state[a + STORE] += m
    for j in range(MAX_ARMY):
        if (state[a + ATGT + j] >> d) & 1:
            state[a + AFLAG + j] |= TIRED
            state[a + ATGT + j] &= ~(1 << d)
            if state[a + ATGT + j] == 0:
                state[a + ALINK + j] = -1
    relead(state, a)
    clear_links(state, d)
    state[FOUGHT] |= 1 << d


@inline
def relead(state, a):
    """A unit whose first creature died in this fight (a Relentless Band still sent
    elsewhere) is led by its first survivor, the place its next fight's blockers name."""
    for m in range(MAX_ARMY):
        j = state[a + ALINK + m]
        if j >= 0 and state[a + ARMY + j] < 0:
            for m2 in range(m, MAX_ARMY):
                if state[a + ALINK + m2] == j:
                    state[a + ALINK + m2] = m


@inline
def fight_unit(P, state, s, d, j, items):
    """The unit led by ``s``'s place ``j`` against ``d``: (acorns it steals, buried acorns it
    digs up). Blocked, both sides deal their summed strength at once and it takes nothing."""
    a = pb(s)
    b = pb(d)
    atk = 0
    for m in range(MAX_ARMY):
        if (state[a + ATGT + m] >> d) & 1 and state[a + ALINK + m] == j:
            atk += strength(P, state, s, m, True)
            items[s, state[a + ARMY + m] * 5 + EV_ATTACKED] += 1
    blk = 0
    blocked = False
    for m in range(MAX_ARMY):
        if state[b + ARMY + m] >= 0 and state[b + ALINK + m] == j:
            blocked = True
            blk += strength(P, state, d, m, False)
            items[d, state[b + ARMY + m] * 5 + EV_BLOCKED] += 1
    if blocked:
        deal_damage(P, state, d, j, 0, atk, items)
        deal_damage(P, state, s, j, 1 << d, blk, items)
        return 0, 0
    return unblocked(P, state, s, d, j, atk)


@inline
def unblocked(P, state, s, d, j, atk):
    """An unblocked unit steals its strength, plus what its members' "unblocked" abilities
    add: (stolen from the store, dug from the buried)."""
    a = pb(s)
    steal = atk
    dig = 0
    for m in range(MAX_ARMY):
        if (state[a + ATGT + m] >> d) & 1 and state[a + ALINK + m] == j:
            c = CARD + state[a + ARMY + m] * N_CARD_COLS
            if P[c + C_EFFECT] == E_UNBLOCKED_STEAL:
                steal += P[c + C_AMOUNT]
            elif P[c + C_EFFECT] == E_UNBLOCKED_DIG:
                dig += P[c + C_AMOUNT]
    return steal, dig


@inline
def clear_links(state, d):
    b = pb(d)
    for m in range(MAX_ARMY):
        state[b + ALINK + m] = -1
        state[b + AFLAG + m] &= ~DECIDED


# --- end of turn, setup choices ------------------------------------------------------------

@inline
def apply_discard(P, state, move, chance, items):
    s = state[SEAT]
    k = move - DISCARD_CARD
    hand_remove(state, s, k)
    to_discard(state, k)
    end_turn(P, state, chance, items)


@inline
def apply_setup(P, state, move, chance):
    p = state[SETUP_SEAT]
    b = pb(p)
    if move >= RETURN_RES:
        r = move - RETURN_RES
        state[b + RES + r] -= 1
        state[PILE + r] += 1
    else:
        k = move - DISCARD_CARD
        hand_remove(state, p, k)
        state[DECK + state[DECK_N]] = k
        state[DECK_N] += 1
    if hand_size(state, p) + res_total(state, p) <= P[R_KEEP]:
        next_setup_seat(P, state, chance)


# --- the end -------------------------------------------------------------------------------

@kernel
def finish(params, state, scores, ranks):
    """Most buried acorns wins; then most stored; then a shared win."""
    n = state[N_PLAYERS]
    for p in range(n):
        scores[p] = state[pb(p) + BURIED]
    for p in range(n):
        better = 0
        for q in range(n):
            bq, bp = state[pb(q) + BURIED], state[pb(p) + BURIED]
            if bq > bp or (bq == bp and state[pb(q) + STORE] > state[pb(p) + STORE]):
                better += 1
        ranks[p] = 1 + better
    return 1


# --- the standing (the optional progress and phase kernels) --------------------------------
# progress: buried acorns (the score), plus what the store and the army are still worth in
# buried acorns, by the turns each seat has left (NOTES.md, Progress measure). Both
# estimates fall to 0 at the end, where the value is finish's order exactly.

STORED_TIE_BREAK = 0.001
"""A stored acorn's share in the end value: finish's tie-break, below one buried acorn for
any store (at most 4 x 100 acorns in a game, by data.toml's bounds)."""
STORED_WEIGHT = 0.5
"""A stored acorn that can still be buried is worth half a buried one: raids, Pickpockets
and the Fox reach the store, and burying it takes an action that does not forage."""
ARMY_WEIGHT = 0.1
"""Buried acorns a point of army strength is worth for each turn its seat has left: what a
raid may carry off, blocked raids and empty stores discounted (of 0, 0.02, 0.05, 0.1 and
0.2, the best at naming the winner over the four figures of NOTES.md: 0.2 does as well in
random play and worse late in the heuristic's games)."""


@inline
def turns_left(P, state, p):
    """Turns seat ``p`` has still to finish (16 at setup, 0 at the end)."""
    n = state[N_PLAYERS]
    done = state[TURNS] // n + (1 if p < state[TURNS] % n else 0)
    return max(P[R_DAYS] - done, 0)


@inline
def army_strength(P, state, p):
    b = pb(p)
    total = 0
    for i in range(MAX_ARMY):
        k = state[b + ARMY + i]
        if k >= 0:
            total += P[CARD + k * N_CARD_COLS + C_STR]
    return total


@kernel
def progress(params, state, out):
    """``out`` (float64[n_players]): buried acorns + 0.001 x stored (finish's order at the
    end), + half the stored acorns the seat's turns left can still bury (``actions.bury``
    a turn), + 0.1 x army strength x turns left."""
    P = params[FLAT]
    for p in range(state[N_PLAYERS]):
        b = pb(p)
        left = turns_left(P, state, p)
        stored = state[b + STORE]
        out[p] = (state[b + BURIED] + STORED_TIE_BREAK * stored
                  + STORED_WEIGHT * min(stored, P[R_BURY] * left)
                  + ARMY_WEIGHT * army_strength(P, state, p) * left)


PHASES = ("setup", "action", "play", "trade", "attack", "block", "discard")
"""What ``phase`` numbers: keeping cards at setup; the day's action (with the free moves
before it, and the Draw's two cards); the play step (plays, payments, abilities and swaps,
also after the attacks); building and answering trade offers; sending attackers; blocking
(an attacker or the Fox); discarding to the hand limit. A gathering ability's mix is of
the step the ability was used in."""
(PHASE_SETUP, PHASE_ACTION, PHASE_PLAY, PHASE_TRADE, PHASE_ATTACK, PHASE_BLOCK,
 PHASE_DISCARD) = range(7)


@kernel
def phase(params, state):
    """The kind of the decision about to be made, an index into ``PHASES``."""
    ph = state[PHASE]
    if ph == PH_MIX:  # a gathering ability's mix is of the step the ability was used in
        ph = state[MIX_BACK]
    if ph == PH_ACTION or ph == PH_DRAW:
        return PHASE_ACTION
    if ph == PH_MAIN or ph == PH_PAY or ph == PH_AFTER:
        return PHASE_PLAY
    if ph == PH_OFFER or ph == PH_REPLY:
        return PHASE_TRADE
    if ph == PH_ASSIGN:
        return PHASE_ATTACK
    if ph == PH_BLOCK or ph == PH_FOX_BLOCK:
        return PHASE_BLOCK
    if ph == PH_DISCARD:
        return PHASE_DISCARD
    return PHASE_SETUP  # PH_SETUP, and PH_DAWN, the forced step that ends it (PH_OVER: none)


# --- what a seat looks at (the optional features kernel, issue 29) -------------------------
# features: the vector a learnt player of ``seat`` reads (NOTES.md, Features), from the
# seat's observation alone: the turn and the day, each seat's acorns and army (the seat's
# own first, then the others in play order from it: own_, next_, second_, third_), the raid
# each army could make on the others, the fights under way, the seat's hand and the trade
# offer on the table. The card kinds are the designer's, so the hand and the armies are
# read through what the cards do (costs, strength, words, abilities), never by name.
#
# A raid is worked out on units (a Band attacks and blocks as one): the units the raider can
# send on its next attack step, against the defender's blockers standing now, each blocker
# stopping one unit, a flier only a flying or ranged one, and the defender stopping the
# most it can. To find those, each army's units are sorted strongest first into ``out``
# (UNITS, 16 entries a seat) before any entry is written, so the kernel allocates nothing.

SEATS = ("own", "next", "second", "third")
TURN_FEATURES = ("game_fraction", "turns_fraction_of_cap", "own_turns_left", "own_turn",
                 "own_decision") + tuple(f"decision_is_{ph}" for ph in PHASES)
DAY_FEATURES = ("wild", "rain_today", "frost_today", "fog_today", "windy_today",
                "moon_bonus_today", "forage_today", "fox_chance_tomorrow", "own_fox_target")
SEAT_FEATURES = ("buried", "stored", "progress", "resource_cards", "hand_cards", "creatures",
                 "army_strength", "standing_creatures")
"""Written for each seat, ``<who>_<name>`` for who in SEATS, side by side."""
RAID_FEATURES = (tuple(f"own_raid_on_{who}" for who in SEATS[1:])
                 + tuple(f"{who}_raid_on_own" for who in SEATS[1:])
                 + tuple(f"own_sent_against_{who}" for who in SEATS[1:])
                 + ("attack_on_own", "attack_on_own_unblocked"))
HAND_FEATURES = (tuple(f"own_{r}_cards" for r in RESOURCE_NAMES)
                 + ("own_creatures_in_hand", "own_tricks_in_hand", "own_cards_payable",
                    "own_resources_short", "own_home_kinds_short", "own_acorn_tricks",
                    "own_bury_tricks", "own_forage_abilities", "own_bury_abilities"))
TRADE_FEATURES = ("own_offer_cards_in", "own_offer_acorns_in", "own_offer_cards_out",
                  "own_offer_acorns_out")
FEATURES = (TURN_FEATURES + DAY_FEATURES
            + tuple(f"{who}_{name}" for name in SEAT_FEATURES for who in SEATS)
            + RAID_FEATURES + HAND_FEATURES + TRADE_FEATURES)
F_TURN = 0
F_DAY = F_TURN + len(TURN_FEATURES)
F_SEATS = F_DAY + len(DAY_FEATURES)
F_RAIDS = F_SEATS + len(SEAT_FEATURES) * len(SEATS)
F_HAND = F_RAIDS + len(RAID_FEATURES)
F_TRADE = F_HAND + len(HAND_FEATURES)
UNITS = 0
"""out[UNITS + 16 * o + u] (scratch): the u-th strongest attacker unit of the seat ``o``
places after ``seat`` in play order (``unit_code``); overwritten by the entries."""
assert F_TRADE + len(TRADE_FEATURES) == len(FEATURES) >= UNITS + MAXP * MAX_ARMY

# the turn seat's own attack step: still to come, its attackers being sent, its fights
# being fought, or none under way (no turn, or its attacks are over)
ST_BEFORE, ST_ASSIGNING, ST_FIGHTING, ST_NONE = range(4)
ZERO_CENSUS = (0, 0, 0, 0, 0, 0, 0, 0, 0)


@inline
def turn_stage(obs):
    """(the stage of the turn seat's attack step (ST_), the first seat whose next attack
    step is today: the seats after it in turn order have theirs today, those before it on
    the next day)."""
    ph = obs[PHASE]
    if ph == PH_MIX:  # a step inside a step: the turn goes on where it was
        ph = obs[MIX_BACK]
    elif ph == PH_OFFER or ph == PH_REPLY:
        ph = obs[OFFER_BACK]
    s = obs[SEAT]
    if ph == PH_ACTION or ph == PH_DRAW or ph == PH_MAIN or ph == PH_PAY:
        return ST_BEFORE, s
    if ph == PH_ASSIGN:
        return ST_ASSIGNING, s
    if ph == PH_BLOCK:
        return ST_FIGHTING, s
    if ph == PH_FOX_BLOCK:  # the morning: every turn of the day is still to come
        return ST_NONE, 0
    if ph == PH_AFTER or ph == PH_DISCARD:
        return ST_NONE, s + 1
    return ST_NONE, obs[N_PLAYERS]  # setup, dawn (day 1 is not turned yet), the end


@inline
def unit_code(key, dig, targets, fly):
    """An attacker unit in one number, ordered by ``key`` (the acorns it carries off
    unblocked: stolen + dug up) first: exact in a float64 for any data.toml allows."""
    return float(((key * 1024 + dig) * 16 + targets) * 2 + fly)


@inline
def may_send(P, obs, p, i, stage_p, windy):
    """The seats (bitmask, before masking out ``p``) that ``p``'s creature at place ``i``
    may go against on ``p``'s next attack step: during its own attack step those it is
    sent against (or, not asked yet, any if it can attack: standing and not just played);
    else any (every creature stands at the start of a turn). None for a flier on a Windy
    Day of that step."""
    b = pb(p)
    f = obs[b + AFLAG + i]
    if stage_p == ST_FIGHTING or (stage_p == ST_ASSIGNING and f & DECIDED):
        return obs[b + ATGT + i]
    if windy and P[CARD + obs[b + ARMY + i] * N_CARD_COLS + C_FLY] == 1:
        return 0
    if stage_p != ST_NONE and f & (TIRED | NEW):
        return 0
    return (1 << MAXP) - 1


@inline
def steal_of(P, k, bonus):
    """(acorns card ``k`` steals from a store unblocked: its strength, ``bonus`` and an
    unblocked steal; buried acorns it digs up unblocked)."""
    c = CARD + k * N_CARD_COLS
    e = P[c + C_EFFECT]
    steal = P[c + C_STR] + bonus + (P[c + C_AMOUNT] if e == E_UNBLOCKED_STEAL else 0)
    return steal, (P[c + C_AMOUNT] if e == E_UNBLOCKED_DIG else 0)


@inline
def census(P, obs, p, base, stage_p, windy, bonus, others, out):
    """One pass over ``p``'s army: its attacker units sorted into out[base:] (strongest
    first, ``unit_code``), and (units, creatures, printed strength, creatures standing,
    its standing blocker units that block only the ground, that block fliers too, those
    of them that do not fly, forage and bury that its standing tiring abilities can do).
    Standing: not tired and not sent on an attack (those tire when they fight)."""
    b = pb(p)
    units, creatures, strength, standing = 0, 0, 0, 0
    ground, air, air_calm, forage, bury = 0, 0, 0, 0, 0
    band_blocks = 0  # bit k: a Band of kind k already counted as a blocker unit
    band_sent = 0    # ... as an attacker unit
    for i in range(MAX_ARMY):
        k = obs[b + ARMY + i]
        if k < 0:
            continue
        c = CARD + k * N_CARD_COLS
        creatures += 1
        strength += P[c + C_STR]
        band = P[c + C_BAND] == 1
        f = obs[b + AFLAG + i]
        if f & TIRED == 0 and obs[b + ATGT + i] == 0:
            standing += 1
            e = P[c + C_EFFECT]
            if P[c + C_WAITS] == 0 or f & NEW == 0:
                forage += P[c + C_AMOUNT] if e == E_TIRE_FORAGE else 0
                bury += P[c + C_AMOUNT] if e == E_TIRE_BURY else 0
            if not (band and (band_blocks >> k) & 1):
                band_blocks |= (1 if band else 0) << k
                if P[c + C_FLY] == 0 and P[c + C_RANGED] == 0:
                    ground += 1
                else:
                    air += 1
                    air_calm += 1 if P[c + C_FLY] == 0 else 0
        targets = may_send(P, obs, p, i, stage_p, windy) & others
        if targets == 0 or (band and (band_sent >> k) & 1):
            continue
        steal, dig = steal_of(P, k, bonus)
        if band:  # every one of its name that can go goes with it
            band_sent |= 1 << k
            for j in range(i + 1, MAX_ARMY):
                if obs[b + ARMY + j] == k:
                    t2 = may_send(P, obs, p, j, stage_p, windy) & others
                    if t2 != 0:
                        targets |= t2
                        s2, d2 = steal_of(P, k, bonus)
                        steal += s2
                        dig += d2
        code = unit_code(steal + dig, dig, targets, P[c + C_FLY])
        u = units
        while u > 0 and out[base + u - 1] < code:  # insertion: armies are small
            out[base + u] = out[base + u - 1]
            u -= 1
        out[base + u] = code
        units += 1
    return units, creatures, strength, standing, ground, air, air_calm, forage, bury


@inline
def seat_census(P, obs, seat, o, stage, first_today, out):
    """``census`` of the seat ``o`` places after ``seat`` in play order (zeros for a seat
    not at the table), its units in out[UNITS + 16 * o:]."""
    n = obs[N_PLAYERS]
    if o >= n:
        return ZERO_CENSUS
    p = (seat + o) % n
    today = p >= first_today
    stage_p = stage if p == obs[SEAT] else ST_NONE
    d = obs[DAY_CARD] if today else -1
    bonus = P[DAYV + D_MOON * 4 + 1] if d == D_MOON else 0
    if stage_p != ST_NONE:
        bonus += obs[RALLY]  # a War Cry lasts the turn
    others = ((1 << n) - 1) & ~(1 << p)
    return census(P, obs, p, UNITS + MAX_ARMY * o, stage_p, d == D_WINDY, bonus, others, out)


@inline
def raid(obs, out, base, units, t, ground, air):
    """The acorns the units in out[base:base + units] that may go against seat ``t`` carry
    off its store (and, a Badger's, its buried acorns), past ``ground`` blocker units that
    block only the ground and ``air`` that block fliers too. The defender stops the units
    worth most that its blockers can (greedy by worth: a set of units can all be blocked
    when it has no more units than blockers and no more fliers than ``air``)."""
    held, held_air, steal, dig = 0, 0, 0, 0
    for u in range(units):
        code = int(out[base + u])
        fly = code & 1
        code >>= 1
        if (code >> t) & 1 == 0:
            continue
        code >>= 4
        d = code & 1023
        if held < ground + air and (fly == 0 or held_air < air):
            held += 1
            held_air += fly
        else:
            steal += (code >> 10) - d
            dig += d
    b = pb(t)
    return min(steal, obs[b + STORE]) + min(dig, obs[b + BURIED])


@inline
def raid_between(P, obs, out, o_att, att, dfd, cen_att, cen_dfd, first_today):
    """The raid (``raid``) of seat ``att`` (``o_att`` places after the deciding seat) on
    seat ``dfd`` on ``att``'s next attack step, the day card counted when that is today:
    0 when it has none left, in Heavy Rain, no blockers in Thick Fog, no flying blockers on
    a Windy Day."""
    today = att >= first_today
    if not today and obs[DAY] >= P[R_DAYS]:
        return 0
    d = obs[DAY_CARD] if today else -1
    if d == D_RAIN:
        return 0
    ground = 0 if d == D_FOG else cen_dfd[4]
    air = 0 if d == D_FOG else (cen_dfd[6] if d == D_WINDY else cen_dfd[5])
    return raid(obs, out, UNITS + MAX_ARMY * o_att, cen_att[0], dfd, ground, air)


@inline
def sent_against(P, obs, a, t, bonus):
    """The strength ``a``'s creatures are sent with against ``t`` this turn."""
    b = pb(a)
    total = 0
    for i in range(MAX_ARMY):
        if obs[b + ARMY + i] >= 0 and (obs[b + ATGT + i] >> t) & 1:
            total += P[CARD + obs[b + ARMY + i] * N_CARD_COLS + C_STR] + bonus
    return total


@inline
def attack_on(P, obs, seat, stage):
    """(the strength attacking ``seat`` now (the turn seat's units sent against it, or the
    Fox), the part of it no blocker of ``seat``'s has been put in front of yet)."""
    b = pb(seat)
    if obs[PHASE] == PH_FOX_BLOCK:
        if obs[DEFENDER] != seat:
            return 0, 0
        fox = P[DAYV + D_FOX * 4 + 1]
        for i in range(MAX_ARMY):
            if obs[b + ARMY + i] >= 0 and obs[b + ALINK + i] == FOX_LINK:
                return fox, 0
        return fox, fox
    s = obs[SEAT]
    if s == seat or (stage != ST_ASSIGNING and stage != ST_FIGHTING):
        return 0, 0
    blocked = 0  # bit j: a blocker stands before the unit led by place j
    for i in range(MAX_ARMY):
        j = obs[b + ALINK + i]
        if obs[b + ARMY + i] >= 0 and 0 <= j < MAX_ARMY:
            blocked |= 1 << j
    a = pb(s)
    moon = P[DAYV + D_MOON * 4 + 1] if obs[DAY_CARD] == D_MOON else 0
    total, unblocked = 0, 0
    for i in range(MAX_ARMY):
        if obs[a + ARMY + i] >= 0 and (obs[a + ATGT + i] >> seat) & 1:
            v = P[CARD + obs[a + ARMY + i] * N_CARD_COLS + C_STR] + moon + obs[RALLY]
            total += v
            j = obs[a + ALINK + i]  # the place leading its unit
            if j < 0 or (blocked >> j) & 1 == 0:
                unblocked += v
    return total, unblocked


@inline
def turn_features(params, obs, seat, out):
    P = params[FLAT]
    n = obs[N_PLAYERS]
    ph = obs[PHASE]
    over = ph == PH_OVER
    out[F_TURN] = obs[TURNS] / (P[R_DAYS] * n)
    out[F_TURN + 1] = obs[TURNS] / max(1, P[R_MAX_TURNS])
    out[F_TURN + 2] = turns_left(P, obs, seat)
    in_turn = not (over or ph == PH_SETUP or ph == PH_DAWN or ph == PH_FOX_BLOCK)
    out[F_TURN + 3] = 1.0 if in_turn and obs[SEAT] == seat else 0.0
    out[F_TURN + 4] = 1.0 if not over and obs[ACTOR] == seat else 0.0
    for j in range(len(PHASES)):
        out[F_TURN + 5 + j] = 0.0
    if not over:
        out[F_TURN + 5 + phase(params, obs)] = 1.0


@inline
def fox_chance(P, obs):
    """The chance the next day card turned over is the Fox: the Foxes not turned yet among
    the day cards not turned yet (public: the day deck is data.toml's); 0 on the last
    day."""
    if obs[DAY] >= P[R_DAYS]:
        return 0.0
    turned = min(max(obs[DAY], 0), P[R_NDAYS])
    foxes = P[DAYV + D_FOX * 4]
    for i in range(turned):
        if obs[DAY_ORDER + i] == D_FOX:
            foxes -= 1
    return foxes / max(1, P[R_NDAYS] - turned)


@inline
def day_features(P, obs, seat, out):
    d = obs[DAY_CARD]
    out[F_DAY] = obs[WILD]
    out[F_DAY + 1] = 1.0 if d == D_RAIN else 0.0
    out[F_DAY + 2] = 1.0 if d == D_FROST else 0.0
    out[F_DAY + 3] = 1.0 if d == D_FOG else 0.0
    out[F_DAY + 4] = 1.0 if d == D_WINDY else 0.0
    out[F_DAY + 5] = P[DAYV + D_MOON * 4 + 1] if d == D_MOON else 0
    out[F_DAY + 6] = P[R_FORAGE] + (P[DAYV + D_BUMPER * 4 + 1] if d == D_BUMPER else 0)
    out[F_DAY + 7] = fox_chance(P, obs)
    mine = obs[pb(seat) + STORE]
    richest = mine > 0
    for p in range(obs[N_PLAYERS]):
        if obs[pb(p) + STORE] > mine:
            richest = False
    out[F_DAY + 8] = 1.0 if richest else 0.0


@inline
def seat_features(P, obs, seat, o, cen, out):
    """SEAT_FEATURES of the seat ``o`` places after ``seat`` (0 for one not at the table)."""
    n = obs[N_PLAYERS]
    at = F_SEATS + o
    if o >= n:
        for j in range(len(SEAT_FEATURES)):
            out[at + len(SEATS) * j] = 0.0
        return
    p = (seat + o) % n
    b = pb(p)
    left = turns_left(P, obs, p)
    stored = obs[b + STORE]
    w = len(SEATS)  # a name's entries sit side by side, one a seat
    out[at] = obs[b + BURIED]
    out[at + w] = stored
    out[at + 2 * w] = (obs[b + BURIED] + STORED_TIE_BREAK * stored  # progress, as the kernel
                       + STORED_WEIGHT * min(stored, P[R_BURY] * left)
                       + ARMY_WEIGHT * cen[2] * left)
    out[at + 3 * w] = obs[b + RES] + obs[b + RES + 1] + obs[b + RES + 2] + obs[b + RES + 3]
    out[at + 4 * w] = obs[b + HAND_N]
    out[at + 5 * w] = cen[1]
    out[at + 6 * w] = cen[2]
    out[at + 7 * w] = cen[3]


@inline
def hand_features(P, obs, seat, cen, out):
    """The seat's own hand (it sees it whole) and resource cards, read through what the
    cards do and cost today."""
    b = pb(seat)
    r0, r1, r2, r3 = obs[b + RES], obs[b + RES + 1], obs[b + RES + 2], obs[b + RES + 3]
    held = r0 + r1 + r2 + r3
    call = P[DAYV + D_CALL * 4 + 1] if obs[DAY_CARD] == D_CALL else 0
    home_a = P[HOMES + obs[b + HOME] * 2]
    home_b = P[HOMES + obs[b + HOME] * 2 + 1]
    creatures, tricks, payable, cost, need_a, need_b, acorns, burying = 0, 0, 0, 0, 0, 0, 0, 0
    for k in range(P[R_NK]):
        m = obs[b + HAND + k]
        if m <= 0:
            continue
        c = CARD + k * N_CARD_COLS
        trick = P[c + C_TRICK] == 1
        e = P[c + C_EFFECT]
        if trick:
            tricks += m
            acorns += m * P[c + C_AMOUNT] if e == E_FORAGE or e == E_STEAL_STORE else 0
            burying += m * P[c + C_AMOUNT] if e == E_BURY else 0
        else:
            creatures += m
        cut = 0 if trick else call
        n0, n1, n2, n3 = P[c + C_COST], P[c + C_COST + 1], P[c + C_COST + 2], P[c + C_COST + 3]
        specific = n0 + n1 + n2 + n3
        total = max(0, specific + P[c + C_ANY] - cut)
        cost += m * total
        need_a += m * P[c + C_COST + home_a]
        need_b += m * P[c + C_COST + home_b]
        cover = min(n0, r0) + min(n1, r1) + min(n2, r2) + min(n3, r3)
        if held >= total and specific - min(total, cover) <= cut:  # legal_plays' test
            payable += m
    h = F_HAND
    out[h] = r0
    out[h + 1] = r1
    out[h + 2] = r2
    out[h + 3] = r3
    out[h + 4] = creatures
    out[h + 5] = tricks
    out[h + 6] = payable
    out[h + 7] = max(0, cost - held)
    out[h + 8] = max(0, need_a - obs[b + RES + home_a]) + max(0, need_b - obs[b + RES + home_b])
    out[h + 9] = acorns
    out[h + 10] = burying
    out[h + 11] = cen[7]
    out[h + 12] = cen[8]


@inline
def trade_features(obs, seat, out):
    """The offer on the table, as the seat gains and gives by it (0: none of its own)."""
    give, get = OFFER_GIVE, OFFER_GET  # as the turn's player makes it
    if obs[OFFER_TO] < 0 or (obs[SEAT] != seat and obs[OFFER_TO] != seat):
        for j in range(len(TRADE_FEATURES)):
            out[F_TRADE + j] = 0.0
        return
    if obs[OFFER_TO] == seat:
        give, get = OFFER_GET, OFFER_GIVE
    cards_in, cards_out = 0, 0
    for c in range(TRADE_ACORN):
        cards_in += obs[get + c]
        cards_out += obs[give + c]
    out[F_TRADE] = cards_in
    out[F_TRADE + 1] = obs[get + TRADE_ACORN]
    out[F_TRADE + 2] = cards_out
    out[F_TRADE + 3] = obs[give + TRADE_ACORN]


@kernel
def features(params, obs, seat, out):
    """Fill ``out`` (float64[len(FEATURES)]) with what a player of ``seat`` looks at, from
    its observation ``obs`` (``observe``'s) alone (NOTES.md, Features). Allocates nothing:
    ``out`` holds the armies' sorted units while the raids are worked out (UNITS)."""
    P = params[FLAT]
    n = obs[N_PLAYERS]
    stage, first_today = turn_stage(obs)
    c0 = seat_census(P, obs, seat, 0, stage, first_today, out)
    c1 = seat_census(P, obs, seat, 1, stage, first_today, out)
    c2 = seat_census(P, obs, seat, 2, stage, first_today, out)
    c3 = seat_census(P, obs, seat, 3, stage, first_today, out)
    p1, p2, p3 = (seat + 1) % n, (seat + 2) % n, (seat + 3) % n
    mine1 = raid_between(P, obs, out, 0, seat, p1, c0, c1, first_today) if n > 1 else 0
    mine2 = raid_between(P, obs, out, 0, seat, p2, c0, c2, first_today) if n > 2 else 0
    mine3 = raid_between(P, obs, out, 0, seat, p3, c0, c3, first_today) if n > 3 else 0
    their1 = raid_between(P, obs, out, 1, p1, seat, c1, c0, first_today) if n > 1 else 0
    their2 = raid_between(P, obs, out, 2, p2, seat, c2, c0, first_today) if n > 2 else 0
    their3 = raid_between(P, obs, out, 3, p3, seat, c3, c0, first_today) if n > 3 else 0
    # every value that needs the units is found: the scratch may be overwritten
    turn_features(params, obs, seat, out)
    day_features(P, obs, seat, out)
    seat_features(P, obs, seat, 0, c0, out)
    seat_features(P, obs, seat, 1, c1, out)
    seat_features(P, obs, seat, 2, c2, out)
    seat_features(P, obs, seat, 3, c3, out)
    r = F_RAIDS
    out[r] = mine1
    out[r + 1] = mine2
    out[r + 2] = mine3
    out[r + 3] = their1
    out[r + 4] = their2
    out[r + 5] = their3
    sending = obs[SEAT] == seat and (stage == ST_ASSIGNING or stage == ST_FIGHTING)
    bonus = obs[RALLY] + (P[DAYV + D_MOON * 4 + 1] if obs[DAY_CARD] == D_MOON else 0)
    out[r + 6] = sent_against(P, obs, seat, p1, bonus) if sending and n > 1 else 0.0
    out[r + 7] = sent_against(P, obs, seat, p2, bonus) if sending and n > 2 else 0.0
    out[r + 8] = sent_against(P, obs, seat, p3, bonus) if sending and n > 3 else 0.0
    total, unblocked = attack_on(P, obs, seat, stage)
    out[r + 9] = total
    out[r + 10] = unblocked
    hand_features(P, obs, seat, c0, out)
    trade_features(obs, seat, out)


# --- what one move does (the optional move_features kernel, issue 29) -----------------------
# move_features: what a player of ``seat`` looks at about one legal move, read from its
# observation alone, so that a fast policy can tell apart moves whose codes say little (a
# row place, an army place, a mix, a target). Each entry is the change the move makes to
# a thing ``features`` counts (the acorns, the resource cards and what the hand can pay
# for, the armies), what the card it concerns is, or how the fight it starts or joins
# would go (NOTES.md, Move features). Only what is sure when the move is made is counted:
# a Draw's cards from the deck, a payment still to choose and a trade still to be answered
# are not. No move is applied: each entry is worked out from the move's code.

CARD_MOVE_FEATURES = ("card_strength", "card_health", "card_flying", "card_ranged",
                      "card_band", "card_trick", "card_cost", "card_acorns", "card_payable")
"""The card the move takes into the hand or plays (+), or discards or puts back (-)."""
MOVE_FEATURES = (("passes", "free_move", "acorns_buried", "acorns_stored", "acorns_from_wild",
                  "rivals_stored", "rivals_buried", "resource_cards", "hand_cards",
                  "cards_payable", "resources_short")
                 + CARD_MOVE_FEATURES
                 + ("army_strength", "standing_strength", "rivals_army_strength",
                    "rivals_raids", "raid_acorns", "raid_blockers", "raid_risk",
                    "block_saves", "block_kills", "block_dies", "block_shared",
                    "offer_cards", "offer_acorns"))
(M_PASSES, M_FREE, M_BURIED, M_STORED, M_WILD, M_RIVAL_STORED, M_RIVAL_BURIED, M_RES,
 M_HAND, M_PAYABLE, M_SHORT) = range(11)
M_CARD = M_SHORT + 1
(M_ARMY, M_STANDING, M_RIVAL_ARMY, M_RIVAL_RAIDS, M_RAID, M_RAID_BLOCKERS, M_RAID_RISK,
 M_SAVES, M_KILLS, M_DIES, M_SHARED, M_OFFER_CARDS,
 M_OFFER_ACORNS) = range(M_CARD + len(CARD_MOVE_FEATURES), len(MOVE_FEATURES))
assert M_RAID + len(CARD_MOVE_FEATURES) <= len(MOVE_FEATURES)  # row_entries' scratch
ACORN_EFFECTS = (E_FORAGE, E_BURY, E_STEAL_STORE, E_DIG_UP, E_TIRE_FORAGE, E_TIRE_BURY,
                 E_UNBLOCKED_STEAL, E_UNBLOCKED_DIG)


@inline
def payable_with(P, k, cut, r0, r1, r2, r3, held):
    """Card ``k`` can be paid for with these resource cards (``held`` in all): the test of
    ``legal_plays``, ``cut`` the cards Call to Arms waives."""
    c = CARD + k * N_CARD_COLS
    n0, n1, n2, n3 = P[c + C_COST], P[c + C_COST + 1], P[c + C_COST + 2], P[c + C_COST + 3]
    specific = n0 + n1 + n2 + n3
    total = max(0, specific + P[c + C_ANY] - cut)
    cover = min(n0, r0) + min(n1, r1) + min(n2, r2) + min(n3, r3)
    return held >= total and specific - min(total, cover) <= cut


@inline
def short_of(need, held):
    return max(0, need - held)


@inline
def hand_change(P, obs, b, add_k, drop_k, d0, d1, d2, d3, dany, out):
    """The change in the cards of the hand that can be paid for (M_PAYABLE) and in the
    resource cards its specific costs lack (M_SHORT) when one card ``add_k`` joins the hand
    and one ``drop_k`` leaves it (-1: none), the resource cards of each kind change by
    ``d0``..``d3`` and ``dany`` more are spent of whatever kind (a cost's circled part).
    While a card is being paid for (PAY_CARD), it has left the hand both before and
    after: the change is the payment's alone."""
    r0, r1, r2, r3 = obs[b + RES], obs[b + RES + 1], obs[b + RES + 2], obs[b + RES + 3]
    a0, a1, a2, a3 = max(0, r0 + d0), max(0, r1 + d1), max(0, r2 + d2), max(0, r3 + d3)
    held, held_after = r0 + r1 + r2 + r3, a0 + a1 + a2 + a3 - dany
    before, after = 0, 0
    nb0, nb1, nb2, nb3, na0, na1, na2, na3 = 0, 0, 0, 0, 0, 0, 0, 0
    paying = obs[PAY_CARD] if obs[PHASE] == PH_PAY else -1
    for k in range(P[R_NK]):
        m = obs[b + HAND + k] - (1 if k == paying else 0)
        ma = m + (1 if k == add_k else 0) - (1 if k == drop_k else 0)
        if m <= 0 and ma <= 0:
            continue
        c = CARD + k * N_CARD_COLS
        cut = cost_discount(P, obs, k)  # the day card is in the observation
        if m > 0 and payable_with(P, k, cut, r0, r1, r2, r3, held):
            before += m
        if ma > 0 and payable_with(P, k, cut, a0, a1, a2, a3, held_after):
            after += ma
        nb0, na0 = nb0 + m * P[c + C_COST], na0 + ma * P[c + C_COST]
        nb1, na1 = nb1 + m * P[c + C_COST + 1], na1 + ma * P[c + C_COST + 1]
        nb2, na2 = nb2 + m * P[c + C_COST + 2], na2 + ma * P[c + C_COST + 2]
        nb3, na3 = nb3 + m * P[c + C_COST + 3], na3 + ma * P[c + C_COST + 3]
    out[M_RES] = d0 + d1 + d2 + d3 - dany
    out[M_PAYABLE] = after - before
    out[M_SHORT] = (short_of(na0, a0) + short_of(na1, a1) + short_of(na2, a2)
                    + short_of(na3, a3) - short_of(nb0, r0) - short_of(nb1, r1)
                    - short_of(nb2, r2) - short_of(nb3, r3))


@inline
def of_kind(r, k, n):
    return n if r == k else 0


@inline
def kinds_change(P, obs, b, ka, na, kb, nb, kc, nc, out):
    """``hand_change`` for ``na`` more resource cards of kind ``ka``, ``nb`` of ``kb`` and
    ``nc`` of ``kc`` (the hand itself unchanged)."""
    hand_change(P, obs, b, -1, -1,
                of_kind(0, ka, na) + of_kind(0, kb, nb) + of_kind(0, kc, nc),
                of_kind(1, ka, na) + of_kind(1, kb, nb) + of_kind(1, kc, nc),
                of_kind(2, ka, na) + of_kind(2, kb, nb) + of_kind(2, kc, nc),
                of_kind(3, ka, na) + of_kind(3, kb, nb) + of_kind(3, kc, nc), 0, out)


@inline
def card_entries(P, obs, b, k, sign, out, at):
    """CARD_MOVE_FEATURES of card ``k`` into out[at:], times ``sign`` (+1 gained or played,
    -1 given up)."""
    c = CARD + k * N_CARD_COLS
    e = P[c + C_EFFECT]
    cut = cost_discount(P, obs, k)  # the day card is in the observation
    held = obs[b + RES] + obs[b + RES + 1] + obs[b + RES + 2] + obs[b + RES + 3]
    acorns = 0
    for x in ACORN_EFFECTS:
        if e == x:
            acorns = P[c + C_AMOUNT]
    out[at] = sign * P[c + C_STR]
    out[at + 1] = sign * P[c + C_HP]
    out[at + 2] = sign * P[c + C_FLY]
    out[at + 3] = sign * P[c + C_RANGED]
    out[at + 4] = sign * P[c + C_BAND]
    out[at + 5] = sign * P[c + C_TRICK]
    out[at + 6] = sign * max(0, P[c + C_COST] + P[c + C_COST + 1] + P[c + C_COST + 2]
                                 + P[c + C_COST + 3] + P[c + C_ANY] - cut)
    out[at + 7] = sign * acorns
    pay = payable_with(P, k, cut, obs[b + RES], obs[b + RES + 1], obs[b + RES + 2],
                       obs[b + RES + 3], held)
    out[at + 8] = sign if pay else 0


@inline
def row_entries(P, obs, b, out):
    """A Draw's card entries: the most of each the row offers (its cards are face up)."""
    for i in range(P[R_ROW]):
        k = obs[ROW + i]
        if k < 0:
            continue
        # the card's entries in a scratch place: the raid entries, written after this
        card_entries(P, obs, b, k, 1, out, M_RAID)
        for j in range(len(CARD_MOVE_FEATURES)):
            out[M_CARD + j] = max(out[M_CARD + j], out[M_RAID + j])
    for j in range(len(CARD_MOVE_FEATURES)):
        out[M_RAID + j] = 0.0


@inline
def from_wild(obs, n, out):
    """``n`` acorns from the wild into the store (what the wild holds)."""
    m = min(n, obs[WILD] - out[M_WILD])
    out[M_STORED] += m
    out[M_WILD] += m


@inline
def to_burrow(obs, b, n, out):
    m = min(n, obs[b + STORE] + out[M_STORED])
    out[M_STORED] -= m
    out[M_BURIED] += m


@inline
def busy(P, obs, out):
    if obs[DAY_CARD] == D_BUSY:
        from_wild(obs, P[DAYV + D_BUSY * 4 + 1], out)


@inline
def strongest_ambushed(P, obs, t, a):
    """The strength of ``t``'s strongest creature with health at most ``a`` (0: none)."""
    best = 0
    for i in range(MAX_ARMY):
        k = obs[pb(t) + ARMY + i]
        if k >= 0 and P[CARD + k * N_CARD_COLS + C_HP] <= a:
            best = max(best, P[CARD + k * N_CARD_COLS + C_STR])
    return best


@inline
def effect_entries(P, obs, s, k, t, out):
    """What card ``k``'s effect does for seat ``s`` (``t``: the player a trick picks)."""
    b = pb(s)
    e = P[CARD + k * N_CARD_COLS + C_EFFECT]
    a = P[CARD + k * N_CARD_COLS + C_AMOUNT]
    if e == E_FORAGE or e == E_TIRE_FORAGE:
        from_wild(obs, a, out)
    elif e == E_BURY or e == E_TIRE_BURY:
        to_burrow(obs, b, a, out)
    elif e == E_DRAW or e == E_TIRE_DRAW:
        out[M_HAND] += a
    elif e == E_TIRE_GATHER:
        out[M_RES] += a  # its mix is chosen next (PH_MIX)
    elif e == E_STEAL_STORE:
        m = min(a, obs[pb(t) + STORE])
        out[M_STORED] += m
        out[M_RIVAL_STORED] -= m
    elif e == E_DIG_UP:
        m = min(a, obs[pb(t) + BURIED])
        out[M_RIVAL_BURIED] -= m
        out[M_RIVAL_STORED] += m
    elif e == E_AMBUSH:
        out[M_RIVAL_ARMY] -= strongest_ambushed(P, obs, t, a)


@inline
def blocker_units(P, obs, s, skip, extra_k):
    """``s``'s standing blocker units as ``census`` counts them (ground only, flying or
    ranged, those of them that do not fly), without its army places in the mask ``skip``
    and with a creature ``extra_k`` just played (-1: none)."""
    b = pb(s)
    ground, air, air_calm, bands = 0, 0, 0, 0
    for i in range(MAX_ARMY + 1):
        if i < MAX_ARMY:
            k = obs[b + ARMY + i]
            if k < 0 or (skip >> i) & 1 or obs[b + AFLAG + i] & TIRED or obs[b + ATGT + i]:
                continue
        else:
            k = extra_k
            if k < 0:
                break
        c = CARD + k * N_CARD_COLS
        if P[c + C_BAND] == 1:
            if (bands >> k) & 1:
                continue
            bands |= 1 << k
        if P[c + C_FLY] == 0 and P[c + C_RANGED] == 0:
            ground += 1
        else:
            air += 1
            air_calm += 1 if P[c + C_FLY] == 0 else 0
    return ground, air, air_calm


@inline
def rivals_raids(P, obs, s, skip, extra_k, out):
    """M_RIVAL_RAIDS: the change in the acorns the other seats' next raids would carry off
    ``s`` (``features``' raids on own), when ``s``'s army places in ``skip`` no longer
    block (sent to attack, tired) and a creature ``extra_k`` joins its blockers. Each
    rival's units are sorted into out[0:MAX_ARMY] in turn: called before any entry is
    written."""
    n = obs[N_PLAYERS]
    stage, first_today = turn_stage(obs)
    g0, a0, c0 = blocker_units(P, obs, s, 0, -1)
    g1, a1, c1 = blocker_units(P, obs, s, skip, extra_k)
    change = 0
    for o in range(1, n):
        p = (s + o) % n
        today = p >= first_today
        if not today and obs[DAY] >= P[R_DAYS]:
            continue
        d = obs[DAY_CARD] if today else -1
        if d == D_RAIN:
            continue
        stage_p = stage if p == obs[SEAT] else ST_NONE
        bonus = P[DAYV + D_MOON * 4 + 1] if d == D_MOON else 0
        if stage_p != ST_NONE:
            bonus += obs[RALLY]
        others = ((1 << n) - 1) & ~(1 << p)
        cen = census(P, obs, p, 0, stage_p, d == D_WINDY, bonus, others, out)
        if d == D_FOG:
            continue  # nobody blocks: the blockers change nothing
        windy = d == D_WINDY
        change += (raid(obs, out, 0, cen[0], s, g1, c1 if windy else a1)
                   - raid(obs, out, 0, cen[0], s, g0, c0 if windy else a0))
    return change


@inline
def play_entries(P, obs, s, k, t, out):
    """Playing card ``k``: its cost paid (the specific cards first, then the circled part
    of whatever kind), the card out of the hand, into the army or its effect done."""
    b = pb(s)
    c = CARD + k * N_CARD_COLS
    cut = cost_discount(P, obs, k)  # the day card is in the observation
    p0 = min(P[c + C_COST], obs[b + RES])
    p1 = min(P[c + C_COST + 1], obs[b + RES + 1])
    p2 = min(P[c + C_COST + 2], obs[b + RES + 2])
    p3 = min(P[c + C_COST + 3], obs[b + RES + 3])
    total = max(0, P[c + C_COST] + P[c + C_COST + 1] + P[c + C_COST + 2] + P[c + C_COST + 3]
                + P[c + C_ANY] - cut)
    specific = min(total, p0 + p1 + p2 + p3)
    hand_change(P, obs, b, -1, k, -p0, -p1, -p2, -p3, total - specific, out)
    out[M_RES] = -total  # what the waived cards leave
    out[M_HAND] = -1
    card_entries(P, obs, b, k, 1, out, M_CARD)
    if P[c + C_TRICK] == 0:
        out[M_ARMY] = P[c + C_STR]
        out[M_STANDING] = P[c + C_STR]  # it cannot attack this turn, but it blocks
    else:
        effect_entries(P, obs, s, k, t, out)


@inline
def unit_strength(P, obs, a, i, bonus):
    """The attacker unit creature ``i`` of seat block ``a`` would lead (its Band: each of its
    name that can attack): (the acorns it steals unblocked, those it digs up, its least
    health, its printed strength)."""
    k = obs[a + ARMY + i]
    band = P[CARD + k * N_CARD_COLS + C_BAND] == 1
    steal, dig, hp, printed = 0, 0, 1 << 20, 0
    for j in range(i, MAX_ARMY):
        if j != i and (not band or obs[a + ARMY + j] != k
                       or obs[a + AFLAG + j] & (TIRED | NEW | DECIDED)):
            continue
        s2, d2 = steal_of(P, k, bonus)
        steal += s2
        dig += d2
        printed += P[CARD + k * N_CARD_COLS + C_STR]
        hp = min(hp, P[CARD + k * N_CARD_COLS + C_HP])
    return steal, dig, hp, printed


@inline
def unit_places(P, obs, a, i):
    """The army places (a mask) of the attacker unit creature ``i`` of seat block ``a``
    would lead: it, and its Band's members that can attack."""
    k = obs[a + ARMY + i]
    band = P[CARD + k * N_CARD_COLS + C_BAND] == 1
    mask = 1 << i
    for j in range(i + 1, MAX_ARMY):
        if band and obs[a + ARMY + j] == k and obs[a + AFLAG + j] & (TIRED | NEW | DECIDED) == 0:
            mask |= 1 << j
    return mask


@inline
def blocker_strength(P, obs, d, i, moon):
    """Defender ``d``'s creature at place ``i`` blocking: its strength (with its Band's
    standing members of its name, who block with it)."""
    b = pb(d)
    k = obs[b + ARMY + i]
    c = CARD + k * N_CARD_COLS
    one = P[c + C_STR] + moon + (P[c + C_AMOUNT] if P[c + C_EFFECT] == E_DEFEND else 0)
    if P[c + C_BAND] == 0:
        return one
    total = 0
    for j in range(MAX_ARMY):
        if obs[b + ARMY + j] == k and obs[b + AFLAG + j] & TIRED == 0:
            total += one
    return total


@inline
def attack_entries(P, obs, s, t, out):
    """Sending the creature asked (SLOT, its Band with it) against ``t``: what it carries
    off unblocked, the blocker units ``t`` has for it beyond the units already sent there
    (each stops one), whether one of them is strong enough to kill it, and the standing
    strength the attackers give up (they tire)."""
    a = pb(s)
    i = obs[SLOT]
    moon = P[DAYV + D_MOON * 4 + 1] if obs[DAY_CARD] == D_MOON else 0
    steal, dig, hp, printed = unit_strength(P, obs, a, i, moon + obs[RALLY])
    bt = pb(t)
    out[M_RAID] = min(steal, obs[bt + STORE]) + min(dig, obs[bt + BURIED])
    if obs[a + ATGT + i] == 0:
        out[M_STANDING] = -printed
    fly = P[CARD + obs[a + ARMY + i] * N_CARD_COLS + C_FLY] == 1
    sent = 0
    for j in range(MAX_ARMY):
        if obs[a + ARMY + j] >= 0 and (obs[a + ATGT + j] >> t) & 1 and obs[a + ALINK + j] == j:
            sent += 1
    blockers, top, bands = 0, 0, 0
    if obs[DAY_CARD] != D_FOG:
        windy = obs[DAY_CARD] == D_WINDY
        for j in range(MAX_ARMY):
            k = obs[bt + ARMY + j]
            if k < 0 or obs[bt + AFLAG + j] & TIRED:
                continue
            c = CARD + k * N_CARD_COLS
            if (windy and P[c + C_FLY] == 1) or (fly and P[c + C_FLY] == 0
                                                  and P[c + C_RANGED] == 0):
                continue
            if P[c + C_BAND] == 1:
                if (bands >> k) & 1:
                    continue
                bands |= 1 << k
            blockers += 1
            top = max(top, blocker_strength(P, obs, t, j, moon))
    out[M_RAID_BLOCKERS] = max(0, blockers - sent)
    out[M_RAID_RISK] = 1.0 if blockers > 0 and top >= hp else 0.0


@inline
def block_entries(P, obs, d, j, out):
    """The defender's creature asked (SLOT) blocking the unit led by the attacker's place
    ``j`` (FOX_LINK: the Fox): the acorns that unit would take unblocked, when no blocker
    stands before it yet; whether the blockers (with those already there) kill one of it;
    whether it kills this blocker; the blockers already before it."""
    b = pb(d)
    moon = P[DAYV + D_MOON * 4 + 1] if obs[DAY_CARD] == D_MOON else 0
    mine = blocker_strength(P, obs, d, obs[SLOT], moon)
    my_hp = P[CARD + obs[b + ARMY + obs[SLOT]] * N_CARD_COLS + C_HP]
    shared, there = 0, 0
    for i in range(MAX_ARMY):
        if obs[b + ARMY + i] >= 0 and obs[b + ALINK + i] == j:
            shared += 1
            there += blocker_strength(P, obs, d, i, moon)
    if j == FOX_LINK:
        atk = P[DAYV + D_FOX * 4 + 1]
        steal, dig, hp = atk, 0, P[DAYV + D_FOX * 4 + 2]
    else:
        a = pb(obs[SEAT])
        atk, steal, dig, hp = 0, 0, 0, 1 << 20
        for m in range(MAX_ARMY):
            k = obs[a + ARMY + m]
            if k >= 0 and (obs[a + ATGT + m] >> d) & 1 and obs[a + ALINK + m] == j:
                s2, d2 = steal_of(P, k, moon + obs[RALLY])
                atk += P[CARD + k * N_CARD_COLS + C_STR] + moon + obs[RALLY]
                steal += s2
                dig += d2
                hp = min(hp, P[CARD + k * N_CARD_COLS + C_HP])
    if shared == 0:
        out[M_SAVES] = min(steal, obs[b + STORE]) + min(dig, obs[b + BURIED])
    out[M_KILLS] = 1.0 if mine + there >= hp else 0.0
    out[M_DIES] = 1.0 if atk >= my_hp else 0.0
    out[M_SHARED] = shared


@inline
def trade_entries(P, obs, s, move, out):
    """An offer being built (by ``s``) or answered: one item added, the offer made as it
    stands, or accepted (the items change hands at once)."""
    b = pb(s)
    if move == ACCEPT:  # ``s`` was offered the trade: it gets OFFER_GIVE, gives OFFER_GET
        hand_change(P, obs, b, -1, -1, obs[OFFER_GIVE] - obs[OFFER_GET],
                    obs[OFFER_GIVE + 1] - obs[OFFER_GET + 1],
                    obs[OFFER_GIVE + 2] - obs[OFFER_GET + 2],
                    obs[OFFER_GIVE + 3] - obs[OFFER_GET + 3], 0, out)
        acorns = obs[OFFER_GIVE + TRADE_ACORN] - obs[OFFER_GET + TRADE_ACORN]
        out[M_STORED] = acorns
        out[M_RIVAL_STORED] = -acorns
        return
    if move == OFFER_MAKE:
        hand_change(P, obs, b, -1, -1, obs[OFFER_GET] - obs[OFFER_GIVE],
                    obs[OFFER_GET + 1] - obs[OFFER_GIVE + 1],
                    obs[OFFER_GET + 2] - obs[OFFER_GIVE + 2],
                    obs[OFFER_GET + 3] - obs[OFFER_GIVE + 3], 0, out)
        out[M_OFFER_ACORNS] = obs[OFFER_GET + TRADE_ACORN] - obs[OFFER_GIVE + TRADE_ACORN]
        out[M_OFFER_CARDS] = out[M_RES]
        out[M_RES] = 0.0  # nothing changes hands until it is accepted
        return
    i = move - OFFER_ADD
    sign = -1 if i < N_TRADE_KINDS else 1
    c = i % N_TRADE_KINDS
    if c == TRADE_ACORN:
        out[M_OFFER_ACORNS] = sign
        return
    kinds_change(P, obs, b, c, sign, -1, 0, -1, 0, out)
    out[M_OFFER_CARDS] = sign
    out[M_RES] = 0.0


@inline
def free_entries(P, obs, s, move, out):
    """An ability, a swap, or the start of an offer."""
    out[M_FREE] = 1.0
    b = pb(s)
    if move >= OFFER_START:
        return
    if move >= SWAP:
        q, c = (move - SWAP) // 4, (move - SWAP) % 4
        give = P[DAYV + D_MARKET * 4 + 1] if obs[DAY_CARD] == D_MARKET else P[R_SWAP_GIVE]
        ka, kb = PAIRS[q, 0], PAIRS[q, 1]
        ga = give if ka == kb else (give + 1) // 2
        kinds_change(P, obs, b, ka, -ga, kb, ga - give, c, 1, out)
        return
    i = move - ABILITY
    k = obs[b + ARMY + i]
    out[M_STANDING] = -P[CARD + k * N_CARD_COLS + C_STR]  # the ability tires it
    effect_entries(P, obs, s, k, -1, out)


@inline
def action_entries(P, obs, s, move, out):
    """The day's action: Gather (its mix), Draw, Forage, Bury."""
    b = pb(s)
    if move < DRAW:
        ka = P[HOMES + obs[b + HOME] * 2]
        kb = P[HOMES + obs[b + HOME] * 2 + 1]
        g = move - GATHER
        na = min(P[R_GATHER] - g, obs[PILE + ka])
        kinds_change(P, obs, b, ka, na, kb, min(g, obs[PILE + kb]), -1, 0, out)
        busy(P, obs, out)
    elif move == DRAW or move == DRAW_REFRESH:
        out[M_HAND] = P[R_DRAW]
        if move == DRAW:
            row_entries(P, obs, b, out)
        busy(P, obs, out)
    elif move == FORAGE:
        from_wild(obs, P[R_FORAGE] + (P[DAYV + D_BUMPER * 4 + 1]
                                      if obs[DAY_CARD] == D_BUMPER else 0), out)
    else:
        to_burrow(obs, b, move - BURY + 1, out)


@inline
def card_in_or_out(P, obs, s, move, out):
    """A card taken from the row (or the deck), discarded, or put back at setup."""
    b = pb(s)
    if move == TAKE_DECK:
        out[M_HAND] = 1.0
    elif move < TAKE_DECK:
        k = obs[ROW + move - TAKE_ROW]
        hand_change(P, obs, b, k, -1, 0, 0, 0, 0, 0, out)
        out[M_HAND] = 1.0
        card_entries(P, obs, b, k, 1, out, M_CARD)
    elif move < RETURN_RES:
        k = move - DISCARD_CARD
        hand_change(P, obs, b, -1, k, 0, 0, 0, 0, 0, out)
        out[M_HAND] = -1.0
        card_entries(P, obs, b, k, -1, out, M_CARD)
    else:
        kinds_change(P, obs, b, move - RETURN_RES, -1, -1, 0, -1, 0, out)


@kernel
def move_features(params, obs, seat, move, out):
    """Fill ``out`` (float64[len(MOVE_FEATURES)]) with what one legal ``move`` of ``seat``
    does, from its observation ``obs`` alone (NOTES.md, Move features). No move is applied;
    allocates nothing."""
    P = params[FLAT]
    ph = obs[PHASE]
    raids = 0  # first: its work space is out itself
    if ph == PH_ASSIGN and move != STAY and obs[pb(seat) + ATGT + obs[SLOT]] == 0:
        raids = rivals_raids(P, obs, seat, unit_places(P, obs, pb(seat), obs[SLOT]), -1, out)
    elif ABILITY <= move < SWAP and (ph == PH_ACTION or ph == PH_MAIN or ph == PH_AFTER):
        raids = rivals_raids(P, obs, seat, 1 << (move - ABILITY), -1, out)
    elif ph == PH_MAIN and PLAY <= move < ABILITY \
            and P[CARD + (move - PLAY) // 4 * N_CARD_COLS + C_TRICK] == 0:
        raids = rivals_raids(P, obs, seat, 0, (move - PLAY) // 4, out)
    for j in range(len(MOVE_FEATURES)):
        out[j] = 0.0
    out[M_RIVAL_RAIDS] = raids
    if move == END_PLAY or move == STAY or move == NO_BLOCK or move == DECLINE \
            or move == OFFER_DROP:
        out[M_PASSES] = 1.0
    elif ph == PH_ASSIGN:
        attack_entries(P, obs, seat, move - ATTACK, out)
    elif ph == PH_BLOCK or ph == PH_FOX_BLOCK:
        block_entries(P, obs, seat, FOX_LINK if move == BLOCK_FOX else move - BLOCK, out)
    elif ph == PH_OFFER or ph == PH_REPLY:
        trade_entries(P, obs, seat, move, out)
    elif ph == PH_PAY:  # what the rest of the hand can still pay for
        kinds_change(P, obs, pb(seat), move - PAY_RES, -1, -1, 0, -1, 0, out)
    elif ph == PH_MIX:
        b = pb(seat)
        ka = P[HOMES + obs[b + HOME] * 2]
        kb = P[HOMES + obs[b + HOME] * 2 + 1]
        g = move - MIX
        kinds_change(P, obs, b, ka, obs[MIX_N] - g, kb, g, -1, 0, out)
    elif move >= ABILITY:
        free_entries(P, obs, seat, move, out)
    elif move >= PLAY:
        play_entries(P, obs, seat, (move - PLAY) // 4, (move - PLAY) % 4, out)
    elif move >= TAKE_ROW and move <= TAKE_DECK or move >= DISCARD_CARD:
        card_in_or_out(P, obs, seat, move, out)
    else:
        action_entries(P, obs, seat, move, out)


@kernel
def observe(params, state, seat, obs):
    """Hidden: the deck's order, the day cards not yet turned over, and the cards in the
    other players' hands (HAND) other than those the table saw go in (KNOWN, public, as is
    how many cards each holds, HAND_N). What the deck can hold (DECK_CAN) is public."""
    P = params[FLAT]
    copy_into(obs, state)
    obs[DECK:DECK + state[DECK_N]] = -2
    # DAY passes the last day when the game ends: the cards after it were never turned
    for i in range(min(max(state[DAY], 0), P[R_DAYS]), P[R_NDAYS]):
        obs[DAY_ORDER + i] = -2
    for p in range(state[N_PLAYERS]):
        if p != seat:
            obs[pb(p) + HAND:pb(p) + HAND + MAX_KINDS] = -2


# --- determinisation (for the search strategies) --------------------------------------------
# scratch (int32[STATE_SIZE]) holds the unseen cards of each kind at SC_UNSEEN, the unseen
# cards the deck can hold at SC_DECKABLE, and those only a hand can hold at SC_HANDS
SC_UNSEEN = 0
SC_DECKABLE = MAX_KINDS
SC_HANDS = MAX_KINDS + MAX_CARDS


@kernel
def determinize(params, obs, seat, state, stream, scratch):
    """A full state drawn from those ``seat``'s observation ``obs`` allows (NOTES.md,
    Determinisation): the day cards to come in a random order, and the unseen cards (all
    cards but those the seat sees and those the table knows are in a hand) dealt to the
    deck and to the places of the other hands that nobody knows. The deck is dealt from
    the unseen cards it can hold (DECK_CAN), as a random draw of DECK_N of them in a random
    order; the rest go to the hands, uniformly."""
    P = params[FLAT]
    copy_into(state, obs)
    deal_days(P, obs, state, stream, scratch)
    count_unseen(P, obs, seat, scratch)
    deal_cards(P, obs, seat, state, stream, scratch)


@inline
def paid_unknown(obs, p):
    """The card ``p`` is paying for, when the table knows of no card of its kind in ``p``'s
    hand but this one (it was named when played), or -1."""
    k = obs[PAY_CARD]
    if k >= 0 and obs[SEAT] == p and obs[PLAYERS + p * PS + KNOWN + k] == 0:
        return k
    return -1


@kernel
def deal_days(P, obs, state, stream, scratch):
    """The day cards not yet turned over: the day deck less those turned, shuffled."""
    n_days = P[R_NDAYS]
    turned = min(max(obs[DAY], 0), P[R_DAYS])
    for d in range(N_DAY_KINDS):
        scratch[d] = 0
    for i in range(n_days):
        scratch[P[DAYD + i]] += 1
    for i in range(turned):
        scratch[obs[DAY_ORDER + i]] -= 1
    j = DAY_ORDER + turned
    for d in range(N_DAY_KINDS):
        for _ in range(scratch[d]):
            state[j] = d
            j += 1
    shuffle(stream, state[DAY_ORDER + turned:], n_days - turned)


@kernel
def count_unseen(P, obs, seat, scratch):
    """``scratch[SC_UNSEEN + k]``: the cards of kind ``k`` that ``seat`` cannot place: all
    of them less the row, the discard pile, every army, its own hand and the cards known
    to be in the other hands (KNOWN, and the card being paid for). Seat blocks are indexed
    here without calling ``pb``: a call per card kind cost six times the rest (NOTES.md)."""
    nk = P[R_NK]
    for k in range(nk):
        scratch[SC_UNSEEN + k] = P[CARD + k * N_CARD_COLS + C_COUNT]
    for i in range(P[R_ROW]):
        if obs[ROW + i] >= 0:
            scratch[SC_UNSEEN + obs[ROW + i]] -= 1
    for i in range(obs[DISCARD_N]):
        scratch[SC_UNSEEN + obs[DISCARD + i]] -= 1
    for p in range(obs[N_PLAYERS]):
        b = PLAYERS + p * PS
        for i in range(MAX_ARMY):
            if obs[b + ARMY + i] >= 0:
                scratch[SC_UNSEEN + obs[b + ARMY + i]] -= 1
        h = b + (HAND if p == seat else KNOWN)
        for k in range(nk):
            scratch[SC_UNSEEN + k] -= obs[h + k]
        if p != seat and paid_unknown(obs, p) >= 0:
            scratch[SC_UNSEEN + paid_unknown(obs, p)] -= 1


@kernel
def deal_cards(P, obs, seat, state, stream, scratch):
    """Deal the unseen cards: the deck takes DECK_N of those it can hold, in a random
    order; every other one goes to a place of another hand that nobody knows."""
    nk = P[R_NK]
    n_deckable = 0
    n_hands = 0
    for k in range(nk):
        u = scratch[SC_UNSEEN + k]
        can = min(u, obs[DECK_CAN + k])
        for _ in range(can):
            scratch[SC_DECKABLE + n_deckable] = k
            n_deckable += 1
        for _ in range(u - can):
            scratch[SC_HANDS + n_hands] = k
            n_hands += 1
    shuffle(stream, scratch[SC_DECKABLE:], n_deckable)
    dn = obs[DECK_N]
    for i in range(dn):
        state[DECK + i] = scratch[SC_DECKABLE + i]
    for i in range(dn, n_deckable):
        scratch[SC_HANDS + n_hands] = scratch[SC_DECKABLE + i]
        n_hands += 1
    shuffle(stream, scratch[SC_HANDS:], n_hands)
    j = SC_HANDS
    for p in range(obs[N_PLAYERS]):
        if p == seat:
            continue
        b = PLAYERS + p * PS
        free = obs[b + HAND_N]
        for k in range(MAX_KINDS):  # the known cards (none of a kind beyond the card list)
            state[b + HAND + k] = obs[b + KNOWN + k]
            free -= obs[b + KNOWN + k]
        k = paid_unknown(obs, p)
        if k >= 0:
            state[b + HAND + k] = 1
            free -= 1
        for _ in range(free):
            state[b + HAND + scratch[j]] += 1
            j += 1
