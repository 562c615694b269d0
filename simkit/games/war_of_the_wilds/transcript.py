"""War of the Wilds told as text (``simkit replay``), and the state's invariants."""

import numpy as np

from simkit.game import HIDDEN

from .state import (
    ABILITY,
    ACCEPT,
    ACTOR,
    AFLAG,
    ALINK,
    ARMY,
    ATGT,
    ATTACK,
    BLOCK,
    BLOCK_FOX,
    BURIED,
    BURY,
    C_COUNT,
    C_TRICK,
    D_PEDLAR,
    DAY,
    DAY_CARD,
    DAY_NAMES,
    DECK,
    DECK_CAN,
    DECK_N,
    DEFENDER,
    DISCARD,
    DISCARD_CARD,
    DISCARD_N,
    DRAW,
    DRAW_REFRESH,
    END_PLAY,
    FORAGE,
    FOUGHT,
    FOX_MASK,
    GATHER,
    HAND,
    HAND_N,
    HOME,
    KNOWN,
    MAX_ARMY,
    MAX_CARDS,
    MAX_KINDS,
    MORNING,
    N_PLAYERS,
    N_TRADE_KINDS,
    NO_BLOCK,
    OFFER_ADD,
    OFFER_BACK,
    OFFER_DROP,
    OFFER_GET,
    OFFER_GIVE,
    OFFER_MAKE,
    OFFER_START,
    OFFER_TO,
    PAID,
    PAIRS,
    PAY_CARD,
    PAY_LEFT,
    PAY_MIN,
    PAY_RES,
    PH_ACTION,
    PH_AFTER,
    PH_ASSIGN,
    PH_BLOCK,
    PH_DAWN,
    PH_DISCARD,
    PH_DRAW,
    PH_FOX_BLOCK,
    PH_MAIN,
    PH_OFFER,
    PH_OVER,
    PH_PAY,
    PH_REPLY,
    PH_SETUP,
    PHASE,
    PHASE_NAMES,
    PILE,
    PLAY,
    PLAYERS,
    PS,
    R_ACORNS_PP,
    R_DAYS,
    R_NK,
    R_RES_PER_KIND,
    R_ROW,
    RES,
    RESOURCE_NAMES,
    RETURN_RES,
    ROW,
    SEAT,
    SETUP_SEAT,
    SLOT,
    STAY,
    STORE,
    SWAP,
    TAKE_DECK,
    TAKE_ROW,
    TURNS,
    WILD,
    tables,
)

_KINDS: list[str] | None = None  # the card kinds of the params being described
UNSEEN = "an unseen card"


def _names():
    if _KINDS is not None:
        return _KINDS
    from . import CARD_NAMES  # the package's card kinds, in data.toml order

    return CARD_NAMES


def _describing(params) -> None:
    """Name the card kinds as the data ``params`` was compiled from names them (a kind
    added from a spreadsheet has its own name in the replay)."""
    from . import kind_names

    global _KINDS
    _KINDS = kind_names(params)


def card_name(k: int) -> str:
    if k == HIDDEN:
        return UNSEEN
    names = _names()
    return names[k].replace("_", " ").title() if 0 <= k < len(names) else f"card {k}"


def day_name(d: int) -> str:
    return DAY_NAMES[d].replace("_", " ").title() if 0 <= d < len(DAY_NAMES) else "none"


def P(p: int) -> str:
    return f"P{int(p) + 1}"


def base(p: int) -> int:
    return PLAYERS + int(p) * PS


def hand_text(params, state, p) -> str:
    b = base(p) + HAND
    cards = [f"{card_name(k)} x{state[b + k]}" if state[b + k] > 1 else card_name(k)
             for k in range(int(tables(params)[3][R_NK])) if state[b + k] > 0]
    return ", ".join(cards) or "no cards"


def res_text(state, p) -> str:
    b = base(p) + RES
    return " ".join(f"{RESOURCE_NAMES[r]} {state[b + r]}" for r in range(4))


def army_text(state, p) -> str:
    b = base(p)
    out = []
    for i in range(MAX_ARMY):
        k = state[b + ARMY + i]
        if k >= 0:
            out.append(card_name(k) + (" (tired)" if state[b + AFLAG + i] & 1 else ""))
    return ", ".join(out) or "no creatures"


