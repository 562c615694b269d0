"""Automatic balancing: search a game's numbers for the setting that best meets one or more
objectives, with Optuna's samplers, on common seeds; then confirm the best few on fresh
seeds with intervals.

- A *trial* plays ``games`` games at one setting, always on the search's master seed, so
  every candidate meets the same deals (common random numbers): two candidates differ by
  their numbers, not by luck. Trials count from 1 (progress lines, files, confirmations);
  today's data is trial 1 when the search space holds it.
- One objective: Optuna's TPE sampler (seeded); several: NSGA-II (seeded), whose answer is
  the Pareto front (no setting on it is better at every objective than another).
- Objectives, each a distance to minimise: ``first-player-advantage`` (|seat 1's score share
  minus the mean share|), ``seat-spread`` (largest seat's share minus smallest),
  ``item:NAME`` (|the card's value|), ``length=LO..HI`` (turns outside the range). Every
  figure of a balance folder is in points (100 a share), a length in turns.
- Confirmation, on fresh seeds (master seed ``seed + 1``, ``confirm_games`` games, the same
  games for every setting, so any two are paired): today's data, the best ``confirm``
  settings of the search and the smallest change from today's data whose trial met the
  target. The *confirmed best* is the one nearest the objective there, compared with
  today's data by a paired 95% interval. Then each varied number alone is set to the
  confirmed best's value and paired with today's data, which says which numbers moved the
  objective and which did nothing. A recommendation that puts a number at its declared
  bound (a strength or count at its lowest, a cost at its highest) is warned of: it may
  take a card or an action out of play.

A balance folder: balance.json (settings, versions), trials.parquet and trials.csv (every
trial: its numbers and measures), summary.json, confirmed/ (a run folder a confirmed
setting), and the figure trials.png.
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simkit import data, folders
from simkit.errors import SimkitError
from simkit.escape import csv_frame
from simkit.explore import is_int, numeric_params, parse_vary
from simkit.runner import RunSpec

OBJECTIVES = ("first-player-advantage", "seat-spread", "item:NAME", "length=LO..HI")
REFUSED = 1e6
"""The distance given to a setting the game's own laws refuse (a cap below the start)."""


@dataclass(frozen=True)
class Dimension:
    key: str
    kind: str  # int, float, choice
    low: float | None = None
    high: float | None = None
    step: float | None = None
    choices: tuple = ()
    today: Any = None

    def suggest(self, trial):
        if self.kind == "choice":
            return trial.suggest_categorical(self.key, list(self.choices))
        if self.kind == "int":
            return trial.suggest_int(self.key, int(self.low), int(self.high),
                                     step=int(self.step or 1))
        return trial.suggest_float(self.key, self.low, self.high, step=self.step)

    def distribution(self):
        import optuna.distributions as D

        if self.kind == "choice":
            return D.CategoricalDistribution(list(self.choices))
        if self.kind == "int":
            return D.IntDistribution(int(self.low), int(self.high), step=int(self.step or 1))
        return D.FloatDistribution(self.low, self.high, step=self.step)

    def span(self) -> float:
        if self.kind == "choice":
            values = [float(v) for v in self.choices]
            return (max(values) - min(values)) or 1.0
        return (self.high - self.low) or 1.0


def dimension(game: str, text: str, overrides: dict | None = None) -> Dimension:
    """``KEY`` (its declared bounds), ``KEY=LO..HI``, ``KEY=LO:HI:STEP`` or ``KEY=V1,V2``."""
    key, values = parse_vary(game, text, overrides, need_values=False)
    p = numeric_params(game, overrides)[key]
    spec = str(text).partition("=")[2].strip()
    if not values:
        if p.min is None or p.max is None:
            raise SimkitError(f"{key} has no declared bounds ({p.min}..{p.max}); give its "
                              f"range, e.g. --vary {key}=LO..HI")
        return Dimension(key, "int" if is_int(p) else "float", p.min, p.max, today=p.value)
    if ".." in spec and ":" not in spec:
        return Dimension(key, "int", min(values), max(values), today=p.value)
    if ":" in spec:
        step = float(spec.split(":")[2])
        return Dimension(key, "int" if is_int(p) else "float", min(values), max(values),
                         int(step) if is_int(p) else step, today=p.value)
    return Dimension(key, "choice", choices=tuple(values), today=p.value)


@dataclass(frozen=True)
class Objective:
    text: str
    measure: str  # first-player-advantage, seat-spread, item:NAME, length
    low: float | None = None
    high: float | None = None

    def distance(self, value: float) -> float:
        if math.isnan(value):
            return math.inf
        if self.measure == "length":
            return max(0.0, self.low - value, value - self.high)
        return abs(value)


def objective(game: str, text: str) -> Objective:
    from simkit.explore import check_measure
    from simkit.numeric import real

    t = text.strip()
    if t.startswith("length"):
        _, eq, rng = t.partition("=")
        lo, dots, hi = rng.partition("..")
        try:  # finite turns, in ASCII digits (nan..nan would meet every length)
            low, high = real(lo, "length"), real(hi, "length")
        except SimkitError:
            low = high = None
        if not eq or not dots or low is None or low < 0 or high < low:
            raise SimkitError(f"objective {t[:60]!r}: length takes a range of turns, two "
                              "numbers from 0 up, the first at most the second, e.g. "
                              "length=20..30")
        return Objective(t, "length", low, high)
    if t in ("first-player-advantage", "seat-spread") or t.startswith("item:"):
        return Objective(t, check_measure(game, t))
    raise SimkitError(f"unknown objective {t!r}; valid choices: {', '.join(OBJECTIVES)}")


