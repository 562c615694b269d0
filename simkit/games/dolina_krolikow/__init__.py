"""Dolina królików (Rabbit Valley): dice, rabbits, families and missions.

``compile_params`` turns data.toml's values into the kernels' arrays: the rabbit cards' dice
requirements become two lookup tables (can a die of this face start / complete this card),
the mission texts become condition codes, the clash table of the setup redeal is derived
from the conditions.
"""

from pathlib import Path

import numpy as np

from simkit.checks import CopiesRule
from simkit.data import load_data, records
from simkit.errors import SimkitError
from simkit.game import GameSpec, HiddenZone

from . import rules
from .rules import (
    C_ADV_TABLE,
    C_DRAW_OFFERED,
    C_FACE_UP,
    C_FOREST_DEALT,
    C_FOREST_DONE,
    C_FOREST_FAIL,
    C_GARDEN,
    C_HOUSE_DONE,
    C_HOUSE_FAIL,
    C_HOUSE_LIMIT,
    C_HOUSES_DEALT,
    C_KIND_LIMIT,
    C_MAX_TURNS,
    C_N_CARDS,
    C_N_DICE,
    C_N_FOREST,
    C_N_HOUSE,
    C_PER_COLOUR,
    C_PICKS,
    C_PIP,
    C_POSITIONS,
    C_RECOLOUR,
    C_REDEAL,
    C_ROUNDS,
    C_SWAP_POS,
    C_TOTAL_LIMIT,
    C_TWO_LARGE,
    C_WAND_MAX,
    K_COLOUR,
    K_COLOUR_PIPS,
    K_PIPS,
    K_SAME_COLOUR,
    K_SAME_PIPS,
    N_CFG,
    P_HAS,
    P_LARGE,
    P_MONO,
    P_NONE,
    P_ONLY,
    P_RAINBOW,
    P_SIZE,
    P_SMALL,
    Q_COUNT,
    Q_EVERY,
    Q_TOTAL,
)
from .state import (
    DECK,
    FOREST_HAND,
    FPOOL,
    HOUSE_HAND,
    HSTACK,
    MAXC,
    MAXF,
    MAXH,
    MAXHC,
    MAXP,
    N_FACES,
)
from .tables import REACH_TOTALS, pack
from .transcript import (
    TOKEN_NAMES,
    check_state,
    describe_choice,
    describe_move,
    describe_setup,
    die,
)

DICE_COLOURS = {"O": 0, "G": 1, "B": 2}
RABBIT_COLOURS = {"white": 0, "brown": 1, "spotted": 2}
SIZES = {"small": 0, "large": 1}


def parse_marking(tok: str, card: str) -> tuple[int, int, int]:
    """One marking -> (kind, colour, pips); see data.toml for the notation. ``card`` names
    the card in errors."""
    if tok == "SC":
        return (K_SAME_COLOUR, -1, -1)
    if tok == "SP":
        return (K_SAME_PIPS, -1, -1)
    if tok[0] == "*" and len(tok) == 2 and tok[1] in "123456":
        return (K_PIPS, -1, int(tok[1]))
    if tok[0] in DICE_COLOURS and len(tok) == 1:
        return (K_COLOUR, DICE_COLOURS[tok[0]], -1)
    if tok[0] in DICE_COLOURS and len(tok) == 2 and tok[1] in "123456":
        return (K_COLOUR_PIPS, DICE_COLOURS[tok[0]], int(tok[1]))
    raise SimkitError(f"{card}: bad marking {tok!r}; markings: O G B (a colour), O1..B6 "
                      "(a colour and pips), *1..*6 (pips), SC, SP (two dice)")


def parse_card(size: str, colour: str, needs: str, key: str = "rabbits.cards"):
    """('large', 'white', 'B1 *2 / G G') -> (size, colour, [[marking, marking], ...]);
    ``key`` (the card's, ``rabbits.cards.7``) names it in errors."""
    if size not in SIZES or colour not in RABBIT_COLOURS:
        raise SimkitError(f"{key}: a card is small or large and white, brown or spotted, "
                          f"not {size} {colour}")
    size = SIZES[size]
    alts = []
    for alt in needs.split("/"):
        marks = [parse_marking(t, f"{key}.needs") for t in alt.split()]
        pair = len(marks) == 1 and marks[0][0] in (K_SAME_COLOUR, K_SAME_PIPS)
        singles = all(m[0] in (K_COLOUR, K_COLOUR_PIPS, K_PIPS) for m in marks)
        ok = (size == 0 and len(marks) == 1 and singles) or (
            size == 1 and (pair or (len(marks) == 2 and singles)))
        if not ok:
            raise SimkitError(f"{key}.needs: {needs!r}: a Small rabbit needs one single-die "
                              "marking, a Large one two, or one two-dice marking (SC, SP)")
        alts.append(marks)
    if len(alts) > 2:
        raise SimkitError(f"{key}.needs: {needs!r} has more than two alternatives")
    return size, RABBIT_COLOURS[colour], alts


