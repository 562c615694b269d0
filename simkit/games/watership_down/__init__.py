"""Watership Down: the hlessil (rabbits, seat 1) against the elil (seat 0)."""

from pathlib import Path

import numpy as np

from simkit.cards import names_of, remember_names
from simkit.checks import CopiesRule
from simkit.data import fixed_records, records
from simkit.errors import SimkitError
from simkit.game import GameSpec, HiddenZone, plain_name

from . import rules
from .state import (
    CHAR_KEYS,
    CHAR_NAMES,
    D_BACK,
    D_FWD,
    D_SIDE,
    DIR_NAMES,
    ELIL,
    FIRST_JOINER,
    HAND_SIZE,
    HLESSIL,
    KIND_NAMES,
    LOC,
    M_CARD,
    M_CHAR,
    M_GIFT,
    M_NO,
    M_NOCARD,
    M_PASS,
    M_SPACE,
    M_YES,
    N_CHARS,
    N_JOINERS,
    N_RABBITS,
    N_SPACES,
    NAME_LEN,
    O_CARDS,
    O_CH,
    O_JOIN,
    O_LEVELS,
    O_NAMES,
    O_NB,
    O_NBM,
    O_SETUP,
    O_SP,
    PARAMS_SIZE,
)
from .transcript import (
    check_state,
    describe_choice,
    describe_move,
    describe_setup,
    space_names,
)


def _space(names, name, key):
    if name not in names:
        raise SimkitError(f"{key}: unknown space {name!r}; spaces: {', '.join(names)}")
    return names.index(name)


def board_layout(values):
    """The chosen layout's names, rows and neighbours: (names, rows, nb, sp, layout) with
    nb int32[2 sides, 3 directions, 16, 2] (-1 none; lower space numbers first) and sp
    int32[16, 3] (row, wooded, Watership Down)."""
    layout = values["board.layout"]
    key = f"board.{layout}.spaces"
    spaces = records(values, key)
    if not spaces:
        raise SimkitError(f"board.layout: no layout {layout!r} in data.toml")
    names = [name for name, _ in spaces]
    rows = [space["row"] for _, space in spaces]
    if len(names) != N_SPACES:
        raise SimkitError(f"{key}: the kernels take {N_SPACES} spaces ('The board consists of "
                          f"sixteen spaces'), not {len(names)}")
    ahead = {HLESSIL: [set() for _ in names], ELIL: [set() for _ in names]}
    side_of = [set() for _ in names]
    for a, (name, space) in enumerate(spaces):
        for there in space["ahead"]:
            b = _space(names, there, f"{key}.{name}.ahead")
            if rows[b] <= rows[a]:
                raise SimkitError(f"{key}.{name}.ahead: {there} must be in a higher row")
            ahead[HLESSIL][a].add(b)
            ahead[ELIL][b].add(a)
        for there in space["beside"]:
            b = _space(names, there, f"{key}.{name}.beside")
            if rows[a] != rows[b] or a == b:
                raise SimkitError(f"{key}.{name}.beside: {there} must be another space of "
                                  "its row")
            if name not in spaces[b][1]["beside"]:
                raise SimkitError(f"{key}.{name}.beside: {there} must name {name} beside it "
                                  "too (neighbours along a row are both ways)")
            side_of[a].add(b)
    nb = np.full((2, 3, N_SPACES, 2), -1, np.int32)
    for side in (HLESSIL, ELIL):          # errors in the hlessil's terms, as data.toml
        for a in range(N_SPACES):
            for d, there in ((D_FWD, ahead[side][a]), (D_BACK, ahead[1 - side][a]),
                             (D_SIDE, side_of[a])):
                if len(there) > 2:
                    where = {D_FWD: ".ahead", D_SIDE: ".beside"}.get(d, "")
                    raise SimkitError(f"{key}.{names[a]}{where}: more than two "
                                      f"{DIR_NAMES[d]} neighbours (the kernels take two)")
                nb[side, d, a, :len(there)] = sorted(there)
    sp = np.zeros((N_SPACES, 3), np.int32)
    sp[:, 0] = rows
    sp[:, 1] = [space["wooded"] for _, space in spaces]
    for w in values["board.watership_down"]:
        sp[_space(names, w, "board.watership_down"), 2] = 1
    return names, rows, nb, sp, layout