def acorns_text(state, n) -> str:
    return "; ".join(f"{P(p)} stored {state[base(p) + STORE]} buried "
                     f"{state[base(p) + BURIED]}" for p in range(n)) + f"; wild {state[WILD]}"


def row_text(params, state) -> str:
    return ", ".join(card_name(state[ROW + i]) for i in range(int(tables(params)[3][R_ROW]))
                     if state[ROW + i] >= 0) or "empty"


def describe_setup(params, n_players, state):
    _describing(params)
    homes = tables(params)[2]
    lines = []
    for p in range(n_players):
        h = homes[state[base(p) + HOME]]
        lines.append(f"{P(p)} home: {RESOURCE_NAMES[h[0]]} and {RESOURCE_NAMES[h[1]]}; "
                     f"dealt {hand_text(params, state, p)}; {res_text(state, p)} "
                     f"[hand seen by {P(p)}]")
    lines.append(f"wild: {state[WILD]} acorns; P1 goes first every day")
    return lines


def describe_move(params, n_players, before, move, after):
    _describing(params)
    ph = int(before[PHASE])
    s = int(before[SEAT])
    # a move that ends the last turn of a day also turns over the next day's card: its
    # effects are told under that card, never as part of the move's fights
    morning = after[DAY] != before[DAY] and after[PHASE] != PH_OVER
    lines = _what(params, n_players, before, move, after, ph, s, morning)
    if morning:
        lines += _morning(params, n_players, before, after)
    elif after[PHASE] == PH_OVER and before[PHASE] != PH_OVER:
        days = int(tables(params)[3][R_DAYS])
        lines.append(f"after day {days}: {acorns_text(after, n_players)}")
    if after[PHASE] == PH_ACTION and (after[SEAT] != before[SEAT] or after[DAY] != before[DAY]):
        t = int(after[SEAT])
        lines.append(f"-- {P(t)}'s turn: hand {hand_text(params, after, t)}; "
                     f"{res_text(after, t)}; army {army_text(after, t)} [hand seen by {P(t)}]")
    return lines


def describe_choice(params, n_players, obs, move, after):
    """A move a search weighed, from the deciding seat's observation ``obs`` (GameSpec): as
    ``describe_move`` tells it, but a refreshed row is cards the seat has not seen."""
    _describing(params)
    ph, s = int(obs[PHASE]), int(obs[SEAT])
    if ph == PH_ACTION and move == DRAW_REFRESH:
        new = sum(1 for i in range(int(tables(params)[3][R_ROW])) if after[ROW + i] >= 0)
        return (f"refreshes the row, then draws (row: {unseen_cards(new)})"
                + _busy(obs, after, s))
    morning = after[DAY] != obs[DAY] and after[PHASE] != PH_OVER
    return _what(params, n_players, obs, move, after, ph, s, morning)[0]


def unseen_cards(n: int) -> str:
    return UNSEEN if n == 1 else f"{n} unseen cards" if n else "empty"


