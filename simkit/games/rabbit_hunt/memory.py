"""What each seat remembers of the cards it cannot see: the kernels that keep the memory
(called by ``rules.apply_move``) and those that read it from an observation.

The memory is a few groups per seat (layout in ``state.py``; the reading in NOTES.md: What
a seat remembers). A group of seat ``v`` is a set of places, one player's hand and/or
face-down cards and cards under the pile, holding KNOWN (by kind) plus UNKNOWN cards, the
latter drawn from the cards ``v`` has not seen anywhere. Every update below uses only what
``v`` sees at the table: who draws, lays, puts back; the kinds of cards turned up, peeked at
or shown to it. ``p`` is the flat parameter array.
"""

import numpy as np

from simkit.game import HIDDEN
from simkit.games.rabbit_hunt.state import (
    BUNNY,
    CELLS,
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
    P_CELLS,
    PILE_LEN,
    PILE_TAGS,
    TAG_BITS,
    TAG_MASK,
)
from simkit.jit import copy_into, inline, kernel

AS_SEEN = -1  # split(): the viewer saw the hand (a look, a show)
AS_EMPTY = -2  # split(): the hand is empty


# ---------------------------------------------------------------- addresses and tags
@inline
def group_at(seat, g):
    """Offset of seat's group row ``g``."""
    return GROUPS + (seat * N_GROUPS + g) * GROUP_W


@inline
def face_up_at(p, c):
    return CELLS + p[P_CELLS] + c


@inline
def seen_at(p, c):
    return CELLS + 2 * p[P_CELLS] + c


@inline
def placer_at(p, c):
    return CELLS + 3 * p[P_CELLS] + c


@inline
def cell_tags_at(p, c):
    return CELLS + 5 * p[P_CELLS] + c


@inline
def tag_of(word, seat):
    """Seat's tag in a tag word: 0 no group, g+1 its group g, KNOWN_TAG it knows the card."""
    return (word >> (TAG_BITS * seat)) & TAG_MASK


@inline
def with_tag(word, seat, tag):
    return (word & ~(TAG_MASK << (TAG_BITS * seat))) | (tag << (TAG_BITS * seat))


@inline
def known_total(state, r):
    t = 0
    for k in range(N_KINDS):
        t += state[r + G_KNOWN + k]
    return t


@kernel
def move_tags(p, state, seat, old, new):
    """Every card of seat's group tagged ``old`` is tagged ``new`` (0: no group)."""
    for c in range(p[P_CELLS]):
        w = state[cell_tags_at(p, c)]
        if w != 0 and tag_of(w, seat) == old:
            state[cell_tags_at(p, c)] = with_tag(w, seat, new)
    for i in range(state[PILE_LEN]):
        w = state[PILE_TAGS + i]
        if w != 0 and tag_of(w, seat) == old:
            state[PILE_TAGS + i] = with_tag(w, seat, new)


# ---------------------------------------------------------------- groups
@kernel
def setup_memory(state, n_players, bunnies):
    """Before the deal: each seat knows that every other hand holds that player's bunnies
    (they are handed out openly); the farmland cards dealt next are unknown to it."""
    for v in range(MAX_SEATS):
        for g in range(N_GROUPS):
            r = group_at(v, g)
            state[r:r + GROUP_W] = 0
            state[r + G_OWNER] = -1
        for o in range(n_players):
            if v < n_players and o != v:
                r = group_at(v, o)
                state[r + G_OWNER] = o
                state[r + G_KNOWN + BUNNY] = bunnies
                state[r + G_BUNNY_CAP] = bunnies


@kernel
def new_group(p, state, v, owner):
    """A free row of seat v for cards cut off from owner's hand. When all are taken, two
    groups of one owner are merged to free one (they keep their total, no longer which of
    their cards holds what), so that what was just learnt stays exact."""
    for g in range(MAX_SEATS, N_GROUPS):
        if state[group_at(v, g) + G_OWNER] < 0:
            state[group_at(v, g) + G_OWNER] = owner
            return g
    for g in range(MAX_SEATS, N_GROUPS):
        for h in range(g + 1, N_GROUPS):
            if state[group_at(v, g) + G_OWNER] == state[group_at(v, h) + G_OWNER]:
                rg, rh = group_at(v, g), group_at(v, h)
                for i in range(G_LOCS, GROUP_W):  # (BUNNY_CAP is 0 in these rows)
                    state[rg + i] += state[rh + i]
                move_tags(p, state, v, h + 1, g + 1)
                state[rh:rh + GROUP_W] = 0
                state[rh + G_OWNER] = owner
                return h
    return -1  # unreachable: there are more rows than other seats (a pair always shares one)


