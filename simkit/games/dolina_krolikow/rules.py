"""Dolina królików's kernels: setup, legal moves, apply a move, scoring, item events.

Read top to bottom: parameter indices, move encoding, item columns, small helpers, then the
phases in the order a game goes through them (setup, house draw, dice picks, leftover die,
acquiring, end of round, final scoring). The state layout is in ``state.py``.

Moves (small ints, written once here):

    RES + d                 take die d as resources (its colour, its pips in tokens)
    PLACE + (d*8+pos)*18+f  put die d on the card at position pos as face f (colour*6 + pips-1);
                            f differs from the rolled face when resources modify the die
    EXCHANGE + pos          trade the two Wanderers for the unmarked rabbit at pos (before a pick)
    HOUSE + h               put the rabbit being placed into House h
    LEFT_COLOUR + d         leftover die d used for its colour: everyone takes 1 token
    LEFT_SWAP + d           leftover die d used for its pips: swap the rabbit at that position
    LEFT_PASS               leftover die used for its pips, no swap
    PAY_TOKEN + k           pay one token of kind k for a die's pip change (PH_PAY: only when
                            the tokens can be chosen in more than one way)
    DRAW_PASS, DRAW_TAKE    start of round: draw House cards or not
    KEEP + k                keep drawn House card k (the other goes back into the stack)
    WAND_ADD + w, WAND_DONE put Wanderer w into the newly drawn House, or stop
    F_KEEP + k, F_REDEAL    setup: keep Forest card k, or ask for the redeal (both clash)
    H_DISCARD + h, H_KEEP_ALL  setup: discard dealt House card h, or keep them all
                            (both secret: carried out once every seat has chosen)
    R_KEEP + k              redeal: keep one of the two new Forest cards
"""

from numba.cpython.unsafe.numbers import trailing_zeros  # llvm.cttz: one instruction
from numba.extending import intrinsic

from simkit.game import HIDDEN
from simkit.jit import copy_into, inline, kernel
from simkit.rng import rand_below, shuffle

from .state import (
    ACTOR,
    CARD_LOC,
    CHOSE_KEEP_ALL,
    CHOSE_REDEAL,
    CHOSEN_FOREST,
    CHOSEN_HOUSE,
    CLOCK,
    DECK,
    DECK_N,
    DIE_FACE,
    DIE_USE,
    DRAWN,
    DRAWN_N,
    FIRST,
    FOREST_AT,
    FOREST_BACK,
    FOREST_HAND,
    FOREST_KEPT,
    FPOOL,
    FPOOL_N,
    GARDEN,
    HEADER,
    HOUSE_AT,
    HOUSE_BACK,
    HOUSE_C1,
    HOUSE_C2,
    HOUSE_CARD,
    HOUSE_COLS,
    HOUSE_COUNT,
    HOUSE_HAND,
    HOUSE_LARGE,
    HOUSE_N,
    HSTACK,
    HSTACK_N,
    LOC_DECK,
    LOC_PENDING,
    LOC_SEAT,
    LOC_TABLE,
    LOC_WANDER,
    MAXC,
    MAXF,
    MAXH,
    MAXHC,
    MAXP,
    MAXPOS,
    N_FACES,
    N_PLAYERS,
    NEW_HOUSE,
    OVER,
    PAY_LEFT,
    PAY_MIN,
    PAY_POS,
    PEND_CARD,
    PEND_I,
    PEND_N,
    PEND_SEAT,
    PH_DRAW,
    PH_KEEP,
    PH_LEFTOVER,
    PH_OVER,
    PH_PAY,
    PH_PICK,
    PH_PLACE,
    PH_REDEAL,
    PH_SETUP_FOREST,
    PH_SETUP_HOUSE,
    PH_WANDER_ADD,
    PHASE,
    PICKER,
    PLACE_FOR,
    POS_CARD,
    POS_D1,
    POS_D2,
    POS_OWNER,
    POS_TOK,
    REDEAL,
    ROUND,
    STATE_SIZE,
    STEP,
    TOKENS,
    USE_GARDEN,
    USE_LEFTOVER,
    WAND,
)
from .tables import (
    O_ACCEPT,
    O_CARDS,
    O_CLASH,
    O_FOREST,
    O_HOUSE,
    O_REACH,
    O_SIZE,
    O_TABLE,
    REACH_TOTALS,
)

# --- parameters: params = (P,); P[:32] is cfg, indexed by these --------------------------
(C_ROUNDS, C_PICKS, C_HOUSE_LIMIT, C_HOUSES_DEALT, C_KIND_LIMIT, C_TOTAL_LIMIT, C_GARDEN,
 C_POSITIONS, C_SWAP_POS, C_PER_COLOUR, C_N_DICE, C_N_CARDS, C_N_HOUSE, C_N_FOREST,
 C_FOREST_DEALT, C_REDEAL, C_WAND_MAX, C_ADV_TABLE, C_RECOLOUR, C_PIP, C_DRAW_OFFERED,
 C_TWO_LARGE, C_FOREST_DONE, C_FOREST_FAIL, C_HOUSE_DONE, C_HOUSE_FAIL,
 C_FACE_UP, C_MAX_TURNS) = range(28)
N_CFG = 28
# the other tables follow cfg in the same array, at the offsets of tables.py
SMALL, LARGE = 0, 1
# marking kinds (tables.py: req)
K_NONE, K_COLOUR, K_COLOUR_PIPS, K_PIPS, K_SAME_COLOUR, K_SAME_PIPS = range(6)
# family conditions
P_HAS, P_ONLY, P_NONE, P_RAINBOW, P_SIZE, P_LARGE, P_SMALL, P_MONO = range(8)
# forest quantifiers
Q_EVERY, Q_COUNT, Q_TOTAL = range(3)

# --- moves ----------------------------------------------------------------------------
RES = 0
PLACE = 9
EXCHANGE = PLACE + 9 * MAXPOS * N_FACES
HOUSE = EXCHANGE + MAXPOS
LEFT_COLOUR = HOUSE + MAXH
LEFT_SWAP = LEFT_COLOUR + 9
LEFT_PASS = LEFT_SWAP + 9
DRAW_PASS = LEFT_PASS + 1
DRAW_TAKE = DRAW_PASS + 1
KEEP = DRAW_TAKE + 1
WAND_ADD = KEEP + 2
WAND_DONE = WAND_ADD + 2
F_KEEP = WAND_DONE + 1
F_REDEAL = F_KEEP + 2
H_DISCARD = F_REDEAL + 1
H_KEEP_ALL = H_DISCARD + 4
R_KEEP = H_KEEP_ALL + 1
PAY_TOKEN = R_KEEP + 2
N_MOVES = PAY_TOKEN + 3
# a secret setup choice is kept as its move less F_KEEP or H_DISCARD (state.py)
assert F_REDEAL - F_KEEP == CHOSE_REDEAL and H_KEEP_ALL - H_DISCARD == CHOSE_KEEP_ALL
MAX_MOVES = 9 * MAXPOS * N_FACES + 64

# --- item columns: generic ones, then 3 per rabbit card, 3 per House card, 3 per Forest ---
GENERIC_ITEMS = [
    "dice:rabbit", "dice:resources", "modify:recolour", "modify:pips", "leftover:colour",
    "leftover:swap", "leftover:pass", "attempt:failed", "wanderers:exchanged",
    "wanderer:housed", "wanderer:to_deck", "house:drawn", "forest:redealt",
    "house:discarded_at_setup",
]
(I_DICE_RABBIT, I_DICE_RES, I_RECOLOUR, I_PIPS, I_LEFT_COLOUR, I_LEFT_SWAP, I_LEFT_PASS,
 I_FAILED, I_EXCHANGED, I_WAND_HOUSED, I_WAND_DECK, I_HOUSE_DRAWN, I_REDEALT,
 I_HOUSE_DISCARDED) = range(len(GENERIC_ITEMS))
I_RABBIT = len(GENERIC_ITEMS)
EV_ACQUIRED, EV_IN_FAMILY, EV_WANDERING = 0, 1, 2
EV_KEPT, EV_COMPLETED, EV_FAILED = 0, 1, 2


def item_columns(rabbits, houses, forests):
    """The item columns, named after the cards (e.g. ``rabbit_22_small_spotted:acquired``,
    ``house_02_only_brown:completed``); the kernels index them by card number."""
    cols = list(GENERIC_ITEMS)
    for name in rabbits:
        cols += [f"{name}:acquired", f"{name}:in_family", f"{name}:wandering"]
    for name in houses:
        cols += [f"{name}:kept", f"{name}:completed", f"{name}:failed"]
    for name in forests:
        cols += [f"{name}:kept", f"{name}:completed", f"{name}:failed"]
    return cols


END_REASONS = ["timeout", "rounds_played"]


@kernel
def state_size(params, n_players):
    return STATE_SIZE


@kernel
def max_moves(params, n_players):
    return MAX_MOVES


@inline
def house_item(params, h):
    return I_RABBIT + 3 * params[0][C_N_CARDS] + 3 * h


@kernel
def forest_item(params, f):
    return I_RABBIT + 3 * params[0][C_N_CARDS] + 3 * params[0][C_N_HOUSE] + 3 * f


# --- small helpers: cards, deck, tokens ---------------------------------------------------
@inline
def draw_card(state):
    """Take the top card of the rabbit deck (-1 if it is empty)."""
    n = state[DECK_N]
    if n == 0:
        return -1
    c = state[DECK + n - 1]
    state[DECK + n - 1] = -1
    state[DECK_N] = n - 1
    return c


@inline
def card_to_deck(state, card, chance):
    """A card goes back into the face-down deck, which is shuffled."""
    n = state[DECK_N]
    state[DECK + n] = card
    state[DECK_N] = n + 1
    state[CARD_LOC + card] = LOC_DECK
    shuffle(chance, state[DECK:DECK + n + 1], n + 1)


@inline
def fill_position(state, pos):
    c = draw_card(state)
    state[POS_CARD + pos] = c
    if c >= 0:
        state[CARD_LOC + c] = LOC_TABLE


@inline
def token_total(state, seat):
    b = TOKENS + 3 * seat
    return state[b] + state[b + 1] + state[b + 2]


@inline
def pay_tokens(state, seat, kind, n, pos):
    """Move n tokens of one kind from the seat onto the card at pos."""
    state[TOKENS + 3 * seat + kind] -= n
    state[POS_TOK + 3 * pos + kind] += n