def card_text(card: dict) -> str:
    """A rabbit card's record as the rulebook would print it: 'Large white: B1 *2 / G G'."""
    return f"{card['size'].title()} {card['colour']}: {card['needs']}"


def rabbit_cards(values: dict):
    """The rabbit cards of these data values: [(key, record)] in list order."""
    return [(f"rabbits.cards.{n}", c) for n, c in records(values, "rabbits.cards")]


def missions(values: dict, which: str) -> list[tuple[str, str]]:
    """The House (``which`` "house") or Forest cards: [(key, condition)] in list order."""
    return [(f"missions.{which}.{n}", r["condition"])
            for n, r in records(values, f"missions.{which}")]


def single_ok(m, face: int) -> bool:
    kind, colour, pips = m
    c, p = face // 6, face % 6 + 1
    if kind == K_COLOUR:
        return c == colour
    if kind == K_COLOUR_PIPS:
        return c == colour and p == pips
    return p == pips


def alt_complete(marks, f1: int, f2: int) -> bool:
    if len(marks) == 1 and marks[0][0] == K_SAME_COLOUR:
        return f1 // 6 == f2 // 6 and f1 % 6 != f2 % 6
    if len(marks) == 1 and marks[0][0] == K_SAME_PIPS:
        return f1 // 6 != f2 // 6 and f1 % 6 == f2 % 6
    a, b = marks
    return (single_ok(a, f1) and single_ok(b, f2)) or (single_ok(a, f2) and single_ok(b, f1))


def fit_tables(cards):
    n = len(cards)
    fit1 = np.zeros((n, 18), np.int8)
    fit2 = np.zeros((n, 18 * 18), np.int8)
    for i, (size, _, alts) in enumerate(cards):
        for f1 in range(18):
            if size == 0:
                fit1[i, f1] = any(single_ok(a[0], f1) for a in alts)
                continue
            for f2 in range(18):
                fit2[i, f1 * 18 + f2] = any(alt_complete(a, f1, f2) for a in alts)
            fit1[i, f1] = fit2[i, f1 * 18:(f1 + 1) * 18].any()
    return fit1, fit2


def accept_masks(fit1, fit2, cards):
    """int32[n, 19]: column 0 the bitmask of faces a first die may show, column 1+d1 those a
    second die may show after a first of face d1 (none for a Small card, which is full)."""
    n = fit1.shape[0]
    acc = np.zeros((n, 19), np.int32)
    weights = 1 << np.arange(18)
    for c in range(n):
        acc[c, 0] = int((fit1[c] != 0) @ weights)
        if cards[c][0] == 1:
            for d1 in range(18):
                acc[c, 1 + d1] = int((fit2[c, d1 * 18:(d1 + 1) * 18] != 0) @ weights)
    return acc


