"""Hidden information on random mid-game states (NOTES.md: Hidden information, What a seat
remembers). Random games are played with the kernels and stopped at random points; for
every seat still in the game:

- dealing again everything the seat has not seen (other hands, face-down cards, the pile's
  order), consistently with what it remembers, leaves its observation unchanged and its
  memory sound;
- the next move of another seat, played in both worlds, leaves its observations equal: the
  memory follows what the seat sees, never the cards themselves;
- it always knows at least what plain bookkeeping of what it was shown says is certain (a
  seen hand loses one certain card per card laid or put back, none per card drawn)."""

import numpy as np
import pytest
from rh_table import Table

from simkit.games.rabbit_hunt import memory as M
from simkit.games.rabbit_hunt import rules as R
from simkit.games.rabbit_hunt import state as S
from simkit.games.rabbit_hunt.transcript import conservation_problems, memory_problems

B = S.BUNNY


def curious_move(t, rng):
    """A random legal move, but one that saves carrots for a look at a hand, looks, and puts
    cards back after one, half of the times it can: uniform play seldom has the 3 carrots
    (every reachable card being a move, it spends them)."""
    legal = t.legal()
    looks = [m for m in legal if m >> 16 in (S.M_LOOK, S.M_RETURN)]
    if rng.random() < 0.5:
        if looks:
            return looks[rng.integers(len(looks))]
        if S.M_CARROT << 16 in legal:
            return S.M_CARROT << 16
    return legal[rng.integers(len(legal))]


def random_stops(n, games, stops, seed):
    """``stops`` tables per random game: copies of it at random decisions."""
    rng = np.random.default_rng(seed)
    for game in range(games):
        t = Table(n, seed=seed * 1000 + game)
        when = set(rng.integers(1, 60 + 30 * n, stops).tolist())  # games last 100-220
        decision = 0
        while t[S.END] == S.RUNNING:
            t.apply(curious_move(t, rng), check_legal=False)
            decision += 1
            if decision in when and t[S.END] == S.RUNNING:
                yield copy_table(t), rng


def copy_table(t):
    c = Table.__new__(Table)
    c.__dict__.update(t.__dict__)
    c.st, c.chance, c.items = t.st.copy(), t.chance.copy(), t.items.copy()
    return c


# ------------------------------------------------------------------ another world
def places_unseen_by(t, v):
    """Every card v cannot see, as (where, index, group row or -1 for none): 'hand' places
    of the other seats, face-down cards v has not seen, pile cards it did not put back."""
    places = []
    for o in range(t.n):
        if o != v:
            places += [("hand", o, o)] * t.hand_total(o)
    for c in range(t.n_cells):
        card = t.card(c)
        if card in (S.NO_CARD, S.WAREHOUSE) or t.up(c) or (t.seen(c) >> v) & 1:
            continue
        places.append(("cell", c, M.tag_of(t.tags(c), v) - 1))
    for i in range(t[S.PILE_LEN]):
        tag = M.tag_of(t[S.PILE_TAGS + i], v)
        if tag != S.KNOWN_TAG:
            places.append(("pile", i, tag - 1))
    return places


