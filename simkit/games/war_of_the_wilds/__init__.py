"""War of the Wilds: creatures, acorns and sixteen days (2 to 4 players).

Everything a designer may change is in ``data.toml``; ``compile_params`` turns it into the
kernels' arrays. The layout of a state and the move encoding are in ``state.py``.
"""

from pathlib import Path

import numpy as np

from simkit.cards import names_of, remember_names
from simkit.checks import CopiesRule
from simkit.data import fixed_records, load_data, records
from simkit.errors import SimkitError
from simkit.game import GameSpec, HiddenZone, plain_name

from . import rules, state
from .state import (
    C_AMOUNT,
    C_ANY,
    C_ATTACKS,
    C_BAND,
    C_COST,
    C_COUNT,
    C_EFFECT,
    C_FLY,
    C_HP,
    C_RANGED,
    C_STR,
    C_TARGETED,
    C_TRICK,
    C_WAITS,
    CARD,
    CARD_EVENTS,
    CREATURE_EFFECTS,
    DAY_NAMES,
    DAYD,
    DAYV,
    DECK0,
    EFFECTS,
    HOMES,
    IMMEDIATE_DAYS,
    MAX_CARDS,
    MAX_DAY_CARDS,
    MAX_HOMES,
    MAX_KINDS,
    N_CARD_COLS,
    N_DAY_KINDS,
    N_RULES,
    P_SIZE,
    R_ACORNS_PP,
    R_ARMY_LIMIT,
    R_BURY,
    R_DAYS,
    R_DEAL,
    R_DRAW,
    R_FIRST_A,
    R_FIRST_B,
    R_FIRST_GAME,
    R_FORAGE,
    R_GATHER,
    R_HAND_LIMIT,
    R_IT_AFF,
    R_IT_DAY,
    R_IT_HOME,
    R_KEEP,
    R_MAX_GET,
    R_MAX_GIVE,
    R_MAX_TURNS,
    R_N_HOMES,
    R_ND,
    R_NDAYS,
    R_NK,
    R_OFFERS_PT,
    R_RES_PER_KIND,
    R_ROW,
    R_SETUP_RES,
    R_SWAP_GIVE,
    RESOURCE_NAMES,
    TARGETED_EFFECTS,
    WORDS,
)
from .transcript import check_state, describe_choice, describe_move, describe_setup

PACKAGE_DIR = Path(__file__).parent


COST_FIELDS = [f"cost_{r}" for r in RESOURCE_NAMES] + ["cost_any"]


def card_table(values: dict) -> tuple[list[str], np.ndarray]:
    """The card kinds in list order and their int32[K, N_CARD_COLS] table."""
    rows = records(values, "cards")
    if not 1 <= len(rows) <= MAX_KINDS:
        raise SimkitError(f"cards: between 1 and {MAX_KINDS} card kinds, not {len(rows)}")
    table = np.zeros((len(rows), N_CARD_COLS), np.int32)
    for i, (name, c) in enumerate(rows):
        key = f"cards.{name}"
        words, ability = set(c["words"]), c["ability"]
        if not words <= WORDS:
            raise SimkitError(f"{key}.words: unknown words {sorted(words - WORDS)}; "
                              f"choices: {', '.join(sorted(WORDS))}")
        if ability not in EFFECTS:
            raise SimkitError(f"{key}.ability: unknown ability {ability!r}; choices: "
                              f"{', '.join(EFFECTS)}")
        trick = "trick" in words
        creature_only = ability in CREATURE_EFFECTS and ability != "none"
        if (trick and creature_only) or (not trick and ability not in CREATURE_EFFECTS):
            fits = sorted(set(EFFECTS) - CREATURE_EFFECTS) if trick else \
                [e for e in EFFECTS if e in CREATURE_EFFECTS]
            raise SimkitError(f"{key}.ability: {ability!r} does not fit a "
                              f"{'trick' if trick else 'creature'}; choices for one: "
                              f"{', '.join(fits)}")
        if not trick and c["health"] < 1:
            raise SimkitError(f"{key}.health: a creature needs health of at least 1")
        if trick and "relentless" in words:
            raise SimkitError(f"{key}.words: only a creature can be relentless")
        cost = [c[f] for f in COST_FIELDS]
        if min(c["count"], *cost, c["strength"], c["health"], c["amount"]) < 0:
            raise SimkitError(f"{key}: numbers must not be negative")
        table[i, C_COUNT] = c["count"]
        table[i, C_COST:C_COST + 4] = cost[:4]
        table[i, C_ANY] = cost[4]
        table[i, C_STR] = c["strength"]
        table[i, C_HP] = c["health"]
        table[i, C_FLY] = "flying" in words
        table[i, C_RANGED] = "ranged" in words
        table[i, C_BAND] = "band" in words
        table[i, C_WAITS] = "waits" in words
        table[i, C_TRICK] = trick
        table[i, C_EFFECT] = EFFECTS.index(ability)
        table[i, C_AMOUNT] = c["amount"]
        table[i, C_TARGETED] = ability in TARGETED_EFFECTS
        table[i, C_ATTACKS] = values["relentless_attacks"] if "relentless" in words else 1
    return [name for name, _ in rows], table


