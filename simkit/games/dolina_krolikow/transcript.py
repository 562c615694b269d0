"""Dolina królików told as text (``simkit replay``), and its invariants (``check_state``)."""

from simkit.game import HIDDEN

from . import rules as R
from . import state as S
from .tables import view

DIE_COLOURS = ("orange", "green", "blue")
TOKEN_NAMES = ("carrot", "cabbage", "cornflower")
RABBIT_COLOURS = ("white", "brown", "spotted")
SIZES = ("Small", "Large")
SETUP_PHASES = (S.PH_SETUP_FOREST, S.PH_SETUP_HOUSE, S.PH_REDEAL)


def die(face) -> str:
    return f"{DIE_COLOURS[face // 6]} {face % 6 + 1}"


def marking(m) -> str:
    kind, c, p = (int(x) for x in m)
    letter = "OGB"[c] if c >= 0 else ""
    return {R.K_COLOUR: letter, R.K_COLOUR_PIPS: f"{letter}{p}", R.K_PIPS: f"*{p}",
            R.K_SAME_COLOUR: "SC", R.K_SAME_PIPS: "SP"}.get(kind, "")


def card_name(params, card) -> str:
    card = int(card)
    if card == HIDDEN:
        return "an unseen card"
    size, colour = view(params, "cards")[card]
    alts = []
    for alt in view(params, "req")[card]:
        marks = [marking(m) for m in alt if m[0] != R.K_NONE]
        if marks:
            alts.append(" ".join(marks))
    return f"#{card + 1} {SIZES[size]} {RABBIT_COLOURS[colour]} ({' / '.join(alts)})"


HOUSE_TEXT = {R.P_HAS: "at least {b} {a}", R.P_ONLY: "only {a}", R.P_NONE: "no {a}",
              R.P_RAINBOW: "exactly 3 of three colours", R.P_SIZE: "at least {a} rabbits",
              R.P_LARGE: "{a} Large", R.P_SMALL: "at least {a} Small", R.P_MONO: "one colour"}


def condition(kind, a, b) -> str:
    return HOUSE_TEXT[int(kind)].format(a=RABBIT_COLOURS[a] if kind in (R.P_HAS, R.P_ONLY,
                                                                          R.P_NONE) else a, b=b)


def house_name(params, h) -> str:
    return f"House #{int(h) + 1} [{condition(*view(params, 'house')[int(h)])}]"


def forest_name(params, f) -> str:
    q, k, kind, a, b = (int(x) for x in view(params, "forest")[int(f)])
    if q == R.Q_EVERY:
        text = f"every Family: {condition(kind, a, b)}"
    elif q == R.Q_COUNT:
        text = f"{k} Families: {condition(kind, a, b)}"
    else:
        text = f"{b} {'any' if a == 3 else RABBIT_COLOURS[a]} rabbits in Families"
    return f"Forest #{int(f) + 1} [{text}]"


def tokens(state, seat) -> str:
    b = S.TOKENS + 3 * seat
    return "/".join(str(int(state[b + k])) for k in range(3)) + " (carrot/cabbage/cornflower)"


def seat_label(s) -> str:
    return f"P{int(s) + 1}"


def table_lines(params, state) -> list[str]:
    out = []
    for pos in range(int(params[0][R.C_POSITIONS])):
        c = state[S.POS_CARD + pos]
        out.append(f"position {pos + 1}: {card_name(params, c) if c >= 0 else 'empty'}")
    return out


def describe_setup(params, n_players, state) -> list[str]:
    lines = [f"{int(params[0][R.C_ROUNDS])} rounds; {int(params[0][R.C_PICKS])} dice picks "
             f"each a round; P1 is the first player"]
    lines += table_lines(params, state)
    for s in range(n_players):
        forest = ", ".join(forest_name(params, f) for f in state[S.FOREST_HAND + 2 * s:
                           S.FOREST_HAND + 2 * s + 2] if f >= 0)
        houses = ", ".join(house_name(params, h) for h in state[S.HOUSE_HAND + 4 * s:
                           S.HOUSE_HAND + 4 * s + 4] if h >= 0)
        lines.append(f"{seat_label(s)} is dealt {forest}; {houses} [seen by {seat_label(s)}]")
    return lines


