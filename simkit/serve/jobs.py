"""The workbench's jobs: a command line built from the page's form, played by a worker
process (``simkit.serve.worker``), at most K at once, each with its folder in the runs
folder and its record in ``RUNS/.workbench/jobs/ID`` (job.json, progress.json, log.txt).

A job is the command it shows: ``argv`` is what ``simkit`` is given, so its folder is the one
that command line writes. Cancel sends it Ctrl-C (its finished games are kept); resume plays
the same command with ``--resume``. A job the server did not see end (the server was stopped)
is ``interrupted`` at the next start, and resumes the same way."""

from __future__ import annotations

import json
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from simkit import folders
from simkit.errors import SimkitError

KINDS = ("run", "whatif", "sweep", "sensitivity", "balance", "ladder")
RESUMABLE = KINDS
"""Commands that take ``--resume``."""

CHANGESET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


BOOT = ("import os, signal, sys\n"
        "def stopped(signum, frame):\n"
        "    sys.stderr.write('interrupted: stopped before any game was played; nothing was "
        "written\\n')\n"
        "    os._exit(130)\n"
        "signal.signal(signal.SIGINT, stopped)\n"
        "if os.path.exists(os.path.join(sys.argv[1], 'cancel')):\n"
        "    stopped(None, None)\n"
        "from simkit.serve.worker import main\n"
        "main(sys.argv[1])\n")
"""A job's process: ``python -c BOOT JOB_FOLDER``. It starts with Ctrl-C ignored (a cancel
while Python itself starts would be a traceback), takes Ctrl-C over before importing
anything of simkit, then looks for the ``cancel`` file that the page's cancel writes before
it signals: a cancel as the job starts is a cancel, never lost and never a traceback."""


def _ignore_ctrl_c() -> None:
    """In the job's process before Python starts: Ctrl-C ignored until BOOT takes it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class FormError(SimkitError):
    """A field of the run form that cannot be played: ``field`` names it for the page."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


@dataclass
class Command:
    argv: list[str]
    out: Path
    runs: int = 1  # the runs it plays (a what-if two, a sweep one a point), for progress
    total: int = 0  # the games of all its runs (a balancing search: at most), for progress
    training: dict | None = None  # --train: what the training costs before play

    @property
    def text(self) -> str:
        return "simkit " + shlex.join(self.argv)


def _field(form: dict, name: str, default=None):
    v = form.get(name, default)
    return default if v in (None, "") else v


