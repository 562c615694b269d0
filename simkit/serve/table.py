"""Live games of the workbench (docs/workbench.md, "Play a seat"): a person at one or more
seats, strategies at the others, the game state kept here in the server process, keyed by
a table id. A seat's view is made from its own observations alone (the game's ``observe``
and its describe hooks run on them, never on the true state), so the page cannot receive
what the seat does not see. Each move is saved as it is played in a folder of kind
``played`` (``played.json``: seats, seed, data and the move list), which `simkit replay
--run` plays back and which no report pools with seeded runs (it has no run.json)."""

from __future__ import annotations

import re
import secrets
import threading
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from simkit import folders, registry
from simkit.errors import SimkitError
from simkit.played import HUMAN, PLAYED, STAND_IN
from simkit.rng import seed_streams

MAX_TABLES = 32
"""Live tables kept in memory; the oldest finished ones go first (their folders stay)."""


def seat_name(seat: int) -> str:
    return f"P{seat + 1}"


def _hidden_everywhere(line: str) -> bool:
    """A transcript line that says what no seat sees (its text is the true state's)."""
    return "seen by no one" in line


def seat_lines(lines, seat: int) -> list[str]:
    """Lines a describe hook wrote from ``seat``'s observations, with what the game marks
    as seen by other seats only hidden (``api.seat_view``) and lines seen by no one left
    out."""
    from simkit.serve.api import seat_view

    return [seat_view(str(t), seat_name(seat)) for t in lines if not _hidden_everywhere(str(t))]


