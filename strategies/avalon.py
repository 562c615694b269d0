"""``heuristic`` for Avalon: count the cards seen, attack where the expected crowns beat the
expected losses, enchant when a counter-spell is unlikely, strengthen where it defends a
territory or prepares an attack, keep a reserve in hand, and always ward off.

Every decision reads only ``obs`` (the other hand's types, the draw pile and face-down
territories are hidden there). Weights:

    crown           value of one crown gained (or taken from the opponent)
    loss            cost of one card lost to conquest losses
    reserve         cards kept in hand for counter-spells and defences
    attack_margin   an attack is made when its value exceeds this
    enchant_margin  an enchantment is made when its value exceeds this
    dark_hand       take a dark tile when holding at least this many cards
    patience        own opening turns without attacking (the rulebook advises 1; measured:
                    it does not change the mirror's second-player edge, so 0)
"""

import numpy as np

from simkit.games.avalon.rules import (
    ATTACK,
    COUNTER_NO,
    COUNTER_YES,
    DEFEND_YES,
    DISCARD_CARD,
    ENCHANT,
    LOSS_AVALON,
    LOSS_HAND,
    LOSS_LAYOUT,
    STRENGTHEN,
    SUPPLY_TILE,
    stack_at,
    tile_cards,
)
from simkit.games.avalon.state import (
    DECK_N,
    DISCARD,
    DISCARD_PHASE,
    FIRST_DARK,
    HAND,
    HAND_SIZE,
    HEIGHT,
    LOSS,
    M_CASTLE_DEF,
    M_CASTLE_LOSS,
    M_ENCH,
    M_HAND_LIMIT,
    M_KNIGHTS,
    M_WIN,
    MAIN,
    N_TERR,
    N_TYPES,
    OWNER,
    P_CROWNS,
    P_SPECIAL,
    PHASE,
    SP_CASTLE,
    SUPPLY,
    TERR_CARD,
    TURNS,
)
from simkit.jit import kernel
from simkit.registry import StrategySpec, register_strategy

W_CROWN, W_LOSS, W_RESERVE, W_ATTACK, W_ENCHANT, W_DARK, W_PATIENCE = 0, 1, 2, 3, 4, 5, 6


@kernel
def h_of(obs, seat, slot):
    return obs[HEIGHT + seat * N_TERR + slot]


@kernel
def slot_crowns(params, obs):
    """float64[11]: crowns of each slot, the unrevealed ones at their expected value."""
    out = np.zeros(N_TERR, np.float64)
    hidden_total = 0.0
    hidden = 0
    for c in range(N_TERR):
        hidden_total += obs[P_CROWNS + c]
    for i in range(N_TERR):
        card = obs[TERR_CARD + i]
        if card >= 0:
            out[i] = obs[P_CROWNS + card]
            hidden_total -= out[i]
        else:
            hidden += 1
    for i in range(N_TERR):
        if obs[TERR_CARD + i] < 0:
            out[i] = hidden_total / hidden
    return out


@kernel
def unseen(params, obs, seat):
    """int64[10]: cards of each type the seat has not seen (draw pile + the other hand)."""
    out = np.zeros(N_TYPES, np.int64)
    for t in range(N_TYPES):
        out[t] = obs[M_ENCH] if t & 1 else obs[M_KNIGHTS]
        out[t] -= obs[DISCARD + t] + obs[HAND + seat * N_TYPES + t]
    for s in range(2):
        for i in range(N_TERR):
            base = stack_at(obs, s, i)
            for k in range(h_of(obs, s, i)):
                out[obs[base + k]] -= 1
    return out


@kernel
def p_holds(unseen_t, unseen_total, hand_size):
    """Chance that a hand of ``hand_size`` drawn from the unseen cards holds one of a type."""
    p_none = 1.0
    for k in range(hand_size):
        if unseen_total - k <= 0:
            break
        p_none *= max(0.0, (unseen_total - unseen_t - k) / (unseen_total - k))
    return 1.0 - p_none


