"""``--train BUDGET``: play ``learned`` with a model fitted to the game being measured.

A model learns one game's numbers (``docs/learning.md``). A run, a what-if, a sweep, a
sensitivity run, a balancing search or a ladder on other data (a ``--set``, ``--cards``)
either refuses ``learned`` (the model does not fit), plays the model of the default data
anyway (``--model-mismatch ok``), or, with ``--train``, fine-tunes a model for its data
first: ``simkit train`` started from the *nearest* model (the file ``--weight
learned.model`` names, else the user's or the shipped model of the game's default data),
with that model's knobs, on a budget of self-play games (``5000g``: reproducible, the same
seed gives the same model bytes) or of time (``10m``).

The model is kept in simkit's cache (``models/tuned/``), named by the game, the player
count, the data, the base model, the budget and the seed, so the same command finds it
again instead of training it again (a what-if's base side, a sweep's points, a resumed
ladder), and an interrupted training goes on from its last finished generation.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simkit import data, learn, registry
from simkit.errors import SimkitError

MAX_GAMES = 10**9
_GAMES = re.compile(r"([0-9][0-9_,]*)\s*(g|games?)")
_TIME = re.compile(r"[0-9.]+\s*[smh]")
PROBE_GAMES = 16
"""Self-play games the estimate of a training's cost plays (and drops)."""


@dataclass(frozen=True)
class Budget:
    """A training's budget: ``games`` self-play games (reproducible) or ``seconds``."""

    games: int | None = None
    seconds: float | None = None

    @property
    def key(self) -> str:
        """The budget in a file name: ``5000g`` or ``600s``."""
        return f"{self.games}g" if self.games is not None else f"{self.seconds:g}s"

    def __str__(self) -> str:
        from simkit.ladder import say_duration

        if self.games is not None:
            return f"{self.games:,} self-play games"
        return f"{say_duration(self.seconds)} of self-play"


def parse_budget(text) -> Budget:
    """``--train``'s value: ``5000g`` (or ``5000games``) self-play games, or a time
    (``90s``, ``10m``, ``2h``); one line naming the valid forms otherwise. A bare number
    is refused: it would be unclear whether it counts games or seconds."""
    from simkit.ladder import parse_duration

    t = str(text).strip().lower()
    m = _GAMES.fullmatch(t)
    if m:
        n = int(m.group(1).replace("_", "").replace(",", ""))
        if not 1 <= n <= MAX_GAMES:
            raise SimkitError(f"--train {text}: a games budget is from 1g to "
                              f"{MAX_GAMES:,}g, not {n:,}")
        return Budget(games=n)
    if _TIME.fullmatch(t):
        return Budget(seconds=parse_duration(t))
    raise SimkitError(f"--train takes a budget of self-play games (e.g. 5000g: the same seed "
                      f"gives the same model) or a time (90s, 10m, 2h), not {str(text)[:40]!r}")


def nearest(game: str, players: int, params: dict, file: Path | None = None) -> learn.Found:
    """The model a training for ``params`` starts from: ``file``, else the model that fits
    the data (the user's, then the shipped one), else the model of the default data."""
    spec = registry.get_game(game)
    registry.check_learnable(game, "--train")
    return learn.find_model(spec, players, data.data_digest(params), data.data_digest(spec.data),
                            file, mismatch_ok=True)


def tuned_path(game: str, players: int, digest: str, base: str, budget: Budget,
               seed: int) -> Path:
    """Where the model trained for these is kept (simkit's cache, ``models/tuned/``)."""
    return (learn.cache_root() / "models" / "tuned"
            / f"{game}-{players}p-{digest}-from-{base[:12]}-{budget.key}-s{seed}.npz")


