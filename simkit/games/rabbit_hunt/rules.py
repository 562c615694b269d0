"""Rabbit Hunt's kernels: setup, legal moves, applying a move, the end and the winner.

Layout, move encoding and parameters are in ``state.py``. ``p[0]`` is
the flat int32 parameter array ``p`` described there. Protocol kernels unpack it once and
hand ``p`` to the helpers (see simkit/jit.py on why).
"""

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from simkit.game import HIDDEN
from simkit.games.rabbit_hunt.deal import copy_seen, deal_unseen, public_memory
from simkit.games.rabbit_hunt.memory import (
    AS_SEEN,
    cell_tags_at,
    face_up_at,
    group_at,
    placer_at,
    remember_bunny_back,
    remember_draw,
    remember_elimination,
    remember_fill,
    remember_hand_shown,
    remember_peek,
    remember_place,
    remember_return,
    remember_shown_to_all,
    seen_at,
    setup_memory,
    split,
    tag_of,
)
from simkit.games.rabbit_hunt.state import (
    ACTIONS_LEFT,
    ALL_SHOW,
    AUX_CELL,
    AUX_COUNT,
    BUNNY,
    CARROT_1,
    CARROT_2,
    CARROTS,
    CAUGHT,
    CELLS,
    DRAW_1,
    DRAW_2,
    ELIMINATED,
    END,
    FARMER,
    G_BUNNY_CAP,
    G_KNOWN,
    G_LOCS,
    G_OWNER,
    G_UNKNOWN,
    GROUP_W,
    GROUPS,
    HAND,
    IN_HAND,
    IT_BUNNY_CAUGHT,
    IT_BUNNY_LOST,
    IT_BUNNY_PLACED,
    IT_DRAWN,
    IT_PLACED,
    IT_TRIGGERED,
    KINDS,
    KNOWN_TAG,
    LAST_STANDING,
    LOOKER,
    LOST,
    M_CARROT,
    M_DONE,
    M_DRAW,
    M_LOOK,
    M_MOVE,
    M_MOVE_ANY,
    M_PEEK,
    M_PLACE,
    M_RETURN,
    M_STEP,
    M_SWAP,
    M_TO_HOME,
    MOVE_ANY,
    N_CELL_FIELDS,
    N_FARMLAND,
    N_GROUPS,
    N_KINDS,
    N_PLAYERS,
    NEIGH,
    NO_CARD,
    P_ACTIONS,
    P_BUNNIES,
    P_CARROT_CAP,
    P_CARROTS_START,
    P_CARROTS_TOTAL,
    P_CELLS,
    P_CENTER,
    P_COST_1,
    P_COST_23,
    P_COST_ANY,
    P_COST_LOOK,
    P_DECK,
    P_DECK_AT,
    P_HAND_SIZE,
    P_MAX_TURNS,
    P_MOVE_ANY_REVEALS,
    P_PARTNERS_CATCH,
    P_REMOVED,
    P_WINDOW_AT,
    PEEK,
    PH_ACTION,
    PH_EXTRA_PLACE,
    PH_MOVE_ANY,
    PH_PEEK,
    PH_PLACE,
    PH_RETURN,
    PH_STEP,
    PH_SWAP,
    PH_TO_WAREHOUSE,
    PHASE,
    PILE,
    PILE_EMPTY,
    PILE_LEN,
    PILE_TAGS,
    PLACE_CARD,
    REMOVED,
    RUNNING,
    SHOW,
    SHOW_OR_LOSE,
    STEP_1,
    SUPPLY,
    TAG_BITS,
    TO_MOVE,
    TO_WAREHOUSE,
    TURN_ENDS,
    TURN_SEAT,
    TURNS,
    WAREHOUSE,
    WINDOW,
    WINDOW_CELLS,
    WINDOW_MIDDLE,
    WINDOW_REACH,
)
from simkit.jit import copy_into, inline, kernel
from simkit.rng import shuffle

ALL_SEATS = 15


# ---------------------------------------------------------------- sizes and small helpers
@kernel
def state_size(params, n_players):
    p = params[0]
    return CELLS + N_CELL_FIELDS * p[P_CELLS]


@kernel
def max_moves(params, n_players):
    p = params[0]
    return N_KINDS * p[P_CELLS] + 64


@inline
def encode(kind, arg):
    return (kind << 16) | arg


@inline
def next_to_at(p, c):
    return CELLS + 4 * p[P_CELLS] + c


@kernel
def occupy(p, state, c, card):
    """A card lands on the empty cell ``c``: its neighbours now touch one more card."""
    state[CELLS + c] = card
    for d in range(6):
        nb = p[NEIGH + c * 6 + d]
        if nb >= 0:
            state[next_to_at(p, nb)] += 1


@inline
def hand_total(state, seat):
    t = 0
    for k in range(N_KINDS):
        t += state[HAND + seat * N_KINDS + k]
    return t


@inline
def partners(state, a, b):
    """Seats a and b are partners (4 players: seats 1+3 and 2+4)."""
    return state[N_PLAYERS] == 4 and a != b and a % 2 == b % 2


@inline
def hand_add(state, seat, kind, n):
    state[HAND + seat * N_KINDS + kind] += n
    state[IN_HAND + seat] += n


@inline
def placeable(p, state, c):
    """A card may go on an empty cell touching at least two cards (the warehouse counts)."""
    return state[CELLS + c] == NO_CARD and state[next_to_at(p, c)] >= 2


@inline
def placeable_now(p, state, c):
    """``placeable`` with both tests made (``&``, not ``and``), for a loop without branches."""
    return (state[CELLS + c] == NO_CARD) & (state[next_to_at(p, c)] >= 2)


@kernel
def any_placeable(p, state):
    found = False
    for c in range(p[P_CELLS]):  # (every cell, without branches: a loop LLVM vectorizes)
        found |= placeable_now(p, state, c)
    return found


@kernel
def distances(p, state, src, dist, max_depth):
    """Steps from ``src`` to every card over adjacent cards (breadth first), searched to
    ``max_depth`` steps; -1 where not reached."""
    n = p[P_CELLS]
    dist[:] = -1
    queue = np.empty(n, np.int32)
    dist[src] = 0
    queue[0] = src
    head, tail = 0, 1
    while head < tail:
        c = queue[head]
        head += 1
        if dist[c] >= max_depth:
            continue
        for d in range(6):
            nb = p[NEIGH + c * 6 + d]
            if nb >= 0 and dist[nb] < 0 and state[CELLS + nb] != NO_CARD:
                dist[nb] = dist[c] + 1
                queue[tail] = nb
                tail += 1


# window bit sets (state.py: the window round a cell): the bits not in the window's first
# (last) column, which a step to a lower (higher) column leaves behind, and the whole window
WINDOW_ALL = (1 << WINDOW_CELLS) - 1
NOT_FIRST = sum(1 << (a * WINDOW + b) for a in range(WINDOW) for b in range(1, WINDOW))
NOT_LAST = sum(1 << (a * WINDOW + b) for a in range(WINDOW) for b in range(WINDOW - 1))


@inline
def spread(x):
    """The window cells one step from any cell of the window set ``x``: the six hex steps
    (+-1, 0), (0, +-1), (+1, -1), (-1, +1) as shifts of the bit set."""
    return ((x << WINDOW) | (x >> WINDOW) | ((x & NOT_LAST) << 1) | ((x & NOT_FIRST) >> 1)
            | ((x & NOT_FIRST) << (WINDOW - 1)) | ((x & NOT_LAST) >> (WINDOW - 1))) & WINDOW_ALL


@inline
def window_reach(p, state, here):
    """The cards 1 step from ``here`` and those 1 to 3 steps away over cards, as window bit
    sets round ``here``: what ``distances(..., 3)`` finds, without allocating."""
    base = p[P_WINDOW_AT] + here * WINDOW_CELLS
    cards = np.int64(0)
    for i in range(WINDOW_CELLS):
        c = p[base + i]
        if c >= 0 and state[CELLS + c] != NO_CARD:
            cards |= np.int64(1) << i
    start = np.int64(1) << WINDOW_MIDDLE
    one = spread(start) & cards
    two = one | (spread(one) & cards)
    three = two | (spread(two) & cards)
    return one, three & ~start


@kernel
def move_price(p, state, here, target):
    """Carrots to move from ``here`` to the card on ``target``, as ``move_cost`` of the
    steps between them."""
    one, three = window_reach(p, state, here)
    base = p[P_WINDOW_AT] + here * WINDOW_CELLS
    d = -1
    for i in range(WINDOW_CELLS):
        if p[base + i] == target:
            if (one >> i) & 1 == 1:
                d = 1
            elif (three >> i) & 1 == 1:
                d = 2
    return move_cost(p, d)


@inline
def move_cost(p, d):
    """Carrots to move ``d`` steps (-1: more than 3): 1 step, 2-3 steps, or anywhere (the
    cheapest option that reaches)."""
    s = p
    cost = s[P_COST_ANY]
    if 1 <= d <= 3:
        cost = min(cost, s[P_COST_23])
    if d == 1:
        cost = min(cost, s[P_COST_1])
    return cost


