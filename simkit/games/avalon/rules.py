"""Avalon's kernels: two players conquer a row of face-down territories with knights and
enchantresses. The state layout is drawn in ``state.py``.

Moves (one encoding for every phase):

    0                   END_PLAYS        main: stop playing cards, go to the supply
    1   + t*11 + i      STRENGTHEN       main: lay card type t from hand at slot i
    111 + i             ENCHANT          main: enchant the top enemy card at slot i with an
                                         enchantress of its colour
    122 + t*11 + i      ATTACK           main: attack slot i with card type t (a knight, or
                                         an enchantress when owning the stone circle)
    232 / 233           COUNTER_NO/YES   defender: counter-spell the enchantment or not
    234 / 235           DEFEND_NO/YES    defender: ward off the attack or not
    236 + t             LOSS_HAND        conqueror: lose a hand card of type t
    246 + i             LOSS_LAYOUT      conqueror: lose the top card of his pile at slot i
    257                 LOSS_AVALON      conqueror: use Avalon's one-card reduction now
    258 + k             SUPPLY           player: take a supply tile of kind k
    264 + t             DISCARD          player: discard a hand card of type t (hand limit)

params = (int32[N_PARAMS],): one flat array, the main numbers (M_*), then crowns, terrain
and special function by territory card id (P_*), then the supply tiles' count and cards by
kind (P_TILE_*). ``new_game`` copies it into the state's RULES block and every other kernel
reads the numbers there (``state[M_WIN]``): an array taken out of the params tuple costs
atomic reference counts on each move, which were most of the time of a random game.
"""


from numba.cpython.unsafe.numbers import trailing_zeros  # llvm.cttz: one instruction

from simkit.game import HIDDEN
from simkit.jit import copy_into, inline, kernel
from simkit.rng import rand_below, shuffle

from .state import (
    AVALON_USED,
    COLOUR_NAMES,
    CONQUESTS,
    COUNTER,
    DARK_PENDING,
    DECK,
    DECK_N,
    DEFEND,
    DISCARD,
    DISCARD_PHASE,
    ENCHANTRESS,
    FIRST_DARK,
    FOREST,
    HAND,
    HAND_SIZE,
    HEIGHT,
    HILL,
    KNIGHT,
    LOSS,
    LOSS_LEFT,
    M_AVALON_RED,
    M_CASTLE_DEF,
    M_CASTLE_LOSS,
    M_COLOURS,
    M_ENCH,
    M_EXHAUSTED_DRAW,
    M_HAND_LIMIT,
    M_KNIGHTS,
    M_MAX_CONQ,
    M_MAX_TURNS,
    M_NCARDS,
    M_PER_SIDE,
    M_START_HAND,
    M_WIN,
    MAIN,
    N_PARAMS,
    N_TERR,
    N_TILE_KINDS,
    N_TYPES,
    NO_TERRAIN,
    OWNER,
    P_CROWNS,
    P_SPECIAL,
    P_TERRAIN,
    P_TILE_CARDS,
    P_TILE_COUNT,
    PENDING_TERR,
    PENDING_TYPE,
    PHASE,
    PLAIN,
    PLAYER,
    RULES,
    SHOWN,
    SP_AVALON,
    SP_CASTLE,
    SP_CIRCLE,
    START_DRAWN,
    SUPPLY,
    TERR_CARD,
    TILE_AVAIL,
    TILE_CONNECTED_LIGHT,
    TILE_FIXED_LIGHT,
    TILE_NAMES,
    TILE_PER_TERRITORY_DARK,
    TURNS,
    WINNER,
)

# --- moves ---
END_PLAYS = 0
STRENGTHEN = 1
ENCHANT = STRENGTHEN + N_TYPES * N_TERR
ATTACK = ENCHANT + N_TERR
COUNTER_NO = ATTACK + N_TYPES * N_TERR
COUNTER_YES = COUNTER_NO + 1
DEFEND_NO = COUNTER_NO + 2
DEFEND_YES = COUNTER_NO + 3
LOSS_HAND = COUNTER_NO + 4
LOSS_LAYOUT = LOSS_HAND + N_TYPES
LOSS_AVALON = LOSS_LAYOUT + N_TERR
SUPPLY_TILE = LOSS_AVALON + 1
DISCARD_CARD = SUPPLY_TILE + N_TILE_KINDS
N_MOVES = DISCARD_CARD + N_TYPES

# --- items ---
TERRITORY_NAMES = ["castle_hill", "castle_forest", "castle_plain", "avalon", "swamp",
                   "stone_circle", "plain_a", "plain_b", "hill_a", "forest", "hill_b"]
TYPE_NAMES = [f"{k}_{c}" for c in COLOUR_NAMES for k in ("knight", "enchantress")]


def item_columns(territories) -> list[str]:
    """The item columns, the territories (by card id) under ``territories``' names."""
    return ([f"{n}:conquered" for n in territories]
            + [f"{n}:held_at_end" for n in territories]
            + [f"{n}:lost" for n in territories]
            + [f"tile_{n}:taken" for n in TILE_NAMES]
            + [f"{n}:strengthen" for n in TYPE_NAMES]
            + [f"{n}:attack" for n in TYPE_NAMES]
            + [f"knight_{c}:defend" for c in COLOUR_NAMES]
            + [f"enchantress_{c}:enchant" for c in COLOUR_NAMES]
            + [f"enchantress_{c}:counter_spell" for c in COLOUR_NAMES]
            + ["enchantment:succeeded", "enchantment:warded_off", "attack:warded_off",
               "avalon_reduction:used"])


ITEM_COLUMNS = item_columns(TERRITORY_NAMES)
"""The item columns of the default data (data.toml's territory names)."""
I_CONQUERED = 0
I_HELD = I_CONQUERED + N_TERR
I_LOST = I_HELD + N_TERR
I_TILE = I_LOST + N_TERR
I_STRENGTHEN = I_TILE + N_TILE_KINDS
I_ATTACK = I_STRENGTHEN + N_TYPES
I_DEFEND = I_ATTACK + N_TYPES
I_ENCHANT = I_DEFEND + 5
I_COUNTER = I_ENCHANT + 5
I_ENCHANT_OK = I_COUNTER + 5
I_ENCHANT_WARDED = I_ENCHANT_OK + 1
I_ATTACK_WARDED = I_ENCHANT_WARDED + 1
I_AVALON = I_ATTACK_WARDED + 1
assert I_AVALON + 1 == len(ITEM_COLUMNS)

END_REASONS = ["timeout", "crowns_reached", "cards_exhausted"]
REASON_CROWNS, REASON_EXHAUSTED = 1, 2


# ---------------------------------------------------------------- sizes and small helpers
@kernel
def state_size(params, n_players):
    return DECK + params[0][M_NCARDS - RULES] * (1 + 2 * N_TERR)


@kernel
def max_moves(params, n_players):
    return N_MOVES


@inline
def stack_at(state, seat, slot):
    """Offset of STACK[seat][slot][0]."""
    nc = state[M_NCARDS]
    return DECK + nc + (seat * N_TERR + slot) * nc


@inline
def height(state, seat, slot):
    return state[HEIGHT + seat * N_TERR + slot]


@inline
def top_card(state, seat, slot):
    nc = state[M_NCARDS]
    pile = seat * N_TERR + slot
    h = state[HEIGHT + pile]
    return -1 if h == 0 else state[DECK + nc + pile * nc + h - 1]


@inline
def push(state, seat, slot, t):
    nc = state[M_NCARDS]
    pile = seat * N_TERR + slot
    h = state[HEIGHT + pile]
    state[DECK + nc + pile * nc + h] = t
    state[HEIGHT + pile] = h + 1


@inline
def pop(state, seat, slot):
    nc = state[M_NCARDS]
    pile = seat * N_TERR + slot
    h = state[HEIGHT + pile] - 1
    off = DECK + nc + pile * nc + h
    t = state[off]
    state[off] = -1
    state[HEIGHT + pile] = h
    return t


@inline
def hand(state, seat, t):
    return state[HAND + seat * N_TYPES + t]


@inline
def add_hand(state, seat, t, k):
    """``k`` cards of type ``t`` into (or, k < 0, face up out of) the seat's hand. A card
    leaving face up takes one off what the other seat knows is there (SHOWN): it cannot
    tell whether it was that one."""
    state[HAND + seat * N_TYPES + t] += k
    state[HAND_SIZE + seat] += k
    if k < 0:
        state[SHOWN + seat * N_TYPES + t] = max(0, state[SHOWN + seat * N_TYPES + t] + k)


@inline
def special_at(state, slot):
    return state[P_SPECIAL + state[TERR_CARD + slot]]


@inline
def owns_special(state, seat, special):
    found = False
    for i in range(N_TERR):
        found |= state[OWNER + i] == seat and state[P_SPECIAL + state[TERR_CARD + i]] == special
    return found


