"""Each game's shipped ladder ratings (simkit/games/<game>/ladder.json), measured.

For every game (or the ones named with ``--game``), a 2-player ``simkit ladder`` of the
standard levels at their defaults, at the game's default data: random, the heuristic,
learned, ismcts and ismcts+learned (a game without one of them plays the levels it has),
within ``--time`` of wall time at ``nice -n 5``. Then the CPU time a decision of each level
(2-player self-play, one worker, ``time.process_time``), and the shipped file: each level's
strategy, rating with its 95% interval, seat-games, CPU ms a decision, the model it played
(digest) where it plays by one, and what it was measured on (game VERSION, data digest, the
command, the date, the CPU time the ladder took). The headline reads the file to say "a
stronger player exists" (``simkit.reports.headline``); a test checks each file's VERSION,
data digest and model digests against its game (tests/test_ladder_ratings.py).

Resumable: a game whose ladder folder (under ``--out``) is complete is not played again;
one stopped part-way is resumed (``simkit ladder --resume``); the costs are kept beside it.
Each game's table is printed as soon as it is known, so a stopped run has printed its
partial figures. Rerun one game (after a rules, data or model change) with ``--game G
--fresh``.

    python benchmarks/ladder_ratings.py                          # all five, 6 min each
    python benchmarks/ladder_ratings.py --game avalon --fresh    # one game again
    python benchmarks/ladder_ratings.py --game avalon --time 2m --dry-run   # no file written
    python benchmarks/ladder_ratings.py --notes --game avalon   # its NOTES.md section
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from simkit import data, registry
from simkit.folders import write_json
from simkit.ladder import shipped_ratings

GAMES = ("avalon", "dolina-krolikow", "rabbit-hunt", "war-of-the-wilds", "watership-down")
LEVELS = ("random", "heuristic", "learned", "ismcts", "ismcts+learned")
SEED = 3030
"""The ladder's master seed: a plain run seed (training draws its own, sha256-derived)."""
COST_CPU_SECONDS = 3.0
"""CPU seconds of self-play that measure a level's cost a decision (at least one game)."""


def levels_for(game: str) -> list[str]:
    """The standard levels this game has, weakest first."""
    own = registry.strategies_for(game)
    return [s for s in LEVELS if s in own]


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def ladder_command(game: str, levels: list[str], time_budget: str, out: Path) -> list[str]:
    """The ladder's command (run from this process, which ``main`` has niced by 5)."""
    return [sys.executable, "-m", "simkit", "ladder", game, "--players",
            "2", "--strategies", ",".join(levels), "--time", time_budget, "--seed", str(SEED),
            "--workers", "2", "--out", str(out), "--quiet"]


def play(game: str, levels: list[str], time_budget: str, out: Path) -> dict:
    """Play (or resume, or keep) the game's ladder in ``out``; returns its CPU account."""
    account_path = out.parent / f"{out.name}.account.json"
    account = json.loads(account_path.read_text()) if account_path.is_file() else \
        {"cpu_seconds": 0.0, "wall_seconds": 0.0}
    meta = out / "ladder.json"
    if meta.is_file() and json.loads(meta.read_text()).get("complete"):
        return account
    cmd = ladder_command(game, levels, time_budget, out)
    if meta.is_file():
        cmd += ["--resume"]
    print(f"{game}: {' '.join(cmd[2:])}", flush=True)
    cpu, wall = children_cpu(), time.perf_counter()
    done = subprocess.run(cmd, check=False)
    account["cpu_seconds"] += children_cpu() - cpu
    account["wall_seconds"] += time.perf_counter() - wall
    write_json(account_path, account)
    if done.returncode != 0:
        raise SystemExit(f"{game}: simkit ladder stopped (exit {done.returncode}); the same "
                         "command resumes it")
    return account


def cost_ms(game: str, strategy: str, levels: list[str]) -> float:
    """CPU ms a decision of ``strategy`` in 2-player self-play on one worker (forced moves
    not counted), from about ``COST_CPU_SECONDS`` of play, with the ladder's driver (compiled
    with every level, so numba's cache has it)."""
    from simkit.runner import RunSpec, run_games

    def make(games: int, seed: int) -> RunSpec:
        return RunSpec.make(game, 2, games, seed, strategy, compile_with=tuple(levels))

    run_games(make(1, SEED), workers=1)  # loaded or compiled, not timed
    cpu, chosen, games, start = 0.0, 0, 1, 1
    while cpu < COST_CPU_SECONDS and start < 100_000:
        run = make(games, SEED + start)
        t = time.process_time()
        res = run_games(run, workers=1)
        cpu += time.process_time() - t
        chosen += int((res.games["decisions"] - res.games["forced"]).sum())
        start += games
        games = min(4 * games, 5_000)
    return 1000 * cpu / max(chosen, 1)


