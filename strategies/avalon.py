"""``heuristic`` for Avalon: count the cards seen, attack where the expected crowns beat the
expected losses and the counter-attack the conquest invites, enchant when a counter-spell is
unlikely, strengthen where it defends a territory or prepares an attack with the card that
serves there best, keep a reserve in hand, defend when the defence is worth the knight, and
always counter-spell. ``heuristic-v1`` is the same kernel with the v2 weights off (it plays
exactly the games of the heuristic before v2; NOTES.md, "Heuristic (v2)").

Every decision reads only ``obs`` (the other hand's types, the draw pile and face-down
territories are hidden there). Weights (v1's first, then v2's):

    crown           value of one crown gained (or taken from the opponent)
    loss            cost of one card lost to conquest losses
    reserve         cards kept in hand for counter-spells and defences
    attack_margin   an attack is made when its value exceeds this
    enchant_margin  an enchantment is made when its value exceeds this
    dark_hand       take a dark tile when holding at least this many cards
    patience        own opening turns without attacking (the rulebook advises 1; measured:
                    it does not change the mirror's second-player edge, so 0)
    weigh_defence   1: defend only when what the defence saves (the crowns at stake, double
                    at an own territory, +100 if the conquest would win him the game, less
                    ``loss`` x the losses the conquest would cost him) beats the knight's
                    keep value; 0: always defend (v1). A counter-spell is always made: the
                    attacking enchantress comes into the hand, so it costs no card
    keep_knight     keep value of a knight in hand (crowns), divided by the copies held
    last_knight     added to it for the last knight in hand (no attack without one)
    keep_enchantress  keep value of an enchantress in hand, divided by the copies held
    counter_attack  weight of the exposure a conquest adds: the crowns the opponent can
                    expect to take from us next turn (his hand and dark-tile cards against
                    our guards, net of his losses, the two largest, less the colours we can
                    ward off), after the conquered slot is left with our cards less his and
                    the losses are paid as ``best_loss`` pays them; 0: v1's attacks
    retake          share of that exposure counted for the conquered territory itself (the
                    rest is the territories the losses weaken and the knights they take)
    guard           weight of the exposure in choosing which card to lose (0: v1's choice;
                    measured weaker, see NOTES.md)
    fit_type        1: strengthen with the card cheapest to give up (its keep value, plus
                    ``top_risk`` x the chance the opponent holds an enchantress of its colour
                    next turn x what the slot is worth); 0: the type held most (v1)
    top_risk        see ``fit_type``
"""

import numpy as np

from simkit.games.avalon.rules import (
    ATTACK,
    COUNTER_NO,
    COUNTER_YES,
    DEFEND_NO,
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
    AVALON_USED,
    DARK_PENDING,
    DECK_N,
    DISCARD,
    DISCARD_PHASE,
    FIRST_DARK,
    HAND,
    HAND_SIZE,
    HEIGHT,
    LOSS,
    M_AVALON_RED,
    M_CASTLE_DEF,
    M_CASTLE_LOSS,
    M_COLOURS,
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
    PENDING_TERR,
    PENDING_TYPE,
    PHASE,
    SP_AVALON,
    SP_CASTLE,
    SUPPLY,
    TERR_CARD,
    TURNS,
)
from simkit.jit import borrow, kernel
from simkit.registry import StrategySpec, register_strategy

W_CROWN, W_LOSS, W_RESERVE, W_ATTACK, W_ENCHANT, W_DARK, W_PATIENCE = 0, 1, 2, 3, 4, 5, 6
W_WEIGH_DEFENCE, W_KEEP_KNIGHT, W_LAST_KNIGHT, W_KEEP_ENCH = 7, 8, 9, 10
W_COUNTER, W_FIT_TYPE, W_TOP_RISK, W_GUARD, W_RETAKE = 11, 12, 13, 14, 15


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


