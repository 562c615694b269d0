"""Rabbit Hunt told as text (``simkit replay``), and its conservation laws and the soundness
of every seat's memory (tests)."""

import numpy as np

from simkit.game import HIDDEN

from .memory import cell_tags_at, group_at
from .state import (
    ALL_SHOW,
    AUX_CELL,
    BUNNY,
    CARROTS,
    CAUGHT,
    CELLS,
    DECK_MAX,
    ELIMINATED,
    END,
    FARMER,
    G_BUNNY_CAP,
    G_KNOWN,
    G_LOCS,
    G_OWNER,
    G_UNKNOWN,
    HAND,
    IN_HAND,
    KINDS,
    KNOWN_TAG,
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
    MAX_SEATS,
    N_FARMLAND,
    N_GROUPS,
    N_KINDS,
    N_PLAYERS,
    NO_CARD,
    P_BUNNIES,
    P_CARROT_CAP,
    P_CARROTS_TOTAL,
    P_CELLS,
    P_CENTER,
    P_DECK,
    PILE,
    PILE_LEN,
    PILE_TAGS,
    REMOVED,
    SHOW,
    SHOW_OR_LOSE,
    SUPPLY,
    TAG_BITS,
    TAG_MASK,
    TO_MOVE,
    TURN_SEAT,
    WAREHOUSE,
)


def seat_name(s):
    return f"P{s + 1}"


def cell_name(params, c):
    q, r = params[1][c]
    return "warehouse" if c == params[0][P_CENTER] else f"({q:+d},{r:+d})"


def card_name(card):
    if card == HIDDEN:
        return "an unseen card"
    if card == WAREHOUSE:
        return "warehouse"
    if card >= BUNNY:
        return f"{seat_name(card - BUNNY)}'s bunny"
    return KINDS[card].replace("_", " ")


def hand_text(state, seat):
    if state[HAND + seat * N_KINDS] == HIDDEN:
        return f"{state[IN_HAND + seat]} unseen cards"
    parts = [f"{state[HAND + seat * N_KINDS + k]}x {KINDS[k].replace('_', ' ')}"
             for k in range(N_FARMLAND) if state[HAND + seat * N_KINDS + k]]
    b = state[HAND + seat * N_KINDS + BUNNY]
    if b:
        parts.append(f"{b}x own bunny")
    return ", ".join(parts) or "empty"


def describe_setup(params, n_players, state):
    n_cells = params[0][P_CELLS]
    lines = [f"{state[REMOVED]} farmland cards put away unseen; {state[PILE_LEN]} in the pile"]
    ring = [f"{cell_name(params, c)}={card_name(state[CELLS + c])}"
            for c in range(n_cells) if state[CELLS + c] not in (NO_CARD, WAREHOUSE)]
    lines.append("round the warehouse, face down [seen by nobody]: " + ", ".join(ring))
    for s in range(n_players):
        lines.append(f"{seat_name(s)} hand [seen by {seat_name(s)}]: {hand_text(state, s)}; "
                     f"{state[CARROTS + s]} carrots")
    if n_players == 4:
        lines.append("teams: P1+P3 against P2+P4")
    return lines


def seats_text(mask):
    return ", ".join(seat_name(s) for s in range(MAX_SEATS) if (mask >> s) & 1) or "nobody"