@inline
def hand_as_known(state, o, k, how):
    """Cards of kind k in o's hand as the viewer now knows them: seen (AS_SEEN), all of one
    kind (``how`` is that kind), or none (AS_EMPTY)."""
    if how == AS_SEEN:
        return state[HAND + o * N_KINDS + k]
    if how == k:
        return state[IN_HAND + o]
    return 0


@kernel
def split(p, state, v, o, how):
    """Seat v now knows o's hand exactly: the hand group keeps the hand alone, and the
    cards it had laid or put back (if any) keep the rest of what the group held, as a group
    of their own (none when the seat knows nothing of them: they are like any unseen card)."""
    r = group_at(v, o)
    locs = state[r + G_LOCS]
    if locs > 0:
        rest, missing = 0, 0
        for k in range(N_KINDS):
            d = state[r + G_KNOWN + k] - hand_as_known(state, o, k, how)
            rest += max(d, 0)
            missing += max(-d, 0)
        if rest == 0:
            move_tags(p, state, v, o + 1, 0)
        else:
            g = new_group(p, state, v, o)
            r2 = group_at(v, g)
            for k in range(N_KINDS):
                state[r2 + G_KNOWN + k] += max(
                    state[r + G_KNOWN + k] - hand_as_known(state, o, k, how), 0)
            state[r2 + G_UNKNOWN] += state[r + G_UNKNOWN] - missing
            state[r2 + G_LOCS] += locs
            move_tags(p, state, v, o + 1, g + 1)
    for k in range(N_KINDS):
        state[r + G_KNOWN + k] = hand_as_known(state, o, k, how)
    state[r + G_UNKNOWN] = 0
    state[r + G_LOCS] = 0
    state[r + G_BUNNY_CAP] = state[r + G_KNOWN + BUNNY]


@kernel
def tidy(p, state, v, g):
    """Keep seat v's group g in its simplest form after a change: a group that knows
    nothing is dropped (its cards are like any unseen card); a hand group whose hand is now
    determined (empty, or all of one kind) is split (``split``)."""
    r = group_at(v, g)
    if g >= MAX_SEATS:
        if state[r + G_LOCS] == 0 or known_total(state, r) == 0:
            move_tags(p, state, v, g + 1, 0)
            state[r:r + GROUP_W] = 0
            state[r + G_OWNER] = -1
        return
    if state[r + G_LOCS] == 0:
        return
    if known_total(state, r) == 0:
        move_tags(p, state, v, g + 1, 0)
        state[r + G_UNKNOWN] -= state[r + G_LOCS]
        state[r + G_LOCS] = 0
    elif state[IN_HAND + g] == 0:
        split(p, state, v, g, AS_EMPTY)
    elif state[r + G_UNKNOWN] == 0:
        kinds, single = 0, 0
        for k in range(N_KINDS):
            if state[r + G_KNOWN + k] > 0:
                kinds += 1
                single = k
        if kinds == 1:
            split(p, state, v, g, single)


@kernel
def take_out(p, state, v, g, kind):
    """Seat v learns that one card of its group g, a face-down or pile card, is ``kind``
    (turned up, peeked at, drawn by v): it leaves the group."""
    r = group_at(v, g)
    if state[r + G_KNOWN + kind] > 0:
        state[r + G_KNOWN + kind] -= 1
    else:
        state[r + G_UNKNOWN] -= 1
    state[r + G_LOCS] -= 1
    tidy(p, state, v, g)