def encode_names(names):
    """Space names as code points, NAME_LEN a space, for the transcript (kernels never
    read them)."""
    out = np.zeros((N_SPACES, NAME_LEN), np.int32)
    for i, name in enumerate(names):
        if len(name) > NAME_LEN:
            raise SimkitError(f"board: space name {name!r} is longer than {NAME_LEN}")
        out[i, :len(name)] = [ord(ch) for ch in name]
    return out


def compile_params(values: dict, n_players: int) -> tuple:
    """Effective data values -> (table,): one flat int32 table laid out in ``state.py``."""
    names, rows, nb, sp, layout = board_layout(values)
    down = [i for i in range(N_SPACES) if sp[i, 2]]
    if len(down) != 2 or rows[down[0]] != rows[down[1]]:
        raise SimkitError("board.watership_down must name two spaces of one row (the middle)")
    middle = rows[down[0]]
    sandleford = _space(names, values["board.hlessil_home"], "board.hlessil_home")
    efrafa = _space(names, values["board.elil_home"], "board.elil_home")
    if values["board.home_count"] != 4:
        raise SimkitError("board.home_count: the setup places the rest one per side space; "
                          "only 4 fits nine characters and six spaces a side")
    g = np.array([
        efrafa, sandleford, down[0], down[1], values["board.down_bonus"],
        values["abilities.strawberry_down_strength"], values["abilities.dog_wood_strength"],
        values["abilities.fox_wood_strength"], values["abilities.pipkin_bonus"],
        values["abilities.fiver_with_hazel_strength"], values["abilities.snare_group_strength"],
        values["board.wood_cap"], values["rules.warren_rabbits"],
        values["rules.elil_win_defeated"], values["board.home_count"],
        int(values["cards.refill_when_empty"]), int(values["rules.warren_check_every_turn"]),
        int(sum(1 << i for i in range(N_SPACES) if sp[i, 1])),
        int(values["cards.optional"]), values["cards.gift_bonus"],
        int(values["abilities.blackberry_snare_on_his_space"]), middle, values["max_turns"],
    ], np.int32)
    ch = np.zeros((N_CHARS, 4), np.int32)
    rabbits = fixed_records(values, "hlessil", CHAR_KEYS[:N_RABBITS], "rabbit")
    elil = fixed_records(values, "elil", CHAR_KEYS[N_RABBITS:], "elil")
    if elil["snare"]["strength"] != 0:
        raise SimkitError("elil.snare.strength: the Snare has no strength ('with the "
                          "exception of the Snare'); keep it 0")
    for c, key in enumerate(CHAR_KEYS):
        side = HLESSIL if c < N_RABBITS else ELIL
        char = rabbits[key] if side == HLESSIL else elil[key]
        ch[c, 0] = char["strength"]
        ch[c, 1] = side
        ch[c, 2] = int(char.get("doe", False))
        ch[c, 3] = int(char.get("starts", True))
    if ch[:N_RABBITS, 3].sum() != 9 or ch[N_RABBITS:, 3].sum() != 9:
        raise SimkitError("hlessil: exactly nine rabbits start the game (starts = true), not "
                          f"{ch[:N_RABBITS, 3].sum()}")
    cards = np.zeros((2, 11, 2), np.int32)
    for side, key in ((HLESSIL, "hlessil"), (ELIL, "elil")):
        hand = battle_cards(values, key)
        for k, (name, card) in enumerate(hand):
            if card["kind"] not in KIND_NAMES:
                raise SimkitError(f"cards.{key}.{name}.kind: unknown kind {card['kind']!r}; "
                                  f"choices: {', '.join(KIND_NAMES)}")
            cards[side, k] = (KIND_NAMES.index(card["kind"]), card["value"])
    joiners = fixed_records(values, "joining", CHAR_KEYS[FIRST_JOINER:N_RABBITS], "joiner")
    join = np.zeros((N_JOINERS, 3), np.int32)
    for j in range(N_JOINERS):
        key = CHAR_KEYS[9 + j]
        trig, appear = joiners[key]["trigger"], joiners[key]["appears"]
        if trig == "escape":
            join[j, :2] = (rules.JOIN_ESCAPE, 0)
        elif trig == "defeat_elil":
            join[j, :2] = (rules.JOIN_DEFEAT, 0)
        elif trig == "defeat_elil_attacking":
            join[j, :2] = (rules.JOIN_DEFEAT_ATTACKING, 0)
        elif trig == "enter:down":
            join[j, :2] = (rules.JOIN_ENTER, (1 << down[0]) | (1 << down[1]))
        elif trig.startswith("enter:"):
            join[j, :2] = (rules.JOIN_ENTER, 1 << _space(names, trig[6:], f"joining.{key}.trigger"))
        else:
            raise SimkitError(f"joining.{key}.trigger: {trig!r} is not enter:<space>, "
                              "enter:down, escape, defeat_elil or defeat_elil_attacking")
        join[j, 2] = -1 if appear == "trigger" else _space(names, appear,
                                                           f"joining.{key}.appears")
    setup = np.zeros((2, 5), np.int32)
    for side, home, below in ((HLESSIL, sandleford, True), (ELIL, efrafa, False)):
        own = [i for i in range(N_SPACES) if (rows[i] < middle) == below
               and rows[i] != middle and i != home]
        if (rows[home] < middle) != below or rows[home] == middle or len(own) != 5:
            raise SimkitError(f"board.{layout}: each side of the middle row must have six "
                              "spaces, its home and five more (the setup)")
        setup[side] = own
    nbmask = np.zeros((2, 3, N_SPACES), np.int32)
    for k in range(2):
        hit = nb[:, :, :, k] >= 0
        nbmask[hit] |= (1 << nb[:, :, :, k][hit]).astype(np.int32)
    table = np.zeros(PARAMS_SIZE, np.int32)
    table[O_LEVELS:O_LEVELS + N_SPACES] = warren_levels(nb, down, efrafa)
    for key in ("hlessil", "elil"):
        remember_names(table, f"cards.{key}", [name for name, _ in battle_cards(values, key)])
    table[:len(g)] = g
    for off, arr in ((O_NB, nb), (O_NBM, nbmask), (O_SP, sp), (O_CH, ch), (O_CARDS, cards),
                     (O_JOIN, join), (O_SETUP, setup), (O_NAMES, encode_names(names))):
        table[off:off + arr.size] = arr.ravel()
    return (table,)


