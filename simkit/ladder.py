"""The skill ladder: a round robin of strategies, their ratings, and the game's balance at
every level of skill.

A ladder of strategies ``S`` at ``P`` players plays:

- *matches*: every table of ``P`` seats drawn from ``S`` with as many different strategies as
  the table holds (at 2 players every pair; at 3 and 4 players every set of P strategies, or,
  with fewer strategies than seats, every table that seats them all), each in every distinct
  seat arrangement, ``games`` games a table split evenly over its arrangements;
- *levels*: each strategy in self-play, ``level_games`` games, for balance by skill.

Every one of them is an ordinary run (``simkit.runner``) with fixed seats, written as a run
folder under ``matches/`` or ``levels/``, and every one uses the ladder's master seed, so
game ``i`` of every arrangement and level is dealt alike: a pairing's two seat orders are
played on the same deals, and the levels on the same deals as each other. All the runs share
one compiled driver. The ladder folder:

    ladder.json    provenance: the ladder's settings, its schedule (every run, its seats, its
                   folder), the measured costs and the estimate, versions, ``complete``
    summary.json   ratings with intervals, the win matrix, skill depth, balance by level
    games.parquet  every game of every run: the run's games table with ``part`` (match or
                   level), ``run`` (its folder) and ``table`` first
    matches/, levels/  the runs

A ladder stopped by Ctrl-C keeps every finished run (and the finished games of the run it
was playing); ``resume`` plays only what is missing. Reports never run games; this module
plays them and leaves the figures to ``simkit.reports.ladder``.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import asdict, dataclass
from itertools import combinations_with_replacement, permutations
from pathlib import Path
from typing import Any

from simkit import folders, registry
from simkit.errors import SimkitError
from simkit.runner import RunInterrupted, RunSpec, is_complete, parse_weight, progress_bar

MAX_RUNS = 2_000
"""The most runs (tables x arrangements, plus levels) one ladder plays: more is a typo."""
PROBE_SECONDS = 1.0
"""How long the estimate plays each strategy before a ladder starts (at least one game)."""


@dataclass(frozen=True)
class Match:
    """One run of a ladder: ``part`` "match" or "level", the ``table`` it belongs to (a
    level's index for a level), its seats' strategies, its games and its folder."""

    part: str
    table: int
    seats: tuple[str, ...]
    games: int
    folder: str


@dataclass(frozen=True)
class LadderSpec:
    """Everything that decides a ladder's games (see the module docstring)."""

    game: str
    players: int
    strategies: tuple[str, ...]
    games: int
    level_games: int
    seed: int = 0
    overrides: tuple = ()
    weights: tuple = ()
    trace: int | str = 0
    """Games of each level's self-play traced turn by turn (``--trace-turns``; "all"): the
    feel of the game at every level of skill."""
    model_mismatch: bool = False
    """``--model-mismatch ok``: a learned level plays the model of the default data."""
    train: str = ""
    """``--train BUDGET``: learned levels play a model fine-tuned for the ladder's data."""

    @classmethod
    def make(cls, game: str, players: int, strategies, games: int, level_games: int | None =
             None, seed: int = 0, overrides: dict | None = None, weights=None, trace=0,
             model_mismatch: bool = False, train: str = "") -> LadderSpec:
        """Build and check a ladder: every strategy plays the game, two at least, none twice;
        every run it will play is checked before any game is played."""
        spec = registry.get_game(game)
        if players not in spec.players:
            raise SimkitError(f"{game} is for {', '.join(map(str, spec.players))} players, "
                              f"not {players}")
        names = [n.strip() for n in (strategies.split(",") if isinstance(strategies, str)
                                     else strategies)]
        names = [n for n in names if n]
        w = [parse_weight(x) for x in weights or ()]
        if train:
            from simkit.tune import parse_budget

            parse_budget(train)
        canon = []
        for n in names:  # each checked, and named with its budget (ismcts -> ismcts@400)
            canon.append(RunSpec.make(game, players, 1, seed, [n] * players, overrides,
                                      False, _weights_for(w, [n]),
                                      model_mismatch=bool(model_mismatch or train)
                                      ).strategies[0])
        if len(set(canon)) < 2:
            raise SimkitError("a ladder needs at least two different strategies, e.g. "
                              "--strategies random,heuristic; "
                              f"{game}'s strategies: {', '.join(registry.strategies_for(game))}")
        twice = sorted({c for c in canon if canon.count(c) > 1})
        if twice:
            given = [n for n, c in zip(names, canon, strict=True) if c == twice[0]]
            raise SimkitError(f"strategy {twice[0]} is given twice (as {', '.join(given)}); "
                              "give each level once")
        targets = set(canon) | {registry.split_budget(c)[0] for c in canon}
        for sname, _, _ in w:
            if sname not in targets and sname != "heuristic":
                raise SimkitError(f"--weight names strategy {sname!r}, which is not in this "
                                  f"ladder; its strategies: {', '.join(sorted(targets))}")
        for n in (games, level_games if level_games is not None else games):
            RunSpec.make(game, players, n, seed, canon[0], overrides)  # the counts' checks
        from simkit import data

        over = data.parse_overrides(overrides)
        frozen = tuple(sorted((k, data.freeze(v)) for k, v in over.items()))
        from simkit.runner import check_trace

        lv = games if level_games is None else level_games
        check_trace(spec, trace, lv)
        ladder = cls(game, players, tuple(canon), games, lv, seed, frozen, tuple(w),
                     "all" if trace == "all" else int(trace or 0), bool(model_mismatch),
                     train or "")
        if train and not ladder.learned_slots():
            raise SimkitError(f"--train fits the model that learned plays; no level of this "
                              f"ladder is learned (its levels: {', '.join(canon)})")
        if len(ladder.schedule()) > MAX_RUNS:
            raise SimkitError(f"this ladder would play {len(ladder.schedule()):,} runs (tables "
                              f"x seat arrangements), more than {MAX_RUNS:,}; give fewer "
                              "strategies")
        for m in ladder.schedule():
            ladder.run_spec(m)  # every run checked now, so a bad one fails before any output
        return ladder

    def with_games(self, games: int, level_games: int) -> LadderSpec:
        trace = self.trace if self.trace == "all" else min(int(self.trace), level_games)
        return LadderSpec(self.game, self.players, self.strategies, games, level_games,
                          self.seed, self.overrides, self.weights, trace, self.model_mismatch,
                          self.train)

    def tables(self) -> list[tuple[int, ...]]:
        """The tables of the round robin: multisets of ``players`` strategy indices with as
        many different strategies as fit (``min(len(strategies), players)``)."""
        k = len(self.strategies)
        distinct = min(k, self.players)
        return [t for t in combinations_with_replacement(range(k), self.players)
                if len(set(t)) == distinct]

    def schedule(self) -> list[Match]:
        """Every run of the ladder, matches first (table by table), then the levels."""
        out = []
        for ti, table in enumerate(self.tables()):
            arrangements = sorted(set(permutations(table)))
            per = math.ceil(self.games / len(arrangements))
            for arr in arrangements:
                seats = tuple(self.strategies[i] for i in arr)
                out.append(Match("match", ti, seats, per,
                                 f"matches/t{ti + 1:02d}-{'_'.join(seats)}"))
        for li, name in enumerate(self.strategies):
            out.append(Match("level", li, (name,) * self.players, self.level_games,
                             f"levels/{li + 1:02d}-{name}"))
        return out

    def run_spec(self, m: Match) -> RunSpec:
        """The run of ``m``: fixed seats, the ladder's seed and data, the weights that name
        its strategies, and a driver compiled with every strategy of the ladder."""
        trace = 0
        if m.part == "level" and self.trace:
            trace = m.games if self.trace == "all" else min(int(self.trace), m.games)
        from simkit.tune import learned_run

        return learned_run(self.game, self.players, m.games, self.seed, list(m.seats),
                           dict(self.overrides), False,
                           _weights_for(self.weights, m.seats), mismatch=self.model_mismatch,
                           train=self.train, train_seed=self.seed,
                           compile_with=self.strategies, trace=trace)

    def learned_slots(self) -> list[str]:
        """The levels played by a model (``learned``)."""
        from simkit.tune import learned_slots

        return learned_slots(self.game, self.strategies)

    def tunings(self) -> list:
        """``--train``: the fine-tuning (``simkit.tune.Plan``) of each learned level's model
        for the ladder's data; none without ``--train``."""
        from simkit.tune import model_files, parse_budget, plan_tuning

        if not self.train:
            return []
        files = model_files(f"{s}.{k}={v}" for s, k, v in self.weights)
        return [plan_tuning(self.game, self.players, dict(self.overrides),
                            parse_budget(self.train), self.seed,
                            files.get(n, files.get(registry.split_budget(n)[0])))
                for n in self.learned_slots()]

    def as_dict(self) -> dict:
        from simkit import data

        d = asdict(self)
        d["overrides"] = {k: data.thaw(v) for k, v in self.overrides}
        d["weights"] = [f"{s}.{k}={v}" for s, k, v in self.weights]
        return d


def _weights_for(weights, seats) -> list[str]:
    """The ``--weight`` items that apply to a run seating ``seats`` (``heuristic.*`` also
    where a search plays: its rollouts use the heuristic)."""
    targets = set(seats) | {registry.split_budget(s)[0] for s in seats}
    game_strategies = registry.strategies_for("")  # the generic ones: the searches
    search = any(getattr(game_strategies.get(registry.split_budget(s)[0]), "searches", False)
                 for s in seats)
    return [f"{s}.{k}={v}" for s, k, v in weights
            if s in targets or (search and s == "heuristic")]


# ---------------------------------------------------------------------------------------------
# the estimate


def measure_costs(ladder: LadderSpec, seconds: float = PROBE_SECONDS, show: bool = True
                  ) -> dict[str, float]:
    """Seconds a game of each strategy in self-play on one thread, from a brief sample
    (games of the level's own run, played and dropped; compiling is not counted, and is
    announced when ``show``)."""
    from simkit.runner import first_play, plan, play_chunk

    costs = {}
    for name in ladder.strategies:
        p = plan(ladder.run_spec(Match("level", 0, (name,) * ladder.players, 1, "")))
        first_play(p, show)  # compile, or load from numba's cache
        started, played = time.perf_counter(), 0
        while played < 1 or (time.perf_counter() - started < seconds and played < 10_000):
            count = 1 if played < 4 else min(4 * played, 2_000)
            play_chunk(p, 1 + played, count)
            played += count
        costs[name] = (time.perf_counter() - started) / played
    return costs


def estimate(ladder: LadderSpec, costs: dict[str, float], workers: int) -> dict:
    """The ladder's expected wall time on ``workers`` threads: a game of a run costs the mean
    of its seats' self-play costs (each seat makes about 1/P of the decisions)."""
    total = 0.0
    for m in ladder.schedule():
        total += m.games * sum(costs[s] for s in m.seats) / len(m.seats)
    games = sum(m.games for m in ladder.schedule())
    return {"games": games, "cpu_seconds": total, "seconds": total / max(1, workers),
            "pairing_half_width": half_width(ladder.games),
            "level_half_width": half_width(ladder.level_games)}


def half_width(games: int) -> float:
    """The 95% half-width of a rate near 1/2 from ``games`` games (the widest it can be)."""
    return 1.96 * math.sqrt(0.25 / games) if games else float("nan")


def games_for_time(ladder: LadderSpec, costs: dict[str, float], workers: int,
                   seconds: float, overhead: float = 0.0) -> LadderSpec:
    """The ladder with ``games`` (a table; the levels the same) as large as ``seconds`` of
    play on ``workers`` threads allows, less ``overhead`` seconds that do not depend on the
    game counts, and at least one game an arrangement."""
    per_game = seconds_a_game(ladder, costs, workers)
    fewest = smallest(ladder).games
    n = max(fewest, int((seconds - overhead) / per_game) if per_game > 0 else fewest)
    n = min(n, 10**8)
    return ladder.with_games(n, n)


def seconds_a_game(ladder: LadderSpec, costs: dict[str, float], workers: int) -> float:
    """The estimated wall seconds one more game a table (and a level) adds to ``ladder``."""
    return estimate(ladder.with_games(10_000, 10_000), costs, workers)["seconds"] / 10_000


def smallest(ladder: LadderSpec) -> LadderSpec:
    """The smallest ladder of these strategies: one game an arrangement of the table with the
    most arrangements (every table plays as many games), and as many a level."""
    fewest = max(len(set(permutations(t))) for t in ladder.tables())
    return ladder.with_games(fewest, fewest)


# ---------------------------------------------------------------------------------------------
# a ladder within --time (see simkit.clock)

RUN_OVERHEAD = 0.5
"""Wall seconds a ladder's run costs beyond playing its games (its plan, its first chunk,
its folder written): 0.47 s a run, measured on the 2-core machine at load 6 (play_seconds
minus run_seconds of avalon random,heuristic,mc@10, 9 runs). A first pass measures it."""
SUMMARY_SECONDS = (2.5, 0.1)
"""Seconds of the ladder's summary (ratings, balance by skill): a base and a run's share
(2.1 s for 9 runs, scipy imported, same machine and load)."""
REPORT_SECONDS = (5.0, 0.3)
"""Seconds of ``--report``'s HTML section (4.4 s for 9 runs, matplotlib imported)."""
PILOT_SHARE = 0.2
"""The share of the games that fit by the strategies' measured costs that a first pass
plays; the second grows every run to what the first pass's own pace says fits (a strategy
timed on one thread alone says little of a busy machine's two)."""
PILOT_FEWEST = 4
"""A first pass is played only when the estimate allows this many times the smallest
ladder's games: below it, one pass (a small budget's tolerance is 30 s)."""


def reserve_seconds(ladder: LadderSpec, report: bool) -> float:
    """Seconds kept, out of a time budget, for what follows the games: the summary, and the
    report with ``report``."""
    runs = len(ladder.schedule())
    base, each = SUMMARY_SECONDS
    out = base + each * runs
    if report:
        base, each = REPORT_SECONDS
        out += base + each * runs
    return out


def refuse_budget(ladder: LadderSpec, budget, reserve: float, play: float | None = None
                  ) -> None:
    """One line (exit 2) unless the smallest ladder fits in what is left of ``budget``:
    ``play`` its estimated seconds of games when the strategies have been timed (else only
    its runs' overhead is counted), ``reserve`` those of its summary and report."""
    small = smallest(ladder)
    runs = len(small.schedule())
    need = runs * RUN_OVERHEAD + (play or 0.0) + reserve
    left = budget.left()
    if need <= left:
        return
    spent = budget.elapsed()
    at_least = math.ceil((spent + need) * 1.2 / 10) * 10  # seconds, a round number
    at_least = f"{at_least}s" if at_least < 300 else f"{math.ceil(at_least / 60)}m"
    timed = (f"compiling and timing the strategies took {say_duration(spent)}, "
             if play is not None else f"{say_duration(spent)} are spent already, ")
    raise SimkitError(
        f"--time {say_duration(budget.seconds)} cannot fit even the smallest ladder of "
        f"{', '.join(ladder.strategies)} ({small.games} games a table, {runs} runs): {timed}"
        f"its games and runs need about {say_duration(need - reserve)} and its summary"
        f"{' and report' if reserve > reserve_seconds(ladder, False) else ''} "
        f"{say_duration(reserve)}; give --time {at_least} or more, fewer "
        "strategies, or --games")


def first_pass(ladder: LadderSpec, costs: dict[str, float], workers: int, left: float,
               reserve: float) -> tuple[LadderSpec, bool]:
    """The ladder to play first within ``left`` seconds (less ``reserve``), and whether it
    is a first pass that a second will grow (``grow_to``): ``PILOT_SHARE`` of the games the
    measured costs say fit, or all of them when that is too few to learn a pace from."""
    runs = len(ladder.schedule())
    fitted = games_for_time(ladder, costs, workers, left - reserve, runs * RUN_OVERHEAD)
    fewest = smallest(ladder).games
    if fitted.games < PILOT_FEWEST * fewest:
        return fitted, False
    n = max(fewest, int(fitted.games * PILOT_SHARE))
    return ladder.with_games(n, n), True


def grow_to(games: int, play_seconds: float, run_seconds: float, left: float,
            reserve: float) -> int:
    """Games a table after a first pass of ``games`` that took ``play_seconds`` of wall
    time, ``run_seconds`` of them playing: its pace (run seconds a game a table) carries on
    for the games added, and its overhead (the rest) is paid again, since every run is
    written again; never fewer games than were played."""
    overhead = max(0.0, play_seconds - run_seconds)
    pace = run_seconds / games if games else 0.0
    room = left - reserve - overhead
    if pace <= 0 or room <= 0:
        return games
    return min(games + int(room / pace), 10**8)


MAX_TIME = 7 * 24 * 3600
"""The longest time budget (a week): beyond it a ladder would play past ``games_for_time``'s
cap of 10^8 games a table for the fastest games, and it is most likely a typo."""


def parse_duration(text: str) -> float:
    """``90``, ``90s``, ``15m``, ``2h`` -> seconds, more than 0 and at most ``MAX_TIME``;
    one line naming the problem and the valid range otherwise."""
    from simkit.numeric import real

    t = str(text).strip().lower()
    scale = {"s": 1, "m": 60, "h": 3600}.get(t[-1:], None)
    number = t[:-1] if scale else t
    try:
        value = real(number, "--time") * (scale or 1)
    except SimkitError:
        value = float("nan")
    if not 0 < value <= MAX_TIME:
        raise SimkitError(f"a time budget is a number of seconds, or minutes or hours with m "
                          f"or h (90, 90s, 15m, 2h), more than 0 and at most "
                          f"{MAX_TIME // 3600}h (a week), not {str(text)[:40]!r}")
    return value


def say_duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


# ---------------------------------------------------------------------------------------------
# playing


def _meta(folder: Path) -> dict | None:
    try:
        return json.loads((folder / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def check_resume(ladder: LadderSpec, out: Path, games_given: bool) -> LadderSpec:
    """The ladder to continue in ``out``: its settings must be the recorded ones (the game
    counts too, unless they came from a time budget: then the recorded counts are kept)."""
    meta_path = out / "ladder.json"
    if folders.kind_of(out) != "ladder" or not meta_path.is_file():
        raise SimkitError(f"--resume: {out} is not a ladder folder; start the ladder without "
                          "--resume")
    try:
        old = json.loads(meta_path.read_text(encoding="utf-8"))["ladder"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SimkitError(f"--resume: {meta_path} cannot be read ({exc}); start the ladder "
                          "again with --overwrite") from exc
    if not games_given:
        ladder = ladder.with_games(int(old.get("games", ladder.games)),
                                   int(old.get("level_games", ladder.level_games)))
    new = ladder.as_dict()
    diff = [k for k in new if json.dumps(new[k], default=str) !=
            json.dumps(old.get(k), default=str)
            and not (k not in old and new[k] in (False, ""))]  # added since, at its default
    if diff:
        k = diff[0]
        raise SimkitError(f"--resume: {out} was played with {k} {old.get(k)!r}, not "
                          f"{new[k]!r}; give the same settings, or --overwrite to start again")
    return ladder


def run_ladder(ladder: LadderSpec, out: Path, workers: int | None = None,
               scheduler: Any = None, progress: bool = False, costs: dict | None = None,
               estimate_: dict | None = None, resume: bool = False, final: bool = True
               ) -> dict:
    """Play every run of ``ladder`` missing from ``out`` and write the ladder folder.

    Returns ladder.json's contents. ``out`` has been checked (``folders.check_output``)
    by the caller, or is the ladder to resume. A run that ``out`` holds complete with fewer
    games is grown to the ladder's (game ``i`` of a run does not depend on its count: the
    games are those of a ladder played at once). ``final``: False for a first pass that
    another will grow (no summary; the ladder is not complete). On Ctrl-C the finished runs
    are kept and ``RunInterrupted``'s subclass ``LadderInterrupted`` is raised."""
    from simkit.runner import _versions, run_games

    out = Path(out)
    workers = workers or os.cpu_count() or 1
    lock = folders.OutputLock(out)
    try:
        if not resume and out.exists() and any(out.iterdir()):
            if folders.kind_of(out) != "ladder":  # check_output let only our ladders here
                raise SimkitError(f"--out {out} is not a ladder folder simkit wrote; "
                                  "choose another --out")
            folders.clear(out)  # a link's folder emptied, the link kept
        folders.real(out).mkdir(parents=True, exist_ok=True)  # where a link points
        folders.mark(out, "ladder")
        schedule = ladder.schedule()
        specs = [ladder.run_spec(m) for m in schedule]
        todo = [i for i, (m, s) in enumerate(zip(schedule, specs, strict=True))
                if not is_complete(out / m.folder, s)]
        doc = {"kind": "ladder", "ladder": ladder.as_dict(),
               "schedule": [asdict(m) for m in schedule], "costs": costs,
               "estimate": estimate_, "versions": _versions(), "complete": False,
               "workers": workers}
        folders.write_json(out / "ladder.json", doc)
        played = {i: _grows(out / schedule[i].folder, specs[i]) for i in todo}
        bar = None
        if progress and todo:
            bar = progress_bar(sum(schedule[i].games - played[i] for i in todo),
                               f"{ladder.game} ladder")
        started = time.perf_counter()
        try:
            for i in todo:
                m = schedule[i]
                if bar is not None:
                    bar.set_postfix_str(" vs ".join(dict.fromkeys(m.seats)) if m.part ==
                                        "match" else f"{m.seats[0]} self-play")
                folder = out / m.folder
                folder.parent.mkdir(parents=True, exist_ok=True)
                try:
                    run_games(specs[i], out=folder, workers=workers, scheduler=scheduler,
                              progress=progress, overwrite=not played[i], bar=bar,
                              resume=bool(played[i]), grow=bool(played[i]))
                except RunInterrupted as exc:  # this run is kept whole if it finished
                    done = todo.index(i) + bool(exc.result.meta.get("complete"))
                    raise LadderInterrupted(out, done, len(todo)) from exc
                except KeyboardInterrupt as exc:
                    raise LadderInterrupted(out, todo.index(i), len(todo)) from exc
        finally:
            if bar is not None:
                bar.close()
        doc["play_seconds"] = round(time.perf_counter() - started, 3)
        # the runs' own play, from their run.json: the rest is the ladder's overhead
        doc["run_seconds"] = round(sum((_meta(out / m.folder) or {}).get("elapsed_seconds", 0)
                                       for m in schedule), 3)
        if not final:
            folders.write_json(out / "ladder.json", doc)
            return doc
        from simkit.reports.ladder import summarise

        t0 = time.perf_counter()
        summary = summarise(out, doc)
        folders.write_json(out / "summary.json", summary)
        doc["summary_seconds"] = round(time.perf_counter() - t0, 3)
        if not resume:
            doc["overhead_share"] = round(
                (doc["play_seconds"] - doc["run_seconds"] + doc["summary_seconds"])
                / max(doc["run_seconds"], 1e-9), 4)
        doc["complete"] = True
        folders.write_json(out / "ladder.json", doc)
        return doc
    finally:
        lock.release()


def _grows(folder: Path, run: RunSpec) -> int:
    """The games of the complete run in ``folder`` that ``run`` continues (its settings
    but fewer games: a first pass of a ladder within --time), else 0 (it is played afresh)."""
    from simkit.runner import _as_recorded, _recorded_spec

    meta = _meta(folder)
    have = _recorded_spec(meta) if isinstance(meta, dict) else None
    if not have or meta.get("complete") is not True:
        return 0
    games = have.get("games")
    want = _as_recorded(run)
    if not isinstance(games, int) or games >= run.games or {**have, "games": run.games} != want:
        return 0
    return games


class LadderInterrupted(KeyboardInterrupt):
    """Ctrl-C during a ladder: the runs finished so far are kept in ``out``."""

    def __init__(self, out: Path, done: int, todo: int):
        super().__init__("interrupted")
        self.out, self.done, self.todo = out, done, todo


# ---------------------------------------------------------------------------------------------
# the ratings a game ships

RATINGS_FILE = "ladder.json"
"""A game's shipped ladder ratings, in its package (``benchmarks/ladder_ratings.py`` writes
them): for each level its strategy, Elo with its 95% interval, seat-games, CPU ms a
decision, the model digest of a level that plays by a model, and the levels rated above it;
the game VERSION, data digest, command and date they were measured with."""


def shipped_ratings(game: str) -> dict | None:
    """The ladder ratings ``game`` ships, or None (a game without them, e.g. a plugin's, or
    a game not installed here)."""
    try:
        path = registry.get_game(str(game)).package_dir / RATINGS_FILE
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (SimkitError, OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and doc.get("kind") == "ladder-ratings" else None