def describe_move(params, n_players, before, move, after) -> list[str]:
    ph = int(before[S.PHASE])
    lines = _decision(params, n_players, before, int(move), after)
    if int(after[S.ROUND]) != int(before[S.ROUND]) or (after[S.PHASE] == S.PH_OVER):
        lines += round_end_text(params, n_players, before, after)
    elif ph == S.PH_LEFTOVER:
        lines += acquisition_text(params, n_players, before, after)
    if ph in SETUP_PHASES and after[S.PHASE] not in SETUP_PHASES:
        lines.append("=== round 1 ===")
    if before[S.PHASE] != S.PH_PICK and after[S.PHASE] == S.PH_PICK and after[S.STEP] == 0:
        lines.append("rolls: " + ", ".join(die(f) for f in after[S.DIE_FACE:S.DIE_FACE + 9]))
    return lines


def describe_choice(params, n_players, obs, move, after) -> str:
    """A move a search weighed, from the deciding seat's observation ``obs`` (GameSpec): as
    ``describe_move`` heads it, but the rabbit a leftover die's pips bring from the deck is
    unseen."""
    if int(obs[S.PHASE]) == S.PH_LEFTOVER and R.LEFT_SWAP <= move < R.LEFT_PASS:
        after = after.copy()
        after[S.POS_CARD + obs[S.DIE_FACE + move - R.LEFT_SWAP] % 6] = HIDDEN
    return _decision(params, n_players, obs, int(move), after)[0]


def _decision(params, n_players, before, move, after) -> list[str]:
    """What the seat to move does: the first line or two of ``describe_move``."""
    seat = int(before[S.ACTOR])
    ph = int(before[S.PHASE])
    me = seat_label(seat)
    lines: list[str]
    if ph == S.PH_SETUP_FOREST:
        if move == R.F_REDEAL:
            lines = ["both Forest cards clash with the Houses: asks for the redeal"]
        else:
            f = after[S.FOREST_KEPT + seat]
            lines = [f"keeps {forest_name(params, f)} in secret [seen by {me}]"]
    elif ph == S.PH_SETUP_HOUSE:
        if move == R.H_KEEP_ALL:
            lines = ["keeps all dealt House cards"]
        else:
            h = before[S.HOUSE_HAND + 4 * seat + move - R.H_DISCARD]
            lines = [f"discards {house_name(params, h)} [seen by {me}]"]
    elif ph == S.PH_REDEAL:
        lines = [f"redeal: keeps {forest_name(params, after[S.FOREST_KEPT + seat])} "
                 f"[seen by {me}]"]
    elif ph == S.PH_DRAW:
        lines = ["draws House cards" if move == R.DRAW_TAKE else "draws no House card"]
        if move == R.DRAW_TAKE and after[S.DRAWN_N] == 0:
            new = after[S.HOUSE_CARD + seat * S.MAXH + after[S.HOUSE_COUNT + seat] - 1]
            lines.append(f"takes the last card, {house_name(params, new)} [seen by {me}]")
        elif move == R.DRAW_TAKE:
            lines.append("offered " + ", ".join(house_name(params, h) for h in
                         after[S.DRAWN:S.DRAWN + after[S.DRAWN_N]]) + f" [seen by {me}]")
    elif ph == S.PH_KEEP:
        h = before[S.DRAWN + move - R.KEEP]
        lines = [f"keeps {house_name(params, h)} as a new House [seen by {me}]"]
    elif ph == S.PH_WANDER_ADD:
        if move == R.WAND_DONE:
            lines = ["keeps the Wanderers waiting"]
        else:
            c = before[S.WAND + 2 * seat + move - R.WAND_ADD]
            lines = [f"moves Wanderer {card_name(params, c)} into the new House"]
    elif ph == S.PH_PICK:
        lines = pick_text(params, before, move, after, seat)
    elif ph == S.PH_PAY:
        pos = int(before[S.PAY_POS])
        lines = [f"pays 1 {TOKEN_NAMES[move - R.PAY_TOKEN]} for the die on position {pos + 1}"
                 + pay_left(after)]
    elif ph == S.PH_PLACE:
        c = before[S.PEND_CARD + before[S.PEND_I]]
        lines = [f"puts {card_name(params, c)} in House {move - R.HOUSE + 1}"]
    else:
        lines = leftover_text(params, before, move, after, seat)
    return lines