@dataclass(frozen=True)
class BalanceSpec:
    game: str
    players: int
    strategies: tuple[str, ...]
    rotate: bool
    overrides: tuple
    weights: tuple
    dimensions: tuple[Dimension, ...]
    objectives: tuple[Objective, ...]
    trials: int
    games: int
    confirm: int
    confirm_games: int
    target: float
    seed: int
    model_mismatch: bool = False  # --model-mismatch ok: learned plays the default data's model
    train: str = ""  # --train BUDGET: learned plays a model fine-tuned for each setting

    def run_spec(self, setting: dict, games: int, seed: int, train_now: bool = False,
                 workers: int = 1, say=None) -> RunSpec:
        """The run of ``setting``; with ``--train``, its learned seats play the model
        fine-tuned for the setting's data (trained now when ``train_now``), trained from
        the search's seed."""
        from simkit.tune import learned_run

        over = {**{k: data.thaw(v) for k, v in self.overrides}, **setting}
        return learned_run(self.game, self.players, games, seed, list(self.strategies), over,
                           self.rotate, [f"{s}.{k}={v}" for s, k, v in self.weights],
                           mismatch=self.model_mismatch, train=self.train,
                           train_seed=self.seed, train_now=train_now, workers=workers,
                           say=say)

    def as_dict(self) -> dict:
        return {"game": self.game, "players": self.players,
                "strategies": list(self.strategies), "rotate": self.rotate,
                "overrides": {k: data.thaw(v) for k, v in self.overrides},
                "weights": [f"{s}.{k}={v}" for s, k, v in self.weights],
                "vary": [d.__dict__ | {"choices": list(d.choices)} for d in self.dimensions],
                "objectives": [o.text for o in self.objectives], "trials": self.trials,
                "games": self.games, "confirm": self.confirm,
                "confirm_games": self.confirm_games, "target": 100 * self.target,  # points
                "seed": self.seed,
                "sampler": "TPE" if len(self.objectives) == 1 else "NSGA-II",
                # only when given, so that a search of before them resumes
                **({"model_mismatch": True} if self.model_mismatch else {}),
                **({"train": self.train} if self.train else {})}


def make_balance(game, players, varies, objectives, trials=40, games=4000, confirm=3,
                 confirm_games=20_000, target=0.01, seed=0, strategies="random",
                 overrides=None, rotate=True, weights=None, model_mismatch=False,
                 train="") -> BalanceSpec:
    if not varies:
        raise SimkitError("balance needs at least one --vary KEY (or KEY=RANGE) to search")
    if not objectives:
        raise SimkitError(f"balance needs an --objective; valid choices: "
                          f"{', '.join(OBJECTIVES)}")
    for name, v, lo in (("--trials", trials, 2), ("--games", games, 1),
                        ("--confirm", confirm, 1),
                        ("--confirm-games", confirm_games, 2)):  # an interval needs two
        if not isinstance(v, int) or v < lo:
            raise SimkitError(f"{name} must be a whole number of at least {lo}, not {v!r}")
    if not 0 < target < 0.5:
        raise SimkitError(f"--target is in points, more than 0 and less than 50, not "
                          f"{target * 100:g}")
    from simkit.runner import MODEL_WEIGHT, parse_weight
    from simkit.tune import learned_run, parse_budget, require_learned

    if train:
        parse_budget(train)
    base = learned_run(game, players, games, seed, strategies, overrides, rotate, weights,
                       mismatch=model_mismatch, train=train, train_seed=seed)
    require_learned(game, base.strategies, train)
    files = tuple(w for w in (parse_weight(x) for x in weights or ()) if w[1] == MODEL_WEIGHT)
    dims = tuple(dimension(game, v, overrides) for v in varies)
    keys = [d.key for d in dims]
    if len(set(keys)) != len(keys):
        raise SimkitError("--vary names a number twice")
    objs = tuple(objective(game, o) for o in objectives)
    over = tuple(sorted((k, data.freeze(v))
                        for k, v in data.parse_overrides(overrides or {}).items()))
    spec = BalanceSpec(game, players, base.strategies, rotate, over, base.weights + files,
                       dims, objs, trials, games, confirm, confirm_games, target, seed,
                       bool(model_mismatch), train or "")
    for d in dims:  # the corners of the space, checked against the game's own laws now
        for v in ([d.low, d.high] if d.kind != "choice" else d.choices):
            spec.run_spec({d.key: int(v) if d.kind == "int" else v}, 1, seed)
    return spec


def scale(measure: str) -> float:
    """A measure's unit in a balance folder: points (100 a share) for every rate, a
    first-player advantage, a spread or a card's value; turns for the length."""
    return 1.0 if measure == "length" else 100.0


