"""A hand-built Rabbit Hunt table for scenario tests: a fresh game from ``new_game`` whose
fields are then set through helpers that keep the conservation laws and every seat's memory
sound (``check_state``). A card laid by a seat is remembered as if that seat had drawn it
unseen and laid it; a hand set by ``set_hand`` is one the others know nothing of but its
bunnies."""

from functools import cache
from typing import NamedTuple

import numpy as np

from simkit.games.rabbit_hunt import memory as M
from simkit.games.rabbit_hunt import rules as R
from simkit.games.rabbit_hunt import state as S
from simkit.games.rabbit_hunt.transcript import check_state
from simkit.runner import RunSpec, plan

E = R.encode

# every Table built during a test; conftest checks their conservation after the test
LIVE = []


class Group(NamedTuple):
    """A row of a seat's memory (state.py): whose cards, how many face-down and pile cards
    are tagged with it, how many of its cards are unknown, the bunny cap, the known cards."""
    owner: int
    places: int
    unknown: int
    cap: int
    known: dict


@cache
def get_plan(n, overrides=()):
    return plan(RunSpec.make("rabbit-hunt", n, 1, overrides=dict(overrides)))


class Table:
    def __init__(self, n=2, seed=12345, **overrides):
        self.n = n
        self.plan = get_plan(n, tuple(sorted(overrides.items())))
        self.params = self.plan.compiled
        self.p = self.params[0]
        self.coords = self.params[1]
        self.index = {(int(q), int(r)): i for i, (q, r) in enumerate(self.coords)}
        self.center = int(self.p[S.P_CENTER])
        self.n_cells = int(self.p[S.P_CELLS])
        self.st = np.empty(self.plan.state_size, np.int32)
        self.chance = np.array([seed], np.uint64)
        R.new_game(self.params, n, self.st, self.chance)
        self.items = np.zeros((n, len(S.ITEM_COLUMNS)), np.int32)
        self.moves = np.empty(self.plan.max_moves, np.int32)
        LIVE.append(self)

    # ------------------------------------------------------------ reading
    def cell(self, q, r):
        return self.index[(q, r)]

    def ring(self):
        """The six cells round the warehouse, in neighbour-table order."""
        return [int(self.p[S.NEIGH + self.center * 6 + d]) for d in range(6)]

    def neighbours(self, c):
        return [int(x) for x in self.p[S.NEIGH + c * 6:S.NEIGH + c * 6 + 6] if x >= 0]

    def card(self, c):
        return int(self.st[S.CELLS + c])

    def up(self, c):
        return int(self.st[R.face_up_at(self.p, c)])

    def seen(self, c):
        return int(self.st[R.seen_at(self.p, c)])

    def placer(self, c):
        return int(self.st[R.placer_at(self.p, c)])

    def next_to(self, c):
        return int(self.st[R.next_to_at(self.p, c)])

    def hand(self, seat, kind=None):
        row = self.st[S.HAND + seat * S.N_KINDS:S.HAND + (seat + 1) * S.N_KINDS]
        return row.copy() if kind is None else int(row[kind])

    def hand_kinds(self, seat):
        """The hand as {kind: count}."""
        return {k: int(x) for k, x in enumerate(self.hand(seat)) if x}

    def hand_total(self, seat):
        return int(self.hand(seat).sum())

    def farmland_in_hand(self, seat):
        return int(self.hand(seat)[:S.N_FARMLAND].sum())

    def pile(self):
        return self.st[S.PILE:S.PILE + self[S.PILE_LEN]].tolist()

    def __getitem__(self, i):
        return int(self.st[i])

    def __setitem__(self, i, v):
        self.st[i] = v

    def carrots(self, seat):
        return self[S.CARROTS + seat]

    def farmer(self, seat):
        return self[S.FARMER + seat]

    def cards_on_table(self):
        return [c for c in range(self.n_cells) if self.card(c) != S.NO_CARD]

    def placeable(self):
        return sorted(c for c in range(self.n_cells)
                      if self.card(c) == S.NO_CARD and sum(
                          self.card(nb) != S.NO_CARD for nb in self.neighbours(c)) >= 2)

    def steps(self, a, b):
        """Steps from a to b over cards (breadth first in Python), -1 if not reachable."""
        dist = {a: 0}
        frontier = [a]
        while frontier:
            nxt = []
            for c in frontier:
                for nb in self.neighbours(c):
                    if nb not in dist and self.card(nb) != S.NO_CARD:
                        dist[nb] = dist[c] + 1
                        nxt.append(nb)
            frontier = nxt
        return dist.get(b, -1)

    # ------------------------------------------------------------ playing
    def legal(self):
        n = R.legal_moves(self.params, self.st, self.moves)
        return [int(m) for m in self.moves[:n]]

    def apply(self, move, check_legal=True):
        if check_legal:
            assert move in self.legal(), f"move {move >> 16}:{move & 0xFFFF} not legal"
        R.apply_move(self.params, self.st, move, self.chance, self.items)

    def check(self):
        problems = check_state(self.params, self.n, self.st)
        assert problems == [], problems

    def tags(self, c):
        return int(self.st[M.cell_tags_at(self.p, c)])

    def group(self, seat, g):
        """Seat's group row ``g`` (a Group)."""
        r = M.group_at(seat, g)
        known = {k: int(x) for k, x in enumerate(self.st[r + S.G_KNOWN:r + S.GROUP_W]) if x}
        return Group(self[r + S.G_OWNER], self[r + S.G_LOCS], self[r + S.G_UNKNOWN],
                     self[r + S.G_BUNNY_CAP], known)

    def cut_off(self, seat, owner):
        """Seat's groups of cards cut off from owner's hand: {row: (Group, tagged cells)}."""
        out = {}
        for g in range(S.MAX_SEATS, S.N_GROUPS):
            if self.group(seat, g).owner == owner:
                cells = [c for c in range(self.n_cells) if M.tag_of(self.tags(c), seat) == g + 1]
                out[g] = (self.group(seat, g), cells)
        return out

    def tagged(self, seat, g):
        """Cells in seat's group row g."""
        return [c for c in range(self.n_cells) if M.tag_of(self.tags(c), seat) == g + 1]

    def observe(self, seat):
        obs = np.empty_like(self.st)
        R.observe(self.params, self.st, seat, obs)
        return obs

    def finish(self):
        scores = np.zeros(self.n, np.float64)
        ranks = np.zeros(self.n, np.int32)
        end = R.finish(self.params, self.st, scores, ranks)
        return int(end), ranks.tolist(), scores.tolist()

    # ------------------------------------------------------------ building (conserving)
    def pop_pile(self):
        """Take the top card off the pile (it goes onto the table or into a hand)."""
        self[S.PILE_LEN] -= 1
        assert self[S.PILE_TAGS + self[S.PILE_LEN]] == 0, "a remembered pile card"
        self[S.PILE + self[S.PILE_LEN]] = S.NO_CARD

    def push_pile(self, kind):
        self[S.PILE + self[S.PILE_LEN]] = kind
        self[S.PILE_TAGS + self[S.PILE_LEN]] = 0
        self[S.PILE_LEN] += 1

    def set_pile(self, kinds):
        """The pile becomes ``kinds`` (top last); the difference is put away with the
        removed cards (or taken back from them)."""
        diff = self[S.PILE_LEN] - len(kinds)
        assert self[S.REMOVED] + diff >= 0
        assert not self.st[S.PILE_TAGS:S.PILE_TAGS + S.DECK_MAX].any(), "remembered cards"
        self[S.REMOVED] += diff
        self.st[S.PILE:S.PILE + S.DECK_MAX] = S.NO_CARD
        self.st[S.PILE:S.PILE + len(kinds)] = kinds
        self[S.PILE_LEN] = len(kinds)

    def set_hand(self, seat, kinds):
        """Farmland part of the hand := ``kinds`` ({kind: count}); the pile pays."""
        before = self.farmland_in_hand(seat)
        for k in range(S.N_FARMLAND):
            self[S.HAND + seat * S.N_KINDS + k] = kinds.get(k, 0)
        after = self.farmland_in_hand(seat)
        self[S.IN_HAND + seat] += after - before
        for v in range(self.n):  # the others know the bunnies, not the new farmland cards
            if v != seat:
                r = M.group_at(v, seat)
                self.st[r + S.G_KNOWN:r + S.G_KNOWN + S.N_FARMLAND] = 0
                known = int(self.st[r + S.G_KNOWN:r + S.GROUP_W].sum())
                self[r + S.G_UNKNOWN] = self.hand_total(seat) + self[r + S.G_LOCS] - known
        for _ in range(after - before):
            self.pop_pile()
        for _ in range(before - after):
            self.push_pile(S.EMPTY)

    def _release(self, c):
        """Whatever card lies on c goes back where it came from (pile or owner's hand)."""
        old = self.card(c)
        if old == S.NO_CARD or old == S.WAREHOUSE:
            return
        word = self.tags(c)
        for v in range(self.n):  # whoever kept it in a group loses it from there
            tag = M.tag_of(word, v)
            if tag:
                M.take_out(self.p, self.st, v, tag - 1, min(old, S.BUNNY))
        self.st[M.cell_tags_at(self.p, c)] = 0
        if old >= S.BUNNY:
            self[S.HAND + (old - S.BUNNY) * S.N_KINDS + S.BUNNY] += 1
            self[S.IN_HAND + old - S.BUNNY] += 1
            M.remember_bunny_back(self.st, old - S.BUNNY)
        else:
            self.push_pile(old)

    def lay(self, c, card, up=0, seen=0, placer=-1):
        """Lay ``card`` (farmland kind, or S.BUNNY + seat) on cell c, face down by default.
        A farmland card comes off the pile, a bunny out of its owner's hand."""
        assert c != self.center
        self._release(c)
        layer = placer
        if card >= S.BUNNY:
            owner = layer = card - S.BUNNY  # only its owner ever lays a bunny
            assert self.hand(owner, S.BUNNY) > 0
            self[S.HAND + owner * S.N_KINDS + S.BUNNY] -= 1
            self[S.IN_HAND + owner] -= 1
        else:
            self.pop_pile()
            for v in range(self.n):  # the layer drew it unseen
                if layer >= 0 and v != layer:
                    self[M.group_at(v, layer) + S.G_UNKNOWN] += 1
        if self.card(c) == S.NO_CARD:
            R.occupy(self.p, self.st, c, card)
        self[S.CELLS + c] = card
        kind = min(card, S.BUNNY)
        if layer >= 0:
            M.remember_place(self.p, self.st, layer, c)
            if up or seen == 15:
                M.remember_shown_to_all(self.p, self.st, c, kind)
            for v in range(self.n):
                if (seen >> v) & 1 and v != layer:
                    M.remember_peek(self.p, self.st, v, c, kind)
        self[R.face_up_at(self.p, c)] = up
        self[R.seen_at(self.p, c)] = seen
        self[R.placer_at(self.p, c)] = placer

    def set_carrots(self, seat, n):
        self[S.SUPPLY] += self.carrots(seat) - n
        self[S.CARROTS + seat] = n
        assert self[S.SUPPLY] >= 0

    def lose_bunnies(self, owner, by, n=1):
        """``by`` has caught ``n`` of ``owner``'s bunnies (out of the owner's hand)."""
        assert self.hand(owner, S.BUNNY) >= n
        self[S.HAND + owner * S.N_KINDS + S.BUNNY] -= n
        self[S.IN_HAND + owner] -= n
        for v in range(self.n):
            if v != owner:
                self[M.group_at(v, owner) + S.G_KNOWN + S.BUNNY] -= n
        self[S.LOST + owner] += n
        self[S.CAUGHT + by] += n

    def to_actions(self, seat=0, actions=None):
        """Seat's turn, its placement done: the action phase."""
        self[S.TURN_SEAT] = seat
        self[S.TO_MOVE] = seat
        self[S.PHASE] = S.PH_ACTION
        self[S.ACTIONS_LEFT] = self.p[S.P_ACTIONS] if actions is None else actions

    def strip_ring(self):
        """Turn the six setup cards face up as empty farmland (so nothing triggers)."""
        for c in self.ring():
            self.lay(c, S.EMPTY, up=1, seen=15)

    def chain(self, cells):
        """Lay empty face-up cards on ``cells`` in order (each must then touch a card)."""
        for c in cells:
            self.lay(c, S.EMPTY, up=1, seen=15)
