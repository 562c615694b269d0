"""Determinisation: the kernels behind ``rules.determinize``, which deal again, at random,
everything a seat has not seen, consistently with what it remembers (NOTES.md:
Determinisation).

From seat ``v``'s observation: every card it sees stays; each of its memory groups (a hand
and/or face-down and pile cards, ``memory.py``) gets back its KNOWN cards plus UNKNOWN cards
from the *pool*, the farmland cards ``v`` has not seen anywhere; the places in no group get
the rest of the pool, and what is left over is what was put away at setup. Dealing the
pool from one shuffle, and each group's cards over its places by a second, is uniform over
the ways of laying the physical cards out (any deal of the pool is as likely as any other).
The other seats' memory, hidden from ``v``, is filled in as what the table shows them
(``public_memory``).

``scratch`` (int32[state_size]) holds the pool, the unseen places sorted by group and the
other seats' counts (its layout is below); nothing is allocated, since search calls this on
every iteration. ``p`` is the flat parameter array.
"""

from simkit.game import HIDDEN
from simkit.games.rabbit_hunt.memory import (
    cell_tags_at,
    face_up_at,
    group_at,
    placer_at,
    seen_at,
    tag_of,
    tidy,
    with_tag,
)
from simkit.games.rabbit_hunt.state import (
    BUNNY,
    CELLS,
    DECK_MAX,
    G_BUNNY_CAP,
    G_KNOWN,
    G_LOCS,
    G_OWNER,
    G_UNKNOWN,
    GROUP_W,
    GROUPS,
    HAND,
    IN_HAND,
    KNOWN_TAG,
    MAX_SEATS,
    N_FARMLAND,
    N_GROUPS,
    N_KINDS,
    N_PLAYERS,
    NO_CARD,
    P_CELLS,
    P_DECK_AT,
    PILE,
    PILE_LEN,
    PILE_TAGS,
    REMOVED,
    WAREHOUSE,
)
from simkit.jit import copy_into, inline, kernel
from simkit.rng import rand_below, shuffle

# scratch layout
SC_COUNT = 0  # [N_FARMLAND] the pool by kind
SC_BUNNIES = 16  # [MAX_SEATS * MAX_SEATS] seat u's unseen bunnies of owner o, at u * 4 + o
SC_LOCS = 32  # [MAX_SEATS * MAX_SEATS] seat u's cards tagged in its group for owner o
SC_CELLS_FROM = 48  # [N_GROUPS + 2] where each group's cells start in SC_CELLS_BY (0: none)
SC_PILE_FROM = SC_CELLS_FROM + N_GROUPS + 2  # [N_GROUPS + 2] the same for pile cards
SC_POOL = SC_PILE_FROM + N_GROUPS + 2  # [DECK_MAX] the pool, card by card, shuffled
SC_CARDS = SC_POOL + DECK_MAX  # [DECK_MAX] a group's farmland cards while it is dealt
SC_PILE_BY = SC_CARDS + DECK_MAX  # [DECK_MAX] the unseen pile cards, by group
SC_FACE_DOWN = SC_PILE_BY + DECK_MAX  # [n_cells] the face-down cells
# then [n_cells] (SC_FACE_DOWN + n_cells) the unseen cells, by group


@inline
def binomial(n, k):
    """n choose k (0 when k < 0 or k > n); k is a bunny count, at most 3."""
    if k < 0 or k > n:
        return 0
    out = 1
    for i in range(k):
        out = out * (n - i) // (i + 1)
    return out


@inline
def hand_hidden(obs, o):
    return obs[HAND + o * N_KINDS] == HIDDEN


