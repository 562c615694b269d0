"""Train a game's model and show how it improves, generation by generation (issue 29).

A thin face over ``simkit train``'s learner (``simkit.train``): prints a row a generation
(self-play games so far, the learner's score against the last accepted model and whether it
was accepted, its score, outright win rate and rating against the yardstick: the game's
heuristic, else random), the wall and CPU time, and writes the model. Run it again with the
same arguments after a stop (Ctrl-C, a killed job) and it resumes from the last finished
generation; a stop prints the figures of the generations finished so far.

    python benchmarks/train.py pig --players 2 --games 20000
    python benchmarks/train.py rabbit-hunt --players 2 --games 200000 --workers 2 \\
        --out simkit/games/rabbit_hunt/models/2p.npz

The yardstick is measured on seeds of its own (never self-play's nor the acceptance
matches'), and no decision of the training depends on it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from simkit import data, learn, registry
from simkit import train as tr


def row(r: dict) -> str:
    vs, stick = r["vs_last"], r.get("yardstick") or {}
    p = vs["p_value"]
    cells = [f"{r['generation']:>4}", f"{r['games']:>9,}", f"{r['decisions']:>9,}",
             f"{r['loss']:>7.4f}", f"{vs['score']:>7.3f}",
             f"{'< 0.0001' if p < 1e-4 else f'{p:.4f}':>8}", f"{'yes' if r['accepted'] else '':>4}"]
    if stick:
        cells += [f"{stick['strategy']:>10}", f"{stick['score']:>6.3f}",
                  f"{stick['win_rate']:>6.1%}", f"{stick['elo']:>+6.0f}"]
    return " ".join(cells)


HEAD = (f"{'gen':>4} {'games':>9} {'records':>9} {'loss':>7} {'vs last':>7} {'p':>8} "
        f"{'acc':>4} {'yardstick':>10} {'score':>6} {'won':>6} {'Elo':>6}")


def timed_phases() -> dict:
    """Wrap the learner's phases (``simkit.train``'s self-play, fit, targets, match, ...)
    so that each adds its wall, CPU and system seconds to the dict returned."""
    import resource

    import numpy as np

    spent: dict = {}

    def wrap(owner, name, label):
        real = getattr(owner, name)

        def timed(*args, **kw):
            r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
            try:
                return real(*args, **kw)
            finally:
                r1 = resource.getrusage(resource.RUSAGE_SELF)
                w, c, k = spent.get(label, (0.0, 0.0, 0.0))
                spent[label] = (w + time.perf_counter() - t0,
                                c + r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime,
                                k + r1.ru_stime - r0.ru_stime)
        setattr(owner, name, timed)

    for owner, name, label in (
            (tr.Table, "play", "games (self-play, and the two below)"),
            (tr, "match", "acceptance"), (tr, "yardstick", "yardstick"), (tr, "fit", "fit"),
            (tr, "td_targets", "targets"), (tr, "standardisation", "standardising"),
            (np, "savez", "writing data"), (tr.Trainer, "_data", "reading data")):
        wrap(owner, name, label)
    return spent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, required=True, help="self-play games in all")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, help="the model (default: "
                    "runs/train-GAME-Np-sSEED/model.npz; its folder beside it)")
    ap.add_argument("--set", dest="overrides", action="append", default=[],
                    metavar="KEY=VALUE")
    for name, (_, _, whole) in tr.KNOB_RANGES.items():
        ap.add_argument(f"--{name.replace('_', '-')}", type=int if whole else float)
    ap.add_argument("--yardstick")
    ap.add_argument("--phases", action="store_true",
                    help="after each generation, the wall and CPU seconds of each phase so far")
    args = ap.parse_args()
    phases = timed_phases() if args.phases else None
    knobs = {k: getattr(args, k) for k in tr.KNOB_RANGES if getattr(args, k) is not None}
    ts = tr.make_spec(args.game, args.players, args.seed, args.games, args.overrides,
                      yardstick=args.yardstick, **knobs)
    out = args.out or Path("runs") / f"train-{args.game}-{args.players}p-s{args.seed}" / \
        "model.npz"
    folder = tr.folder_for(out)
    resume = (folder / "train.json").is_file()
    trainer = tr.Trainer(ts, folder, args.workers)
    state = trainer.start(resume)
    print(f"# {args.game}, {args.players} players, seed {args.seed}, {args.games:,} self-play "
          f"games in {ts.generations()} generations of {ts.games_per_generation:,}; "
          f"{'resumed at generation ' + str(len(state.generations)) if resume else 'new'}; "
          f"-> {out}", flush=True)
    print(f"# command: {ts.command()}", flush=True)
    print(HEAD, flush=True)
    for r in state.generations:
        print(row(r), flush=True)
    wall, cpu = time.perf_counter(), time.process_time()
    def say(_):
        print(row(state.generations[-1]), flush=True)
        if phases is not None:
            print("#   " + ", ".join(f"{name} {w:.0f} s ({c:.0f} s CPU, {k:.0f} s of it system)"
                                   for name, (w, c, k) in phases.items()), flush=True)

    trainer.say = say
    try:
        state = trainer.run(state)
    except KeyboardInterrupt:
        done = json.loads((folder / "train.json").read_text())["generations"] \
            if (folder / "train.json").is_file() else []
        print(f"# stopped after {len(done)} finished generations "
              f"({time.perf_counter() - wall:.0f} s of wall time this session); run the same "
              "command again to resume", flush=True)
        sys.exit(130)
    model = trainer.final(state)
    learn.write_model(model, out)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    spec = registry.get_game(args.game)
    print(f"# wrote {out} (generation {state.accepted}; digest {model.digest[:12]}; data "
          f"{data.data_digest(trainer.table.plan.params)}, VERSION {spec.version})")
    print(f"# this session: {wall:.0f} s wall, {cpu:.0f} s CPU "
          f"({cpu / 3600:.3f} machine-hours of one core)")


if __name__ == "__main__":
    main()