@inline
def cards_held(state, seat):
    """Hand plus layout: what the seat could still pay conquest losses with."""
    n = state[HAND_SIZE + seat]
    for i in range(N_TERR):
        n += height(state, seat, i)
    return n


# ---------------------------------------------------------------- deck
@kernel
def reshuffle(state, chance):
    """The discard pile, shuffled, becomes the draw pile (only called when it is empty)."""
    n = 0
    for t in range(N_TYPES):
        for _ in range(state[DISCARD + t]):
            state[DECK + n] = t
            n += 1
        state[DISCARD + t] = 0
    shuffle(chance, state[DECK:DECK + n], n)
    state[DECK_N] = n


@kernel
def deal_one(state, chance):
    """The top card of the draw pile (reshuffling if needed), or -1 if no card is left."""
    if state[DECK_N] == 0:
        reshuffle(state, chance)
        if state[DECK_N] == 0:
            return -1
    k = state[DECK_N] - 1
    t = state[DECK + k]
    state[DECK + k] = -1
    state[DECK_N] = k
    return t


@inline
def draw(state, seat, n, chance):
    """Up to ``n`` cards from the draw pile into the hand; returns how many."""
    got = 0
    while got < n:
        if state[DECK_N] == 0:
            reshuffle(state, chance)
        if state[DECK_N] == 0:
            n = got  # no card left anywhere: stop
        else:
            k = state[DECK_N] - 1
            state[HAND + seat * N_TYPES + state[DECK + k]] += 1
            state[DECK + k] = -1
            state[DECK_N] = k
            got += 1
    state[HAND_SIZE + seat] += got
    return got


@inline
def discard(state, t):
    state[DISCARD + t] += 1


# ---------------------------------------------------------------- counting territories
@inline
def crowns(state, seat):
    c = 0
    for i in range(N_TERR):
        if state[OWNER + i] == seat:
            c += state[P_CROWNS + state[TERR_CARD + i]]
    return c


@inline
def terrain_territories(state, seat):
    """Territories of the seat that have a terrain (Avalon and the Swamp have none)."""
    n = 0
    for i in range(N_TERR):
        if state[OWNER + i] == seat and state[P_TERRAIN + state[TERR_CARD + i]] != NO_TERRAIN:
            n += 1
    return n


@inline
def most_terrain(state, seat):
    """Territories of the seat's most common terrain."""
    plain = forest = hill = 0
    for i in range(N_TERR):
        if state[OWNER + i] == seat:
            terrain = state[P_TERRAIN + state[TERR_CARD + i]]
            plain += terrain == PLAIN
            forest += terrain == FOREST
            hill += terrain == HILL
    return max(plain, forest, hill)


@inline
def largest_connected(state, seat):
    """Longest run of adjacent slots owned by the seat; revealed Avalon / Swamp slots are
    skipped (they neither count nor interrupt), anything else interrupts."""
    best = 0
    run = 0
    for i in range(N_TERR):
        owner = state[OWNER + i]
        if owner >= 0 and state[P_TERRAIN + state[TERR_CARD + i]] == NO_TERRAIN:
            continue
        run = run + 1 if owner == seat else 0
        best = max(best, run)
    return best


@inline
def tile_cards(state, seat, kind):
    """Cards a supply tile of ``kind`` brings the seat, counted now."""
    base = kind - FIRST_DARK if kind >= FIRST_DARK else kind
    if kind == TILE_PER_TERRITORY_DARK:
        count = terrain_territories(state, seat)
    elif kind == TILE_CONNECTED_LIGHT:
        count = largest_connected(state, seat)
    elif base == TILE_FIXED_LIGHT:
        count = 1
    else:
        count = most_terrain(state, seat)
    return state[P_TILE_CARDS + kind] * count


# ---------------------------------------------------------------- setup
@kernel
def new_game(params, n_players, state, chance):
    state[:] = -1
    for k in range(PLAYER, RULES):
        state[k] = 0
    for k in range(N_PARAMS):
        state[RULES + k] = params[0][k]
    state[WINNER] = -1
    state[PENDING_TERR] = -1
    state[PENDING_TYPE] = -1
    state[DARK_PENDING] = -1
    state[DARK_PENDING + 1] = -1
    for k in range(N_TILE_KINDS):
        state[TILE_AVAIL + k] = state[P_TILE_COUNT + k]
    for i in range(N_TERR):
        state[OWNER + i] = -1
        state[TERR_CARD + i] = i
    shuffle(chance, state[TERR_CARD:TERR_CARD + N_TERR], N_TERR)
    fill_deck(state, chance)
    for i in range(N_TERR):
        for _ in range(state[M_PER_SIDE]):
            for s in range(2):
                push(state, s, i, deal_one(state, chance))
    for s in range(2):
        draw(state, s, state[M_START_HAND], chance)


@kernel
def fill_deck(state, chance):
    n = 0
    for c in range(state[M_COLOURS]):
        for _ in range(state[M_KNIGHTS]):
            state[DECK + n] = 2 * c
            n += 1
        for _ in range(state[M_ENCH]):
            state[DECK + n] = 2 * c + ENCHANTRESS
            n += 1
    state[DECK_N] = n
    shuffle(chance, state[DECK:DECK + n], n)


# ---------------------------------------------------------------- whose decision
@inline
def to_move(state):
    ph = state[PHASE]
    if ph == COUNTER or ph == DEFEND:
        return 1 - state[PLAYER]
    return state[PLAYER]


@inline
def is_over(state):
    return state[WINNER] >= 0


@inline
def turn_number(state):
    return state[TURNS]


# ---------------------------------------------------------------- legal moves
@inline
def held_types(state, hand_at):
    """The card types in a hand, as a bitmask (bit t: type t held)."""
    held = 0
    for t in range(N_TYPES):
        held |= (state[hand_at + t] > 0) << t
    return held


@inline
def main_moves(state, moves):
    """The hot path of random play: indexes the state directly (few calls), and walks the
    types held as the set bits of a mask (a loop over every type, asking each, cost as much
    as the rest of the decision)."""
    hand_at = HAND + state[PLAYER] * N_TYPES
    held = held_types(state, hand_at)
    moves[0] = END_PLAYS
    n = 1
    m = held
    while m != 0:
        first = STRENGTHEN + trailing_zeros(m) * N_TERR
        for i in range(N_TERR):
            moves[n + i] = first + i
        n += N_TERR
        m &= m - 1
    n = enchant_moves(state, hand_at, moves, n)
    if state[CONQUESTS] >= state[M_MAX_CONQ]:
        return n
    return attack_moves(state, held, moves, n)


@inline
def enchant_moves(state, hand_at, moves, n):
    """Slots whose top enemy card has the colour of an enchantress in hand."""
    q = 1 - state[PLAYER]
    nc = state[M_NCARDS]
    for i in range(N_TERR):
        pile = q * N_TERR + i
        h = state[HEIGHT + pile]
        if h > 0 and state[hand_at + (state[DECK + nc + pile * nc + h - 1] | ENCHANTRESS)] > 0:
            moves[n] = ENCHANT + i
            n += 1
    return n


KNIGHTS = sum(1 << t for t in range(KNIGHT, N_TYPES, 2))
"""The knight types, as a bitmask of types (a type is colour * 2 + KNIGHT or ENCHANTRESS)."""


@inline
def attack_moves(state, held, moves, n):
    """Knights (and enchantresses, with the stone circle) of ``held`` (a bitmask of types)
    against every slot not ours where our pile is at least the defender's (+ castle)."""
    p = state[PLAYER]
    q = 1 - p
    if not owns_special(state, p, SP_CIRCLE):
        held &= KNIGHTS
    for i in range(N_TERR):
        owner = state[OWNER + i]
        castle = (owner == q) & (state[P_SPECIAL + state[TERR_CARD + i]] == SP_CASTLE)
        need = state[HEIGHT + q * N_TERR + i] + castle * state[M_CASTLE_DEF]
        if (owner != p) & (state[HEIGHT + p * N_TERR + i] >= need):
            m = held
            while m != 0:
                moves[n] = ATTACK + trailing_zeros(m) * N_TERR + i
                n += 1
                m &= m - 1
    return n


@inline
def loss_moves(state, moves):
    """The types in hand, then the slots with a pile (walked as bitmasks, see
    ``main_moves``), then Avalon's own way."""
    p = state[PLAYER]
    n = 0
    m = held_types(state, HAND + p * N_TYPES)
    while m != 0:
        moves[n] = LOSS_HAND + trailing_zeros(m)
        n += 1
        m &= m - 1
    m = 0
    for i in range(N_TERR):
        m |= (height(state, p, i) > 0) << i
    while m != 0:
        moves[n] = LOSS_LAYOUT + trailing_zeros(m)
        n += 1
        m &= m - 1
    avalon = owns_special(state, p, SP_AVALON)
    if avalon and state[AVALON_USED] == 0 and state[M_AVALON_RED] > 0:
        moves[n] = LOSS_AVALON
        n += 1
    return n