@kernel
def copy_seen(p, obs, v, state, scratch):
    """``state`` := ``obs``, but the other seats' memory rows (HIDDEN there) emptied; the
    face-down cells listed at SC_FACE_DOWN. Returns how many."""
    mine = group_at(v, 0)
    rows = N_GROUPS * GROUP_W
    copy_into(state[:GROUPS], obs[:GROUPS])
    copy_into(state[mine:mine + rows], obs[mine:mine + rows])
    copy_into(state[CELLS:], obs[CELLS:])
    for u in range(MAX_SEATS):
        if u != v:
            r = group_at(u, 0)
            state[r:r + rows] = 0
            for g in range(N_GROUPS):
                state[r + g * GROUP_W + G_OWNER] = -1
    n_fd = 0
    for c in range(p[P_CELLS]):
        card = state[CELLS + c]
        if card != NO_CARD and card != WAREHOUSE and state[face_up_at(p, c)] == 0:
            scratch[SC_FACE_DOWN + n_fd] = c
            n_fd += 1
    return n_fd


@kernel
def fill_pool(p, obs, v, scratch):
    """The farmland cards v has seen nowhere and knows in no group, one by one at SC_POOL:
    the deck, less the cards it sees (cells, hands, pile) and its groups' known cards.
    Returns how many; they are the groups' UNKNOWN cards, the cards of the places in no
    group and the cards put away at setup."""
    for k in range(N_FARMLAND):
        scratch[SC_COUNT + k] = p[p[P_DECK_AT] + k]
    for c in range(p[P_CELLS]):
        card = obs[CELLS + c]
        if 0 <= card < BUNNY:  # (not HIDDEN, empty, a bunny or the warehouse)
            scratch[SC_COUNT + card] -= 1
    for o in range(obs[N_PLAYERS]):
        if not hand_hidden(obs, o):
            for k in range(N_FARMLAND):
                scratch[SC_COUNT + k] -= obs[HAND + o * N_KINDS + k]
    for i in range(obs[PILE_LEN]):
        if obs[PILE + i] != HIDDEN:
            scratch[SC_COUNT + obs[PILE + i]] -= 1
    for g in range(N_GROUPS):
        r = group_at(v, g)
        if obs[r + G_OWNER] >= 0 and (g >= MAX_SEATS or hand_hidden(obs, g)):
            for k in range(N_FARMLAND):
                scratch[SC_COUNT + k] -= obs[r + G_KNOWN + k]
    n_pool = 0
    for k in range(N_FARMLAND):
        for _ in range(scratch[SC_COUNT + k]):
            scratch[SC_POOL + n_pool] = k
            n_pool += 1
    return n_pool


@inline
def by_group(state, v, n, values_at, tags_at, places_at, sorted_at, from_at, scratch):
    """Sort the unseen places among the ``n`` at ``places_at`` in scratch (those whose
    ``state[values_at + place]`` is HIDDEN; their tag words at ``state[tags_at + place]``)
    by v's group, a counting sort into ``sorted_at``: the places of group g (key g + 1; key
    0, in none) run from scratch[from_at + g + 1] to scratch[from_at + g + 2]."""
    scratch[from_at:from_at + N_GROUPS + 2] = 0
    for i in range(n):
        x = scratch[places_at + i]
        if state[values_at + x] == HIDDEN:
            scratch[from_at + 1 + tag_of(state[tags_at + x], v)] += 1
    for key in range(N_GROUPS + 1):  # counts -> where each key starts, one along
        scratch[from_at + key + 1] += scratch[from_at + key]
    for i in range(n):
        x = scratch[places_at + i]
        if state[values_at + x] == HIDDEN:
            key = tag_of(state[tags_at + x], v)
            scratch[sorted_at + scratch[from_at + key]] = x
            scratch[from_at + key] += 1
    for key in range(N_GROUPS, 0, -1):  # each key's start, back in place
        scratch[from_at + key] = scratch[from_at + key - 1]
    scratch[from_at] = 0