def _changes(params, n, before, after):
    """The consequences of a decision that the move itself does not say."""
    n_cells = params[0][P_CELLS]
    out = []
    up = CELLS + n_cells
    shown = set()
    for c in range(n_cells):
        if after[up + c] and not before[up + c] and c != params[0][P_CENTER]:
            out.append(f"turns up {card_name(after[CELLS + c])} at {cell_name(params, c)} "
                       "[seen by all]")
            if after[CELLS + c] in (SHOW, SHOW_OR_LOSE):
                shown.add(int(before[TO_MOVE]))
            elif after[CELLS + c] == ALL_SHOW:
                shown.update(s for s in range(n) if not after[ELIMINATED + s])
    # cards drawn from under the pile are known to whoever put them there
    known_drawn = {}
    if after[PILE_LEN] < before[PILE_LEN] and not (after[CAUGHT:CAUGHT + n] !=
                                                   before[CAUGHT:CAUGHT + n]).any():
        for i in range(after[PILE_LEN], before[PILE_LEN]):
            kind = int(before[PILE + i])
            known_drawn[kind] = known_drawn.get(kind, 0) | _pile_knowers(before, i)
    for s in range(n):
        if after[CAUGHT + s] > before[CAUGHT + s]:
            # whoever put the filling card under the pile knows it
            knowers = seats_text(_pile_knowers(before, before[PILE_LEN] - 1))
            out.append(f"{seat_name(s)} catches a bunny [seen by all]; its place is filled "
                       f"from the pile face down [seen by {knowers}]")
        if after[LOST + s] > before[LOST + s]:
            out.append(f"{seat_name(s)} has lost {after[LOST + s]} bunnies")
        if after[ELIMINATED + s] and not before[ELIMINATED + s]:
            out.append(f"{seat_name(s)} is out: all bunnies caught; their cards go into the pile")
        for k in range(N_KINDS):
            d = after[HAND + s * N_KINDS + k] - before[HAND + s * N_KINDS + k]
            if d > 0 and k < N_FARMLAND:
                knew = known_drawn.get(k, 0) & ~(1 << s)
                also = f"; {seats_text(knew)} put it back" if knew else ""
                out.append(f"{seat_name(s)} draws {d}x {KINDS[k].replace('_', ' ')} "
                           f"[seen by {seat_name(s)}{also}]")
        dc = after[CARROTS + s] - before[CARROTS + s]
        if dc:
            out.append(f"{seat_name(s)} carrots {before[CARROTS + s]} -> {after[CARROTS + s]}")
        if s in shown:
            out.append(f"{seat_name(s)} shows the hand [seen by all]: {hand_text(after, s)}")
        if after[FARMER + s] != before[FARMER + s] and after[FARMER + s] >= 0:
            out.append(f"{seat_name(s)}'s farmer now at {cell_name(params, after[FARMER + s])}")
    if after[TURN_SEAT] != before[TURN_SEAT] and not after[END]:
        out.append(f"--- {seat_name(after[TURN_SEAT])}'s turn ---")
    if after[END] and not before[END]:
        out.append("the draw pile is used up" if after[PILE_LEN] == 0 else "one side is left")
    return out


def _pile_knowers(state, i):
    """Seats that know the pile card at ``i`` (they put it back) as a bit set."""
    word = int(state[PILE_TAGS + i]) if i >= 0 else 0
    return sum(1 << s for s in range(MAX_SEATS)
               if (word >> (TAG_BITS * s)) & TAG_MASK == KNOWN_TAG)


def describe_move(params, n_players, before, move, after):
    return [_decision(params, before, move)] + _changes(params, n_players, before, after)


def describe_choice(params, n_players, obs, move, after):
    """A move a search weighed, from the deciding seat's observation ``obs`` (GameSpec): the
    decision as ``describe_move`` heads it, where a card the seat has not seen (a face-down
    card it would peek at, a hand it would look at) reads unseen."""
    return _decision(params, obs, move)


