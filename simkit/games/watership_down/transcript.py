"""Watership Down told as text, for ``simkit replay``; and the state's invariants."""

from . import rules
from .rules import G_GIFT_BONUS as G_GIFT_BONUS_INDEX
from .state import (
    ATT,
    BSPACE,
    CAMPION,
    CARD_E,
    CARD_H,
    CATCHES,
    CAUGHT,
    CHAR_NAMES,
    CNT,
    DECIDER,
    DEF,
    DEFEATED,
    ELIL,
    ELIL_FIRST,
    END,
    END_REASONS,
    ENSNARED,
    GIFT,
    HAND,
    HLESSIL,
    IN_PLAY,
    K_FLAME,
    K_KEHAAR,
    K_RET_BACK,
    K_RET_FWD,
    K_RET_SIDE,
    K_TRACKER,
    KNOWN,
    LOC,
    LOCK,
    LOST,
    M_CARD,
    M_CHAR,
    M_GIFT,
    M_NOCARD,
    M_PASS,
    M_SPACE,
    M_YES,
    N_CARDS,
    N_CHARS,
    N_RABBITS,
    N_SPACES,
    NAME_LEN,
    O_CARDS,
    O_NAMES,
    O_SP,
    P_CARD,
    P_DAND,
    P_ESCAPE,
    P_FLAME,
    P_GROUP,
    P_HOLLY,
    P_MOVE,
    P_QUESTION,
    P_RETREAT,
    P_SETUP,
    PENDING,
    PHASE,
    QUESTION,
    QUESTION_NAMES,
    SEEN_AT,
    SIDE,
    SNARE,
    SNARE_FREED,
    STAT,
    TURN,
    WINNER,
)

SIDE_NAMES = ["elil (P1)", "hlessil (P2)"]
def space_names(params):
    """The board's space names, decoded from the params table (``state.NAMES``)."""
    codes = params[0][O_NAMES:O_NAMES + N_SPACES * NAME_LEN].reshape(N_SPACES, NAME_LEN)
    return ["".join(chr(int(x)) for x in row if x) for row in codes]


def _space(params, s):
    return space_names(params)[s] if 0 <= s < N_SPACES else "off the board"


def _card(params, side, k):
    """A battle card's name as its data names it (``retreat_backward``: Retreat Backward)."""
    from . import card_names

    if k < 0:
        return "no card"
    names = card_names(params, "hlessil" if side == HLESSIL else "elil")
    return names[k].replace("_", " ").title() if k < len(names) else f"card {k}"


def _where(state):
    out = {}
    for c in range(N_CHARS):
        if state[STAT + c] == IN_PLAY:
            out.setdefault(int(state[LOC + c]), []).append(CHAR_NAMES[c])
    return out


def describe_setup(params, n_players, state):
    t = params[0]
    ef, sand, da, db = (_space(params, int(t[k])) for k in range(4))
    return [f"P1 plays the elil (Woundwort, Campion, Vervain, Cat, Dog, Fox, Rats, Kestrel, "
            f"the Snare) from {ef}; P2 the hlessil (Hazel's nine) from {sand}; the elil "
            "move first",
            f"Watership Down is {_the(da)} and {_the(db)}; the hlessil win with four "
            "rabbits there, one a doe"]


def _the(name):
    return "the " + name[4:] if name.startswith("The ") else name


def _who(state, c, viewer_side):
    """A character's name, marked when the other side cannot tell which token it is."""
    name = CHAR_NAMES[c]
    side = HLESSIL if c < N_RABBITS else ELIL
    if state[KNOWN + c] == 0 and side != viewer_side:
        return f"{name} [seen by {SIDE_NAMES[side].split()[0]}]"
    return name