def costs(game: str, levels: list[str], out: Path) -> dict[str, float]:
    path = out.parent / f"{out.name}.costs.json"
    have = json.loads(path.read_text()) if path.is_file() else {}
    for s in levels:
        if s not in have:
            have[s] = round(cost_ms(game, s, levels), 4)
            write_json(path, have)
            print(f"  {game} {s}: {have[s]:.4f} CPU ms a decision", flush=True)
    return have


def stronger(fit: dict, names: list[str]) -> dict[str, list[str]]:
    """For each level, the levels rated above it (their rating difference's 95% interval
    lies above 0), strongest first."""
    from simkit.reports.ratings import rating_difference

    by = {r["strategy"]: r["rating"] for r in fit["ratings"]}
    return {a: sorted((b for b in names if b != a
                       and rating_difference(fit, b, a)["ci_low"] > 0), key=lambda b: -by[b])
            for a in names}


def shipped(game: str, out: Path, account: dict, cost: dict[str, float], time_budget: str
            ) -> dict:
    """The file the game ships, from its ladder folder."""
    from simkit.reports.ladder import summarise

    doc = json.loads((out / "ladder.json").read_text())
    summary = summarise(out, doc)  # afresh: the verdicts as the current code words them
    spec = registry.get_game(game)
    names = summary["strategies"]
    fit = summary["ratings"]
    above = stronger(fit, names)
    by = {r["strategy"]: r for r in fit["ratings"]}
    levels = []
    for li, name in enumerate(names):
        run = json.loads((out / "levels" / f"{li + 1:02d}-{name}" / "run.json").read_text())
        models = run.get("models") or {}
        model = next(iter(models.values()), None)
        r = by[name]
        levels.append({
            "strategy": name, "rating": round(r["rating"], 1),
            "ci_low": None if r["strategy"] == fit["anchor"] else round(r["ci_low"], 1),
            "ci_high": None if r["strategy"] == fit["anchor"] else round(r["ci_high"], 1),
            "seat_games": r["seat_games"], "cpu_ms_a_decision": cost.get(name),
            "model_digest": model["digest"] if model else None,
            "stronger": above[name]})
    lad = doc["ladder"]
    return {
        "kind": "ladder-ratings", "game": game, "players": int(lad["players"]),
        "game_version": spec.version, "data_digest": data.data_digest(spec.data),
        "anchor": fit["anchor"], "rating_model": fit["model"],
        "games_a_pair": lad["games"], "level_games": lad["level_games"], "seed": lad["seed"],
        "levels": levels,
        "settled": [{k: s.get(k) for k in ("figure", "state", "top", "below", "difference",
                                          "ci_low", "ci_high", "games", "text")}
                    for s in summary.get("settled", [])],
        "command": f"python benchmarks/ladder_ratings.py --game {game} --time {time_budget}",
        "ladder_command": "nice -n 5 simkit " + " ".join(
            ladder_command(game, names, time_budget, Path("OUT"))[3:]),
        "cpu_seconds": round(account["cpu_seconds"], 1),
        "wall_seconds": round(account["wall_seconds"], 1),
        "date": dt.date.today().isoformat(),
    }


def show(doc: dict) -> None:
    print(f"\n{doc['game']} (VERSION {doc['game_version']}, data {doc['data_digest']}): "
          f"{doc['games_a_pair']} games a pair, {doc['level_games']} a level; "
          f"{doc['cpu_seconds'] / 60:.1f} CPU min, {doc['wall_seconds'] / 60:.1f} min wall")
    print(f"  {'level':<22}{'Elo':>7}  {'95% interval':<15}{'seat-games':>11}"
          f"{'CPU ms/decision':>17}  rated above it")
    for lv in sorted(doc["levels"], key=lambda x: -x["rating"]):
        ci = "anchor" if lv["ci_low"] is None else f"[{lv['ci_low']:.0f}, {lv['ci_high']:.0f}]"
        ms = "" if lv["cpu_ms_a_decision"] is None else f"{lv['cpu_ms_a_decision']:.4f}"
        print(f"  {lv['strategy']:<22}{lv['rating']:>7.0f}  {ci:<15}{lv['seat_games']:>11,}"
              f"{ms:>17}  {', '.join(lv['stronger']) or '-'}")
    for s in doc["settled"]:
        print(f"  - {s['text']}")
    sys.stdout.flush()


