"""Rabbit Hunt's ``heuristic``: hide your bunnies early, hunt where the others hid theirs,
read the hands to know when ending the pile wins, and keep the hunters off your bunnies.

It sees only its observation, memory included (``simkit/games/rabbit_hunt/memory.py``:
what the table showed the seat, kept as groups of cards). Every legal move gets a score and
the best is played (ties broken at random from the seat's own stream):
- place: a bunny (winner rule a needs them all out of hand) once at least ``decoys`` of
  one's own hidden farmland cards per bunny already lie on the farmland, so a hunter cannot
  tell them apart, on the cell farthest from the other farmers; otherwise the card that
  helps whoever turns it up least (its ``gift`` below), plus ``decoys_far`` times its
  distance from the other farmers (up to 6, over 6): a decoy where a bunny would go looks
  like one (0: any cell, as v1); decoys first until the pile is down to ``decoy_pile``;
- move / step / own farmer moved by an event: the value of the card it would turn up,
  minus ``cost`` per carrot: a bunny known to be an opponent's is worth ``catch_known``, a
  hidden card nobody laid ``unknown_card``, a known farmland card its gift, one's own or a
  partner's bunny ``-own_bunny``. A hidden card an opponent laid: with ``memory`` on,
  ``catch_known`` times the chance that it is a bunny by the seat's memory (the owner's
  bunnies it has not seen, spread over the owner's hand and the cards it laid since the
  seat last knew its hand) plus ``decoy_card`` times the chance that it is not; a hidden
  card the partner laid risks showing the partner's bunny to all (``-own_bunny`` times its
  chance). With ``memory`` off (v1): ``opponent_card`` times the uncaught bunnies over the
  opponents' hidden cards, a partner's card like a card nobody laid;
- own bunny an opponent has seen (it knows where to catch it): turning it up oneself takes
  it back to the hand, a decoy in its place: worth ``rescue`` (0: ``-own_bunny`` as v1)
  while the pile has more than ``decoy_pile`` cards, time enough to lay it again;
- take a carrot below the cap ``carrot``; draw ``draw``, plus ``end_when_ahead`` when this
  seat would win if the pile ran out now. With ``hands`` on, "would win" is a chance read
  from the hands as the memory knows them (who certainly or maybe still holds a bunny, for
  winner rule a; then caught and lost, rules b and c): a draw that can end the pile this
  turn is worth ``end_when_ahead`` times twice the chance of winning when that chance is
  at least a half, ``-end_when_ahead`` otherwise; a draw that cannot, ``end_when_ahead``
  when the chance of winning at the pile's earliest end is at least ``ahead_chance`` (the
  others then clean, unless a hand holds more bunnies than the turns it gets till then, a
  card laid each), minus ``handoff`` times the chance that the next player wins by ending
  a pile left within its reach. With ``hands`` off (v1): rules
  a-c on one's own hand only, the others' taken as clean;
- "move any farmer" / "farmer to warehouse" on an opponent: ``protect`` times the threat
  taken off one's own (and, by their chance, the partner's) hidden bunnies: each bunny the
  farmer could reach next turn counts (4 - carrots to reach it) / 3, ``seen_threat`` times
  when that opponent has seen it. With ``protect`` 0 (v1): -0.5, and 0.2 for the warehouse;
- swap a revealed bunny for the card least useful to whoever turns it up; never put cards
  back after being looked at; peek at opponents' cards (with ``memory``: the likeliest
  bunny); never spend carrots on looking.

The weights by name (``--weight heuristic.NAME=V``): ``bunny_first`` a bunny laid when
covered, ``far_from_farmers`` per step it lies from the nearest other farmer (up to 6),
``decoys``, ``decoy_pile``, ``decoys_far`` (placing, above); ``catch_known``,
``opponent_card``, ``unknown_card``, ``own_bunny``, ``decoy_card``, ``memory``, ``cost``
(moving); ``rescue``; ``carrot``, ``draw``, ``end_when_ahead``, ``hands``,
``ahead_chance``, ``handoff`` (carrots and the end); ``protect``, ``seen_threat`` (the
farmer events); ``peek_opponent`` a peek at an opponent's card (with ``memory``, times 0.1
plus its bunny chance). ``memory``, ``hands``, ``protect``, ``rescue`` and ``decoys_far``
turn their behaviour on when above 0.

``heuristic-v1`` is this kernel with ``memory``, ``decoy_card``, ``hands``, ``protect``,
``rescue`` and ``decoys_far`` at 0, ``catch_known`` 12 and ``decoy_pile`` 8: exactly the
heuristic before v2 (tests/games/rabbit_hunt/test_heuristic_v2.py replays its games).
"""