def _changes(params, before, after, told=-1, dest=-1):
    """Everything a decision changed: characters moved, defeated, joined; the Snare.
    ``told`` is a character whose move the headline already gave, ``dest`` the space that
    move went to: a mover defeated in the same decision fell there, not where it came from."""
    lines, joined = [], []
    ef = int(params[0][0])
    caught = int(after[CAUGHT]) if after[CATCHES] > before[CATCHES] else -1
    snare_falls = None              # told after the catch when the Snare falls at once
    for c in range(N_CHARS):
        b0, b1 = int(before[LOC + c]), int(after[LOC + c])
        s0, s1 = int(before[STAT + c]), int(after[STAT + c])
        who = CHAR_NAMES[c]
        if s0 == IN_PLAY and s1 == DEFEATED:
            line = f"{who} is defeated on {_space(params, dest if c == told else b0)}"
            if c == SNARE and caught >= 0:
                snare_falls = line
            else:
                lines.append(line)
        elif s0 == PENDING and s1 == LOST:
            joined.append(f"{who} should join, but Sandleford holds elil: lost")
        elif s0 == PENDING and s1 == IN_PLAY and before[PHASE] != P_SETUP:
            joined.append(f"{who} joins the hlessil on {_space(params, b1)}")
        elif s1 == IN_PLAY and b0 != b1 and s0 == IN_PLAY and c != told:
            how = ""
            if b1 == ef and c >= N_RABBITS:
                how = " (sent home)"
            lines.append(f"{_who(before, c, -1)}: {_space(params, b0)} -> "
                         f"{_space(params, b1)}{how}")
    e0, e1 = int(before[ENSNARED]), int(after[ENSNARED])
    if caught >= 0:
        lines.append(f"the Snare catches {CHAR_NAMES[caught]}: both lie face up, "
                     f"{CHAR_NAMES[caught]} is paralysed")
    if snare_falls is not None:
        lines.append(snare_falls)
    held = caught if caught >= 0 else e0
    if held >= 0 and e1 < 0 and after[STAT + held] == IN_PLAY:
        lines.append(f"{CHAR_NAMES[held]} is free of the Snare")
    face_up = e0 >= 0 or before[SNARE_FREED] == 1 or caught >= 0
    if (face_up and before[STAT + SNARE] == IN_PLAY and after[STAT + SNARE] == IN_PLAY
            and e1 < 0 and after[SNARE_FREED] == 0):
        lines.append("the Snare is concealed again")
    a, d = int(after[ATT]), int(after[DEF])
    if a >= 0 and d >= 0 and (d != before[DEF] or a != before[ATT]) \
            and after[STAT + d] == IN_PLAY:
        lines.append(f"battle on {_space(params, int(after[BSPACE]))}: {CHAR_NAMES[a]} "
                     f"attacks, chance picks {CHAR_NAMES[d]} to defend (both revealed)")
    for c in range(N_CHARS):
        if after[LOCK + c] == 1 and before[LOCK + c] == 0:
            lines.append(f"Holly sees {CHAR_NAMES[c]} on {_space(params, int(after[LOC + c]))}"
                         " [seen by hlessil]; it cannot be mixed")
    lines += joined
    if after[WINNER] >= 0 and before[WINNER] < 0:
        lines.append(f"game over: the {SIDE_NAMES[after[WINNER]]} win "
                     f"({END_REASONS[after[END]]})")
    return lines


def _fight_line(params, before, move, side):
    """The two revealed cards and the totals of a fight (decided on the second card)."""
    r, e = (int(before[ATT]), int(before[DEF])) if before[ATT] < N_RABBITS else \
        (int(before[DEF]), int(before[ATT]))
    b = int(before[BSPACE])
    k = -1 if move == M_NOCARD else move - M_CARD
    ch = k if side == HLESSIL else int(before[CARD_H])
    ce = k if side == ELIL else int(before[CARD_E])
    rs = int(rules.rabbit_strength(params, before, r, b))
    es = int(rules.elil_strength(params, before, e, b))
    t = params[0]
    hv = int(t[O_CARDS + HLESSIL * 22 + ch * 2 + 1]) if ch >= 0 else 0
    ev = int(t[O_CARDS + ELIL * 22 + ce * 2 + 1]) if ce >= 0 else 0
    if r == before[ENSNARED]:
        hv = 0
    if before[GIFT] == r:
        rs += int(t[G_GIFT_BONUS_INDEX])
    elif before[GIFT] == e:
        es += int(t[G_GIFT_BONUS_INDEX])
    line = (f"revealed: {CHAR_NAMES[r]} {_card(params, HLESSIL, ch)}, {CHAR_NAMES[e]} "
            f"{_card(params, ELIL, ce)} -> {CHAR_NAMES[r]} {rs}+{hv}={rs + hv}, "
            f"{CHAR_NAMES[e]} {es}+{ev}={es + ev}")
    hk = int(t[O_CARDS + HLESSIL * 22 + ch * 2]) if ch >= 0 else -1
    ek = int(t[O_CARDS + ELIL * 22 + ce * 2]) if ce >= 0 else -1
    return line + _text_effect(params, before, r, e, hk, ek)


