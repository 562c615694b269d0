"""Design exploration: sweeps of a game's numbers over a grid, sensitivity of a measure to
every number, and automatic balancing, all on common seeds.

Every point (a setting of the numbers) is an ordinary run with the same master seed, so
game ``i`` of every point is dealt alike and two points differ by the change, not by luck
(common random numbers). A sweep or sensitivity folder:

    explore.json   the settings, every point (its changes and folder), versions, complete
    summary.json   the figures of every point, paired differences, verdicts
    points/        one run folder a point (``points/03-carrots.cap=5``)

Resuming plays only the points not complete. ``simkit.reports.explore`` computes the figures.
"""

from __future__ import annotations

import json
import math
import os
import sys
from dataclasses import asdict, dataclass, replace
from itertools import product
from pathlib import Path
from typing import Any

from simkit import data, folders, registry
from simkit.errors import SimkitError
from simkit.runner import RunInterrupted, RunSpec, is_complete, progress_bar

MAX_POINTS = 200
"""The most points a sweep plays unless ``--max-points`` allows more."""
MAX_VALUES = 100_000
"""The most values one ``--vary`` gives: a longer range is a typo (its sweep would be refused
by ``--max-points`` anyway), and enumerating 10^11 values exhausts the memory first."""
MIN_GAMES = 2
"""The fewest games a point of a sweep or sensitivity run plays: one game has no interval."""


def numeric_params(game: str, overrides: dict | None = None) -> dict[str, data.Param]:
    """The game's numbers (integers and reals, not true/false, lists or names), as they are
    with ``overrides``: the keys a sweep, a sensitivity run or a balancing may vary."""
    spec = registry.get_game(game)
    params = data.apply_overrides(spec.data, data.parse_overrides(overrides or {}))
    out = {}
    for k, p in params.items():
        v = p.value
        if isinstance(v, bool) or not isinstance(v, int | float):
            continue
        if p.type is not None and p.type not in ("int", "float"):
            continue
        out[k] = p
    return out


def is_int(p: data.Param) -> bool:
    return p.type == "int" if p.type is not None else isinstance(p.default, int)


def _number(text: str, p: data.Param) -> int | float:
    from simkit.numeric import WHOLE, real

    t = text.strip()
    try:
        v = int(t) if WHOLE.fullmatch(t) else real(t, p.key)
    except SimkitError:
        raise SimkitError(f"{p.key}: {t[:40]!r} is not a finite number (digits 0-9, e.g. "
                          f"{p.key}=1,2,3)") from None
    if is_int(p):
        if isinstance(v, float) and not v.is_integer():
            raise SimkitError(f"{p.key} is a whole number; {text.strip()!r} is not")
        v = int(v)
    return v


def _bounds(p: data.Param) -> str:
    lo = "" if p.min is None else p.min
    hi = "" if p.max is None else p.max
    return f"{lo}..{hi}"


def _inside(p: data.Param, v) -> None:
    if p.min is not None and v < p.min or p.max is not None and v > p.max:
        raise SimkitError(f"{p.key}={v} is outside its bounds {_bounds(p)} (today {p.value})")


def _count(key: str, spec: str, span: float) -> int:
    """The number of values of a range ``span`` steps long, or one line when that is more
    than ``MAX_VALUES`` (computed before any value is made: ``0:1e308:1e-300`` is
    infinitely many)."""
    if not math.isfinite(span) or span + 1 > MAX_VALUES:
        raise SimkitError(f"{key}={spec} has more than {MAX_VALUES:,} values; give a "
                          "shorter range or a larger step")
    return int(math.floor(span + 1e-9)) + 1