import numpy as np

from simkit.game import HIDDEN
from simkit.games.rabbit_hunt.memory import cell_tags_at, group_at, seen_at, tag_of
from simkit.games.rabbit_hunt.rules import face_down, move_cost, placer_at
from simkit.games.rabbit_hunt.state import (
    ACTIONS_LEFT,
    BUNNY,
    CARROTS,
    CAUGHT,
    CELLS,
    ELIMINATED,
    FARMER,
    G_BUNNY_CAP,
    G_KNOWN,
    G_OWNER,
    HAND,
    IN_HAND,
    KNOWN_TAG,
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
    N_GROUPS,
    N_KINDS,
    N_PLAYERS,
    NO_CARD,
    P_ACTIONS,
    P_BUNNIES,
    P_CARROT_CAP,
    P_CELLS,
    P_CENTER,
    PILE_LEN,
    TURN_SEAT,
    WAREHOUSE,
)
from simkit.jit import kernel
from simkit.registry import StrategySpec, register_strategy
from simkit.rng import rand_below

WEIGHTS = {
    "bunny_first": 10.0, "far_from_farmers": 0.3, "catch_known": 16.0, "opponent_card": 6.0,
    "unknown_card": 0.8, "own_bunny": 8.0, "cost": 0.9, "carrot": 1.2, "draw": 0.2,
    "end_when_ahead": 2.0, "peek_opponent": 1.0, "decoys": 1.0,
    # v2 (0 turns each off; heuristic-v1 below)
    "memory": 1.0, "decoy_card": 2.0, "hands": 1.0, "ahead_chance": 0.6, "handoff": 3.0,
    "protect": 2.0, "seen_threat": 4.0, "rescue": 3.0, "decoy_pile": 8.0, "decoys_far": 2.0,
}
(W_BUNNY_FIRST, W_FAR, W_CATCH, W_OPP_CARD, W_UNKNOWN, W_OWN, W_COST, W_CARROT, W_DRAW,
 W_END_AHEAD, W_PEEK, W_DECOYS, W_MEMORY, W_DECOY_CARD, W_HANDS, W_AHEAD_CHANCE, W_HANDOFF,
 W_PROTECT, W_SEEN_THREAT, W_RESCUE, W_DECOY_PILE, W_DECOYS_FAR) = range(len(WEIGHTS))
V1_WEIGHTS = dict(WEIGHTS, catch_known=12.0, memory=0.0, decoy_card=0.0, hands=0.0,
                  protect=0.0, rescue=0.0, decoy_pile=8.0, decoys_far=0.0)

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
def is_partner(obs, seat, other):
    return obs[N_PLAYERS] == 4 and other >= 0 and other != seat and other % 2 == seat % 2


@kernel
def bunny_chance(p, obs, seat, owner_cells_hidden):
    """v1: chance that a hidden card laid by an opponent is a bunny: the opponents' bunnies
    not yet caught, spread over the hidden cards they laid."""
    uncaught = 0
    for other in range(obs[N_PLAYERS]):
        if is_opponent(obs, seat, other) and obs[ELIMINATED + other] == 0:
            uncaught += p[P_BUNNIES] - obs[LOST + other]
    if owner_cells_hidden == 0:
        return 0.0
    return min(1.0, uncaught / owner_cells_hidden)


# ---------------------------------------------------------------- what the memory says
@kernel
def choose_k(n, k):
    """n choose k for k <= 3 (a hand holds at most 3 bunnies)."""
    if k < 0 or k > n:
        return 0.0
    if k == 0:
        return 1.0
    if k == 1:
        return float(n)
    if k == 2:
        return n * (n - 1) / 2.0
    return n * (n - 1) * (n - 2) / 6.0


