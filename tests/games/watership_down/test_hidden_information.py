"""Hidden information: what ``observe`` shows each seat, on hand-built and random states.

What this game hides from a seat: which of the opponent's tokens is which character (until
revealed, and again after a shuffle), the card the hlessil play face down before the reveal,
who moved, and whether Holly moved. What it shows and keeps showing: token counts, every
revealed card (a revealed card stays out of its hand until the hand comes back), the two
battlers of a fight, a revealed token for as long as it is not mixed with another of its
side on its space, and after the shuffle its space (SEEN_AT) until a token the seat cannot
name leaves that space.

Three checks on every decision of random games:
- changing what a seat has not seen (relabelling the opponent's unknown tokens, the
  face-down card, the hidden flags) leaves its observation unchanged;
- two secret choices the opponent cannot tell apart (each placement at setup, each
  face-down card, moves of different unknown tokens between the same spaces, which
  unknown rabbits go along with Hazel) lead to the same observation when the opponent
  next decides;
- what a seat was shown stays in its observation as long as the table shows it.
"""

import numpy as np
import pytest

from simkit.game import HIDDEN
from simkit.games.watership_down import rules
from simkit.games.watership_down.state import (
    CARD_E,
    CARD_H,
    CARDS_OPEN,
    CNT,
    DECIDER,
    DEF,
    DOWN_SEEN,
    ELIL,
    ELIL_FIRST,
    HAND,
    HLESSIL,
    HOLLY_LOOK,
    IN_PLAY,
    KNOWN,
    LOC,
    LOCK,
    M_CARD,
    M_GIFT,
    MOVER,
    N_CARDS,
    N_CHARS,
    N_RABBITS,
    N_SPACES,
    P_CARD,
    P_DAND,
    P_MOVE,
    P_SETUP,
    PHASE,
    ROUND,
    SEEN_AT,
    SIDE,
    STAT,
    STATE_SIZE,
)
from simkit.rng import game_seeds, seed_streams

from .helpers import (
    EFRAFA,
    ENBORNE,
    HEATHER,
    NEWTOWN,
    NUTHANGER,
    RIVER,
    ROAD,
    SAND,
    SPEC,
    C,
    P,
    card,
    mv,
    params,
    play,
    position,
)

N_GAMES = 100
LAYOUTS = list(SPEC.data["board.layout"].choices)


def observe(params, st, seat):
    obs = np.empty_like(st)
    rules.observe(params, st, seat, obs)
    return obs


def side_chars(side):
    return range(N_RABBITS) if side == HLESSIL else range(N_RABBITS, N_CHARS)


def legal(params, st):
    moves = np.empty(rules.MAX_MOVES, np.int32)
    return moves[:rules.legal_moves(params, st, moves)].tolist()


def random_games(params, n_games, seed):
    """Yield (state, chance, move) before every decision of seeded random games; the move
    is the one about to be played. The state and stream are live: copy to keep them."""
    rng = np.random.default_rng(seed)
    items = np.zeros((2, len(rules.ITEM_COLUMNS)), np.int32)
    for gs in game_seeds(seed, 0, n_games):
        streams = np.empty(3, np.uint64)
        seed_streams(np.uint64(gs), 2, streams)
        chance = streams[0:1]
        st = np.empty(STATE_SIZE, np.int32)
        rules.new_game(params, 2, st, chance)
        while not rules.is_over(st):
            moves = legal(params, st)
            move = moves[rng.integers(len(moves))]
            yield st, chance, move
            rules.apply_move(params, st, move, chance, items)
        yield st, chance, -1


def run_until(params, st, chance, move, viewer):
    """Play ``move`` on copies, then the mover's side's first legal option (M_PASS sorts
    first: no companions, no second move, no look) until ``viewer`` decides; its view then,
    or None when the game ended."""
    st, ch = st.copy(), chance.copy()
    items = np.zeros((2, len(rules.ITEM_COLUMNS)), np.int32)
    rules.apply_move(params, st, move, ch, items)
    while not rules.is_over(st) and rules.to_move(st) != viewer:
        rules.apply_move(params, st, legal(params, st)[0], ch, items)
    return None if rules.is_over(st) else observe(params, st, viewer)