@inline
def legal_moves(params, state, moves):
    """One return at the end: an inlined kernel with several exits keeps reference counts
    on its array arguments that numba cannot prune."""
    ph = state[PHASE]
    if ph == MAIN:
        n = main_moves(state, moves)
    elif ph == COUNTER or ph == DEFEND:
        moves[0] = COUNTER_NO if ph == COUNTER else DEFEND_NO
        moves[1] = moves[0] + 1
        n = 2
    elif ph == LOSS:
        n = loss_moves(state, moves)
    else:
        n = choice_moves(state, moves)
    return n


@inline
def choice_moves(state, moves):
    """Supply tiles face up, or hand cards to discard down to the limit."""
    ph = state[PHASE]
    p = state[PLAYER]
    n = 0
    for k in range(N_TYPES if ph == DISCARD_PHASE else N_TILE_KINDS):
        if ph == SUPPLY and state[TILE_AVAIL + k] > 0:
            moves[n] = SUPPLY_TILE + k
            n += 1
        elif ph == DISCARD_PHASE and hand(state, p, k) > 0:
            moves[n] = DISCARD_CARD + k
            n += 1
    return n


# ---------------------------------------------------------------- enchanting
@inline
def announce_enchant(state, slot, items):
    p = state[PLAYER]
    q = 1 - p
    t = (top_card(state, q, slot) & ~1) | ENCHANTRESS
    add_hand(state, p, t, -1)
    items[p, I_ENCHANT + (t >> 1)] += 1
    state[PENDING_TERR] = slot
    state[PENDING_TYPE] = t
    if hand(state, q, t) > 0:
        state[PHASE] = COUNTER  # the defender decides
    else:
        enchant_succeeds(state, items)


@inline
def enchant_succeeds(state, items):
    """The enchanted card goes onto the player's own enchantress, just laid."""
    p = state[PLAYER]
    slot = state[PENDING_TERR]
    push(state, p, slot, state[PENDING_TYPE])
    push(state, p, slot, pop(state, 1 - p, slot))
    items[p, I_ENCHANT_OK] += 1
    clear_pending(state)


@inline
def counter_spell(state, items):
    """The defender lays an enchantress of the colour at the slot; the attacking enchantress
    goes into the defender's hand."""
    p = state[PLAYER]
    q = 1 - p
    t = state[PENDING_TYPE]
    add_hand(state, q, t, -1)
    push(state, q, state[PENDING_TERR], t)
    add_hand(state, q, t, 1)
    state[SHOWN + q * N_TYPES + t] += 1  # both seats saw it go into his hand
    items[q, I_COUNTER + (t >> 1)] += 1
    items[p, I_ENCHANT_WARDED] += 1
    clear_pending(state)


@inline
def clear_pending(state):
    state[PENDING_TERR] = -1
    state[PENDING_TYPE] = -1
    state[PHASE] = MAIN


# ---------------------------------------------------------------- attacking
@inline
def announce_attack(state, t, slot, items):
    p = state[PLAYER]
    add_hand(state, p, t, -1)
    push(state, p, slot, t)
    items[p, I_ATTACK + t] += 1
    state[PENDING_TERR] = slot
    state[PENDING_TYPE] = t
    if hand(state, 1 - p, t & ~1) > 0:  # a knight of the attacking card's colour
        state[PHASE] = DEFEND
    else:
        conquer(state, items)


@inline
def defend(state, items):
    p = state[PLAYER]
    q = 1 - p
    knight = state[PENDING_TYPE] & ~1
    add_hand(state, q, knight, -1)
    push(state, q, state[PENDING_TERR], knight)
    items[q, I_DEFEND + (knight >> 1)] += 1
    items[p, I_ATTACK_WARDED] += 1
    clear_pending(state)


@inline
def conquer(state, items):
    """Turn the territory to the player; both sides lose the loser's count there (top card
    first); the additional losses are then paid one decision at a time."""
    p = state[PLAYER]
    q = 1 - p
    slot = state[PENDING_TERR]
    mine = height(state, p, slot)
    theirs = height(state, q, slot)
    extra = mine + theirs
    if state[OWNER + slot] == q:
        items[q, I_LOST + state[TERR_CARD + slot]] += 1
        if special_at(state, slot) == SP_CASTLE:
            extra += state[M_CASTLE_LOSS]
    for _ in range(theirs):
        discard(state, pop(state, q, slot))
        discard(state, pop(state, p, slot))
    state[OWNER + slot] = p
    items[p, I_CONQUERED + state[TERR_CARD + slot]] += 1
    state[CONQUESTS] += 1
    clear_pending(state)
    state[LOSS_LEFT] = extra
    settle_losses(state)


@inline
def settle_losses(state):
    """Stay in the loss phase while losses are owed and the conqueror has cards to pay."""
    if state[LOSS_LEFT] <= 0 or cards_held(state, state[PLAYER]) == 0:
        state[LOSS_LEFT] = 0
        state[PHASE] = MAIN
    else:
        state[PHASE] = LOSS


@inline
def pay_loss(state, move, items):
    p = state[PLAYER]
    if move == LOSS_AVALON:
        state[AVALON_USED] = 1
        state[LOSS_LEFT] = max(0, state[LOSS_LEFT] - state[M_AVALON_RED])
        items[p, I_AVALON] += 1
    elif move < LOSS_LAYOUT:
        add_hand(state, p, move - LOSS_HAND, -1)
        discard(state, move - LOSS_HAND)
        state[LOSS_LEFT] -= 1
    else:
        discard(state, pop(state, p, move - LOSS_LAYOUT))
        state[LOSS_LEFT] -= 1
    settle_losses(state)


# ---------------------------------------------------------------- end of turn
@inline
def go_to_supply(state):
    """All nine tiles used: turn them over again, except a dark tile still lying before a
    player (it is turned face down once its cards are drawn)."""
    total = 0
    for k in range(N_TILE_KINDS):
        total += state[TILE_AVAIL + k]
    if total == 0:
        for k in range(N_TILE_KINDS):
            state[TILE_AVAIL + k] = state[P_TILE_COUNT + k]
        for s in range(2):
            if state[DARK_PENDING + s] >= 0:
                state[TILE_AVAIL + state[DARK_PENDING + s]] -= 1
    state[PHASE] = SUPPLY


@inline
def take_tile(state, kind, chance, items):
    p = state[PLAYER]
    state[TILE_AVAIL + kind] -= 1
    items[p, I_TILE + kind] += 1
    if kind >= FIRST_DARK:
        state[DARK_PENDING + p] = kind
    else:
        draw(state, p, tile_cards(state, p, kind), chance)
    after_drawing(state, chance, items)


@inline
def after_drawing(state, chance, items):
    if state[HAND_SIZE + state[PLAYER]] > state[M_HAND_LIMIT]:
        state[PHASE] = DISCARD_PHASE
    else:
        end_turn(state, chance, items)


@inline
def end_turn(state, chance, items):
    p = state[PLAYER]
    state[TURNS] += 1
    if crowns(state, p) >= state[M_WIN]:
        state[WINNER] = p
    elif cards_exhausted(state):
        state[WINNER] = 2  # dead position: finish() ranks by crowns
    else:
        start_turn(state, 1 - p, chance)
    for i in range(N_TERR):
        if state[WINNER] >= 0 and state[OWNER + i] >= 0:
            items[state[OWNER + i], I_HELD + state[TERR_CARD + i]] += 1


@inline
def cards_exhausted(state):
    """No card in the draw pile, the discard pile or either hand: no move can ever change
    the layout again (every play needs a hand card), so the game is over (NOTES.md)."""
    if state[DECK_N] > 0 or state[HAND_SIZE] > 0 or state[HAND_SIZE + 1] > 0:
        return False
    for t in range(N_TYPES):
        if state[DISCARD + t] > 0:
            return False
    return True


@inline
def start_turn(state, seat, chance):
    state[PLAYER] = seat
    state[PHASE] = MAIN
    state[CONQUESTS] = 0
    state[AVALON_USED] = 0
    state[START_DRAWN] = 0
    kind = state[DARK_PENDING + seat]
    if kind >= 0:
        state[START_DRAWN] = draw(state, seat, tile_cards(state, seat, kind),
                                  chance)
        state[DARK_PENDING + seat] = -1


# ---------------------------------------------------------------- apply
@inline
def apply_move(params, state, move, chance, items):
    p = state[PLAYER]
    if move == END_PLAYS:
        go_to_supply(state)
    elif move < ENCHANT:
        t = (move - STRENGTHEN) // N_TERR
        add_hand(state, p, t, -1)
        push(state, p, (move - STRENGTHEN) % N_TERR, t)
        items[p, I_STRENGTHEN + t] += 1
    elif move < ATTACK:
        announce_enchant(state, move - ENCHANT, items)
    elif move < COUNTER_NO:
        announce_attack(state, (move - ATTACK) // N_TERR, (move - ATTACK) % N_TERR,
                        items)
    elif move == COUNTER_NO:
        enchant_succeeds(state, items)
    elif move == COUNTER_YES:
        counter_spell(state, items)
    elif move == DEFEND_NO:
        conquer(state, items)
    elif move == DEFEND_YES:
        defend(state, items)
    elif move < SUPPLY_TILE:
        pay_loss(state, move, items)
    elif move < DISCARD_CARD:
        take_tile(state, move - SUPPLY_TILE, chance, items)
    else:
        add_hand(state, p, move - DISCARD_CARD, -1)
        discard(state, move - DISCARD_CARD)
        after_drawing(state, chance, items)