def _text_effect(params, before, r, e, hk, ek):
    """What the text cards do, in the rulebook's order (the elil's card first)."""
    notes = []
    if r == before[ENSNARED]:
        notes.append(f"{CHAR_NAMES[r]} is ensnared: its card has no effect")
        hk = -1
    if ek == K_RET_BACK:
        notes.append(f"Retreat Backwards: {CHAR_NAMES[e]} retreats if it can")
    elif ek == K_FLAME:
        notes.append("Flaming Stick: every rabbit on the space must retreat, each its own way")
    elif ek == K_TRACKER and hk in (K_RET_BACK, K_RET_SIDE, K_RET_FWD):
        notes.append("Tracker: the hlessil's Retreat has no effect")
    if hk in (K_RET_BACK, K_RET_SIDE, K_RET_FWD) and e == CAMPION and ek != K_FLAME:
        notes.append("Campion: a rabbit may not retreat from him")
    elif hk in (K_RET_BACK, K_RET_SIDE, K_RET_FWD) and ek not in (K_TRACKER, K_FLAME,
                                                                   K_RET_BACK):
        notes.append(f"{CHAR_NAMES[r]} retreats if a space is available")
    if hk == K_KEHAAR and ek != K_FLAME:
        if before[BSPACE] == params[0][0]:
            notes.append("Kehaar has no effect in Efrafa")
        else:
            notes.append("Kehaar: the elil on the space return to Efrafa")
    if not notes:
        return "; the higher total wins, a tie defeats both"
    return "; " + "; ".join(notes)


def describe_move(params, n_players, before, move, after):
    ph = int(before[PHASE])
    extra = []
    if ph == P_CARD and before[CARD_H if before[DECIDER] == ELIL else CARD_E] >= 0:
        extra.append(_fight_line(params, before, move, int(before[DECIDER])))
    told, dest = -1, -1
    if ph in (P_MOVE, P_DAND) and move != M_PASS:
        told, dest = divmod(move - (M_GIFT if move >= M_GIFT else 0), 16)
        if after[STAT + told] == IN_PLAY and after[LOC + told] != dest:
            told = -1                     # it went on (escape, retreat): say so below
    return [_decision(params, before, move)] + extra + _changes(params, before, after, told,
                                                                  dest)


def describe_choice(params, n_players, obs, move, after):
    """A move a search weighed, from the deciding seat's observation ``obs`` (GameSpec): the
    decision as ``describe_move`` heads it (it names only the seat's own characters and
    cards), without the fight a second card starts."""
    return _decision(params, obs, move)


def _decision(params, before, move):
    """What the deciding side does, from ``before`` alone."""
    ph = int(before[PHASE])
    side = int(before[DECIDER])
    who = SIDE_NAMES[side]
    mine = who.split()[0]
    if ph == P_SETUP:
        head = f"{who} places {CHAR_NAMES[move - M_CHAR]} face down [seen by {mine}]"
    elif ph in (P_MOVE, P_DAND):
        if move == M_PASS:
            head = "Dandelion does not take his second move"
        else:
            gift = move >= M_GIFT
            c, t = divmod(move - (M_GIFT if gift else 0), 16)
            again = " (Dandelion's second move)" if ph == P_DAND else ""
            if gift:
                again += ", playing Gift to the Thousand (+2 in every battle this turn)"
            head = (f"turn {int(before[TURN]) + 1}: {who} moves {_who(before, c, 1 - side)} "
                    f"{_space(params, int(before[LOC + c]))} -> {_space(params, t)}{again}")
    elif ph == P_GROUP:
        head = ("Hazel's group is complete" if move == M_PASS
                else f"{CHAR_NAMES[move - M_CHAR]} goes along with Hazel [seen by hlessil]")
    elif ph == P_ESCAPE:
        head = f"escape from Efrafa by the punt to {_space(params, move - M_SPACE)}"
    elif ph == P_HOLLY:
        head = ("Holly does not look" if move == M_PASS else
                f"Holly reveals himself and looks into {_space(params, move - M_SPACE)}")
    elif ph == P_QUESTION:
        q = int(before[QUESTION])
        head = f"{who}: {QUESTION_NAMES[q]} {'yes' if move == M_YES else 'no'}"
    elif ph == P_CARD:
        k = -1 if move == M_NOCARD else move - M_CARD
        other_card = CARD_H if side == ELIL else CARD_E
        open_first = before[ELIL_FIRST] == 1 and side == HLESSIL
        if before[other_card] == -1:  # (in an observation, HIDDEN: it lies face down)
            vis = "face up (the elil play first)" if side == ELIL and before[ELIL_FIRST] \
                else f"face down [seen by {mine}]"
            head = f"{who} plays {_card(params, side, k)} {vis}"
        else:
            head = f"{who} plays {_card(params, side, k)}" + ("" if open_first else
                                                     f" [seen by {mine}]")
    elif ph == P_RETREAT:
        c, t = divmod(move, 16)
        head = f"{CHAR_NAMES[c]} retreats to {_space(params, t)}"
    elif ph == P_FLAME:
        c, t = divmod(move, 16)
        head = f"Flaming Stick: {CHAR_NAMES[c]} retreats to {_space(params, t)}"
    else:
        head = f"move {move}"
    return head