@kernel
def read_memory(p, obs, seat, prob, clean, fewest):
    """From seat's memory groups: ``prob[c]`` (float64[n_cells]) the chance that hidden card
    c is a bunny of whoever laid it, ``clean[o]`` (float64[4]) the chance that o's hand
    holds no bunny (winner rule a) and ``fewest[o]`` (int64[4]) how many it holds at least.
    A hand group's b unseen bunnies lie in the hand (h cards, at most its bunny cap) or on
    the L cards its owner laid since; every layout of them is equally likely (as
    ``determinize`` deals them), so j in the hand has weight C(h, j) C(L, b - j). A group
    cut off from a hand spreads its bunnies over its cards."""
    n_cells = p[P_CELLS]
    laid = np.zeros(N_GROUPS, np.int64)
    for c in range(n_cells):
        prob[c] = 0.0
        if obs[CELLS + c] == HIDDEN:
            tag = tag_of(obs[cell_tags_at(p, c)], seat)
            if 0 < tag < KNOWN_TAG:
                g = tag - 1
                if obs[placer_at(p, c)] == obs[group_at(seat, g) + G_OWNER]:
                    laid[g] += 1  # (a card filled from the pile is never a bunny)
    share = np.zeros(N_GROUPS, np.float64)
    for o in range(4):
        clean[o] = 1.0
        fewest[o] = 0
    fewest[seat] = obs[HAND + seat * N_KINDS + BUNNY]
    clean[seat] = 1.0 if fewest[seat] == 0 else 0.0
    for g in range(N_GROUPS):
        r = group_at(seat, g)
        owner = obs[r + G_OWNER]
        if owner < 0 or owner == seat:
            continue
        b, cells = obs[r + G_KNOWN + BUNNY], laid[g]
        if g >= 4:
            share[g] = b / cells if cells > 0 else 0.0
            continue
        h = obs[IN_HAND + owner]
        top = min(b, h, obs[r + G_BUNNY_CAP])
        total, in_hand, none = 0.0, 0.0, 0.0
        for j in range(top + 1):
            wt = choose_k(h, j) * choose_k(cells, b - j)
            total += wt
            in_hand += j * wt
            if j == 0:
                none = wt
        fewest[owner] = max(b - cells, 0)
        if total > 0:
            clean[owner] = none / total
            share[g] = (b - in_hand / total) / cells if cells > 0 else 0.0
    for c in range(n_cells):
        if obs[CELLS + c] == HIDDEN:
            tag = tag_of(obs[cell_tags_at(p, c)], seat)
            if 0 < tag < KNOWN_TAG and obs[placer_at(p, c)] == obs[
                    group_at(seat, tag - 1) + G_OWNER]:
                prob[c] = min(1.0, share[tag - 1])


@kernel
def unit_of(n, seat):
    return seat % 2 if n == 4 else seat


@kernel
def win_chances(obs, clean, out):
    """``out[u]`` (float64[4]): the chance that unit u (a player, with 4 a team) wins if the
    pile ran out now, as far as the seat knows: it is clean (rule a: every seat's hand
    without a bunny, ``clean``) and beats, on caught then lost (rules b, c; a tie there is
    even, rule d being unknown), every other unit that is clean."""
    n = obs[N_PLAYERS]
    n_units = 2 if n == 4 else n
    q = np.ones(4, np.float64)
    caught = np.zeros(4, np.int64)
    lost = np.zeros(4, np.int64)
    alive = np.zeros(4, np.bool_)
    for s in range(n):
        u = unit_of(n, s)
        caught[u] += obs[CAUGHT + s]
        lost[u] += obs[LOST + s]
        if obs[ELIMINATED + s] == 0:
            alive[u] = True
            q[u] *= clean[s]
    for u in range(n_units):
        out[u] = q[u] if alive[u] else 0.0
        for v in range(n_units):
            if v != u and alive[v] and alive[u]:
                beat = 0.5
                if caught[u] != caught[v]:
                    beat = 1.0 if caught[u] > caught[v] else 0.0
                elif lost[u] != lost[v]:
                    beat = 1.0 if lost[u] < lost[v] else 0.0
                out[u] *= 1.0 - q[v] + q[v] * beat


@kernel
def next_seat(obs, seat):
    n = obs[N_PLAYERS]
    s = seat
    for _ in range(n):
        s = (s + 1) % n
        if obs[ELIMINATED + s] == 0:
            return s
    return seat


@kernel
def draw_value(p, obs, seat, wins, wins_later, w):
    """The draw action with ``hands`` on (see the module docstring)."""
    n = obs[N_PLAYERS]
    mine = wins[unit_of(n, seat)]
    pile, actions = obs[PILE_LEN], obs[ACTIONS_LEFT]
    if pile <= actions:  # drawing every action left ends the game this turn
        return 2.0 * w[W_END_AHEAD] * mine if mine >= 0.5 else -w[W_END_AHEAD]
    later = wins_later[unit_of(n, seat)]
    s = w[W_DRAW] + (w[W_END_AHEAD] if later >= w[W_AHEAD_CHANCE] else -w[W_DRAW])
    nxt = next_seat(obs, obs[TURN_SEAT])
    if pile - 1 <= p[P_ACTIONS] and unit_of(n, nxt) != unit_of(n, seat):
        s -= w[W_HANDOFF] * wins[unit_of(n, nxt)]
    return s