# ---------------------------------------------------------------- cards, carrots, pile
@kernel
def draw(p, state, seat, items):
    """Draw the top card; the game ends the moment the pile is used up."""
    if state[PILE_LEN] == 0:
        return
    state[PILE_LEN] -= 1
    kind = state[PILE + state[PILE_LEN]]
    state[PILE + state[PILE_LEN]] = NO_CARD
    hand_add(state, seat, kind, 1)
    remember_draw(p, state, seat, state[PILE_LEN], kind)
    items[seat, kind * 3 + IT_DRAWN] += 1
    if state[PILE_LEN] == 0:
        state[END] = PILE_EMPTY


@kernel
def put_bottom(state, kind):
    """Put a card at the bottom of the draw pile (its memory tags move with the pile)."""
    n = state[PILE_LEN]
    for i in range(n, 0, -1):
        state[PILE + i] = state[PILE + i - 1]
        state[PILE_TAGS + i] = state[PILE_TAGS + i - 1]
    state[PILE] = kind
    state[PILE_TAGS] = 0
    state[PILE_LEN] = n + 1


@kernel
def gain_carrots(p, state, seat, n):
    """Take up to ``n`` carrots; beyond the cap (or an empty supply) they are ignored."""
    room = p[P_CARROT_CAP] - state[CARROTS + seat]
    g = min(n, room, state[SUPPLY])
    if g > 0:
        state[CARROTS + seat] += g
        state[SUPPLY] -= g


@kernel
def lose_carrots(state, seat):
    state[SUPPLY] += state[CARROTS + seat]
    state[CARROTS + seat] = 0


@kernel
def put_card(p, state, seat, kind, c, items):
    """``seat`` lays a card of ``kind`` from its hand face down on cell ``c``."""
    hand_add(state, seat, kind, -1)
    card = kind if kind < BUNNY else BUNNY + seat
    if state[CELLS + c] == NO_CARD:
        occupy(p, state, c, card)
    state[CELLS + c] = card
    state[face_up_at(p, c)] = 0
    state[seen_at(p, c)] = 1 << seat
    state[placer_at(p, c)] = seat
    remember_place(p, state, seat, c)
    if kind == BUNNY:
        items[seat, IT_BUNNY_PLACED] += 1
    else:
        items[seat, kind * 3 + IT_PLACED] += 1


@kernel
def fill_from_pile(p, state, c):
    """A caught bunny's place is filled from the pile, face down, unseen (but by whoever put
    that card under the pile)."""
    state[PILE_LEN] -= 1
    card = state[PILE + state[PILE_LEN]]
    if state[CELLS + c] == NO_CARD:
        occupy(p, state, c, card)
    state[CELLS + c] = card
    state[PILE + state[PILE_LEN]] = NO_CARD
    state[face_up_at(p, c)] = 0
    state[seen_at(p, c)] = remember_fill(p, state, c, state[PILE_LEN])
    state[placer_at(p, c)] = -1


# ---------------------------------------------------------------- setup
@kernel
def new_game(params, n_players, state, chance):
    p = params[0]
    s = p
    n_cells, center = s[P_CELLS], s[P_CENTER]
    state[:] = 0
    state[N_PLAYERS] = n_players
    state[CELLS:CELLS + n_cells] = NO_CARD
    state[CELLS + 3 * n_cells:CELLS + 4 * n_cells] = -1
    occupy(p, state, center, WAREHOUSE)
    state[face_up_at(p, center)] = 1
    state[seen_at(p, center)] = ALL_SEATS
    n = 0
    for kind in range(N_FARMLAND):
        for _ in range(p[p[P_DECK_AT] + kind]):
            state[PILE + n] = kind
            n += 1
    state[PILE + n:PILE + 75] = NO_CARD
    shuffle(chance, state[PILE:PILE + n], n)
    removed = s[P_REMOVED]
    state[PILE + n - removed:PILE + n] = NO_CARD  # put away, unseen, for the whole game
    state[PILE_LEN] = n - removed
    state[REMOVED] = removed
    for d in range(6):
        fill_from_pile(p, state, p[NEIGH + center * 6 + d])
    deal(p, n_players, state)
    start_turn(p, state, 0)


@kernel
def deal(p, n_players, state):
    s = p
    scratch = np.zeros((4, 45), np.int32)  # the deal is not counted as drawing
    state[SUPPLY] = s[P_CARROTS_TOTAL]
    for seat in range(4):
        state[FARMER + seat] = s[P_CENTER] if seat < n_players else -1
        state[ELIMINATED + seat] = 0 if seat < n_players else 1
    setup_memory(state, n_players, s[P_BUNNIES])
    for seat in range(n_players):
        state[CARROTS + seat] = s[P_CARROTS_START]
        state[SUPPLY] -= s[P_CARROTS_START]
        hand_add(state, seat, BUNNY, s[P_BUNNIES])
        for _ in range(s[P_HAND_SIZE]):
            draw(p, state, seat, scratch)


# ---------------------------------------------------------------- turns
@kernel
def start_turn(p, state, seat):
    """Place a card first, unless the hand is empty (or no cell can take it)."""
    state[TURN_SEAT] = seat
    state[TO_MOVE] = seat
    state[ACTIONS_LEFT] = p[P_ACTIONS]
    if hand_total(state, seat) > 0 and any_placeable(p, state):
        state[PHASE] = PH_PLACE
    else:
        state[PHASE] = PH_ACTION


@kernel
def end_turn(p, state):
    n = state[N_PLAYERS]
    state[TURNS] += 1
    seat = state[TURN_SEAT]
    for _ in range(n):
        seat = (seat + 1) % n
        if state[ELIMINATED + seat] == 0:
            break
    start_turn(p, state, seat)


@kernel
def resume(p, state):
    """Back to the turn's actions after a decision; end the turn when none are left."""
    state[PHASE] = PH_ACTION
    state[TO_MOVE] = state[TURN_SEAT]
    if state[END] == RUNNING and state[ACTIONS_LEFT] <= 0:
        end_turn(p, state)


# ---------------------------------------------------------------- legal moves
@kernel
def placement_moves(p, state, seat, moves):
    """Every (card kind in hand, cell) placement. The cells are found once, then crossed
    with the kinds."""
    n_cells = p[P_CELLS]
    f = 0
    for c in range(n_cells):
        moves[f] = c  # (kept only if placeable: no branch to miss)
        f += 1 if placeable_now(p, state, c) else 0
    kinds = 0
    for k in range(N_KINDS):
        if state[HAND + seat * N_KINDS + k] > 0:
            kinds += 1
    slot = kinds
    for k in range(N_KINDS - 1, -1, -1):
        if state[HAND + seat * N_KINDS + k] > 0:
            slot -= 1
            for j in range(f):  # slot 0 comes last: it rewrites moves[j] after reading it
                moves[slot * f + j] = encode(M_PLACE, k * 256 + moves[j])
    return kinds * f


@kernel
def action_moves(p, state, seat, moves):
    s = p
    moves[0] = encode(M_DRAW, 0)
    moves[1] = encode(M_CARROT, 0)
    n = 2
    carrots = state[CARROTS + seat]
    here = state[FARMER + seat]
    # move_cost(1) <= move_cost(2 or 3) <= move_cost(farther): the carrots decide how far
    if carrots >= s[P_COST_ANY]:  # every card
        for c in range(s[P_CELLS]):
            moves[n] = encode(M_MOVE, c)  # (kept only if it is a card: no branch to miss)
            n += 1 if state[CELLS + c] != NO_CARD and c != here else 0
    elif carrots >= move_cost(p, 1):
        one, three = window_reach(p, state, here)
        reach = three if carrots >= move_cost(p, 2) else one
        base = p[P_WINDOW_AT] + here * WINDOW_CELLS
        while reach != 0:  # the window's bits in rising order are its cells in rising order
            moves[n] = encode(M_MOVE, p[base + trailing_zeros(reach)])
            n += 1
            reach &= reach - 1
    if carrots >= s[P_COST_LOOK]:
        for other in range(state[N_PLAYERS]):
            if other != seat and state[ELIMINATED + other] == 0:
                moves[n] = encode(M_LOOK, other)
                n += 1
    return n


@kernel
def legal_moves(params, state, moves):
    p = params[0]
    seat = state[TO_MOVE]
    phase = state[PHASE]
    n_cells = p[P_CELLS]
    n = 0
    if phase == PH_PLACE or phase == PH_EXTRA_PLACE:
        return placement_moves(p, state, seat, moves)
    if phase == PH_ACTION:
        return action_moves(p, state, seat, moves)
    if phase == PH_SWAP or phase == PH_RETURN:
        last = N_KINDS if phase == PH_SWAP else N_FARMLAND
        kind = M_SWAP if phase == PH_SWAP else M_RETURN
        for k in range(last):
            if state[HAND + seat * N_KINDS + k] > 0:
                moves[n] = encode(kind, k)
                n += 1
        if phase == PH_RETURN:
            moves[n] = encode(M_DONE, 0)
            n += 1
        return n
    if phase == PH_STEP:
        here = state[FARMER + seat]
        for d in range(6):
            nb = p[NEIGH + here * 6 + d]
            if nb >= 0 and state[CELLS + nb] != NO_CARD:
                moves[n] = encode(M_STEP, nb)
                n += 1
        return n
    if phase == PH_MOVE_ANY:
        for who in range(state[N_PLAYERS]):
            if state[ELIMINATED + who] == 0:
                for c in range(n_cells):
                    card = state[CELLS + c]
                    if card != NO_CARD and card != WAREHOUSE and c != state[FARMER + who]:
                        moves[n] = encode(M_MOVE_ANY, who * 256 + c)
                        n += 1
        return n
    if phase == PH_TO_WAREHOUSE:
        for who in range(state[N_PLAYERS]):
            if state[ELIMINATED + who] == 0:
                moves[n] = encode(M_TO_HOME, who)
                n += 1
        return n
    # PH_PEEK
    for c in range(n_cells):
        if face_down(p, state, c):
            moves[n] = encode(M_PEEK, c)
            n += 1
    return n


