"""Avalon told as text (``simkit replay``) and its invariants (``check_state``)."""

import numpy as np

from simkit.game import HIDDEN

from . import rules as r
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
    HAND,
    HAND_SIZE,
    HEIGHT,
    LOSS,
    LOSS_LEFT,
    MAIN,
    N_PARAMS,
    N_TERR,
    N_TILE_KINDS,
    N_TYPES,
    OWNER,
    PENDING_TERR,
    PENDING_TYPE,
    PHASE,
    PHASE_NAMES,
    PLAYER,
    RULES,
    SHOWN,
    SPECIAL_NAMES,
    START_DRAWN,
    SUPPLY,
    TERR_CARD,
    TERRAIN_NAMES,
    TILE_AVAIL,
    TILE_NAMES,
    TURNS,
    WINNER,
)


def num(params, at: int) -> int:
    """The game's number at state offset ``at`` of the RULES block, from params."""
    return int(params[0][at - RULES])


def card_name(t: int) -> str:
    if t == HIDDEN:
        return "unseen card"
    kind = "enchantress" if t & 1 else "knight"
    return f"{COLOUR_NAMES[t >> 1]} {kind}"


def seat_name(s: int) -> str:
    return f"P{s + 1}"


def _names(params) -> list[str]:
    from . import territory_names  # the territories of the data params came from

    return territory_names(params)


def territory_name(params, card: int) -> str:
    crowns = int(num(params, r.P_CROWNS + card))
    terrain = TERRAIN_NAMES[num(params, r.P_TERRAIN + card)]
    special = SPECIAL_NAMES[num(params, r.P_SPECIAL + card)]
    what = _names(params)[card]
    extra = "" if special == "none" else f", {special.replace('_', ' ')}"
    land = "" if terrain == "none" else f", {terrain}"
    return f"{what} ({crowns} crown{'s' if crowns != 1 else ''}{land}{extra})"


def ncards(params) -> int:
    return int(num(params, r.M_NCARDS))


def stack(params, state, seat, slot) -> list[int]:
    off = DECK + ncards(params) + (seat * N_TERR + slot) * ncards(params)
    return [int(x) for x in state[off:off + state[HEIGHT + seat * N_TERR + slot]]]


def hand_text(state, seat) -> str:
    cards = [f"{state[HAND + seat * N_TYPES + t]}x {card_name(t)}"
             for t in range(N_TYPES) if state[HAND + seat * N_TYPES + t] > 0]
    return ", ".join(cards) or "empty"


def hand_diff(before, after, seat) -> str:
    got = [t for t in range(N_TYPES) for _ in range(max(0, int(
        after[HAND + seat * N_TYPES + t] - before[HAND + seat * N_TYPES + t])))]
    return ", ".join(card_name(t) for t in got) or "nothing"


def crowns(params, state, seat) -> int:
    return int(r.crowns(state, seat))


def describe_setup(params, n_players, state):
    lines = ["11 face-down territories in a row (slots 1-11); each side has one face-up card "
             "at each:"]
    for s in range(2):
        row = [card_name(stack(params, state, s, i)[-1]) if stack(params, state, s, i) else "-"
               for i in range(N_TERR)]
        lines.append(f"  {seat_name(s)}: " + " | ".join(row))
    for s in range(2):
        lines.append(f"{seat_name(s)} hand: {hand_text(state, s)} [seen by {seat_name(s)}]")
    order = ", ".join(_names(params)[c] for c in state[TERR_CARD:TERR_CARD + N_TERR])
    lines.append(f"territory order (face down, seen by no one): {order}")
    lines.append("P1 begins")
    return lines


def describe_move(params, n_players, before, move, after):
    p = int(before[PLAYER])
    q = 1 - p
    lines = _what(params, before, move, after, p, q)
    if after[DISCARD:DISCARD + N_TYPES].sum() < before[DISCARD:DISCARD + N_TYPES].sum():
        lines.append("the draw pile ran out: the discard pile was shuffled into a new one "
                     f"({after[DECK_N]} cards left after the draws)")
    avail = after[TILE_AVAIL:TILE_AVAIL + N_TILE_KINDS].sum()
    if avail > before[TILE_AVAIL:TILE_AVAIL + N_TILE_KINDS].sum():
        lines.append(f"all supply tiles were used: {avail} are turned face up again")
    if after[TURNS] > before[TURNS]:
        lines += _turn_end(params, before, after, p)
    return lines


def describe_choice(params, n_players, obs, move, after):
    """A move a search weighed, from the deciding seat's observation ``obs`` (GameSpec): as
    ``describe_move`` heads it, but the cards a light tile draws are unseen."""
    p = int(obs[PLAYER])
    if r.SUPPLY_TILE <= move < r.SUPPLY_TILE + 3:
        drawn = int(after[HAND_SIZE + p] - obs[HAND_SIZE + p])
        cards = f"{drawn} unseen card{'s' if drawn != 1 else ''}" if drawn else "nothing"
        return f"takes the light tile {TILE_NAMES[move - r.SUPPLY_TILE]}: draws {cards}"
    return _what(params, obs, move, after, p, 1 - p)[0]