def home_kinds(values: dict) -> list[tuple[str, str]]:
    """The home cards, each its two resource kinds, in list order."""
    homes = []
    for row, h in records(values, "homes"):
        kinds = (h["first"], h["second"])
        if not set(kinds) <= set(RESOURCE_NAMES) or kinds[0] == kinds[1]:
            raise SimkitError(f"homes.{row}: a home shows two different kinds of "
                              f"{', '.join(RESOURCE_NAMES)}, not {' and '.join(kinds)}")
        homes.append(kinds)
    return homes


def home_names(homes: list[tuple[str, str]]) -> list[str]:
    """``berry_twig``...; a second home of the same two kinds is ``berry_twig_2``."""
    names: list[str] = []
    for kinds in homes:
        name = "_".join(kinds)
        names.append(name if name not in names else f"{name}_{names.count(name) + 1}")
    return names


def item_columns(card_names: list[str], homes: list[str]) -> list[str]:
    cols = [f"{c}:{e}" for c in card_names for e in CARD_EVENTS]
    cols += [f"day_{d}:seen" for d in DAY_NAMES]
    cols += [f"day_{DAY_NAMES[d]}:affected" for d in IMMEDIATE_DAYS]
    cols += [f"home_{h}:dealt" for h in homes]
    return cols


def item_columns_of(values: dict) -> list[str]:
    """The item columns of a game with these data values: its own card kinds and homes."""
    return item_columns(card_table(values)[0], home_names(home_kinds(values)))


def compile_params(values: dict, n_players: int) -> tuple:
    """Effective data values -> ``(flat,)``: every table of the game in the one int32 array
    the kernels read (layout in ``state.py``; ``state.tables`` gives Python its 2-D views).
    One array, not a tuple of tables: numba counts a reference for every array of the tuple
    at every kernel call, and that cost more than the game itself."""
    names, cards = card_table(values)
    deck = np.repeat(np.arange(len(names), dtype=np.int32), cards[:, C_COUNT])
    if len(deck) > MAX_CARDS:
        raise SimkitError(f"cards: the counts add up to {len(deck)}; at most {MAX_CARDS} "
                          "cards fit the deck")
    if len(deck) != values["deck_size"]:
        raise SimkitError(f"cards: the counts add up to {len(deck)}, but deck_size is "
                          f"{values['deck_size']} (change one: --set deck_size={len(deck)})")
    day_vals = np.full((N_DAY_KINDS, 4), -1, np.int32)
    day_deck = []
    days = fixed_records(values, "day_cards", DAY_NAMES, "day card")
    for d, name in enumerate(DAY_NAMES):
        day = days[name]
        day_vals[d, :3] = (day["count"], day["number"], day["second_number"])
        day_deck += [d] * day["count"]
    if not values["days"] <= len(day_deck) <= MAX_DAY_CARDS:
        raise SimkitError(f"day_cards: days = {values['days']} needs at least that many day "
                          f"cards (there are {len(day_deck)}, at most {MAX_DAY_CARDS})")
    homes = [[RESOURCE_NAMES.index(k) for k in kinds] for kinds in home_kinds(values)]
    if len(homes) < n_players:
        raise SimkitError(f"homes: {len(homes)} home cards for {n_players} players")
    first = values["first_game_cards"]
    for c in first:
        if c not in names:
            raise SimkitError(f"cards: first_game_cards names {c!r}, which is not one of the "
                              f"cards (keep it, or --set first_game_cards=[...])")
    n_items = len(names) * 5
    it_day = n_items
    it_aff = it_day + N_DAY_KINDS
    it_home = it_aff + len(IMMEDIATE_DAYS)
    for i, d in enumerate(IMMEDIATE_DAYS):
        day_vals[d, 3] = it_aff + i
    if values["setup.keep"] > values["setup.deal"] + 4 * values["setup.resources"]:
        raise SimkitError("setup.keep is more than the cards dealt and offered")
    r = np.zeros(N_RULES, np.int32)
    r[R_DAYS] = values["days"]
    r[R_HAND_LIMIT] = values["hand_limit"]
    r[R_SWAP_GIVE] = values["trade.swap_give"]
    r[R_GATHER] = values["actions.gather"]
    r[R_DRAW] = values["actions.draw"]
    r[R_FORAGE] = values["actions.forage"]
    r[R_BURY] = values["actions.bury"]
    r[R_ROW] = values["row_size"]
    r[R_DEAL] = values["setup.deal"]
    r[R_SETUP_RES] = values["setup.resources"]
    r[R_KEEP] = values["setup.keep"]
    r[R_ACORNS_PP] = values["acorns_per_player"]
    r[R_RES_PER_KIND] = values["resources_per_kind"]
    r[R_FIRST_GAME] = values["first_game"]
    r[R_OFFERS_PT] = values["trade.offers_per_turn"]
    r[R_MAX_GIVE] = values["trade.max_give"]
    r[R_MAX_GET] = values["trade.max_get"]
    r[R_ARMY_LIMIT] = values["army_limit"]
    r[R_MAX_TURNS] = values["max_turns"]  # for the features' turn fraction (no rule reads it)
    r[R_NK] = len(names)
    r[R_ND] = len(deck)
    r[R_NDAYS] = len(day_deck)
    r[R_FIRST_A] = names.index(first[0])
    r[R_FIRST_B] = names.index(first[1])
    r[R_IT_DAY] = it_day
    r[R_IT_AFF] = it_aff
    r[R_IT_HOME] = it_home
    r[R_N_HOMES] = len(homes)
    if len(homes) > MAX_HOMES:
        raise SimkitError(f"homes: at most {MAX_HOMES} home cards")
    day_deck = np.array(day_deck, np.int32)
    homes = np.array(homes, np.int32)
    flat = np.zeros(P_SIZE, np.int32)
    flat[:N_RULES] = r
    flat[CARD:CARD + cards.size] = cards.ravel()
    flat[DAYV:DAYV + day_vals.size] = day_vals.ravel()
    flat[HOMES:HOMES + homes.size] = homes.ravel()
    flat[DECK0:DECK0 + len(deck)] = deck
    flat[DAYD:DAYD + len(day_deck)] = day_deck
    remember_names(flat, "cards", names)
    return (flat,)