def pick_text(params, before, move, after, seat) -> list[str]:
    if move >= R.EXCHANGE:
        pos = move - R.EXCHANGE
        return [f"trades two Wanderers for {card_name(params, before[S.POS_CARD + pos])} "
                f"(position {pos + 1})"]
    if move < R.PLACE:
        d = move - R.RES
        return [f"takes the {die(before[S.DIE_FACE + d])} as resources: now "
                f"{tokens(after, seat)}"]
    m = move - R.PLACE
    f, m = m % S.N_FACES, m // S.N_FACES
    d, pos = m // S.MAXPOS, m % S.MAXPOS
    f0 = before[S.DIE_FACE + d]
    target = card_name(params, before[S.POS_CARD + pos])
    text = f"puts the {die(f0)} on {target} (position {pos + 1})"
    if f != f0:
        paid = [int(after[S.POS_TOK + 3 * pos + k] - before[S.POS_TOK + 3 * pos + k])
                for k in range(3)]
        text += f" as {die(f)}, paying " + (", ".join(f"{n} {TOKEN_NAMES[k]}" for k, n in
                                                     enumerate(paid) if n) or "nothing yet")
        text += pay_left(after)
    return [text]


def pay_left(after) -> str:
    """What a die's pip change still asks when the seat chooses the tokens (PH_PAY)."""
    if after[S.PHASE] != S.PH_PAY:
        return ""
    left = int(after[S.PAY_LEFT])
    return f"; {left} more token{'s' if left > 1 else ''} of its choice to pay"


def leftover_text(params, before, move, after, seat) -> list[str]:
    if move == R.LEFT_PASS:
        return ["uses a leftover die's pips and exchanges no rabbit"]
    if move < R.LEFT_SWAP:
        f = before[S.DIE_FACE + move - R.LEFT_COLOUR]
        return [f"uses the leftover {die(f)} for its colour: everyone takes a "
                f"{TOKEN_NAMES[f // 6]}"]
    f = before[S.DIE_FACE + move - R.LEFT_SWAP]
    pos = f % 6
    old = card_name(params, before[S.POS_CARD + pos])
    new = card_name(params, after[S.POS_CARD + pos])
    return [f"uses the leftover {die(f)} for its pips: {old} at position {pos + 1} is replaced "
            f"by {new}"]


def acquisition_text(params, n_players, before, after) -> list[str]:
    out = []
    for pos in range(int(params[0][R.C_POSITIONS])):
        o = before[S.POS_OWNER + pos]
        if o < 0:
            continue
        c = before[S.POS_CARD + pos]
        got = after[S.CARD_LOC + c] != S.LOC_TABLE
        out.append(f"{seat_label(o)} {'acquires' if got else 'fails to acquire'} "
                   f"{card_name(params, c)}")
    return out


def round_end_text(params, n_players, before, after) -> list[str]:
    out = []
    if before[S.PHASE] == S.PH_LEFTOVER:
        out += acquisition_text(params, n_players, before, after)
    for s in range(n_players):
        for w in range(2):
            c = after[S.WAND + 2 * s + w]
            if c >= 0 and before[S.WAND + 2 * s + w] != c:
                out.append(f"{seat_label(s)}: {card_name(params, c)} fits no House and wanders")
    for s in range(n_players):
        fams = []
        for h in range(int(after[S.HOUSE_COUNT + s])):
            i = s * S.MAXH + h
            n, large = int(after[S.HOUSE_N + i]), int(after[S.HOUSE_LARGE + i])
            fams.append(f"{n} rabbits ({large} Large)")
        out.append(f"{seat_label(s)} Houses: {'; '.join(fams)}; tokens {tokens(after, s)}")
    if after[S.PHASE] == S.PH_OVER:
        for s in range(n_players):
            out += final_lines(params, after, s)
    else:
        out.append(f"=== round {int(after[S.ROUND]) + 1}, first player "
                   f"{seat_label(after[S.FIRST])} ===")
        out += table_lines(params, after)
    return out


def final_lines(params, state, s) -> list[str]:
    """A seat's scoring: each House with its Family and mission, the Forest mission, total."""
    out = [f"{seat_label(s)} scores {int(R.seat_score(params, state, s))} VP:"]
    for h in range(int(state[S.HOUSE_COUNT + s])):
        i = s * S.MAXH + h
        fam = "a Family" if R.is_family(state, i) else "no Family"
        done = "completed" if R.house_mission_done(params, state, s, h) else "uncompleted"
        out.append(f"  {house_name(params, state[S.HOUSE_CARD + i])}: "
                   f"{int(state[S.HOUSE_N + i])} rabbits ({int(state[S.HOUSE_LARGE + i])} Large),"
                   f" {fam} worth {int(R.family_points(params, state, i))}, mission {done}")
    done = "completed" if R.forest_mission_done(params, state, s) else "uncompleted"
    out.append(f"  {forest_name(params, state[S.FOREST_KEPT + s])}: {done}")
    return out