def reach_table(recolour, pip):
    """int32[18, 37, 8]: ``[f0, total, rich]`` is the bitmask of faces a die showing f0 can be
    modified into by a player holding ``total`` tokens (36 or more: ``total`` 36) who has at
    least ``recolour`` tokens of each kind in the bitmask ``rich``."""
    reach = np.zeros((18, REACH_TOTALS, 8), np.int32)
    for f0 in range(18):
        for total in range(REACH_TOTALS):
            for rich in range(8):
                mask = 0
                for f in range(18):
                    need = pip * abs(f % 6 - f0 % 6)
                    if f // 6 != f0 // 6:
                        if not rich >> (f // 6) & 1:
                            continue
                        need += recolour
                    if need <= total:
                        mask |= 1 << f
                reach[f0, total, rich] = mask
    return reach


def parse_condition(words: list[str], text: str, key: str) -> tuple[int, int, int]:
    """A family condition -> (kind, a, b)."""
    try:
        w = words[0]
        if w == "has":
            return (P_HAS, RABBIT_COLOURS[words[1]], int(words[2]))
        if w in ("only", "none"):
            return (P_ONLY if w == "only" else P_NONE, RABBIT_COLOURS[words[1]], 0)
        if w == "rainbow":
            return (P_RAINBOW, 0, 0)
        if w == "mono":
            return (P_MONO, 0, 0)
        if w in ("size", "large", "small"):
            return ({"size": P_SIZE, "large": P_LARGE, "small": P_SMALL}[w], int(words[1]), 0)
    except (IndexError, KeyError, ValueError):
        pass
    raise SimkitError(f"{key}: cannot read the condition {text!r}; a Family's: has <colour> "
                      "N, only <colour>, none <colour>, rainbow, mono, size N, large N, small N")


def parse_forest(text: str, key: str = "missions.forest") -> tuple[int, int, int, int, int]:
    w = text.split()
    if w and w[0] == "every":
        return (Q_EVERY, 0, *parse_condition(w[1:], text, key))
    if w and w[0] == "count" and len(w) > 2 and w[1].isdigit():
        return (Q_COUNT, int(w[1]), *parse_condition(w[2:], text, key))
    if w and w[0] == "total" and len(w) == 3 and w[2].isdigit():
        colour = 3 if w[1] == "any" else RABBIT_COLOURS.get(w[1], -1)
        if colour >= 0:
            return (Q_TOTAL, 0, 0, colour, int(w[2]))
    raise SimkitError(f"{key}: cannot read the condition {text!r}; a Forest card's: every "
                      "<family condition>, count K <family condition>, total <colour|any> N")


def clash_table(forest, house):
    """Forest card f clashes with House card h when no Family can meet both: 'every Family
    has colour c' against a House that must be 'only' another colour or have 'none' of c."""
    clash = np.zeros((len(forest), len(house)), np.int8)
    for i, (q, _, kind, a, _b) in enumerate(forest):
        if q != Q_EVERY or kind != P_HAS:
            continue
        for j, (hk, ha, _) in enumerate(house):
            if (hk == P_ONLY and ha != a) or (hk == P_NONE and ha == a):
                clash[i, j] = 1
    return clash


def compile_params(values: dict, n_players: int) -> tuple:
    """Effective data values -> the kernels' parameter arrays (see rules.py for the order)."""
    v = values
    cards = [parse_card(c["size"], c["colour"], c["needs"], key)
             for key, c in rabbit_cards(v)]
    house = [parse_condition(t.split(), t, key) for key, t in missions(v, "house")]
    forest = [parse_forest(t, key) for key, t in missions(v, "forest")]
    if not 8 < len(cards) <= MAXC:
        raise SimkitError(f"rabbits.cards: between 9 and {MAXC} cards, not {len(cards)}")
    if not 0 < len(house) <= MAXHC:
        raise SimkitError(f"missions.house: 1 to {MAXHC} House cards, not {len(house)}")
    if not 0 < len(forest) <= MAXF:
        raise SimkitError(f"missions.forest: 1 to {MAXF} Forest cards, not {len(forest)}")
    two, four = n_players == 2, n_players == 4
    cfg = np.zeros(N_CFG, np.int32)
    cfg[C_ROUNDS] = v[f"rounds.{ {2: 'two', 3: 'three', 4: 'four'}[n_players]}_players"]
    cfg[C_PICKS] = v["dice.picks_two_players"] if two else v["dice.picks_more_players"]
    cfg[C_HOUSE_LIMIT] = v["houses.limit_two_players"] if two else v["houses.limit_more_players"]
    cfg[C_HOUSES_DEALT] = v["houses.dealt_two_players"] if two else v["houses.dealt_more_players"]
    cfg[C_KIND_LIMIT] = v["resources.kind_limit_four_players" if four else "resources.kind_limit"]
    cfg[C_TOTAL_LIMIT] = v["resources.total_limit_four_players" if four
                           else "resources.total_limit"]
    cfg[C_GARDEN] = v["garden.tokens_per_kind"]
    cfg[C_POSITIONS] = v["table.positions"]
    cfg[C_SWAP_POS] = v["table.swap_positions"]
    cfg[C_PER_COLOUR] = v["dice.per_colour"]
    cfg[C_N_DICE] = 3 * v["dice.per_colour"]
    cfg[C_N_CARDS], cfg[C_N_HOUSE], cfg[C_N_FOREST] = len(cards), len(house), len(forest)
    cfg[C_FOREST_DEALT] = v["forest.dealt"]
    cfg[C_REDEAL] = v["forest.redeal_allowed"]
    cfg[C_WAND_MAX] = v["wanderers.max"]
    cfg[C_ADV_TABLE] = v["advanced.colour_table"]
    cfg[C_RECOLOUR] = v["resources.recolour_cost"]
    cfg[C_PIP] = v["resources.pip_cost"]
    cfg[C_DRAW_OFFERED] = v["houses.draw_offered"]
    cfg[C_TWO_LARGE] = v["scoring.two_large"]
    cfg[C_FACE_UP] = v["missions.face_up"]
    cfg[C_MAX_TURNS] = v["max_turns"]  # the features' turn as a share of the cap
    cfg[C_FOREST_DONE] = v["scoring.forest_completed"]
    cfg[C_FOREST_FAIL] = v["scoring.forest_failed"]
    cfg[C_HOUSE_DONE] = v["scoring.house_completed"]
    cfg[C_HOUSE_FAIL] = v["scoring.house_failed_advanced" if v["advanced.scoring"]
                          else "scoring.house_failed_basic"]
    if n_players * cfg[C_PICKS] >= cfg[C_N_DICE]:
        raise SimkitError("dice.picks_*: the players' picks must leave the first player a die")
    if n_players * cfg[C_FOREST_DEALT] > len(forest):
        raise SimkitError("missions.forest: too few Forest cards to deal")
    if n_players * cfg[C_HOUSES_DEALT] + cfg[C_DRAW_OFFERED] > len(house):
        raise SimkitError("missions.house: too few House cards to deal")
    if cfg[C_RECOLOUR] + 5 * cfg[C_PIP] >= REACH_TOTALS:
        raise SimkitError("resources.*_cost: recolour + 5 pips must cost under 37 tokens")
    if cfg[C_HOUSE_LIMIT] > MAXH:
        raise SimkitError(f"houses.limit_*: at most {MAXH}")
    if cfg[C_HOUSE_LIMIT] < cfg[C_HOUSES_DEALT]:
        which = "two_players" if two else "more_players"
        raise SimkitError(f"houses.limit_{which} ({cfg[C_HOUSE_LIMIT]}) is below "
                          f"houses.dealt_{which} ({cfg[C_HOUSES_DEALT]}): a player may keep "
                          "every House card dealt at setup")
    fit1, fit2 = fit_tables(cards)
    req = np.zeros((len(cards), 2, 2, 3), np.int32)
    for i, (_, _, alts) in enumerate(cards):
        for a, marks in enumerate(alts):
            for k, m in enumerate(marks):
                req[i, a, k] = m
    return pack(
        cfg=cfg, cards=np.array([(s, c) for s, c, _ in cards], np.int32).reshape(-1, 2),
        fit1=fit1, fit2=fit2, house=np.array(house, np.int32).reshape(-1, 3),
        forest=np.array(forest, np.int32).reshape(-1, 5), clash=clash_table(forest, house),
        table=np.array(v["advanced.table"], np.int32),
        size_points=np.array(v["scoring.family_size_points"], np.int32), req=req,
        accept=accept_masks(fit1, fit2, cards),
        reach=reach_table(int(cfg[C_RECOLOUR]), int(cfg[C_PIP])))


def _slug(text: str) -> str:
    return "_".join(text.lower().replace("*", "any").split())


def item_columns_of(values: dict) -> list[str]:
    """The item columns of these data values, named after the cards by number (e.g.
    ``rabbit_22_small_spotted:acquired``, ``house_02_only_brown:completed``)."""
    return rules.item_columns(
        [f"rabbit_{i + 1:02d}_{c['size']}_{c['colour']}"
         for i, (_, c) in enumerate(rabbit_cards(values))],
        [f"house_{i + 1:02d}_{_slug(t)}" for i, (_, t) in enumerate(missions(values, "house"))],
        [f"forest_{i + 1}_{_slug(t)}" for i, (_, t) in enumerate(missions(values, "forest"))])


OUTCOME_EVENTS = frozenset({"failed", "drawn", "redealt", "in_family", "wandering",
                            "completed"})
"""Events that happen to a player: an attempt that failed, a house drawn, the forest
redealt, a rabbit in a family or wandering at the end, a mission completed or failed."""


def choice_columns(columns) -> list[str]:
    """A player's choices among a run's item columns: a die taken for a rabbit or for
    resources, a modification, a leftover die's use, the wanderers exchanged, housed or sent
    to the deck, the house discarded at setup, a rabbit acquired, a mission kept; every
    ``OUTCOME_EVENTS`` column is an outcome (NOTES.md)."""
    return [c for c in columns if c.partition(":")[2] not in OUTCOME_EVENTS]


ITEM_COLUMNS = item_columns_of({k: p.value for k, p in load_data(
    Path(__file__).parent / "data.toml").items()})


def _pick_label(move: int) -> str:
    """A pick of the dice: a die for resources, a die put on a rabbit as the face it counts
    as (after any change), or two Wanderers traded for a rabbit."""
    if move < rules.PLACE:
        return "die for resources"
    if move >= rules.EXCHANGE:
        return "trade two Wanderers for a rabbit"
    return f"die on a rabbit as {die((move - rules.PLACE) % N_FACES)}"


def move_label(params, n_players, move) -> str:
    """The decision log's name of a move (the encoding in rules.py), by action, and by die
    face, token or card place where the code says one, as the replay names them: "die on a
    rabbit as orange 3", "leftover die for its colour", "draw House cards", "pay 1 carrot",
    "keep Forest card 2". Which die, position or card lies there is the state's, not the
    code's, so a card chosen by its place in a hand reads by that place."""
    r = rules
    if 0 <= move < r.HOUSE:
        return _pick_label(move)
    for start, end, text in ((r.HOUSE, r.LEFT_COLOUR, "rabbit into House {}"),
                             (r.KEEP, r.WAND_ADD, "keep drawn House card {}"),
                             (r.WAND_ADD, r.WAND_DONE, "Wanderer {} into the new House"),
                             (r.F_KEEP, r.F_REDEAL, "keep Forest card {}"),
                             (r.H_DISCARD, r.H_KEEP_ALL, "discard dealt House card {}"),
                             (r.R_KEEP, r.PAY_TOKEN, "redeal: keep Forest card {}")):
        if start <= move < end:
            return text.format(move - start + 1)
    if r.LEFT_COLOUR <= move < r.LEFT_SWAP:
        return "leftover die for its colour"
    if r.LEFT_SWAP <= move < r.LEFT_PASS:
        return "leftover die for its pips: a rabbit swapped"
    if r.PAY_TOKEN <= move < r.N_MOVES:
        return f"pay 1 {TOKEN_NAMES[move - r.PAY_TOKEN]}"
    return {r.LEFT_PASS: "leftover die for its pips: no swap",
            r.DRAW_PASS: "draw no House card", r.DRAW_TAKE: "draw House cards",
            r.WAND_DONE: "keep the Wanderers waiting", r.F_REDEAL: "wait for the Forest redeal",
            r.H_KEEP_ALL: "keep all dealt House cards"}.get(move, f"move {move}")


GAME = GameSpec(
    name="dolina-krolikow",
    package_dir=Path(__file__).parent,
    rules=rules,
    players=(2, 3, 4),
    compile=compile_params,
    item_columns=ITEM_COLUMNS,
    item_columns_of=item_columns_of,
    choice_columns=choice_columns,
    remove_copy=CopiesRule(lists=(), fixed=(
        ("rabbit_", "each rabbit card is one of a kind in the deck (rabbits.cards), so it "
                    "has no second copy to remove; edit the list with --cards to try without "
                    "it"),
        ("house_", "each house mission is one of a kind (missions.house), so it has no "
                   "second copy to remove"),
        ("forest_", "each forest mission is one of a kind (missions.forest), so it has no "
                    "second copy to remove"))),
    end_reasons=rules.END_REASONS,
    describe_setup=describe_setup,
    describe_move=describe_move,
    describe_choice=describe_choice,
    move_label=move_label,
    check_state=check_state,
    summary="roll and pick dice to acquire rabbits, raise families, complete missions",
    # its heuristic is costly as a rollout (~23 us a decision when these were chosen; v2
    # costs about half of that): playouts cut after 12 decisions and scored by the
    # standing there, 150 iterations, ~45 ms a decision (NOTES.md, Search, Heuristic v2)
    search_knobs={"iterations": 600, "rollout_depth": 12, "cutoff": "progress",
                  "cutoff_scale": 1.0},
    # the root alone, by sequential halving over the model's 16 best moves with common
    # random numbers, heuristic playouts cut at 12 and scored by progress: the tree search
    # lost to the heuristic at every budget; this beats it (docs/search.md, NOTES.md)
    guided_knobs={"iterations": 1200, "halving": 16, "leaf_value": 0, "prior_once": 1},
    progress_unit="victory points (estimated)",
    phases=rules.PHASES,
    features=rules.FEATURES,
    # the stacks and the other seats' secret hands (NOTES.md, Determinisation): the rabbit
    # deck's order, the House cards and the Forest cards, each dealt from its own set. A
    # House or Forest card may also lie in a seat's draw or secret choice, which are not
    # declared: those pools are not complete
    hidden_zones=(HiddenZone("rabbit deck", DECK, MAXC),
                  HiddenZone("house stack", HSTACK, MAXHC, pool="house", complete=False),
                  HiddenZone("house hands", HOUSE_HAND, MAXP * 4, pool="house",
                             complete=False),
                  HiddenZone("forest pool", FPOOL, MAXF, pool="forest", complete=False),
                  HiddenZone("forest hands", FOREST_HAND, MAXP * 2, pool="forest",
                             complete=False)),
)