@kernel
def weaken(state, r, n):
    """n farmland cards of the group at ``r`` went where its seat cannot follow them: it
    keeps the group's bunnies and, of each farmland kind, what n cards cannot have taken."""
    size = known_total(state, r) + state[r + G_UNKNOWN] - n
    for k in range(N_FARMLAND):
        state[r + G_KNOWN + k] = max(state[r + G_KNOWN + k] - n, 0)
    state[r + G_UNKNOWN] = size - known_total(state, r)


# ---------------------------------------------------------------- what happens at the table
@kernel
def remember_draw(p, state, seat, pos, kind):
    """``seat`` takes the pile card at ``pos`` (of ``kind``) into its hand."""
    word = state[PILE_TAGS + pos]
    state[PILE_TAGS + pos] = 0
    for v in range(state[N_PLAYERS]):
        tag = tag_of(word, v)
        if v == seat:
            if 0 < tag < KNOWN_TAG:
                take_out(p, state, v, tag - 1, kind)  # it sees the card now
            continue
        r = group_at(v, seat)
        if tag == 0:
            state[r + G_UNKNOWN] += 1
        elif tag == KNOWN_TAG:
            state[r + G_KNOWN + kind] += 1  # v put that card back: it knows it
        elif tag - 1 == seat:
            state[r + G_LOCS] -= 1  # a card of the hand's own group comes back to it
        else:
            # drawn by a third player: v cannot follow it (NOTES.md)
            state[group_at(v, tag - 1) + G_LOCS] -= 1
            weaken(state, group_at(v, tag - 1), 1)
            tidy(p, state, v, tag - 1)
            state[r + G_UNKNOWN] += 1


@kernel
def remember_place(p, state, o, c):
    """o laid a card from its hand face down on ``c`` (it is gone from the hand already)."""
    word = 0
    for v in range(state[N_PLAYERS]):
        if v != o:
            r = group_at(v, o)
            state[r + G_BUNNY_CAP] = min(state[r + G_BUNNY_CAP], state[IN_HAND + o])
            if known_total(state, r) > 0:
                word = with_tag(word, v, o + 1)
                state[r + G_LOCS] += 1
            else:
                state[r + G_UNKNOWN] -= 1  # nothing known of the hand: an unseen card
    state[cell_tags_at(p, c)] = word
    for v in range(state[N_PLAYERS]):
        if v != o:
            tidy(p, state, v, o)


@kernel
def remember_return(p, state, o):
    """o put a card from its hand under the pile (now at PILE[0], pile tags shifted)."""
    word = with_tag(0, o, KNOWN_TAG)
    for v in range(state[N_PLAYERS]):
        if v != o:
            r = group_at(v, o)
            if known_total(state, r) > 0:
                word = with_tag(word, v, o + 1)
                state[r + G_LOCS] += 1
            else:
                state[r + G_UNKNOWN] -= 1
    state[PILE_TAGS] = word
    for v in range(state[N_PLAYERS]):
        if v != o:
            tidy(p, state, v, o)


@kernel
def remember_fill(p, state, c, pos):
    """The pile card at ``pos`` goes face down on ``c`` unseen (a caught bunny's place): it
    keeps its groups. Returns the seats that know it anyway (they put it back)."""
    word = state[PILE_TAGS + pos]
    state[PILE_TAGS + pos] = 0
    knowers, cell = 0, 0
    for v in range(state[N_PLAYERS]):
        tag = tag_of(word, v)
        if tag == KNOWN_TAG:
            knowers |= 1 << v
        elif tag > 0:
            cell = with_tag(cell, v, tag)
    state[cell_tags_at(p, c)] = cell
    return knowers


@kernel
def remember_shown_to_all(p, state, c, kind):
    """Everyone sees the card on ``c`` (turned up, or a bunny shown)."""
    word = state[cell_tags_at(p, c)]
    state[cell_tags_at(p, c)] = 0
    if word != 0:
        for v in range(state[N_PLAYERS]):
            tag = tag_of(word, v)
            if tag > 0:
                take_out(p, state, v, tag - 1, kind)


@kernel
def remember_peek(p, state, v, c, kind):
    word = state[cell_tags_at(p, c)]
    tag = tag_of(word, v)
    if tag > 0:
        state[cell_tags_at(p, c)] = with_tag(word, v, 0)
        take_out(p, state, v, tag - 1, kind)