def parse_vary(game: str, text: str, overrides: dict | None = None,
               need_values: bool = True) -> tuple[str, list]:
    """``KEY=V1,V2,...``, ``KEY=3..6`` (integers), ``KEY=0.5:2.0:0.25`` (start, stop, step,
    both ends included) or, with ``need_values`` False, a bare ``KEY`` (its declared
    bounds) -> (key, values), at most ``MAX_VALUES`` of them, every one finite and within
    the key's bounds. One line naming the problem otherwise."""
    key, eq, spec = str(text).partition("=")
    key = key.strip()
    nums = numeric_params(game, overrides)
    if key not in nums:
        allp = registry.get_game(game).data
        if key in allp:
            raise SimkitError(f"{key} is not a number ({allp[key].value!r}); the numbers of "
                              f"{game}: see `simkit rules {game}`")
        close = sorted(k for k in nums if key.rsplit(".", 1)[-1] in k)[:8]
        raise SimkitError(f"unknown number {key!r} of {game}"
                          + (f"; did you mean {', '.join(close)}?" if close else
                             f"; see `simkit rules {game}`"))
    p = nums[key]
    if not eq:
        if need_values:
            raise SimkitError(f"--vary takes KEY=VALUES (e.g. {key}=1,2,3 or {key}=1..4), "
                              f"not {text!r}")
        return key, []
    spec = spec.strip()
    if ".." in spec and ":" not in spec:
        a, _, b = spec.partition("..")
        lo, hi = _number(a, p), _number(b, p)
        if not is_int(p):
            raise SimkitError(f"{key} is a real number: give START:STOP:STEP "
                              f"(e.g. {key}={lo}:{hi}:0.5) or a list")
        if hi < lo:
            raise SimkitError(f"{key}={spec}: the range runs from {lo} up to {hi}")
        _inside(p, lo)
        _inside(p, hi)
        values = list(range(int(lo), int(lo) + _count(key, spec, hi - lo)))
    elif ":" in spec:
        parts = spec.split(":")
        if len(parts) != 3:
            raise SimkitError(f"{key}={spec}: a stepped range is START:STOP:STEP")
        lo, hi, step = (_number(x, replace(p, type="float", default=0.0)) for x in parts)
        if step <= 0 or hi < lo:
            raise SimkitError(f"{key}={spec}: the step must be positive and STOP at least "
                              "START")
        _inside(p, lo)
        _inside(p, hi)
        count = _count(key, spec, (hi - lo) / step)
        values = [round(lo + i * step, 12) for i in range(count)]
        if is_int(p):
            if any(not float(v).is_integer() for v in values):
                raise SimkitError(f"{key} is a whole number; {spec} gives fractions")
            values = [int(v) for v in values]
    else:
        values = [_number(x, p) for x in spec.split(",") if x.strip()]
    if not values:
        raise SimkitError(f"--vary {key}= gives no values")
    if len(set(values)) != len(values):
        raise SimkitError(f"--vary {key} gives a value twice")
    if len(values) > MAX_VALUES:
        raise SimkitError(f"--vary {key} gives {len(values):,} values, more than "
                          f"{MAX_VALUES:,}")
    for v in values:
        _inside(p, v)
    return key, values


def _label(changes: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in changes.items()) or "base"


@dataclass(frozen=True)
class Point:
    index: int
    changes: tuple  # ((key, value), ...)
    folder: str
    role: str = "point"  # point, base, down, up

    @property
    def label(self) -> str:
        return _label(dict(self.changes))