def warren_levels(nb, down, efrafa):
    """The spaces ``n`` forward moves of the hlessil from a Down space or Efrafa (whose
    escape may land on the Down), as a bitmask for each ``n``; 0 past the last."""
    levels = np.zeros(N_SPACES, np.int64)
    done = 0
    reach = (1 << down[0]) | (1 << down[1]) | (1 << efrafa)
    for n in range(N_SPACES):
        levels[n] = reach & ~done
        done = reach
        reach |= sum(1 << s for s in range(N_SPACES)
                     if any(t >= 0 and (done >> t) & 1 for t in nb[HLESSIL, D_FWD, s]))
        if reach == done:
            break
    return levels


def battle_cards(values: dict, side: str) -> list[tuple[str, dict]]:
    """The battle cards of one side's hand (``side`` "hlessil" or "elil"), in hand order."""
    hand = records(values, f"cards.{side}")
    if len(hand) != HAND_SIZE:
        raise SimkitError(f"cards.{side}: 'a hand of nine cards', not {len(hand)} (the "
                          "kernels take nine)")
    return hand


def card_names(params, side: str) -> list[str]:
    """The battle cards' names of one side, in hand order, of the data ``params`` came from."""
    return names_of(params[0], f"cards.{side}", rules.H_CARDS if side == "hlessil"
                    else rules.E_CARDS)


def item_columns_of(values: dict) -> list[str]:
    """The item columns of these data values: the battle cards under their own names."""
    return rules.item_columns([n for n, _ in battle_cards(values, "hlessil")],
                              [n for n, _ in battle_cards(values, "elil")])


CHOSEN_ABILITIES = frozenset({
    "hazel_group", "fiver_hazel", "blackberry_replay", "dandelion_double", "pipkin_reveal",
    "holly_look", "hyzenthlay_retreat", "blackavar_retreat", "cat_no_cards", "kestrel_far",
    "woundwort_any_direction", "down_cross_attack", "el_ahrairah", "gift_to_the_thousand"})
"""The abilities a player chooses to use (a move, a yes to the rules' question); the others
strike by themselves when their moment comes (Bigwig and Vervain first, Silver against the
rats, Kehaar's return, the Tracker, the Flaming Stick, the Snare, an escape from Efrafa)."""


