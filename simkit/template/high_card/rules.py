"""High card's kernels: the game's rules, on raw arrays (docs/adding-a-game.md lists each
kernel's contract). Moves are card ranks: move ``r`` plays a card of rank ``r``."""

from simkit.game import HIDDEN
from simkit.jit import copy_into, inline, kernel
from simkit.rng import shuffle

from .state import (
    DECK,
    DECK_N,
    HAND,
    LEADER,
    LED,
    MAX_HAND,
    MAX_RANKS,
    P_COPIES,
    P_HAND,
    P_MAX_TURNS,
    P_RANKS,
    PLAYED,
    POINTS,
    STATE_SIZE,
    TO_MOVE,
    TRICKS,
)

END_REASONS = ["timeout", "hands_empty"]
PHASES = ("lead", "answer")


def item_columns(ranks: int) -> list[str]:
    """A column per rank: how many cards of it each seat played."""
    return [f"rank_{r}:played" for r in range(1, ranks + 1)]


@kernel
def state_size(params, n_players):
    return STATE_SIZE


@kernel
def max_moves(params, n_players):
    return MAX_HAND


@inline  # a helper of apply_move: inlined, as docs/adding-a-game.md's speed advice says
def draw(state, seat):
    """The deck's top card into ``seat``'s first empty hand slot (none when it is empty)."""
    if state[DECK_N] == 0:
        return
    for k in range(MAX_HAND):
        if state[HAND + seat * MAX_HAND + k] < 0:
            state[DECK_N] -= 1
            state[HAND + seat * MAX_HAND + k] = state[DECK + state[DECK_N]]
            state[DECK + state[DECK_N]] = -1
            return


@kernel
def new_game(params, n_players, state, chance):
    p = params[0]
    for i in range(STATE_SIZE):
        state[i] = -1
    state[TO_MOVE] = state[LEADER] = state[TRICKS] = 0
    state[POINTS] = state[POINTS + 1] = 0
    for r in range(MAX_RANKS):
        state[PLAYED + r] = 0
    n = 0
    for r in range(1, p[P_RANKS] + 1):
        for _ in range(p[P_COPIES]):
            state[DECK + n] = r
            n += 1
    state[DECK_N] = n
    shuffle(chance, state[DECK:DECK + n], n)
    for _ in range(p[P_HAND]):
        draw(state, 0)
        draw(state, 1)


@kernel
def to_move(state):
    return state[TO_MOVE]


@kernel
def legal_moves(params, state, moves):
    """The ranks in the hand of the seat to move, each once."""
    hand = HAND + state[TO_MOVE] * MAX_HAND
    n = 0
    for k in range(MAX_HAND):
        r = state[hand + k]
        seen = r < 0
        for j in range(n):
            seen = seen or moves[j] == r
        if not seen:
            moves[n] = r
            n += 1
    return n


@kernel
def apply_move(params, state, move, chance, items):
    seat = state[TO_MOVE]
    hand = HAND + seat * MAX_HAND
    for k in range(MAX_HAND):
        if state[hand + k] == move:
            state[hand + k] = -1
            break
    items[seat, move - 1] += 1
    state[PLAYED + move - 1] += 1
    if state[LED] < 0:
        state[LED] = move
        state[TO_MOVE] = 1 - seat
        return
    leader = state[LEADER]
    if move != state[LED]:
        winner = seat if move > state[LED] else leader
        state[POINTS + winner] += 1
        state[LEADER] = winner
    state[LED] = -1
    state[TRICKS] += 1
    draw(state, state[LEADER])
    draw(state, 1 - state[LEADER])
    state[TO_MOVE] = state[LEADER]


@kernel
def is_over(state):
    for k in range(2 * MAX_HAND):
        if state[HAND + k] >= 0:
            return False
    return state[LED] < 0


@kernel
def turn_number(state):
    return state[TRICKS]


@kernel
def finish(params, state, scores, ranks):
    a, b = state[POINTS], state[POINTS + 1]
    scores[0], scores[1] = a, b
    ranks[0] = 1 if a >= b else 2
    ranks[1] = 1 if b >= a else 2
    return 1


@kernel
def observe(params, state, seat, obs):
    """Hidden: the other hand's cards (how many it holds is seen) and the deck."""
    copy_into(obs, state)
    other = HAND + (1 - seat) * MAX_HAND
    for k in range(MAX_HAND):
        if obs[other + k] >= 0:
            obs[other + k] = HIDDEN
    for k in range(state[DECK_N]):
        obs[DECK + k] = HIDDEN


@kernel
def determinize(params, obs, seat, state, stream, scratch):
    """A full state drawn uniformly from those ``seat`` cannot tell from ``obs``: the cards
    it has not seen (the whole deck less its hand and the cards played) dealt to the other
    hand's slots and the deck. ``scratch`` (int32[state_size]) holds the unseen cards."""
    p = params[0]
    copy_into(state, obs)
    for r in range(p[P_RANKS]):
        scratch[r] = p[P_COPIES] - obs[PLAYED + r]
    for k in range(MAX_HAND):
        r = obs[HAND + seat * MAX_HAND + k]
        if r > 0:
            scratch[r - 1] -= 1
    n = 0
    for r in range(p[P_RANKS]):
        for _ in range(scratch[r]):
            scratch[MAX_RANKS + n] = r + 1
            n += 1
    shuffle(stream, scratch[MAX_RANKS:MAX_RANKS + n], n)
    for i in range(STATE_SIZE):
        if obs[i] == HIDDEN:
            n -= 1
            state[i] = scratch[MAX_RANKS + n]


@kernel
def progress(params, state, out):
    """Each seat's standing: tricks won so far."""
    out[0] = state[POINTS]
    out[1] = state[POINTS + 1]


@kernel
def phase(params, state):
    """0 to lead a trick, 1 to answer a card led."""
    return 0 if state[LED] < 0 else 1


FEATURES = ("own_points", "other_points", "own_best", "own_worst", "own_cards", "other_cards",
            "led", "deck_left", "tricks_fraction")
"""What a player looks at: the points, its best and worst card, the hands' sizes, the card
led (0 when leading), the cards left in the deck and how far the game is."""


@kernel
def features(params, obs, seat, out):
    p = params[0]
    best, worst, own, other = 0, 0, 0, 0
    for k in range(MAX_HAND):
        r = obs[HAND + seat * MAX_HAND + k]
        if r > 0:
            own += 1
            best = max(best, r)
            worst = r if worst == 0 else min(worst, r)
        if obs[HAND + (1 - seat) * MAX_HAND + k] != -1:
            other += 1
    out[0] = obs[POINTS + seat]
    out[1] = obs[POINTS + 1 - seat]
    out[2] = best
    out[3] = worst
    out[4] = own
    out[5] = other
    out[6] = max(obs[LED], 0)
    out[7] = obs[DECK_N]
    out[8] = obs[TRICKS] / p[P_MAX_TURNS]