@dataclass(frozen=True)
class ExploreSpec:
    """A set of points of one game, played on the same seeds (see the module docstring).
    ``kind``: sweep or sensitivity."""

    kind: str
    game: str
    players: int
    games: int
    seed: int
    strategies: tuple[str, ...]
    rotate: bool
    overrides: tuple  # the base: (key, frozen value)
    weights: tuple
    points: tuple[Point, ...]
    varies: tuple = ()  # sweep: ((key, (values...)), ...)
    measure: str = "seat-spread"
    precision: float | None = None
    skipped: tuple[str, ...] = ()  # sensitivity: the steps the game's own laws refuse
    trace: int | str = 0  # games a point traced turn by turn (--trace-turns; "all")
    model_mismatch: bool = False  # --model-mismatch ok: learned plays the default data's model
    train: str = ""  # --train BUDGET: learned plays a model fine-tuned for each point
    assumptions: bool = False  # sensitivity --assumptions: the data's assumed values moved
    unmoved: tuple[str, ...] = ()  # --assumptions: assumed values with no named alternative

    def run_spec(self, pt: Point, games: int | None = None, train_now: bool = False,
                 workers: int = 1, say=None) -> RunSpec:
        """The run of point ``pt``; with ``--train``, its learned seats play the model
        fine-tuned for the point's data (trained now when ``train_now``)."""
        from simkit.tune import learned_run

        over = {**{k: data.thaw(v) for k, v in self.overrides}, **dict(pt.changes)}
        games = games or self.games
        trace = games if self.trace == "all" else min(int(self.trace), games)
        return learned_run(self.game, self.players, games, self.seed, list(self.strategies),
                           over, self.rotate, [f"{s}.{k}={v}" for s, k, v in self.weights],
                           mismatch=self.model_mismatch, train=self.train,
                           train_seed=self.seed, train_now=train_now, workers=workers,
                           say=say, trace=trace)

    def settings(self) -> list[dict]:
        """Each point's data (the base overrides and the point's changes)."""
        base = {k: data.thaw(v) for k, v in self.overrides}
        return [{**base, **dict(pt.changes)} for pt in self.points]

    def as_dict(self) -> dict:
        d = asdict(self)
        d["overrides"] = {k: data.thaw(v) for k, v in self.overrides}
        d["weights"] = [f"{s}.{k}={v}" for s, k, v in self.weights]
        d["points"] = [{"index": p.index, "changes": dict(p.changes), "folder": p.folder,
                        "role": p.role} for p in self.points]
        d["varies"] = {k: list(v) for k, v in self.varies}
        return d


def _base(game, players, games, seed, strategies, overrides, rotate, weights,
          model_mismatch=False, train=""):
    from simkit.runner import MODEL_WEIGHT, parse_weight
    from simkit.tune import learned_run, parse_budget, require_learned

    if train:
        parse_budget(train)  # checked before anything else
    run = learned_run(game, players, games, seed, strategies, overrides, rotate, weights,
                      mismatch=model_mismatch, train=train, train_seed=seed)
    require_learned(game, run.strategies, train)
    over = tuple(sorted((k, data.freeze(v))
                        for k, v in data.parse_overrides(overrides or {}).items()))
    # a model file given stays a setting of every point (a run's weights leave it out)
    files = tuple(w for w in (parse_weight(x) for x in weights or ()) if w[1] == MODEL_WEIGHT)
    return replace(run, weights=run.weights + files), over


def make_sweep(game: str, players: int, varies: list[str], games: int, seed: int = 0,
               strategies="random", overrides=None, rotate: bool = True, weights=None,
               max_points: int = MAX_POINTS, precision: float | None = None, trace=0,
               model_mismatch: bool = False, train: str = "") -> ExploreSpec:
    """A sweep over the grid of ``varies`` (``KEY=VALUES`` each), every point checked;
    ``trace`` games a point traced turn by turn (a number or "all"); ``model_mismatch`` and
    ``train`` as ``simkit.tune.learned_run`` takes them."""
    if not varies:
        raise SimkitError("a sweep needs at least one --vary KEY=VALUES")
    check_games(games)
    run, over = _base(game, players, games, seed, strategies, overrides, rotate, weights,
                      model_mismatch, train)
    from simkit.runner import check_trace

    check_trace(registry.get_game(game), trace, games)
    trace = "all" if trace == "all" else int(trace or 0)
    parsed = [parse_vary(game, v, overrides) for v in varies]
    keys = [k for k, _ in parsed]
    if len(set(keys)) != len(keys):
        raise SimkitError(f"--vary names {sorted({k for k in keys if keys.count(k) > 1})[0]} "
                          "twice")
    size = math.prod(len(vals) for _, vals in parsed)  # before the grid is made
    if size > max_points:
        raise SimkitError(f"the grid has {size:,} points, more than --max-points "
                          f"{max_points:,}; give fewer values or raise --max-points (at "
                          f"most 100,000)")
    grid = list(product(*[vals for _, vals in parsed]))
    points = []
    for i, combo in enumerate(grid):
        changes = tuple(zip(keys, combo, strict=True))
        points.append(Point(i, changes, f"points/{i + 1:03d}-{_label(dict(changes))}"))
    spec = ExploreSpec("sweep", game, players, games, seed, run.strategies, rotate, over,
                       run.weights, tuple(points), tuple((k, tuple(v)) for k, v in parsed),
                       precision=_check_precision(precision), trace=trace,
                       model_mismatch=bool(model_mismatch), train=train or "")
    for pt in spec.points:
        spec.run_spec(pt)  # every point's values checked (cross-value laws too) before play
    return spec