def _what(params, n, before, move, after, ph, s, morning):
    if ph == PH_SETUP:
        p = int(before[SETUP_SEAT])
        if move >= RETURN_RES:
            return [f"puts back a {RESOURCE_NAMES[move - RETURN_RES]} card"]
        return [f"puts a card back into the deck [{card_name(move - DISCARD_CARD)}, seen by "
                f"{P(p)}]"]
    if ph == PH_DAWN:
        return ["setup done; the deck is shuffled and the row turned over"]
    if ph in (PH_ACTION, PH_MAIN, PH_AFTER) and move >= ABILITY:
        return _free(n, before, move, after, s)
    if ph == PH_AFTER:
        return ["ends the turn"]
    if ph == PH_OFFER:
        return _offer_item(before, move, after)
    if ph == PH_ACTION:
        b = base(s)
        if move <= GATHER + 6:
            got = [f"{after[b + RES + r] - before[b + RES + r]} {RESOURCE_NAMES[r]}"
                   for r in range(4) if after[b + RES + r] != before[b + RES + r]]
            return [f"gathers {', '.join(got) or 'nothing'}" + _busy(before, after, s)]
        if move in (DRAW, DRAW_REFRESH):
            txt = "refreshes the row, then draws" if move == DRAW_REFRESH else "draws"
            return [f"{txt} (row: {row_text(params, after)})" + _busy(before, after, s)]
        if move == FORAGE:
            got = after[b + STORE] - before[b + STORE]
            return [f"forages {got} acorns (store {after[b + STORE]}, wild {after[WILD]})"]
        return [f"buries {move - BURY + 1} acorns (buried {after[b + BURIED]})"]
    if ph == PH_PAY:
        txt = f"pays 1 {RESOURCE_NAMES[move - PAY_RES]}"
        if after[PHASE] != PH_PAY:
            txt += (f": {card_name(before[PAY_CARD])} is played" + _payment(before, after, s)
                    + _listed(_changes(n, before, after)))
        return [txt]
    if ph == PH_DRAW:
        if move == TAKE_DECK:
            return [f"takes the top card of the deck [seen by {P(s)}]"]
        return [f"takes {card_name(before[ROW + move - TAKE_ROW])} from the row"]
    if ph == PH_MAIN:
        return _main(params, n, before, move, after, s)
    if ph == PH_REPLY:
        return ["accepts the offer" if move == ACCEPT else "declines the offer"]
    if ph == PH_ASSIGN:
        i = before[SLOT]
        k = before[base(s) + ARMY + i]
        sent = [P(t) for t in range(n) if (before[base(s) + ATGT + i] >> t) & 1]
        if move == STAY:
            if sent:  # a Relentless creature already sent
                txt = (f"sends {card_name(k)} on no more attacks (only against "
                       f"{' and '.join(sent)})")
            else:
                txt = f"keeps {card_name(k)} home"
        else:
            txt = f"sends {card_name(k)} against {P(move - ATTACK)}"
            if sent:
                txt += f" too (Relentless: it goes against {' and '.join(sent)} as well)"
        # the last creature's answer, stay or go, starts the fights
        return [txt] + _fights(n, before, after, morning)
    if ph in (PH_BLOCK, PH_FOX_BLOCK):
        d = int(before[DEFENDER])
        k = card_name(before[base(d) + ARMY + before[SLOT]])
        if move == NO_BLOCK:
            txt = f"does not block with {k}"
        elif move == BLOCK_FOX:
            txt = f"blocks the Fox with {k}"
        else:
            txt = f"blocks {card_name(before[base(s) + ARMY + move - BLOCK])} with {k}"
        if ph == PH_FOX_BLOCK:
            return [txt] + _fox(n, before, after)
        return [txt] + _fights(n, before, after, morning)
    if ph == PH_DISCARD:
        return [f"discards {card_name(move - DISCARD_CARD)} down to the hand limit"]
    return [f"move {move}"]


def trade_items(kind, count):
    """``count`` of trade kind ``kind``: "2 berry", "1 stored acorn", "3 stored acorns"."""
    if kind < 4:
        return f"{count} {RESOURCE_NAMES[kind]}"
    return f"{count} stored acorn" + ("s" if count > 1 else "")


def bundle(state, side):
    """One side of the offer in ``state`` (OFFER_GIVE or OFFER_GET) as "2 berry, 1 twig"."""
    return ", ".join(trade_items(c, int(state[side + c])) for c in range(N_TRADE_KINDS)
                     if state[side + c] > 0) or "nothing"


def _offer_item(before, move, after):
    t = P(before[OFFER_TO])
    if move == OFFER_DROP:
        return [f"withdraws the offer to {t}"]
    if move == OFFER_MAKE:
        return [f"offers {t} {bundle(before, OFFER_GIVE)} for {bundle(before, OFFER_GET)}"]
    i = move - OFFER_ADD
    if i < N_TRADE_KINDS:
        return [f"puts {trade_items(i, 1)} in the offer to {t}"]
    return [f"asks {t} for {trade_items(i - N_TRADE_KINDS, 1)}"]


def _busy(before, after, s):
    got = after[base(s) + STORE] - before[base(s) + STORE]
    return f" and takes {got} acorn from the wild (Busy Day)" if got > 0 else ""


def _free(n, before, move, after, s):
    """An ability, a swap or the start of an offer (before the action, in the play step or
    after the attacks)."""
    b = base(s)
    if move >= OFFER_START:
        return [f"begins an offer to {P(move - OFFER_START)}"]
    if move >= SWAP:
        q, c = divmod(move - SWAP, 4)
        gave = [f"{before[b + RES + r] - after[b + RES + r] + (r == c)} {RESOURCE_NAMES[r]}"
                for r in set(PAIRS[q].tolist())]
        return [f"swaps {' and '.join(gave)} for 1 {RESOURCE_NAMES[c]}"]
    k = before[b + ARMY + move - ABILITY]
    return [f"tires {card_name(k)} for its ability" + _listed(_changes(n, before, after))]