def kind_names(params) -> list[str]:
    """The names of the card kinds, in table order, of the data ``params`` was compiled
    from (the default data's for an array this process did not compile)."""
    return names_of(params[0], "cards", CARD_NAMES)


def choice_columns(columns) -> list[str]:
    """A player's choices among a run's item columns: a card played, a creature sent to
    attack or to block. Drawing a card (the deck, the Pedlar and the tricks mix with the
    row and the opening keep), a creature dying, the days and the home dealt are outcomes
    (NOTES.md, Items)."""
    return [c for c in columns if c.partition(":")[2] in ("played", "attacked", "blocked")
            and not c.startswith(("day_", "home_"))]


def item_name(item: str) -> str:
    """``boar`` -> "Boar", ``day_the_fox`` -> "Day: the fox", ``home_berry_twig`` ->
    "Home berry/twig"."""
    if item.startswith("day_"):
        return "Day: " + item[4:].replace("_", " ")
    if item.startswith("home_"):
        return "Home " + item[5:].replace("_", "/")
    return plain_name(item)


_DEFAULTS = {k: p.value for k, p in load_data(PACKAGE_DIR / "data.toml").items()}
CARD_NAMES = card_table(_DEFAULTS)[0]
"""The card kinds of the default data (a run's own are in its item columns)."""
ITEM_COLUMNS = item_columns_of(_DEFAULTS)

def _mix(g: int) -> str:
    return f"{g} of the home's second kind"


def _trade(kind: int) -> str:
    return "1 stored acorn" if kind == state.TRADE_ACORN else f"1 {RESOURCE_NAMES[kind]}"