# ---------------------------------------------------------------- end and view
@kernel
def finish(params, state, scores, ranks):
    for s in range(2):
        scores[s] = crowns(state, s)
    if state[WINNER] < 2:
        for s in range(2):
            ranks[s] = 1 if s == state[WINNER] else 2
        return REASON_CROWNS
    draw_game = state[M_EXHAUSTED_DRAW] == 1
    for s in range(2):
        ranks[s] = 1 if draw_game or scores[s] >= scores[1 - s] else 2
    return REASON_EXHAUSTED


@kernel
def observe(params, state, seat, obs):
    """Hidden: the other hand's types, the draw pile, face-down territory cards. What the
    seat knows of the other hand (SHOWN, the enchantress a counter-spell brought it) is
    public, like the hand's size."""
    copy_into(obs, state)
    q = 1 - seat
    for t in range(N_TYPES):
        obs[HAND + q * N_TYPES + t] = HIDDEN
    for k in range(state[DECK_N]):
        obs[DECK + k] = HIDDEN
    for i in range(N_TERR):
        if state[OWNER + i] < 0:
            obs[TERR_CARD + i] = HIDDEN


# ---------------------------------------------------------------- determinisation (search)
@kernel
def determinize(params, obs, seat, state, stream, scratch):
    """Fill ``state`` with a full state drawn uniformly from those ``seat`` cannot tell
    from ``obs``: the face-down territory cards dealt to the face-down slots, and the
    cards the seat has not seen (all cards less its hand, both layouts, the discard pile,
    an announced enchantress and the other hand's cards it knows of) dealt to the other
    hand and the draw pile, in a new order (NOTES.md, Determinisation). ``scratch``
    (int32[state_size]) holds the unseen territory cards, then the unseen cards by type
    and one by one."""
    copy_into(state, obs)
    deal_territories(state, stream, scratch)
    q = 1 - seat
    n = unseen_cards(state, seat, scratch)
    must = -1  # a card type the other hand is known to hold (it was asked to answer)
    if seat == state[PLAYER] and state[PHASE] == COUNTER:
        must = state[PENDING_TYPE]
    elif seat == state[PLAYER] and state[PHASE] == DEFEND:
        must = state[PENDING_TYPE] & ~ENCHANTRESS
    if must >= 0 and state[SHOWN + q * N_TYPES + must] > 0:
        must = -1  # already known to be there
    if must < 0:
        deal_hand_and_pile(state, q, n, stream, scratch)
    else:
        deal_holding(state, q, n, must, stream, scratch)


@kernel
def deal_territories(state, stream, scratch):
    """The territory cards not yet turned over, shuffled into the face-down slots."""
    n = 0
    for card in range(N_TERR):
        seen = False
        for i in range(N_TERR):
            seen |= state[TERR_CARD + i] == card
        if not seen:
            scratch[n] = card
            n += 1
    shuffle(stream, scratch, n)
    k = 0
    for i in range(N_TERR):
        if state[TERR_CARD + i] == HIDDEN:
            state[TERR_CARD + i] = scratch[k]
            k += 1


@kernel
def unseen_cards(state, seat, scratch):
    """The cards ``seat`` has not seen, one entry each in ``scratch[N_TYPES:]``
    (``scratch[:N_TYPES]`` counts them by type); returns how many."""
    for t in range(N_TYPES):
        scratch[t] = 0
    for c in range(state[M_COLOURS]):
        scratch[2 * c] = state[M_KNIGHTS]
        scratch[2 * c + ENCHANTRESS] = state[M_ENCH]
    q = 1 - seat
    for t in range(N_TYPES):
        scratch[t] -= (state[HAND + seat * N_TYPES + t] + state[DISCARD + t]
                       + state[SHOWN + q * N_TYPES + t])
    for s in range(2):
        for i in range(N_TERR):
            at = stack_at(state, s, i)
            for k in range(height(state, s, i)):
                scratch[state[at + k]] -= 1
    if state[PHASE] == COUNTER:
        scratch[state[PENDING_TYPE]] -= 1  # the announced enchantress, in the air
    n = 0
    for t in range(N_TYPES):
        for _ in range(scratch[t]):
            scratch[N_TYPES + n] = t
            n += 1
    return n


@kernel
def deal_hand_and_pile(state, q, n, stream, scratch):
    """Shuffle the ``n`` unseen cards: the first fill ``q``'s hand beside the cards known
    to be in it, the rest, in that order, are the draw pile."""
    pool = scratch[N_TYPES:N_TYPES + n]
    shuffle(stream, pool, n)
    m = known_in_hand(state, q)
    for k in range(m):
        state[HAND + q * N_TYPES + pool[k]] += 1
    for k in range(n - m):
        state[DECK + k] = pool[m + k]


@kernel
def deal_holding(state, q, n, must, stream, scratch):
    """As ``deal_hand_and_pile``, given that ``q``'s hand holds at least one card of type
    ``must``: how many it holds is drawn from the hypergeometric law given at least one,
    the rest of the hand from the other unseen cards, and the pile is what is left,
    shuffled."""
    m = known_in_hand(state, q)
    marked = scratch[must]
    j = hypergeometric_at_least_one(stream, marked, n, m)
    others = scratch[N_TYPES:N_TYPES + n]
    k = 0
    for x in range(n):
        if others[x] != must:
            others[k] = others[x]
            k += 1
    shuffle(stream, others, k)
    state[HAND + q * N_TYPES + must] += j
    for x in range(m - j):
        state[HAND + q * N_TYPES + others[x]] += 1
    d = 0
    for x in range(m - j, k):
        state[DECK + d] = others[x]
        d += 1
    for _ in range(marked - j):
        state[DECK + d] = must
        d += 1
    shuffle(stream, state[DECK:DECK + d], d)


@kernel
def known_in_hand(state, q):
    """Set ``q``'s hand to the cards the other seat knows are in it; returns how many more
    it holds (to be dealt)."""
    m = state[HAND_SIZE + q]
    for t in range(N_TYPES):
        state[HAND + q * N_TYPES + t] = state[SHOWN + q * N_TYPES + t]
        m -= state[SHOWN + q * N_TYPES + t]
    return m


@kernel
def hypergeometric_at_least_one(stream, marked, n, m):
    """How many of ``marked`` cards among ``n`` a uniform hand of ``m`` holds, drawn given
    that it holds at least one: P(j) is proportional to C(marked, j) C(n - marked, m - j)."""
    lo = max(1, m - (n - marked))
    hi = min(marked, m)
    total = 0.0
    w = 1.0
    for j in range(lo, hi + 1):
        total += w
        w *= (marked - j) * (m - j) / ((j + 1) * (n - marked - m + j + 1))
    u = rand_below(stream, 1 << 53) / float(1 << 53) * total
    w = 1.0
    for j in range(lo, hi):
        if u < w:
            return j
        u -= w
        w *= (marked - j) * (m - j) / ((j + 1) * (n - marked - m + j + 1))
    return hi


# ---------------------------------------------------------------- how each seat is doing
# progress (the optional kernel; NOTES.md, Progress measure): crowns held, and before the
# end the cards that will win or keep more (each worth what a card costs of a conquest)
# less a share of the crowns the opponent can attack now.

AT_RISK = 0.25
"""The share of a territory's crowns counted lost while the opponent can attack it (his side
there at least as high as the owner's, a castle's bonus added): in the next turn such a
territory was taken in 9% of the cases under random play, in 45% under the heuristic."""


@inline
def card_crowns(state):
    """What a card is worth in crowns: a territory's mean crowns over the cards its
    conquest costs the conqueror when both sides hold the setup's ``setup.cards_per_side``
    (k) there: the loser's k go and his own k with them (the attack card first), then the
    additional losses, as many as both sides held (2k + 1): 3k + 1 cards."""
    total = 0
    for c in range(N_TERR):
        total += state[P_CROWNS + c]
    return total / N_TERR / (3 * state[M_PER_SIDE] + 1)


@inline
def crowns_at_risk(state, seat):
    """Crowns of the seat's territories that the opponent's side is high enough to attack."""
    q = 1 - seat
    at_risk = 0
    for i in range(N_TERR):
        if state[OWNER + i] == seat:
            guard = height(state, seat, i)
            if special_at(state, i) == SP_CASTLE:
                guard += state[M_CASTLE_DEF]
            if height(state, q, i) >= guard:
                at_risk += state[P_CROWNS + state[TERR_CARD + i]]
    return at_risk