def _measures(spec: BalanceSpec, res) -> dict[str, float]:
    """Every objective's measure and the three usual ones, in points (turns for length)."""
    from simkit.reports.explore import measure_of

    out = {}
    for o in spec.objectives:
        out[o.text] = scale(o.measure) * measure_of(o.measure, res.games, spec.players,
                                                    res.items, res.meta)
    for m in ("first-player-advantage", "seat-spread", "length"):
        if m not in out:
            out[m] = scale(m) * measure_of(m, res.games, spec.players)
    return out


def _play(spec: BalanceSpec, setting: dict, games: int, seed: int, workers, scheduler,
          out: Path | None = None):
    from simkit.runner import run_games

    return run_games(spec.run_spec(setting, games, seed, train_now=True, workers=workers or 1),
                     out=out, workers=workers, scheduler=scheduler, overwrite=True)


def run_balance(spec: BalanceSpec, out: Path, workers=None, scheduler=None,
                progress: bool = False, resume: bool = False) -> dict:
    """Search, confirm and write the balance folder; returns summary.json's contents.

    Every trial is recorded in ``trials.partial.json`` as it ends; ``resume`` gives the
    recorded trials back to the sampler in order (not replayed) and plays the rest. Trial
    ``n`` is proposed by a sampler seeded from the search's seed and ``n`` (``per_trial``),
    from the trials before it, so a resumed search proposes exactly the trials of an
    uninterrupted one."""
    import optuna
    import pandas as pd

    from simkit.runner import _versions

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    out = Path(out)
    lock = folders.OutputLock(out)
    try:
        recorded = []
        if resume and (out / "trials.partial.json").is_file():
            old = json.loads((out / "balance.json").read_text(encoding="utf-8"))["spec"]
            new = json.loads(json.dumps(spec.as_dict(), default=str))
            diff = [k for k in new if k != "sampler" and new[k] != old.get(k)]
            if diff:
                raise SimkitError(f"--resume: {out} was searched with other {diff[0]} "
                                  f"({old.get(diff[0])!r}, not {new[diff[0]]!r})")
            recorded = json.loads((out / "trials.partial.json").read_text(encoding="utf-8"))
        elif out.exists() and any(out.iterdir()):
            if folders.kind_of(out) != "balance":
                raise SimkitError(f"--out {out} is not a balance folder simkit wrote")
            folders.clear(out)  # a link's folder emptied, the link kept
        folders.real(out).mkdir(parents=True, exist_ok=True)  # where a link points
        folders.mark(out, "balance")
        doc = {"kind": "balance", "spec": spec.as_dict(), "versions": _versions(),
               "complete": False}
        folders.write_json(out / "balance.json", doc)
        many = len(spec.objectives) > 1
        size = space_size(spec)
        if size is not None and size <= spec.trials:  # small enough to try every setting
            kind = "brute force"
            doc["spec"]["sampler"] = "every setting (brute force)"
        else:
            kind = "NSGA-II" if many else "TPE"
        study = optuna.create_study(directions=["minimize"] * len(spec.objectives),
                                    sampler=per_trial(kind, spec.seed))
        today = {d.key: d.today for d in spec.dimensions}
        history = []
        seen: dict[tuple, dict] = {}
        dists = {d.key: d.distribution() for d in spec.dimensions}
        for row in recorded:  # a resumed search: the trials played, given back as they were
            setting = {d.key: row[d.key] for d in spec.dimensions}
            values = [row[f"objective:{o.text}"] for o in spec.objectives]
            study.add_trial(optuna.trial.create_trial(
                params=setting, distributions=dists, values=values,
                system_attrs=row.get(SAMPLER_ATTRS, {})))
            seen[tuple(setting.values())] = {k[8:]: v for k, v in row.items()
                                             if k.startswith("measure:")}
            history.append(row)
        inside = all(d.distribution()._contains(d.distribution().to_internal_repr(d.today))
                     if d.kind != "choice" else d.today in d.choices for d in spec.dimensions)
        if not recorded and inside:  # today's data is the first trial (when searched)
            study.enqueue_trial(today)
        doc["today_in_space"] = inside
        started = time.perf_counter()

        def evaluate(trial):
            setting = {d.key: d.suggest(trial) for d in spec.dimensions}
            key = tuple(setting.values())
            refused = None
            if key not in seen:  # a sampler may propose a setting again: same seeds, same
                try:
                    spec.run_spec(setting, 1, spec.seed)
                except SimkitError as exc:  # the game's own laws refuse this combination
                    refused = str(exc)
                    seen[key] = {}
                else:
                    res = _play(spec, setting, spec.games, spec.seed, workers, scheduler)
                    seen[key] = _measures(spec, res)
            m = seen[key]
            if not m:  # refused: the worst distance, so that the sampler moves away
                refused = refused or "refused by the game's laws"
                dist = [REFUSED] * len(spec.objectives)
            else:
                dist = [o.distance(m[o.text]) for o in spec.objectives]
            number = trial.number + 1  # trials count from 1, in every line and file
            history.append({"trial": number, **setting, **{f"measure:{k}": v
                                                           for k, v in m.items()},
                            **{f"objective:{o.text}": x for o, x in
                               zip(spec.objectives, dist, strict=True)},
                            "refused": refused or "",
                            SAMPLER_ATTRS: _sampler_attrs(study, trial)})
            folders.write_text(out / "trials.partial.json",
                               json.dumps(history, default=float) + "\n")
            if progress:
                print(f"  trial {number}/{spec.trials}: "
                      + ", ".join(f"{k}={v}" for k, v in setting.items()) + " -> "
                      + ", ".join(f"{o.text} {_fmt(o, m[o.text])}" if m else "refused"
                                  for o in spec.objectives),
                      file=sys.stderr)
            return dist if many else dist[0]

        try:
            left = min(spec.trials, size or spec.trials) - len(recorded)
            if left > 0:
                study.optimize(evaluate, n_trials=left)
        except KeyboardInterrupt:
            if len(history) < 2:
                raise
            print(f"interrupted: confirming the best of the {len(history)} trials played",
                  file=sys.stderr)
        search_seconds = time.perf_counter() - started
        trials = pd.DataFrame([{k: v for k, v in row.items() if k != SAMPLER_ATTRS}
                               for row in history])
        played = trials[trials["refused"] == ""] if "refused" in trials else trials
        with folders.new_file(out / "trials.parquet") as tmp:
            trials.to_parquet(tmp, index=False)
        with folders.new_file(out / "trials.csv") as tmp:
            csv_frame(trials).to_csv(tmp, index=False)
        objective_cols = [f"objective:{o.text}" for o in spec.objectives]
        if many:
            front = sorted({t.number + 1 for t in study.best_trials})
            chosen = [t for t in front if t in set(played["trial"])]
        else:
            chosen = list(played.sort_values(objective_cols[0], kind="stable")["trial"])
        keys = [d.key for d in spec.dimensions]
        distinct, settings = [], set()
        for t in chosen:  # one confirmation a setting
            row = trials[trials["trial"] == t].iloc[0]
            if tuple(row[k] for k in keys) not in settings:
                settings.add(tuple(row[k] for k in keys))
                distinct.append(t)
        chosen = distinct[: spec.confirm * (2 if many else 1)]
        smallest = _smallest_change(spec, trials, played, objective_cols, today)
        if smallest is not None and smallest not in chosen:
            same = [t for t in chosen if _setting(trials, t, keys) ==
                    _setting(trials, smallest, keys)]
            if same:
                smallest = same[0]
            else:
                chosen.append(smallest)
        confirm = Confirmations(spec, out, workers, scheduler, progress)
        base = confirm.play(today, "today", "today's data")
        confirmed = []
        for t in chosen:
            row = trials[trials["trial"] == t].iloc[0]
            setting = _setting(trials, t, keys, today)
            c = confirm.play(setting, f"trial{t}", f"trial {t}")
            confirmed.append({"trial": t, **c, "smallest_change": t == smallest,
                              "search": {col: float(row[col]) for col in objective_cols}})
        today_row = next((c for c in confirmed if c["setting"] == today), None)
        if today_row is None:
            today_row = {"trial": _trial_of(trials, today, keys), **base,
                         "smallest_change": False, "search": {}}
            confirmed.append(today_row)
        for c in confirmed:
            c["today"] = c["setting"] == today
            c["against_today"] = _against(spec, confirm, c["setting"], today)
        best = _confirmed_best(spec, confirmed)
        keys_moved = _key_effects(spec, confirm, best["setting"], today,
                                  [c["setting"] for c in confirmed if c is not best]) \
            if best else []
        from simkit.reports.figures import balance_trials_figure, save

        fig = balance_trials_figure(trials, spec)
        with folders.new_file(out / "trials.png") as tmp:
            save(fig, tmp)
        summary = _summary(spec, trials, confirmed, today, smallest, search_seconds, best,
                           keys_moved)
        summary["sampler"] = doc["spec"]["sampler"]
        folders.write_json(out / "summary.json", summary)
        doc["complete"] = True
        folders.write_json(out / "balance.json", doc)
        return summary
    finally:
        lock.release()