@kernel
def attack_value(params, obs, seat, t, slot, crowns, u, utotal, w):
    q = 1 - seat
    mine = h_of(obs, seat, slot) + 1
    theirs = h_of(obs, q, slot)
    enemy = obs[OWNER + slot] == q
    losses = mine + theirs + theirs  # additional losses, plus his own pile's share
    if enemy and obs[P_SPECIAL + obs[TERR_CARD + slot]] == SP_CASTLE:
        losses += obs[M_CASTLE_LOSS]
    gain = crowns[slot] * (2.0 if enemy else 1.0)
    if obs[TERR_CARD + slot] >= 0 and (crowns_of(params, obs, seat) + crowns[slot]
                                       >= obs[M_WIN]):
        gain += 100.0  # this conquest wins the game at the end of the turn
    p_def = p_holds(u[t & ~1], utotal, obs[HAND_SIZE + q])
    return (1.0 - p_def) * (w[W_CROWN] * gain - w[W_LOSS] * losses) - p_def * w[W_LOSS]


@kernel
def crowns_of(params, obs, seat):
    c = 0
    for i in range(N_TERR):
        if obs[OWNER + i] == seat:
            c += obs[P_CROWNS + obs[TERR_CARD + i]]
    return c


@kernel
def slot_weight(obs, seat, slot, crowns):
    """How much a slot matters: own and enemy territories count double."""
    return crowns[slot] * (1.0 if obs[OWNER + slot] < 0 else 2.0)


@kernel
def best_attack(params, obs, seat, moves, n_moves, crowns, u, w):
    """Index of the attack worth most (above ``attack_margin``), or 0."""
    best_k, best_v = 0, w[W_ATTACK]
    for k in range(n_moves):
        m = moves[k]
        if m >= ATTACK and m < COUNTER_NO:
            t, slot = (m - ATTACK) // N_TERR, (m - ATTACK) % N_TERR
            v = attack_value(params, obs, seat, t, slot, crowns, u, u.sum(), w)
            if v > best_v:
                best_k, best_v = k, v
    return best_k


@kernel
def best_enchant(params, obs, seat, moves, n_moves, crowns, u, w):
    """Index of the enchantment worth most, or 0. Won: +2 cards for us, -1 for him; lost
    (counter-spell): our enchantress goes to him and his side grows."""
    q = 1 - seat
    best_k, best_v = 0, w[W_ENCHANT]
    for k in range(n_moves):
        m = moves[k]
        if m >= ENCHANT and m < ATTACK:
            slot = m - ENCHANT
            top = obs[stack_at(obs, q, slot) + h_of(obs, q, slot) - 1]
            p_counter = p_holds(u[top | 1], u.sum(), obs[HAND_SIZE + q])
            stake = 2.0 + slot_weight(obs, seat, slot, crowns)
            v = (1.0 - p_counter) * stake - p_counter * stake
            if v > best_v:
                best_k, best_v = k, v
    return best_k


@kernel
def best_main(params, obs, seat, moves, n_moves, w):
    """Attack, else enchant, else strengthen (keeping a reserve while cards can still be
    drawn), else end the plays (move 0)."""
    crowns = slot_crowns(params, obs)
    u = unseen(params, obs, seat)
    k = 0
    if obs[TURNS] >= 2 * w[W_PATIENCE]:  # the rulebook's advice: no attack on a first turn
        k = best_attack(params, obs, seat, moves, n_moves, crowns, u, w)
    if k == 0:
        k = best_enchant(params, obs, seat, moves, n_moves, crowns, u, w)
    drawable = obs[DECK_N]
    for t in range(N_TYPES):
        drawable += obs[DISCARD + t]
    if k > 0 or (obs[HAND_SIZE + seat] <= w[W_RESERVE] and drawable > 0):
        return k
    return best_strengthen(params, obs, seat, moves, n_moves, crowns)


