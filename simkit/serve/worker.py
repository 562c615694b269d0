"""One workbench job, in a process of its own: ``python -m simkit.serve.worker JOB_FOLDER``.

It runs the very command line the page showed (``job.json``'s ``argv``, through
``simkit.cli``), so its folder and run.json are those of that command; it only lowers its
own priority first (the page stays quick while it plays) and writes ``progress.json`` beside
``job.json`` as the games are played: for each run of the command, the games played of its
total, the time, and the current first-player advantage with its 95% interval, counted by
``reports.tally.Tally`` (the summary's own counts) over the games this process played.
Ctrl-C (SIGINT, the page's cancel) stops it as it stops the command: the finished games are
kept and ``--resume`` plays the rest."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

EVERY = 0.25
"""Seconds between two writes of progress.json (and one after every run's last chunk)."""

HISTORY = 200
"""Points of the estimate's history kept per run (for the page's chart)."""


class Progress:
    """The watcher of ``simkit.runner.watching``: counts each run's games and writes
    progress.json."""

    def __init__(self, path: Path):
        self.path = path
        self.runs: list[dict] = []
        self.tallies: dict[int, object] = {}
        self.started = time.time()
        self.written = 0.0
        self._write(self.started, force=True)  # started: the page says it prepares

    def __call__(self, p, out, chunk, done: int) -> None:
        try:
            self._watch(p, out, chunk, done)
        except Exception as exc:  # noqa: BLE001 - progress must never stop the games
            print(f"(progress not shown: {type(exc).__name__}: {exc})", file=sys.stderr)

    def _watch(self, p, out, chunk, done: int) -> None:
        from simkit import registry
        from simkit.reports.tally import Tally

        now = time.time()
        if chunk is None:  # a run starts (or resumes at ``done``)
            spec = registry.get_game(p.run.game)
            self.tallies[len(self.runs)] = Tally(p.run.players, spec.teams(p.run.players),
                                                 p.slots, p.run.strategies, spec.end_reasons,
                                                 p.item_columns)
            if self.runs:  # only the current run's estimate is charted: keep the file small
                self.runs[-1]["history"] = []
            self.runs.append({"folder": str(out) if out is not None else None,
                              "total": p.run.games, "first": done, "done": done,
                              "started": now, "history": []})
            return self._write(now, force=True)
        run = self.runs[-1]
        tally = self.tallies[len(self.runs) - 1]
        tally.add(chunk)
        run["done"] = done
        fpa = tally.first_player_advantage()[0]
        run["estimate"] = {"measure": "first-player advantage", "games": tally.games,
                           "value": _num(fpa["advantage"]), "low": _num(fpa["ci_low"]),
                           "high": _num(fpa["ci_high"]),
                           "seat1_win_rate": _num(fpa["seat1_win_rate"])}
        run["history"].append([tally.games, run["estimate"]["value"],
                               run["estimate"]["low"], run["estimate"]["high"]])
        if len(run["history"]) > HISTORY:
            run["history"] = run["history"][::2]
        self._write(now, force=done >= run["total"])

    def _write(self, now: float, force: bool = False) -> None:
        if not force and now - self.written < EVERY:
            return
        self.written = now
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps({"updated": now, "started": self.started,
                                   "runs": self.runs}, allow_nan=False), encoding="utf-8")
        os.replace(tmp, self.path)  # whole or not at all: the server reads it any time


def _num(x) -> float | None:
    x = float(x)
    return None if x != x else round(x, 6)


def _stopped_while_starting(signum, frame):
    sys.stderr.write("interrupted: stopped before any game was played; nothing was written\n")
    os._exit(130)


def main(folder: str) -> None:
    job = json.loads((Path(folder) / "job.json").read_text(encoding="utf-8"))
    try:
        os.nice(10)  # below the server and the designer's other work
    except OSError:
        pass
    from simkit import cli, runner
    from simkit.serve.jobs import resume_options

    argv = list(job["argv"]) + resume_options(job, Path(folder).parents[2])
    sys.argv = ["simkit", *argv]
    with runner.watching(Progress(Path(folder) / "progress.json")):
        cli.entry()


if __name__ == "__main__":
    import signal

    # a cancel while simkit imports: the command's own line and status (cli.entry then
    # takes Ctrl-C over, and a run keeps its finished games)
    signal.signal(signal.SIGINT, _stopped_while_starting)
    main(sys.argv[1])