@inline
def face_down(p, state, c):
    card = state[CELLS + c]
    return card != NO_CARD and card != WAREHOUSE and state[face_up_at(p, c)] == 0


# ---------------------------------------------------------------- revealing and events
@kernel
def reveal(p, state, seat, c, chance, items):
    """The farmer of ``seat`` arrives on cell ``c`` and turns its card up."""
    if not face_down(p, state, c):
        return  # the warehouse, or a card already turned up: nothing happens
    card = state[CELLS + c]
    if card >= BUNNY:
        reveal_bunny(p, state, seat, c, card - BUNNY, chance, items)
        return
    state[face_up_at(p, c)] = 1
    state[seen_at(p, c)] = ALL_SEATS
    remember_shown_to_all(p, state, c, card)
    items[seat, card * 3 + IT_TRIGGERED] += 1
    trigger(p, state, seat, card, items)


@kernel
def reveal_bunny(p, state, seat, c, owner, chance, items):
    catchable = owner != seat and not (partners(state, seat, owner)
                                       and p[P_PARTNERS_CATCH] == 0)
    state[seen_at(p, c)] = ALL_SEATS  # shown to everyone
    remember_shown_to_all(p, state, c, BUNNY)
    if catchable:
        catch(p, state, seat, c, owner, chance, items)
    elif owner == seat and hand_total(state, seat) > 0:
        state[PHASE] = PH_SWAP  # the bunny goes back to the hand, a card takes its place
        state[AUX_CELL] = c
    # otherwise it is put back face down where it was


@kernel
def catch(p, state, seat, c, owner, chance, items):
    state[CAUGHT + seat] += 1
    state[LOST + owner] += 1
    items[seat, IT_BUNNY_CAUGHT] += 1
    items[owner, IT_BUNNY_LOST] += 1
    fill_from_pile(p, state, c)
    used_up = state[PILE_LEN] == 0
    if state[LOST + owner] >= p[P_BUNNIES]:
        eliminate(p, state, owner, chance)  # may end the game as last standing first
    if state[END] == RUNNING and used_up:
        state[END] = PILE_EMPTY


@kernel
def eliminate(p, state, seat, chance):
    """All three bunnies caught: the player is out, their cards shuffled into the pile."""
    state[ELIMINATED + seat] = 1
    state[FARMER + seat] = -1
    dumped = state[IN_HAND + seat]
    for k in range(N_FARMLAND):
        for _ in range(state[HAND + seat * N_KINDS + k]):
            state[PILE + state[PILE_LEN]] = k
            state[PILE_LEN] += 1
        state[HAND + seat * N_KINDS + k] = 0
    state[IN_HAND + seat] = 0
    remember_elimination(p, state, seat, dumped)
    shuffle(chance, state[PILE:PILE + state[PILE_LEN]], state[PILE_LEN])
    if units_left(state) <= 1:
        state[END] = LAST_STANDING


@kernel
def units_left(state):
    """Players (or, with 4, teams) still in the game."""
    n = state[N_PLAYERS]
    alive = 0
    for u in range(2 if n == 4 else n):
        for seat in range(n):
            if (seat % 2 == u if n == 4 else seat == u) and state[ELIMINATED + seat] == 0:
                alive += 1
                break
    return alive


@kernel
def show_hand(p, state, seat, lose_if_bunnies):
    remember_hand_shown(p, state, seat, ALL_SEATS)
    if lose_if_bunnies and state[HAND + seat * N_KINDS + BUNNY] > 0:
        lose_carrots(state, seat)


@kernel
def trigger(p, state, seat, kind, items):
    """The event of a farmland card just turned up by ``seat``."""
    if kind == CARROT_1 or kind == CARROT_2:
        gain_carrots(p, state, seat, 1 if kind == CARROT_1 else 2)
    elif kind == DRAW_1 or kind == DRAW_2:
        draw(p, state, seat, items)
        if kind == DRAW_2 and state[END] == RUNNING:
            draw(p, state, seat, items)
    elif kind == STEP_1:
        state[PHASE] = PH_STEP
    elif kind == MOVE_ANY:
        state[PHASE] = PH_MOVE_ANY
    elif kind == TO_WAREHOUSE:
        state[PHASE] = PH_TO_WAREHOUSE
    elif kind == PEEK:
        for c in range(p[P_CELLS]):
            if face_down(p, state, c):
                state[PHASE] = PH_PEEK
                break
    elif kind == PLACE_CARD:
        if hand_total(state, seat) > 0 and any_placeable(p, state):
            state[PHASE] = PH_EXTRA_PLACE
    elif kind == SHOW or kind == SHOW_OR_LOSE:
        show_hand(p, state, seat, kind == SHOW_OR_LOSE)
    elif kind == ALL_SHOW:
        for other in range(state[N_PLAYERS]):
            if state[ELIMINATED + other] == 0:
                show_hand(p, state, other, True)
    elif kind == TURN_ENDS:
        state[ACTIONS_LEFT] = 0


# ---------------------------------------------------------------- applying a move
@kernel
def arrive(p, state, seat, c, chance, items):
    """Put the farmer of ``seat`` on ``c``, reveal, and carry on unless a decision waits."""
    state[FARMER + seat] = c
    state[PHASE] = PH_ACTION
    reveal(p, state, seat, c, chance, items)
    if state[PHASE] == PH_ACTION:
        resume(p, state)


@kernel
def apply_move(params, state, move, chance, items):
    p = params[0]
    kind = move >> 16
    arg = move & 0xFFFF
    seat = state[TO_MOVE]
    if kind == M_PLACE:
        put_card(p, state, seat, arg >> 8, arg & 255, items)
        if state[PHASE] == PH_PLACE:
            state[PHASE] = PH_ACTION
        else:
            resume(p, state)
    elif kind == M_DRAW or kind == M_CARROT or kind == M_MOVE or kind == M_LOOK:
        state[ACTIONS_LEFT] -= 1
        apply_action(p, state, seat, kind, arg, chance, items)
    elif kind == M_SWAP:
        c = state[AUX_CELL]
        hand_add(state, seat, BUNNY, 1)
        remember_bunny_back(state, seat)
        put_card(p, state, seat, arg, c, items)
        resume(p, state)
    elif kind == M_RETURN:
        hand_add(state, seat, arg, -1)
        put_bottom(state, arg)
        remember_return(p, state, seat)
        state[AUX_COUNT] += 1
    elif kind == M_DONE:
        for _ in range(state[AUX_COUNT]):
            draw(p, state, seat, items)
        resume(p, state)
    elif kind == M_STEP:
        arrive(p, state, seat, arg, chance, items)
    elif kind == M_MOVE_ANY:
        who = arg >> 8
        if who == seat and p[P_MOVE_ANY_REVEALS] != 0:
            arrive(p, state, seat, arg & 255, chance, items)
        else:
            state[FARMER + who] = arg & 255
            resume(p, state)
    elif kind == M_TO_HOME:
        state[FARMER + arg] = p[P_CENTER]
        resume(p, state)
    elif kind == M_PEEK:
        state[seen_at(p, arg)] |= 1 << seat
        card = state[CELLS + arg]
        remember_peek(p, state, seat, arg, card if card < BUNNY else BUNNY)
        resume(p, state)


@kernel
def apply_action(p, state, seat, kind, arg, chance, items):
    if kind == M_DRAW:
        draw(p, state, seat, items)
        resume(p, state)
    elif kind == M_CARROT:
        gain_carrots(p, state, seat, 1)
        resume(p, state)
    elif kind == M_MOVE:
        cost = move_price(p, state, state[FARMER + seat], arg)
        state[CARROTS + seat] -= cost
        state[SUPPLY] += cost
        arrive(p, state, seat, arg, chance, items)
    else:  # M_LOOK: the looked-at player may now put cards back and redraw as many
        state[CARROTS + seat] -= p[P_COST_LOOK]
        state[SUPPLY] += p[P_COST_LOOK]
        split(p, state, seat, arg, AS_SEEN)  # the looker now knows the hand
        state[PHASE] = PH_RETURN
        state[TO_MOVE] = arg
        state[LOOKER] = seat
        state[AUX_COUNT] = 0


# ---------------------------------------------------------------- the end
@inline
def to_move(state):
    return state[TO_MOVE]


@inline
def is_over(state):
    return state[END] != RUNNING


@inline
def turn_number(state):
    return state[TURNS]