# ---------------------------------------------------------------- threats to own bunnies
@kernel
def threat(p, coords, obs, who, at, guard, guard_wt, n_guard, w):
    """How much farmer ``who`` standing on ``at`` threatens the seat's hidden bunnies
    (``guard[:n_guard]``: their cells, ``guard_wt``: the chance each is one): a bunny it
    could reach next turn (its carrots and one more) counts (4 - carrots to reach it) / 3,
    ``seen_threat`` times as much if ``who`` has seen it."""
    budget = obs[CARROTS + who] + 1
    t = 0.0
    for i in range(n_guard):
        c = guard[i]
        d = max(hex_distance(coords, at, c), 1)  # (standing on it: one step off and back)
        cost = move_cost(p, d if d <= 3 else -1)
        if cost <= budget:
            x = guard_wt[i] * (4 - cost) / 3.0
            if (obs[seen_at(p, c)] >> who) & 1:
                x *= w[W_SEEN_THREAT]
            t += x
    return t


# ---------------------------------------------------------------- v1's pieces
@kernel
def ahead(p, obs, seat):
    """v1: would ``seat`` win if the game ended now (by rules a-c on its own hand, the
    others' taken as clean)?"""
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


# ---------------------------------------------------------------- scoring the moves
@kernel
def seen_by_opponent(p, obs, seat, c):
    seen = obs[seen_at(p, c)]
    for other in range(obs[N_PLAYERS]):
        if (seen >> other) & 1 and is_opponent(obs, seat, other) and obs[ELIMINATED + other] == 0:
            return True
    return False


@kernel
def card_value(p, obs, seat, c, chance, prob, w):
    """What turning up cell ``c`` is worth to ``seat``, from what it knows."""
    card = obs[CELLS + c]
    if card == NO_CARD or card == WAREHOUSE or not face_down(p, obs, c):
        return -0.3  # nothing to turn up: a wasted move
    if card == HIDDEN:
        placer = obs[placer_at(p, c)]
        if w[W_MEMORY] > 0:
            b = prob[c]
            if is_opponent(obs, seat, placer):
                return w[W_CATCH] * b + (1.0 - b) * w[W_DECOY_CARD]
            if is_partner(obs, seat, placer):
                return (1.0 - b) * w[W_UNKNOWN] - b * w[W_OWN]
            return w[W_UNKNOWN]
        if is_opponent(obs, seat, placer):
            return w[W_OPP_CARD] * chance
        return w[W_UNKNOWN]
    if card >= BUNNY:
        if is_opponent(obs, seat, card - BUNNY):
            return w[W_CATCH]
        if (w[W_RESCUE] > 0 and card - BUNNY == seat and obs[PILE_LEN] > w[W_DECOY_PILE]
                and seen_by_opponent(p, obs, seat, c)):
            return w[W_RESCUE]
        return -w[W_OWN]
    return GIFT[card]


