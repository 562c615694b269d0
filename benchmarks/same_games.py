"""Same games before and after an engine change: a digest of games.parquet and items.parquet
for every registered game and player count (simkit's five and the two examples), under
random play and under a mix of each game's strategies.

    python benchmarks/same_games.py --save before.json     # on the old code
    python benchmarks/same_games.py --compare before.json  # on the new code: same digests?
    python benchmarks/same_games.py --game avalon --compare before.json   # one game's cases

Each digest is the sha256 of the table sorted by game (and seat) and written as CSV, so it
covers every value (ranks, scores, turns, decisions, end reasons, strategies, items).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "examples"))


def digest(df, keys) -> str:
    table = df.sort_values(keys).reset_index(drop=True)
    return hashlib.sha256(table.to_csv(index=False).encode()).hexdigest()[:16]


def lineups(game: str, players: int) -> dict[str, list[str]]:
    """random everywhere, and the game's own strategy against random (and first); the
    searches are left out (benchmarks/search_strength.py measures them)."""
    from simkit import registry

    own = [name for name, s in registry.strategies_for(game).items()
           if name not in ("random", "first") and s.search is None]
    mix = [(own[0] if own else "first"), "random", "first", own[0] if own else "random"]
    return {"random": ["random"] * players, "mix": mix[:players]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--game", help="only this game's cases (--compare then checks only them)")
    ap.add_argument("--save", type=Path)
    ap.add_argument("--compare", type=Path)
    args = ap.parse_args()
    from connect_four import GAME as CONNECT_FOUR
    from pig_game import GAME as PIG

    from simkit import registry
    from simkit.runner import RunSpec, run_games

    registry.register_game(PIG)
    registry.register_game(CONNECT_FOUR)
    found = {}
    for game, spec in registry.games().items():
        if args.game not in (None, game):
            continue
        for n in spec.players:
            for label, names in lineups(game, n).items():
                run = RunSpec.make(game, n, args.games, seed=args.seed, strategies=names)
                res = run_games(run, workers=args.workers)
                key = f"{game} {n}p {label} ({','.join(names)})"
                found[key] = {"games": digest(res.games, ["game"]),
                              "items": digest(res.items, ["game", "seat"])}
                print(f"{key:62} games {found[key]['games']}  items {found[key]['items']}",
                      flush=True)
    if args.save:
        args.save.write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
    if args.compare:
        before = json.loads(args.compare.read_text(encoding="utf-8"))
        if args.game:
            before = {k: v for k, v in before.items() if k.split(" ", 1)[0] == args.game}
        differ = [k for k in before if found.get(k) != before[k]]
        missing = [k for k in before if k not in found]
        print(f"{len(before) - len(differ)} of {len(before)} cases identical to {args.compare}"
              + (f"; DIFFERENT: {', '.join(differ)}" if differ else "")
              + (f"; missing: {', '.join(missing)}" if missing else ""))
        if differ:
            sys.exit(1)


if __name__ == "__main__":
    main()