class Table:
    """One live game. ``seats``: a strategy name per seat, or ``HUMAN``."""

    def __init__(self, runs: Path, game: str, players: int, seats: list[str], seed: int,
                 overrides: dict | None = None, changeset: str | None = None,
                 weights=()):
        from simkit.runner import RunSpec, check_seed, plan
        from simkit.search import Workspace

        check_seed(seed)
        spec = registry.get_game(game)
        if players not in spec.players:
            raise SimkitError(f"{game} is for {', '.join(map(str, spec.players))} players, "
                              f"not {players}")
        if len(seats) != players:
            raise SimkitError(f"give a strategy or {HUMAN!r} for each of the {players} seats")
        if HUMAN not in seats:
            raise SimkitError(f"take at least one seat ({HUMAN!r}); a game of bots alone is a "
                              "run (the Run tab)")
        names = [STAND_IN if s == HUMAN else s for s in seats]
        self.run = RunSpec.make(game, players, 1, seed, names, overrides or {}, False,
                                list(weights))
        self.p = p = plan(self.run)
        self.spec, self.rules = spec, spec.rules
        self.id = secrets.token_hex(6)
        self.game, self.players, self.seats, self.seed = game, players, list(seats), seed
        self.changeset, self.overrides = changeset, dict(overrides or {})
        self.lock = threading.Lock()
        n = players
        self.codes = np.array([p.slots.index(s) for s in names], np.int32)
        ws = Workspace.make(p.search_nodes, n, p.state_size, p.max_moves, len(p.item_columns),
                            len(p.slots), p.learned_features)
        self.ws = ws.arrays(p.teams, p.rollout_weights)
        self.streams = np.empty(1 + n, np.uint64)
        seed_streams(np.uint64(seed), n, self.streams)
        self.state = np.empty(p.state_size, np.int32)
        self.rules.new_game(p.compiled, n, self.state, self.streams[0:1])
        self.items = np.zeros((n, max(1, len(p.item_columns))), np.int32)
        self.scores = np.zeros(n, np.float64)
        self.ranks = np.zeros(n, np.int32)
        self.moves: list[int] = []
        self.log: dict[int, list[dict]] = {s: [] for s in self.humans}
        self.setup = {s: seat_lines(self._describe_setup(self.observe(s)), s)
                      for s in self.humans}
        self.end: str | None = None
        self.turns = 0
        self.started = datetime.now(UTC).isoformat(timespec="seconds")
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        self.folder = Path(runs) / f"played-{game}-{players}p-{stamp}-{self.id}"
        self.save()

    # -- what a seat sees
    @property
    def humans(self) -> list[int]:
        return [s for s, name in enumerate(self.seats) if name == HUMAN]

    def observe(self, seat: int, state: np.ndarray | None = None) -> np.ndarray:
        obs = np.empty(self.p.state_size, np.int32)
        self.rules.observe(self.p.compiled, self.state if state is None else state, seat, obs)
        return obs

    def _describe_setup(self, obs) -> list[str]:
        if self.spec.describe_setup is None:
            return []
        return list(self.spec.describe_setup(self.p.compiled, self.players, obs.copy()))

    def _describe_move(self, before, move, after) -> list[str]:
        if self.spec.describe_move is None:
            return [f"move {move}"]
        return list(self.spec.describe_move(self.p.compiled, self.players, before.copy(),
                                            move, after.copy()))

    @property
    def over(self) -> bool:
        return self.end is not None

    def to_move(self) -> int:
        return int(self.rules.to_move(self.state))

    def legal_of(self, obs: np.ndarray, seat: int) -> np.ndarray:
        """``seat``'s legal moves from one determinisation of its observation (a seat knows
        its own options: the same in every state it cannot tell apart)."""
        p, rules = self.p, self.rules
        state = np.empty(p.state_size, np.int32)
        if hasattr(rules, "determinize"):
            stream = np.array([0x5EA7], np.uint64)
            rules.determinize(p.compiled, obs, seat, state, stream,
                              np.empty(p.state_size, np.int32))
        else:  # a game of perfect information: the observation is the state
            state[:] = obs
        moves = np.empty(p.max_moves, np.int32)
        return moves[:int(rules.legal_moves(p.compiled, state, moves))].copy()

    def view(self, seat: int) -> dict:
        """What the page shows ``seat``: made from its observations only."""
        from simkit.replay import choice_text_seen

        if seat not in self.humans:
            raise SimkitError(f"{seat_name(seat)} is played by {self.seats[seat]}; you hold "
                              f"{', '.join(seat_name(s) for s in self.humans)}")
        obs = self.observe(seat)
        mover = None if self.over else self.to_move()
        doc = {"table": self.id, "game": self.game, "players": self.players,
               "seat": seat_name(seat), "seats": self.seats, "seed": self.seed,
               "changeset": self.changeset, "folder": self.folder.name,
               "decisions": len(self.moves), "to_move": None if mover is None
               else seat_name(mover), "over": self.over,
               "sees": seat_lines(self._describe_setup(obs), seat),
               "setup": self.setup[seat], "log": self.log[seat], "moves": []}
        if mover == seat:
            legal = self.legal_of(obs, seat)
            doc["moves"] = [{"move": int(m), "label": choice_text_seen(self.p, obs, seat, int(m))}
                            for m in legal]
        if self.over:
            doc["result"] = {"end": self.end, "turns": self.turns,
                             "ranks": self.ranks.tolist(), "scores": self.scores.tolist()}
        return doc

    # -- playing
    def waiting_for_bot(self) -> bool:
        return not self.over and self.seats[self.to_move()] != HUMAN

    def step(self) -> int | None:
        """Play one bot decision (or a forced move), as a run's loop plays it; None when
        it is a person's turn or the game is over."""
        if self.over:
            return None
        seat = self.to_move()
        legal = np.empty(self.p.max_moves, np.int32)
        n_legal = int(self.rules.legal_moves(self.p.compiled, self.state, legal))
        if self.seats[seat] == HUMAN and n_legal > 1:
            return None
        return self._advance(seat, 1)

    def play(self, seat: int, move: int) -> None:
        """The person at ``seat`` plays ``move`` (one of its legal moves)."""
        if self.over:
            raise SimkitError("the game is over")
        if self.to_move() != seat:
            raise SimkitError(f"it is {seat_name(self.to_move())}'s move, not "
                              f"{seat_name(seat)}'s")
        legal = self.legal_of(self.observe(seat), seat).tolist()
        if move not in legal:
            raise SimkitError(f"move {move} is not one of {seat_name(seat)}'s legal moves "
                              f"({', '.join(map(str, legal))})")
        before = self._observations()
        self.rules.apply_move(self.p.compiled, self.state, move, self.streams[0:1], self.items)
        self._record(seat, move, before)
        self._advance(seat, 0)  # the game may have ended with it

    def _observations(self) -> dict[int, np.ndarray]:
        return {s: self.observe(s) for s in self.humans}

    def _advance(self, seat: int, budget: int) -> int | None:
        """``budget`` decisions by the run's own loop (``play_out``: the strategies decide
        as in a run, from their streams); then, if the game ended, its result."""
        p = self.p
        before = self._observations()
        trace = np.full(1, -1, np.int32)
        end, turns, made = p.driver.module.play_out(
            p.compiled, self.players, self.codes, p.kernels, p.weights, p.max_turns,
            self.state, np.empty(p.state_size, np.int32), np.empty(p.max_moves, np.int32),
            self.streams, self.items, self.scores, self.ranks, trace, budget, self.ws)
        move = None
        if made:
            move = int(trace[0])
            self._record(seat, move, before)
        if end >= 0:
            self.end = self.spec.end_reasons[int(end)]
            self.turns = int(turns)
            if end == 0:  # a timeout: no winner (as a run's row records it)
                self.ranks[:] = 0
        self.save()
        return move

    def _record(self, seat: int, move: int, before: dict[int, np.ndarray]) -> None:
        self.moves.append(int(move))
        k = len(self.moves)
        for s in self.humans:
            lines = seat_lines(self._describe_move(before[s], move, self.observe(s)), s)
            self.log[s].append({"decision": k, "seat": seat_name(seat), "lines": lines})
        self.save()

    def bots_until_person(self, limit: int = 100_000) -> int:
        """Play bots until a person decides or the game ends; the number of moves played."""
        played = 0
        while played < limit and self.step() is not None:
            played += 1
        return played

    # -- kept
    def record(self) -> dict:
        return {"kind": "played", "game": self.game, "version": self.spec.version,
                "players": self.players, "seats": self.seats, "seed": self.seed,
                "overrides": self.overrides, "changeset": self.changeset,
                "weights": [f"{s}.{k}={v}" for s, k, v in self.run.weights],
                "started_at": self.started, "moves": self.moves,
                "complete": self.over, "end_reason": self.end, "turns": self.turns,
                "ranks": self.ranks.tolist() if self.over else None,
                "scores": self.scores.tolist() if self.over else None,
                "saved_at": datetime.now(UTC).isoformat(timespec="seconds"),
                "note": "a game with a person at a seat: its figures are not a seeded run's "
                        "and are never pooled with them"}

    def save(self) -> None:
        if not hasattr(self, "folder"):
            return
        if not self.folder.is_dir():
            self.folder.mkdir(parents=True)
            folders.mark(self.folder, "played")
        folders.write_json(self.folder / PLAYED, self.record())