# --- v2: what a card kept in hand is worth, and what the opponent can attack next turn
S_HAND, S_MINE, S_HIS, S_OWN = 0, N_TYPES, N_TYPES + N_TERR, N_TYPES + 2 * N_TERR
S_SIZE = N_TYPES + 3 * N_TERR  # scratch: a hand and both sides' piles, after a planned move


@kernel
def keep_value(arr, base, t, w):
    """What one card of type ``t`` of the hand ``arr[base:base + 10]`` is worth kept, in
    crowns: a knight attacks and wards off, an enchantress enchants and counter-spells; a
    duplicate is worth less (its colour stays covered), the last knight more (no attack
    without one, unless through the stone circle)."""
    n = max(1, arr[base + t])
    if t & 1:
        return w[W_KEEP_ENCH] / n
    knights = 0
    for c in range(0, N_TYPES, 2):
        knights += arr[base + c]
    return w[W_KEEP_KNIGHT] / n + (w[W_LAST_KNIGHT] if knights <= 1 else 0.0)


@kernel
def next_turn_cards(obs, seat):
    """Cards the seat holds at the start of its next turn: its hand and a dark tile's draw
    (counted with the territories owned now)."""
    c = obs[HAND_SIZE + seat]
    kind = obs[DARK_PENDING + seat]
    if kind >= 0:
        c += tile_cards(obs, seat, kind)
    return c


@kernel
def knight_share(u):
    """Share of knights among the unseen cards (what the other hand is drawn from)."""
    k, total = 0, 0
    for t in range(N_TYPES):
        total += u[t]
        if t & 1 == 0:
            k += u[t]
    return k / total if total > 0 else 0.5


@kernel
def load_position(obs, seat, sc):
    for t in range(N_TYPES):
        sc[S_HAND + t] = obs[HAND + seat * N_TYPES + t]
    for i in range(N_TERR):
        sc[S_MINE + i] = h_of(obs, seat, i)
        sc[S_HIS + i] = h_of(obs, 1 - seat, i)
        sc[S_OWN + i] = 1 if obs[OWNER + i] == seat else 0


# ctx, the opponent's next turn as ``exposure`` sees it (float64[5]): the cards he holds
# then, the knight share of the unseen cards, the colours, the loss weight, the retake weight
C_CAP, C_KNIGHT, C_COLOURS, C_LOSS, C_RETAKE = 0, 1, 2, 3, 4


@kernel
def guard_threat(obs, sc, i, guard, crowns, ctx):
    """What we stand to lose at our territory ``i`` guarded by ``guard`` cards if the
    opponent can afford to attack it next turn (as many cards there as ours, plus a
    castle's bonus, then a knight): the crowns he gains and we lose, less the losses the
    conquest costs him, times the chance he holds a knight; times ``retake`` for a
    territory we are only planning to conquer (``sc`` marks it 2)."""
    need = guard - sc[S_HIS + i]
    card = obs[TERR_CARD + i]
    castle = card >= 0 and obs[P_SPECIAL + card] == SP_CASTLE
    if castle:
        need += obs[M_CASTLE_DEF]
    need = max(0, need)
    if need + 1 > ctx[C_CAP]:
        return 0.0
    his_losses = need + 1 + 2 * guard + (obs[M_CASTLE_LOSS] if castle else 0)
    v = max(0.0, 2.0 * crowns[i] - ctx[C_LOSS] * his_losses) * ctx[C_KNIGHT]
    return v * ctx[C_RETAKE] if sc[S_OWN + i] == 2 else v


@kernel
def open_crowns(obs, sc, crowns, ctx):
    """The two largest threats to our territories (he conquers at most two a turn)."""
    a, b = 0.0, 0.0
    for i in range(N_TERR):
        if sc[S_OWN + i]:
            v = guard_threat(obs, sc, i, sc[S_MINE + i], crowns, ctx)
            if v > a:
                a, b = v, a
            elif v > b:
                b = v
    return a + b


@kernel
def knight_cover(sc, colours):
    """Share of the colours we could ward off an attack of (a knight of it in hand)."""
    k = 0
    for c in range(0, N_TYPES, 2):
        k += sc[S_HAND + c] > 0
    return k / colours


