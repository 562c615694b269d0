"""Automatic balancing: search a game's numbers for the setting that best meets one or more
objectives, with Optuna's samplers, on common seeds; then confirm the best few on fresh
seeds with intervals.

- A *trial* plays ``games`` games at one setting, always on the search's master seed, so
  every candidate meets the same deals (common random numbers): two candidates differ by
  their numbers, not by luck. Today's data is the first trial.
- One objective: Optuna's TPE sampler (seeded); several: NSGA-II (seeded), whose answer is
  the Pareto front (no setting on it is better at every objective than another).
- Objectives, each a distance to minimise: ``first-player-advantage`` (|seat 1's score share
  minus the mean share|), ``seat-spread`` (largest seat's share minus smallest),
  ``item:NAME`` (|the card's value|), ``length=LO..HI`` (turns outside the range).
- The best ``confirm`` settings (and the smallest change from today's data whose trial met
  the target) are played again on fresh seeds (master seed ``seed + 1``) with
  ``confirm_games`` games, with 95% intervals, so the answer is not a lucky draw.

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
                "confirm_games": self.confirm_games, "target": self.target, "seed": self.seed,
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


def _measures(spec: BalanceSpec, res) -> dict[str, float]:
    from simkit.reports.explore import measure_of

    out = {}
    for o in spec.objectives:
        out[o.text] = measure_of(o.measure, res.games, spec.players, res.items, res.meta)
    for m in ("first-player-advantage", "seat-spread", "length"):
        if m not in out:
            out[m] = measure_of(m, res.games, spec.players)
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

    from simkit.reports.explore import point_figures
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
            history.append({"trial": trial.number, **setting, **{f"measure:{k}": v
                                                                 for k, v in m.items()},
                            **{f"objective:{o.text}": x for o, x in
                               zip(spec.objectives, dist, strict=True)},
                            "refused": refused or "",
                            SAMPLER_ATTRS: _sampler_attrs(study, trial)})
            folders.write_text(out / "trials.partial.json",
                               json.dumps(history, default=float) + "\n")
            if progress:
                print(f"  trial {trial.number + 1}/{spec.trials}: "
                      + ", ".join(f"{k}={v}" for k, v in setting.items()) + " -> "
                      + ", ".join(f"{o.text} {_fmt(o, m[o.text])}" for o in spec.objectives),
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
            front = sorted({t.number for t in study.best_trials})
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
        spans = {d.key: d.span() for d in spec.dimensions}
        meets = played[(played[objective_cols] <= spec.target).all(axis=1)] \
            if all(o.measure != "length" for o in spec.objectives) else \
            played[(played[objective_cols] <= 0).all(axis=1)]
        smallest = None
        if len(meets):
            change = meets[keys].apply(lambda r: sum(abs(float(r[k]) - float(today[k])) /
                                                     spans[k] for k in keys), axis=1)
            smallest = int(meets.loc[change.idxmin(), "trial"])
            same = [t for t in chosen if all(
                trials.loc[trials["trial"] == t, k].iloc[0] ==
                trials.loc[trials["trial"] == smallest, k].iloc[0] for k in keys)]
            if same:
                smallest = same[0]
            else:
                chosen.append(smallest)
        confirmed = []
        for n, t in enumerate(chosen):
            row = trials[trials["trial"] == t].iloc[0]
            setting = {k: (int(row[k]) if isinstance(today[k], int) else float(row[k]))
                       for k in keys}
            folder = out / "confirmed" / f"{n + 1:02d}-trial{t}"
            folder.parent.mkdir(parents=True, exist_ok=True)
            if progress:
                print(f"  confirming trial {t} on {spec.confirm_games:,} fresh games ...",
                      file=sys.stderr)
            _play(spec, setting, spec.confirm_games, spec.seed + 1, workers, scheduler,
                  folder)
            figures = point_figures(folder, 0.01)
            confirmed.append({"trial": t, "setting": setting, "folder": str(
                folder.relative_to(out)), "smallest_change": t == smallest,
                "search": {c: float(row[c]) for c in objective_cols},
                **_confirmed(spec, folder, figures)})
        from simkit.reports.figures import balance_trials_figure, save

        fig = balance_trials_figure(trials, spec)
        with folders.new_file(out / "trials.png") as tmp:
            save(fig, tmp)
        summary = _summary(spec, trials, confirmed, today, smallest, search_seconds)
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
    return f"{v:.1f} turns" if o.measure == "length" else f"{100 * v:+.2f} points"


def _confirmed(spec: BalanceSpec, folder: Path, figures: dict) -> dict:
    """A confirmed setting's measures on fresh seeds with 95% intervals (paired bootstrap
    over its games for the seat spread)."""
    from simkit.reports.explore import _load, measure_of

    games, meta = _load(folder)
    f = figures["first_player_advantage"]
    length = next(x for x in figures["length"] if x["measure"] == "turns")
    half = 1.96 * length["sd"] / math.sqrt(max(1, figures["games"])) if length["sd"] else 0
    out = {"games": figures["games"],
           "first_player_advantage": {"estimate": f["advantage"], "ci_low": f["ci_low"],
                                      "ci_high": f["ci_high"]},
           "length": {"estimate": length["mean"], "ci_low": length["mean"] - half,
                      "ci_high": length["mean"] + half},
           "seats": figures["seats"]}
    for o in spec.objectives:
        if o.measure.startswith("item:"):
            out[o.text] = {"estimate": measure_of(o.measure, games, spec.players,
                                                  folder / "items.parquet", meta)}
    fa = out["first_player_advantage"]
    # met: the estimate within +-target and its whole 95% interval within +-2 x target
    out["meets_target"] = bool(abs(fa["estimate"]) <= spec.target
                               and -2 * spec.target <= fa["ci_low"]
                               and fa["ci_high"] <= 2 * spec.target) \
        if any(o.measure == "first-player-advantage" for o in spec.objectives) else None
    return out


def _summary(spec, trials, confirmed, today, smallest, seconds) -> dict:
    from simkit.reports.verdict import clean, qualify

    best = confirmed[0] if confirmed else None
    verdicts = []
    if best:
        s = ", ".join(f"{k}={v}" for k, v in best["setting"].items())
        fa = best["first_player_advantage"]
        verdicts.append(f"Best setting found: {s}; confirmed on {best['games']:,} fresh "
                        f"games, first-player advantage {100 * fa['estimate']:+.2f} points "
                        f"[{100 * fa['ci_low']:+.2f}, {100 * fa['ci_high']:+.2f}].")
    if smallest is not None:
        c = next(x for x in confirmed if x["trial"] == smallest)
        changes = {k: v for k, v in c["setting"].items() if v != today[k]}
        fa = c["first_player_advantage"]
        verdicts.append("The smallest change from today's data that met the target in the "
                        "search: " + (", ".join(f"{k} {today[k]} -> {v}" for k, v in
                                                changes.items()) or "none (today meets it)")
                        + f"; confirmed: first-player advantage {100 * fa['estimate']:+.2f} "
                        f"[{100 * fa['ci_low']:+.2f}, {100 * fa['ci_high']:+.2f}] points"
                        + ("" if c["meets_target"] is None else
                           " (meets the target)" if c["meets_target"] else
                           " (on fresh seeds it does not meet the target: a lucky draw in "
                           "the search, or too few games a trial)") + ".")
    elif any(c["meets_target"] for c in confirmed):
        verdicts.append(f"No trial's search figures (of {spec.games:,} games) came within "
                        f"±{100 * spec.target:g} points, but confirmed on fresh games, "
                        + ", ".join(f"trial {c['trial']}" for c in confirmed
                                    if c["meets_target"]) + " meet the target.")
    else:
        verdicts.append(f"No trial met the target (±{100 * spec.target:g} points); the best "
                        "settings are confirmed above: widen the ranges or vary other numbers.")
    verdicts = [qualify(v, spec.strategies) for v in verdicts]  # "under random play"
    refused = int((trials["refused"] != "").sum()) if "refused" in trials else 0
    return clean({"kind": "balance", **spec.as_dict(), "today": today,
                  "trials_played": len(trials), "trials_refused": refused,
                  "search_seconds": round(seconds, 1),
                  "confirmed": confirmed, "smallest_change_trial": smallest,
                  "verdicts": verdicts})


def balance_text(summary: dict) -> str:
    lines = [f"{summary['game']}, {summary['players']} players: balancing "
             f"{', '.join(d['key'] for d in summary['vary'])} for "
             f"{', '.join(summary['objectives'])} ({summary['sampler']}, "
             f"{summary['trials_played']} trials of {summary['games']:,} games on common "
             f"seeds, {summary['search_seconds']:.0f} s)", "Verdict"]
    lines += [f"  {v}" for v in summary["verdicts"]]
    lines.append(f"Confirmed on {summary['confirm_games']:,} fresh games each (95% intervals)")
    for c in summary["confirmed"]:
        fa, ln = c["first_player_advantage"], c["length"]
        lines.append(f"  trial {c['trial']:>3}: " + ", ".join(f"{k}={v}" for k, v in
                                                                c["setting"].items())
                     + f"  FPA {100 * fa['estimate']:+.2f} [{100 * fa['ci_low']:+.2f}, "
                       f"{100 * fa['ci_high']:+.2f}]  turns {ln['estimate']:.1f}"
                     + ("  meets the target" if c["meets_target"] else "")
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
    return per_trial * spec.trials + confirm * (spec.confirm + 1) + training_seconds(spec,
                                                                                    workers)


def training_seconds(spec: BalanceSpec, workers: int) -> float:
    """With ``--train``, the fine-tunings' expected time: a model a trial and a
    confirmation at most, each costing what one is measured to cost."""
    from simkit import tune

    if not spec.train:
        return 0.0
    over = {k: data.thaw(v) for k, v in spec.overrides}
    files = tune.model_files(f"{s}.{k}={v}" for s, k, v in spec.weights)
    slots = tune.learned_slots(spec.game, spec.strategies)
    file = files.get(slots[0], files.get("learned")) if slots else None
    plan = tune.plan_tuning(spec.game, spec.players, over, tune.parse_budget(spec.train),
                            spec.seed, file)
    per = plan.cost_seconds(workers) * len(set(slots))
    return per * (spec.trials + spec.confirm + 1)