def check_games(games) -> None:
    """A point's games: at least ``MIN_GAMES`` (the most is ``RunSpec``'s to say)."""
    if isinstance(games, int) and not isinstance(games, bool) and games < MIN_GAMES:
        raise SimkitError(f"--games must be at least {MIN_GAMES} a point, not {games:,}: a "
                          "point's intervals need two games or more")


def _check_precision(x):
    if x is None:
        return None
    if not isinstance(x, int | float) or isinstance(x, bool) or not 0 < x < 0.5:
        raise SimkitError(f"--precision is a half-width in points of a rate, from 0 to 50 "
                          f"(e.g. 1 for +-1 point), not {x * 100:g}")
    return float(x)


def step_values(p: data.Param, step: float | None) -> tuple:
    """(down, up) of ``p``: one step below and above its value within its bounds (None
    where the bound stops it). Integers step by ``step`` or 1; reals by ``step`` or 10% of
    the value (0.1 at 0)."""
    from simkit.numeric import real

    v = p.value
    if step is not None:
        step = real(step, "--step", 0, lo_open=True)
    if is_int(p):
        if step is not None and (step != int(step) or step < 1):
            raise SimkitError(f"--step for whole numbers is a whole number of at least 1, "
                              f"not {step:g}")
        d = int(step) if step is not None else 1
    else:
        d = step if step is not None else (abs(v) * 0.1 or 0.1)
    down, up = v - d, v + d
    if not is_int(p):
        down, up = round(down, 12), round(up, 12)
    finite = math.isfinite  # a step beyond a real number's range is no value to play
    down = down if (p.min is None or down >= p.min) and finite(down) else None
    up = up if (p.max is None or up <= p.max) and finite(up) else None
    return down, up


MEASURES = ("seat-spread", "first-player-advantage", "length")


def check_measure(game: str, measure: str) -> str:
    if measure in MEASURES:
        return measure
    if measure.startswith("item:"):
        cols = registry.get_game(game).item_columns
        name = measure[5:]
        if name not in cols:
            raise SimkitError(f"unknown item {name!r} of {game}; items such as "
                              f"{', '.join(list(cols)[:6])} (see a run's items.parquet)")
        return measure
    raise SimkitError(f"unknown measure {measure!r}; valid choices: {', '.join(MEASURES)}, "
                      "item:NAME")