def scramble(t, v, rng):
    """A world that v cannot tell from t's: each of v's groups keeps its known cards among
    its places; their unknown cards and the cards v knows nothing of are shuffled together;
    bunnies go only where their owner could have put them (its hand, no more than the
    hand's bunny cap, or a card it laid). Returns (the new table, whether anything moved)."""
    places = places_unseen_by(t, v)
    hands = {o: [k for k in range(S.N_KINDS) for _ in range(t.hand(o, k))] for o in range(t.n)}
    cards = []
    for where, i, _ in places:
        cards.append(hands[i].pop() if where == "hand" else
                     min(t.card(i), B) if where == "cell" else t.pile()[i])
    members = {}  # group row (-1: none) -> indices into places
    for j, (_, _, g) in enumerate(places):
        members.setdefault(g, []).append(j)
    free, known = [], {}
    for g, js in members.items():
        known[g] = [k for k, x in t.group(v, g).known.items() for _ in range(x)] if g >= 0 else []
        left = [cards[j] for j in js]
        for k in known[g]:
            left.remove(k)  # the memory is sound: its known cards are there
        free += left
    assert B not in free  # every unseen bunny is a known card of a group
    free = [free[i] for i in rng.permutation(len(free))]
    new = [None] * len(places)
    for g, js in members.items():
        content = known[g] + [free.pop() for _ in range(len(js) - len(known[g]))]
        for j, card in deal(t, v, g, [places[j] for j in js], content, rng).items():
            new[js[j]] = card
    w = copy_table(t)
    for o in range(t.n):
        if o != v:
            w.st[S.HAND + o * S.N_KINDS:S.HAND + (o + 1) * S.N_KINDS] = 0
    for (where, i, g), card in zip(places, new, strict=True):
        if where == "hand":
            w[S.HAND + i * S.N_KINDS + card] += 1
        elif where == "cell":
            w[S.CELLS + i] = card if card < B else B + t.group(v, g).owner
        else:
            w[S.PILE + i] = card
    return w, not np.array_equal(w.st, t.st)


def deal(t, v, g, places, content, rng):
    """The cards ``content`` dealt over one group's ``places``: {index in places: card}."""
    row = t.group(v, g) if g >= 0 else None
    bunnies = content.count(B)
    others = [k for k in content if k != B]
    hand = [j for j, pl in enumerate(places) if pl[0] == "hand"]
    laid = [j for j, pl in enumerate(places)
            if pl[0] == "cell" and t.placer(pl[1]) == (row.owner if row else -2)]
    cap = row.cap if row and g < S.MAX_SEATS else 0
    in_hand = int(rng.integers(max(0, bunnies - len(laid)), min(bunnies, cap, len(hand)) + 1))
    slots = ([hand[i] for i in rng.permutation(len(hand))[:in_hand]]
             + [laid[i] for i in rng.permutation(len(laid))[:bunnies - in_hand]])
    rest = [j for j in range(len(places)) if j not in slots]
    others = [others[i] for i in rng.permutation(len(others))]
    return {**{j: B for j in slots}, **dict(zip(rest, others, strict=True))}


def live_seats(t):
    return [v for v in range(t.n) if t[S.ELIMINATED + v] == 0]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_an_unseen_redeal_leaves_the_observation_alone(n):
    moved = 0
    checked = 0
    for t, rng in random_stops(n, games=12, stops=6, seed=n):
        for v in live_seats(t):
            w, changed = scramble(t, v, rng)
            moved += changed
            checked += 1
            assert conservation_problems(w.params, n, w.st) == []
            assert memory_problems(w.params, n, w.st, v) == []
            assert np.array_equal(t.observe(v), w.observe(v))
    assert checked > 100 and moved > 0.9 * checked  # the redeals do move cards


def same_move(t, w, move, rng):
    """The move in world w that looks to every other seat like ``move`` in t: the same, or
    for a card laid, swapped or put back, any card of that sort from w's hand."""
    legal = w.legal()
    kind, arg = move >> 16, move & 0xFFFF
    if kind in (S.M_PLACE, S.M_SWAP, S.M_RETURN):
        options = [m for m in legal if m >> 16 == kind
                   and (kind != S.M_PLACE or (m & 255) == (arg & 255))]
        return options[rng.integers(len(options))] if options else None
    return move if move in legal else None