def _fixed_label(move: int) -> str | None:
    """The moves whose code alone names them (no card kind, no place)."""
    s = state
    if move < s.DRAW:
        return f"gather ({_mix(move - s.GATHER)})"
    if s.BURY <= move < s.TAKE_ROW:
        n = move - s.BURY + 1
        return f"bury {n} acorn{'s' if n > 1 else ''}"
    if s.ATTACK <= move < s.NO_BLOCK:
        return "send to attack"
    if s.BLOCK <= move < s.ACCEPT:
        return f"block the attacker at army place {move - s.BLOCK + 1}"
    if s.TAKE_ROW <= move < s.TAKE_DECK:
        return f"take row card {move - s.TAKE_ROW + 1}"
    if s.ABILITY <= move < s.SWAP:
        return f"ability of army place {move - s.ABILITY + 1}"
    if s.SWAP <= move < s.OFFER_START:
        q, c = divmod(move - s.SWAP, 4)
        a, b = (RESOURCE_NAMES[r] for r in s.PAIRS[q])
        return f"swap {'2 ' + a if a == b else a + ' and ' + b} for 1 {RESOURCE_NAMES[c]}"
    if s.OFFER_START <= move < s.OFFER_ADD:
        return "begin an offer"
    if s.OFFER_ADD <= move < s.OFFER_MAKE:
        i = move - s.OFFER_ADD
        return f"offer {_trade(i)}" if i < s.N_TRADE_KINDS else \
            f"ask for {_trade(i - s.N_TRADE_KINDS)}"
    if s.RETURN_RES <= move < s.PLAY:
        return f"put back a {RESOURCE_NAMES[move - s.RETURN_RES]} card"
    if s.PAY_RES <= move < s.MIX:
        return f"pay 1 {RESOURCE_NAMES[move - s.PAY_RES]}"
    if s.MIX <= move < s.MAX_MOVES:
        return f"gather with an ability ({_mix(move - s.MIX)})"
    return {s.DRAW: "draw", s.DRAW_REFRESH: "refresh the row, then draw",
            s.FORAGE: "forage", s.TAKE_DECK: "take the deck's top card",
            s.END_PLAY: "done (end plays, or the turn)", s.STAY: "keep home",
            s.NO_BLOCK: "no block", s.BLOCK_FOX: "block the Fox",
            s.ACCEPT: "accept the offer", s.DECLINE: "decline the offer",
            s.OFFER_MAKE: "make the offer", s.OFFER_DROP: "withdraw the offer"}.get(move)


def move_label(params, n_players, move) -> str:
    """The decision log's name of a move (``state.py``'s encoding), by card and action as
    the replay names them, never by seat: "play Boar", "discard Hedgehog", "draw", "bury 2
    acorns", "swap berry and twig for 1 pebble". A move that picks a place (a row card, an
    army place) names the place, not the card lying there. ``DISCARD`` is also the setup's
    return of a card to the deck, and ``END_PLAY`` ends the plays, or the turn after the
    attacks: the log's phase tells them apart."""
    names = kind_names(params) if params is not None else CARD_NAMES

    def card(k: int) -> str:
        return names[k].replace("_", " ").title() if k < len(names) else f"card {k + 1}"

    if state.PLAY <= move < state.ABILITY:
        return f"play {card((move - state.PLAY) // 4)}"
    if state.DISCARD_CARD <= move < state.RETURN_RES:
        return f"discard {card(move - state.DISCARD_CARD)}"
    fixed = _fixed_label(move) if 0 <= move < state.MAX_MOVES else None
    return fixed or f"move {move}"


def hidden_zones(params: tuple, n_players: int) -> tuple[HiddenZone, ...]:
    """What a seat may not see (``rules.observe``): the deck and the other hands (counts
    by kind, less the cards the table saw go in, KNOWN), dealt from one set of cards, and
    the day cards not yet turned over."""
    from .state import DAY_ORDER, DECK, HAND, KNOWN, MAX_CARDS, MAX_KINDS, PLAYERS, PS

    hands = tuple(HiddenZone(f"hand of seat {s + 1}", PLAYERS + s * PS + HAND, MAX_KINDS,
                             counts=MAX_KINDS, known=PLAYERS + s * PS + KNOWN, pool="cards")
                  for s in range(n_players))
    return (HiddenZone("deck", DECK, MAX_CARDS, pool="cards"), *hands,
            HiddenZone("day cards", DAY_ORDER, 32))


GAME = GameSpec(
    name="war-of-the-wilds",
    package_dir=PACKAGE_DIR,
    rules=rules,
    players=(2, 3, 4),
    compile=compile_params,
    item_columns=ITEM_COLUMNS,
    item_columns_of=item_columns_of,
    choice_columns=choice_columns,
    remove_copy=CopiesRule(lists=(("", "cards"),), ties=("deck_size",),
                           fixed=(("day_", "a day card is one of the day deck's kinds, not a "
                                           "card a player holds"),
                                  ("home_", "a home card is dealt, one to each player"))),
    item_names=item_name,
    end_reasons=rules.END_REASONS,
    describe_setup=describe_setup,
    describe_move=describe_move,
    describe_choice=describe_choice,
    move_label=move_label,
    check_state=check_state,
    summary="raise woodland creatures, raid stores and bury the most acorns in 16 days",
    # random rollouts beat heuristic ones here, at half the cost (NOTES.md, Search)
    search_knobs={"rollout": "random"},
    guided_knobs={"iterations": 1000},  # ~23 ms a decision (docs/search.md)
    progress_unit="buried acorns (estimated)",
    phases=rules.PHASES,
    features=rules.FEATURES,
    move_features=rules.MOVE_FEATURES,
    strong="learned",  # NOTES.md, "Strong player": above the heuristic, fast enough
    hidden_zones=hidden_zones,
)