@kernel
def move_score(p, coords, obs, seat, kind, arg, dist, chance, w, covered, prob, wins,
               wins_later, guard, guard_wt, n_guard, threat_now):
    if kind == M_PLACE:
        k, c = arg >> 8, arg & 255
        if k == BUNNY:
            if not covered and obs[PILE_LEN] > w[W_DECOY_PILE]:
                return -1.0  # a decoy first, while there is time
            return w[W_BUNNY_FIRST] + w[W_FAR] * min(nearest_farmer(coords, obs, seat, c), 6)
        if w[W_DECOYS_FAR] > 0:  # a decoy where a bunny would go, to look like one
            return -GIFT[k] + w[W_DECOYS_FAR] * min(nearest_farmer(coords, obs, seat, c), 6) / 6
        return -GIFT[k]
    if kind == M_MOVE:
        return (card_value(p, obs, seat, arg, chance, prob, w)
                - w[W_COST] * move_cost(p, dist[arg]))
    if kind == M_STEP:
        return card_value(p, obs, seat, arg, chance, prob, w)
    if kind == M_MOVE_ANY:
        who, c = arg >> 8, arg & 255
        if who == seat:
            return card_value(p, obs, seat, c, chance, prob, w)
        if w[W_PROTECT] > 0 and is_opponent(obs, seat, who):
            return w[W_PROTECT] * (threat_now[who] - threat(p, coords, obs, who, c, guard,
                                                            guard_wt, n_guard, w)) - 0.5
        return -0.5
    if kind == M_CARROT:
        return w[W_CARROT] if obs[CARROTS + seat] < p[P_CARROT_CAP] else -0.2
    if kind == M_DRAW:
        if w[W_HANDS] > 0:
            return draw_value(p, obs, seat, wins, wins_later, w)
        return w[W_DRAW] + (w[W_END_AHEAD] if ahead(p, obs, seat) else -w[W_DRAW])
    if kind == M_SWAP:
        return -100.0 if arg == BUNNY else -GIFT[arg]
    if kind == M_PEEK:
        if not is_opponent(obs, seat, obs[placer_at(p, arg)]):
            return 0.0
        if w[W_MEMORY] > 0:  # the likeliest bunny the seat does not know yet
            return w[W_PEEK] * (0.1 + prob[arg]) if obs[CELLS + arg] == HIDDEN else 0.0
        return w[W_PEEK]
    if kind == M_TO_HOME:
        if w[W_PROTECT] > 0 and is_opponent(obs, seat, arg):
            return 0.2 + w[W_PROTECT] * (threat_now[arg] - threat(
                p, coords, obs, arg, p[P_CENTER], guard, guard_wt, n_guard, w))
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
    # what the memory says (not needed to lay a card or answer a look)
    prob = np.zeros(n_cells, np.float64)
    clean = np.ones(4, np.float64)
    fewest = np.zeros(4, np.int64)
    wins = np.zeros(4, np.float64)
    wins_later = np.zeros(4, np.float64)
    guard = np.empty(n_cells, np.int64)
    guard_wt = np.empty(n_cells, np.float64)
    threat_now = np.zeros(4, np.float64)
    n_guard = 0
    first = moves[0] >> 16
    if first != M_PLACE and first != M_SWAP and first != M_DONE and (
            weights[W_MEMORY] > 0 or weights[W_HANDS] > 0 or weights[W_PROTECT] > 0):
        read_memory(p, obs, seat, prob, clean, fewest)
        if weights[W_HANDS] > 0:
            win_chances(obs, clean, wins)
            # when the pile can run out at the earliest: the others' turns till then, each
            # laying a card; only a hand with more bunnies than that is sure to be caught
            turns = -(-max(obs[PILE_LEN] - obs[ACTIONS_LEFT], 0) // p[P_ACTIONS])
            for o in range(obs[N_PLAYERS]):
                if o != seat:
                    clean[o] = 0.0 if fewest[o] > turns else 1.0
            win_chances(obs, clean, wins_later)
        if weights[W_PROTECT] > 0:
            for c in range(n_cells):
                card = obs[CELLS + c]
                if card == BUNNY + seat and face_down(p, obs, c):
                    guard[n_guard], guard_wt[n_guard] = c, 1.0
                    n_guard += 1
                elif card == HIDDEN and prob[c] > 0 and is_partner(obs, seat,
                                                                    obs[placer_at(p, c)]):
                    guard[n_guard], guard_wt[n_guard] = c, prob[c]
                    n_guard += 1
            for o in range(obs[N_PLAYERS]):
                if is_opponent(obs, seat, o) and obs[FARMER + o] >= 0:
                    threat_now[o] = threat(p, coords, obs, o, obs[FARMER + o], guard, guard_wt,
                                           n_guard, weights)
    best, best_k = -1e18, 0
    for k in range(n_moves):
        m = moves[k]
        s = move_score(p, coords, obs, seat, m >> 16, m & 0xFFFF, dist, chance, weights,
                       covered, prob, wins, wins_later, guard, guard_wt, n_guard, threat_now)
        s += rand_below(stream, 1024) * 1e-6  # random tie-break
        if s > best:
            best, best_k = s, k
    return best_k


register_strategy(StrategySpec(
    "heuristic", choose_rabbit_hunt, game="rabbit-hunt", weights=WEIGHTS,
    summary="bunnies first, hunt where the memory puts bunnies, end the pile when the hands "
            "say it wins, keep hunters off own bunnies"))
register_strategy(StrategySpec(
    "heuristic-v1", choose_rabbit_hunt, game="rabbit-hunt", weights=V1_WEIGHTS,
    summary="the heuristic before memory, hands and protection: bunnies first, hunt "
            "opponents' cards, carrots when idle, draw when ahead"))