def check_state(params, n_players, state):
    problems = []
    g = params[0]
    sp = g[O_SP:O_SP + 48].reshape(16, 3)
    cap = int(g[11])
    for c in range(N_CHARS):
        st, loc = int(state[STAT + c]), int(state[LOC + c])
        if st not in (PENDING, IN_PLAY, DEFEATED, LOST):
            problems.append(f"{CHAR_NAMES[c]} has status {st}")
        if st == IN_PLAY and not 0 <= loc < N_SPACES and state[PHASE] != P_SETUP:
            problems.append(f"{CHAR_NAMES[c]} in play off the board")
        if st in (DEFEATED, LOST) and loc != -1:
            problems.append(f"defeated {CHAR_NAMES[c]} still on the board")
    for s in range(N_SPACES):
        for side in (ELIL, HLESSIL):
            lo, hi = (0, N_RABBITS) if side == HLESSIL else (N_RABBITS, N_CHARS)
            n = sum(1 for c in range(lo, hi) if state[STAT + c] == IN_PLAY
                    and state[LOC + c] == s)
            if sp[s, 1] == 1 and n > cap:
                problems.append(f"{n} {SIDE_NAMES[side]} characters in wooded "
                                f"{_space(params, s)}")
            if state[CNT + side * N_SPACES + s] != n:
                problems.append(f"token count of {SIDE_NAMES[side]} on {_space(params, s)} "
                                f"is {state[CNT + side * N_SPACES + s]}, not {n}")
        h = sum(1 for c in range(N_RABBITS) if state[STAT + c] == IN_PLAY
                and state[LOC + c] == s)
        e = sum(1 for c in range(N_RABBITS, N_CHARS) if state[STAT + c] == IN_PLAY
                and state[LOC + c] == s)
        busy_snare = state[ENSNARED] >= 0 and state[LOC + SNARE] == s
        if h and e and not busy_snare and state[BSPACE] != s and state[WINNER] < 0:
            problems.append(f"rabbits and elil share {_space(params, s)} outside a battle")
        if s == int(g[0]) and h and state[BSPACE] != s and state[WINNER] < 0 \
                and state[PHASE] not in (P_ESCAPE, P_GROUP, P_FLAME):
            problems.append("a rabbit stays in Efrafa")
    for c in range(N_CHARS):
        seen = int(state[SEEN_AT + c])
        if seen >= 0 and (state[STAT + c] != IN_PLAY or state[LOC + c] != seen):
            problems.append(f"{CHAR_NAMES[c]} is known to stand on {_space(params, seen)} "
                            f"but is on {_space(params, int(state[LOC + c]))}")
    ens = int(state[ENSNARED])
    if ens >= 0:
        if state[STAT + ens] != IN_PLAY or state[STAT + SNARE] != IN_PLAY:
            problems.append("an ensnared rabbit or its Snare is not in play")
        elif state[LOC + ens] != state[LOC + SNARE]:
            problems.append("the ensnared rabbit is not on the Snare's space")
    for side in (ELIL, HLESSIL):
        if sum(int(state[HAND + side * N_CARDS + k]) for k in range(9)) == 0 \
                and g[15] == 1:
            problems.append(f"{SIDE_NAMES[side]} hold no cards")
    if state[WINNER] < 0 and state[SIDE] not in (ELIL, HLESSIL):
        problems.append("no side to play")
    return problems