def notes(doc: dict) -> str:
    """The game's NOTES.md section on this ladder (Markdown), from its shipped file."""
    lines = [
        f"## Ladder with learnt play (issue 30, VERSION {doc['game_version']})", "",
        f"A 2-player ladder of the standard levels at their defaults, at the default data "
        f"(digest {doc['data_digest']}): {doc['games_a_pair']:,} games a pair (both seat "
        f"orders on the same deals) and {doc['level_games']:,} self-play games a level, seed "
        f"{doc['seed']}, measured {doc['date']} on the shared 2-core machine at `nice -n 5` "
        f"within `--time {doc['command'].rsplit(' ', 1)[-1]}`: {doc['cpu_seconds'] / 60:.1f} "
        f"CPU minutes, {doc['wall_seconds'] / 60:.1f} minutes of wall time (the machine "
        f"was shared: the ladder had {doc['cpu_seconds'] / doc['wall_seconds']:.2f} of a core "
        f"on average, and each ladder's size is what fitted). Command: "
        f"`{doc['command']}`, which runs `{doc['ladder_command']}`. The ratings ship in "
        f"`ladder.json` (the headline's \"a stronger player exists\", docs/ladder.md). Elo "
        f"against random ({doc['rating_model']} with a seat term); CPU ms a decision in "
        f"2-player self-play on one worker (forced moves not counted).", "",
        "| level | Elo | 95% interval | seat-games | CPU ms a decision | rated above it |",
        "| --- | ---: | --- | ---: | ---: | --- |"]
    for lv in sorted(doc["levels"], key=lambda x: -x["rating"]):
        ci = "anchor" if lv["ci_low"] is None else f"[{lv['ci_low']:.0f}, {lv['ci_high']:.0f}]"
        ms = "" if lv["cpu_ms_a_decision"] is None else f"{lv['cpu_ms_a_decision']:.3g}"
        model = f" (model {lv['model_digest'][:12]})" if lv["model_digest"] else ""
        lines.append(f"| {lv['strategy']}{model} | {lv['rating']:.0f} | {ci} | "
                     f"{lv['seat_games']:,} | {ms} | {', '.join(lv['stronger']) or '-'} |")
    if doc["settled"]:
        s0 = doc["settled"][0]
        lines += ["", f"Has balance settled? The ladder's own verdict, between its two "
                  f"levels rated highest ({s0['top']} and {s0['below']}):", ""]
        lines += [f"- **{s['state']}**: {s['text']}" for s in doc["settled"]]
        if any(s.get("ci_low") is not None and s["ci_low"] == s["ci_high"]
               for s in doc["settled"]):
            lines += ["", "An interval of zero width comes from so few paired level games "
                      "that every one gave the same difference: it is no evidence of "
                      "precision."]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", action="append", choices=GAMES,
                    help="a game (repeatable; default: all five)")
    ap.add_argument("--time", default="6m", help="each ladder's wall time (simkit ladder "
                    "--time; default 6m: about 12 CPU minutes on an idle "
                    "2-core machine)")
    ap.add_argument("--out", type=Path, default=Path("runs/ladder-ratings"),
                    help="where the ladder folders are kept (resumed from)")
    ap.add_argument("--fresh", action="store_true", help="play the named games again")
    ap.add_argument("--dry-run", action="store_true", help="print, write no shipped file")
    ap.add_argument("--notes", action="store_true", help="print each game's NOTES.md "
                    "section from its shipped file, and nothing else (nothing is played)")
    a = ap.parse_args()
    if a.notes:
        for game in a.game or GAMES:
            print(notes(shipped_ratings(game)))
        return
    os.nice(5)  # the cost measurements too
    total = 0.0
    for game in a.game or GAMES:
        out = a.out / game
        if a.fresh:
            shutil.rmtree(out, ignore_errors=True)
            for suffix in (".account.json", ".costs.json"):
                (a.out / f"{game}{suffix}").unlink(missing_ok=True)
        levels = levels_for(game)
        account = play(game, levels, a.time, out)
        names = json.loads((out / "summary.json").read_text())["strategies"]
        doc = shipped(game, out, account, costs(game, names, out), a.time)
        show(doc)
        total += doc["cpu_seconds"]
        if not a.dry_run:
            path = registry.get_game(game).package_dir / "ladder.json"
            write_json(path, doc)
            print(f"  wrote {path}", flush=True)
    print(f"\nladders: {total / 60:.1f} CPU min in all (costs a decision not counted)")


if __name__ == "__main__":
    main()