def check_state(params, n_players, state) -> list[str]:
    cfg = params[0]
    problems: list[str] = []
    n_cards = int(cfg[R.C_N_CARDS])
    where = {}

    def seen(card, place):
        if card in where:
            problems.append(f"rabbit {card} is both {where[card]} and {place}")
        where[card] = place

    for i in range(int(state[S.DECK_N])):
        seen(int(state[S.DECK + i]), "deck")
    for pos in range(int(cfg[R.C_POSITIONS])):
        if state[S.POS_CARD + pos] >= 0:
            seen(int(state[S.POS_CARD + pos]), "table")
    for i in range(int(state[S.PEND_I]), int(state[S.PEND_N])):
        seen(int(state[S.PEND_CARD + i]), "pending")
    for s in range(n_players):
        for w in range(2):
            if state[S.WAND + 2 * s + w] >= 0:
                seen(int(state[S.WAND + 2 * s + w]), f"wanderer of P{s + 1}")
    simple = {S.LOC_DECK: "deck", S.LOC_TABLE: "table", S.LOC_PENDING: "pending"}
    for c in range(n_cards):
        loc = int(state[S.CARD_LOC + c])
        if loc >= S.LOC_SEAT and (loc - S.LOC_SEAT) % 8 < S.MAXH:
            seen(c, f"house {loc}")
        elif loc >= S.LOC_SEAT and where.get(c) != f"wanderer of P{(loc - S.LOC_SEAT) // 8 + 1}":
            problems.append(f"rabbit {c} marked as a wanderer but is {where.get(c)}")
        elif loc in simple and where.get(c) != simple[loc]:
            problems.append(f"rabbit {c} located {loc} but is {where.get(c)}")
        elif loc not in simple and loc < S.LOC_SEAT:
            problems.append(f"rabbit {c} has the unknown location {loc}")
    if len(where) != n_cards:
        problems.append(f"{n_cards - len(where)} rabbit cards are nowhere")
    if state[S.PHASE] == S.PH_PAY:
        pos = int(state[S.PAY_POS])
        if not (0 <= pos < S.MAXPOS and state[S.POS_OWNER + pos] == state[S.ACTOR]
                and state[S.PAY_LEFT] > 0):
            problems.append("pay: no die of the player's waits for its tokens")
    elif state[S.PAY_LEFT] != 0:
        problems.append("tokens left to pay outside the pay step")
    problems += check_houses(params, n_players, state)
    problems += check_tokens(params, n_players, state)
    problems += check_missions(params, n_players, state)
    problems += check_memory(params, n_players, state)
    return problems


def check_houses(params, n_players, state) -> list[str]:
    problems = []
    limit = int(params[0][R.C_HOUSE_LIMIT])
    for s in range(n_players):
        if not 0 <= state[S.HOUSE_COUNT + s] <= limit:
            problems.append(f"P{s + 1} has {state[S.HOUSE_COUNT + s]} Houses")
        for h in range(S.MAXH):
            i = s * S.MAXH + h
            members = [c for c in range(int(params[0][R.C_N_CARDS]))
                       if state[S.CARD_LOC + c] == S.LOC_SEAT + 8 * s + h]
            cards = view(params, "cards")
            large = sum(int(cards[c][0]) for c in members)
            cols = [sum(1 for c in members if cards[c][1] == k) for k in range(3)]
            counted = [int(x) for x in state[S.HOUSE_COLS + 3 * i:S.HOUSE_COLS + 3 * i + 3]]
            if (len(members) != state[S.HOUSE_N + i] or large != state[S.HOUSE_LARGE + i]
                    or cols != counted):
                problems.append(f"P{s + 1} House {h + 1}: counts do not match its rabbits")
            if large > 2:
                problems.append(f"P{s + 1} House {h + 1} has {large} Large rabbits")
            if members and (h >= state[S.HOUSE_COUNT + s] or state[S.HOUSE_CARD + i] < 0):
                problems.append(f"P{s + 1} has rabbits in a House it does not have")
    return problems