@kernel
def unit_keys(p, state, keys, eligible):
    """Winner determination a-e as one number per player (or team): higher is better.
    a: no own bunny left in hand; b: most bunnies caught; c: fewest own bunnies caught;
    d: own bunny closest to the warehouse (steps over cards)."""
    n = state[N_PLAYERS]
    n_units = 2 if n == 4 else n
    dist = np.empty(p[P_CELLS], np.int32)
    distances(p, state, p[P_CENTER], dist, p[P_CELLS])
    for u in range(n_units):
        in_hand, caught, lost, closest, alive = 0, 0, 0, 99, False
        for seat in range(n):
            if (seat % 2 == u) if n == 4 else (seat == u):
                in_hand += state[HAND + seat * N_KINDS + BUNNY]
                caught += state[CAUGHT + seat]
                lost += state[LOST + seat]
                alive = alive or state[ELIMINATED + seat] == 0
                for c in range(p[P_CELLS]):
                    if state[CELLS + c] == BUNNY + seat and 0 <= dist[c] < closest:
                        closest = dist[c]
        ok = alive and (in_hand == 0 or state[END] == LAST_STANDING)
        eligible[u] = ok
        keys[u] = -1 if not alive else (
            int(ok) * 10**7 + caught * 10**5 + (99 - lost) * 100 + (99 - closest))


@kernel
def finish(params, state, scores, ranks):
    p = params[0]
    n = state[N_PLAYERS]
    n_units = 2 if n == 4 else n
    keys = np.zeros(n_units, np.int64)
    eligible = np.zeros(n_units, np.bool_)
    unit_keys(p, state, keys, eligible)
    anyone = eligible.any()
    for seat in range(n):
        u = seat % 2 if n == 4 else seat
        better = 0
        for v in range(n_units):
            if keys[v] > keys[u]:
                better += 1
        # with no eligible winner nobody wins: all share the last place
        ranks[seat] = 1 + better if anyone else n
        scores[seat] = state[CAUGHT + seat]
    return state[END]


@kernel
def observe(params, state, seat, obs):
    """What ``seat`` knows (NOTES.md: Hidden information): face-down cards it has not seen,
    the pile but for cards it put back, and others' hands but those it knows exactly are
    HIDDEN; of the memory it keeps its own groups and its own tags (others' read HIDDEN and
    0). Its groups say what it still knows of the hidden cards (``memory.py``)."""
    p = params[0]
    n_cells = p[P_CELLS]
    mine = group_at(seat, 0)
    rows = N_GROUPS * GROUP_W
    copy_into(obs[:GROUPS], state[:GROUPS])
    obs[GROUPS:mine] = HIDDEN
    copy_into(obs[mine:mine + rows], state[mine:mine + rows])
    obs[mine + rows:CELLS] = HIDDEN
    copy_into(obs[CELLS:], state[CELLS:])
    me = 1 << seat
    shift = TAG_BITS * seat
    for c in range(n_cells):
        if state[CELLS + c] == NO_CARD:
            continue  # (an empty cell has no tags)
        if face_down(p, state, c) and (state[seen_at(p, c)] & me) == 0:
            obs[CELLS + c] = HIDDEN
        word = state[cell_tags_at(p, c)]
        if word != 0:
            obs[cell_tags_at(p, c)] = tag_of(word, seat) << shift
    for other in range(state[N_PLAYERS]):
        r = group_at(seat, other)
        if other != seat and (state[r + G_LOCS] != 0 or state[r + G_UNKNOWN] != 0):
            obs[HAND + other * N_KINDS:HAND + (other + 1) * N_KINDS] = HIDDEN
    obs[PILE:PILE + 75] = HIDDEN
    for i in range(state[PILE_LEN]):  # (no pile card beyond the pile is tagged)
        word = state[PILE_TAGS + i]
        if word != 0:
            tag = tag_of(word, seat)
            obs[PILE_TAGS + i] = tag << shift
            if tag == KNOWN_TAG:
                obs[PILE + i] = state[PILE + i]


@kernel
def determinize(params, obs, seat, state, stream, scratch):
    """A full state drawn at random (from ``stream``) among those ``seat`` cannot tell from
    its observation ``obs`` (NOTES.md: Determinisation): what it sees is kept; the other
    hands' cards it does not know, the face-down cards it has not seen and the pile's order
    are dealt again, each memory group getting its known cards back; the other seats'
    memory is what the table showed them. ``scratch``: int32[state_size]; nothing is
    allocated."""
    p = params[0]
    n_fd = copy_seen(p, obs, seat, state, scratch)
    deal_unseen(p, state, seat, n_fd, stream, scratch)
    public_memory(p, state, seat, n_fd, scratch)


# ---------------------------------------------------------------- how each seat is doing
# progress (the optional kernel; NOTES.md, Progress measure): each player's (with 4, each
# team's) standing in bunnies, on the order of winner determination a-d: rule a's bonus,
# scaled by the chance of meeting it, then the bunnies caught, the own bunnies lost and the
# nearest own bunny as tie-breaks, and the catches the carrots in hand may still buy.

RING = 6
"""The farmland cards laid round the warehouse at the setup (``new_game``'s six)."""


@inline
def pile_start(p, n):
    """The pile's length once the game is laid out (the ring round the warehouse and the
    hands dealt): what the pile's share left is a share of."""
    return p[P_DECK] - p[P_REMOVED] - RING - n * p[P_HAND_SIZE]

HAND_BUNNY_EXPONENT = 0.2
"""Before the end, a player holding ``k`` of its bunnies meets rule a with chance
``x ** (HAND_BUNNY_EXPONENT * k)``, ``x`` the share of the pile left: each bunny must be
laid before the pile runs out. Of 0.2, 0.4 and 0.8, 0.2 told the winner best in random play
at 2 and 4 players (NOTES.md)."""

LOST_TIE = 0.1
"""Rule c, one own bunny caught: a tenth of a bunny, so the most a side can lose (nine)
stays below one bunny caught (rule b)."""

STEPS_TIE = 0.01
"""Rule d: the nearest own bunny on the farmland adds up to this, less with every step from
the warehouse: below one own bunny lost (rule c)."""

NO_BUNNY_STEPS = 99
"""Rule d's distance of a side with no bunny on the farmland ("farthest"), as ``finish``."""

OUT = -1.0
"""A side whose players are all out holds this: below every side still in, whose least is
the lost-bunny tie-break (-0.9)."""


@inline
def with_bit(w0, w1, w2, w3, i):
    """The 256-cell set (four words; a board of radius 8 has 217 cells) with cell ``i``."""
    b = np.int64(1) << (i & 63)
    if i < 64:
        return w0 | b, w1, w2, w3
    if i < 128:
        return w0, w1 | b, w2, w3
    if i < 192:
        return w0, w1, w2 | b, w3
    return w0, w1, w2, w3 | b


@inline
def has_bit(w0, w1, w2, w3, i):
    w = w0 if i < 64 else (w1 if i < 128 else (w2 if i < 192 else w3))
    return (w >> (i & 63)) & 1 == 1


@inline
def bunny_steps(p, state, steps):
    """``steps[s]``: steps over cards from the warehouse to seat s's nearest bunny on the
    farmland (``NO_BUNNY_STEPS`` none), as ``finish`` counts them; a breadth-first search
    one distance at a time, with its sets in four words, so nothing is allocated."""
    n, n_cells = state[N_PLAYERS], p[P_CELLS]
    waiting = 0
    for s in range(n):
        steps[s] = NO_BUNNY_STEPS
    for c in range(n_cells):
        v = state[CELLS + c]
        if BUNNY <= v < BUNNY + 4:
            waiting |= 1 << (v - BUNNY)
    z = np.int64(0)
    s0, s1, s2, s3 = with_bit(z, z, z, z, p[P_CENTER])
    f0, f1, f2, f3 = s0, s1, s2, s3
    level = 0
    while waiting != 0:
        level += 1
        n0, n1, n2, n3 = z, z, z, z
        for c in range(n_cells):
            v = state[CELLS + c]
            if v == NO_CARD or has_bit(s0, s1, s2, s3, c):
                continue
            for d in range(6):
                nb = p[NEIGH + c * 6 + d]
                if nb >= 0 and has_bit(f0, f1, f2, f3, nb):
                    n0, n1, n2, n3 = with_bit(n0, n1, n2, n3, c)
                    if BUNNY <= v < BUNNY + 4 and (waiting >> (v - BUNNY)) & 1 == 1:
                        steps[v - BUNNY] = level
                        waiting &= ~(1 << (v - BUNNY))
                    break
        if n0 == 0 and n1 == 0 and n2 == 0 and n3 == 0:
            break
        s0, s1, s2, s3 = s0 | n0, s1 | n1, s2 | n2, s3 | n3
        f0, f1, f2, f3 = n0, n1, n2, n3
    if n == 4:                        # a team's nearest bunny is either partner's
        for s in range(2):
            steps[s] = steps[s + 2] = min(steps[s], steps[s + 2])


@inline
def catch_chance(p, state, unit):
    """The share of the face-down cards that are bunnies the side ``unit`` may catch
    (another side's), read from the true cards."""
    n, n_cells = state[N_PLAYERS], p[P_CELLS]
    face_down_cards, theirs = 0, 0
    for c in range(n_cells):
        v = state[CELLS + c]
        if v == NO_CARD or v == WAREHOUSE or state[face_up_at(p, c)] == 1:
            continue
        face_down_cards += 1
        if BUNNY <= v < BUNNY + 4:
            owner = v - BUNNY
            theirs += 1 if (owner % 2 if n == 4 else owner) != unit else 0
    return theirs / face_down_cards if face_down_cards > 0 else 0.0