@kernel
def progress(params, state, out):
    """``out`` (float64[2]): crowns held; before the end, plus ``card_crowns`` for every
    card in hand and in the layout, less ``AT_RISK`` of the crowns the opponent can attack.
    At the end, the crowns ``finish`` scores and ranks by. (The game's numbers are in the
    state's RULES block, so ``params`` is not read.)"""
    worth = card_crowns(state)
    for s in range(2):
        out[s] = standing(state, s, worth)


@inline
def standing(state, seat, worth):
    """The seat's ``progress`` value; reads only what both seats see (the features use it)."""
    if is_over(state):
        return float(crowns(state, seat))
    return crowns(state, seat) + (worth * cards_held(state, seat)
                                  - AT_RISK * crowns_at_risk(state, seat))


# phase: the kind of decision awaited, an index into GameSpec.phases
PHASES = ("play", "answer", "losses", "supply", "discard")
F_PLAY, F_ANSWER, F_LOSSES, F_SUPPLY, F_DISCARD = range(5)
N_PHASES = len(PHASES)


@kernel
def phase(params, state):
    """The player's plays (strengthen, enchant, attack, end); the defender's answer (a
    counter-spell or a defence); the conqueror's additional losses; the supply tile; the
    discards down to the hand limit."""
    ph = state[PHASE]
    if ph == COUNTER or ph == DEFEND:
        return F_ANSWER
    if ph == LOSS:
        return F_LOSSES
    if ph == SUPPLY:
        return F_SUPPLY
    if ph == DISCARD_PHASE:
        return F_DISCARD
    return F_PLAY


# ---------------------------------------------------------------- what a seat looks at
# features (the optional kernel of the learnt players, issue 29; NOTES.md, Features): the
# vector a learnt player of ``seat`` reads, from its observation alone. The board notions
# both seats have are written for the seat ("own_") and then for the other ("next_"), each
# side read from what both see; the hands apart: the seat's own exactly, the other's as far
# as the seat can count it (its size, the cards known to be there, the unseen cards).
#
# Written for speed (a learnt player calls it once per legal move): scalars, loops and
# bitmasks, no array; one pass over the row a side. The unseen cards by type and the chance
# the other hand holds each type are needed by several entries; they go to ``out`` as
# scratch (SCRATCH_UNSEEN, SCRATCH_HOLDS, inside the side blocks) until the side blocks
# overwrite them.

SIDE_FEATURES = (
    "crowns", "territories", "castles", "avalon", "stone_circle", "hand_cards",
    "layout_cards", "guard_cards", "crowns_open_now", "crowns_open_next_turn",
    "slots_attackable", "face_down_attackable", "crowns_in_reach", "cheapest_conquest_cards",
    "most_terrain", "largest_connected", "terrain_territories", "dark_tile_cards", "progress")
"""Written twice, ``own_<name>`` for the seat and then ``next_<name>`` for the other."""
HAND_FEATURES = (
    "own_hand_knights", "own_hand_enchantresses", "own_knight_colours",
    "own_enchantress_colours", "next_hand_known", "next_hand_knights_expected",
    "next_hand_enchantresses_expected", "own_attack_unanswered", "own_enchant_targets",
    "own_enchant_unanswered", "next_enchant_threats")
TABLE_FEATURES = (
    "progress_lead", "face_down_slots", "face_down_crowns_each", "draw_pile", "discard_pile",
    "unseen_cards", "tiles_face_up", "own_best_light_tile", "own_best_dark_tile")
TURN_FEATURES = (
    "turns_played", "turns_fraction_of_cap", "own_turn", "phase_play", "phase_answer",
    "phase_losses", "phase_supply", "phase_discard", "conquests_this_turn", "losses_owed",
    "avalon_used_this_turn", "announced_attack_crowns", "announced_enchantment")
FEATURES = (tuple(f"{who}_{name}" for who in ("own", "next") for name in SIDE_FEATURES)
            + HAND_FEATURES + TABLE_FEATURES + TURN_FEATURES)
N_SIDE = len(SIDE_FEATURES)
F_OWN, F_NEXT = 0, N_SIDE
(F_CROWNS, F_TERRITORIES, F_CASTLES, F_AVALON, F_CIRCLE, F_HAND, F_LAYOUT, F_GUARDS,
 F_OPEN_NOW, F_OPEN_NEXT, F_ATTACKABLE, F_FACE_DOWN_READY, F_REACH, F_CHEAPEST,
 F_MOST_TERRAIN, F_CONNECTED, F_TERRAIN_TERR, F_DARK, F_PROGRESS) = range(N_SIDE)  # in a block
F_HANDS = 2 * N_SIDE
F_TABLE = F_HANDS + len(HAND_FEATURES)
F_TURN = F_TABLE + len(TABLE_FEATURES)
SCRATCH_UNSEEN = F_OWN                       # out[SCRATCH_UNSEEN + t]: unseen cards of type t
SCRATCH_HOLDS = F_OWN + N_TYPES              # out[SCRATCH_HOLDS + t]: chance he holds type t
assert F_TURN + len(TURN_FEATURES) == len(FEATURES)
assert SCRATCH_HOLDS + N_TYPES <= F_HANDS, "the scratch must lie in the side blocks"


@inline
def slot_crowns(obs, slot, each):
    """Crowns of the territory in ``slot``: a face-down one at ``each``, the mean of the
    cards not yet turned over."""
    card = obs[TERR_CARD + slot]
    return float(obs[P_CROWNS + card]) if card >= 0 else each


@inline
def face_down_each(obs):
    """The mean crowns of the territory cards not yet turned over (0 when none is)."""
    total = 0
    n = 0
    for c in range(N_TERR):
        total += obs[P_CROWNS + c]
    for i in range(N_TERR):
        if obs[TERR_CARD + i] >= 0:
            total -= obs[P_CROWNS + obs[TERR_CARD + i]]
        else:
            n += 1
    return total / n if n > 0 else 0.0


# ---- the hands


@inline
def count_unseen(obs, seat, out):
    """out[SCRATCH_UNSEEN + t]: the cards of type ``t`` the seat has not seen (the draw pile
    and the other hand less what is known there); returns how many in all."""
    q = 1 - seat
    for t in range(N_TYPES):
        out[SCRATCH_UNSEEN + t] = 0.0
    for c in range(obs[M_COLOURS]):
        out[SCRATCH_UNSEEN + 2 * c] = obs[M_KNIGHTS]
        out[SCRATCH_UNSEEN + 2 * c + ENCHANTRESS] = obs[M_ENCH]
    for t in range(N_TYPES):
        out[SCRATCH_UNSEEN + t] -= (obs[HAND + seat * N_TYPES + t] + obs[DISCARD + t]
                                    + obs[SHOWN + q * N_TYPES + t])
    nc = obs[M_NCARDS]
    for pile in range(2 * N_TERR):
        at = DECK + nc + pile * nc
        for k in range(obs[HEIGHT + pile]):
            out[SCRATCH_UNSEEN + obs[at + k]] -= 1.0
    if obs[PHASE] == COUNTER:
        out[SCRATCH_UNSEEN + obs[PENDING_TYPE]] -= 1.0  # the announced enchantress
    total = 0.0
    for t in range(N_TYPES):
        total += out[SCRATCH_UNSEEN + t]
    return total


@inline
def unknown_in_hand(obs, q):
    """Cards of ``q``'s hand the other seat does not know."""
    m = obs[HAND_SIZE + q]
    for t in range(N_TYPES):
        m -= obs[SHOWN + q * N_TYPES + t]
    return m


@inline
def holding_chances(obs, seat, unseen, out):
    """out[SCRATCH_HOLDS + t]: the chance the other hand holds a card of type ``t``: 1 when
    one is known to be there, else that its unknown cards, drawn from the ``unseen``,
    hold one: 1 - C(unseen - u, m) / C(unseen, m)."""
    q = 1 - seat
    m = min(unknown_in_hand(obs, q), int(unseen))
    all_hands = 1.0
    for k in range(m):
        all_hands *= unseen - k
    for t in range(N_TYPES):
        u = out[SCRATCH_UNSEEN + t]
        without = 1.0
        for k in range(m):
            without *= max(0.0, unseen - u - k)
        known = obs[SHOWN + q * N_TYPES + t] > 0
        out[SCRATCH_HOLDS + t] = 1.0 if known else 1.0 - without / all_hands


@inline
def own_hand_features(obs, seat, out):
    knights = enchantresses = knight_colours = enchantress_colours = 0
    for t in range(N_TYPES):
        n = obs[HAND + seat * N_TYPES + t]
        if t & 1:
            enchantresses += n
            enchantress_colours += n > 0
        else:
            knights += n
            knight_colours += n > 0
    out[F_HANDS] = knights
    out[F_HANDS + 1] = enchantresses
    out[F_HANDS + 2] = knight_colours
    out[F_HANDS + 3] = enchantress_colours


