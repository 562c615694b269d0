"""Rabbit Hunt told as text (``simkit replay``), and its conservation laws (tests)."""

import numpy as np

from .state import (
    AUX_CELL,
    BUNNY,
    CARROTS,
    CAUGHT,
    CELLS,
    DECK_MAX,
    ELIMINATED,
    END,
    FARMER,
    HAND,
    KINDS,
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
    N_FARMLAND,
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
    REMOVED,
    SHOWN_TO,
    SUPPLY,
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
    if card == WAREHOUSE:
        return "warehouse"
    if card >= BUNNY:
        return f"{seat_name(card - BUNNY)}'s bunny"
    return KINDS[card].replace("_", " ")


def hand_text(state, seat):
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


def _changes(params, n, before, after):
    """The consequences of a decision that the move itself does not say."""
    n_cells = params[0][P_CELLS]
    out = []
    up = CELLS + n_cells
    for c in range(n_cells):
        if after[up + c] and not before[up + c] and c != params[0][P_CENTER]:
            out.append(f"turns up {card_name(after[CELLS + c])} at {cell_name(params, c)} "
                       "[seen by all]")
    for s in range(n):
        if after[CAUGHT + s] > before[CAUGHT + s]:
            out.append(f"{seat_name(s)} catches a bunny [seen by all]; its place is filled "
                       "from the pile face down [seen by nobody]")
        if after[LOST + s] > before[LOST + s]:
            out.append(f"{seat_name(s)} has lost {after[LOST + s]} bunnies")
        if after[ELIMINATED + s] and not before[ELIMINATED + s]:
            out.append(f"{seat_name(s)} is out: all bunnies caught; their cards go into the pile")
        for k in range(N_KINDS):
            d = after[HAND + s * N_KINDS + k] - before[HAND + s * N_KINDS + k]
            if d > 0 and k < N_FARMLAND:
                out.append(f"{seat_name(s)} draws {d}x {KINDS[k].replace('_', ' ')} "
                           f"[seen by {seat_name(s)}]")
        dc = after[CARROTS + s] - before[CARROTS + s]
        if dc:
            out.append(f"{seat_name(s)} carrots {before[CARROTS + s]} -> {after[CARROTS + s]}")
        if after[SHOWN_TO + s] == 15 and before[SHOWN_TO + s] != 15:
            out.append(f"{seat_name(s)} shows the hand [seen by all]: {hand_text(after, s)}")
        if after[FARMER + s] != before[FARMER + s] and after[FARMER + s] >= 0:
            out.append(f"{seat_name(s)}'s farmer now at {cell_name(params, after[FARMER + s])}")
    if after[TURN_SEAT] != before[TURN_SEAT] and not after[END]:
        out.append(f"--- {seat_name(after[TURN_SEAT])}'s turn ---")
    if after[END] and not before[END]:
        out.append("the draw pile is used up" if after[PILE_LEN] == 0 else "one side is left")
    return out


def describe_move(params, n_players, before, move, after):
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
               f"{card_name(after[CELLS + arg])}"
    else:
        head = f"move {move}"
    return [head] + _changes(params, n_players, before, after)


def check_state(params, n_players, state):
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
    if not 0 <= state[N_PLAYERS] <= 4 or state[N_PLAYERS] != n_players:
        problems.append("player count corrupted")
    return problems