def _decision(params, before, move):
    """What the seat to move does, from ``before`` alone."""
    kind, arg = move >> 16, move & 0xFFFF
    seat = before[TURN_SEAT]
    if kind == M_PLACE:
        k, c = arg >> 8, arg & 255
        what = "own bunny" if k == BUNNY else KINDS[k].replace("_", " ")
        head = f"places a card face down at {cell_name(params, c)} [{what}: seen by " \
               f"{seat_name(seat)}]"
    elif kind == M_DRAW:
        head = "action: draws a card"
    elif kind == M_CARROT:
        head = "action: takes a carrot"
    elif kind == M_MOVE:
        head = f"action: moves the farmer to {cell_name(params, arg)}"
    elif kind == M_LOOK:
        head = f"action: pays 3 carrots to look at {seat_name(arg)}'s hand [seen by " \
               f"{seat_name(seat)}]: {hand_text(before, arg)}"
    elif kind == M_SWAP:
        what = "a bunny" if arg == BUNNY else KINDS[arg].replace("_", " ")
        head = f"reveals own bunny at {cell_name(params, before[AUX_CELL])} [seen by all], " \
               f"takes it back and lays {what} there [seen by {seat_name(seat)}]"
    elif kind == M_RETURN:
        head = f"(asked) puts a {KINDS[arg].replace('_', ' ')} at the bottom of the pile " \
               f"[seen by {seat_name(before[TO_MOVE])}]"
    elif kind == M_DONE:
        head = "stops putting cards back and draws as many"
    elif kind == M_STEP:
        head = f"event: steps to {cell_name(params, arg)}"
    elif kind == M_MOVE_ANY:
        head = f"event: moves {seat_name(arg >> 8)}'s farmer to {cell_name(params, arg & 255)}"
    elif kind == M_TO_HOME:
        head = f"event: sends {seat_name(arg)}'s farmer back to the warehouse"
    elif kind == M_PEEK:
        head = f"event: peeks at {cell_name(params, arg)} [seen by {seat_name(seat)}]: " \
               f"{card_name(before[CELLS + arg])}"
    else:
        head = f"move {move}"
    return head


def check_state(params, n_players, state):
    """Conservation of farmland cards, bunnies and carrots, the bounds on them, and every
    seat's memory."""
    problems = conservation_problems(params, n_players, state)
    for viewer in range(MAX_SEATS):
        problems += memory_problems(params, n_players, state, viewer)
    return problems


def conservation_problems(params, n_players, state):
    """Conservation of farmland cards, bunnies and carrots, and the bounds on them."""
    s = params[0]
    n_cells = s[P_CELLS]
    cells = state[CELLS:CELLS + n_cells]
    problems = []
    hands = state[HAND:HAND + 4 * N_KINDS].reshape(4, N_KINDS)
    farmland = (state[PILE_LEN] + hands[:, :N_FARMLAND].sum() + int(np.sum(cells < BUNNY) -
                np.sum(cells == NO_CARD)) + state[REMOVED])
    if farmland != s[P_DECK]:
        problems.append(f"farmland cards {farmland} != {s[P_DECK]}")
    pile = state[PILE:PILE + DECK_MAX]
    if (pile[:state[PILE_LEN]] < 0).any() or (pile[state[PILE_LEN]:] != NO_CARD).any():
        problems.append("pile holds a hole or a stray card")
    for seat in range(n_players):
        on_field = int(np.sum(cells == BUNNY + seat))
        total = hands[seat, BUNNY] + on_field + state[LOST + seat]
        if total != s[P_BUNNIES]:
            problems.append(f"{seat_name(seat)} bunnies {total} != {s[P_BUNNIES]}")
        if not 0 <= state[CARROTS + seat] <= s[P_CARROT_CAP]:
            problems.append(f"{seat_name(seat)} carrots {state[CARROTS + seat]} out of range")
        if state[ELIMINATED + seat] == 0 and cells[state[FARMER + seat]] == NO_CARD:
            problems.append(f"{seat_name(seat)}'s farmer stands on no card")
    if state[CAUGHT:CAUGHT + 4].sum() != state[LOST:LOST + 4].sum():
        problems.append("caught and lost bunnies differ")
    carrots = state[SUPPLY] + state[CARROTS:CARROTS + n_players].sum()
    if carrots != s[P_CARROTS_TOTAL]:
        problems.append(f"carrots {carrots} != {s[P_CARROTS_TOTAL]}")
    if (hands < 0).any():
        problems.append("a negative hand count")
    if (state[IN_HAND:IN_HAND + 4] != hands.sum(axis=1)).any():
        problems.append("cards in hand (IN_HAND) differ from the hands")
    if not 0 <= state[N_PLAYERS] <= 4 or state[N_PLAYERS] != n_players:
        problems.append("player count corrupted")
    return problems