@inline
def other_hand_features(obs, seat, unseen, out):
    """What the seat can count of the other hand: the cards known there, and its knights and
    enchantresses expected (those known, plus its unknown cards at the unseen cards' mix)."""
    q = 1 - seat
    m = unknown_in_hand(obs, q)
    share = m / unseen if unseen > 0 else 0.0
    known = knights = enchantresses = 0.0
    for t in range(N_TYPES):
        shown = obs[SHOWN + q * N_TYPES + t]
        known += shown
        expected = shown + share * out[SCRATCH_UNSEEN + t]
        if t & 1:
            enchantresses += expected
        else:
            knights += expected
    out[F_HANDS + 4] = known
    out[F_HANDS + 5] = knights
    out[F_HANDS + 6] = enchantresses


@inline
def chance_features(obs, seat, out):
    """The best chance an attack of the seat's is not warded off (over the attacking cards
    it holds, 0 without one); the enemy top cards its enchantresses can enchant and the best
    chance of no counter-spell (0 without a target); the expected number of its top cards
    the other can enchant."""
    q = 1 - seat
    hand_at = HAND + seat * N_TYPES
    attackers = KNIGHTS if not owns_special(obs, seat, SP_CIRCLE) else (1 << N_TYPES) - 1
    attack = 0.0
    for t in range(N_TYPES):
        if obs[hand_at + t] > 0 and (attackers >> t) & 1:
            attack = max(attack, 1.0 - out[SCRATCH_HOLDS + (t & ~ENCHANTRESS)])
    targets = 0
    enchant = threats = 0.0
    for i in range(N_TERR):
        theirs = top_card(obs, q, i)
        if theirs >= 0 and obs[hand_at + (theirs | ENCHANTRESS)] > 0:
            targets += 1
            enchant = max(enchant, 1.0 - out[SCRATCH_HOLDS + (theirs | ENCHANTRESS)])
        mine = top_card(obs, seat, i)
        if mine >= 0:
            threats += out[SCRATCH_HOLDS + (mine | ENCHANTRESS)]
    out[F_HANDS + 7] = attack
    out[F_HANDS + 8] = targets
    out[F_HANDS + 9] = enchant
    out[F_HANDS + 10] = threats


# ---- each side's board


@inline
def next_turn_cards(obs, o):
    """The cards ``o`` can play in his next turn: his hand and a dark tile's draw."""
    kind = obs[DARK_PENDING + o]
    return obs[HAND_SIZE + o] + (tile_cards(obs, o, kind) if kind >= 0 else 0)


@inline
def tile_cards_by(obs, kind, most, connected, with_terrain):
    """``tile_cards`` from the counts it reads (the side pass has them at hand)."""
    if kind == TILE_PER_TERRITORY_DARK:
        count = with_terrain
    elif kind == TILE_CONNECTED_LIGHT:
        count = connected
    elif kind == TILE_FIXED_LIGHT or kind == FIRST_DARK + TILE_FIXED_LIGHT:
        count = 1
    else:
        count = most
    return obs[P_TILE_CARDS + kind] * count


@inline
def conquest_cards(obs, s, slot, reduction):
    """The cards a conquest of ``slot`` by ``s`` costs ``s``: its pile's share of the
    loser's count (the attacking card first), then the additional losses (``reduction``,
    Avalon's, off). At 0 : 0 the attacking card stays to guard the territory."""
    o = 1 - s
    theirs = height(obs, o, slot)
    extra = height(obs, s, slot) + 1 + theirs
    if obs[OWNER + slot] == o and special_at(obs, slot) == SP_CASTLE:
        extra += obs[M_CASTLE_LOSS]
    return theirs + max(0, extra - reduction)


@inline
def in_reach(obs, s, open_slots, each):
    """The crowns of the richest conquests of ``open_slots`` (a bitmask), as many as ``s``
    may still make this turn (or in a turn of its own), largest first without an array:
    each round takes the best (crowns, slot) below the last one taken, ties to the lower
    slot."""
    k = obs[M_MAX_CONQ] - (obs[CONQUESTS] if obs[PLAYER] == s else 0)
    total = 0.0
    last_v, last_i = 1e18, -1
    for _ in range(min(k, N_TERR)):
        best_v, best_i = -1.0, -1
        m = open_slots
        while m != 0:
            i = trailing_zeros(m)
            m &= m - 1
            v = slot_crowns(obs, i, each)
            if (v < last_v or (v == last_v and i > last_i)) and v > best_v:
                best_v, best_i = v, i
        if best_i >= 0:
            total += best_v
            last_v, last_i = best_v, best_i
    return total


@inline
def conquests_open(obs, s, open_slots, reduction, out, at):
    """How many slots ``s`` can attack now (its side high enough; a knight still needed)
    and the cheapest of those conquests (0 when none is open, or when it costs nothing)."""
    n = 0
    cheapest = 0
    m = open_slots
    while m != 0:
        i = trailing_zeros(m)
        m &= m - 1
        cost = conquest_cards(obs, s, i, reduction)
        cheapest = cost if n == 0 else min(cheapest, cost)
        n += 1
    out[at + F_ATTACKABLE] = n
    out[at + F_CHEAPEST] = cheapest


@inline
def side_features(obs, s, each, worth, out, at):
    """The block of ``s`` at ``out[at:]`` (SIDE_FEATURES, in order), in one pass over the
    row: its territories, guards and terrains, what the other can attack now and next turn,
    the slots open to its attacks (a bitmask), the largest connected run (revealed Avalon
    and Swamp skipped, as ``largest_connected`` counts)."""
    o = 1 - s
    castle_def = obs[M_CASTLE_DEF]
    his_cards = next_turn_cards(obs, o)
    crowns_held = territories = castles = avalon = circle = layout = guards = 0
    open_now = open_next = face_down = open_slots = 0
    plain = forest = hill = run = connected = 0
    for i in range(N_TERR):
        owner = obs[OWNER + i]
        mine = obs[HEIGHT + s * N_TERR + i]
        theirs = obs[HEIGHT + o * N_TERR + i]
        layout += mine
        if owner < 0:
            face_down += mine >= theirs
            open_slots |= (mine >= theirs) << i
            run = 0
            continue
        card = obs[TERR_CARD + i]
        special = obs[P_SPECIAL + card]
        terrain = obs[P_TERRAIN + card]
        castle = castle_def if special == SP_CASTLE else 0
        if owner == s:
            c = obs[P_CROWNS + card]
            crowns_held += c
            territories += 1
            castles += special == SP_CASTLE
            avalon += special == SP_AVALON
            circle += special == SP_CIRCLE
            guards += mine
            open_now += c if theirs >= mine + castle else 0
            lay_up = max(0, mine + castle - theirs)
            open_next += c if lay_up + 1 <= his_cards else 0  # lay up to the need, attack
            plain += terrain == PLAIN
            forest += terrain == FOREST
            hill += terrain == HILL
        else:
            open_slots |= (mine >= theirs + castle) << i
        if terrain != NO_TERRAIN:
            run = run + 1 if owner == s else 0
            connected = max(connected, run)
    reduction = 0
    if avalon > 0 and (obs[PLAYER] != s or obs[AVALON_USED] == 0):
        reduction = obs[M_AVALON_RED]
    conquests_open(obs, s, open_slots, reduction, out, at)
    most = max(plain, forest, hill)
    with_terrain = plain + forest + hill
    kind = obs[DARK_PENDING + s]
    out[at + F_CROWNS] = crowns_held
    out[at + F_TERRITORIES] = territories
    out[at + F_CASTLES] = castles
    out[at + F_AVALON] = avalon
    out[at + F_CIRCLE] = circle
    out[at + F_HAND] = obs[HAND_SIZE + s]
    out[at + F_LAYOUT] = layout
    out[at + F_GUARDS] = guards
    out[at + F_OPEN_NOW] = open_now
    out[at + F_OPEN_NEXT] = open_next
    out[at + F_FACE_DOWN_READY] = face_down
    out[at + F_REACH] = crowns_held + in_reach(obs, s, open_slots, each)
    out[at + F_MOST_TERRAIN] = most
    out[at + F_CONNECTED] = connected
    out[at + F_TERRAIN_TERR] = with_terrain
    out[at + F_DARK] = tile_cards_by(obs, kind, most, connected, with_terrain) if kind >= 0 else 0
    out[at + F_PROGRESS] = standing(obs, s, worth)


# ---- the table and the turn


@inline
def tile_face_up(obs, kind):
    """Tiles of ``kind`` the next choice can take: those face up, or, when none of any kind
    is, all of them less a dark tile lying before a player (``go_to_supply``)."""
    total = 0
    for k in range(N_TILE_KINDS):
        total += obs[TILE_AVAIL + k]
    if total > 0:
        return obs[TILE_AVAIL + kind]
    lying = (obs[DARK_PENDING] == kind) + (obs[DARK_PENDING + 1] == kind)
    return obs[P_TILE_COUNT + kind] - lying


