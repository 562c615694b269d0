"""Weigh each game's assumptions and ship the table: `simkit sensitivity GAME --assumptions`
at the default data under the game's strong player, written (with the data's digest and
this command) to simkit/games/<game>/assumptions.json (one table a player count, the others
kept), which `simkit rules GAME` and the report's endings section read. Prints each table as
markdown for the game's NOTES.md.

    python benchmarks/assumptions.py                           # every game, 2 players
    python benchmarks/assumptions.py --game watership-down --games 2000
    python benchmarks/assumptions.py --game war-of-the-wilds --players 3
    python benchmarks/assumptions.py --game pig --dry-run      (Pig from examples/: prints only)
    python benchmarks/assumptions.py --show                    (the shipped tables, as markdown)

Sized for the shared 2-core machine: --games (default 2,000) games a point, every point on
the same seeds; a game has 3 to 9 points (the base and each move of an assumed value).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from simkit.reports.assumptions import markdown, shipped_tables, table_doc, write_table

from simkit import registry
from simkit.explore import make_assumptions, run_explore

GAMES = ("watership-down", "war-of-the-wilds", "avalon", "rabbit-hunt", "dolina-krolikow")


def one(game: str, games: int, players: int, seed: int, workers: int | None,
        dry_run: bool) -> dict:
    spec = make_assumptions(game, players, games, seed)
    out = Path(tempfile.mkdtemp(prefix="simkit-assumptions-")) / "a"
    started = time.perf_counter()
    try:
        summary = run_explore(spec, out, workers)
    finally:
        shutil.rmtree(out.parent, ignore_errors=True)
    command = (f"python benchmarks/assumptions.py --game {game} --games {games} --players "
               f"{players} --seed {seed}")
    doc = table_doc(summary, command)
    doc["seconds"] = round(time.perf_counter() - started, 1)
    if not dry_run:
        write_table(game, doc)
    return doc


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", action="append", help="A game (repeatable; default: all five).")
    ap.add_argument("--games", type=int, default=2000, help="Games a point.")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--dry-run", action="store_true", help="Print the table, write nothing.")
    ap.add_argument("--show", action="store_true",
                    help="Print the shipped tables as markdown; play nothing.")
    args = ap.parse_args(argv)
    if args.game and "pig" in args.game:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
        from pig_game import GAME

        registry.register_game(GAME)
    for game in args.game or GAMES:
        if args.show:
            for table in shipped_tables(game).values():
                print(markdown(table) + "\n")
            continue
        doc = one(game, args.games, args.players, args.seed, args.workers, args.dry_run)
        print(markdown(doc))
        print(f"({doc['seconds']:.0f} s)\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