@kernel
def remember_bunny_back(state, o):
    """o's bunny, shown to all, goes back into o's hand."""
    for v in range(state[N_PLAYERS]):
        if v != o:
            state[group_at(v, o) + G_KNOWN + BUNNY] += 1
            state[group_at(v, o) + G_BUNNY_CAP] += 1


@kernel
def remember_hand_shown(p, state, o, viewers):
    """o's whole hand is shown to the seats in the bit set ``viewers``."""
    for v in range(state[N_PLAYERS]):
        if v != o and (viewers >> v) & 1:
            split(p, state, v, o, AS_SEEN)


@kernel
def remember_elimination(p, state, o, dumped):
    """o is out: its ``dumped`` farmland cards went into the pile, which is about to be
    shuffled. Nobody can follow a card of the pile any more."""
    lost = np.zeros(N_GROUPS, np.int32)
    n = state[N_PLAYERS]
    for v in range(n):
        lost[:] = 0
        for i in range(state[PILE_LEN]):
            tag = tag_of(state[PILE_TAGS + i], v)
            if 0 < tag < KNOWN_TAG:
                lost[tag - 1] += 1
        for g in range(N_GROUPS):
            gone = lost[g] + (dumped if g == o and v != o else 0)
            if gone > 0:
                state[group_at(v, g) + G_LOCS] -= lost[g]
                weaken(state, group_at(v, g), gone)
    state[PILE_TAGS:PILE_TAGS + 75] = 0
    for v in range(n):
        for g in range(N_GROUPS):
            if state[group_at(v, g) + G_OWNER] >= 0:
                tidy(p, state, v, g)


# ---------------------------------------------------------------- reading an observation
@kernel
def hand_certain(p, obs, seat, owner, out):
    """From seat's observation: ``out[k]`` (int32[15]) the cards of kind k that seat knows
    are in owner's hand; returns how many of owner's cards it does not know. A group's
    face-down cards may hold any of its cards, its pile cards any farmland card."""
    held = obs[IN_HAND + owner]
    if owner == seat:
        copy_into(out, obs[HAND + seat * N_KINDS:HAND + (seat + 1) * N_KINDS])
        return 0
    r = group_at(seat, owner)
    on_pile = 0
    for i in range(obs[PILE_LEN]):
        if tag_of(obs[PILE_TAGS + i], seat) == owner + 1:
            on_pile += 1
    on_cells = obs[r + G_LOCS] - on_pile
    for k in range(N_KINDS):
        out[k] = max(obs[r + G_KNOWN + k] - on_cells - (on_pile if k < BUNNY else 0), 0)
    return held - out.sum()


@kernel
def bunnies_in_hand(p, obs, seat, owner):
    """From seat's observation: (fewest, most) bunnies owner's hand can hold."""
    if owner == seat:
        b = obs[HAND + seat * N_KINDS + BUNNY]
        return b, b
    out = np.zeros(N_KINDS, np.int32)
    hand_certain(p, obs, seat, owner, out)
    r = group_at(seat, owner)
    return out[BUNNY], min(obs[r + G_BUNNY_CAP], obs[r + G_KNOWN + BUNNY],
                           obs[IN_HAND + owner])


@kernel
def cell_certain(p, obs, seat, c):
    """The card on ``c`` as seat knows it: the card if it has seen it or its group can hold
    nothing else (one kind, nothing unknown), else HIDDEN."""
    card = obs[CELLS + c]
    if card != HIDDEN:
        return card
    tag = tag_of(obs[cell_tags_at(p, c)], seat)
    if tag == 0 or tag == KNOWN_TAG:
        return HIDDEN
    r = group_at(seat, tag - 1)
    if obs[r + G_UNKNOWN] > 0:
        return HIDDEN
    kinds, single = 0, 0
    for k in range(N_KINDS):
        if obs[r + G_KNOWN + k] > 0:
            kinds += 1
            single = k
    if kinds != 1:
        return HIDDEN
    return BUNNY + obs[r + G_OWNER] if single == BUNNY else single