@inline
def table_features(obs, each, unseen, out):
    """Reads the seat's supply counts from its side block (written before)."""
    hidden = 0
    for i in range(N_TERR):
        hidden += obs[OWNER + i] < 0
    discarded = tiles = 0
    for t in range(N_TYPES):
        discarded += obs[DISCARD + t]
    for k in range(N_TILE_KINDS):
        tiles += obs[TILE_AVAIL + k]
    most = int(out[F_OWN + F_MOST_TERRAIN])
    connected = int(out[F_OWN + F_CONNECTED])
    with_terrain = int(out[F_OWN + F_TERRAIN_TERR])
    light = dark = 0
    for k in range(N_TILE_KINDS):
        if tile_face_up(obs, k) > 0:
            cards = tile_cards_by(obs, k, most, connected, with_terrain)
            if k >= FIRST_DARK:
                dark = max(dark, cards)
            else:
                light = max(light, cards)
    out[F_TABLE] = out[F_OWN + F_PROGRESS] - out[F_NEXT + F_PROGRESS]
    out[F_TABLE + 1] = hidden
    out[F_TABLE + 2] = each
    out[F_TABLE + 3] = obs[DECK_N]
    out[F_TABLE + 4] = discarded
    out[F_TABLE + 5] = unseen
    out[F_TABLE + 6] = tiles
    out[F_TABLE + 7] = light
    out[F_TABLE + 8] = dark


@inline
def turn_features(params, obs, seat, each, out):
    out[F_TURN] = obs[TURNS]
    out[F_TURN + 1] = obs[TURNS] / max(1, obs[M_MAX_TURNS])
    out[F_TURN + 2] = 1.0 if obs[PLAYER] == seat else 0.0
    now = phase(params, obs)
    for k in range(N_PHASES):
        out[F_TURN + 3 + k] = 1.0 if now == k else 0.0
    out[F_TURN + 8] = obs[CONQUESTS]
    out[F_TURN + 9] = obs[LOSS_LEFT]
    out[F_TURN + 10] = obs[AVALON_USED]
    attacked = obs[PHASE] == DEFEND
    out[F_TURN + 11] = slot_crowns(obs, obs[PENDING_TERR], each) if attacked else 0.0
    out[F_TURN + 12] = 1.0 if obs[PHASE] == COUNTER else 0.0


@kernel
def features(params, obs, seat, out):
    """``out`` (float64[len(FEATURES)]): what a player of ``seat`` looks at, read from
    ``obs`` (``observe``'s view for ``seat``; the game's numbers are its RULES block):
    FEATURES names the entries, NOTES.md (Features) says what each means."""
    each = face_down_each(obs)
    unseen = count_unseen(obs, seat, out)
    holding_chances(obs, seat, unseen, out)
    own_hand_features(obs, seat, out)
    other_hand_features(obs, seat, unseen, out)
    chance_features(obs, seat, out)
    worth = card_crowns(obs)
    side_features(obs, seat, each, worth, out, F_OWN)             # over the scratch
    side_features(obs, 1 - seat, each, worth, out, F_NEXT)
    table_features(obs, each, unseen, out)
    turn_features(params, obs, seat, each, out)


# ---------------------------------------------------------------- what one move does
# move_features (the optional kernel of a fast learnt policy, issue 29; NOTES.md, Move
# features): what a player of ``seat`` looks at about one legal move, read from ``obs``
# alone, without applying it. ``features`` sums the layout up; a move names one card and
# one slot, and these entries say what it does there: the kind of move, the card it spends
# (its kind, copies left, the last of its kind), the slot it concerns (its crowns, owner,
# guards and what the move changes of them: the margin, the crowns it opens or closes to
# an attack, its top card's exposure to an enchantment) and, for an attack, an enchantment,
# an answer, a loss, a tile, what it gains, costs or risks. An entry that does not concern
# the move is 0. Computed from the move's sure part: an attack or an enchantment as if not
# warded off, with the chance that it is as an entry of its own.
#
# Written for speed (a policy calls it once per legal move, up to 60 a decision): scalars
# and short loops over the row; the unseen cards are counted only for the one or two types
# a move concerns.

MOVE_CARD_FEATURES = ("card_copies", "card_last_of_kind")
MOVE_SLOT_FEATURES = (
    "slot_crowns", "slot_own", "slot_next", "slot_castle", "slot_own_cards", "slot_next_cards",
    "slot_adjacent_own", "slot_margin_after",
    "own_open_now_change", "own_open_next_turn_change", "slot_attackable_change")
MOVE_EFFECT_FEATURES = (
    "crowns_change", "next_crowns_change", "wins_game_chance", "next_wins_game_chance",
    "warded_chance", "conquest_cards", "next_conquest_cards", "retake_margin",
    "losses_owed_after", "tile_cards_now", "tile_cards_next_turn", "tile_cards_over_limit")
MOVE_FEATURES = MOVE_CARD_FEATURES + MOVE_SLOT_FEATURES + MOVE_EFFECT_FEATURES
MF_CARD = 0
MF_SLOT = MF_CARD + len(MOVE_CARD_FEATURES)
(MS_CROWNS, MS_OWN, MS_NEXT, MS_CASTLE, MS_OWN_CARDS, MS_NEXT_CARDS,
 MS_ADJACENT, MS_MARGIN, MS_OPEN_NOW, MS_OPEN_NEXT,
 MS_ATTACKABLE) = range(MF_SLOT, MF_SLOT + len(MOVE_SLOT_FEATURES))
(ME_CROWNS, ME_NEXT_CROWNS, ME_WINS, ME_NEXT_WINS, ME_WARDED, ME_CONQUEST, ME_NEXT_CONQUEST,
 ME_RETAKE, ME_LOSSES, ME_TILE_NOW, ME_TILE_NEXT,
 ME_OVER_LIMIT) = range(MF_SLOT + len(MOVE_SLOT_FEATURES), len(MOVE_FEATURES))


@inline
def holds_chance(obs, seat, t):
    """The chance the other hand holds a card of type ``t``, as ``seat`` counts it: 1 when
    one is known there (SHOWN), else that its unknown cards, drawn from the cards the seat
    has not seen, hold one (``holding_chances`` for one type: the unseen cards of ``t`` are
    counted here, the unseen cards in all are the draw pile and those unknown cards)."""
    q = 1 - seat
    if obs[SHOWN + q * N_TYPES + t] > 0:
        return 1.0
    m = unknown_in_hand(obs, q)
    if m == 0:
        return 0.0  # no card of his unknown: no need to count the unseen ones
    u = (obs[M_KNIGHTS] if t & 1 == KNIGHT else obs[M_ENCH]) if t >> 1 < obs[M_COLOURS] else 0
    u -= obs[HAND + seat * N_TYPES + t] + obs[DISCARD + t]
    if obs[PHASE] == COUNTER and obs[PENDING_TYPE] == t:
        u -= 1  # the announced enchantress, in the air
    nc = obs[M_NCARDS]
    for pile in range(2 * N_TERR):
        at = DECK + nc + pile * nc
        for k in range(obs[HEIGHT + pile]):
            u -= obs[at + k] == t
    unseen = obs[DECK_N] + m
    kept = every = 1.0
    for k in range(m):
        kept *= max(0, unseen - u - k)
        every *= unseen - k
    return 1.0 - kept / every


@inline
def win_chance(obs, s, slot, need):
    """The chance the territory in ``slot`` brings ``s`` at least ``need`` crowns: 0 or 1
    when it is revealed, else the share of the cards not yet turned over that do."""
    card = obs[TERR_CARD + slot]
    if card >= 0:
        return 1.0 if obs[P_CROWNS + card] >= need else 0.0
    turned = 0
    for i in range(N_TERR):
        if obs[TERR_CARD + i] >= 0:
            turned |= 1 << obs[TERR_CARD + i]
    n = hits = 0
    for c in range(N_TERR):
        if not (turned >> c) & 1:
            n += 1
            hits += obs[P_CROWNS + c] >= need
    return hits / n if n > 0 else 0.0


@inline
def adjacent_own(obs, s, slot):
    """``s``'s territories next to ``slot``, reading past a revealed Avalon or Swamp (they
    neither count nor interrupt a connected area, 20): 0 to 2."""
    n = 0
    for step in (-1, 1):
        i = slot + step
        while 0 <= i < N_TERR and obs[OWNER + i] >= 0 and \
                obs[P_TERRAIN + obs[TERR_CARD + i]] == NO_TERRAIN:
            i += step
        n += 0 <= i < N_TERR and obs[OWNER + i] == s
    return n


@inline
def castle_bonus(obs, slot):
    """The guard a revealed castle in ``slot`` adds for its owner (0 elsewhere)."""
    card = obs[TERR_CARD + slot]
    return obs[M_CASTLE_DEF] if card >= 0 and obs[P_SPECIAL + card] == SP_CASTLE else 0