def _main(params, n, before, move, after, s):
    if move == END_PLAY:
        return ["ends playing cards"]
    k, t = divmod(move - PLAY, 4)
    txt = f"plays {card_name(k)}"
    if tables(params)[0][k, C_TRICK] and tables(params)[0][k, 15]:
        txt += f" on {P(t)}"
    return [txt + _payment(before, after, s) + _listed(_changes(n, before, after))]


def _payment(before, after, s):
    """The resource cards paid: " (paid 2 berry, 1 twig)", or so far when a choice waits."""
    if after[PHASE] == PH_PAY:
        paid = [int(after[PAID + r]) for r in range(4)]
        return f" (paid so far: {_cards(paid)}; the rest to choose)"
    paid = [int(before[base(s) + RES + r] - after[base(s) + RES + r])
            + (int(before[PAID + r]) if before[PHASE] == PH_PAY else 0) for r in range(4)]
    return f" (paid {_cards(paid)})"


def _cards(counts):
    return ", ".join(f"{c} {RESOURCE_NAMES[r]}" for r, c in enumerate(counts) if c) or "nothing"


def _listed(changes):
    return (": " + "; ".join(changes)) if changes else ""


def _changes(n, before, after, morning=False):
    """Acorns that moved and creatures that died between ``before`` and ``after``, as
    "P2 stored 5->4" and "P3 loses Hedgehog"; with ``morning``, less what the new day's
    card did (its record, MORNING, is told under the card)."""
    out = []
    for p in range(n):
        b = base(p)
        m = MORNING + 3 * p
        for j, (name, off) in enumerate((("stored", STORE), ("buried", BURIED))):
            v0 = int(before[b + off])
            v1 = int(after[b + off]) - (int(after[m + j]) if morning else 0)
            if v1 != v0:
                out.append(f"{P(p)} {name} {v0}->{v1}")
        lost = [card_name(before[b + ARMY + i]) for i in _lost(before, after, p, morning)]
        if lost:
            out.append(f"{P(p)} loses {', '.join(lost)}")
    return out


def _lost(before, after, p, morning):
    """The army places of ``p`` emptied by this move, less those Mr. Buttons ate."""
    b = base(p)
    eaten = int(after[MORNING + 3 * p + 2]) if morning else 0
    return [i for i in range(MAX_ARMY) if before[b + ARMY + i] >= 0
            and after[b + ARMY + i] < 0 and not (eaten >> i) & 1]


def _fights(n, before, after, morning):
    """The fights this move resolved (FOUGHT: the defenders fought this turn), each told
    even when nothing changed hands: who fought whom, the acorns taken and the dead, and the
    attacks a Relentless creature killed in its first fight does not go on."""
    s = int(before[SEAT])
    new = int(after[FOUGHT]) & ~int(before[FOUGHT])
    fought = [d for d in ((s + o) % n for o in range(1, n)) if (new >> d) & 1]
    if not fought:
        return []
    ch = _changes(n, before, after, morning)
    b = base(s)
    for i in _lost(before, after, s, morning):
        # the first of its attacks in turn order is the fight it died in
        order = [t for t in ((s + o) % n for o in range(1, n))
                 if (before[b + ATGT + i] >> t) & 1]
        if len(order) > 1:
            ch.append(f"{card_name(before[b + ARMY + i])} died and does not go on to "
                      f"{' and '.join(P(t) for t in order[1:])}")
    head = f"fight: {P(s)} against {' and '.join(P(d) for d in fought)}"
    return [head + (_listed(ch) or ": no acorns taken, nobody dies")]


def _fox(n, before, after):
    """The Fox's fights this move resolved (the one blocked now, and any unblockable target
    after it), and the next target that may block."""
    d0 = int(before[DEFENDER])
    waiting = int(after[DEFENDER]) if after[PHASE] == PH_FOX_BLOCK else -1
    left = int(before[FOX_MASK]) & ~int(after[FOX_MASK])  # targets it went on to
    done = [d for d in range(n) if d != waiting and (d == d0 or (left >> d) & 1)]
    lines = []
    if done:
        ch = _changes(n, before, after)
        head = f"the Fox against {' and '.join(P(d) for d in done)}"
        lines.append(head + (_listed(ch) or ": blocked, nobody dies"))
    if waiting >= 0 and waiting != d0:
        lines.append(f"the Fox comes for {P(waiting)}, who may block")
    return lines