def make_sensitivity(game: str, players: int, games: int, seed: int = 0,
                     strategies="random", overrides=None, rotate: bool = True, weights=None,
                     keys: list[str] | None = None, step: float | None = None,
                     measure: str = "seat-spread", max_points: int = MAX_POINTS,
                     model_mismatch: bool = False, train: str = "") -> ExploreSpec:
    """The base, and every number of ``keys`` (default: all) one step down and up."""
    check_games(games)
    run, over = _base(game, players, games, seed, strategies, overrides, rotate, weights,
                      model_mismatch, train)
    measure = check_measure(game, measure)
    nums = numeric_params(game, overrides)
    chosen = [parse_vary(game, k, overrides, need_values=False)[0] for k in keys] if keys \
        else list(nums)
    points = [Point(0, (), "points/000-base", "base")]
    skipped = []
    for key in chosen:
        down, up = step_values(nums[key], step)
        for role, v in (("down", down), ("up", up)):
            if v is None:
                continue
            try:
                RunSpec.make(game, players, 1, seed, list(run.strategies),
                             {**data.parse_overrides(overrides or {}), key: v}, rotate,
                             weights, model_mismatch=True)  # the laws; models below
            except SimkitError as exc:  # a step the game's own laws refuse: say, skip
                skipped.append(f"{key}={v} ({exc})")
                continue
            i = len(points)
            points.append(Point(i, ((key, v),), f"points/{i:03d}-{key}={v}", role))
    if len(points) > max_points + 1:
        raise SimkitError(f"sensitivity over {len(chosen)} numbers plays {len(points):,} runs, "
                          f"more than --max-points {max_points:,}; name --keys or raise it")
    if len(points) == 1:
        raise SimkitError("no number of " + ", ".join(chosen) + " can move a step within its "
                          "bounds")
    spec = ExploreSpec("sensitivity", game, players, games, seed, run.strategies, rotate,
                       over, run.weights, tuple(points), measure=measure,
                       skipped=tuple(skipped), model_mismatch=bool(model_mismatch),
                       train=train or "")
    for pt in spec.points[1:]:  # a model that does not fit a step: the one line, not a skip
        spec.run_spec(pt, games=1)
    return spec


def assumed_moves(game: str, overrides=None, step: float | None = None
                  ) -> tuple[list[tuple[str, Any, str]], list[str]]:
    """What ``sensitivity --assumptions`` plays: ``(key, value, role)`` for every value of the
    data whose source is ``assumed``: the alternatives the data names for it (``role``
    "alternative"), else a number a step down and up ("down", "up"), every other choice of a
    value with choices ("alternative"), a boolean flipped ("flipped"). A record list's field
    (a card, a board space) or a list moves only through the alternatives its data names:
    the assumed values that cannot move are returned apart, by key."""
    spec = registry.get_game(game)
    params = data.apply_overrides(spec.data, data.parse_overrides(overrides or {}))
    moves, unmoved = [], []
    for key, p in params.items():
        if p.source != "assumed":
            continue
        v = p.value
        if p.alternatives:
            moves += [(key, data.thaw(a), "alternative") for a in p.alternatives
                      if data.thaw(a) != v]
        elif p.records is not None or isinstance(v, list):
            unmoved.append(key)
        elif isinstance(v, bool):
            moves.append((key, not v, "flipped"))
        elif isinstance(v, int | float):
            down, up = step_values(p, step)
            moves += [(key, x, role) for x, role in ((down, "down"), (up, "up"))
                      if x is not None]
        elif p.choices:
            moves += [(key, c, "alternative") for c in p.choices if c != v]
        else:
            unmoved.append(key)
    return moves, unmoved


