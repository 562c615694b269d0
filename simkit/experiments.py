"""Experiment files: one or more runs described in TOML, for ``simkit run FILE.toml``.

    [[run]]
    name = "rh-2p-heuristic"        # the run's folder under --out: a plain name
    game = "rabbit-hunt"
    players = 2
    games = 100_000
    seed = 1
    strategies = ["heuristic", "random"]   # or "heuristic,random"; one per seat or one for all
    rotate = true                   # seats rotate strategies (default)
    weights = ["heuristic.catch=2"] # optional strategy weights
    cards = ["cards.csv"]           # optional card lists from CSV files (as --cards; paths
                                    # relative to this file)
    check_cards = 2000              # optional: check the strongest and weakest cards by
                                    # playing 2,000 games without one copy (as --check-cards)
    [run.set]                       # optional overrides of the game's data
    "carrots.cap" = 8

Every run is checked before any is played, so a bad file writes nothing.

``simkit ladder FILE.toml`` takes ``[[ladder]]`` tables instead (``load_ladders``):

    [[ladder]]
    name = "rh-2p"                  # the ladder's folder under --out
    game = "rabbit-hunt"
    players = 2
    strategies = ["random", "heuristic", "ismcts@100"]   # the levels, weakest first
    games = 200                     # a pairing (or time = "10m" instead)
    level_games = 500               # optional: self-play games a level (default: games)
    seed = 1
    weights = ["ismcts.rollout=random"]
    cards = ["cards.csv"]
    [ladder.set]
    "carrots.cap" = 8
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from simkit.cards import explained, read_card_files
from simkit.checks import check_games
from simkit.errors import SimkitError
from simkit.numeric import real
from simkit.runner import RunSpec

RUN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
KEYS = {"name", "game", "players", "games", "seed", "strategies", "rotate", "set", "weights",
        "cards", "trace_turns", "kingmaking", "model_mismatch"}
REQUIRED = ("game", "players", "games")
TYPES = [("game", (str,), "a game name"), ("players", (int,), "an integer"),
         ("games", (int,), "an integer"), ("seed", (int,), "an integer"),
         ("strategies", (str, list), "a name, a comma-separated list or a list of names"),
         ("rotate", (bool,), "true or false"), ("set", (dict,), "a table of KEY = VALUE"),
         ("weights", (list,), 'a list of "STRATEGY.KEY=NUMBER"'),
         ("cards", (list,), 'a list of card files ("cards.csv", "LIST=FILE")'),
         ("trace_turns", (int, str), 'a number of games or "all"'),
         ("kingmaking", (int, str), 'a number of games or "all"'),
         ("model_mismatch", (bool,), "true or false (a learned seat may play a model of "
                                     "other data)")]


def _is(value, kinds) -> bool:
    if isinstance(value, bool) and bool not in kinds:
        return False  # true is not a number of players
    if isinstance(value, list) and list in kinds:
        return all(isinstance(x, str) for x in value)
    return isinstance(value, kinds)


RUN_KEYS = KEYS | {"check_cards", "log_decisions"}
"""A [[run]] table's keys: ``check_cards`` and ``log_decisions`` are for runs alone (not
ladders or explorations)."""
RUN_TYPES = TYPES + [("check_cards", (int,), "a number of games"),
                     ("log_decisions", (int, str), 'a number of games or "all"')]


@dataclass
class Experiment:
    name: str
    run: RunSpec
    check_cards: int = 0
    """Games a check of a card plays (``--check-cards``; 0: no check)."""


def _read(path: Path) -> dict:
    from simkit.data import read_input

    path = Path(path)
    if path.is_dir():
        raise SimkitError(f"experiment file {path} is a folder, not a .toml file")
    text = read_input(path, "experiment file", "TOML, UTF-8")
    try:  # line ends as read_text gives them (\r\n and \r as \n)
        doc = tomllib.loads(text.replace("\r\n", "\n").replace("\r", "\n"))
    except tomllib.TOMLDecodeError as exc:
        raise SimkitError(f"malformed experiment file {path}: {exc}") from exc
    return doc


def _check_table(r: dict, where: str, types, keys, required) -> None:
    for key, kinds, what in types:
        if key in r and not _is(r[key], kinds):
            raise SimkitError(f"{where}: {key} must be {what}, not {r[key]!r}")
    extra = set(r) - keys
    if extra:
        raise SimkitError(f"{where}: unknown key(s) {', '.join(sorted(extra))}; "
                          f"valid keys: {', '.join(sorted(keys))}")
    missing = [k for k in required if k not in r]
    if missing:
        raise SimkitError(f"{where}: missing {', '.join(missing)}")


def _name(r: dict, where: str, default: str, names: set) -> str:
    name = r["name"] if "name" in r else default
    if not isinstance(name, str) or not RUN_NAME.fullmatch(name):
        raise SimkitError(f"{where}: name {name!r} is not a plain name (letters, digits, "
                          "'.', '-' and '_', starting with a letter or digit, at most "
                          "100 characters): it names the folder under --out")
    if name in names:
        raise SimkitError(f"{where}: two are named {name!r}")
    names.add(name)
    return name


def load_experiments(path: Path) -> list[Experiment]:
    path = Path(path)
    doc = _read(path)
    runs = doc.get("run")
    if not isinstance(runs, list) or not runs or not all(isinstance(r, dict) for r in runs):
        hint = "; its [[ladder]] tables are for `simkit ladder`" if "ladder" in doc else ""
        raise SimkitError(f"{path}: expected one or more [[run]] tables{hint}")
    out, names = [], set()
    for i, r in enumerate(runs, 1):
        where = f"{path}: run {i}"
        _check_table(r, where, RUN_TYPES, RUN_KEYS, REQUIRED)
        name = _name(r, where, f"{r['game']}-{r['players']}p-s{r.get('seed', 0)}", names)
        try:
            lists, origins = read_card_files(r["game"], r.get("cards", ()), path.parent)
            with explained(origins):
                spec = RunSpec.make(r["game"], r["players"], r["games"], r.get("seed", 0),
                                    r.get("strategies", "random"),
                                    {**lists, **r.get("set", {})}, r.get("rotate", True),
                                    r.get("weights"), trace=r.get("trace_turns", 0),
                                    kingmaking=r.get("kingmaking", 0),
                                    model_mismatch=r.get("model_mismatch", False),
                                    log_decisions=r.get("log_decisions", 0))
            check = check_games(r["check_cards"], spec.games, "check_cards") \
                if "check_cards" in r else 0
        except SimkitError as exc:
            raise SimkitError(f"{where}: {exc}") from exc
        out.append(Experiment(name, spec, check))
    return out


LADDER_KEYS = {"name", "game", "players", "strategies", "games", "level_games", "time", "seed",
               "set", "weights", "cards", "trace_turns"}
LADDER_REQUIRED = ("game", "players", "strategies")
LADDER_TYPES = TYPES + [("level_games", (int,), "an integer"),
                        ("time", (str, int, float), 'a duration ("15m", "2h" or seconds)')]


@dataclass
class LadderExperiment:
    name: str
    ladder: object  # simkit.ladder.LadderSpec
    time: float | None
    games_given: bool


def load_ladders(path: Path) -> list[LadderExperiment]:
    """The ``[[ladder]]`` tables of an experiment file, every one checked."""
    from simkit.ladder import LadderSpec, parse_duration

    path = Path(path)
    doc = _read(path)
    tables = doc.get("ladder")
    if not isinstance(tables, list) or not tables or not all(isinstance(r, dict)
                                                             for r in tables):
        hint = "; its [[run]] tables are for `simkit run`" if "run" in doc else ""
        raise SimkitError(f"{path}: expected one or more [[ladder]] tables{hint}")
    out, names = [], set()
    for i, r in enumerate(tables, 1):
        where = f"{path}: ladder {i}"
        _check_table(r, where, LADDER_TYPES, LADDER_KEYS, LADDER_REQUIRED)
        if "games" in r and "time" in r:
            raise SimkitError(f"{where}: give games or time, not both")
        name = _name(r, where, f"ladder-{r['game']}-{r['players']}p-s{r.get('seed', 0)}",
                     names)
        try:
            lists, origins = read_card_files(r["game"], r.get("cards", ()), path.parent)
            with explained(origins):
                spec = LadderSpec.make(r["game"], r["players"], r["strategies"],
                                       r.get("games", 200), r.get("level_games"),
                                       r.get("seed", 0), {**lists, **r.get("set", {})},
                                       r.get("weights"), r.get("trace_turns", 0))
            seconds = parse_duration(r["time"]) if "time" in r else None
        except SimkitError as exc:
            raise SimkitError(f"{where}: {exc}") from exc
        out.append(LadderExperiment(name, spec, seconds, "games" in r))
    return out


EXPLORE_KEYS = {
    "sweep": {"vary", "max_points", "precision"},
    "sensitivity": {"keys", "step", "measure", "max_points"},
    "balance": {"vary", "objectives", "trials", "confirm", "confirm_games", "target"},
}
EXPLORE_TYPES = [("vary", (list,), 'a list of "KEY=VALUES" (balance: "KEY" or "KEY=RANGE")'),
                 ("keys", (list,), "a list of keys"), ("step", (int, float), "a number"),
                 ("measure", (str,), "a measure name"), ("max_points", (int,), "an integer"),
                 ("precision", (int, float), "points (e.g. 1)"),
                 ("objectives", (list,), "a list of objectives"),
                 ("trials", (int,), "an integer"), ("confirm", (int,), "an integer"),
                 ("confirm_games", (int,), "an integer"), ("target", (int, float), "points")]


@dataclass
class Exploration:
    name: str
    spec: object  # simkit.explore.ExploreSpec or simkit.balance.BalanceSpec


def load_explorations(path: Path, kind: str) -> list[Exploration]:
    """The ``[[sweep]]``, ``[[sensitivity]]`` or ``[[balance]]`` tables of an experiment file
    (``kind``), every one checked as the command would check its options."""
    from simkit.balance import make_balance
    from simkit.explore import make_sensitivity, make_sweep

    path = Path(path)
    doc = _read(path)
    tables = doc.get(kind)
    if not isinstance(tables, list) or not tables or not all(isinstance(r, dict)
                                                             for r in tables):
        found = [k for k in ("run", "ladder", "sweep", "sensitivity", "balance") if k in doc]
        hint = f"; it has [[{found[0]}]] tables, for `simkit {found[0]}`" if found else ""
        raise SimkitError(f"{path}: expected one or more [[{kind}]] tables{hint}")
    keys = (KEYS - {"kingmaking"} - ({"trace_turns"} if kind != "sweep" else set())
            ) | EXPLORE_KEYS[kind]
    required = ("game", "players", "vary") if kind != "sensitivity" else ("game", "players")
    out, names = [], set()
    for i, r in enumerate(tables, 1):
        where = f"{path}: {kind} {i}"
        _check_table(r, where, TYPES + EXPLORE_TYPES, keys, required)
        name = _name(r, where, f"{kind}-{r['game']}-{r['players']}p-s{r.get('seed', 0)}", names)
        try:
            lists, origins = read_card_files(r["game"], r.get("cards", ()), path.parent)
            over = {**lists, **r.get("set", {})}
            common = dict(seed=r.get("seed", 0), strategies=r.get("strategies", "random"),
                          overrides=over, rotate=r.get("rotate", True),
                          weights=r.get("weights"))
            with explained(origins):
                if kind == "sweep":
                    precision = r.get("precision")
                    if precision is not None:
                        precision = real(precision, "precision (points)", 0, 50, True, True)
                    spec = make_sweep(r["game"], r["players"], r["vary"],
                                      r.get("games", 20_000), max_points=r.get("max_points",
                                                                               200),
                                      precision=precision / 100 if precision else None,
                                      trace=r.get("trace_turns", 0), **common)
                elif kind == "sensitivity":
                    spec = make_sensitivity(r["game"], r["players"], r.get("games", 20_000),
                                            keys=r.get("keys"), step=r.get("step"),
                                            measure=r.get("measure", "seat-spread"),
                                            max_points=r.get("max_points", 200), **common)
                else:
                    spec = make_balance(r["game"], r["players"], r["vary"],
                                        r.get("objectives", ["first-player-advantage"]),
                                        r.get("trials", 40), r.get("games", 4000),
                                        r.get("confirm", 3), r.get("confirm_games", 20_000),
                                        r.get("target", 1.0) / 100, **common)
        except SimkitError as exc:
            raise SimkitError(f"{where}: {exc}") from exc
        out.append(Exploration(name, spec))
    return out