SAMPLER_ATTRS = "sampler_attrs"
"""A recorded trial's key (in trials.partial.json only) for what the sampler noted on it
(NSGA-II's generation), given back with the trial when a search is resumed."""


def trial_seed(seed: int, number: int) -> int:
    """The seed of the sampler that proposes trial ``number`` of a search seeded ``seed``."""
    import numpy as np

    return int(np.random.SeedSequence([seed, number]).generate_state(1)[0])


def _sampler(kind: str, seed: int):
    import warnings

    import optuna

    if kind == "brute force":
        with warnings.catch_warnings():  # "experimental" since Optuna 3.1, and stable
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            return optuna.samplers.BruteForceSampler(seed=seed)
    if kind == "NSGA-II":
        return optuna.samplers.NSGAIISampler(seed=seed)
    return optuna.samplers.TPESampler(seed=seed)


def per_trial(kind: str, seed: int):
    """An Optuna sampler (``kind``: TPE, NSGA-II or brute force) that proposes trial ``n``
    as a new sampler seeded ``trial_seed(seed, n)`` does, from the trials before it alone.
    Optuna's samplers draw every trial from one random state that lives in the process, so
    a search resumed in a new process would draw other settings; here nothing but the
    recorded trials carries over."""
    import optuna

    class PerTrial(optuna.samplers.BaseSampler):
        def __init__(self):
            self.current = _sampler(kind, trial_seed(seed, 0))

        def before_trial(self, study, trial):
            self.current = _sampler(kind, trial_seed(seed, trial.number))
            self.current.before_trial(study, trial)

        def infer_relative_search_space(self, study, trial):
            return self.current.infer_relative_search_space(study, trial)

        def sample_relative(self, study, trial, search_space):
            return self.current.sample_relative(study, trial, search_space)

        def sample_independent(self, study, trial, param_name, param_distribution):
            return self.current.sample_independent(study, trial, param_name,
                                                   param_distribution)

        def after_trial(self, study, trial, state, values):
            self.current.after_trial(study, trial, state, values)

        def reseed_rng(self):  # every trial's sampler is seeded already
            pass

    return PerTrial()