def relabel_unknown(st, side, rng):
    """The same table with the identities of ``side``'s unknown tokens shuffled (those
    the opponent still knows the space of, SEEN_AT, stay)."""
    unknown = [c for c in side_chars(side) if st[STAT + c] == IN_PLAY and st[KNOWN + c] == 0
               and st[SEEN_AT + c] < 0]
    assert all(st[LOCK + c] == 0 for c in unknown)
    new = st.copy()
    perm = rng.permutation(unknown)
    for c, d in zip(unknown, perm, strict=True):
        new[LOC + d] = st[LOC + c]
        if st[MOVER] == c:
            new[MOVER] = d
    return new


def indistinguishable_choices(params, st):
    """Groups of moves by the decider that its opponent cannot tell apart."""
    seat, ph = int(st[DECIDER]), int(st[PHASE])
    moves = legal(params, st)
    if ph == P_SETUP:
        return [moves]
    if ph == P_CARD and st[ELIL_FIRST] == 0 and st[ROUND] & (4 if seat == HLESSIL else 2) == 0:
        return [moves]                    # the first card, face down
    if ph not in (P_MOVE, P_DAND):
        return []
    groups = {}
    for m in moves:
        if m >= M_GIFT or m >= rules.M_SPACE:
            continue
        c, t = divmod(m, 16)
        quiet = st[CNT + (1 - seat) * N_SPACES + t] == 0     # no battle, no busy Snare
        if st[KNOWN + c] == 0 and quiet:
            groups.setdefault((int(st[LOC + c]), t), []).append(m)
    return [g for g in groups.values() if len(g) > 1]


# ---- the face-down card -----------------------------------------------------------------

def test_the_face_down_card_cannot_be_read():
    """Each of the hlessil's nine first cards leaves the elil the same view (the defect:
    the card left the hand at once, so the hand showed which it was)."""
    st = position(HLESSIL, buckthorn=ROAD, fox=NUTHANGER, woundwort=EFRAFA)
    play(st, mv("buckthorn", NUTHANGER))
    while st[PHASE] != P_CARD:
        play(st, legal(P, st)[0])
    assert st[DECIDER] == HLESSIL and len(legal(P, st)) == 9
    views = []
    for m in legal(P, st):
        s = st.copy()
        play(s, m)
        assert s[DECIDER] == ELIL and s[CARD_H] == m - M_CARD
        views.append(observe(P, s, ELIL))
    assert all(np.array_equal(views[0], v) for v in views[1:])
    assert views[0][CARD_H] == HIDDEN
    assert all(views[0][HAND + HLESSIL * N_CARDS + k] == 1 for k in range(9))


def test_revealed_cards_leave_the_hand_and_show():
    st = position(HLESSIL, buckthorn=ROAD, fox=NUTHANGER, woundwort=EFRAFA)
    play(st, mv("buckthorn", NUTHANGER))
    play(st, card(4))                     # 3 + 5 beats the Fox's 3 + 1
    play(st, card(0))
    for seat in (ELIL, HLESSIL):
        o = observe(P, st, seat)
        assert o[HAND + HLESSIL * N_CARDS + 4] == 0 and o[HAND + ELIL * N_CARDS + 0] == 0
        assert sum(o[HAND + HLESSIL * N_CARDS + k] for k in range(9)) == 8


# ---- random states ----------------------------------------------------------------------

@pytest.fixture(params=LAYOUTS)
def board(request):
    """The params of each board layout: the random-state tests play on all of them."""
    return params(**{"board.layout": request.param})