def check_tokens(params, n_players, state) -> list[str]:
    problems = []
    cfg = params[0]
    for k in range(3):
        held = [int(state[S.TOKENS + 3 * s + k]) for s in range(n_players)]
        on_cards = sum(int(state[S.POS_TOK + 3 * p + k]) for p in range(S.MAXPOS))
        total = int(state[S.GARDEN + k]) + sum(held) + on_cards
        if total != cfg[R.C_GARDEN] or min(held + [int(state[S.GARDEN + k]), on_cards]) < 0:
            problems.append(f"{TOKEN_NAMES[k]} tokens: {total} in play, not {cfg[R.C_GARDEN]}")
        if state[S.PHASE] in (S.PH_DRAW, S.PH_KEEP, S.PH_WANDER_ADD, S.PH_OVER) and max(held) > \
                cfg[R.C_KIND_LIMIT]:
            problems.append(f"{TOKEN_NAMES[k]}: a player is over the limit between rounds")
    return problems


def check_missions(params, n_players, state) -> list[str]:
    problems = []
    houses = [int(state[S.HSTACK + i]) for i in range(int(state[S.HSTACK_N]))]
    houses += [int(x) for x in state[S.HOUSE_CARD:S.HOUSE_CARD + 4 * S.MAXH] if x >= 0]
    houses += [int(x) for x in state[S.HOUSE_HAND:S.HOUSE_HAND + 16] if x >= 0]
    houses += [int(x) for x in state[S.DRAWN:S.DRAWN + 2] if x >= 0]
    if sorted(houses) != list(range(int(params[0][R.C_N_HOUSE]))):
        problems.append(f"House cards out of balance: {sorted(houses)}")
    forest = [int(state[S.FPOOL + i]) for i in range(int(state[S.FPOOL_N]))]
    forest += [int(x) for x in state[S.FOREST_HAND:S.FOREST_HAND + 8] if x >= 0]
    forest += [int(x) for x in state[S.FOREST_KEPT:S.FOREST_KEPT + 4] if x >= 0]
    if sorted(forest) != list(range(int(params[0][R.C_N_FOREST]))):
        problems.append(f"Forest cards out of balance: {sorted(forest)}")
    if state[S.PHASE] not in SETUP_PHASES and any(
            state[S.FOREST_KEPT + s] < 0 for s in range(n_players)):
        problems.append("a player has no Forest card after setup")
    return problems


def mission_times(params, n_players, state) -> tuple[dict, dict]:
    """Where each House and Forest card lies, as the time its place was filled: a stack
    never (infinity), a House its HOUSE_AT, a dealt House card 0, the House cards being
    chosen the CLOCK, a seat's Forest cards its FOREST_AT."""
    never = float("inf")
    houses = {int(state[S.HSTACK + i]): never for i in range(int(state[S.HSTACK_N]))}
    forests = {int(state[S.FPOOL + i]): never for i in range(int(state[S.FPOOL_N]))}
    for j in range(2):
        if state[S.DRAWN + j] >= 0:
            houses[int(state[S.DRAWN + j])] = int(state[S.CLOCK])
    for s in range(n_players):
        for h in range(S.MAXH):
            c = int(state[S.HOUSE_CARD + s * S.MAXH + h])
            if c >= 0:
                houses[c] = int(state[S.HOUSE_AT + s * S.MAXH + h])
        for k in range(4):
            if state[S.HOUSE_HAND + 4 * s + k] >= 0:
                houses[int(state[S.HOUSE_HAND + 4 * s + k])] = 0
        at = int(state[S.FOREST_AT + s])
        for f in [*state[S.FOREST_HAND + 2 * s:S.FOREST_HAND + 2 * s + 2],
                  state[S.FOREST_KEPT + s]]:
            if f >= 0:
                forests[int(f)] = at
    return houses, forests


def check_memory(params, n_players, state) -> list[str]:
    """A card a seat saw go back into a stack at time t is there, or in a place filled
    since (state.py)."""
    problems = []
    clock = int(state[S.CLOCK])
    houses, forests = mission_times(params, n_players, state)
    for s in range(n_players):
        at = [int(state[S.HOUSE_AT + s * S.MAXH + h])
              for h in range(int(state[S.HOUSE_COUNT + s]))]
        if not all(0 <= t <= clock for t in at + [int(state[S.FOREST_AT + s])]):
            problems.append(f"P{s + 1}: a mission dealt after the clock ({clock})")
        for back, size, where in ((S.HOUSE_BACK, S.MAXHC, houses),
                                  (S.FOREST_BACK, S.MAXF, forests)):
            for c in range(size):
                m = int(state[back + s * size + c])
                if m < 0 or m > clock + 1 or (m > 0 and where.get(c, -1) < m):
                    problems.append(f"P{s + 1} saw mission card {c} go back at time "
                                    f"{m - 1}; it is not where it can be")
    return problems