def _sampler_attrs(study, trial) -> dict:
    """What the sampler noted on ``trial`` (NSGA-II: its generation), as JSON can hold it."""
    attrs = study.get_trials(deepcopy=False)[trial.number].system_attrs
    return {k: v for k, v in attrs.items() if _plain(v)}


def _plain(v) -> bool:
    try:
        return json.loads(json.dumps(v)) == v
    except (TypeError, ValueError):
        return False


def space_size(spec: BalanceSpec) -> int | None:
    """The number of settings of a search space of whole numbers and lists (None when a
    real number varies freely)."""
    n = 1
    for d in spec.dimensions:
        if d.kind == "choice":
            n *= len(d.choices)
        elif d.kind == "int":
            n *= int((d.high - d.low) // (d.step or 1)) + 1
        elif d.step:
            n *= int(round((d.high - d.low) / d.step)) + 1
        else:
            return None
    return n


def _fmt(o: Objective, v: float) -> str:
    """A measure of a balance folder (already in points, or turns) for people."""
    return f"{v:.1f} turns" if o.measure == "length" else f"{v:+.2f} points"


def _setting(trials, t: int, keys: list[str], today: dict | None = None) -> dict:
    """Trial ``t``'s setting, each value of the type of today's (when given)."""
    row = trials[trials["trial"] == t].iloc[0]
    if today is None:
        return {k: row[k] for k in keys}
    return {k: (int(row[k]) if isinstance(today[k], int) else float(row[k])) for k in keys}


def _trial_of(trials, setting: dict, keys: list[str]) -> int | None:
    """The first trial that played ``setting``, or None."""
    for t in trials["trial"]:
        if all(float(_setting(trials, t, keys)[k]) == float(setting[k]) for k in keys):
            return int(t)
    return None


def _smallest_change(spec, trials, played, objective_cols, today) -> int | None:
    """The trial nearest today's data (ranges scaled to one) among those whose search figures
    met every objective: within +-target points, or a length within its range."""
    keys = [d.key for d in spec.dimensions]
    spans = {d.key: d.span() for d in spec.dimensions}
    ok = None
    for o, col in zip(spec.objectives, objective_cols, strict=True):
        limit = 0.0 if o.measure == "length" else 100 * spec.target
        met = played[col] <= limit + 1e-9
        ok = met if ok is None else ok & met
    meets = played[ok]
    if not len(meets):
        return None
    change = meets[keys].apply(lambda r: sum(abs(float(r[k]) - float(today[k])) / spans[k]
                                             for k in keys), axis=1)
    return int(meets.loc[change.idxmin(), "trial"])


class Confirmations:
    """Settings played on the confirmation seeds (master seed ``seed + 1``, the same games
    for every setting, so any two are paired), each setting once, in folders
    ``confirmed/NN-NAME``."""

    def __init__(self, spec: BalanceSpec, out: Path, workers, scheduler, progress: bool):
        self.spec, self.out = spec, out
        self.workers, self.scheduler, self.progress = workers, scheduler, progress
        self.played: dict[tuple, dict] = {}

    def play(self, setting: dict, name: str, label: str) -> dict:
        from simkit.reports.explore import point_figures

        key = tuple(sorted(setting.items()))
        if key not in self.played:
            folder = self.out / "confirmed" / f"{len(self.played) + 1:02d}-{name}"
            folder.parent.mkdir(parents=True, exist_ok=True)
            if self.progress:
                print(f"  confirming {label} on {self.spec.confirm_games:,} fresh games ...",
                      file=sys.stderr)
            _play(self.spec, setting, self.spec.confirm_games, self.spec.seed + 1,
                  self.workers, self.scheduler, folder)
            figures = point_figures(folder, self.spec.target)
            self.played[key] = {"setting": dict(setting),
                                "folder": str(folder.relative_to(self.out)),
                                **_confirmed(self.spec, folder, figures)}
        return dict(self.played[key])

    def paired(self, measure: str, setting: dict, base: dict) -> dict:
        """``measure`` at ``setting`` minus at ``base`` on the confirmation games, with its
        95% interval, in points (turns for length)."""
        from simkit.reports.explore import _load, paired_difference

        runs = []
        for s in (base, setting):
            folder = self.out / self.played[tuple(sorted(s.items()))]["folder"]
            games, meta = _load(folder)
            runs.append((games, meta, folder / "items.parquet"))
        (gb, mb, ib), (gc, mc, ic) = runs
        d = paired_difference(measure, gb, gc, self.spec.players, ib, ic, mb, mc,
                              seed=self.spec.seed)
        k = scale(measure)
        return {"difference": k * d["difference"], "ci_low": k * d["ci_low"],
                "ci_high": k * d["ci_high"]}


def _toward(o: Objective, base: float, d: dict) -> bool:
    """Whether a paired change ``d`` moves ``base`` toward the objective, its whole 95%
    interval on that side of 0."""
    if o.measure == "length":
        return (base < o.low and d["ci_low"] > 0) or (base > o.high and d["ci_high"] < 0)
    if o.measure == "seat-spread":
        return d["ci_high"] < 0
    return (base > 0 and d["ci_high"] < 0) or (base < 0 and d["ci_low"] > 0)


def _against(spec: BalanceSpec, confirm: Confirmations, setting: dict, today: dict
             ) -> dict | None:
    """Each objective's paired change from today's data to ``setting`` on the confirmation
    games, and whether it is detectably better (closer, the change's interval clear of 0 on
    the side toward the objective). None for today's data itself."""
    if setting == today:
        return None
    base = confirm.play(today, "today", "today's data")
    out = {}
    for o in spec.objectives:
        d = confirm.paired(o.measure, setting, today)
        b = base["objectives"][o.text]["estimate"]
        c = b + d["difference"]
        out[o.text] = {**d, "better": bool(_toward(o, b, d)
                                           and o.distance(c) < o.distance(b))}
    return out


def _confirmed_best(spec: BalanceSpec, confirmed: list[dict]) -> dict | None:
    """The confirmed setting nearest the objectives on the confirmation games (the first
    objective first; today's data wins a tie, since it changes nothing)."""
    if not confirmed:
        return None
    return min(confirmed, key=lambda c: (
        *[c["objectives"][o.text]["distance"] for o in spec.objectives], not c["today"]))


def _key_effects(spec: BalanceSpec, confirm: Confirmations, best: dict, today: dict,
                 others=()) -> list[dict]:
    """Each varied number's own effect: today's data with that number alone set to the
    confirmed best's value (or, where the best keeps today's, the first other confirmed
    setting's: ``from_best`` False), paired with today's data on the confirmation games (95%
    intervals). ``moves``: an interval clear of 0; ``negligible``: wholly within +-target
    points (a length objective: within +-1 turn). ``changed`` False: no confirmed setting
    moved the number, so nothing was measured."""
    out = []
    for d in spec.dimensions:
        k = d.key
        tried = next((s[k] for s in (best, *others) if s[k] != today[k]), today[k])
        row = {"key": k, "today": today[k], "best": best[k], "tried": tried,
               "from_best": tried == best[k], "changed": tried != today[k], "effects": {}}
        if row["changed"]:
            alone = {**today, k: tried}
            confirm.play(alone, f"{k}={tried}", f"{k}={tried} alone")
            for o in spec.objectives:
                e = confirm.paired(o.measure, alone, today)
                width = 1.0 if o.measure == "length" else 100 * spec.target
                e["moves"] = bool(e["ci_low"] > 0 or e["ci_high"] < 0)
                e["negligible"] = bool(-width <= e["ci_low"] and e["ci_high"] <= width)
                row["effects"][o.text] = e
        out.append(row)
    return out


OUT_OF_PLAY_FIELDS = ("strength", "count", "copies", "number", "amount", "health", "value")
"""Fields whose lowest value may leave a card or an action with nothing to do."""


def bound_warnings(spec: BalanceSpec, setting: dict, today: dict) -> list[str]:
    """A line for every number a recommendation moves to its declared bound: a strength or a
    count at its lowest may take a card or an action out of play, a cost at its highest
    may price it out; any other bound means the best may lie beyond the range."""
    from simkit.explore import numeric_params

    params = numeric_params(spec.game, {k: data.thaw(v) for k, v in spec.overrides})
    out = []
    for key, v in setting.items():
        p = params[key]
        low = p.min is not None and v <= p.min
        high = p.max is not None and v >= p.max
        if v == today[key] or not (low or high):
            continue
        field = p.field or key.rsplit(".", 1)[-1]
        what = f"the {p.record} {p.records.noun}" if p.record and p.records else key
        bounds = f"{'' if p.min is None else p.min}..{'' if p.max is None else p.max}"
        if "cost" in field and high:
            why = f"the highest cost may price {what} out of play; check that it is still used"
        elif low and "cost" not in field and any(f in field for f in OUT_OF_PLAY_FIELDS):
            why = f"its lowest {field} may take {what} out of play; check that it is still used"
        else:
            why = "the best may lie beyond the range the data allows"
        out.append(f"Warning: the recommendation sets {key}={v}, at its bound ({bounds}): "
                   f"{why}.")
    return out


def _objective_value(o: Objective, c: dict) -> str:
    x = c["objectives"][o.text]
    iv = f" [{x['ci_low']:+.2f}, {x['ci_high']:+.2f}]" if "ci_low" in x else ""
    if o.measure == "length":
        iv = f" [{x['ci_low']:.1f}, {x['ci_high']:.1f}]" if "ci_low" in x else ""
        return f"length {x['estimate']:.1f}{iv} turns"
    name = "first-player advantage" if o.measure == "first-player-advantage" else o.text
    return f"{name} {x['estimate']:+.2f}{iv} points"


def _confirmed(spec: BalanceSpec, folder: Path, figures: dict) -> dict:
    """A confirmed setting's measures on fresh seeds with 95% intervals, in points (a
    length in turns); ``objectives``: each objective's measure and distance."""
    from simkit.reports.explore import _load, measure_of

    games, meta = _load(folder)
    f = figures["first_player_advantage"]
    length = next(x for x in figures["length"] if x["measure"] == "turns")
    half = 1.96 * length["sd"] / math.sqrt(max(1, figures["games"])) if length["sd"] else 0
    fpa = {"estimate": 100 * f["advantage"], "ci_low": 100 * f["ci_low"],
           "ci_high": 100 * f["ci_high"]}
    turns = {"estimate": length["mean"], "ci_low": length["mean"] - half,
             "ci_high": length["mean"] + half}
    seats = [{**s, **{k: 100 * s[k] for k in ("advantage", "adv_low", "adv_high")
                      if s.get(k) is not None}} for s in figures["seats"]]
    objectives = {}
    for o in spec.objectives:
        if o.measure == "first-player-advantage":
            x = dict(fpa)
        elif o.measure == "length":
            x = dict(turns)
        else:
            x = {"estimate": 100 * measure_of(o.measure, games, spec.players,
                                              folder / "items.parquet", meta)}
        objectives[o.text] = {**x, "distance": o.distance(x["estimate"])}
    out = {"games": figures["games"], "first_player_advantage": fpa, "length": turns,
           "seats": seats, "objectives": objectives}
    # met: the estimate within +-target and its whole 95% interval within +-2 x target
    t = 100 * spec.target
    out["meets_target"] = bool(abs(fpa["estimate"]) <= t and -2 * t <= fpa["ci_low"]
                               and fpa["ci_high"] <= 2 * t) \
        if any(o.measure == "first-player-advantage" for o in spec.objectives) else None
    return out


def _describe(setting: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in setting.items())


def _name(c: dict) -> str:
    return "today's data" if c.get("today") else \
        f"trial {c['trial']}" if c.get("trial") is not None else "a confirmed setting"


def _best_verdict(spec, best: dict, today_row: dict) -> str:
    n = f"{best['games']:,}"
    figures = "; ".join(_objective_value(o, best) for o in spec.objectives)
    if best["today"]:
        return (f"Today's data ({_describe(best['setting'])}) is the confirmed best: no "
                f"setting the search found came closer on {n} fresh games ({figures}).")
    against = best["against_today"]
    parts = []
    for o in spec.objectives:
        a = against[o.text]
        parts.append(f"{a['difference']:+.2f} [{a['ci_low']:+.2f}, {a['ci_high']:+.2f}]"
                     f"{' turns' if o.measure == 'length' else ' points'} on "
                     f"{_what(o)}, "
                     + ("detectably better" if a["better"] else "not detectably better"))
    return (f"Confirmed best: {_describe(best['setting'])} ({_name(best)}), {figures} on "
            f"{n} fresh games; today's data: "
            + "; ".join(_objective_value(o, today_row) for o in spec.objectives)
            + "; the paired change from today's data: " + "; ".join(parts) + ".")


def _keys_verdict(spec, keys: list[dict]) -> str | None:
    """Which varied numbers moved the objective and which did nothing, each measured alone
    from today's data on the confirmation games."""
    if not keys or not any(k["changed"] for k in keys):
        return None
    parts = []
    for k in keys:
        if not k["changed"]:
            parts.append(f"{k['key']} stays at today's {k['today']} in every confirmed "
                         "setting (not measured)")
            continue
        move = f"{k['key']} {k['today']} -> {k['tried']}" + (
            "" if k["from_best"] else " (another confirmed setting's; the best keeps today's)")
        for o in spec.objectives:
            e = k["effects"][o.text]
            unit = "turns" if o.measure == "length" else "points"
            figure = f"{e['difference']:+.2f} [{e['ci_low']:+.2f}, {e['ci_high']:+.2f}] {unit}"
            what = _what(o)
            if e["moves"]:
                parts.append(f"{move} moves {what} by {figure}")
            elif e["negligible"]:
                parts.append(f"{move} does nothing to {what} ({figure}, within "
                             f"±{_width(spec, o)})")
            else:
                parts.append(f"{move} shows no detectable effect on {what} ({figure}; too "
                             f"few games to rule out ±{_width(spec, o)})")
    return ("Each number alone, from today's data (paired on "
            f"{spec.confirm_games:,} fresh games, 95%): " + "; ".join(parts) + ".")


def _what(o: Objective) -> str:
    return {"length": "the length", "first-player-advantage": "the first-player advantage",
            "seat-spread": "the seat spread"}.get(o.measure, f"the value of {o.text[5:]}")


def _points(spec) -> str:
    t = 100 * spec.target
    return f"{t:g} point{'' if t == 1 else 's'}"


def _width(spec, o: Objective) -> str:
    return "1 turn" if o.measure == "length" else _points(spec)


def _summary(spec, trials, confirmed, today, smallest, seconds, best=None,
             keys=()) -> dict:
    from simkit.reports.verdict import clean, qualify

    verdicts, warnings = [], []
    today_row = next((c for c in confirmed if c["today"]), None)
    if best:
        verdicts.append(_best_verdict(spec, best, today_row))
        line = _keys_verdict(spec, list(keys))
        if line:
            verdicts.append(line)
        warnings += bound_warnings(spec, best["setting"], today)
    if smallest is not None:
        c = next(x for x in confirmed if x["trial"] == smallest)
        changes = {k: v for k, v in c["setting"].items() if v != today[k]}
        fa = c["first_player_advantage"]
        verdicts.append("The smallest change from today's data that met the target in the "
                        "search: " + (", ".join(f"{k} {today[k]} -> {v}" for k, v in
                                                changes.items()) or "none (today meets it)")
                        + f" (trial {smallest}); confirmed: first-player advantage "
                        f"{fa['estimate']:+.2f} [{fa['ci_low']:+.2f}, {fa['ci_high']:+.2f}] "
                        "points"
                        + ("" if c["meets_target"] is None else
                           " (meets the target)" if c["meets_target"] else
                           " (on fresh seeds it does not meet the target: a lucky draw in "
                           "the search, or too few games a trial)") + ".")
        warnings += [w for w in bound_warnings(spec, c["setting"], today) if w not in warnings]
    elif any(c["meets_target"] for c in confirmed):
        verdicts.append(f"No trial's search figures (of {spec.games:,} games) came within "
                        f"±{_points(spec)}, but confirmed on fresh games, "
                        + ", ".join(_name(c) for c in confirmed if c["meets_target"])
                        + " meet the target.")
    else:
        verdicts.append(f"No trial met the target (±{_points(spec)}); the best "
                        "settings are confirmed above: widen the ranges or vary other numbers.")
    verdicts = [qualify(v, spec.strategies) for v in verdicts]  # "under random play"
    verdicts += warnings  # a page that shows the verdicts shows the warnings too
    refused = int((trials["refused"] != "").sum()) if "refused" in trials else 0
    return clean({"kind": "balance", **spec.as_dict(), "today": today,
                  "units": "points (100 a share); a length in turns",
                  "trials_played": len(trials), "trials_refused": refused,
                  "search_seconds": round(seconds, 1),
                  "confirmed": confirmed, "smallest_change_trial": smallest,
                  "best": None if best is None else {"setting": best["setting"],
                                                     "trial": best["trial"],
                                                     "today": best["today"]},
                  "keys": list(keys), "verdicts": verdicts, "warnings": warnings})


def balance_text(summary: dict) -> str:
    lines = [f"{summary['game']}, {summary['players']} players: balancing "
             f"{', '.join(d['key'] for d in summary['vary'])} for "
             f"{', '.join(summary['objectives'])} ({summary['sampler']}, "
             f"{summary['trials_played']} trials of {summary['games']:,} games on common "
             f"seeds, {summary['search_seconds']:.0f} s)", "Verdict"]
    lines += [f"  {v}" for v in summary["verdicts"]]  # the warnings among them
    lines.append(f"Confirmed on {summary['confirm_games']:,} fresh games each, the same games "
                 "for every setting (95% intervals, points)")
    best = summary.get("best") or {}
    for c in summary["confirmed"]:
        fa, ln = c["first_player_advantage"], c["length"]
        label = "today" if c.get("today") and c["trial"] is None else f"trial {c['trial']:>3}"
        lines.append(f"  {label}: " + _describe(c["setting"])
                     + f"  FPA {fa['estimate']:+.2f} [{fa['ci_low']:+.2f}, "
                       f"{fa['ci_high']:+.2f}]  turns {ln['estimate']:.1f}"
                     + ("  meets the target" if c["meets_target"] else "")
                     + ("  (today's data)" if c.get("today") else "")
                     + ("  (confirmed best)" if c["setting"] == best.get("setting") else "")
                     + ("  (smallest change)" if c["smallest_change"] else ""))
    return "\n".join(lines)


def estimate_seconds(spec: BalanceSpec, workers: int) -> float:
    from simkit.explore import ExploreSpec, Point
    from simkit.explore import estimate_seconds as est

    probe = ExploreSpec("sweep", spec.game, spec.players, spec.games, spec.seed,
                        spec.strategies, spec.rotate, spec.overrides, spec.weights,
                        (Point(0, (), ""),), model_mismatch=True)
    per_trial = est(probe, workers)
    confirm = per_trial * spec.confirm_games / spec.games
    # the best few, the smallest change, today's data and each number alone
    runs = spec.trials + spec.confirm + 2 + len(spec.dimensions)
    return per_trial * spec.trials + confirm * (spec.confirm + 2 + len(spec.dimensions)) \
        + training_seconds(spec, workers, runs)


def training_seconds(spec: BalanceSpec, workers: int, runs: int) -> float:
    """With ``--train``, the fine-tunings' expected time: a model each of ``runs`` (trials
    and confirmations) at most, each costing what one is measured to cost."""
    from simkit import tune

    if not spec.train:
        return 0.0
    over = {k: data.thaw(v) for k, v in spec.overrides}
    files = tune.model_files(f"{s}.{k}={v}" for s, k, v in spec.weights)
    slots = tune.learned_slots(spec.game, spec.strategies)
    file = files.get(slots[0], files.get("learned")) if slots else None
    plan = tune.plan_tuning(spec.game, spec.players, over, tune.parse_budget(spec.train),
                            spec.seed, file)
    return plan.cost_seconds(workers) * len(set(slots)) * runs