@inline
def deal_group(p, state, v, g, taken, stream, scratch):
    """Deal v's group g: its KNOWN cards and UNKNOWN cards from the pool (from position
    ``taken`` of the shuffled pool on) over its places, the owner's bunnies only in the
    owner's hand (at most BUNNY_CAP) or on face-down cards the owner laid. Returns the pool
    cards it took."""
    cells_by = SC_FACE_DOWN + p[P_CELLS]
    first, last = scratch[SC_CELLS_FROM + g + 1], scratch[SC_CELLS_FROM + g + 2]
    r = group_at(v, g)
    owner = state[r + G_OWNER]
    n_laid = 0  # the cells the owner laid first (a bunny may lie there), then the others
    for i in range(first, last):
        c = scratch[cells_by + i]
        if state[placer_at(p, c)] == owner:
            scratch[cells_by + i] = scratch[cells_by + first + n_laid]
            scratch[cells_by + first + n_laid] = c
            n_laid += 1
    in_hand = state[IN_HAND + owner] if g < MAX_SEATS else 0
    cap = state[r + G_BUNNY_CAP] if g < MAX_SEATS else 0
    bunnies = state[r + G_KNOWN + BUNNY]
    # how many bunnies in the hand: as many ways as there are of choosing their places
    lo, hi = max(0, bunnies - n_laid), min(bunnies, cap, in_hand)
    ways = 0
    for j in range(lo, hi + 1):
        ways += binomial(in_hand, j) * binomial(n_laid, bunnies - j)
    j = hi
    if ways > 0:
        pick = rand_below(stream, ways)
        for jj in range(lo, hi + 1):
            w = binomial(in_hand, jj) * binomial(n_laid, bunnies - jj)
            if pick < w:
                j = jj
                break
            pick -= w
    # the other bunnies on cells the owner laid, chosen at random (a partial shuffle)
    on_cells = bunnies - j
    for i in range(first, first + on_cells):
        k = i + rand_below(stream, first + n_laid - i)
        c = scratch[cells_by + k]
        scratch[cells_by + k] = scratch[cells_by + i]
        scratch[cells_by + i] = c
        state[CELLS + c] = BUNNY + owner
    # the farmland cards: the known ones and the unknown ones from the pool, shuffled
    n_cards = 0
    for k in range(N_FARMLAND):
        for _ in range(state[r + G_KNOWN + k]):
            scratch[SC_CARDS + n_cards] = k
            n_cards += 1
    unknown = state[r + G_UNKNOWN]
    scratch[SC_CARDS + n_cards:SC_CARDS + n_cards + unknown] = scratch[
        SC_POOL + taken:SC_POOL + taken + unknown]
    n_cards += unknown
    shuffle(stream, scratch[SC_CARDS:SC_CARDS + n_cards], n_cards)
    nxt = SC_CARDS
    if g < MAX_SEATS:
        row = HAND + owner * N_KINDS
        state[row:row + N_KINDS] = 0
        state[row + BUNNY] = j
        for _ in range(in_hand - j):
            state[row + scratch[nxt]] += 1
            nxt += 1
    for i in range(first + on_cells, last):
        state[CELLS + scratch[cells_by + i]] = scratch[nxt]
        nxt += 1
    for i in range(scratch[SC_PILE_FROM + g + 1], scratch[SC_PILE_FROM + g + 2]):
        state[PILE + scratch[SC_PILE_BY + i]] = scratch[nxt]
        nxt += 1
    return unknown