@inline
def crowns_there(obs, slot):
    """``slot_crowns``, the mean of the cards not yet turned over counted (in one pass over
    the row) only when the slot is face down."""
    card = obs[TERR_CARD + slot]
    if card >= 0:
        return float(obs[P_CROWNS + card])
    total = n = 0
    for i in range(N_TERR):  # every card's crowns, less those turned over
        total += obs[P_CROWNS + i]
        turned = obs[TERR_CARD + i]
        if turned >= 0:
            total -= obs[P_CROWNS + turned]
        else:
            n += 1
    return total / n


@inline
def slot_after(obs, seat, slot, owner, mine, theirs, out):
    """The slot entries, given the slot's ``owner`` and both sides' cards (``mine``,
    ``theirs``) after the move. Read into locals first, written last: a store to ``out``
    would make the compiler read ``obs`` again (it cannot tell the arrays apart)."""
    q = 1 - seat
    c = crowns_there(obs, slot)
    before = obs[OWNER + slot]
    castle = castle_bonus(obs, slot)
    h_mine, h_theirs = height(obs, seat, slot), height(obs, q, slot)
    adjacent = adjacent_own(obs, seat, slot)
    his_cards = next_turn_cards(obs, q) if before == seat or owner == seat else 0
    guard = castle if owner == seat else -castle if owner == q else 0
    open_now = (own_open(owner == seat, mine, theirs, castle, -1)
                - own_open(before == seat, h_mine, h_theirs, castle, -1))
    open_next = (own_open(owner == seat, mine, theirs, castle, his_cards)
                 - own_open(before == seat, h_mine, h_theirs, castle, his_cards))
    attackable = (can_attack(owner, seat, mine, theirs, castle)
                  - can_attack(before, seat, h_mine, h_theirs, castle))
    out[MS_CROWNS] = c
    out[MS_OWN] = before == seat
    out[MS_NEXT] = before == q
    out[MS_CASTLE] = castle > 0
    out[MS_OWN_CARDS] = h_mine
    out[MS_NEXT_CARDS] = h_theirs
    out[MS_ADJACENT] = adjacent
    out[MS_MARGIN] = mine - theirs + guard
    out[MS_OPEN_NOW] = open_now * c
    out[MS_OPEN_NEXT] = open_next * c
    out[MS_ATTACKABLE] = attackable * c
    return c


@inline
def own_open(own, mine, theirs, castle, cards):
    """1 when the slot is the seat's (``own``) and the other can attack it: with ``cards``
    < 0, now (his side there high enough already); else in his next turn, with ``cards``
    to lay up to the guard (``castle`` its bonus) and then attack with."""
    if not own:
        return 0
    lay_up = max(0, mine + castle - theirs)
    return 1 if (lay_up == 0 if cards < 0 else lay_up + 1 <= cards) else 0


@inline
def can_attack(owner, seat, mine, theirs, castle):
    """1 when the slot is not the seat's and its side is high enough to attack it (a
    castle's bonus, ``castle``, counts for the other owner)."""
    if owner == seat:
        return 0
    return 1 if mine >= theirs + (castle if owner >= 0 else 0) else 0


@inline
def avalon_reduction(obs, s):
    """Avalon's reduction still open to ``s`` in the conquests of its (or its next) turn."""
    if owns_special(obs, s, SP_AVALON) and (obs[PLAYER] != s or obs[AVALON_USED] == 0):
        return obs[M_AVALON_RED]
    return 0


@inline
def card_entries(obs, seat, t, out):
    """The card a move spends, lays, loses or discards (its kind and colour are in the move's
    code): the copies held, the last of its kind in hand."""
    hand_at = HAND + seat * N_TYPES
    kind = t & 1
    same = 0
    for k in range(kind, N_TYPES, 2):
        same += obs[hand_at + k]
    out[MF_CARD] = obs[hand_at + t]
    out[MF_CARD + 1] = same == 1


@inline
def attack_entries(obs, seat, t, slot, out):
    """Attacking ``slot`` with type ``t``: as the conquest leaves it (our cards less his,
    his none, a castle ours), and the chances, gains and costs of it."""
    q = 1 - seat
    mine, theirs = height(obs, seat, slot) + 1, height(obs, q, slot)
    left = mine - theirs
    c = slot_after(obs, seat, slot, seat, left, 0, out)
    warded = holds_chance(obs, seat, t & ~ENCHANTRESS)
    out[ME_WARDED] = warded
    out[ME_CROWNS] = (1.0 - warded) * c
    out[ME_NEXT_CROWNS] = -(1.0 - warded) * c if obs[OWNER + slot] == q else 0.0
    if warded < 1.0:
        out[ME_WINS] = (1.0 - warded) * win_chance(obs, seat, slot,
                                                   obs[M_WIN] - crowns(obs, seat))
    out[ME_CONQUEST] = conquest_cards(obs, seat, slot, avalon_reduction(obs, seat))
    castle = castle_bonus(obs, slot)
    out[ME_RETAKE] = next_turn_cards(obs, q) - (left + castle + 1)


@inline
def answer_entries(obs, seat, move, out):
    """The defender's answer: a counter-spell or not, a ward or not, at the announced
    slot. Letting an attack through hands the slot over: both piles less his count, the
    attacker's losses, and his crowns."""
    q = 1 - seat
    slot = obs[PENDING_TERR]
    t = obs[PENDING_TYPE]
    mine, theirs = height(obs, seat, slot), height(obs, q, slot)
    owner = obs[OWNER + slot]
    if move == COUNTER_YES or move == DEFEND_YES:
        laid = t if move == COUNTER_YES else t & ~ENCHANTRESS
        card_entries(obs, seat, laid, out)
        slot_after(obs, seat, slot, owner, mine + 1, theirs, out)
    elif move == COUNTER_NO:   # his enchantress, then our top card, onto his pile
        slot_after(obs, seat, slot, owner, mine - 1, theirs + 2, out)
    else:
        c = slot_after(obs, seat, slot, q, 0, theirs - mine, out)
        out[ME_CROWNS] = -c if owner == seat else 0.0
        out[ME_NEXT_CROWNS] = c
        out[ME_NEXT_WINS] = win_chance(obs, q, slot, obs[M_WIN] - crowns(obs, q))
        extra = theirs + mine + (obs[M_CASTLE_LOSS] if owner == seat
                                 and castle_bonus(obs, slot) > 0 else 0)
        out[ME_NEXT_CONQUEST] = mine + max(0, extra - avalon_reduction(obs, q))


@kernel
def move_features(params, obs, seat, move, out):
    """``out`` (float64[len(MOVE_FEATURES)]): what a player of ``seat`` looks at about the
    legal ``move``, read from ``obs`` (``observe``'s view for ``seat``) without applying
    it; MOVE_FEATURES names the entries, NOTES.md (Move features) says what each means."""
    for k in range(len(MOVE_FEATURES)):
        out[k] = 0.0
    q = 1 - seat
    if move == END_PLAYS:
        return  # all 0: the move's code says it
    if move < ENCHANT:
        t, slot = (move - STRENGTHEN) // N_TERR, (move - STRENGTHEN) % N_TERR
        card_entries(obs, seat, t, out)
        slot_after(obs, seat, slot, obs[OWNER + slot], height(obs, seat, slot) + 1,
                   height(obs, q, slot), out)
    elif move < ATTACK:
        slot = move - ENCHANT
        taken = top_card(obs, q, slot)
        t = taken | ENCHANTRESS
        card_entries(obs, seat, t, out)
        slot_after(obs, seat, slot, obs[OWNER + slot], height(obs, seat, slot) + 2,
                   height(obs, q, slot) - 1, out)
        out[ME_WARDED] = holds_chance(obs, seat, t)
    elif move < COUNTER_NO:
        t, slot = (move - ATTACK) // N_TERR, (move - ATTACK) % N_TERR
        card_entries(obs, seat, t, out)
        attack_entries(obs, seat, t, slot, out)
    elif move < LOSS_HAND:
        answer_entries(obs, seat, move, out)
    elif move < LOSS_LAYOUT:
        card_entries(obs, seat, move - LOSS_HAND, out)
        out[ME_LOSSES] = obs[LOSS_LEFT] - 1
    elif move < LOSS_AVALON:
        slot = move - LOSS_LAYOUT
        mine = height(obs, seat, slot)
        slot_after(obs, seat, slot, obs[OWNER + slot], mine - 1, height(obs, q, slot), out)
        out[ME_LOSSES] = obs[LOSS_LEFT] - 1
    elif move == LOSS_AVALON:
        out[ME_LOSSES] = max(0, obs[LOSS_LEFT] - obs[M_AVALON_RED])
    elif move < DISCARD_CARD:
        kind = move - SUPPLY_TILE
        cards = tile_cards(obs, seat, kind)
        if kind < FIRST_DARK:
            out[ME_TILE_NOW] = cards
            out[ME_OVER_LIMIT] = max(0, obs[HAND_SIZE + seat] + cards - obs[M_HAND_LIMIT])
        else:
            out[ME_TILE_NEXT] = cards
    else:
        card_entries(obs, seat, move - DISCARD_CARD, out)