def test_unseen_parts_can_change_without_changing_the_view(board):
    P = board
    rng = np.random.default_rng(11)
    n_relabels = n_cards = 0
    for st, _, _ in random_games(P, N_GAMES, 21):
        if rules.is_over(st):
            continue
        for seat in (ELIL, HLESSIL):
            base = observe(P, st, seat)
            other = relabel_unknown(st, 1 - seat, rng)
            n_relabels += not np.array_equal(other, st)
            assert np.array_equal(observe(P, other, seat), base)
            other = st.copy()
            other[DOWN_SEEN] = rng.integers(1 << 20)
            if seat == ELIL:
                other[HOLLY_LOOK] = 1 - st[HOLLY_LOOK]
            assert np.array_equal(observe(P, other, seat), base)
        if st[PHASE] == P_CARD and st[DECIDER] == ELIL and st[ELIL_FIRST] == 0 \
                and st[CARDS_OPEN] == 0 and st[CARD_H] >= 0:
            base = observe(P, st, ELIL)
            for k in range(9):
                if st[HAND + HLESSIL * N_CARDS + k] == 1:
                    other = st.copy()
                    other[CARD_H] = k
                    n_cards += k != st[CARD_H]
                    assert np.array_equal(observe(P, other, ELIL), base)
    assert n_relabels > 1000 and n_cards > 50, (n_relabels, n_cards)


def test_secret_choices_look_alike_to_the_opponent(board):
    P = board
    counts = {P_SETUP: 0, P_CARD: 0, P_MOVE: 0}
    for st, chance, _ in random_games(P, N_GAMES, 22):
        if rules.is_over(st):
            continue
        viewer = 1 - int(st[DECIDER])
        for group in indistinguishable_choices(P, st):
            views = [v for v in (run_until(P, st, chance, m, viewer) for m in group)
                     if v is not None]
            for v in views[1:]:
                assert np.array_equal(v, views[0]), (int(st[PHASE]), group)
            counts[P_MOVE if st[PHASE] == P_DAND else int(st[PHASE])] += len(views) > 1
    assert all(n > 20 for n in counts.values()), counts


def companion_choices(params, st):
    """The hlessil's choices of which unknown rabbit goes along with Hazel, which the elil
    cannot tell apart (a move of several tokens is made of them), when nothing on Hazel's
    space tells them apart either (the busy Snare falls to Blackberry or to a group of
    six, and shows who is there)."""
    if st[PHASE] != rules.P_GROUP:
        return []
    if st[rules.ENSNARED] >= 0 and st[LOC + rules.SNARE] == st[LOC + rules.HAZEL]:
        return []
    group = [m for m in legal(params, st)
             if m >= rules.M_CHAR and st[KNOWN + m - rules.M_CHAR] == 0]
    return [group] if len(group) > 1 else []


def test_which_unknown_rabbit_goes_along_with_hazel_looks_alike_to_the_elil(board):
    """As for single moves, the choice among the unknown rabbits that go along with Hazel
    leaves the elil's view (SEEN_AT included) the same when they next decide. (Not so for
    the Flaming Stick's retreats: a rabbit left without a retreat is defeated, and shown.)"""
    P = board
    n = 0
    for st, chance, _ in random_games(P, 3 * N_GAMES, 24):
        if rules.is_over(st):
            continue
        for group in companion_choices(P, st):
            views = [v for v in (run_until(P, st, chance, m, ELIL) for m in group)
                     if v is not None]
            for v in views[1:]:
                assert np.array_equal(v, views[0]), group
            n += len(views) > 1
    assert n > 20, n


def test_a_mixed_characters_space_is_known_until_an_unseen_token_leaves_it():
    """Woundwort, revealed on the Road, is joined by the Kestrel, unknown: the shuffle at
    the turn's end hides which token is he, not where he is. The hlessil's view keeps his
    space (SEEN_AT, while LOC is hidden) through moves elsewhere, and loses it when one of
    the two tokens on the Road moves: either may have gone."""
    st = position(ELIL, woundwort=ROAD, kestrel=NUTHANGER, fox=EFRAFA, buckthorn=SAND)
    st[KNOWN + C["woundwort"]] = 1
    play(st, mv("kestrel", ROAD))
    assert st[SIDE] == HLESSIL and st[KNOWN + C["woundwort"]] == 0
    o = observe(P, st, HLESSIL)
    assert o[LOC + C["woundwort"]] == HIDDEN and o[SEEN_AT + C["woundwort"]] == ROAD
    assert o[SEEN_AT + C["kestrel"]] == -1          # never known: nothing to keep
    assert not SPEC.check_state(P, 2, st)
    play(st, mv("buckthorn", ENBORNE))
    play(st, mv("fox", RIVER))                       # an unknown token elsewhere moves
    assert observe(P, st, HLESSIL)[SEEN_AT + C["woundwort"]] == ROAD
    play(st, mv("buckthorn", HEATHER))
    play(st, mv("kestrel", NEWTOWN))                 # one of the Road's two tokens goes
    assert observe(P, st, HLESSIL)[SEEN_AT + C["woundwort"]] == -1
    assert not SPEC.check_state(P, 2, st)