@kernel
def deal_unseen(p, state, v, n_fd, stream, scratch):
    """Everything v has not seen, in ``state`` (a copy of its observation), dealt again."""
    n_pool = fill_pool(p, state, v, scratch)
    # only the cards dealt need a random order: the rest were put away at setup
    for i in range(n_pool - state[REMOVED]):
        k = i + rand_below(stream, n_pool - i)
        x = scratch[SC_POOL + k]
        scratch[SC_POOL + k] = scratch[SC_POOL + i]
        scratch[SC_POOL + i] = x
    # the unseen places, by group
    cells_by = SC_FACE_DOWN + p[P_CELLS]
    by_group(state, v, n_fd, CELLS, cell_tags_at(p, 0), SC_FACE_DOWN, cells_by,
             SC_CELLS_FROM, scratch)
    for i in range(state[PILE_LEN]):
        scratch[SC_CARDS + i] = i
    by_group(state, v, state[PILE_LEN], PILE, PILE_TAGS, SC_CARDS, SC_PILE_BY, SC_PILE_FROM,
             scratch)
    taken = 0
    for g in range(N_GROUPS):
        r = group_at(v, g)
        if state[r + G_OWNER] >= 0 and (g >= MAX_SEATS or hand_hidden(state, g)):
            taken += deal_group(p, state, v, g, taken, stream, scratch)
    # the places in no group: the next pool cards
    for i in range(scratch[SC_CELLS_FROM], scratch[SC_CELLS_FROM + 1]):
        state[CELLS + scratch[cells_by + i]] = scratch[SC_POOL + taken]
        taken += 1
    for i in range(scratch[SC_PILE_FROM], scratch[SC_PILE_FROM + 1]):
        state[PILE + scratch[SC_PILE_BY + i]] = scratch[SC_POOL + taken]
        taken += 1
    state[PILE + state[PILE_LEN]:PILE + DECK_MAX] = NO_CARD  # (the observation hides all)


@kernel
def public_memory(p, state, v, n_fd, scratch):
    """The memory of every seat but v, which v cannot see, as the table shows it: each
    other hand holds its owner's bunnies but those the seat has seen on the farmland, with
    the face-down cards the owner laid that the seat has not seen (when any bunny is left
    to look for among them), and each seat knows the cards it put under the pile (those v
    knows were put back). Kept in the simplest form (``memory.tidy``). Their rows are
    empty (``copy_seen``)."""
    n = state[N_PLAYERS]
    scratch[SC_BUNNIES:SC_BUNNIES + 2 * MAX_SEATS * MAX_SEATS] = 0  # (and SC_LOCS)
    for u in range(n):
        for o in range(n):
            scratch[SC_BUNNIES + u * MAX_SEATS + o] = state[HAND + o * N_KINDS + BUNNY]
    for i in range(n_fd):
        c = scratch[SC_FACE_DOWN + i]
        card = state[CELLS + c]
        if card >= BUNNY:
            o = card - BUNNY
            for u in range(n):
                if (state[seen_at(p, c)] >> u) & 1 == 0:
                    scratch[SC_BUNNIES + u * MAX_SEATS + o] += 1
    for i in range(n_fd):
        c = scratch[SC_FACE_DOWN + i]
        o = state[placer_at(p, c)]
        if o < 0:
            continue
        word = state[cell_tags_at(p, c)]
        for u in range(n):
            if (u != v and u != o and (state[seen_at(p, c)] >> u) & 1 == 0
                    and scratch[SC_BUNNIES + u * MAX_SEATS + o] > 0):
                word = with_tag(word, u, o + 1)
                scratch[SC_LOCS + u * MAX_SEATS + o] += 1
        state[cell_tags_at(p, c)] = word
    for u in range(n):
        if u == v:
            continue
        for o in range(n):
            if o == u:
                continue
            r = group_at(u, o)
            bunnies = scratch[SC_BUNNIES + u * MAX_SEATS + o]
            locs = scratch[SC_LOCS + u * MAX_SEATS + o]
            state[r + G_OWNER] = o
            state[r + G_LOCS] = locs
            state[r + G_KNOWN + BUNNY] = bunnies
            state[r + G_UNKNOWN] = state[IN_HAND + o] + locs - bunnies
            state[r + G_BUNNY_CAP] = min(bunnies, state[IN_HAND + o])
            if locs > 0 and (state[IN_HAND + o] == 0 or state[r + G_UNKNOWN] == 0):
                tidy(p, state, u, o)  # (only then is there anything to tidy)
    for i in range(state[PILE_LEN]):
        word = state[PILE_TAGS + i]
        tag = tag_of(word, v)
        if 0 < tag < KNOWN_TAG:  # a card of v's group for its owner: the owner put it back
            owner = state[group_at(v, tag - 1) + G_OWNER]
            state[PILE_TAGS + i] = with_tag(word, owner, KNOWN_TAG)