@inline
def side_value(p, state, unit, steps):
    """The standing of player (with 4, team) ``unit``, whose nearest bunny is ``steps``
    from the warehouse."""
    n = state[N_PLAYERS]
    over = state[END] != RUNNING
    in_hand, caught, lost, carrots, alive = 0, 0, 0, 0, False
    for seat in range(n):
        if (seat % 2 if n == 4 else seat) == unit:
            in_hand += state[HAND + seat * N_KINDS + BUNNY]
            caught += state[CAUGHT + seat]
            lost += state[LOST + seat]
            if state[ELIMINATED + seat] == 0:
                alive = True
                carrots += state[CARROTS + seat]
    if not alive:
        return OUT
    if over:
        rule_a = 1.0 if in_hand == 0 or state[END] == LAST_STANDING else 0.0
    elif in_hand == 0:
        rule_a = 1.0
    else:
        start = pile_start(p, n)
        left = min(1.0, state[PILE_LEN] / start) if start > 0 else 0.0
        rule_a = left ** (HAND_BUNNY_EXPONENT * in_hand)
    value = ((p[P_BUNNIES] * n + 1) * rule_a + caught - LOST_TIE * lost
             + STEPS_TIE * (NO_BUNNY_STEPS - steps) / NO_BUNNY_STEPS)
    if not over:                      # catches the carrots may buy, a card a move
        value += carrots / max(1, p[P_COST_23]) * catch_chance(p, state, unit)
    return value


@kernel
def progress(params, state, out):
    """``out`` (float64[n_players]): each seat's standing in bunnies caught, rule a's
    bonus (one more than all the bunnies) weighted by the chance of meeting it; partners
    hold their team's. At the end it orders the seats as ``finish`` ranks them."""
    p = params[0]
    n = state[N_PLAYERS]
    bunny_steps(p, state, out)        # out[s] holds seat s's side's steps until replaced
    if n == 4:
        team_0, team_1 = side_value(p, state, 0, out[0]), side_value(p, state, 1, out[1])
        out[0] = out[2] = team_0
        out[1] = out[3] = team_1
    else:
        for seat in range(n):
            out[seat] = side_value(p, state, seat, out[seat])


# phase: the kind of decision awaited, an index into GameSpec.phases
PHASES = ("place", "action", "event", "return")
F_PLACE, F_ACTION, F_EVENT, F_RETURN = range(4)


@kernel
def phase(params, state):
    """A card laid face down (the turn's placement, the "place a card" event, the card
    that replaces one's own bunny); one of the turn's two actions; an event's choice (the
    step, moving a farmer, the warehouse, the peek); the looked-at player's put-backs."""
    ph = state[PHASE]
    if ph == PH_PLACE or ph == PH_EXTRA_PLACE or ph == PH_SWAP:
        return F_PLACE
    if ph == PH_ACTION:
        return F_ACTION
    if ph == PH_RETURN:
        return F_RETURN
    return F_EVENT


# ---------------------------------------------------------------- what a player looks at
# features (the optional kernel of the learnt players; NOTES.md, Features (issue 29)): what
# a good player of the deciding seat looks at, read from its observation alone: its hand
# and the bunnies it has out, what threatens them, each other seat's resources and (from
# the seat's memory) the bunnies it may still hold or have hidden, the hunt, its side's
# standing for winner determination a-c, and the clock, which is the pile.

OTHER_FEATURES = ("carrots", "cards_in_hand", "bunnies_in_hand", "clean_chance",
                  "bunnies_hidden", "caught", "lost", "out", "threat", "on_turn")
"""Each other seat's entries, in play order from the deciding seat: ``next_``, ``second_``
(the partner at 4 players), ``third_``."""

FEATURES = (
    ("own_carrots", "own_bunnies_in_hand")
    + tuple(f"own_hand_{kind}" for kind in KINDS)
    + ("own_bunnies_hidden", "own_decoys_hidden", "own_caught", "own_lost",
       "own_bunnies_seen", "own_bunnies_threatened", "own_bunnies_exposed",
       "own_bunny_warehouse_distance", "own_on_turn")
    + tuple(f"{who}_{what}" for who in ("next", "second", "third") for what in OTHER_FEATURES)
    + ("known_bunnies_to_catch", "expected_bunnies_to_catch", "opp_hidden_cards",
       "best_bunny_chance", "best_bunny_chance_in_reach", "carrots_short_of_best",
       "side_caught", "side_lost", "caught_lead", "side_clean_chance",
       "side_win_if_pile_ends", "partner_bunnies_threatened",
       "pile_left", "pile_share_left", "turn_share_of_cap", "actions_left", "to_place",
       "event_pending", "putting_back")
)
"""The names of ``features``' entries; NOTES.md (Features) says what each means."""

N_FEATURES = len(FEATURES)
_at = FEATURES.index
FT_OWN_CARROTS, FT_OWN_BUNNIES_IN_HAND = _at("own_carrots"), _at("own_bunnies_in_hand")
FT_OWN_HAND = _at("own_hand_empty")  # then the other kinds, in KINDS order
FT_OWN_HIDDEN, FT_OWN_DECOYS = _at("own_bunnies_hidden"), _at("own_decoys_hidden")
FT_OWN_CAUGHT, FT_OWN_LOST = _at("own_caught"), _at("own_lost")
FT_OWN_SEEN, FT_OWN_THREATENED = _at("own_bunnies_seen"), _at("own_bunnies_threatened")
FT_OWN_EXPOSED = _at("own_bunnies_exposed")
FT_OWN_DISTANCE, FT_OWN_ON_TURN = _at("own_bunny_warehouse_distance"), _at("own_on_turn")
FT_NEXT = _at("next_carrots")  # then the next seat's others, the second's, the third's
FT_KNOWN, FT_EXPECTED = _at("known_bunnies_to_catch"), _at("expected_bunnies_to_catch")
FT_OPP_HIDDEN, FT_BEST = _at("opp_hidden_cards"), _at("best_bunny_chance")
FT_BEST_IN_REACH, FT_SHORT = _at("best_bunny_chance_in_reach"), _at("carrots_short_of_best")
FT_SIDE_CAUGHT, FT_SIDE_LOST = _at("side_caught"), _at("side_lost")
FT_LEAD, FT_SIDE_CLEAN = _at("caught_lead"), _at("side_clean_chance")
FT_SIDE_WIN = _at("side_win_if_pile_ends")
FT_PARTNER_THREATENED = _at("partner_bunnies_threatened")
FT_PILE, FT_PILE_SHARE = _at("pile_left"), _at("pile_share_left")
FT_TURN_SHARE, FT_ACTIONS = _at("turn_share_of_cap"), _at("actions_left")
FT_TO_PLACE, FT_EVENT = _at("to_place"), _at("event_pending")
FT_PUTTING_BACK = _at("putting_back")
OTHER_W = len(OTHER_FEATURES)
(O_CARROTS, O_CARDS, O_BUNNIES, O_CLEAN, O_HIDDEN, O_CAUGHT, O_LOST, O_OUT, O_THREAT,
 O_ON_TURN) = range(OTHER_W)

COUNT_BITS = 7
"""``group_cards`` packs a count a memory group in 7 bits (a game lays at most 88 cards)."""