@kernel
def exposure(obs, sc, crowns, ctx):
    """What the opponent can expect to take from us next turn in the position ``sc``."""
    return open_crowns(obs, sc, crowns, ctx) * (1.0 - knight_cover(sc, ctx[C_COLOURS]))


@kernel
def pay_cost(obs, seat, sc, option, crowns, ctx, w):
    """What paying one conquest loss with ``option`` costs: v1's value of the card (a hand
    card type, < 10: less for one held several times; the top card of a pile, 10 + slot:
    what the slot is worth, less where our side is ahead there) plus, times ``guard``, the
    exposure its loss opens: a guard at our territory that keeps the opponent out, or a
    colour's last knight (one colour fewer to ward off)."""
    if option < N_TYPES:
        v = 3.0 - 0.5 * sc[S_HAND + option]
        if w[W_GUARD] > 0 and option & 1 == 0 and sc[S_HAND + option] == 1:
            v += w[W_GUARD] * open_crowns(obs, sc, crowns, ctx) / ctx[C_COLOURS]
        return v
    i = option - N_TYPES
    g = sc[S_MINE + i]
    margin = g - sc[S_HIS + i]
    if sc[S_OWN + i] == 2:
        return 2.0 * crowns[i] / (1.0 + max(0, margin))  # as it will be worth, once ours
    v = slot_weight(obs, seat, i, crowns) / (1.0 + max(0, margin))
    if sc[S_OWN + i] and w[W_GUARD] > 0:
        opened = (guard_threat(obs, sc, i, g - 1, crowns, ctx)
                  - guard_threat(obs, sc, i, g, crowns, ctx))
        v += w[W_GUARD] * opened * (1.0 - knight_cover(sc, ctx[C_COLOURS]))
    return v


@kernel
def pay_losses(obs, seat, sc, losses, crowns, ctx, w):
    """Pay ``losses`` cards in ``sc`` the way ``best_loss`` would, cheapest first. Without
    ``guard`` an option's cost depends on its own count only, so only the one paid is
    worked out again."""
    costs_owned = np.empty(N_TYPES + N_TERR, np.float64)
    costs = borrow(costs_owned)
    for option in range(N_TYPES + N_TERR):
        costs[option] = option_cost(obs, seat, sc, option, crowns, ctx, w)
    for _ in range(losses):
        best = np.argmin(costs)
        if costs[best] >= 1e17:
            break
        if best < N_TYPES:
            sc[S_HAND + best] -= 1
        else:
            sc[S_MINE + best - N_TYPES] -= 1
        if w[W_GUARD] > 0:
            for option in range(N_TYPES + N_TERR):
                costs[option] = option_cost(obs, seat, sc, option, crowns, ctx, w)
        else:
            costs[best] = option_cost(obs, seat, sc, best, crowns, ctx, w)
    keep_alive(costs_owned, costs_owned, costs_owned, costs_owned)


@kernel
def option_cost(obs, seat, sc, option, crowns, ctx, w):
    held = sc[S_HAND + option] if option < N_TYPES else sc[S_MINE + option - N_TYPES]
    return pay_cost(obs, seat, sc, option, crowns, ctx, w) if held > 0 else 1e18


@kernel
def counter_exposure(obs, seat, t, slot, sc, crowns, ctx, w):
    """Our exposure to the opponent's next turn after conquering ``slot`` with card type
    ``t`` and paying the losses (the conquered slot left with our cards less his, his side
    empty, then the additional losses paid as ``best_loss`` would; Avalon's reduction if
    ours)."""
    load_position(obs, seat, sc)
    q = 1 - seat
    sc[S_HAND + t] -= 1
    mine = sc[S_MINE + slot] + 1
    theirs = sc[S_HIS + slot]
    losses = mine + theirs
    card = obs[TERR_CARD + slot]
    if obs[OWNER + slot] == q and obs[P_SPECIAL + card] == SP_CASTLE:
        losses += obs[M_CASTLE_LOSS]
    if owns(obs, seat, SP_AVALON) and obs[AVALON_USED] == 0:
        losses = max(0, losses - obs[M_AVALON_RED])
    sc[S_MINE + slot] = mine - theirs
    sc[S_HIS + slot] = 0
    sc[S_OWN + slot] = 2
    pay_losses(obs, seat, sc, losses, crowns, ctx, w)
    return exposure(obs, sc, crowns, ctx)