class Tables:
    """The server's live tables, by id."""

    def __init__(self, runs: Path):
        self.runs = runs
        self.tables: dict[str, Table] = {}
        self.lock = threading.Lock()

    def new(self, doc: dict, changes: dict) -> Table:
        from simkit.numeric import whole

        game = str(doc.get("game", ""))
        registry.get_game(game)
        players = whole(str(doc.get("players", "")), "players", 1)
        seats = doc.get("seats")
        if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
            raise SimkitError(f"seats: a list of strategies or {HUMAN!r}, one per seat")
        seed = whole(str(doc.get("seed", 0)), "seed", 0)
        table = Table(self.runs, game, players, [s.strip() for s in seats], seed, changes,
                      doc.get("changeset") or None)
        with self.lock:
            if len(self.tables) >= MAX_TABLES:
                old = sorted(self.tables.values(), key=lambda t: (not t.over, t.started))[0]
                del self.tables[old.id]
            self.tables[table.id] = table
        return table

    def get(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise SimkitError(f"no live game {table_id!r} (the server keeps games in memory "
                              "until it stops; the saved ones replay under Replays)")
        return table


def parse_seat(text, table: Table) -> int:
    m = re.fullmatch(r"P(\d+)", str(text or ""))
    if m is None or not 1 <= int(m.group(1)) <= table.players:
        raise SimkitError(f"seat {text!r}: one of "
                          f"{', '.join(seat_name(s) for s in range(table.players))}")
    return int(m.group(1)) - 1