@kernel
def best_strengthen(params, obs, seat, moves, n_moves, crowns):
    """Strengthen where the opponent could attack a territory of ours, else where a few
    cards make a rich slot attackable; with the card type we hold most of."""
    q = 1 - seat
    best_slot, best_v = -1, 0.0
    for i in range(N_TERR):
        mine, theirs = h_of(obs, seat, i), h_of(obs, q, i)
        castle = (obs[TERR_CARD + i] >= 0
                  and obs[P_SPECIAL + obs[TERR_CARD + i]] == SP_CASTLE)
        if obs[OWNER + i] == seat:
            margin = mine + (obs[M_CASTLE_DEF] if castle else 0) - theirs
            v = crowns[i] * 2.0 / (1.0 + max(0, margin))
        else:
            need = theirs + (obs[M_CASTLE_DEF] if castle and obs[OWNER + i] == q else 0)
            gap = need - mine
            v = slot_weight(obs, seat, i, crowns) / (1.0 + theirs) if gap >= 0 else 0.0
            v = v / (1.0 + max(0, gap))
        if v > best_v:
            best_slot, best_v = i, v
    if best_slot < 0:
        return 0
    best_k, most = 0, 0
    for k in range(n_moves):
        m = moves[k]
        if m >= STRENGTHEN and m < ENCHANT and (m - STRENGTHEN) % N_TERR == best_slot:
            n = obs[HAND + seat * N_TYPES + (m - STRENGTHEN) // N_TERR]
            if n > most:
                best_k, most = k, n
    return best_k


@kernel
def best_loss(params, obs, seat, moves, n_moves):
    """Avalon first; then a spare hand card (one we hold several of), else the top card of
    the pile that matters least."""
    crowns = slot_crowns(params, obs)
    best_k, best_v = 0, 1e9
    for k in range(n_moves):
        m = moves[k]
        if m == LOSS_AVALON:
            return k
        if m < LOSS_LAYOUT:
            v = 3.0 - 0.5 * obs[HAND + seat * N_TYPES + m - LOSS_HAND]
        else:
            i = m - LOSS_LAYOUT
            margin = h_of(obs, seat, i) - h_of(obs, 1 - seat, i)
            v = slot_weight(obs, seat, i, crowns) / (1.0 + max(0, margin))
        if v < best_v:
            best_k, best_v = k, v
    return best_k


@kernel
def best_tile(params, obs, seat, moves, n_moves, w):
    hand = obs[HAND_SIZE + seat]
    room = max(0, obs[M_HAND_LIMIT] - hand)
    best_k, best_v = 0, -1.0
    for k in range(n_moves):
        kind = moves[k] - SUPPLY_TILE
        cards = tile_cards(obs, seat, kind)
        if kind >= FIRST_DARK:
            v = cards * (1.0 if hand >= w[W_DARK] else 0.5)
        else:
            v = min(cards, room) + 0.01
        if v > best_v:
            best_k, best_v = k, v
    return best_k


@kernel
def most_held(obs, seat, moves, n_moves):
    best_k, most = 0, -1
    for k in range(n_moves):
        n = obs[HAND + seat * N_TYPES + moves[k] - DISCARD_CARD]
        if n > most:
            best_k, most = k, n
    return best_k


@kernel
def choose_heuristic(params, obs, seat, moves, n_moves, weights, stream):
    ph = obs[PHASE]
    if ph == MAIN:
        return best_main(params, obs, seat, moves, n_moves, weights)
    if ph == LOSS:
        return best_loss(params, obs, seat, moves, n_moves)
    if ph == SUPPLY:
        return best_tile(params, obs, seat, moves, n_moves, weights)
    if ph == DISCARD_PHASE:
        return most_held(obs, seat, moves, n_moves)
    for k in range(n_moves):  # counter-spell and defence: always ward off
        if moves[k] == COUNTER_YES or moves[k] == DEFEND_YES:
            return k
    return 0


register_strategy(StrategySpec(
    "heuristic", choose_heuristic, game="avalon",
    weights={"crown": 1.0, "loss": 0.35, "reserve": 2.0, "attack_margin": 0.0,
             "enchant_margin": 0.0, "dark_hand": 3.0, "patience": 0.0},
    summary="card counting: attack when crowns beat losses, enchant safely, keep a reserve"))