def _morning(params, n, before, after):
    """The new day: its card, what the card did to each seat (MORNING), the Fox if it waits
    for blockers, and where the acorns are."""
    d = int(after[DAY_CARD])
    lines = [f"== Day {after[DAY]}: {day_name(d)} (row: {row_text(params, after)})"]
    done = []
    for p in range(n):
        m = MORNING + 3 * p
        for name, delta in (("stored", after[m]), ("buried", after[m + 1])):
            if delta:
                done.append(f"{P(p)} {name} {int(delta):+d}")
        eaten = int(after[m + 2])
        for i in range(MAX_ARMY):
            if (eaten >> i) & 1:
                done.append(f"eats {P(p)}'s {card_name(before[base(p) + ARMY + i])}")
    if d == D_PEDLAR:  # the cards drawn stay hidden
        done.append("everyone draws 1 card [each seen by its drawer]")
    if after[PHASE] == PH_FOX_BLOCK:
        done.append(f"comes for {P(after[DEFENDER])}, who may block")
    if done:
        lines.append(f"   {day_name(d)}: {'; '.join(done)}")
    lines.append(f"   acorns: {acorns_text(after, n)}")
    return lines


def check_state(params, n_players, state):
    """Conservation of acorns, resources and cards; shape of every field."""
    problems = []
    n = int(state[N_PLAYERS])
    rules = tables(params)[3]
    if n != n_players:
        problems.append(f"N_PLAYERS {n} != {n_players}")
    acorns = int(state[WILD]) + sum(int(state[base(p) + STORE] + state[base(p) + BURIED])
                                     for p in range(n_players))
    if acorns != rules[R_ACORNS_PP] * n_players:
        problems.append(f"acorns: {acorns} in play, not {rules[R_ACORNS_PP] * n_players}")
    if state[WILD] < 0 or any(state[base(p) + o] < 0 for p in range(n_players)
                              for o in (STORE, BURIED)):
        problems.append("a negative acorn count")
    for r in range(4):
        held = sum(int(state[base(p) + RES + r]) for p in range(n_players))
        if held + state[PILE + r] != rules[R_RES_PER_KIND] or state[PILE + r] < 0 or any(
                state[base(p) + RES + r] < 0 for p in range(n_players)):
            problems.append(f"{RESOURCE_NAMES[r]}: pile {state[PILE + r]} + hands {held}")
    nk = int(rules[R_NK])
    counts = np.zeros(nk, np.int64)
    dn, xn = int(state[DECK_N]), int(state[DISCARD_N])
    if not (0 <= dn <= MAX_CARDS and 0 <= xn <= MAX_CARDS):
        return problems + [f"deck {dn} or discard {xn} out of range"]
    for k in list(state[DECK:DECK + dn]) + list(state[DISCARD:DISCARD + xn]):
        if 0 <= k < nk:
            counts[k] += 1
        else:
            problems.append(f"a card kind {k} in the deck or discard")
    if (state[DECK + dn:DECK + MAX_CARDS] != -1).any() or \
            (state[DISCARD + xn:DISCARD + MAX_CARDS] != -1).any():
        problems.append("cards beyond the end of the deck or discard pile")
    in_deck = np.zeros(MAX_KINDS, np.int64)
    for k in state[DECK:DECK + dn]:
        if 0 <= k < nk:
            in_deck[k] += 1
    can = state[DECK_CAN:DECK_CAN + MAX_KINDS]
    if (can < 0).any() or (can[nk:] != 0).any() or (in_deck > can).any():
        problems.append(f"the deck holds {in_deck[:nk].tolist()}, more than the table knows "
                        f"it can ({can[:nk].tolist()})")
    for i in range(int(rules[R_ROW])):
        if state[ROW + i] >= 0:
            counts[state[ROW + i]] += 1
    for p in range(n_players):
        b = base(p)
        if (state[b + HAND:b + HAND + nk] < 0).any():
            problems.append(f"{P(p)} has a negative hand count")
        if state[b + HAND_N] != state[b + HAND:b + HAND + nk].sum():
            problems.append(f"{P(p)}'s hand size {state[b + HAND_N]} is not its cards")
        if ((state[b + KNOWN:b + KNOWN + MAX_KINDS] < 0)
                | (state[b + KNOWN:b + KNOWN + MAX_KINDS]
                   > state[b + HAND:b + HAND + MAX_KINDS])).any():
            problems.append(f"{P(p)}: cards known to be in the hand that are not there")
        counts += state[b + HAND:b + HAND + nk]
        for i in range(MAX_ARMY):
            k = state[b + ARMY + i]
            if k >= 0:
                if tables(params)[0][k, C_TRICK]:
                    problems.append(f"{P(p)} has a trick in their army")
                counts[k] += 1
            elif state[b + AFLAG + i] or state[b + ATGT + i] != 0 or state[b + ALINK + i] != -1:
                problems.append(f"{P(p)}'s empty army place {i} has flags")
    if (counts != tables(params)[0][:, C_COUNT]).any():
        problems.append(f"cards: {counts.tolist()} != {tables(params)[0][:, C_COUNT].tolist()}")
    ph = int(state[PHASE])
    if not 0 <= ph < len(PHASE_NAMES):
        return problems + [f"phase {ph}"]
    if not 0 <= state[ACTOR] < n_players or not 0 <= state[SEAT] < n_players:
        problems.append(f"actor {state[ACTOR]} / seat {state[SEAT]} out of range")
    if ph in (PH_ACTION, PH_DRAW, PH_MAIN, PH_PAY, PH_AFTER, PH_ASSIGN, PH_DISCARD) and \
            state[ACTOR] != state[SEAT]:
        problems.append(f"{PHASE_NAMES[ph]}: the actor is not the seat whose turn it is")
    if ph in (PH_OFFER, PH_REPLY):
        t = int(state[OFFER_TO])
        if not (0 <= t < n_players and t != state[SEAT]):
            problems.append(f"{PHASE_NAMES[ph]}: an offer to {t}")
        elif state[ACTOR] != (t if ph == PH_REPLY else state[SEAT]):
            problems.append(f"{PHASE_NAMES[ph]}: the wrong player decides")
        else:
            give = state[OFFER_GIVE:OFFER_GIVE + N_TRADE_KINDS]
            get = state[OFFER_GET:OFFER_GET + N_TRADE_KINDS]
            if (give < 0).any() or (get < 0).any() or ((give > 0) & (get > 0)).any():
                problems.append("offer: a kind on both sides, or a negative count")
            if (state[base(int(state[SEAT])) + RES:base(int(state[SEAT])) + RES + 5] < give).any():
                problems.append("offer: the offerer cannot give what is offered")
            if (state[base(t) + RES:base(t) + RES + 5] < get).any():
                problems.append("offer: the other player does not hold what is asked")
            if ph == PH_REPLY and (give.sum() == 0 or get.sum() == 0):
                problems.append("reply: an offer with an empty side")
        if state[OFFER_BACK] not in (PH_ACTION, PH_MAIN, PH_AFTER):
            problems.append(f"offer made in phase {state[OFFER_BACK]}")
    elif state[OFFER_TO] != -1 or (state[OFFER_GIVE:OFFER_GET + N_TRADE_KINDS] != 0).any():
        problems.append("an offer is left standing outside an offer or a reply")
    if ph == PH_PAY:
        k = int(state[PAY_CARD])
        if not (0 <= k < nk and state[base(int(state[SEAT])) + HAND + k] > 0):
            problems.append(f"pay: card {k} is not in the player's hand")
        if state[PAY_LEFT] <= 0 or not 0 <= state[PAY_MIN] <= 3:
            problems.append("pay: nothing left to pay, or a kind out of range")
    elif state[PAY_CARD] != -1 or (state[PAID:PAID + 4] != 0).any():
        problems.append("a payment is left standing outside the pay step")
    if ph not in (PH_ASSIGN, PH_BLOCK, PH_FOX_BLOCK):
        for p in range(n_players):
            b = base(p)
            if (state[b + ATGT:b + ATGT + MAX_ARMY] != 0).any() or \
                    (state[b + ALINK:b + ALINK + MAX_ARMY] != -1).any():
                problems.append(f"{P(p)} has attack or block links outside a fight")
    if ph != PH_SETUP and ph != PH_OVER:
        if not 1 <= state[DAY] <= rules[R_DAYS] and ph != PH_DAWN:
            problems.append(f"day {state[DAY]} out of range")
    if state[TURNS] > rules[R_DAYS] * n_players:
        problems.append(f"{state[TURNS]} turns, more than days x players")
    return problems