def _slot(params, state, i) -> str:
    owner = state[OWNER + i]
    if owner < 0:
        return f"slot {i + 1} (face down)"
    return f"slot {i + 1} {_names(params)[state[TERR_CARD + i]]} ({seat_name(owner)})"


def _what(params, before, move, after, p, q):
    if move == r.END_PLAYS:
        n = int(before[HAND_SIZE + p])
        return [f"ends his plays with {n} card{'s' if n != 1 else ''} in hand"]
    if move < r.ENCHANT:
        t, i = divmod(move - r.STRENGTHEN, N_TERR)
        return [f"strengthens {_slot(params, before, i)} with a {card_name(t)} "
                f"({after[HEIGHT + p * N_TERR + i]}:{after[HEIGHT + q * N_TERR + i]})"]
    if move < r.ATTACK:
        i = move - r.ENCHANT
        t = int(after[PENDING_TYPE]) if after[PHASE] == COUNTER else None
        target = card_name(stack(params, before, q, i)[-1])
        lines = [f"enchants the {target} of {seat_name(q)} at {_slot(params, before, i)}"]
        if after[PHASE] != COUNTER:
            lines.append(f"{seat_name(q)} has no counter-spell: the {target} changes sides")
        elif t is not None:
            lines.append(f"{seat_name(q)} may counter with a {card_name(t)}")
        return lines
    if move < r.COUNTER_NO:
        t, i = divmod(move - r.ATTACK, N_TERR)
        lines = [f"attacks {_slot(params, before, i)} with a {card_name(t)} "
                 f"({before[HEIGHT + p * N_TERR + i] + 1}:{before[HEIGHT + q * N_TERR + i]})"]
        if after[PHASE] != DEFEND:
            lines.append(f"{seat_name(q)} has no {COLOUR_NAMES[t >> 1]} knight to defend")
            lines += _conquest(params, before, after, p, i)
        return lines
    if move in (r.COUNTER_NO, r.COUNTER_YES):
        t = int(before[PENDING_TYPE])
        i = int(before[PENDING_TERR])
        if move == r.COUNTER_NO:
            return [f"lets the enchantment pass: his card at slot {i + 1} changes sides"]
        return [f"counter-spells with a {card_name(t)}; takes the attacking enchantress "
                "into his hand"]
    if move in (r.DEFEND_NO, r.DEFEND_YES):
        t = int(before[PENDING_TYPE])
        i = int(before[PENDING_TERR])
        if move == r.DEFEND_YES:
            return [f"wards off the attack with a {card_name(t & ~1)}"]
        return ["does not defend"] + _conquest(params, before, after, p, i)
    if move == r.LOSS_AVALON:
        return [f"uses Avalon: one loss fewer ({after[LOSS_LEFT]} left)"]
    if move < r.LOSS_LAYOUT:
        return [f"loses a {card_name(move - r.LOSS_HAND)} from hand ({after[LOSS_LEFT]} left)"]
    if move < r.SUPPLY_TILE:
        i = move - r.LOSS_LAYOUT
        t = stack(params, before, p, i)[-1]
        return [f"loses the top {card_name(t)} at slot {i + 1} ({after[LOSS_LEFT]} left)"]
    if move < r.DISCARD_CARD:
        k = move - r.SUPPLY_TILE
        if k >= 3:
            return [f"takes the dark tile {TILE_NAMES[k]} (cards at the start of his next turn)"]
        return [f"takes the light tile {TILE_NAMES[k]}: draws {hand_diff(before, after, p)} "
                f"[seen by {seat_name(p)}]"]
    return [f"discards a {card_name(move - r.DISCARD_CARD)} (hand limit)"]


def _conquest(params, before, after, p, i):
    lines = [f"{seat_name(p)} conquers slot {i + 1}: "
             f"{territory_name(params, int(after[TERR_CARD + i]))}"]
    if after[PHASE] == LOSS:
        lines.append(f"  additional losses to pay: {after[LOSS_LEFT]}")
    return lines


def _crowns_text(n: int) -> str:
    return f"{n} crown{'s' if n != 1 else ''}"


def _turn_end(params, before, after, p):
    lines = [f"end of turn {after[TURNS]}: {seat_name(p)} holds "
             f"{_crowns_text(crowns(params, after, p))}, {seat_name(1 - p)} "
             f"{_crowns_text(crowns(params, after, 1 - p))}"]
    if after[WINNER] == 2:
        lines.append("no card is left in the draw pile, the discard pile or a hand: the game "
                     "is over, the most crowns win")
    elif after[WINNER] >= 0:
        lines.append(f"{seat_name(int(after[WINNER]))} wins")
    elif after[START_DRAWN] > 0:
        lines.append(f"{seat_name(1 - p)} draws {after[START_DRAWN]} from his dark tile: "
                     f"{hand_diff(before, after, 1 - p)} [seen by {seat_name(1 - p)}]")
    return lines