def make_assumptions(game: str, players: int, games: int, seed: int = 0,
                     strategies=None, overrides=None, rotate: bool = True, weights=None,
                     step: float | None = None, max_points: int = MAX_POINTS,
                     model_mismatch: bool = False, train: str = "") -> ExploreSpec:
    """The base and every move of ``assumed_moves``, all on the same seeds, under the
    game's strong player (``registry.strong_strategy``: one that plays any data, since every
    point's data differs) unless ``strategies`` is given."""
    check_games(games)
    strategies = strategies or registry.strong_strategy(game, players, varied_data=True)
    run, over = _base(game, players, games, seed, strategies, overrides, rotate, weights,
                      model_mismatch, train)
    moves, unmoved = assumed_moves(game, overrides, step)
    if not moves:
        spec = registry.get_game(game)
        if not any(p.source == "assumed" for p in spec.data.values()):
            raise SimkitError(f"{game} has no assumed values: every value of its data comes "
                              "from the rulebook, so --assumptions has nothing to move (see "
                              f"`simkit rules {game}`, column source)")
        raise SimkitError(f"none of {game}'s assumed values can move: "
                          f"{', '.join(unmoved[:6])}{' ...' if len(unmoved) > 6 else ''} are "
                          "lists or records with no alternatives named in the data "
                          "(alternatives = [...], docs/explore.md)")
    points = [Point(0, (), "points/000-base", "base")]
    skipped = []
    base_over = data.parse_overrides(overrides or {})
    for key, v, role in moves:
        try:
            RunSpec.make(game, players, 1, seed, list(run.strategies), {**base_over, key: v},
                         rotate, weights, model_mismatch=True)  # the laws; models below
        except SimkitError as exc:  # a reading the game's own laws refuse: say, skip
            skipped.append(f"{key}={v} ({exc})")
            continue
        i = len(points)
        points.append(Point(i, ((key, v),), f"points/{i:03d}-{key}={v}", role))
    if len(points) > max_points + 1:
        raise SimkitError(f"--assumptions plays {len(points):,} runs, more than --max-points "
                          f"{max_points:,}; raise it")
    spec = ExploreSpec("sensitivity", game, players, games, seed, run.strategies, rotate,
                       over, run.weights, tuple(points), measure="first-player-advantage",
                       skipped=tuple(skipped), assumptions=True, unmoved=tuple(unmoved),
                       model_mismatch=bool(model_mismatch), train=train or "")
    for pt in spec.points[1:]:  # a model that does not fit a reading: the one line
        spec.run_spec(pt, games=1)
    return spec


# ---------------------------------------------------------------------------------------------
# playing


def run_explore(spec: ExploreSpec, out: Path, workers: int | None = None, scheduler: Any =
                None, progress: bool = False, resume: bool = False, fair: float = 0.01
                ) -> dict:
    """Play every point of ``spec`` missing from ``out`` and write the folder; returns
    summary.json's contents. On Ctrl-C the finished points are kept (``ExploreInterrupted``)."""
    from simkit.runner import _versions, run_games, run_precise

    out = Path(out)
    lock = folders.OutputLock(out)
    try:
        if not resume and out.exists() and any(out.iterdir()):
            if folders.kind_of(out) != spec.kind:
                raise SimkitError(f"--out {out} is not a {spec.kind} folder simkit wrote")
            folders.clear(out)  # a link's folder emptied, the link kept
        folders.real(out).mkdir(parents=True, exist_ok=True)  # where a link points
        folders.mark(out, spec.kind)
        doc = {"kind": spec.kind, "spec": spec.as_dict(), "versions": _versions(),
               "complete": False, "skipped": list(spec.skipped)}
        folders.write_json(out / "explore.json", doc)
        runs = [spec.run_spec(p) for p in spec.points]
        # a point with --precision is done when it stopped, most often short of --games
        todo = [i for i, p in enumerate(spec.points)
                if not (is_complete(out / p.folder, runs[i]) if spec.precision is None
                        else _precise_done(out / p.folder))]
        bar = None
        if progress and todo and spec.precision is None:
            bar = progress_bar(len(todo) * spec.games, f"{spec.game} {spec.kind}")
        from simkit.reports.explore import run_widths

        try:
            for n, i in enumerate(todo):
                pt = spec.points[i]
                folder = out / pt.folder
                folder.parent.mkdir(parents=True, exist_ok=True)
                if bar is not None:
                    bar.set_postfix_str(pt.label)
                elif progress:
                    print(f"  point {n + 1} of {len(todo)}: {pt.label}", file=sys.stderr)
                try:
                    if spec.train:  # the point's model, fine-tuned for its data first
                        runs[i] = spec.run_spec(pt, train_now=True, workers=workers or 1,
                                                say=_say_training(progress, bar))
                    if spec.precision is None:
                        run_games(runs[i], out=folder, workers=workers, scheduler=scheduler,
                                  progress=progress, overwrite=True, bar=bar)
                    else:
                        run_precise(runs[i], folder, spec.precision, run_widths, workers,
                                    scheduler, progress, overwrite=True)
                except (RunInterrupted, KeyboardInterrupt) as exc:
                    finished = isinstance(exc, RunInterrupted) and spec.precision is None \
                        and bool(exc.result.meta.get("complete"))  # the point is kept whole
                    raise ExploreInterrupted(out, n + finished, len(todo)) from exc
        finally:
            if bar is not None:
                bar.close()
        from simkit.reports.explore import summarise

        summary = summarise(out, doc, fair)
        folders.write_json(out / "summary.json", summary)
        doc["complete"] = True
        folders.write_json(out / "explore.json", doc)
        return summary
    finally:
        lock.release()


