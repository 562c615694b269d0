"""What a new user types first works as the docs write it: `import simkit` then
`simkit.analysis`, `item_value` in the order of its neighbours, and every number or card the
docs' commands and experiment tables name exists in its game."""

import re
import shlex
import subprocess
import sys
import tomllib
import warnings

import pandas as pd
import pytest
from simkit.reports import analysis as A

from simkit import registry

DOCS = ["README.md", "docs/*.md", "simkit/games/*/NOTES.md"]


def test_analysis_is_an_attribute_of_simkit_without_being_imported_by_it():
    code = ("import sys, simkit; loaded = 'pandas' in sys.modules; "
            "simkit.analysis.seat_outcomes; print(loaded, 'simkit.analysis' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "True"]  # the CLI's `import simkit` still leaves pandas out
    bad = subprocess.run([sys.executable, "-c", "import simkit; simkit.nothing_here"],
                         capture_output=True, text=True)
    assert "has no attribute 'nothing_here'" in bad.stderr


def _games_items():
    games = pd.DataFrame({"game": [0, 1, 2, 3], "players": 2, "rank_s1": [1, 2, 1, 2],
                          "rank_s2": [2, 1, 2, 1], "strategy_s1": "a", "strategy_s2": "a"})
    items = pd.DataFrame({"game": [0, 0, 1, 1, 2, 2, 3, 3], "seat": [1, 2] * 4,
                          "x:made": [1, 0, 0, 1, 1, 0, 0, 0]})
    return games, items


def test_item_value_takes_games_meta_items_and_still_reads_the_old_order():
    games, items = _games_items()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new order warns of nothing
        new = A.item_value(games, {}, items)
    with pytest.warns(DeprecationWarning, match=r"item_value\(games, meta, items\)"):
        old = A.item_value(items, games, {})
    pd.testing.assert_frame_equal(new, old)
    with pytest.warns(DeprecationWarning):
        pd.testing.assert_frame_equal(A.item_value(items, games), new)
    assert new.set_index("item").loc["x:made", "occurred"] == 3


def _code(text: str) -> list[str]:
    """The fenced blocks and inline code spans of a Markdown text, continuation lines
    joined."""
    fenced = re.findall(r"```[^\n]*\n(.*?)```", text, re.S)
    rest = re.sub(r"```.*?```", "", text, flags=re.S)
    spans = re.findall(r"`([^`\n]+)`", rest.replace("\n", " "))
    return [b.replace("\\\n", " ") for b in fenced] + spans


def _commands(root) -> list[tuple[str, list[str]]]:
    out = []
    for pattern in DOCS:
        for path in sorted(root.glob(pattern)):
            for block in _code(path.read_text(encoding="utf-8")):
                for line in block.splitlines():
                    m = re.search(r"\bsimkit \S+ ([a-z][a-z0-9-]*)(.*)", line.split(" # ")[0])
                    if m and m.group(1) in registry.games():
                        try:
                            out.append((f"{path.name}: {m.group(0)}", [m.group(1),
                                        *shlex.split(m.group(2))]))
                        except ValueError:
                            continue
    return out


def _named(game: str, text: str) -> str | None:
    """What is wrong with a key (or ``item:NAME``) of ``game`` the docs name, or None."""
    spec = registry.get_game(game)
    key = text.split("=", 1)[0].strip()
    if "<" in key or not key:
        return None  # a placeholder
    if key.startswith("item:"):
        return None if key[5:] in spec.item_columns else f"no item {key[5:]}"
    if key in ("first-player-advantage", "seat-spread", "length"):
        return None
    return None if key in spec.data else f"no number {key}"


def test_every_number_and_card_the_docs_name_exists(root):
    wrong = []
    commands = _commands(root)
    assert len(commands) > 10  # the docs' commands were found
    for where, (game, *args) in commands:
        for opt, value in zip(args, args[1:], strict=False):
            if opt in ("--set", "--vary", "--keys", "--measure", "--objective"):
                for part in value.split(",") if opt == "--keys" else [value]:
                    problem = _named(game, part)
                    if problem:
                        wrong.append(f"{where}: {problem}")
    for pattern in DOCS:
        for path in sorted(root.glob(pattern)):
            for block in re.findall(r"```toml\n(.*?)```", path.read_text("utf-8"), re.S):
                for kind, tables in tomllib.loads(block).items():
                    for t in tables if isinstance(tables, list) else []:
                        if t.get("game") not in registry.games():
                            continue
                        keys = [*t.get("vary", []), *t.get("keys", []), *t.get("set", {})]
                        wrong += [f"{path.name} [[{kind}]]: {problem}" for k in keys
                                  if (problem := _named(t["game"], k))]
    assert not wrong, "\n".join(wrong)