@kernel
def next_turn(obs, seat, u, w):
    """ctx (see ``C_CAP``) for ``seat``'s opponent."""
    ctx = np.empty(5, np.float64)
    ctx[C_CAP] = next_turn_cards(obs, 1 - seat)
    ctx[C_KNIGHT] = knight_share(u)
    ctx[C_COLOURS] = obs[M_COLOURS]
    ctx[C_LOSS] = w[W_LOSS]
    ctx[C_RETAKE] = w[W_RETAKE]
    return ctx


@kernel
def owns(obs, seat, special):
    for i in range(N_TERR):
        if obs[OWNER + i] == seat and obs[P_SPECIAL + obs[TERR_CARD + i]] == special:
            return True
    return False


@kernel
def attack_value(params, obs, seat, t, slot, crowns, u, utotal, w):
    """Expected value of attacking ``slot`` with card type ``t`` (v1's): the crowns won and
    the losses paid if not warded off, one card lost if warded off; a conquest that wins
    the game at the end of the turn is worth 100 more."""
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
def defence_chance(obs, seat, t, u, utotal):
    return p_holds(u[t & ~1], utotal, obs[HAND_SIZE + 1 - seat])


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


MAX_TRIED = 2  # conquests charged a decision, the best before the charge first (cost)


@kernel
def keep_alive(a, b, c, d):
    """Nothing: a use of arrays whose borrowed views were used until here."""
    return a.size + b.size + c.size + d.size


@kernel
def best_attack(params, obs, seat, moves, n_moves, crowns, u, w):
    """Index of the attack worth most (above ``attack_margin``), or 0. With
    ``counter_attack``, a conquest (not one that wins the game) is charged the exposure it
    adds for the opponent's next turn, times the chance it is not warded off; the charge is
    never negative, so attacks are charged in order of their value before it, until none
    left can beat the best, and at most ``MAX_TRIED`` conquests (the cost of a decision: the
    heuristic is also the search's rollout policy)."""
    best_k, best_v = 0, w[W_ATTACK]
    utotal = u.sum()
    if w[W_COUNTER] <= 0:
        for k in range(n_moves):
            m = moves[k]
            if m >= ATTACK and m < COUNTER_NO:
                t, slot = (m - ATTACK) // N_TERR, (m - ATTACK) % N_TERR
                v = attack_value(params, obs, seat, t, slot, crowns, u, utotal, w)
                if v > best_v:
                    best_k, best_v = k, v
        return best_k
    first = n_moves  # attacks come last among the main moves
    while first > 0 and moves[first - 1] >= ATTACK:
        first -= 1
    if first == n_moves:
        return 0
    held = crowns_of(params, obs, seat)
    # scratch arrays are passed to the helpers borrowed (no atomic reference counts); the
    # owners are touched at the end so that they live until then
    values_owned = np.empty(n_moves - first, np.float64)
    values = borrow(values_owned)
    for k in range(first, n_moves):
        t, slot = (moves[k] - ATTACK) // N_TERR, (moves[k] - ATTACK) % N_TERR
        values[k - first] = attack_value(params, obs, seat, t, slot, crowns, u, utotal, w)
        if obs[TERR_CARD + slot] >= 0 and held + crowns[slot] >= obs[M_WIN]:
            values[k - first] += 1e9  # it wins the game: not charged, and chosen
    sc_owned = np.zeros(S_SIZE, np.int64)
    ctx_owned = next_turn(obs, seat, u, w)
    added_owned = np.full(N_TERR, -1.0)  # by slot: worked out once, with the first card tried
    sc, ctx, added = borrow(sc_owned), borrow(ctx_owned), borrow(added_owned)
    load_position(obs, seat, sc)
    now = exposure(obs, sc, crowns, ctx)
    tried = 0
    while True:
        j = np.argmax(values)
        if values[j] <= best_v or tried == MAX_TRIED:
            break
        k = first + j
        v = values[j]
        values[j] = -1e18
        if v < 1e8:
            t, slot = (moves[k] - ATTACK) // N_TERR, (moves[k] - ATTACK) % N_TERR
            if added[slot] < 0:
                added[slot] = counter_exposure(obs, seat, t, slot, sc, crowns, ctx, w) - now
                tried += 1
            v -= (1.0 - defence_chance(obs, seat, t, u, utotal)) * w[W_COUNTER] * added[slot]
        if v > best_v:
            best_k, best_v = k, v
    keep_alive(values_owned, sc_owned, ctx_owned, added_owned)
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
    crowns_owned = slot_crowns(params, obs)
    u_owned = unseen(params, obs, seat)
    crowns, u = borrow(crowns_owned), borrow(u_owned)  # see best_attack
    k = 0
    if obs[TURNS] >= 2 * w[W_PATIENCE]:  # the rulebook's advice: no attack on a first turn
        k = best_attack(params, obs, seat, moves, n_moves, crowns, u, w)
    if k == 0:
        k = best_enchant(params, obs, seat, moves, n_moves, crowns, u, w)
    drawable = obs[DECK_N]
    for t in range(N_TYPES):
        drawable += obs[DISCARD + t]
    if k == 0 and (obs[HAND_SIZE + seat] > w[W_RESERVE] or drawable == 0):
        k = best_strengthen(params, obs, seat, moves, n_moves, crowns, u, w)
    keep_alive(crowns_owned, u_owned, crowns_owned, u_owned)
    return k


