"""Rabbit Hunt's ``heuristic``: hide your bunnies early, hunt where the others hid theirs.

It sees only its observation. Every legal move gets a score and the best is played (ties
broken at random from the seat's own stream):
- place: a bunny (winner rule a needs them all out of hand) once at least ``decoys`` of
  one's own hidden farmland cards per bunny already lie on the farmland, so a hunter cannot
  tell them apart, on the cell farthest from the other farmers; otherwise the card that
  helps whoever turns it up least (its ``gift`` below);
- move / step / own farmer moved by an event: the value of the card it would turn up,
  minus ``cost`` per carrot: a bunny known to be an opponent's is worth ``catch_known``,
  a hidden card an opponent laid is worth ``opponent_card`` times the chance it is a bunny,
  a hidden card nobody laid ``unknown_card``, a known farmland card its gift, one's own or a
  partner's bunny ``-own_bunny``;
- take a carrot below the cap ``carrot``; draw ``draw``, plus ``end_when_ahead`` when this
  seat would win if the pile ran out now (drawing brings the end closer);
- swap a revealed bunny for the card least useful to whoever turns it up; never put cards
  back after being looked at; peek at opponents' cards; never spend carrots on looking.
"""

import numpy as np

from simkit.game import HIDDEN
from simkit.games.rabbit_hunt.rules import face_down, move_cost, placer_at
from simkit.games.rabbit_hunt.state import (
    BUNNY,
    CARROTS,
    CAUGHT,
    CELLS,
    ELIMINATED,
    FARMER,
    HAND,
    LOST,
    M_CARROT,
    M_DONE,
    M_DRAW,
    M_MOVE,
    M_MOVE_ANY,
    M_PEEK,
    M_PLACE,
    M_STEP,
    M_SWAP,
    M_TO_HOME,
    N_KINDS,
    N_PLAYERS,
    NO_CARD,
    P_BUNNIES,
    P_CARROT_CAP,
    P_CELLS,
    PILE_LEN,
    WAREHOUSE,
)
from simkit.jit import kernel
from simkit.registry import StrategySpec, register_strategy
from simkit.rng import rand_below

WEIGHTS = {
    "bunny_first": 10.0, "far_from_farmers": 0.3, "catch_known": 12.0, "opponent_card": 6.0,
    "unknown_card": 0.8, "own_bunny": 8.0, "cost": 0.9, "carrot": 1.2, "draw": 0.2,
    "end_when_ahead": 2.0, "peek_opponent": 1.0, "decoys": 1.0,
}
(W_BUNNY_FIRST, W_FAR, W_CATCH, W_OPP_CARD, W_UNKNOWN, W_OWN, W_COST, W_CARROT, W_DRAW,
 W_END_AHEAD, W_PEEK, W_DECOYS) = range(len(WEIGHTS))

# What turning up each farmland kind is worth to the one who does (same order as KINDS):
# empty, +1 carrot, +2 carrots, draw 1, draw 2, step, move any, to warehouse, peek, place,
# show, show/lose carrots, everyone shows, turn ends.
GIFT = np.array([0.0, 1.0, 2.0, 0.3, 0.5, 1.0, 1.5, 0.2, 0.5, 0.3, -0.2, -1.0, -0.3, -1.5])