def build(form: dict, runs: Path, runs_shown: str, changes: dict[str, str],
          lists: dict | None = None, cards=()) -> Command:
    """The command line of the page's form, each field checked by the function the command
    line checks it with (a FormError naming the field otherwise). ``changes``: the change
    set's ``--set`` values; ``lists``: its card lists replaced whole (``{list: rows}``, as
    ``cards.read_card_files`` reads them) from the files ``cards`` (``--cards``);
    ``runs_shown``: the runs folder as the designer gave it.

    ``kind`` is the command: run, whatif, sweep, sensitivity, balance or ladder. A learned
    seat on changed data is the command line's choice too: ``model`` ``refuse`` (the
    default), ``ok`` (``--model-mismatch ok``) or ``train`` (``--train`` with the budget of
    the ``train`` field)."""
    from simkit import registry
    from simkit.numeric import whole
    from simkit.runner import check_seed

    kind = _field(form, "kind", "run")
    if kind not in KINDS:
        raise FormError("kind", f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    game = str(_field(form, "game", ""))
    try:
        spec = registry.get_game(game)
    except SimkitError as exc:
        raise FormError("game", str(exc)) from None
    try:
        players = whole(str(_field(form, "players", spec.players[0])), "--players")
        if players not in spec.players:
            raise SimkitError(f"{game} is for {', '.join(map(str, spec.players))} players, "
                              f"not {players}")
    except SimkitError as exc:
        raise FormError("players", str(exc)) from None
    numbers = {}
    for name, option, default, check in (("games", "--games", DEFAULT_GAMES[kind], _games),
                                         ("seed", "--seed", 0, check_seed)):
        try:
            numbers[name] = check(whole(str(_field(form, name, default)), option))
        except SimkitError as exc:
            raise FormError(name, str(exc)) from None
    precision = _field(form, "precision")
    if precision is not None:
        from simkit.numeric import real

        if kind not in ("run", "whatif", "sweep"):
            raise FormError("precision", f"--precision is for a run, a what-if or a sweep; "
                                         f"a {kind} plays a number of games")
        try:  # as the command line's --precision reads it (cli.precision_option)
            real(str(precision), "--precision", 0, 50, lo_open=True, hi_open=True)
        except SimkitError as exc:
            raise FormError("precision", str(exc)) from None
    trace = _field(form, "trace")
    if trace is not None and str(trace).strip() != "0":
        from simkit.runner import check_trace

        trace = str(trace).strip()
        if kind not in ("run", "whatif", "sweep", "ladder"):
            raise FormError("trace", f"--trace-turns is for a run, a what-if, a sweep or a "
                                     f"ladder, not a {kind}")
        try:  # as the command checks it: the game needs a progress kernel
            check_trace(spec, trace, numbers["games"])
        except SimkitError as exc:
            raise FormError("trace", str(exc)) from None
    else:
        trace = None
    mismatch, train = _model_choice(form)
    field_of_strategies = "levels" if kind == "ladder" else "strategies"
    strategies = _field(form, field_of_strategies, "random")
    if isinstance(strategies, list):
        strategies = ",".join(str(s).strip() for s in strategies)
    strategies = str(strategies)
    if kind != "ladder":
        try:
            registry.resolve_strategies(game, strategies.split(","), players)
        except SimkitError as exc:
            raise FormError("strategies", str(exc)) from None
    if kind == "whatif" and not (changes or lists):
        raise FormError("changeset", "a what-if needs a change set with at least one change "
                                     "to compare the game as it is against")
    sets = [f"{k}={v}" for k, v in changes.items()]
    over = {**(lists or {}), **_overrides(sets)}  # the lists first, as apply_overrides does
    if train:
        from simkit.tune import require_learned

        try:
            require_learned(game, registry.resolve_strategies(
                game, strategies.split(","), players) if kind != "ladder" else
                [s.strip() for s in strategies.split(",")], train)
        except SimkitError as exc:
            raise FormError("train", str(exc)) from None
    if kind != "ladder":
        from simkit.tune import learned_run

        try:  # the run as the command checks it: a learned seat on changed data included
            learned_run(game, players, numbers["games"], numbers["seed"], strategies,
                        over, True, (), mismatch=mismatch, train=train,
                        train_seed=numbers["seed"])
        except SimkitError as exc:
            raise FormError("changeset" if over else "form", str(exc)) from None
    extra, n_runs, total, settings = PLANS[kind](form, game, players, numbers, strategies,
                                                 over, mismatch, train)
    name = _folder_name(kind, game, players, numbers["seed"], _field(form, "changeset"))
    out = _free(runs, name)
    argv = [kind, game, *extra, "--players", str(players),
            "--games", str(numbers["games"]), "--seed", str(numbers["seed"]),
            "--strategies", strategies]
    for path in cards:
        argv += ["--cards", path]
    for s in sets:
        argv += ["--set", s]
    if precision is not None:
        argv += ["--precision", str(precision).strip()]
    if trace is not None:
        argv += ["--trace-turns", trace]
    if mismatch:
        argv += ["--model-mismatch", "ok"]
    if train:
        argv += ["--train", train]
    argv += ["--out", f"{runs_shown.rstrip('/')}/{out.name}", "--quiet"]
    cmd = Command(argv, out, n_runs, total)
    if train and form.get("estimate"):
        cmd.training = training_cost(kind, game, players, strategies, settings, train,
                                     numbers["seed"], n_runs, over)
    return cmd


def training_cost(kind, game, players, strategies, settings, train, seed, n_runs,
                  base: dict) -> dict:
    """What ``--train`` costs before play, as the command estimates it
    (``tune.training_estimate``: the self-play of one model measured now, times the models
    still to train; a model trained before costs nothing). A balancing search trains a
    model for each setting it tries: at most one a run."""
    import os

    from simkit import tune

    workers = os.cpu_count() or 1
    names = strategies.split(",")
    if kind == "ladder":  # the levels: the learned ones, each fine-tuned once
        names = tune.learned_slots(game, names)[:1]
    todo, seconds = tune.training_estimate(game, players, settings or [base], names, (),
                                           train, seed, workers)
    if settings is None and todo:
        todo, seconds = n_runs, seconds * n_runs
    from simkit.ladder import say_duration

    text = (f"--train {train}: {todo} model{'s' * (todo != 1)} to fine-tune first, about "
            f"{say_duration(seconds)} before play" + (" (at most)" if settings is None else "")
            if todo else f"--train {train}: trained before, nothing to train")
    return {"models": todo, "seconds": round(seconds, 1), "text": text}


def _settings(over: dict, points) -> list[dict]:
    """The data of each point of a sweep or a sensitivity run (for ``--train``)."""
    return [{**over, **dict(pt.changes)} for pt in points]


DEFAULT_GAMES = {"run": 10_000, "whatif": 10_000, "sweep": 10_000, "sensitivity": 20_000,
                 "balance": 4_000, "ladder": 200}
"""The number of games when the form gives none: the command's own default (a what-if,
a sweep and a run take the form's 10,000)."""


def _model_choice(form: dict) -> tuple[bool, str]:
    """(``--model-mismatch ok``, ``--train`` budget) of the form's ``model`` field."""
    choice = _field(form, "model", "refuse")
    if choice not in ("refuse", "ok", "train"):
        raise FormError("model", f"model must be one of refuse, ok, train, not {choice!r}")
    if choice != "train":
        return choice == "ok", ""
    from simkit.tune import parse_budget

    train = str(_field(form, "train", "")).strip()
    try:
        parse_budget(train)
    except SimkitError as exc:
        raise FormError("train", str(exc)) from None
    return False, train


def _varies(form: dict, field: str = "vary") -> list[str]:
    return [v.strip() for v in str(_field(form, field, "")).split(";") if v.strip()]


def _plan_run(form, game, players, numbers, strategies, over, mismatch, train):
    runs = 2 if form.get("kind") == "whatif" else 1
    return [], runs, runs * numbers["games"], [{}, over] if runs == 2 else [over]


def _plan_sweep(form, game, players, numbers, strategies, over, mismatch, train):
    from simkit.explore import make_sweep

    varies = _varies(form)
    try:  # the sweep the command would play, every point checked (explore.make_sweep)
        points = make_sweep(game, players, varies, numbers["games"], numbers["seed"],
                            strategies, over, model_mismatch=mismatch,
                            train=train).points
    except SimkitError as exc:
        raise FormError("vary", str(exc)) from None
    n = len(points)
    return [a for v in varies for a in ("--vary", v)], n, n * numbers["games"], \
        _settings(over, points)


def _plan_sensitivity(form, game, players, numbers, strategies, over, mismatch, train):
    from simkit.explore import check_measure, make_sensitivity

    keys = [k.strip() for k in str(_field(form, "keys", "")).split(",") if k.strip()]
    measure = str(_field(form, "measure", "seat-spread")).strip()
    try:
        check_measure(game, measure)
    except SimkitError as exc:
        raise FormError("measure", str(exc)) from None
    try:  # every point checked as `simkit sensitivity` checks it
        spec = make_sensitivity(game, players, numbers["games"], numbers["seed"], strategies,
                                over, True, (), keys or None, None, measure,
                                model_mismatch=mismatch, train=train)
    except SimkitError as exc:
        raise FormError("keys", str(exc)) from None
    extra = (["--keys", ",".join(keys)] if keys else []) + ["--measure", measure]
    return extra, len(spec.points), len(spec.points) * numbers["games"], \
        _settings(over, spec.points)


def _plan_balance(form, game, players, numbers, strategies, over, mismatch, train):
    from simkit.balance import make_balance
    from simkit.numeric import whole

    varies = _varies(form)
    objectives = _varies(form, "objective") or ["first-player-advantage"]
    counts = {}
    for name, option, default in (("trials", "--trials", 40),
                                  ("confirm_games", "--confirm-games", 20_000)):
        try:
            counts[name] = whole(str(_field(form, name, default)), option)
        except SimkitError as exc:
            raise FormError(name, str(exc)) from None
    try:  # the search as `simkit balance` checks it: each key's corners against the game
        spec = make_balance(game, players, varies, objectives, counts["trials"],
                            numbers["games"], 3, counts["confirm_games"], 0.01,
                            numbers["seed"], strategies, over, True, (),
                            mismatch, train)
    except SimkitError as exc:
        field = "objective" if "objective" in str(exc) else \
            "trials" if "--trials" in str(exc) else \
            "confirm_games" if "--confirm-games" in str(exc) else "vary"
        raise FormError(field, str(exc)) from None
    extra = [a for v in varies for a in ("--vary", v)]
    extra += [a for o in objectives for a in ("--objective", o)]
    extra += ["--trials", str(spec.trials), "--confirm-games", str(spec.confirm_games)]
    # the trials, then at most today's data, each best setting and the smallest change
    runs = spec.trials + spec.confirm + 2
    return extra, runs, spec.trials * spec.games + (spec.confirm + 2) * spec.confirm_games, \
        None  # a model a setting tried: not known before the search


def _plan_ladder(form, game, players, numbers, strategies, over, mismatch, train):
    from simkit.ladder import LadderSpec

    try:  # every run of the ladder checked as `simkit ladder` checks it
        spec = LadderSpec.make(game, players, strategies, numbers["games"], None,
                               numbers["seed"], over, (), 0, mismatch, train)
    except SimkitError as exc:
        raise FormError("levels", str(exc)) from None
    schedule = spec.schedule()
    return [], len(schedule), sum(m.games for m in schedule), [over]


PLANS = {"run": _plan_run, "whatif": _plan_run, "sweep": _plan_sweep,
         "sensitivity": _plan_sensitivity, "balance": _plan_balance, "ladder": _plan_ladder}
"""Each command's own options from the form (checked by the function the command checks
them with), its number of runs and its games in all (for the job's progress)."""


def _games(n: int) -> int:
    """The number of games, checked as ``RunSpec.make`` checks it."""
    from simkit.runner import MAX_GAMES

    if not 1 <= n <= MAX_GAMES:
        raise SimkitError(f"the number of games must be an integer from 1 to {MAX_GAMES:,}, "
                          f"not {n!r}")
    return n


def _overrides(sets: list[str]) -> dict:
    from simkit import data

    return data.parse_overrides(sets)


def _folder_name(kind: str, game: str, players: int, seed: int, changeset) -> str:
    """The command line's default folder name, with the change set's name in it."""
    tag = f"-{changeset}" if changeset else ""
    if kind != "run":
        return f"whatif-{game}{tag}-s{seed}" if kind == "whatif" else \
            f"{kind}-{game}-{players}p{tag}-s{seed}"
    return f"{game}-{players}p{tag}-s{seed}"


def _free(runs: Path, name: str) -> Path:
    """``runs/name``, or ``name-2``, ``name-3``... when taken (a job never replaces a
    folder)."""
    taken = {p.name for p in runs.iterdir()} if runs.is_dir() else set()
    taken |= Jobs.reserved
    out, k = name, 1
    while out in taken:
        k += 1
        out = f"{name}-{k}"
    Jobs.reserved.add(out)
    return runs / out


# ------------------------------------------------------------------------ the queue

class Jobs:
    """The queue: starts queued jobs while fewer than ``limit`` run, and notes how each
    ended. One thread polls; the page's requests only read records and add or signal."""

    reserved: set[str] = set()

    def __init__(self, runs: Path, limit: int = 1, python: str = sys.executable):
        self.runs, self.limit, self.python = Path(runs), max(1, limit), python
        self.root = self.runs / ".workbench" / "jobs"
        self.procs: dict[str, subprocess.Popen] = {}
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.thread = None
        self._mark_interrupted()

    # -- records
    def _folder(self, job_id: str) -> Path:
        if not re.fullmatch(r"[0-9]{8}-[0-9]{6}-[0-9a-f]{6}", job_id):
            raise SimkitError(f"no job {job_id!r}")
        folder = self.root / job_id
        if not (folder / "job.json").is_file():
            raise SimkitError(f"no job {job_id!r}")
        return folder

    def record(self, job_id: str) -> dict:
        folder = self._folder(job_id)
        job = json.loads((folder / "job.json").read_text(encoding="utf-8"))
        try:
            job["progress"] = json.loads((folder / "progress.json").read_text("utf-8"))
        except (OSError, ValueError):
            job["progress"] = None
        job["seconds"] = round((job.get("ended") or time.time()) - job["started"], 1) \
            if job.get("started") else 0
        job["summary"] = summary(job)
        return job

    def _save(self, job: dict) -> None:
        folders.write_json(self.root / job["id"] / "job.json", job)

    def _load(self, job_id: str) -> dict:
        return json.loads((self.root / job_id / "job.json").read_text(encoding="utf-8"))

    def all(self) -> list[dict]:
        if not self.root.is_dir():
            return []
        return [self.record(p.name) for p in sorted(self.root.iterdir(), reverse=True)
                if (p / "job.json").is_file()]

    def _mark_interrupted(self) -> None:
        """Jobs a stopped server left queued or running: interrupted, to be resumed."""
        if not self.root.is_dir():
            return
        for p in self.root.iterdir():
            try:
                job = self._load(p.name)
            except (OSError, ValueError):
                continue
            if job.get("status") in ("queued", "running"):
                job.update(status="interrupted", ended=time.time(),
                           message="the server stopped while it played; resume it to play "
                                   "the rest")
                self._save(job)

    # -- changes
    def add(self, command: Command, meta: dict) -> dict:
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        import secrets

        job_id = f"{stamp}-{secrets.token_hex(3)}"
        (self.root / job_id).mkdir(parents=True)
        job = {"id": job_id, "argv": command.argv, "command": command.text,
               "out": command.out.name, "status": "queued", "created": time.time(),
               "started": None, "ended": None, "resume": False, "message": "",
               "runs": command.runs, "total": command.total, **meta}
        with self.lock:
            self._save(job)
        self.poke()
        return job

    def cancel(self, job_id: str) -> dict:
        self._folder(job_id)
        with self.lock:
            job = self._load(job_id)
            if job["status"] == "queued":
                job.update(status="cancelled", ended=time.time(), message="cancelled before "
                                                                           "it started")
                self._save(job)
            elif job["status"] == "running":
                proc = self.procs.get(job_id)
                job["cancelling"] = True
                self._save(job)
                (self.root / job_id / "cancel").touch()  # seen by BOOT if it starts late
                if proc is not None:
                    proc.send_signal(signal.SIGINT)  # as Ctrl-C: the finished games are kept
            else:
                raise SimkitError(f"job {job_id} is {job['status']}: only a queued or running "
                                  "job can be cancelled")
        return self.record(job_id)

    def resume(self, job_id: str) -> dict:
        self._folder(job_id)
        with self.lock:
            job = self._load(job_id)
            if job["status"] not in ("cancelled", "interrupted", "failed"):
                raise SimkitError(f"job {job_id} is {job['status']}: only a cancelled, "
                                  "interrupted or failed job can be resumed")
            # the command resumes what its folder holds (nothing: it plays from the start)
            job.update(status="queued", ended=None, message="", cancelling=False,
                       resume=job["argv"][0] in RESUMABLE)
            self._save(job)
        self.poke()
        return self.record(job_id)

    # -- the loop
    def start(self) -> None:
        self.thread = threading.Thread(target=self._loop, name="simkit-jobs", daemon=True)
        self.thread.start()

    def poke(self) -> None:
        if self.thread is None:  # no loop (tests): one step now
            self.step()

    def _loop(self) -> None:
        while not self.stopped.wait(0.2):
            self.step()

    def step(self) -> None:
        with self.lock:
            for job_id, proc in list(self.procs.items()):
                rc = proc.poll()
                if rc is not None:
                    del self.procs[job_id]
                    self._ended(job_id, rc)
            if len(self.procs) >= self.limit or not self.root.is_dir():
                return
            queued = sorted(p.name for p in self.root.iterdir()
                            if (p / "job.json").is_file() and self._load(p.name)["status"]
                            == "queued")
            for job_id in queued[:self.limit - len(self.procs)]:
                self._launch(job_id)

    def _launch(self, job_id: str) -> None:
        job = self._load(job_id)
        folder = self.root / job_id
        (folder / "progress.json").unlink(missing_ok=True)
        (folder / "cancel").unlink(missing_ok=True)
        log = open(folder / "log.txt", "ab")  # noqa: SIM115 - the child holds it
        self.procs[job_id] = subprocess.Popen(
            [self.python, "-c", BOOT, str(folder)], stdout=log,
            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=Path.cwd(),
            preexec_fn=_ignore_ctrl_c,
            start_new_session=True)  # the terminal's Ctrl-C stops the server, not its jobs
        log.close()
        job.update(status="running", started=time.time(), pid=self.procs[job_id].pid)
        self._save(job)

    def _ended(self, job_id: str, rc: int) -> None:
        job = self._load(job_id)
        last = _last_line(self.root / job_id / "log.txt")
        if rc == 0:
            job.update(status="done", message="")
        elif rc in (130, -signal.SIGINT):  # Ctrl-C: as the command, or before it started
            job.update(status="cancelled" if job.get("cancelling") else "interrupted",
                       message=last if rc == 130 else "interrupted: stopped before any game "
                       "was played; nothing was written")
        else:
            job.update(status="failed", message=last or f"exit status {rc}")
        job["ended"], job["cancelling"] = time.time(), False
        self._save(job)

    def stop(self) -> None:
        """The server stops: each job gets Ctrl-C (keeping its finished games) and a few
        seconds to write its folder."""
        self.stopped.set()
        with self.lock:
            for job_id, proc in self.procs.items():
                (self.root / job_id / "cancel").touch()  # a job still starting stops too
                proc.send_signal(signal.SIGINT)
            for job_id, proc in list(self.procs.items()):
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
                self._ended(job_id, proc.returncode)
            self.procs.clear()


def resume_options(job: dict, runs: Path) -> list[str]:
    """What a resumed job adds to its command: ``--resume``, except for a balancing search
    stopped before its first trial ended, which kept nothing to resume (`simkit balance
    --resume` refuses its folder): it plays again from the start in its own folder
    (``--overwrite``)."""
    if not job.get("resume"):
        return []
    out = runs / job["out"]
    if job["argv"][0] == "balance" and out.is_dir() and \
            not (out / "trials.partial.json").is_file():
        return ["--overwrite"]
    return ["--resume"]


def _last_line(path: Path) -> str:
    try:
        lines = [ln for ln in path.read_text("utf-8", errors="replace").splitlines()
                 if ln.strip() and "\r" not in ln]
    except OSError:
        return ""
    return lines[-1][-300:] if lines else ""


def summary(job: dict) -> dict:
    """A job's progress in a line: games played of all its runs' games, the time left at the
    current run's pace, and the current run's estimate (from the worker's progress.json)."""
    argv = job["argv"]
    per_run = int(argv[argv.index("--games") + 1]) if "--games" in argv else 0
    n_runs = job.get("runs") or (2 if argv[0] == "whatif" else 1)
    total = job.get("total") or per_run * n_runs
    runs = (job.get("progress") or {}).get("runs") or []
    if not runs:
        return {"total": total, "done": 0}
    last = runs[-1]
    # a run played in steps (--precision) starts again at each step: its latest counts
    # (a run kept in memory, a balancing trial, has no folder: each counts apart)
    latest = {r["folder"] or i: r["done"] for i, r in enumerate(runs)}
    done = min(total, sum(latest.values())) if total else last["done"]
    out = {"total": total, "done": done, "estimate": last.get("estimate"),
           "run_label": "/".join(Path(last["folder"]).parts[-2:]) if n_runs > 2 else
           Path(last["folder"]).name if n_runs > 1 and last.get("folder") else "this run"}
    pace = (last["done"] - last["first"]) / max(1e-9, job["progress"]["updated"]
                                                - last["started"])
    if pace > 0 and job.get("status") == "running":
        out["eta"] = round((total - done) / pace, 1)
    return out