def memory_problems(params, n_players, state, viewer):
    """What can be checked of ``viewer``'s memory against the cards as they are: its tags
    lie only on cards it cannot see, each group's places hold exactly as many cards as the
    group counts and at least the cards it knows, and it keeps count of every bunny of
    another seat that it has not seen."""
    s = params[0]
    n_cells = s[P_CELLS]
    name = seat_name(viewer)
    cells = state[CELLS:CELLS + n_cells]
    up = state[CELLS + n_cells:CELLS + 2 * n_cells]
    seen = (state[CELLS + 2 * n_cells:CELLS + 3 * n_cells] >> viewer) & 1
    shift = TAG_BITS * viewer
    ctag = (state[cell_tags_at(s, 0):cell_tags_at(s, 0) + n_cells] >> shift) & TAG_MASK
    ptag = (state[PILE_TAGS:PILE_TAGS + DECK_MAX] >> shift) & TAG_MASK
    pile = state[PILE:PILE + DECK_MAX]
    problems = []
    if viewer >= n_players:
        if (ctag != 0).any() or (ptag != 0).any():
            problems.append(f"{name} is not playing but has memory tags")
        return problems
    if ((ctag > 0) & ((cells == NO_CARD) | (cells == WAREHOUSE) | (up == 1) | (seen == 1) |
                      (ctag == KNOWN_TAG))).any():
        problems.append(f"{name} tags a card it can see, or no card")
    if (ptag[state[PILE_LEN]:] != 0).any():
        problems.append(f"{name} tags a pile card beyond the pile")
    for g in range(N_GROUPS):
        r = group_at(viewer, g)
        owner, locs, unknown = state[r + G_OWNER], state[r + G_LOCS], state[r + G_UNKNOWN]
        known = state[r + G_KNOWN:r + G_KNOWN + N_KINDS]
        on_cells = np.flatnonzero(ctag == g + 1)
        on_pile = np.flatnonzero(ptag == g + 1)
        what = f"{name}'s group {g}"
        if owner < 0:
            if len(on_cells) or len(on_pile) or (state[r + 1:r + G_KNOWN + N_KINDS] != 0).any():
                problems.append(f"{what} is free but not empty")
            continue
        if g < MAX_SEATS and (owner != g or g == viewer or g >= n_players):
            problems.append(f"{what} is a hand group of the wrong seat ({owner})")
        if g >= MAX_SEATS and (owner == viewer or not 0 <= owner < n_players):
            problems.append(f"{what} has the wrong owner ({owner})")
        if locs != len(on_cells) + len(on_pile):
            problems.append(f"{what} counts {locs} places, {len(on_cells) + len(on_pile)} "
                            "are tagged")
        if unknown < 0 or (known < 0).any():
            problems.append(f"{what} has a negative count")
        held = np.zeros(N_KINDS, np.int64)
        if g < MAX_SEATS:
            held += state[HAND + owner * N_KINDS:HAND + (owner + 1) * N_KINDS]
        for c in on_cells:
            card = cells[c]
            if card >= BUNNY and card != BUNNY + owner:
                problems.append(f"{what} holds another seat's bunny")
            held[min(card, BUNNY)] += 1
        for i in on_pile:
            held[pile[i]] += 1
        if held.sum() != known.sum() + unknown:
            problems.append(f"{what} holds {held.sum()} cards, counts "
                            f"{known.sum()} known + {unknown} unknown")
        if (held < known).any():
            problems.append(f"{what} knows a card that is not there")
        cap = state[r + G_BUNNY_CAP]
        if g < MAX_SEATS and state[HAND + owner * N_KINDS + BUNNY] > cap:
            problems.append(f"{what}: the hand holds more bunnies than its cap {cap}")
        if g >= MAX_SEATS and cap != 0:
            problems.append(f"{what} has a bunny cap")
    for o in range(n_players):
        if o == viewer:
            continue
        unseen = state[HAND + o * N_KINDS + BUNNY] + int(
            np.sum((cells == BUNNY + o) & (seen == 0)))
        counted = sum(state[group_at(viewer, g) + G_KNOWN + BUNNY] for g in range(N_GROUPS)
                      if state[group_at(viewer, g) + G_OWNER] == o)
        if unseen != counted:
            problems.append(f"{name} counts {counted} unseen bunnies of {seat_name(o)}, "
                            f"there are {unseen}")
    return problems