@kernel
def best_strengthen(params, obs, seat, moves, n_moves, crowns, u, w):
    """Strengthen where the opponent could attack a territory of ours, else where a few
    cards make a rich slot attackable; with the card type we hold most of, or (``fit_type``)
    the one that serves the slot best: cheapest to give up from the hand, least likely to be
    enchanted there as the top card."""
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
    if w[W_FIT_TYPE] > 0:
        return fitting_type(params, obs, seat, moves, n_moves, best_slot, crowns, u, w)
    best_k, most = 0, 0
    for k in range(n_moves):
        m = moves[k]
        if m >= STRENGTHEN and m < ENCHANT and (m - STRENGTHEN) % N_TERR == best_slot:
            n = obs[HAND + seat * N_TYPES + (m - STRENGTHEN) // N_TERR]
            if n > most:
                best_k, most = k, n
    return best_k


@kernel
def fitting_type(params, obs, seat, moves, n_moves, slot, crowns, u, w):
    """The strengthening at ``slot`` whose card costs least: its keep value in hand, plus
    (``top_risk``) the chance the opponent holds an enchantress of its colour next turn
    times what the slot is worth (an enchanted top card swings three cards there)."""
    cap = next_turn_cards(obs, 1 - seat)
    utotal = u.sum()
    stake = slot_weight(obs, seat, slot, crowns)
    best_k, best_v = 0, 1e9
    for k in range(n_moves):
        m = moves[k]
        if m >= STRENGTHEN and m < ENCHANT and (m - STRENGTHEN) % N_TERR == slot:
            t = (m - STRENGTHEN) // N_TERR
            v = (keep_value(obs, HAND + seat * N_TYPES, t, w)
                 + w[W_TOP_RISK] * p_holds(u[t | 1], utotal, cap) * stake)
            if v < best_v:
                best_k, best_v = k, v
    return best_k


@kernel
def best_loss(params, obs, seat, moves, n_moves, w):
    """Avalon first; then a spare hand card (one we hold several of), else the top card of
    the pile that matters least; with ``guard``, that value plus the exposure to the
    opponent's next turn the loss opens (``pay_cost``)."""
    crowns = slot_crowns(params, obs)
    if w[W_GUARD] > 0:
        return cheapest_loss(params, obs, seat, moves, n_moves, crowns, w)
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
def cheapest_loss(params, obs, seat, moves, n_moves, crowns, w):
    sc = np.zeros(S_SIZE, np.int64)
    load_position(obs, seat, sc)
    ctx = next_turn(obs, seat, unseen(params, obs, seat), w)
    best_k, best_v = 0, 1e9
    for k in range(n_moves):
        m = moves[k]
        if m == LOSS_AVALON:
            return k
        option = m - LOSS_HAND  # hand types, then piles: the order of pay_cost's options
        v = pay_cost(obs, seat, sc, option, crowns, ctx, w)
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
def ward_off(params, obs, seat, moves, n_moves, w):
    """Counter-spell always: the attacking enchantress comes into our hand, so the hand
    keeps its cards and our side gains one. Defend always, or (``weigh_defence``) when what
    the defence saves (the crowns at stake, +100 if the conquest would win him the game,
    less the losses the conquest would cost him) beats what the knight is worth kept."""
    yes, no = -1, 0
    for k in range(n_moves):
        if moves[k] == COUNTER_YES or moves[k] == DEFEND_YES:
            yes = k
        elif moves[k] == DEFEND_NO:
            no = k
    if yes < 0 or moves[yes] == COUNTER_YES or w[W_WEIGH_DEFENCE] <= 0:
        return max(0, yes)
    p = 1 - seat
    slot = obs[PENDING_TERR]
    knight = obs[PENDING_TYPE] & ~1
    crowns = slot_crowns(params, obs)
    ours = obs[OWNER + slot] == seat
    stake = crowns[slot] * (2.0 if ours else 1.0)
    if crowns_of(params, obs, p) + crowns[slot] >= obs[M_WIN]:
        stake += 100.0
    losses = h_of(obs, p, slot) + h_of(obs, seat, slot)
    if ours and obs[P_SPECIAL + obs[TERR_CARD + slot]] == SP_CASTLE:
        losses += obs[M_CASTLE_LOSS]
    saved = w[W_CROWN] * stake - w[W_LOSS] * losses
    kept = keep_value(obs, HAND + seat * N_TYPES, knight, w)
    return yes if saved > kept else no


@kernel
def choose_heuristic(params, obs, seat, moves, n_moves, weights, stream):
    ph = obs[PHASE]
    if ph == MAIN:
        return best_main(params, obs, seat, moves, n_moves, weights)
    if ph == LOSS:
        return best_loss(params, obs, seat, moves, n_moves, weights)
    if ph == SUPPLY:
        return best_tile(params, obs, seat, moves, n_moves, weights)
    if ph == DISCARD_PHASE:
        return most_held(obs, seat, moves, n_moves)
    return ward_off(params, obs, seat, moves, n_moves, weights)


V1_WEIGHTS = {"crown": 1.0, "loss": 0.35, "reserve": 2.0, "attack_margin": 0.0,
              "enchant_margin": 0.0, "dark_hand": 3.0, "patience": 0.0,
              "weigh_defence": 0.0, "keep_knight": 2.5, "last_knight": 1.0,
              "keep_enchantress": 2.0, "counter_attack": 0.0, "fit_type": 0.0,
              "top_risk": 1.0, "guard": 0.0, "retake": 1.0}

register_strategy(StrategySpec(
    "heuristic", choose_heuristic, game="avalon",
    weights={**V1_WEIGHTS, "weigh_defence": 1.0, "counter_attack": 1.5, "retake": 0.5,
             "fit_type": 1.0, "keep_knight": 1.5, "keep_enchantress": 4.0, "top_risk": 0.5},
    summary="card counting: attack when crowns beat losses and the counter-attack they "
            "invite, enchant safely, defend when it pays"))

register_strategy(StrategySpec(
    "heuristic-v1", choose_heuristic, game="avalon", weights=V1_WEIGHTS,
    summary="the heuristic before v2: always defends, ignores counter-attacks, strengthens "
            "with the type held most"))