def test_the_only_unseen_token_leaving_a_space_is_seen_to_go():
    """Woundwort's space is known (SEEN_AT) and the other token there, the Kestrel, is
    known: when a token the hlessil cannot name leaves the Road it is Woundwort, and his
    new space is known."""
    st = position(ELIL, woundwort=ROAD, kestrel=ROAD, fox=EFRAFA, buckthorn=SAND)
    st[SEEN_AT + C["woundwort"]] = ROAD
    st[KNOWN + C["kestrel"]] = 1
    play(st, mv("woundwort", NEWTOWN))
    o = observe(P, st, HLESSIL)
    assert o[LOC + C["woundwort"]] == HIDDEN and o[SEEN_AT + C["woundwort"]] == NEWTOWN


def test_what_was_shown_stays_shown_as_long_as_the_table_shows_it(board):
    """A revealed card stays out of its hand until the hand comes back; a revealed token
    stays known until it shares its space with another token of its side (a shuffle);
    both battlers of a fight and both revealed cards are seen."""
    P = board
    prev = {ELIL: None, HLESSIL: None}
    revealed = {ELIL: set(), HLESSIL: set()}
    n_kept = n_battles = 0
    for st, _, move in random_games(P, N_GAMES, 23):
        for seat in (ELIL, HLESSIL):
            o = observe(P, st, seat)
            for side in (ELIL, HLESSIL):
                shown = [int(o[HAND + side * N_CARDS + k]) for k in range(9)]
                assert shown == [0 if k in revealed[side] else 1 for k in range(9)]
            if st[CARDS_OPEN] == 1:
                assert o[CARD_H] == st[CARD_H] and o[CARD_E] == st[CARD_E]
            a, d, b = int(st[rules.ATT]), int(st[DEF]), int(st[rules.BSPACE])
            if (move >= 0 and a >= 0 and d >= 0 and b >= 0
                    and rules.alive_at(st, a, b) and rules.alive_at(st, d, b)):
                assert o[LOC + a] == st[LOC + a] and o[LOC + d] == st[LOC + d]
                n_battles += 1
            before = prev[seat]
            for c in side_chars(1 - seat):
                if before is None or before[LOC + c] < 0 or st[STAT + c] != IN_PLAY:
                    continue
                if o[LOC + c] == HIDDEN:
                    mates = [x for x in side_chars(1 - seat) if x != c
                             and st[STAT + x] == IN_PLAY and st[LOC + x] == st[LOC + c]]
                    assert mates, f"{c} was seen and is hidden again, alone on its space"
                else:
                    n_kept += 1
            prev[seat] = None if move < 0 else o
        if move < 0:
            revealed = {ELIL: set(), HLESSIL: set()}
            continue
        seat = int(st[DECIDER])
        if st[PHASE] == P_CARD and st[ROUND] & (4 if seat == HLESSIL else 2) != 0:
            cards = {seat: move - M_CARD, 1 - seat: int(st[CARD_E if seat == HLESSIL
                                                            else CARD_H])}
            for side, k in cards.items():
                if 0 <= k < 9:
                    revealed[side].add(k)
                    if len(revealed[side]) == 9:      # the last card: the hand comes back
                        revealed[side] = set()
    assert n_kept > 1000 and n_battles > 200, (n_kept, n_battles)