@inline
def may_pay_with(state, seat, k):
    """The next pip token may be of kind k: kinds go in order, and enough tokens of kind k
    and above are left for the rest."""
    b = TOKENS + 3 * seat
    if k < state[PAY_MIN] or state[b + k] == 0:
        return False
    left = 0
    for j in range(k, 3):
        left += state[b + j]
    return left >= state[PAY_LEFT]


@inline
def settle_payment(state, seat):
    """Pay the pip tokens that leave no choice; True once all are paid, False when the seat
    must choose (PH_PAY)."""
    while state[PAY_LEFT] > 0:
        ways = 0
        only = -1
        for k in range(3):
            if may_pay_with(state, seat, k):
                ways += 1
                only = k
        if ways != 1:
            state[PHASE] = PH_PAY
            return False
        pay_token(state, seat, only)
    state[PAY_POS] = -1
    state[PAY_MIN] = 0
    return True


@inline
def pay_token(state, seat, k):
    pay_tokens(state, seat, k, 1, state[PAY_POS])
    state[PAY_MIN] = k
    state[PAY_LEFT] -= 1


@kernel
def modify_cost(params, state, seat, f0, f):
    """Tokens needed to turn rolled face f0 into face f, or -1 if the seat cannot pay."""
    cfg = params[0]
    dc = f // 6 != f0 // 6
    dp = abs(f % 6 - f0 % 6)
    need = cfg[C_PIP] * dp
    if dc:
        if state[TOKENS + 3 * seat + f // 6] < cfg[C_RECOLOUR]:
            return -1
        need += cfg[C_RECOLOUR]
    if need > token_total(state, seat):
        return -1
    return need


# --- families and houses ----------------------------------------------------------------
@inline
def house_fits(params, state, seat, h, card):
    """Can ``card`` join the Family in House h? At most 2 Large; the colour table if on."""
    i = seat * MAXH + h
    if state[HOUSE_CARD + i] < 0:
        return False
    if params[0][O_CARDS + 2 * card] == LARGE and state[HOUSE_LARGE + i] >= 2:
        return False
    if params[0][C_ADV_TABLE] != 0 and state[HOUSE_N + i] >= 2:
        allowed = params[0][O_TABLE + state[HOUSE_C1 + i] * 3 + state[HOUSE_C2 + i]]
        return (allowed >> params[0][O_CARDS + 2 * card + 1]) & 1 == 1
    return True


@inline
def fitting_houses(params, state, seat, card):
    n = 0
    for h in range(state[HOUSE_COUNT + seat]):
        if house_fits(params, state, seat, h, card):
            n += 1
    return n


@inline
def add_to_house(params, state, seat, h, card):
    i = seat * MAXH + h
    colour = params[0][O_CARDS + 2 * card + 1]
    if state[HOUSE_N + i] == 0:
        state[HOUSE_C1 + i] = colour
    elif state[HOUSE_N + i] == 1:
        state[HOUSE_C2 + i] = colour
    state[HOUSE_N + i] += 1
    state[HOUSE_LARGE + i] += params[0][O_CARDS + 2 * card]
    state[HOUSE_COLS + 3 * i + colour] += 1
    state[CARD_LOC + card] = LOC_SEAT + 8 * seat + h


@inline
def is_family(state, i):
    """A Family: at least 2 rabbits with 1 or 2 Large (the four legal shapes)."""
    return state[HOUSE_N + i] >= 2 and 1 <= state[HOUSE_LARGE + i] <= 2


@inline
def family_meets(state, i, kind, a, b):
    n = state[HOUSE_N + i]
    large = state[HOUSE_LARGE + i]
    c = HOUSE_COLS + 3 * i
    if kind == P_HAS:
        return state[c + a] >= b
    if kind == P_ONLY:
        return state[c + a] == n
    if kind == P_NONE:
        return state[c + a] == 0
    if kind == P_RAINBOW:
        return n == 3 and state[c] == 1 and state[c + 1] == 1 and state[c + 2] == 1
    if kind == P_SIZE:
        return n >= a
    if kind == P_LARGE:
        return large >= a
    if kind == P_SMALL:
        return n - large >= a
    return state[c] == n or state[c + 1] == n or state[c + 2] == n  # P_MONO


@inline
def house_mission_done(params, state, seat, h):
    i = seat * MAXH + h
    m = O_HOUSE + 3 * state[HOUSE_CARD + i]
    P = params[0]
    return is_family(state, i) and family_meets(state, i, P[m], P[m + 1], P[m + 2])


@inline
def forest_mission_done(params, state, seat):
    f = state[FOREST_KEPT + seat]
    if f < 0:
        return False
    P = params[0]
    q = O_FOREST + 5 * f
    families = 0
    meeting = 0
    total = 0
    for h in range(state[HOUSE_COUNT + seat]):
        i = seat * MAXH + h
        if not is_family(state, i):
            continue
        families += 1
        if family_meets(state, i, P[q + 2], P[q + 3], P[q + 4]):
            meeting += 1
        total += state[HOUSE_N + i] if P[q + 3] == 3 else state[HOUSE_COLS + 3 * i + P[q + 3]]
    if P[q] == Q_EVERY:
        return families >= 1 and meeting == families
    if P[q] == Q_COUNT:
        return meeting >= P[q + 1]
    return total >= P[q + 4]


@inline
def family_points(params, state, i):
    if not is_family(state, i):
        return 0
    pts = params[0][O_SIZE + min(state[HOUSE_N + i], 5)]
    if state[HOUSE_LARGE + i] == 2:
        pts += params[0][C_TWO_LARGE]
    return pts


@inline
def seat_score(params, state, seat):
    """Victory points of a seat if the game ended now (the scoring table)."""
    cfg = params[0]
    pts = 0
    for h in range(state[HOUSE_COUNT + seat]):
        pts += family_points(params, state, seat * MAXH + h)
        pts += cfg[C_HOUSE_DONE] if house_mission_done(params, state, seat, h) \
            else cfg[C_HOUSE_FAIL]
    if state[FOREST_KEPT + seat] >= 0:
        pts += cfg[C_FOREST_DONE] if forest_mission_done(params, state, seat) \
            else cfg[C_FOREST_FAIL]
    return pts


# --- setup --------------------------------------------------------------------------------
@kernel
def new_game(params, n_players, state, chance):
    cfg = params[0]
    state[:] = -1
    state[:HEADER] = 0
    state[PAY_POS] = -1
    state[N_PLAYERS] = n_players
    nc = cfg[C_N_CARDS]
    for i in range(nc):
        state[DECK + i] = i
        state[CARD_LOC + i] = LOC_DECK
    state[DECK_N] = nc
    shuffle(chance, state[DECK:DECK + nc], nc)
    for pos in range(cfg[C_POSITIONS]):
        fill_position(state, pos)
    for k in range(3):
        state[GARDEN + k] = cfg[C_GARDEN]
    state[TOKENS:TOKENS + 12] = 0
    state[POS_TOK:POS_TOK + 3 * MAXPOS] = 0
    state[HOUSE_N:HOUSE_COLS + 3 * 4 * MAXH] = 0
    state[HOUSE_COUNT:HOUSE_COUNT + 4] = 0
    state[REDEAL:REDEAL + 4] = 0
    state[CHOSEN_FOREST:CHOSEN_HOUSE + MAXP] = -1
    state[FOREST_AT:FOREST_AT + MAXP] = 0
    state[HOUSE_BACK:HOUSE_BACK + MAXP * (MAXHC + MAXF)] = 0
    deal_missions(params, n_players, state, chance)
    state[PHASE] = PH_SETUP_FOREST
    state[ACTOR] = 0


@kernel
def deal_missions(params, n_players, state, chance):
    cfg = params[0]
    nh = cfg[C_N_HOUSE]
    for i in range(nh):
        state[HSTACK + i] = i
    shuffle(chance, state[HSTACK:HSTACK + nh], nh)
    state[HSTACK_N] = nh
    nf = cfg[C_N_FOREST]
    for i in range(nf):
        state[FPOOL + i] = i
    shuffle(chance, state[FPOOL:FPOOL + nf], nf)
    state[FPOOL_N] = nf
    for s in range(n_players):
        for k in range(cfg[C_FOREST_DEALT]):
            state[FPOOL_N] -= 1
            state[FOREST_HAND + 2 * s + k] = state[FPOOL + state[FPOOL_N]]
            state[FPOOL + state[FPOOL_N]] = -1
        for k in range(cfg[C_HOUSES_DEALT]):
            state[HSTACK_N] -= 1
            state[HOUSE_HAND + 4 * s + k] = state[HSTACK + state[HSTACK_N]]
            state[HSTACK + state[HSTACK_N]] = -1


@kernel
def forest_clashes(params, state, seat, f):
    for k in range(4):
        h = state[HOUSE_HAND + 4 * seat + k]
        if h >= 0 and params[0][O_CLASH + f * MAXHC + h] != 0:
            return True
    return False


@kernel
def may_redeal(params, state, seat):
    """Both dealt Forest cards clash with the seat's dealt Houses (Setup 5)."""
    if params[0][C_REDEAL] == 0:
        return False
    for k in range(2):
        f = state[FOREST_HAND + 2 * seat + k]
        if f < 0 or not forest_clashes(params, state, seat, f):
            return False
    return True


@kernel
def keep_forest(state, seat, k):
    """Keep Forest card k of the hand; the other goes back to the pool (the box)."""
    for j in range(2):
        f = state[FOREST_HAND + 2 * seat + j]
        state[FOREST_HAND + 2 * seat + j] = -1
        if f < 0:
            continue
        if j == k:
            state[FOREST_KEPT + seat] = f
        else:
            state[FPOOL + state[FPOOL_N]] = f
            state[FPOOL_N] += 1
            state[FOREST_BACK + seat * MAXF + f] = state[CLOCK] + 1  # the seat saw it go


@inline
def new_house(params, state, seat, card, items):
    h = state[HOUSE_COUNT + seat]
    state[HOUSE_CARD + seat * MAXH + h] = card
    state[HOUSE_AT + seat * MAXH + h] = state[CLOCK]
    state[HOUSE_COUNT + seat] = h + 1
    items[seat, house_item(params, card) + EV_KEPT] += 1
    return h


@kernel
def keep_houses(params, state, seat, discard, items):
    for k in range(4):
        c = state[HOUSE_HAND + 4 * seat + k]
        state[HOUSE_HAND + 4 * seat + k] = -1
        if c < 0:
            continue
        if k == discard:
            state[HSTACK + state[HSTACK_N]] = c
            state[HSTACK_N] += 1
            state[HOUSE_BACK + seat * MAXHC + c] = state[CLOCK] + 1
            items[seat, I_HOUSE_DISCARDED] += 1
        else:
            new_house(params, state, seat, c, items)


@kernel
def start_redeal(state, chance, seat):
    """The seat's two Forest cards are shuffled with the pool and two new ones drawn (a
    draw: the CLOCK moves on)."""
    for k in range(2):
        f = state[FOREST_HAND + 2 * seat + k]
        if f >= 0:
            state[FPOOL + state[FPOOL_N]] = f
            state[FPOOL_N] += 1
            state[FOREST_BACK + seat * MAXF + f] = state[CLOCK] + 1
    state[CLOCK] += 1
    state[FOREST_AT + seat] = state[CLOCK]
    n = state[FPOOL_N]
    shuffle(chance, state[FPOOL:FPOOL + n], n)
    for k in range(2):
        state[FPOOL_N] -= 1
        state[FOREST_HAND + 2 * seat + k] = state[FPOOL + state[FPOOL_N]]
        state[FPOOL + state[FPOOL_N]] = -1
    state[PHASE] = PH_REDEAL
    state[ACTOR] = seat


@kernel
def reveal_choices(params, state, items):
    """Every seat has chosen in secret: the choices are carried out together, in seat order
    (Setup 5: each keeps a Forest card or waits for the redeal, and keeps its House cards
    or discards one)."""
    for s in range(state[N_PLAYERS]):
        f = state[CHOSEN_FOREST + s]
        if f == CHOSE_REDEAL:
            state[REDEAL + s] = 1
            items[s, I_REDEALT] += 1
        else:
            keep_forest(state, s, f)
            items[s, forest_item(params, state[FOREST_KEPT + s]) + EV_KEPT] += 1
        h = state[CHOSEN_HOUSE + s]
        keep_houses(params, state, s, h if h != CHOSE_KEEP_ALL else -1, items)
        state[CHOSEN_FOREST + s] = -1
        state[CHOSEN_HOUSE + s] = -1


@kernel
def after_setup_seat(params, state, chance, items):
    """Next seat's secret choice; then, all chosen, the reveal and the redeals in seat
    order; then the first round."""
    n = state[N_PLAYERS]
    s = state[ACTOR] + 1  # after a redeal: the next seats that asked for one
    if state[PHASE] == PH_SETUP_HOUSE:
        if s < n:
            state[PHASE] = PH_SETUP_FOREST
            state[ACTOR] = s
            return
        reveal_choices(params, state, items)
        s = 0
    for t in range(s, n):
        if state[REDEAL + t] == 1:
            start_redeal(state, chance, t)
            return
    m = state[HSTACK_N]
    shuffle(chance, state[HSTACK:HSTACK + m], m)
    state[FIRST] = 0
    state[ROUND] = 0
    start_round(params, state, chance, items)


# --- a round: house draw --------------------------------------------------------------------
@inline
def start_round(params, state, chance, items):
    state[STEP] = -1
    next_draw(params, state, chance, items)


@inline
def next_draw(params, state, chance, items):
    """The next seat (from the first player) that may draw House cards, or the dice roll."""
    n = state[N_PLAYERS]
    while True:
        state[STEP] += 1
        if state[STEP] >= n:
            break
        s = (state[FIRST] + state[STEP]) % n
        if state[HOUSE_COUNT + s] < params[0][C_HOUSE_LIMIT] and state[HSTACK_N] > 0:
            state[PHASE] = PH_DRAW
            state[ACTOR] = s
            return
    roll_dice(params, state, chance)


@inline
def take_drawn(params, state, chance, seat, k, items):
    """Keep drawn card k; the other goes back into the House stack, which is shuffled."""
    for j in range(state[DRAWN_N]):
        c = state[DRAWN + j]
        state[DRAWN + j] = -1
        if j == k:
            state[NEW_HOUSE] = new_house(params, state, seat, c, items)
        else:
            state[HSTACK + state[HSTACK_N]] = c
            state[HSTACK_N] += 1
            state[HOUSE_BACK + seat * MAXHC + c] = state[CLOCK] + 1
    state[DRAWN_N] = 0
    m = state[HSTACK_N]
    shuffle(chance, state[HSTACK:HSTACK + m], m)
    if state[WAND + 2 * seat] >= 0:
        state[PHASE] = PH_WANDER_ADD
    else:
        next_draw(params, state, chance, items)


@inline
def draw_houses(params, state, chance, seat, items):
    k = min(params[0][C_DRAW_OFFERED], state[HSTACK_N])
    state[CLOCK] += 1
    for j in range(k):
        state[HSTACK_N] -= 1
        state[DRAWN + j] = state[HSTACK + state[HSTACK_N]]
        state[HSTACK + state[HSTACK_N]] = -1
    state[DRAWN_N] = k
    items[seat, I_HOUSE_DRAWN] += 1
    if k == 1:  # only one card: the player receives it and cannot discard it
        take_drawn(params, state, chance, seat, 0, items)
    else:
        state[PHASE] = PH_KEEP


@inline
def remove_wanderer(state, seat, w):
    state[WAND + 2 * seat + w] = state[WAND + 2 * seat + 1] if w == 0 else -1
    if w == 0:
        state[WAND + 2 * seat + 1] = -1


# --- a round: dice --------------------------------------------------------------------------
@inline
def roll_dice(params, state, chance):
    cfg = params[0]
    for d in range(cfg[C_N_DICE]):
        state[DIE_FACE + d] = (d // cfg[C_PER_COLOUR]) * 6 + rand_below(chance, 6)
        state[DIE_USE + d] = -1
    state[STEP] = 0
    state[PHASE] = PH_PICK
    state[ACTOR] = state[FIRST]
    state[PICKER] = state[FIRST]


@inline
def pick_moves(params, state, moves):
    cfg = params[0]
    seat = state[ACTOR]
    n = 0
    if state[WAND + 2 * seat + 1] >= 0:  # two Wanderers: the exchange, before the pick
        for pos in range(cfg[C_POSITIONS]):
            c = state[POS_CARD + pos]
            if c >= 0 and state[POS_OWNER + pos] < 0 and fitting_houses(params, state, seat,
                                                                         c) > 0:
                moves[n] = EXCHANGE + pos
                n += 1
    return die_moves(cfg, state, seat, moves, n)


@kernel
def reachable_faces(P, state, tb, total, f0):
    """Bitmask of the faces a die showing f0 can be turned into with the seat's tokens, from
    the precomputed table (tables.py: reach[f0][total][kinds the seat can recolour with])."""
    rich = 0
    for k in range(3):
        if state[tb + k] >= P[C_RECOLOUR]:
            rich |= 1 << k
    return P[O_REACH + (f0 * REACH_TOTALS + min(total, REACH_TOTALS - 1)) * 8 + rich]


@inline
def open_mask(P, state, seat, pos):
    """Bitmask of the faces the card at pos accepts from the seat's next die (tables.py:
    accept), 0 when no die of the seat may go there: no card, another seat's marker, or
    both dice placed. Without a branch (the positions' states vary from call to call): the
    table is read at a card that exists, and the tests select the mask or 0."""
    card = state[POS_CARD + pos]
    owner = state[POS_OWNER + pos]
    mask = P[O_ACCEPT + max(card, 0) * 19 + 1 + state[POS_D1 + pos]]
    usable = (pos < P[C_POSITIONS]) & (card >= 0) & ((owner < 0) | (owner == seat)) \
        & (state[POS_D2 + pos] < 0)
    return mask if usable else 0


@intrinsic
def bit_count(typingctx, x):
    """The number of set bits of the integer x (llvm.ctpop: one instruction)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return x(x), codegen


@inline
def card_faces(moves, n, base, m):
    """Write a move ``base + f`` for each face f of mask m, in order; the new count. The
    first three faces are written without a branch (``n`` moves on by the mask's count):
    most masks have no face or one, and a branch on that is mispredicted half the time (a
    fourth such write gained nothing measurable). So up to three entries past the count are
    written over; ``moves`` has room (MAX_MOVES counts a move for every die, card and face:
    1,305 place moves, of which a pick has far fewer)."""
    moves[n] = base + trailing_zeros(m)  # m == 0: a stray value, overwritten
    m2 = m & (m - 1)
    moves[n + 1] = base + trailing_zeros(m2)
    m2 &= m2 - 1
    moves[n + 2] = base + trailing_zeros(m2)
    count = bit_count(m)
    if count > 3:
        k = n + 3
        m2 &= m2 - 1
        while m2 != 0:
            moves[k] = base + trailing_zeros(m2)
            k += 1
            m2 &= m2 - 1
    return n + count


assert MAXPOS == 8, "die_moves reads the eight positions' masks one by one"


@inline
def die_moves(P, state, seat, moves, n):
    """Every die on the table (one per distinct face) as resources, or on every open card as
    every face the seat can afford to turn it into that fits the card: the faces a die can
    reach AND the faces the card accepts (tables.py). This is the game's hot loop: one mask
    per die, one AND per card.

    Its cost was mispredicted branches more than work: the cards' masks are read once, into
    eight registers (MAXPOS is 8; a loop over a tuple of them compiles to an indirect jump
    a card), and ``card_faces`` writes a mask's faces with few branches."""
    tb = TOKENS + 3 * seat
    total = min(state[tb] + state[tb + 1] + state[tb + 2], REACH_TOTALS - 1)
    rich = 0
    for k in range(3):
        if state[tb + k] >= P[C_RECOLOUR]:
            rich |= 1 << k
    reach = O_REACH + total * 8 + rich  # + f0 * REACH_TOTALS * 8: reachable_faces
    a0 = open_mask(P, state, seat, 0)
    a1 = open_mask(P, state, seat, 1)
    a2 = open_mask(P, state, seat, 2)
    a3 = open_mask(P, state, seat, 3)
    a4 = open_mask(P, state, seat, 4)
    a5 = open_mask(P, state, seat, 5)
    a6 = open_mask(P, state, seat, 6)
    a7 = open_mask(P, state, seat, 7)
    seen = 0  # faces of the earlier dice on the table: a face is one choice
    for d in range(P[C_N_DICE]):
        f0 = state[DIE_FACE + d]
        if state[DIE_USE + d] != -1 or (seen >> f0) & 1:
            continue
        seen |= 1 << f0
        moves[n] = RES + d
        n += 1
        faces = P[reach + f0 * (REACH_TOTALS * 8)]
        base = PLACE + d * MAXPOS * N_FACES  # + pos * N_FACES + f
        n = card_faces(moves, n, base, faces & a0)
        n = card_faces(moves, n, base + N_FACES, faces & a1)
        n = card_faces(moves, n, base + 2 * N_FACES, faces & a2)
        n = card_faces(moves, n, base + 3 * N_FACES, faces & a3)
        n = card_faces(moves, n, base + 4 * N_FACES, faces & a4)
        n = card_faces(moves, n, base + 5 * N_FACES, faces & a5)
        n = card_faces(moves, n, base + 6 * N_FACES, faces & a6)
        n = card_faces(moves, n, base + 7 * N_FACES, faces & a7)
    return n


@inline
def take_resources(params, state, seat, d, items):
    f = state[DIE_FACE + d]
    kind = f // 6
    k = min(f % 6 + 1, state[GARDEN + kind])
    state[GARDEN + kind] -= k
    state[TOKENS + 3 * seat + kind] += k
    state[DIE_USE + d] = USE_GARDEN
    items[seat, I_DICE_RES] += 1


@inline
def place_die(params, state, seat, d, pos, f, items):
    """Put die d on the card at pos as face f, paying the modification onto the card."""
    cfg = params[0]
    f0 = state[DIE_FACE + d]
    if f // 6 != f0 // 6:
        pay_tokens(state, seat, f // 6, cfg[C_RECOLOUR], pos)
        items[seat, I_RECOLOUR] += 1
    dp = abs(f % 6 - f0 % 6)
    if dp > 0:  # "2 any resource tokens": which ones is the seat's choice (settle_payment)
        state[PAY_POS] = pos
        state[PAY_LEFT] = cfg[C_PIP] * dp
        state[PAY_MIN] = 0
        items[seat, I_PIPS] += 1
    state[POS_OWNER + pos] = seat
    if state[POS_D1 + pos] < 0:
        state[POS_D1 + pos] = f
    else:
        state[POS_D2 + pos] = f
    state[DIE_USE + d] = pos
    items[seat, I_DICE_RABBIT] += 1


@inline
def next_pick(params, state, chance, items):
    n = state[N_PLAYERS]
    state[STEP] += 1
    if state[STEP] >= n * params[0][C_PICKS]:
        state[PHASE] = PH_LEFTOVER
        state[ACTOR] = state[FIRST]
        return
    state[ACTOR] = (state[FIRST] + state[STEP]) % n
    state[PICKER] = state[ACTOR]


@kernel
def exchange_wanderers(params, state, chance, seat, pos, items):
    """Two Wanderers go to the deck (shuffled); the chosen rabbit waits for a House."""
    card = state[POS_CARD + pos]
    state[POS_CARD + pos] = -1
    for w in range(2):
        card_to_deck(state, state[WAND + 2 * seat + w], chance)
        state[WAND + 2 * seat + w] = -1
    items[seat, I_EXCHANGED] += 1
    items[seat, I_RABBIT + 3 * card + EV_ACQUIRED] += 1
    state[PEND_N] = 1
    state[PEND_I] = 0
    state[PEND_SEAT] = seat
    state[PEND_CARD] = card
    state[CARD_LOC + card] = LOC_PENDING
    state[PLACE_FOR] = 1
    next_placement(params, state, chance, items)


# --- a round: the first player's leftover die ---------------------------------------------
@inline
def leftover_moves(params, state, moves):
    cfg = params[0]
    n = 0
    seen = 0  # faces of the earlier dice on the table: a face is one choice
    for d in range(cfg[C_N_DICE]):
        f = state[DIE_FACE + d]
        if state[DIE_USE + d] != -1 or (seen >> f) & 1:
            continue
        seen |= 1 << f
        moves[n] = LEFT_COLOUR + d
        n += 1
        pos = state[DIE_FACE + d] % 6  # pips 1..6 name positions 1..6
        if (pos < cfg[C_SWAP_POS] and pos < cfg[C_POSITIONS] and state[POS_CARD + pos] >= 0
                and state[POS_OWNER + pos] < 0 and state[DECK_N] > 0):
            moves[n] = LEFT_SWAP + d
            n += 1
    moves[n] = LEFT_PASS
    return n + 1


@inline
def use_leftover(params, state, chance, move, items):
    seat = state[FIRST]
    n = state[N_PLAYERS]
    if move == LEFT_PASS:
        items[seat, I_LEFT_PASS] += 1
        return
    if move < LEFT_SWAP:
        d = move - LEFT_COLOUR
        kind = state[DIE_FACE + d] // 6
        for k in range(n):
            s = (seat + k) % n
            if state[GARDEN + kind] > 0:
                state[GARDEN + kind] -= 1
                state[TOKENS + 3 * s + kind] += 1
        items[seat, I_LEFT_COLOUR] += 1
    else:
        d = move - LEFT_SWAP
        pos = state[DIE_FACE + d] % 6
        old = state[POS_CARD + pos]
        fill_position(state, pos)
        card_to_deck(state, old, chance)
        items[seat, I_LEFT_SWAP] += 1
    state[DIE_USE + d] = USE_LEFTOVER


# --- a round: acquiring and placing rabbits ------------------------------------------------
@inline
def acquire(params, state, chance, items):
    """Completed cards go to their players (in turn order), failed attempts lose everything;
    dice, markers and tokens on cards leave the table."""
    n = state[N_PLAYERS]
    state[PEND_N] = 0
    state[PEND_I] = 0
    for k in range(n):
        s = (state[FIRST] + k) % n
        for pos in range(params[0][C_POSITIONS]):
            if state[POS_OWNER + pos] != s:
                continue
            card = state[POS_CARD + pos]
            if state[POS_D2 + pos] >= 0 or params[0][O_CARDS + 2 * card] == SMALL:
                state[PEND_SEAT + state[PEND_N]] = s
                state[PEND_CARD + state[PEND_N]] = card
                state[PEND_N] += 1
                state[CARD_LOC + card] = LOC_PENDING
                state[POS_CARD + pos] = -1
                items[s, I_RABBIT + 3 * card + EV_ACQUIRED] += 1
            else:
                items[s, I_FAILED] += 1
    for pos in range(params[0][C_POSITIONS]):
        state[POS_OWNER + pos] = -1
        state[POS_D1 + pos] = -1
        state[POS_D2 + pos] = -1
        for k in range(3):
            state[GARDEN + k] += state[POS_TOK + 3 * pos + k]
            state[POS_TOK + 3 * pos + k] = 0
    for d in range(params[0][C_N_DICE]):
        state[DIE_USE + d] = -1
    state[PLACE_FOR] = 0
    next_placement(params, state, chance, items)


@inline
def next_placement(params, state, chance, items):
    """The next acquired rabbit that fits a House waits for its player's choice; one that fits
    none becomes a Wanderer, or goes into the deck when the player has two already."""
    while state[PEND_I] < state[PEND_N]:
        s = state[PEND_SEAT + state[PEND_I]]
        card = state[PEND_CARD + state[PEND_I]]
        if fitting_houses(params, state, s, card) > 0:
            state[PHASE] = PH_PLACE
            state[ACTOR] = s
            return
        w = 0
        while w < params[0][C_WAND_MAX] and state[WAND + 2 * s + w] >= 0:
            w += 1
        if w < params[0][C_WAND_MAX]:
            state[WAND + 2 * s + w] = card
            state[CARD_LOC + card] = LOC_SEAT + 8 * s + LOC_WANDER
            items[s, I_RABBIT + 3 * card + EV_WANDERING] += 1
        else:
            card_to_deck(state, card, chance)
            items[s, I_WAND_DECK] += 1
        state[PEND_I] += 1
    state[PEND_N] = 0
    state[PEND_I] = 0
    if state[PLACE_FOR] == 1:
        state[PLACE_FOR] = 0
        state[PHASE] = PH_PICK
        state[ACTOR] = state[PICKER]
    else:
        end_round(params, state, chance, items)


# --- end of round and of the game ----------------------------------------------------------
@inline
def discard_excess(params, state, seat):
    """Down to the limits: each kind to its cap, then the largest pile first (NOTES.md)."""
    cfg = params[0]
    b = TOKENS + 3 * seat
    for k in range(3):
        extra = state[b + k] - cfg[C_KIND_LIMIT]
        if extra > 0:
            state[b + k] -= extra
            state[GARDEN + k] += extra
    while token_total(state, seat) > cfg[C_TOTAL_LIMIT]:
        k = 0
        if state[b + 1] > state[b + k]:
            k = 1
        if state[b + 2] > state[b + k]:
            k = 2
        state[b + k] -= 1
        state[GARDEN + k] += 1


@inline
def end_round(params, state, chance, items):
    n = state[N_PLAYERS]
    for s in range(n):
        discard_excess(params, state, s)
    for pos in range(params[0][C_POSITIONS]):
        if state[POS_CARD + pos] < 0:
            fill_position(state, pos)
    state[FIRST] = (state[FIRST] + 1) % n
    state[ROUND] += 1
    if state[ROUND] >= params[0][C_ROUNDS]:
        state[OVER] = 1
        state[PHASE] = PH_OVER
        state[ACTOR] = 0
        final_items(params, state, items)
    else:
        start_round(params, state, chance, items)


@kernel
def final_items(params, state, items):
    for s in range(state[N_PLAYERS]):
        for h in range(state[HOUSE_COUNT + s]):
            i = s * MAXH + h
            ev = EV_COMPLETED if house_mission_done(params, state, s, h) else EV_FAILED
            items[s, house_item(params, state[HOUSE_CARD + i]) + ev] += 1
        f = state[FOREST_KEPT + s]
        if f >= 0:
            ev = EV_COMPLETED if forest_mission_done(params, state, s) else EV_FAILED
            items[s, forest_item(params, f) + ev] += 1
    for c in range(params[0][C_N_CARDS]):
        loc = state[CARD_LOC + c] - LOC_SEAT
        if loc >= 0 and loc % 8 < MAXH and is_family(state, (loc // 8) * MAXH + loc % 8):
            items[loc // 8, I_RABBIT + 3 * c + EV_IN_FAMILY] += 1


# --- the protocol ---------------------------------------------------------------------------
@kernel
def to_move(state):
    return state[ACTOR]


@kernel
def legal_moves(params, state, moves):
    ph = state[PHASE]
    seat = state[ACTOR]
    if ph == PH_PICK:
        return pick_moves(params, state, moves)
    if ph == PH_PLACE:
        card = state[PEND_CARD + state[PEND_I]]
        n = 0
        for h in range(state[HOUSE_COUNT + seat]):
            if house_fits(params, state, seat, h, card):
                moves[n] = HOUSE + h
                n += 1
        return n
    if ph == PH_LEFTOVER:
        return leftover_moves(params, state, moves)
    if ph == PH_PAY:
        n = 0
        for k in range(3):
            if may_pay_with(state, seat, k):
                moves[n] = PAY_TOKEN + k
                n += 1
        return n
    if ph == PH_DRAW:
        moves[0] = DRAW_PASS
        moves[1] = DRAW_TAKE
        return 2
    if ph == PH_KEEP:
        for k in range(state[DRAWN_N]):
            moves[k] = KEEP + k
        return state[DRAWN_N]
    if ph == PH_WANDER_ADD:
        n = 0
        for w in range(2):
            c = state[WAND + 2 * seat + w]
            if c >= 0 and house_fits(params, state, seat, state[NEW_HOUSE], c):
                moves[n] = WAND_ADD + w
                n += 1
        moves[n] = WAND_DONE
        return n + 1
    return setup_moves(params, state, moves)


@kernel
def setup_moves(params, state, moves):
    ph = state[PHASE]
    seat = state[ACTOR]
    n = 0
    if ph == PH_SETUP_FOREST:
        for k in range(params[0][C_FOREST_DEALT]):
            moves[n] = F_KEEP + k
            n += 1
        if may_redeal(params, state, seat):
            moves[n] = F_REDEAL
            n += 1
        return n
    if ph == PH_SETUP_HOUSE:
        moves[0] = H_KEEP_ALL
        n = 1
        for k in range(4):
            if state[HOUSE_HAND + 4 * seat + k] >= 0:
                moves[n] = H_DISCARD + k
                n += 1
        return n
    if ph == PH_REDEAL:
        moves[0] = R_KEEP
        moves[1] = R_KEEP + 1
        return 2
    return 0


@kernel
def apply_move(params, state, move, chance, items):
    ph = state[PHASE]
    seat = state[ACTOR]
    if ph == PH_PICK:
        if move >= EXCHANGE:
            exchange_wanderers(params, state, chance, seat, move - EXCHANGE, items)
            return
        if move < PLACE:
            take_resources(params, state, seat, move - RES, items)
        else:
            m = move - PLACE
            f = m % N_FACES
            m //= N_FACES
            place_die(params, state, seat, m // MAXPOS, m % MAXPOS, f, items)
            if not settle_payment(state, seat):
                return
        next_pick(params, state, chance, items)
    elif ph == PH_PAY:
        pay_token(state, seat, move - PAY_TOKEN)
        if settle_payment(state, seat):
            state[PHASE] = PH_PICK
            next_pick(params, state, chance, items)
    elif ph == PH_PLACE:
        add_to_house(params, state, seat, move - HOUSE, state[PEND_CARD + state[PEND_I]])
        state[PEND_I] += 1
        next_placement(params, state, chance, items)
    elif ph == PH_LEFTOVER:
        use_leftover(params, state, chance, move, items)
        acquire(params, state, chance, items)
    elif ph == PH_DRAW:
        if move == DRAW_TAKE:
            draw_houses(params, state, chance, seat, items)
        else:
            next_draw(params, state, chance, items)
    elif ph == PH_KEEP:
        take_drawn(params, state, chance, seat, move - KEEP, items)
    elif ph == PH_WANDER_ADD:
        apply_wander_add(params, state, chance, seat, move, items)
    else:
        apply_setup(params, state, chance, seat, move, items)


@inline
def apply_wander_add(params, state, chance, seat, move, items):
    if move == WAND_DONE or state[WAND + 2 * seat] < 0:
        next_draw(params, state, chance, items)
        return
    w = move - WAND_ADD
    add_to_house(params, state, seat, state[NEW_HOUSE], state[WAND + 2 * seat + w])
    remove_wanderer(state, seat, w)
    items[seat, I_WAND_HOUSED] += 1
    if state[WAND + 2 * seat] < 0:
        next_draw(params, state, chance, items)


@kernel
def apply_setup(params, state, chance, seat, move, items):
    ph = state[PHASE]
    if ph == PH_SETUP_FOREST:  # secret: noted, carried out once every seat has chosen
        state[CHOSEN_FOREST + seat] = move - F_KEEP
        state[PHASE] = PH_SETUP_HOUSE
    elif ph == PH_SETUP_HOUSE:
        state[CHOSEN_HOUSE + seat] = move - H_DISCARD
        after_setup_seat(params, state, chance, items)
    else:  # PH_REDEAL
        keep_forest(state, seat, move - R_KEEP)
        items[seat, forest_item(params, state[FOREST_KEPT + seat]) + EV_KEPT] += 1
        after_setup_seat(params, state, chance, items)


@kernel
def is_over(state):
    return state[OVER] != 0


@kernel
def turn_number(state):
    return state[ROUND]


@kernel
def finish(params, state, scores, ranks):
    """Most VP wins; a tie goes to the most Resource tokens; a full tie shares the rank."""
    n = state[N_PLAYERS]
    for s in range(n):
        scores[s] = seat_score(params, state, s)
    for s in range(n):
        r = 1
        for t in range(n):
            if rank_key(state, scores, t) > rank_key(state, scores, s):
                r += 1
        ranks[s] = r
    return 1


@inline
def rank_key(state, scores, s):
    """finish's order: victory points, then Resource tokens."""
    return int(scores[s]) * 1000 + token_total(state, s)


# --- the standing (the optional progress and phase kernels) --------------------------------
# progress: victory points now, plus a share of what each Family and mission still short of
# rabbits would add, by how many rabbits it is short and how much of the game is left
# (NOTES.md, Progress measure). The share falls to 0 with the rounds left, so at the end
# the value is finish's order exactly.

TOKEN_TIE_BREAK = 0.001
"""A Resource token's share in the value: finish's tie-break (its key is VP x 1000 + tokens)."""
PARTIAL_CREDIT = 0.4
"""A Family or House mission k rabbits short, with a share s of the rounds left, counts
0.4 ** (k / s) of the points it would add: 0.4 ** k at the start, less as the rounds run out
(of 0, 0.2, 0.4 and 0.5 the best at naming the winner, NOTES.md; the heuristic completes
House missions a rabbit or two short more often than that, but a larger credit names the
winner less well)."""
FOREST_CREDIT = 0.98
"""The same for the Forest mission (5 points): a seat plays all game for it, and completes
it far more often than a House mission as many rabbits short (of 0.9, 0.95, 0.98 and 1,
0.98 is the best at two of the four figures of NOTES.md and within 1.4 points at the
others)."""
FAR = 1 << 20
"""More rabbits short than any game has picks: the mark of no candidate found."""


@inline
def family_short(n, large):
    """Rabbits still to add for a House of n rabbits (large of them Large) to be a Family."""
    if large >= 1:
        return max(0, 2 - n)
    return 2 if n == 0 else 1  # a Large rabbit is still to come


@inline
def condition_short(state, i, kind, a, b):
    """Rabbits still to add for House i's rabbits to be a Family meeting the condition
    (kind, a, b): 0 when they are, -1 when they never can be (rabbits never leave a
    House; the colour table is not consulted)."""
    c = HOUSE_COLS + 3 * i
    return rabbits_short(state[HOUSE_N + i], state[HOUSE_LARGE + i], state[c], state[c + 1],
                         state[c + 2], kind, a, b)


@inline
def rabbits_short(n, large, white, brown, spotted, kind, a, b):
    """``condition_short`` for a House of n rabbits (large of them Large; white, brown and
    spotted of each colour): also for a House still to come (all 0)."""
    fam = family_short(n, large)
    if kind == P_HAS:
        return max(fam, b - (white if a == 0 else brown if a == 1 else spotted))
    if kind == P_ONLY:
        return fam if (white if a == 0 else brown if a == 1 else spotted) == n else -1
    if kind == P_NONE:
        return fam if (white if a == 0 else brown if a == 1 else spotted) == 0 else -1
    if kind == P_RAINBOW:
        if n > 3 or white > 1 or brown > 1 or spotted > 1 or (n == 3 and large == 0):
            return -1
        return max(fam, 3 - n)
    if kind == P_SIZE:
        return max(fam, a - n)
    if kind == P_LARGE:
        return max(fam, a - large)
    if kind == P_SMALL:
        return max(fam, max(0, a - (n - large)) + (1 if large == 0 else 0))
    colours = (white > 0) + (brown > 0) + (spotted > 0)  # P_MONO
    return fam if colours <= 1 else -1


@inline
def partial(points, short, picks, share, credit):
    """What a Family or mission ``short`` rabbits short is worth now, of the ``points`` it
    would add: ``credit ** (short / share)``, ``share`` the share of the rounds left;
    nothing when it cannot be done or more rabbits are short than there are picks left."""
    if short <= 0 or short > picks:
        return 0.0
    return points * credit ** (short / share)


@inline
def forest_short(params, state, seat):
    """Rabbits still to add for the seat's Forest mission (-1: it never can be met; each
    House still to draw counts 3: a Family of a House not yet drawn)."""
    return forest_card_short(params, state, seat, state[FOREST_KEPT + seat])


@inline
def forest_card_short(params, state, seat, f):
    """``forest_short`` for Forest card f (one the seat has chosen in secret but not yet
    been given, too)."""
    P = params[0]
    q = O_FOREST + 5 * f
    quant, k, kind, a, b = P[q], P[q + 1], P[q + 2], P[q + 3], P[q + 4]
    houses = state[HOUSE_COUNT + seat]
    to_draw = P[C_HOUSE_LIMIT] - houses
    if quant == Q_TOTAL:  # rabbits (of colour a, 3: any) in Families, at least b
        in_fam, in_all = 0, 0
        for h in range(houses):
            i = seat * MAXH + h
            have = state[HOUSE_N + i] if a == 3 else state[HOUSE_COLS + 3 * i + a]
            in_all += have
            if is_family(state, i):
                in_fam += have
        if in_fam >= b:
            return 0
        return max(b - in_all, 1)  # enough rabbits, some not yet in a Family: one more
    if quant == Q_EVERY:  # at least one Family, and every Family meets it
        families, short_sum, best_other = 0, 0, FAR
        for h in range(houses):
            i = seat * MAXH + h
            short = condition_short(state, i, kind, a, b)
            if is_family(state, i):
                if short < 0:
                    return -1
                families += 1
                short_sum += short
            elif short >= 0:
                best_other = min(best_other, short)
        if families > 0:
            return short_sum
        if best_other < FAR:
            return best_other
        return 3 if to_draw > 0 else -1
    used, total = 0, 0  # Q_COUNT: the k Houses nearest to meeting it, by repeated minimum
    for _ in range(k):
        best, best_h = FAR, -1
        for h in range(houses):
            if (used >> h) & 1 == 0:
                short = condition_short(state, seat * MAXH + h, kind, a, b)
                if 0 <= short < best:
                    best, best_h = short, h
        if best_h >= 0:
            used |= 1 << best_h
        elif to_draw > 0:
            to_draw -= 1
            best = 3
        else:
            return -1
        total += best
    return total


@kernel
def progress(params, state, out):
    """``out`` (float64[n_players]): victory points now + 0.001 x tokens (finish's order at
    the end), + for each House not yet a Family and each mission not yet completed, the
    points it would add x credit ** (rabbits short / share of the rounds left), credit 0.4
    (the Forest mission: 0.98), while the picks left can bring the rabbits short."""
    P = params[0]
    left = P[C_ROUNDS] - state[ROUND]  # this round's rabbits are still to come
    picks = left * P[C_PICKS]
    share = left / P[C_ROUNDS]
    for s in range(state[N_PLAYERS]):
        v = seat_score(params, state, s) + TOKEN_TIE_BREAK * token_total(state, s)
        for h in range(state[HOUSE_COUNT + s]):
            i = s * MAXH + h
            n, large = state[HOUSE_N + i], state[HOUSE_LARGE + i]
            short = family_short(n, large)
            v += partial(P[O_SIZE + min(n + short, 5)], short, picks, share, PARTIAL_CREDIT)
            m = O_HOUSE + 3 * state[HOUSE_CARD + i]
            short = condition_short(state, i, P[m], P[m + 1], P[m + 2])
            v += partial(P[C_HOUSE_DONE] - P[C_HOUSE_FAIL], short, picks, share,
                         PARTIAL_CREDIT)
        if state[FOREST_KEPT + s] >= 0:
            v += partial(P[C_FOREST_DONE] - P[C_FOREST_FAIL], forest_short(params, state, s),
                         picks, share, FOREST_CREDIT)
        out[s] = v


PHASES = ("setup", "houses", "draft", "leftover", "place")
"""What ``phase`` numbers: the secret setup choices and the redeal; drawing and keeping
House cards at a round's start; the dice draft (a pick, the Wanderers' exchange, paying a
pip change); the leftover die; putting rabbits into Houses (an acquired rabbit, Wanderers
into a newly drawn House)."""
PHASE_SETUP, PHASE_HOUSES, PHASE_DRAFT, PHASE_LEFTOVER, PHASE_PLACE = range(5)
N_PHASES = len(PHASES)


@kernel
def phase(params, state):
    """The kind of the decision about to be made, an index into ``PHASES``."""
    ph = state[PHASE]
    if ph == PH_PICK or ph == PH_PAY:
        return PHASE_DRAFT
    if ph == PH_PLACE or ph == PH_WANDER_ADD:
        return PHASE_PLACE
    if ph == PH_LEFTOVER:
        return PHASE_LEFTOVER
    if ph == PH_DRAW or ph == PH_KEEP:
        return PHASE_HOUSES
    return PHASE_SETUP  # PH_SETUP_FOREST, PH_SETUP_HOUSE, PH_REDEAL (PH_OVER: none)


# --- what a seat looks at (the optional features kernel, issue 29) -------------------------
# A learnt player of ``seat`` reads this vector, from its observation alone (NOTES.md,
# Features). Every seat's valley and its work on the table this round are public, so each
# seat gets the same block: the seat's own first, then the others in play order. Missions
# are the seat's own: the others' lie face down unless ``missions.face_up``, and their
# points and progress count them only where the observation shows them. Written for speed
# (a learnt player calls it once a legal move): one pass over a seat's Houses gives its
# points, its progress and its missions' shortfalls together, by the rules' own helpers
# (tests/games/dolina_krolikow/test_features.py holds them equal to ``seat_score`` and
# ``progress``).

SEAT_FEATURES = (
    "points_now", "progress", "family_points", "families", "houses", "houses_waiting",
    "rabbits", "large_rabbits", "tokens", "wanderers", "rabbits_secured", "large_started",
    "picks_left_this_round", "cards_in_reach", "large_at_risk", "large_finishing_dice",
    "secured_gain", "started_gain")
"""Written for each seat: ``own_<name>``, then ``next_``, ``second_`` and ``third_``."""
SEATS = ("own", "next", "second", "third")
OWN_FEATURES = (
    "own_white_rabbits", "own_brown_rabbits", "own_spotted_rabbits", "own_carrots",
    "own_cabbages", "own_cornflowers", "own_forest_done", "own_forest_rabbits_short",
    "own_forest_lost", "own_house_missions_done", "own_house_missions_open",
    "own_house_missions_one_short", "own_house_rabbits_short")
TURN_FEATURES = ("rounds_fraction", "rounds_fraction_of_cap", "own_to_move",
                 "own_pick_order") + tuple(f"phase_{name}" for name in PHASES)
FEATURES = (tuple(f"{who}_{name}" for who in SEATS for name in SEAT_FEATURES)
            + OWN_FEATURES + TURN_FEATURES)
N_SEAT = len(SEAT_FEATURES)
(F_POINTS, F_PROGRESS, F_FAMILY_POINTS, F_FAMILIES, F_HOUSES, F_WAITING, F_RABBITS, F_LARGE,
 F_TOKENS, F_WANDERERS, F_SECURED, F_LARGE_STARTED, F_PICKS_LEFT, F_IN_REACH, F_AT_RISK,
 F_FINISHERS, F_SECURED_GAIN, F_STARTED_GAIN) = range(N_SEAT)
F_OWN = MAXP * N_SEAT
(F_WHITE, F_BROWN, F_SPOTTED, F_CARROTS, F_CABBAGES, F_CORNFLOWERS, F_FOREST_DONE,
 F_FOREST_SHORT, F_FOREST_LOST, F_HOUSE_DONE, F_HOUSE_OPEN, F_HOUSE_ONE_SHORT,
 F_HOUSE_SHORT) = range(F_OWN, F_OWN + len(OWN_FEATURES))
F_TURN = F_OWN + len(OWN_FEATURES)
F_ROUNDS, F_ROUNDS_CAP, F_TO_MOVE, F_PICK_ORDER = range(F_TURN, F_TURN + 4)
F_PHASE = F_TURN + 4  # + the index ``phase`` gives
assert F_PHASE + len(PHASES) == len(FEATURES)
# every phase before the dice are rolled numbers below PH_PICK (picks_left)
assert max(PH_SETUP_FOREST, PH_SETUP_HOUSE, PH_REDEAL, PH_DRAW, PH_KEEP, PH_WANDER_ADD) \
    < PH_PICK < min(PH_LEFTOVER, PH_PLACE, PH_OVER, PH_PAY)


@inline
def drafting(obs):
    """The dice are out and picks are being made (a pick, its payment, or the rabbit an
    exchange of Wanderers brought before the pick)."""
    ph = obs[PHASE]
    return ph == PH_PICK or ph == PH_PAY or (ph == PH_PLACE and obs[PLACE_FOR] == 1)


@inline
def picks_left(P, obs, s):
    """The dice seat s still picks this round: every one before the roll (setup and the
    House draws included), none once the draft is over."""
    if not drafting(obs):
        return P[C_PICKS] if obs[PHASE] < PH_PICK else 0
    n = obs[N_PLAYERS]
    start = obs[STEP] + (1 if obs[PHASE] == PH_PAY else 0)  # a pick being paid for is made
    j = (s - obs[FIRST]) % n  # s picks at steps j, j + n, ...
    left = 0
    for k in range(P[C_PICKS]):
        if j + k * n >= start:
            left += 1
    return left


@inline
def house_worth(P, n, lg, white, brown, spotted, m, picks, base):
    """A House's part of ``progress`` from its counts (n rabbits, lg Large, by colour): its
    Family's points and their partial credit, and, where its card is seen (``m`` its row
    in the parameters, -1 face down), its mission's points, done or failed, and credit."""
    v = 0.0
    if n >= 2 and 1 <= lg <= 2:
        v += P[O_SIZE + min(n, 5)] + (P[C_TWO_LARGE] if lg == 2 else 0)
    short = family_short(n, lg)
    v += partial_at(P[O_SIZE + min(n + short, 5)], short, picks, base)
    if m >= 0:
        short = rabbits_short(n, lg, white, brown, spotted, P[m], P[m + 1], P[m + 2])
        v += P[C_HOUSE_DONE] if short == 0 else P[C_HOUSE_FAIL]
        v += partial_at(P[C_HOUSE_DONE] - P[C_HOUSE_FAIL], short, picks, base)
    return v


@inline
def rabbit_gain(params, obs, s, card, picks, base):
    """What rabbit ``card`` adds to seat s's progress in the House it fits best (0: it fits
    none, a Wanderer), its missions counted where the observer sees them (``house_fits``
    on what the observer sees: another seat's Houses are on the table, their cards face
    down)."""
    P = params[0]
    size = P[O_CARDS + 2 * card]
    colour = P[O_CARDS + 2 * card + 1]
    best = 0.0
    found = False
    for h in range(obs[HOUSE_COUNT + s]):
        i = s * MAXH + h
        n, lg = obs[HOUSE_N + i], obs[HOUSE_LARGE + i]
        if size == LARGE and lg >= 2:
            continue
        if P[C_ADV_TABLE] != 0 and n >= 2 and \
                (P[O_TABLE + obs[HOUSE_C1 + i] * 3 + obs[HOUSE_C2 + i]] >> colour) & 1 == 0:
            continue
        c = HOUSE_COLS + 3 * i
        w, br, sp = obs[c], obs[c + 1], obs[c + 2]
        m = O_HOUSE + 3 * obs[HOUSE_CARD + i] if obs[HOUSE_CARD + i] >= 0 else -1
        gain = house_worth(P, n + 1, lg + size, w + (colour == 0), br + (colour == 1),
                           sp + (colour == 2), m, picks, base) \
            - house_worth(P, n, lg, w, br, sp, m, picks, base)
        if not found or gain > best:
            best, found = gain, True
    return best


@inline
def table_work(params, obs, s, left, base, out, b):
    """Seat s this round: the rabbits it has secured (its dice complete the card, or the
    rabbit waits for one of its Houses), its Large cards with one die of two, its picks to
    come, and, while it has one, the cards a die on the table could go on for it (to start
    or complete the card) with its tokens; of its Large cards started, those it can no
    longer complete (no pick left, or no die left that its tokens make fit: lost at the
    round's end) and the dice left that could complete one (one die: a rival can take it);
    and what the rabbits secured and started would add to its progress (``rabbit_gain``,
    with ``left`` picks in the game and the credit ``base`` of ``valley``)."""
    P = params[0]
    secured, started, in_reach, at_risk, finishers = 0, 0, 0, 0, 0
    secured_gain, started_gain = 0.0, 0.0
    wanted = 0  # the faces that complete one of its Large cards started
    for pos in range(P[C_POSITIONS]):
        card = obs[POS_CARD + pos]
        if card < 0 or obs[POS_OWNER + pos] != s:
            continue
        if obs[POS_D2 + pos] >= 0 or P[O_CARDS + 2 * card] == SMALL:
            secured += 1
            secured_gain += rabbit_gain(params, obs, s, card, left, base)
        else:
            started += 1
            started_gain += rabbit_gain(params, obs, s, card, left, base)
            wanted |= open_mask(P, obs, s, pos)
    for j in range(obs[PEND_I], obs[PEND_N]):
        if obs[PEND_SEAT + j] == s:
            secured += 1
            secured_gain += rabbit_gain(params, obs, s, obs[PEND_CARD + j], left, base)
    picks = picks_left(P, obs, s)
    if picks > 0 and drafting(obs):
        tb = TOKENS + 3 * s
        rich = 0  # the seat's row of the reach table, read once (as die_moves does)
        for k in range(3):
            if obs[tb + k] >= P[C_RECOLOUR]:
                rich |= 1 << k
        total = min(obs[tb] + obs[tb + 1] + obs[tb + 2], REACH_TOTALS - 1)
        reach = O_REACH + total * 8 + rich
        faces = 0  # the faces some die on the table can be made into: a card in reach
        for d in range(P[C_N_DICE]):  # accepts one of them
            if obs[DIE_USE + d] == -1:
                can = P[reach + obs[DIE_FACE + d] * (REACH_TOTALS * 8)]
                faces |= can
                finishers += can & wanted != 0
        at_risk = started  # less those a die left can complete
        for pos in range(MAXPOS):
            if open_mask(P, obs, s, pos) & faces != 0:
                in_reach += 1  # a card of its own in reach is one it has started
                at_risk -= obs[POS_OWNER + pos] == s and \
                    P[O_CARDS + 2 * obs[POS_CARD + pos]] != SMALL
    else:
        at_risk = started  # no pick left this round: each is lost at its end
    out[b + F_SECURED] = secured
    out[b + F_LARGE_STARTED] = started
    out[b + F_PICKS_LEFT] = picks
    out[b + F_IN_REACH] = in_reach
    out[b + F_AT_RISK] = at_risk
    out[b + F_FINISHERS] = finishers
    out[b + F_SECURED_GAIN] = secured_gain
    out[b + F_STARTED_GAIN] = started_gain


@inline
def partial_at(points, short, picks, base):
    """``partial`` with ``base`` = credit ** (1 / share of the rounds left)."""
    if short <= 0 or short > picks:
        return 0.0
    return points * base ** short


@inline
def valley(params, obs, s, picks, house_base, forest_base, out, b, own):
    """Seat s's Houses, tokens and Wanderers, and its points and progress as the observer
    sees them, in one pass: what ``seat_score`` and ``progress`` add up, each mission
    counted only where its card is seen (a mission is done when it is 0 rabbits short).
    ``own``: also the rabbits by colour and the House missions' shortfalls."""
    P = params[0]
    fam_points, points, credit = 0, 0, 0.0
    families, waiting, rabbits, large = 0, 0, 0, 0
    white, brown, spotted = 0, 0, 0
    done, open_, one, short_sum = 0, 0, 0, 0
    for h in range(obs[HOUSE_COUNT + s]):
        i = s * MAXH + h
        n, lg = obs[HOUSE_N + i], obs[HOUSE_LARGE + i]
        rabbits += n
        large += lg
        white += obs[HOUSE_COLS + 3 * i]
        brown += obs[HOUSE_COLS + 3 * i + 1]
        spotted += obs[HOUSE_COLS + 3 * i + 2]
        families += is_family(obs, i)
        waiting += n > 0 and not is_family(obs, i)
        fam_points += family_points(params, obs, i)
        short = family_short(n, lg)
        credit += partial_at(P[O_SIZE + min(n + short, 5)], short, picks, house_base)
        card = obs[HOUSE_CARD + i]
        if card < 0:  # face down
            continue
        m = O_HOUSE + 3 * card
        short = condition_short(obs, i, P[m], P[m + 1], P[m + 2])
        points += P[C_HOUSE_DONE] if short == 0 else P[C_HOUSE_FAIL]
        credit += partial_at(P[C_HOUSE_DONE] - P[C_HOUSE_FAIL], short, picks, house_base)
        done += short == 0
        if 0 < short <= picks:
            open_ += 1
            one += short == 1
            short_sum += short
    if obs[FOREST_KEPT + s] >= 0:
        short = forest_short(params, obs, s)
        points += P[C_FOREST_DONE] if short == 0 else P[C_FOREST_FAIL]
        credit += partial_at(P[C_FOREST_DONE] - P[C_FOREST_FAIL], short, picks, forest_base)
    points += fam_points
    tokens = token_total(obs, s)
    out[b + F_POINTS] = points
    out[b + F_PROGRESS] = points + TOKEN_TIE_BREAK * tokens + credit
    out[b + F_FAMILY_POINTS] = fam_points
    out[b + F_FAMILIES] = families
    out[b + F_HOUSES] = obs[HOUSE_COUNT + s]
    out[b + F_WAITING] = waiting
    out[b + F_RABBITS] = rabbits
    out[b + F_LARGE] = large
    out[b + F_TOKENS] = tokens
    out[b + F_WANDERERS] = (obs[WAND + 2 * s] >= 0) + (obs[WAND + 2 * s + 1] >= 0)
    if own:
        out[F_WHITE] = white
        out[F_BROWN] = brown
        out[F_SPOTTED] = spotted
        out[F_HOUSE_DONE] = done
        out[F_HOUSE_OPEN] = open_
        out[F_HOUSE_ONE_SHORT] = one
        out[F_HOUSE_SHORT] = short_sum


@inline
def missions_in_hand(params, obs, seat, picks, out):
    """The seat's Forest mission (the card it keeps, or at setup the one it has chosen in
    secret and not yet been given: done, rabbits short while it can be done in the picks
    left, or lost), and at setup the House cards it holds and has not chosen to discard, as
    Houses to come: open missions, their rabbits short added to those of ``valley``."""
    P = params[0]
    f = obs[FOREST_KEPT + seat]
    chosen = obs[CHOSEN_FOREST + seat]
    if f < 0 and 0 <= chosen < CHOSE_REDEAL:
        f = obs[FOREST_HAND + 2 * seat + chosen]
    done, short_left, lost = 0, 0, 0
    if f >= 0:
        short = forest_card_short(params, obs, seat, f)
        if short == 0:
            done = 1
        elif 0 < short <= picks:
            short_left = short
        else:
            lost = 1
    out[F_FOREST_DONE] = done
    out[F_FOREST_SHORT] = short_left
    out[F_FOREST_LOST] = lost
    discard = obs[CHOSEN_HOUSE + seat]
    for k in range(4):
        card = obs[HOUSE_HAND + 4 * seat + k]
        if card < 0 or k == discard:
            continue
        out[F_HOUSES] += 1  # a House to come (the own block is the first)
        m = O_HOUSE + 3 * card
        short = rabbits_short(0, 0, 0, 0, 0, P[m], P[m + 1], P[m + 2])
        if 0 < short <= picks:
            out[F_HOUSE_OPEN] += 1
            out[F_HOUSE_ONE_SHORT] += 1 if short == 1 else 0
            out[F_HOUSE_SHORT] += short


@kernel
def features(params, obs, seat, out):
    """``out`` (float64[len(FEATURES)]): what a good player of ``seat`` looks at, read from
    its observation ``obs`` (NOTES.md, Features): a block of SEAT_FEATURES for each seat
    from it in play order (0 for seats absent at fewer players), OWN_FEATURES, then
    TURN_FEATURES."""
    P = params[0]
    n = obs[N_PLAYERS]
    left = P[C_ROUNDS] - obs[ROUND]  # as progress: this round's rabbits are still to come
    picks = left * P[C_PICKS]
    # progress's credit ** (short / share of the rounds left), as (credit ** (1 / share))
    # ** short: one real power a call, not one a House (the terms count 0 without picks)
    house_base = PARTIAL_CREDIT ** (P[C_ROUNDS] / left) if left > 0 else 0.0
    forest_base = FOREST_CREDIT ** (P[C_ROUNDS] / left) if left > 0 else 0.0
    for k in range(MAXP):
        b = k * N_SEAT
        if k >= n:
            for j in range(N_SEAT):
                out[b + j] = 0.0
            continue
        s = (seat + k) % n
        valley(params, obs, s, picks, house_base, forest_base, out, b, k == 0)
        table_work(params, obs, s, picks, house_base, out, b)
    tb = TOKENS + 3 * seat
    out[F_CARROTS] = obs[tb]
    out[F_CABBAGES] = obs[tb + 1]
    out[F_CORNFLOWERS] = obs[tb + 2]
    missions_in_hand(params, obs, seat, picks, out)
    over = obs[OVER] != 0
    out[F_ROUNDS] = obs[ROUND] / P[C_ROUNDS]
    out[F_ROUNDS_CAP] = obs[ROUND] / P[C_MAX_TURNS]
    out[F_TO_MOVE] = not over and obs[ACTOR] == seat
    out[F_PICK_ORDER] = (seat - obs[FIRST]) % n
    for k in range(N_PHASES):
        out[F_PHASE + k] = 0.0
    if not over:
        out[F_PHASE + phase(params, obs)] = 1.0


@kernel
def observe(params, state, seat, obs):
    """Hidden: the order of every stack, other seats' mission cards (kept face down, see
    NOTES.md), their secret setup hands and choices, the House cards another seat has
    drawn, and what another seat saw go back into a stack (HOUSE_BACK, FOREST_BACK)."""
    copy_into(obs, state)
    for i in range(MAXC):
        if obs[DECK + i] >= 0:
            obs[DECK + i] = -2
    for i in range(MAXHC):
        if obs[HSTACK + i] >= 0:
            obs[HSTACK + i] = -2
    for i in range(12):
        if obs[FPOOL + i] >= 0:
            obs[FPOOL + i] = -2
    # face-up missions are shown once every seat has made its secret choice
    reveal = params[0][C_FACE_UP] != 0 and state[PHASE] >= PH_DRAW
    for s in range(state[N_PLAYERS]):
        if s != seat:
            hide_seat(obs, s, reveal)
    if state[PHASE] == PH_KEEP and state[ACTOR] != seat:
        obs[DRAWN] = -2
        obs[DRAWN + 1] = -2


@kernel
def hide_seat(obs, s, face_up):
    for k in range(2):
        if obs[FOREST_HAND + 2 * s + k] >= 0:
            obs[FOREST_HAND + 2 * s + k] = -2
    for k in range(4):
        if obs[HOUSE_HAND + 4 * s + k] >= 0:
            obs[HOUSE_HAND + 4 * s + k] = -2
    if obs[CHOSEN_FOREST + s] >= 0:  # made (the seat to move is public), but not what
        obs[CHOSEN_FOREST + s] = -2
    if obs[CHOSEN_HOUSE + s] >= 0:
        obs[CHOSEN_HOUSE + s] = -2
    obs[HOUSE_BACK + s * MAXHC:HOUSE_BACK + (s + 1) * MAXHC] = -2  # what s saw go back
    obs[FOREST_BACK + s * MAXF:FOREST_BACK + (s + 1) * MAXF] = -2
    if face_up:  # kept missions lie face up once chosen
        return
    if obs[FOREST_KEPT + s] >= 0:
        obs[FOREST_KEPT + s] = -2
    for h in range(MAXH):
        if obs[HOUSE_CARD + s * MAXH + h] >= 0:
            obs[HOUSE_CARD + s * MAXH + h] = -2


# --- determinisation (for the search strategies) --------------------------------------------
# A place that holds a mission card the seat cannot see has a time (state.py): a stack
# NEVER, any other place when it was filled. scratch (int32[STATE_SIZE]): the hidden places
# of one kind of mission card at SC_PLACE, their times at SC_TIME, a flag per card at SC_SEEN
# (1 seen, 2 dealt), the cards left to deal at SC_POOL; the rabbit deck uses it from 0.
NEVER = 1 << 30
SC_PLACE, SC_TIME, SC_SEEN, SC_POOL = 0, 64, 128, 160


@kernel
def determinize(params, obs, seat, state, stream, scratch):
    """A full state drawn from those ``seat``'s observation ``obs`` allows (NOTES.md,
    Determinisation): the rabbit deck (its cards are public) in a random order; the House
    and Forest cards the seat cannot see dealt to the places it cannot see, each card the
    seat saw go back into a stack to that stack or to a place filled since, the others
    anywhere, uniformly among such deals; the other seats remember nothing; a secret setup
    choice another seat has made is drawn among those its dealt cards allow."""
    cfg = params[0]
    copy_into(state, obs)
    deal_rabbit_deck(cfg, obs, state, stream, scratch)
    for s in range(obs[N_PLAYERS]):
        if s != seat:
            state[HOUSE_BACK + s * MAXHC:HOUSE_BACK + (s + 1) * MAXHC] = 0
            state[FOREST_BACK + s * MAXF:FOREST_BACK + (s + 1) * MAXF] = 0
    n = house_places(obs, scratch, cfg[C_N_HOUSE])
    deal_hidden(state, stream, scratch, n, cfg[C_N_HOUSE], HOUSE_BACK + seat * MAXHC)
    n = forest_places(obs, scratch, cfg[C_N_FOREST])
    deal_hidden(state, stream, scratch, n, cfg[C_N_FOREST], FOREST_BACK + seat * MAXF)
    for s in range(obs[N_PLAYERS]):
        if obs[CHOSEN_FOREST + s] == HIDDEN:
            draw_choices(params, state, stream, s)


@kernel
def draw_choices(params, state, stream, s):
    """Seat s's secret setup choice, once its cards are dealt: each choice its cards allow
    as likely as another (the others' choices are not read; NOTES.md). Nothing shows it
    before the reveal, so the choice tells nothing of the cards and the cards are dealt as
    if it were not made."""
    keeps = params[0][C_FOREST_DEALT]
    f = rand_below(stream, keeps + (1 if may_redeal(params, state, s) else 0))
    state[CHOSEN_FOREST + s] = f if f < keeps else CHOSE_REDEAL
    if state[CHOSEN_HOUSE + s] == HIDDEN:  # made once its Forest choice is
        held = 0
        for k in range(4):
            if state[HOUSE_HAND + 4 * s + k] >= 0:
                held += 1
        r = rand_below(stream, held + 1)  # one of the cards held, or none
        state[CHOSEN_HOUSE + s] = CHOSE_KEEP_ALL
        for k in range(4):
            if state[HOUSE_HAND + 4 * s + k] >= 0:
                if r == 0:
                    state[CHOSEN_HOUSE + s] = k
                    break
                r -= 1


@kernel
def deal_rabbit_deck(cfg, obs, state, stream, scratch):
    """The rabbit cards located in the deck (CARD_LOC is public), in a random order."""
    m = 0
    for c in range(cfg[C_N_CARDS]):
        if obs[CARD_LOC + c] == LOC_DECK:
            scratch[m] = c
            m += 1
    shuffle(stream, scratch, m)
    for i in range(m):
        state[DECK + i] = scratch[i]


@inline
def add_place(scratch, n, i, t):
    scratch[SC_PLACE + n] = i
    scratch[SC_TIME + n] = t
    return n + 1


@kernel
def house_places(obs, scratch, n_cards):
    """The House places the observer cannot see, with their times; flags the cards it
    sees."""
    for c in range(n_cards):
        scratch[SC_SEEN + c] = 0
    n = 0
    for i in range(MAXHC):
        if obs[HSTACK + i] == HIDDEN:
            n = add_place(scratch, n, HSTACK + i, NEVER)
    for j in range(2):
        if obs[DRAWN + j] == HIDDEN:
            n = add_place(scratch, n, DRAWN + j, obs[CLOCK])
        elif obs[DRAWN + j] >= 0:
            scratch[SC_SEEN + obs[DRAWN + j]] = 1
    for s in range(obs[N_PLAYERS]):
        for k in range(4):
            i = HOUSE_HAND + 4 * s + k
            if obs[i] == HIDDEN:
                n = add_place(scratch, n, i, 0)
            elif obs[i] >= 0:
                scratch[SC_SEEN + obs[i]] = 1
        for h in range(MAXH):
            i = HOUSE_CARD + s * MAXH + h
            if obs[i] == HIDDEN:
                n = add_place(scratch, n, i, obs[HOUSE_AT + s * MAXH + h])
            elif obs[i] >= 0:
                scratch[SC_SEEN + obs[i]] = 1
    return n


@kernel
def forest_places(obs, scratch, n_cards):
    """The Forest places the observer cannot see, with their times; flags the cards it
    sees."""
    for c in range(n_cards):
        scratch[SC_SEEN + c] = 0
    n = 0
    for i in range(MAXF):
        if obs[FPOOL + i] == HIDDEN:
            n = add_place(scratch, n, FPOOL + i, NEVER)
    for s in range(obs[N_PLAYERS]):
        for k in range(3):  # the two dealt, then the one kept
            i = FOREST_HAND + 2 * s + k if k < 2 else FOREST_KEPT + s
            if obs[i] == HIDDEN:
                n = add_place(scratch, n, i, obs[FOREST_AT + s])
            elif obs[i] >= 0:
                scratch[SC_SEEN + obs[i]] = 1
    return n


@kernel
def deal_hidden(state, stream, scratch, n_places, n_cards, back):
    """Deal the cards not flagged seen to the ``n_places`` hidden places (still HIDDEN in
    ``state``). The cards the seat saw go back (``state[back + c]``: 1 + when) come first,
    the latest first: each to a free place filled after it went back, chosen at random;
    those places are nested (a later card's are among an earlier one's), so choosing in
    this order gives every allowed deal the same chance. The rest are shuffled into the
    places left."""
    while True:
        c = -1
        for d in range(n_cards):
            if scratch[SC_SEEN + d] == 0 and state[back + d] > 0 and (
                    c < 0 or state[back + d] > state[back + c]):
                c = d
        if c < 0:
            break
        gone = state[back + c] - 1
        free = 0
        for j in range(n_places):
            if scratch[SC_TIME + j] > gone and state[scratch[SC_PLACE + j]] == HIDDEN:
                free += 1
        r = rand_below(stream, free)
        for j in range(n_places):
            if scratch[SC_TIME + j] > gone and state[scratch[SC_PLACE + j]] == HIDDEN:
                if r == 0:
                    state[scratch[SC_PLACE + j]] = c
                    break
                r -= 1
        scratch[SC_SEEN + c] = 2
    m = 0
    for d in range(n_cards):
        if scratch[SC_SEEN + d] == 0:
            scratch[SC_POOL + m] = d
            m += 1
    shuffle(stream, scratch[SC_POOL:], m)
    m = 0
    for j in range(n_places):
        if state[scratch[SC_PLACE + j]] == HIDDEN:
            state[scratch[SC_PLACE + j]] = scratch[SC_POOL + m]
            m += 1