@inline
def hex_steps(coords, a, b):
    """Cells between ``a`` and ``b`` as the crow flies (steps over cards are at least as
    many)."""
    dq = coords[a, 0] - coords[b, 0]
    dr = coords[a, 1] - coords[b, 1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


@inline
def price_to(p, coords, here, one, three, c):
    """Carrots for the farmer on ``here`` to move onto the card on ``c`` (``move_price``,
    with the reach sets ``one``, ``three`` that ``window_reach`` gave round ``here``). A
    farmer on the card itself must step off and back: two 1-step moves."""
    if c == here:
        return 2 * move_cost(p, 1)
    dq = coords[c, 0] - coords[here, 0]
    dr = coords[c, 1] - coords[here, 1]
    d = -1
    if max(abs(dq), abs(dr), abs(dq + dr)) <= WINDOW_REACH:
        bit = (dq + WINDOW_REACH) * WINDOW + dr + WINDOW_REACH
        if (one >> bit) & 1 == 1:
            d = 1
        elif (three >> bit) & 1 == 1:
            d = 2
    return move_cost(p, d)


@inline
def may_catch(p, obs, hunter, owner):
    """Whether ``hunter`` catches ``owner``'s bunny by turning it up (``reveal_bunny``)."""
    return owner != hunter and not (partners(obs, hunter, owner) and p[P_PARTNERS_CATCH] == 0)


@inline
def farmers_reach(p, obs, seat):
    """The reach sets (``window_reach``) of the farmers of seat and of every player who may
    catch its bunnies (and so its partner's): two tuples of four words, 0 for the others
    (the partner's, at 4 players, unless partners catch)."""
    o0 = o1 = o2 = o3 = t0 = t1 = t2 = t3 = np.int64(0)
    for s in range(obs[N_PLAYERS]):
        here = obs[FARMER + s]
        if here >= 0 and (s == seat or may_catch(p, obs, s, seat)):
            one, three = window_reach(p, obs, here)
            if s == 0:
                o0, t0 = one, three
            elif s == 1:
                o1, t1 = one, three
            elif s == 2:
                o2, t2 = one, three
            else:
                o3, t3 = one, three
    return (o0, o1, o2, o3), (t0, t1, t2, t3)


@inline
def group_cards(p, obs, seat):
    """How many hidden cards each of seat's memory groups holds that the group's owner
    laid: the cards the group's unseen bunnies can lie on (a card filled from the pile is
    never one). Packed ``COUNT_BITS`` a group in two words (groups 0-7 and 8-15), so
    nothing is allocated."""
    lo, hi = np.int64(0), np.int64(0)
    for c in range(p[P_CELLS]):
        if obs[CELLS + c] == HIDDEN:
            tag = tag_of(obs[cell_tags_at(p, c)], seat)
            if 0 < tag < KNOWN_TAG and obs[placer_at(p, c)] == obs[
                    group_at(seat, tag - 1) + G_OWNER]:
                g = tag - 1
                if g < 8:
                    lo += np.int64(1) << (COUNT_BITS * g)
                else:
                    hi += np.int64(1) << (COUNT_BITS * (g - 8))
    return lo, hi


@inline
def group_count(lo, hi, g):
    word = lo if g < 8 else hi
    return (word >> (COUNT_BITS * (g % 8))) & ((1 << COUNT_BITS) - 1)


@inline
def choose(n, k):
    """n choose k, as a float (k is a few bunnies)."""
    if k < 0 or k > n:
        return 0.0
    x = 1.0
    for i in range(k):
        x = x * (n - i) / (i + 1)
    return x


@inline
def hand_reading(p, obs, seat, o, laid):
    """What seat's memory says of o's hand: (bunnies expected in it, the chance it holds
    none, the chance that each hidden card o laid since seat last knew the hand is a bunny).
    The group's b unseen bunnies lie in the hand (h cards, at most its bunny cap) or on the
    ``laid`` cards; j in the hand has weight C(h, j) C(laid, b - j), every layout being as
    likely (as ``determinize`` deals them and the heuristic reads them)."""
    if o == seat:
        b = obs[HAND + seat * N_KINDS + BUNNY]
        return float(b), 1.0 if b == 0 else 0.0, 0.0
    if o >= obs[N_PLAYERS]:
        return 0.0, 1.0, 0.0
    r = group_at(seat, o)
    b, h = obs[r + G_KNOWN + BUNNY], obs[IN_HAND + o]
    top = min(b, h, obs[r + G_BUNNY_CAP])
    total, in_hand, none = 0.0, 0.0, 0.0
    for j in range(top + 1):
        wt = choose(h, j) * choose(laid, b - j)
        total += wt
        in_hand += j * wt
        if j == 0:
            none = wt
    if total == 0.0:  # (no layout fits: the memory is sound, so this never happens)
        return float(top), 1.0 if top == 0 else 0.0, 0.0
    expected = in_hand / total
    return expected, none / total, (b - expected) / laid if laid > 0 else 0.0


@inline
def hand_readings(p, obs, seat, lo, hi):
    """``hand_reading`` of every seat: three tuples of four (expected, clean, share)."""
    e0, c0, s0 = hand_reading(p, obs, seat, 0, group_count(lo, hi, 0))
    e1, c1, s1 = hand_reading(p, obs, seat, 1, group_count(lo, hi, 1))
    e2, c2, s2 = hand_reading(p, obs, seat, 2, group_count(lo, hi, 2))
    e3, c3, s3 = hand_reading(p, obs, seat, 3, group_count(lo, hi, 3))
    return (e0, e1, e2, e3), (c0, c1, c2, c3), (s0, s1, s2, s3)


@inline
def bunny_chance(p, obs, seat, c, lo, hi, share):
    """The chance, by seat's memory, that the face-down card on ``c`` is a bunny of the
    player who laid it: 1 or 0 when seat has seen it; else its memory group's, a hand
    group's ``share`` or a cut-off group's bunnies over its cards; 0 in no group."""
    v = obs[CELLS + c]
    if v != HIDDEN:
        return 1.0 if BUNNY <= v < BUNNY + 4 else 0.0
    tag = tag_of(obs[cell_tags_at(p, c)], seat)
    if tag == 0 or tag == KNOWN_TAG:
        return 0.0
    g = tag - 1
    r = group_at(seat, g)
    if obs[placer_at(p, c)] != obs[r + G_OWNER]:
        return 0.0
    if g < 4:
        return min(1.0, share[g])
    cards = group_count(lo, hi, g)
    return min(1.0, obs[r + G_KNOWN + BUNNY] / cards) if cards > 0 else 0.0


@inline
def other_at(n, seat, o):
    """Where seat o's entries start: the next seat's first, then the second's, the third's."""
    k = o - seat if o > seat else o - seat + n  # (seats after seat in play order; no modulo)
    return FT_NEXT + (k - 1) * OTHER_W


@inline
def guard_own_bunny(p, coords, obs, seat, c, ones, threes, out):
    """Own bunny face down on ``c``: who has seen it, whose farmer reaches it next turn
    (its carrots and one more for each action but the move's)."""
    n = obs[N_PLAYERS]
    spare = p[P_ACTIONS] - 1
    seen, reached, exposed = False, False, False
    for o in range(n):
        if obs[ELIMINATED + o] == 1 or not may_catch(p, obs, o, seat):
            continue
        sees = (obs[seen_at(p, c)] >> o) & 1 == 1
        price = price_to(p, coords, obs[FARMER + o], ones[o], threes[o], c)
        seen |= sees
        if price <= obs[CARROTS + o] + spare:
            out[other_at(n, seat, o) + O_THREAT] += 1.0
            reached = True
            exposed |= sees
    out[FT_OWN_HIDDEN] += 1.0
    out[FT_OWN_SEEN] += 1.0 if seen else 0.0
    out[FT_OWN_THREATENED] += 1.0 if reached else 0.0
    out[FT_OWN_EXPOSED] += 1.0 if exposed else 0.0
    out[FT_OWN_DISTANCE] = min(out[FT_OWN_DISTANCE], hex_steps(coords, c, p[P_CENTER]))


@inline
def threatened(p, coords, obs, owner, c, ones, threes):
    """Whether a farmer that catches ``owner``'s bunnies reaches ``c`` next turn."""
    spare = p[P_ACTIONS] - 1
    for o in range(obs[N_PLAYERS]):
        if obs[ELIMINATED + o] == 0 and may_catch(p, obs, o, owner) and price_to(
                p, coords, obs[FARMER + o], ones[o], threes[o], c) <= obs[CARROTS + o] + spare:
            return True
    return False


@inline
def farmland_features(p, coords, obs, seat, lo, hi, share, out):
    """The entries read off the face-down cards: own bunnies and decoys and their threats,
    each other seat's bunnies hidden, the hunt, the partner's bunnies in reach of a rival."""
    n = obs[N_PLAYERS]
    ones, threes = farmers_reach(p, obs, seat)
    here, purse = obs[FARMER + seat], obs[CARROTS + seat]
    out[FT_OWN_DISTANCE] = hex_steps(coords, 0, p[P_CENTER]) + 1  # none out: past the edge
    decoys, unseen, certain, expected, partner_threat = 0, 0, 0, 0.0, 0.0
    best, best_price, best_in_reach = 0.0, 0, 0.0
    for c in range(p[P_CELLS]):
        v = obs[CELLS + c]
        if v == NO_CARD or v == WAREHOUSE or obs[face_up_at(p, c)] == 1:
            continue
        placer = obs[placer_at(p, c)]
        if v == BUNNY + seat:
            guard_own_bunny(p, coords, obs, seat, c, ones, threes, out)
            continue
        if placer == seat:
            decoys += 1
            continue
        if placer < 0:
            continue  # the ring and caught bunnies' places: never a bunny
        chance = bunny_chance(p, obs, seat, c, lo, hi, share)
        out[other_at(n, seat, placer) + O_HIDDEN] += chance
        if partners(obs, seat, placer) and chance > 0.0 and threatened(
                p, coords, obs, placer, c, ones, threes):
            partner_threat += chance
        if not may_catch(p, obs, seat, placer):
            continue
        unseen += 1 if v == HIDDEN else 0
        certain += 1 if chance == 1.0 else 0
        expected += chance
        if chance > 0.0 and here >= 0:
            price = price_to(p, coords, here, ones[seat], threes[seat], c)
            if chance > best or (chance == best and price < best_price):
                best, best_price = chance, price
            if price <= purse:
                best_in_reach = max(best_in_reach, chance)
    out[FT_OWN_DECOYS] = decoys
    out[FT_OPP_HIDDEN] = unseen
    out[FT_KNOWN] = certain
    out[FT_EXPECTED] = expected
    out[FT_PARTNER_THREATENED] = partner_threat
    out[FT_BEST] = best
    out[FT_BEST_IN_REACH] = best_in_reach
    out[FT_SHORT] = max(best_price - purse, 0) if best > 0.0 else 0.0


@inline
def unit_standing(obs, u, clean):
    """Player (with 4, team) u: (the chance that no hand of it still in holds a bunny, by
    seat's memory; bunnies caught; own bunnies lost; still in)."""
    n = obs[N_PLAYERS]
    q, caught, lost, alive = 1.0, 0, 0, False
    for s in range(n):
        if (s % 2 if n == 4 else s) == u:
            caught += obs[CAUGHT + s]
            lost += obs[LOST + s]
            if obs[ELIMINATED + s] == 0:
                alive = True
                q *= clean[s]
    return q, caught, lost, alive


@inline
def side_features(obs, seat, clean, out):
    """The seat's side (with 4, its team) for winner determination: rules a (a clean hand),
    b (caught), c (lost), and its chance of winning by them if the pile ran out now (the
    heuristic's reading: a tie on b and c counts half, rule d being unknown)."""
    n = obs[N_PLAYERS]
    u = seat % 2 if n == 4 else seat
    q, caught, lost, alive = unit_standing(obs, u, clean)
    win = q if alive else 0.0
    most = 0
    for v in range(2 if n == 4 else n):
        if v == u:
            continue
        qv, cv, lv, av = unit_standing(obs, v, clean)
        if not av:
            continue
        most = max(most, cv)
        beat = 0.5
        if cv != caught:
            beat = 1.0 if caught > cv else 0.0
        elif lv != lost:
            beat = 1.0 if lost < lv else 0.0
        win *= 1.0 - qv + qv * beat
    out[FT_SIDE_CAUGHT] = caught
    out[FT_SIDE_LOST] = lost
    out[FT_LEAD] = caught - most
    out[FT_SIDE_CLEAN] = q if alive else 0.0
    out[FT_SIDE_WIN] = win


@kernel
def features(params, obs, seat, out):
    """Fill ``out`` (float64[N_FEATURES], named by ``FEATURES``) with what ``seat`` looks at,
    read from its observation ``obs`` and ``params`` alone: its own entries, each other
    seat's in play order (seats absent at fewer players 0), the hunt, its side, the clock.
    Chances come from the seat's memory groups; nothing is allocated."""
    p, coords = params[0], params[1]
    n = obs[N_PLAYERS]
    for i in range(N_FEATURES):
        out[i] = 0.0
    lo, hi = group_cards(p, obs, seat)
    expected, clean, share = hand_readings(p, obs, seat, lo, hi)
    out[FT_OWN_CARROTS] = obs[CARROTS + seat]
    out[FT_OWN_BUNNIES_IN_HAND] = obs[HAND + seat * N_KINDS + BUNNY]
    for k in range(N_FARMLAND):
        out[FT_OWN_HAND + k] = obs[HAND + seat * N_KINDS + k]
    out[FT_OWN_CAUGHT] = obs[CAUGHT + seat]
    out[FT_OWN_LOST] = obs[LOST + seat]
    out[FT_OWN_ON_TURN] = 1.0 if obs[TURN_SEAT] == seat else 0.0
    for o in range(n):
        if o != seat:
            at = other_at(n, seat, o)
            out[at + O_CARROTS] = obs[CARROTS + o]
            out[at + O_CARDS] = obs[IN_HAND + o]
            out[at + O_BUNNIES] = expected[o]
            out[at + O_CLEAN] = clean[o]
            out[at + O_CAUGHT] = obs[CAUGHT + o]
            out[at + O_LOST] = obs[LOST + o]
            out[at + O_OUT] = obs[ELIMINATED + o]
            out[at + O_ON_TURN] = 1.0 if obs[TURN_SEAT] == o else 0.0
    farmland_features(p, coords, obs, seat, lo, hi, share, out)
    side_features(obs, seat, clean, out)
    start = pile_start(p, n)
    out[FT_PILE] = obs[PILE_LEN]
    out[FT_PILE_SHARE] = min(1.0, obs[PILE_LEN] / start) if start > 0 else 0.0
    out[FT_TURN_SHARE] = obs[TURNS] / max(1, p[P_MAX_TURNS])
    out[FT_ACTIONS] = obs[ACTIONS_LEFT]
    kind = phase(params, obs)
    out[FT_TO_PLACE] = 1.0 if kind == F_PLACE else 0.0
    out[FT_EVENT] = 1.0 if kind == F_EVENT else 0.0
    out[FT_PUTTING_BACK] = 1.0 if kind == F_RETURN else 0.0


# ---------------------------------------------------------------- what a move does
# move_features (the optional kernel of a fast policy; NOTES.md, Move features): for one
# legal move, what the features cannot say because they sum over the farmland: which card
# is laid, put back or turned up and what its event gives, where the cell lies (the
# warehouse, the rivals' farmers), what turning it up may catch and at what price, and what
# moving a rival's farmer takes off the seat's bunnies. Read from the seat's observation
# alone, as ``features`` is; no move is applied.

MOVE_FEATURES = (
    "lays_a_card", "draws", "takes_a_carrot", "moves_own_farmer", "looks_at_hand",
    "moves_other_farmer", "peeks", "puts_back", "stops_putting_back",
    "card_known", "card_is_own_bunny", "card_gives_carrots", "card_gives_cards",
    "card_moves_a_farmer", "card_peeks_or_places", "card_shows_hand", "card_takes_carrots",
    "card_ends_turn",
    "cell_warehouse_distance", "cell_rival_distance", "cell_rivals_in_reach",
    "cell_cards_around",
    "carrots_spent", "carrots_after", "rival_bunny_chance", "catch_knocks_out",
    "own_bunny_there", "own_bunny_seen_there", "partner_bunny_chance", "card_hidden",
    "nothing_to_turn_up",
    "draw_ends_game", "carrot_gained", "looked_hand_cards", "looked_hand_bunnies",
    "threat_taken_off", "seen_threat_taken_off",
)
"""The names of ``move_features``' entries; NOTES.md (Move features) says what each means."""

N_MOVE_FEATURES = len(MOVE_FEATURES)
_mf = MOVE_FEATURES.index
MF_LAYS, MF_DRAWS, MF_CARROT, MF_OWN_FARMER = _mf("lays_a_card"), _mf("draws"), _mf(
    "takes_a_carrot"), _mf("moves_own_farmer")
MF_LOOKS, MF_OTHER_FARMER, MF_PEEKS = _mf("looks_at_hand"), _mf("moves_other_farmer"), _mf(
    "peeks")
MF_PUTS_BACK, MF_STOPS = _mf("puts_back"), _mf("stops_putting_back")
MF_CARD_KNOWN, MF_CARD_BUNNY = _mf("card_known"), _mf("card_is_own_bunny")
MF_GIVES_CARROTS, MF_GIVES_CARDS = _mf("card_gives_carrots"), _mf("card_gives_cards")
MF_MOVES_FARMER, MF_PEEK_PLACE = _mf("card_moves_a_farmer"), _mf("card_peeks_or_places")
MF_SHOWS, MF_TAKES_CARROTS = _mf("card_shows_hand"), _mf("card_takes_carrots")
MF_ENDS_TURN = _mf("card_ends_turn")
MF_WAREHOUSE, MF_RIVAL_DISTANCE = _mf("cell_warehouse_distance"), _mf("cell_rival_distance")
MF_RIVALS_REACH, MF_AROUND = _mf("cell_rivals_in_reach"), _mf("cell_cards_around")
MF_SPENT, MF_CARROTS_AFTER = _mf("carrots_spent"), _mf("carrots_after")
MF_RIVAL_CHANCE, MF_KNOCKS_OUT = _mf("rival_bunny_chance"), _mf("catch_knocks_out")
MF_OWN_BUNNY, MF_OWN_SEEN = _mf("own_bunny_there"), _mf("own_bunny_seen_there")
MF_PARTNER_CHANCE, MF_HIDDEN = _mf("partner_bunny_chance"), _mf("card_hidden")
MF_NOTHING = _mf("nothing_to_turn_up")
MF_ENDS_GAME, MF_GAINED = _mf("draw_ends_game"), _mf("carrot_gained")
MF_LOOKED_CARDS, MF_LOOKED_BUNNIES = _mf("looked_hand_cards"), _mf("looked_hand_bunnies")
MF_THREAT_OFF, MF_SEEN_THREAT_OFF = _mf("threat_taken_off"), _mf("seen_threat_taken_off")


@inline
def card_event(kind, out):
    """The entries of a farmland card of ``kind`` (a bunny: ``card_is_own_bunny``): what its
    event does to whoever turns it up."""
    out[MF_CARD_KNOWN] = 1.0
    if kind == BUNNY:
        out[MF_CARD_BUNNY] = 1.0
    elif kind == CARROT_1 or kind == CARROT_2:
        out[MF_GIVES_CARROTS] = 1.0 if kind == CARROT_1 else 2.0
    elif kind == DRAW_1 or kind == DRAW_2:
        out[MF_GIVES_CARDS] = 1.0 if kind == DRAW_1 else 2.0
    elif kind == STEP_1 or kind == MOVE_ANY or kind == TO_WAREHOUSE:
        out[MF_MOVES_FARMER] = 1.0
    elif kind == PEEK or kind == PLACE_CARD:
        out[MF_PEEK_PLACE] = 1.0
    elif kind == SHOW or kind == SHOW_OR_LOSE or kind == ALL_SHOW:
        out[MF_SHOWS] = 1.0
        out[MF_TAKES_CARROTS] = 0.0 if kind == SHOW else 1.0
    elif kind == TURN_ENDS:
        out[MF_ENDS_TURN] = 1.0


@inline
def crow_price(p, coords, here, c):
    """Carrots for a farmer on ``here`` to reach ``c``, the steps counted as the crow flies
    (on the dense farmland the steps over cards seldom differ; the heuristic's reading of a
    threat). Standing on it: a step off and back."""
    d = hex_steps(coords, here, c)
    if d == 0:
        return 2 * move_cost(p, 1)
    return move_cost(p, d if d <= WINDOW_REACH else -1)


@inline
def cell_entries(p, coords, obs, seat, c, out):
    """Where cell ``c`` lies: from the warehouse (rule d), from the nearest rival farmer,
    how many rival farmers reach it next turn (their carrots and one more for each action
    but the move's), how many cards touch it."""
    n = obs[N_PLAYERS]
    spare = p[P_ACTIONS] - 1
    nearest, reach = 2 * hex_steps(coords, 0, p[P_CENTER]) + 1, 0
    for o in range(n):
        here = obs[FARMER + o]
        if here < 0 or obs[ELIMINATED + o] == 1 or not may_catch(p, obs, o, seat):
            continue
        nearest = min(nearest, hex_steps(coords, here, c))
        reach += 1 if crow_price(p, coords, here, c) <= obs[CARROTS + o] + spare else 0
    out[MF_WAREHOUSE] = hex_steps(coords, c, p[P_CENTER])
    out[MF_RIVAL_DISTANCE] = nearest
    out[MF_RIVALS_REACH] = reach
    out[MF_AROUND] = obs[next_to_at(p, c)]


@inline
def laid_by_owner(p, obs, seat, g, owner):
    """How many hidden cards ``owner`` laid that seat's memory group ``g`` holds (the cards
    its unseen bunnies can lie on; ``group_cards`` for one group)."""
    laid = 0
    for c in range(p[P_CELLS]):
        if obs[CELLS + c] == HIDDEN and obs[placer_at(p, c)] == owner:
            laid += 1 if tag_of(obs[cell_tags_at(p, c)], seat) == g + 1 else 0
    return laid


@inline
def one_bunny_chance(p, obs, seat, c):
    """``bunny_chance`` of the card on ``c`` alone: only its memory group's cards are
    counted."""
    v = obs[CELLS + c]
    if v != HIDDEN:
        return 1.0 if BUNNY <= v < BUNNY + 4 else 0.0
    tag = tag_of(obs[cell_tags_at(p, c)], seat)
    if tag == 0 or tag == KNOWN_TAG:
        return 0.0
    g = tag - 1
    r = group_at(seat, g)
    owner = obs[r + G_OWNER]
    if obs[placer_at(p, c)] != owner:
        return 0.0
    laid = laid_by_owner(p, obs, seat, g, owner)
    if g < 4:
        _, _, share = hand_reading(p, obs, seat, owner, laid)
        return min(1.0, share)
    return min(1.0, obs[r + G_KNOWN + BUNNY] / laid) if laid > 0 else 0.0


@inline
def turn_up_entries(p, obs, seat, c, out):
    """What the seat's farmer turns up on ``c``: a rival's bunny by its chance (and whether
    the catch knocks the rival out), its own bunny (seen by a rival or not), maybe the
    partner's, a card whose event it knows, a hidden card, or nothing at all."""
    v = obs[CELLS + c]
    if v == NO_CARD or v == WAREHOUSE or obs[face_up_at(p, c)] == 1:
        out[MF_NOTHING] = 1.0
        return
    placer = obs[placer_at(p, c)]
    if v == BUNNY + seat:
        out[MF_OWN_BUNNY] = 1.0
        for o in range(obs[N_PLAYERS]):
            if (obs[seen_at(p, c)] >> o) & 1 == 1 and obs[ELIMINATED + o] == 0 and may_catch(
                    p, obs, o, seat):
                out[MF_OWN_SEEN] = 1.0
        return
    if v == HIDDEN:
        out[MF_HIDDEN] = 1.0
    elif v < BUNNY:
        card_event(v, out)
    if placer < 0 or placer == seat:
        return  # the ring, a caught bunny's place, its own decoy: no bunny
    chance = one_bunny_chance(p, obs, seat, c)
    if may_catch(p, obs, seat, placer):
        out[MF_RIVAL_CHANCE] = chance
        out[MF_KNOCKS_OUT] = chance if obs[LOST + placer] >= p[P_BUNNIES] - 1 else 0.0
    else:
        out[MF_PARTNER_CHANCE] = chance


@inline
def threat_off(p, coords, obs, seat, who, there, out):
    """Farmer ``who`` moved to ``there``: the seat's face-down bunnies it reaches next turn
    from where it stands less those it reaches from there (and of them, those it has seen:
    it knows where to go)."""
    if not may_catch(p, obs, who, seat):
        return
    here, budget = obs[FARMER + who], obs[CARROTS + who] + p[P_ACTIONS] - 1
    off, seen_off = 0.0, 0.0
    for c in range(p[P_CELLS]):
        if obs[CELLS + c] == BUNNY + seat and obs[face_up_at(p, c)] == 0:
            now = crow_price(p, coords, here, c) <= budget
            then = crow_price(p, coords, there, c) <= budget
            x = (1.0 if now else 0.0) - (1.0 if then else 0.0)
            off += x
            seen_off += x if (obs[seen_at(p, c)] >> who) & 1 == 1 else 0.0
    out[MF_THREAT_OFF] = off
    out[MF_SEEN_THREAT_OFF] = seen_off


@kernel
def move_features(params, obs, seat, move, out):
    """Fill ``out`` (float64[N_MOVE_FEATURES], named by ``MOVE_FEATURES``) with what ``seat``
    looks at about one legal ``move``, read from its observation ``obs`` and ``params``
    alone: the kind of move, the card it lays, puts back or turns up, the cell it concerns,
    what it costs and may catch. Nothing is applied, nothing allocated."""
    p, coords = params[0], params[1]
    kind, arg = move >> 16, move & 0xFFFF
    for i in range(N_MOVE_FEATURES):
        out[i] = 0.0
    purse = obs[CARROTS + seat]
    out[MF_CARROTS_AFTER] = purse
    if kind == M_PLACE or kind == M_SWAP:
        c = arg & 255 if kind == M_PLACE else obs[AUX_CELL]
        out[MF_LAYS] = 1.0
        card_event(arg >> 8 if kind == M_PLACE else arg, out)
        cell_entries(p, coords, obs, seat, c, out)
    elif kind == M_DRAW:
        out[MF_DRAWS] = 1.0
        out[MF_ENDS_GAME] = 1.0 if obs[PILE_LEN] <= 1 else 0.0
    elif kind == M_CARROT:
        out[MF_CARROT] = 1.0
        out[MF_GAINED] = max(0, min(1, p[P_CARROT_CAP] - purse, obs[SUPPLY]))
        out[MF_CARROTS_AFTER] = purse + out[MF_GAINED]
    elif kind == M_LOOK:
        out[MF_LOOKS] = 1.0
        out[MF_SPENT] = p[P_COST_LOOK]
        out[MF_CARROTS_AFTER] = purse - p[P_COST_LOOK]
        out[MF_LOOKED_CARDS] = obs[IN_HAND + arg]
        expected, _, _ = hand_reading(p, obs, seat, arg, laid_by_owner(p, obs, seat, arg, arg))
        out[MF_LOOKED_BUNNIES] = expected
    elif kind == M_MOVE or kind == M_STEP or (kind == M_MOVE_ANY and arg >> 8 == seat):
        c = arg & 255
        out[MF_OWN_FARMER] = 1.0
        if kind == M_MOVE:
            out[MF_SPENT] = move_price(p, obs, obs[FARMER + seat], c)
            out[MF_CARROTS_AFTER] = purse - out[MF_SPENT]
        cell_entries(p, coords, obs, seat, c, out)
        if kind == M_MOVE_ANY and p[P_MOVE_ANY_REVEALS] == 0:
            out[MF_NOTHING] = 1.0
        else:
            turn_up_entries(p, obs, seat, c, out)
    elif kind == M_MOVE_ANY or kind == M_TO_HOME:
        who = arg >> 8 if kind == M_MOVE_ANY else arg
        c = arg & 255 if kind == M_MOVE_ANY else p[P_CENTER]
        out[MF_OWN_FARMER if who == seat else MF_OTHER_FARMER] = 1.0
        out[MF_NOTHING] = 1.0 if who == seat else 0.0
        cell_entries(p, coords, obs, seat, c, out)
        if who != seat:
            threat_off(p, coords, obs, seat, who, c, out)
    elif kind == M_PEEK:
        out[MF_PEEKS] = 1.0
        cell_entries(p, coords, obs, seat, arg, out)
        turn_up_entries(p, obs, seat, arg, out)
    elif kind == M_RETURN:
        out[MF_PUTS_BACK] = 1.0
        card_event(arg, out)
    else:  # M_DONE
        out[MF_STOPS] = 1.0