def _say_training(progress: bool, bar):
    """Where a point's training says its generations: above the progress bar, or not."""
    if not progress:
        return None
    return (lambda text: bar.write(f"  training: {text}", file=sys.stderr)) if bar is not None \
        else (lambda text: print(f"  training: {text}", file=sys.stderr))


def _precise_done(folder: Path) -> bool:
    try:
        meta = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    record = meta.get("precision")  # from the first step on; stopped_by once it stopped
    return isinstance(record, dict) and record.get("stopped_by") is not None \
        and meta.get("complete") is True


def check_resume(spec: ExploreSpec, out: Path) -> None:
    """``out`` holds the same exploration (the same settings and points), or one line."""
    path = out / "explore.json"
    if folders.kind_of(out) != spec.kind or not path.is_file():
        raise SimkitError(f"--resume: {out} is not a {spec.kind} folder; start without "
                          "--resume")
    try:
        old = json.loads(path.read_text(encoding="utf-8"))["spec"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SimkitError(f"--resume: {path} cannot be read ({exc}); start again with "
                          "--overwrite") from exc
    new = json.loads(json.dumps(spec.as_dict(), default=str))
    for k in new:
        if k not in old and new[k] in (False, ""):  # a setting added since, at its default
            continue
        if new[k] != old.get(k):
            raise SimkitError(f"--resume: {out} was played with other {k} ({old.get(k)!r}, "
                              f"not {new[k]!r}); give the same settings, or --overwrite")


class ExploreInterrupted(KeyboardInterrupt):
    def __init__(self, out: Path, done: int, todo: int):
        super().__init__("interrupted")
        self.out, self.done, self.todo = out, done, todo


def estimate_seconds(spec: ExploreSpec, workers: int, seconds: float = 0.5) -> float:
    """The exploration's expected wall time from a brief sample of the base point."""
    import time

    from simkit.runner import first_play, plan, play_chunk

    p = plan(spec.run_spec(spec.points[0], games=1))
    first_play(p)  # compiled (and announced) or loaded
    started, played = time.perf_counter(), 0
    while played < 1 or (time.perf_counter() - started < seconds and played < 100_000):
        count = 1 if played < 4 else min(4 * played, 20_000)
        play_chunk(p, 1 + played, count)
        played += count
    per_game = (time.perf_counter() - started) / played
    return per_game * spec.games * len(spec.points) / max(1, min(workers, os.cpu_count() or 1)) \
        + training_seconds(spec, workers)


def training_seconds(spec: ExploreSpec, workers: int) -> float:
    """With ``--train``, the expected time of the fine-tunings still to do (a model a
    point)."""
    from simkit.tune import training_estimate

    return training_estimate(spec.game, spec.players, spec.settings(), list(spec.strategies),
                             [f"{s}.{k}={v}" for s, k, v in spec.weights], spec.train,
                             spec.seed, workers)[1]