def check_state(params, n_players, state):
    """Conservation of the 80 cards by type, counts and tiles in range, a sane phase."""
    problems = []
    nc = ncards(params)
    colours, knights, ench = (num(params, k) for k in (r.M_COLOURS, r.M_KNIGHTS, r.M_ENCH))
    expected = np.zeros(N_TYPES, np.int64)
    for c in range(colours):
        expected[2 * c], expected[2 * c + 1] = knights, ench
    seen = np.zeros(N_TYPES, np.int64)
    for s in range(2):
        h = state[HAND + s * N_TYPES:HAND + (s + 1) * N_TYPES]
        if (h < 0).any():
            problems.append(f"{seat_name(s)} has a negative hand count")
        if h.sum() != state[HAND_SIZE + s]:
            problems.append(f"{seat_name(s)} hand size {state[HAND_SIZE + s]} != {h.sum()}")
        seen += np.maximum(h, 0)
        shown = state[SHOWN + s * N_TYPES:SHOWN + (s + 1) * N_TYPES]
        if (shown < 0).any() or (shown > h).any():
            problems.append(f"{seat_name(s)}'s known cards {shown.tolist()} are not in the "
                            f"hand {h.tolist()}")
        for i in range(N_TERR):
            hgt = state[HEIGHT + s * N_TERR + i]
            off = DECK + nc + (s * N_TERR + i) * nc
            pile = state[off:off + nc]
            if not 0 <= hgt <= nc or (pile[:hgt] < 0).any() or (pile[hgt:] != -1).any():
                problems.append(f"{seat_name(s)} pile at slot {i + 1} is malformed")
                continue
            seen += np.bincount(pile[:hgt], minlength=N_TYPES)[:N_TYPES]
    deck_n = state[DECK_N]
    deck = state[DECK:DECK + nc]
    if not 0 <= deck_n <= nc or (deck[:deck_n] < 0).any() or (deck[deck_n:] != -1).any():
        problems.append("draw pile malformed")
    else:
        seen += np.bincount(deck[:deck_n], minlength=N_TYPES)[:N_TYPES]
    disc = state[DISCARD:DISCARD + N_TYPES]
    if (disc < 0).any():
        problems.append("negative discard count")
    seen += disc
    if state[PHASE] == COUNTER and 0 <= state[PENDING_TYPE] < N_TYPES:
        seen[state[PENDING_TYPE]] += 1  # the announced enchantress, in the air
    if not np.array_equal(state[RULES:RULES + N_PARAMS], params[0]):
        problems.append("the state's RULES block differs from params")
    if not np.array_equal(seen, expected):
        problems.append(f"cards by type {seen.tolist()} != {expected.tolist()}")
    cards = sorted(state[TERR_CARD:TERR_CARD + N_TERR].tolist())
    if cards != list(range(N_TERR)):
        problems.append(f"territory cards {cards} are not one of each")
    if not all(-1 <= o <= 1 for o in state[OWNER:OWNER + N_TERR]):
        problems.append("an owner out of range")
    counts = [num(params, r.P_TILE_COUNT + k) for k in range(N_TILE_KINDS)]
    for k in range(N_TILE_KINDS):
        lying = sum(1 for s in range(2) if state[DARK_PENDING + s] == k)
        if not (0 <= state[TILE_AVAIL + k] and state[TILE_AVAIL + k] + lying <= counts[k]):
            problems.append(f"tile {TILE_NAMES[k]}: {state[TILE_AVAIL + k]} face up, "
                            f"{lying} lying, of {counts[k]}")
    for s in range(2):
        if state[DARK_PENDING + s] not in (-1, 3, 4, 5):
            problems.append(f"{seat_name(s)} has a non-dark tile pending")
    ph = state[PHASE]
    if not 0 <= ph < len(PHASE_NAMES):
        problems.append(f"phase {ph}")
    if state[WINNER] < 0:
        p = state[PLAYER]
        if state[CONQUESTS] > num(params, r.M_MAX_CONQ):
            problems.append("too many conquests this turn")
        pending = state[PENDING_TERR] >= 0
        if pending != (ph in (COUNTER, DEFEND)):
            problems.append("a pending announcement outside the counter/defend phases")
        if (ph == LOSS) != (state[LOSS_LEFT] > 0):
            problems.append("losses owed outside the loss phase (or none owed in it)")
        if ph == DISCARD_PHASE and state[HAND_SIZE + p] <= num(params, r.M_HAND_LIMIT):
            problems.append("discard phase with a hand within the limit")
        if ph == MAIN and state[AVALON_USED] not in (0, 1):
            problems.append("avalon flag")
        if ph == SUPPLY and state[TILE_AVAIL:TILE_AVAIL + N_TILE_KINDS].sum() == 0:
            problems.append("supply phase with no tile to take")
        if ph == MAIN and state[DARK_PENDING + p] != -1:
            problems.append(f"{seat_name(p)} is on turn with an undrawn dark tile")
    return problems