def reveals_to(t, move, v):
    """The move turns up a face-down card that v has not seen, or a show card (which shows
    hands, and carrots lost for the bunnies in them)."""
    kind, arg = move >> 16, move & 0xFFFF
    seat = t[S.TO_MOVE]
    if kind == S.M_MOVE_ANY:
        if arg >> 8 != seat or not t.p[S.P_MOVE_ANY_REVEALS]:
            return False
        arg &= 255
    elif kind not in (S.M_MOVE, S.M_STEP):
        return False
    if not R.face_down(t.p, t.st, arg):
        return False
    return not (t.seen(arg) >> v) & 1 or t.card(arg) in (S.SHOW, S.SHOW_OR_LOSE, S.ALL_SHOW)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_memory_follows_what_the_seat_sees_not_the_cards(n):
    played = 0
    for t, rng in random_stops(n, games=20, stops=8, seed=10 + n):
        for v in live_seats(t):
            if t[S.TO_MOVE] == v:
                continue  # its own moves show it cards that differ between the worlds
            w, _ = scramble(t, v, rng)
            legal = t.legal()
            move = legal[rng.integers(len(legal))]
            other = same_move(t, w, move, rng)
            if other is None or reveals_to(t, move, v):
                continue
            a, b = copy_table(t), copy_table(w)
            a.apply(move)
            b.apply(other)
            played += 1
            assert np.array_equal(a.observe(v), b.observe(v)), (move >> 16, move & 0xFFFF)
            assert memory_problems(b.params, n, b.st, v) == []
    assert played > 100


# ------------------------------------------------------------------ plain bookkeeping
class Bookkeeping:
    """What each seat is certain of in every other hand, kept the plain way: a seen hand is
    known card for card; each card laid or put back may be any of the known ones (one fewer
    of each is certain; a bunny is never put back); a card drawn is unknown; a bunny swapped
    back is known."""

    def __init__(self, t):
        self.n = t.n
        self.sure = np.zeros((t.n, t.n, S.N_KINDS), np.int64)
        for v in range(t.n):
            for o in range(t.n):
                self.sure[v, o, B] = t.hand(o, B)

    def after(self, before, move, t):
        kind, arg = move >> 16, move & 0xFFFF
        seat = before[S.TO_MOVE]
        others = [v for v in range(self.n) if v != seat]
        if kind == S.M_SWAP:
            self.sure[others, seat, B] += 1
        if kind in (S.M_PLACE, S.M_SWAP):
            self.sure[others, seat] = np.maximum(self.sure[others, seat] - 1, 0)
        if kind == S.M_RETURN:
            self.sure[others, seat, :B] = np.maximum(self.sure[others, seat, :B] - 1, 0)
        if kind == S.M_LOOK:
            self.sure[seat, arg] = t.hand(arg)
        for o in shown(before, t):
            self.sure[:, o] = t.hand(o)
        for o in range(self.n):
            if t[S.ELIMINATED + o] and not before[S.ELIMINATED + o]:
                self.sure[:, o] = 0


def shown(before, t):
    """Seats whose hand this decision showed to all."""
    up = S.CELLS + t.n_cells
    for c in range(t.n_cells):
        if t.st[up + c] and not before[up + c] and c != t.center:
            if t.card(c) in (S.SHOW, S.SHOW_OR_LOSE):
                return [before[S.TO_MOVE]]
            if t.card(c) == S.ALL_SHOW:
                return [o for o in range(t.n) if not t[S.ELIMINATED + o]]
    return []


@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_seat_knows_at_least_what_it_was_shown_and_only_what_is_true(n):
    rng = np.random.default_rng(20 + n)
    looks = shows = 0
    for game in range(10):
        t = Table(n, seed=500 + game)
        book = Bookkeeping(t)
        while t[S.END] == S.RUNNING:
            move = curious_move(t, rng)
            before = t.st.copy()
            t.apply(move, check_legal=False)
            book.after(before, move, t)
            looks += move >> 16 == S.M_LOOK
            shows += len(shown(before, t))
            for v in live_seats(t):
                for o in range(n):
                    if o == v:
                        continue
                    out = np.zeros(S.N_KINDS, np.int32)
                    unknown = M.hand_certain(t.p, t.observe(v), v, o, out)
                    assert (out >= book.sure[v, o]).all()  # never forgets what is certain
                    assert (out <= t.hand(o)).all()  # and is never wrong
                    assert unknown == t.hand_total(o) - out.sum()
                    low, high = M.bunnies_in_hand(t.p, t.observe(v), v, o)
                    assert low <= t.hand(o, B) <= high
    assert (looks, shows) > (10, 10), (looks, shows)