@kernel
def hex_distance(coords, a, b):
    dq = coords[a, 0] - coords[b, 0]
    dr = coords[a, 1] - coords[b, 1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


@kernel
def is_opponent(obs, seat, other):
    if other < 0 or other == seat:
        return False
    return not (obs[N_PLAYERS] == 4 and other % 2 == seat % 2)


@kernel
def bunny_chance(p, obs, seat, owner_cells_hidden):
    """Chance that a hidden card laid by an opponent is a bunny: the opponents' bunnies not
    yet caught, spread over the hidden cards they laid."""
    uncaught = 0
    for other in range(obs[N_PLAYERS]):
        if is_opponent(obs, seat, other) and obs[ELIMINATED + other] == 0:
            uncaught += p[P_BUNNIES] - obs[LOST + other]
    if owner_cells_hidden == 0:
        return 0.0
    return min(1.0, uncaught / owner_cells_hidden)


@kernel
def card_value(p, obs, seat, c, chance, w):
    """What turning up cell ``c`` is worth to ``seat``, from what it knows."""
    card = obs[CELLS + c]
    if card == NO_CARD or card == WAREHOUSE or not face_down(p, obs, c):
        return -0.3  # nothing to turn up: a wasted move
    if card == HIDDEN:
        placer = obs[placer_at(p, c)]
        if is_opponent(obs, seat, placer):
            return w[W_OPP_CARD] * chance
        return w[W_UNKNOWN]
    if card >= BUNNY:
        return w[W_CATCH] if is_opponent(obs, seat, card - BUNNY) else -w[W_OWN]
    return GIFT[card]


@kernel
def ahead(p, obs, seat):
    """Would ``seat`` win if the game ended now (by rules a-c, as far as it knows)?"""
    if obs[HAND + seat * N_KINDS + BUNNY] > 0:
        return False
    for other in range(obs[N_PLAYERS]):
        if is_opponent(obs, seat, other) and obs[ELIMINATED + other] == 0:
            if obs[CAUGHT + other] > obs[CAUGHT + seat]:
                return False
            if obs[CAUGHT + other] == obs[CAUGHT + seat] and obs[LOST + other] <= obs[LOST + seat]:
                return False
    return True


@kernel
def nearest_farmer(coords, obs, seat, c):
    best = 99
    for other in range(obs[N_PLAYERS]):
        if is_opponent(obs, seat, other) and obs[FARMER + other] >= 0:
            best = min(best, hex_distance(coords, c, obs[FARMER + other]))
    return best


@kernel
def cover(p, obs, seat):
    """Own hidden farmland cards on the farmland per own bunny there (+1)."""
    decoys, bunnies = 0, 0
    for c in range(p[P_CELLS]):
        if obs[placer_at(p, c)] == seat and face_down(p, obs, c):
            if obs[CELLS + c] == BUNNY + seat:
                bunnies += 1
            elif obs[CELLS + c] < BUNNY:
                decoys += 1
    return decoys / (bunnies + 1)


@kernel
def move_score(p, coords, obs, seat, kind, arg, dist, chance, w, covered):
    if kind == M_PLACE:
        k, c = arg >> 8, arg & 255
        if k == BUNNY:
            if not covered and obs[PILE_LEN] > 8:
                return -1.0  # a decoy first, while there is time
            return w[W_BUNNY_FIRST] + w[W_FAR] * min(nearest_farmer(coords, obs, seat, c), 6)
        return -GIFT[k]
    if kind == M_MOVE:
        return card_value(p, obs, seat, arg, chance, w) - w[W_COST] * move_cost(p, dist[arg])
    if kind == M_STEP:
        return card_value(p, obs, seat, arg, chance, w)
    if kind == M_MOVE_ANY:
        if arg >> 8 == seat:
            return card_value(p, obs, seat, arg & 255, chance, w)
        return -0.5
    if kind == M_CARROT:
        return w[W_CARROT] if obs[CARROTS + seat] < p[P_CARROT_CAP] else -0.2
    if kind == M_DRAW:
        return w[W_DRAW] + (w[W_END_AHEAD] if ahead(p, obs, seat) else -w[W_DRAW])
    if kind == M_SWAP:
        return -100.0 if arg == BUNNY else -GIFT[arg]
    if kind == M_PEEK:
        return w[W_PEEK] if is_opponent(obs, seat, obs[placer_at(p, arg)]) else 0.0
    if kind == M_TO_HOME:
        return 0.2 if is_opponent(obs, seat, arg) else -0.2
    if kind == M_DONE:
        return 0.0
    return -1.0  # look at a hand, put a card back


@kernel
def choose_rabbit_hunt(params, obs, seat, moves, n_moves, weights, stream):
    p, coords = params[0], params[1]
    n_cells = p[P_CELLS]
    hidden_opp = 0
    for c in range(n_cells):
        if obs[CELLS + c] == HIDDEN and is_opponent(obs, seat, obs[placer_at(p, c)]):
            hidden_opp += 1
    chance = bunny_chance(p, obs, seat, hidden_opp)
    dist = np.full(n_cells, -1, np.int32)
    here = obs[FARMER + seat]
    if here >= 0:
        for c in range(n_cells):
            if obs[CELLS + c] != NO_CARD:
                d = hex_distance(coords, here, c)
                dist[c] = d if d <= 3 else -1  # 1-3 steps as the crow flies: cards are dense
    covered = cover(p, obs, seat) >= weights[W_DECOYS]
    best, best_k = -1e18, 0
    for k in range(n_moves):
        m = moves[k]
        s = move_score(p, coords, obs, seat, m >> 16, m & 0xFFFF, dist, chance, weights,
                       covered)
        s += rand_below(stream, 1024) * 1e-6  # random tie-break
        if s > best:
            best, best_k = s, k
    return best_k


register_strategy(StrategySpec(
    "heuristic", choose_rabbit_hunt, game="rabbit-hunt", weights=WEIGHTS,
    summary="bunnies first, hunt opponents' cards, carrots when idle, draw when ahead"))