def choice_columns(columns) -> list[str]:
    """A player's choices among a run's item columns: a battle card played and an ability
    used by choice (``CHOSEN_ABILITIES``). A card won or lost with, a character entering
    play (every starting one does at setup, a joiner when the game lets it), defeated,
    joining or reaching the Down are outcomes (NOTES.md)."""
    out = []
    for c in columns:
        item, _, event = c.partition(":")
        if (event == "played" and item.startswith("card_")
                or event == "used" and item in CHOSEN_ABILITIES):
            out.append(c)
    return out


def item_name(item: str) -> str:
    """``card_hlessil_3`` -> "Hlessil card 3", ``card_elil_flaming_stick`` -> "Elil card
    flaming stick"; characters and abilities in words ("Hazel group")."""
    for side in ("hlessil", "elil"):
        if item.startswith(f"card_{side}_"):
            return f"{side.capitalize()} card {item[len(side) + 6:].replace('_', ' ')}"
    return plain_name(item)



def _card_label(params, k: int) -> str:
    """Hand place ``k``'s card, by name: "5" when both hands hold the same card there,
    else both ("6 (elil) or Retreat Backward (hlessil)"): a code does not say whose hand."""
    names = [card_names(params, side) if params is not None else default
             for side, default in (("elil", rules.E_CARDS), ("hlessil", rules.H_CARDS))]
    elil, hlessil = (n[k].replace("_", " ").title() if k < len(n) else f"card {k + 1}"
                     for n in names)
    return elil if elil == hlessil else f"{elil} (elil) or {hlessil} (hlessil)"


def move_label(params, n_players, move) -> str:
    """The decision log's name of a move (``state.py``'s encoding), by character, card and
    space as the replay names them, never by where a character comes from: "move Bigwig",
    "play 5", "choose Efrafa", "yes". A move code is one character's move whatever the
    step (a move, Dandelion's second, a retreat): the log's phase tells them apart."""
    def space(s: int) -> str:
        return space_names(params)[s] if params is not None else f"space {s + 1}"

    if M_GIFT <= move < M_GIFT + N_CHARS * N_SPACES:
        return f"move {CHAR_NAMES[(move - M_GIFT) // N_SPACES]} with Gift to the Thousand"
    if 0 <= move < N_CHARS * N_SPACES:
        return f"move {CHAR_NAMES[move // N_SPACES]}"
    if M_SPACE <= move < M_SPACE + N_SPACES:
        return f"choose {space(move - M_SPACE)}"
    if M_CARD <= move < M_NOCARD:
        return f"play {_card_label(params, move - M_CARD)}"
    if M_CHAR <= move < M_CHAR + N_CHARS:
        return f"choose {CHAR_NAMES[move - M_CHAR]}"
    named = {M_NOCARD: "play no card", M_NO: "no", M_YES: "yes", M_PASS: "pass"}
    return named.get(move, f"move {move}")


GAME = GameSpec(
    name="watership-down",
    package_dir=Path(__file__).parent,
    rules=rules,
    players=(2,),
    compile=compile_params,
    item_columns=rules.ITEM_COLUMNS,
    item_columns_of=item_columns_of,
    choice_columns=choice_columns,
    remove_copy=CopiesRule(lists=(), fixed=(
        ("card_", "each side's hand holds one of each of its nine battle cards, so no copy "
                  "can be removed (replace the card with --cards to try another)"),)),
    item_names=item_name,
    seat_names=lambda n: ["elil", "hlessil"],
    end_reasons=rules.END_REASONS,
    describe_setup=describe_setup,
    describe_move=describe_move,
    describe_choice=describe_choice,
    move_label=move_label,
    check_state=check_state,
    summary="hlessil against elil: hidden identities, secret battle cards, a warren to found",
    progress_unit="share of the way to a win",
    phases=rules.PHASES,
    features=rules.FEATURES,
    strong="learned",  # NOTES.md, "Strong player": above the heuristic, fast enough
    # the opponent's unseen characters are dealt to its unseen tokens: the space of each
    # (NOTES.md, Determinisation); the face-down battle card is one slot
    hidden_zones=(HiddenZone("characters' spaces", LOC, N_CHARS),),
    guided_knobs={"iterations": 800},  # ~27 ms a decision (docs/search.md)
)