def knobs_of(base: learn.Model, budget: Budget) -> dict:
    """The base model's training knobs (those ``simkit.train`` still takes), with no
    yardstick (a fine-tuning measures nothing it does not need), and at least four
    generations in a small games budget so the acceptance test has more than one chance."""
    from simkit.train import KNOB_RANGES

    given = (base.card.get("training") or {}).get("knobs") or {}
    knobs = {k: v for k, v in given.items() if k in KNOB_RANGES and k != "hidden"}
    knobs["yardstick_games"] = 0
    per = int(knobs.get("games_per_generation", 1000))
    if budget.games is not None and budget.games < 4 * per:
        knobs["games_per_generation"] = max(min(per, 50), budget.games // 4)
    return knobs


@dataclass
class Plan:
    """A fine-tuning ready to run (``train``), or done already (``done``)."""

    game: str
    players: int
    params: dict
    budget: Budget
    seed: int
    base: learn.Found
    spec: object  # simkit.train.TrainSpec
    out: Path

    @property
    def done(self) -> bool:
        return self.out.is_file()

    def estimate_seconds(self, workers: int = 1) -> float:
        """The training's expected wall time: its self-play and acceptance games, at the
        cost of a few games of the base model measured now (the fits are not counted)."""
        return 0.0 if self.done else self.cost_seconds(workers)

    def cost_seconds(self, workers: int = 1) -> float:
        """What this training costs (or cost), done or not (see ``estimate_seconds``)."""
        if self.budget.seconds is not None:
            return self.budget.seconds
        from simkit.rng import game_seeds
        from simkit.train import Table

        ts = self.spec
        table = Table(self.game, self.players, ts.overrides)
        # training plays by values (a base model's policy is not what it costs)
        row = table.row(self.base.model, samples=ts.samples, by=learn.BY["values"])
        seeds = game_seeds(0, 0, PROBE_GAMES)
        zeros = np.zeros((PROBE_GAMES, self.players), np.int32)
        table.play(row[None], zeros[:1], seeds[:1], record=False)  # compiled, not timed
        t0 = time.perf_counter()
        table.play(row[None], zeros, seeds, record=False)
        per_game = (time.perf_counter() - t0) / PROBE_GAMES
        generations = ts.generations() or 1
        games = self.budget.games + generations * max(2, ts.match_games // self.players) \
            * self.players
        return per_game * games / max(1, min(workers, 2))

    def describe(self) -> str:
        where = self.base.source.split(": ", 1)[0]
        return (f"a model for this data, {self.budget} from the {where} model "
                f"{self.base.model.digest[:12]}, seed {self.seed}")

    def train(self, workers: int = 1, say=None) -> learn.Model:
        """The model: trained now (resuming an interrupted training of the same settings),
        or read back when this plan was trained before."""
        from simkit import train as tr

        if self.done:
            model = learn.read_model(self.out, self.game, self.players,
                                     what="the model trained before")
        else:
            folder = tr.folder_for(self.out)
            trainer = tr.Trainer(self.spec, folder, workers, say, self.base.model)
            try:
                state = trainer.start(resume=(folder / "train.json").is_file())
            except SimkitError:  # a training of other settings in the way: start again
                tr.remove_folder(folder)
                state = trainer.start(resume=False)
            state = trainer.run(state, self.budget.seconds)
            model = trainer.final(state)
            learn.write_model(model, self.out)
            tr.remove_folder(folder)  # its self-play data; the model's card keeps the curve
        learn.SOURCES[learn.remember(model)] = f"trained: {self.out}"
        return model


def plan_tuning(game: str, players: int, overrides, budget: Budget, seed: int,
                base_file: Path | None = None, base: learn.Found | None = None) -> Plan:
    """The fine-tuning of a model for ``game`` with ``overrides``: from ``base`` (a model
    already found: a what-if trains both sides from one), else the nearest model."""
    from simkit import train as tr

    spec = registry.get_game(game)
    over = data.parse_overrides(overrides)
    params = data.apply_overrides(spec.data, over)
    base = base or nearest(game, players, params, base_file)
    path = base.source.split(": ", 1)[-1]
    ts = tr.make_spec(game, players, seed, budget.games, over, base.model, path,
                      **knobs_of(base.model, budget))
    out = tuned_path(game, players, data.data_digest(params), base.model.digest, budget, seed)
    return Plan(game, players, params, budget, seed, base, ts, out)


def learned_slots(game: str, names) -> list[str]:
    """The slots of ``names`` that play by a model (``simkit.runner.model_slots``)."""
    from simkit.runner import model_slots

    return model_slots(game, names)


def model_files(weights) -> dict[str, Path]:
    """``--weight SLOT.model=FILE`` items by slot: a fine-tuning's starting model."""
    from simkit.runner import MODEL_WEIGHT, parse_weight

    return {s: Path(v) for s, k, v in (parse_weight(w) for w in weights or ())
            if k == MODEL_WEIGHT}


def without_models(weights) -> list[str]:
    """``weights`` without ``SLOT.model=FILE`` (a trained model replaces the file)."""
    from simkit.runner import MODEL_WEIGHT, parse_weight

    return [w for w in weights or () if parse_weight(w)[1] != MODEL_WEIGHT]


def learned_run(game: str, players: int, games: int, seed: int, strategies, overrides,
                rotate: bool, weights, *, mismatch: bool = False, train: str = "",
                train_seed: int = 0, train_now: bool = False, workers: int = 1, say=None,
                **kw):
    """``RunSpec.make`` under the rule for a model that does not fit: ``mismatch``
    (``--model-mismatch ok``) lets a learned seat play the model of other data; ``train``
    (``--train``'s budget) makes each learned slot play the model fine-tuned for
    ``overrides`` from seed ``train_seed``: trained now when ``train_now`` (or read back
    when it was trained before), else, while a sweep, a ladder or a balancing search is
    checked before play, the run is checked with the nearest model."""
    from simkit.runner import RunSpec

    if not train:
        return RunSpec.make(game, players, games, seed, strategies, overrides, rotate, weights,
                            model_mismatch=mismatch, **kw)
    budget = parse_budget(train)
    probe = RunSpec.make(game, players, games, seed, strategies, overrides, rotate, weights,
                         model_mismatch=True, **kw)
    slots = learned_slots(game, probe.strategies)
    if not slots:  # a ladder's other levels, say: nothing to fit
        return probe if mismatch else RunSpec.make(game, players, games, seed, strategies,
                                                   overrides, rotate, weights, **kw)
    files = model_files(weights)
    models = {}
    for slot in dict.fromkeys(slots):
        plan = plan_tuning(game, players, overrides, budget, train_seed,
                           files.get(slot, files.get(registry.split_budget(slot)[0])))
        if not (plan.done or train_now):
            return probe
        models[slot] = plan.train(workers, say)
    return RunSpec.make(game, players, games, seed, strategies, overrides, rotate, weights,
                        model_mismatch=mismatch, models=models, **kw)


def require_learned(game: str, strategies, train: str) -> None:
    """One line when ``--train`` is given and no seat plays ``learned``."""
    if train and not learned_slots(game, strategies):
        raise SimkitError(f"--train fits the model that learned plays; no seat here plays "
                          f"learned (the strategies: {', '.join(strategies)})")


def training_estimate(game: str, players: int, settings: list, strategies, weights,
                      train: str, seed: int, workers: int) -> tuple[int, float]:
    """(trainings still to do, their expected seconds) for the data of each of
    ``settings`` (overrides dicts): one model a setting a learned slot, each costing what
    the first one to do is measured to cost."""
    if not train:
        return 0, 0.0
    budget = parse_budget(train)
    names = registry.resolve_strategies(game, strategies, players)
    slots = list(dict.fromkeys(learned_slots(game, names)))
    files = model_files(weights)
    todo: list[Plan] = []
    for over in settings:
        for slot in slots:
            file = files.get(slot, files.get(registry.split_budget(slot)[0]))
            plan = plan_tuning(game, players, over, budget, seed, file)
            if not plan.done and plan.out not in {p.out for p in todo}:
                todo.append(plan)
    if not todo:
        return 0, 0.0
    return len(todo), todo[0].estimate_seconds(workers) * len(todo)
