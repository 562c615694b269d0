"""The commands and Python snippets of README.md and docs/*.md, rewritten to run small, for
the tests that run them (tests/test_docs_run_*.py: the README, docs/ladder.md, whose two
ladders within --time take 30 s each, and the other pages; several files so that
pytest-xdist, which hands out whole files, runs them side by side).

Every fenced block is found: ``python`` blocks are snippets; a block marked ``sh``, ``bash``,
``shell`` or ``console``, or unmarked with a line that starts with a command word
(``COMMAND_WORDS``), holds commands (in a block with ``$ `` prompts, only those lines; the
rest is output). A command is rewritten to play few games (``rewrite``), run in-process in a
fresh folder that holds a copy of experiments/ scaled the same way, one block in order (a
later command may read what an earlier one wrote). What cannot run in a test is listed in
``NOT_RUN`` with the reason; any other command or snippet runs, so a new one is picked up.
"""

from __future__ import annotations

import ast
import re
import shlex
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ["README.md", "docs/*.md"]
SHELL = {"", "sh", "bash", "shell", "console", "shell-session"}
PYTHON = {"python", "py", "python3"}
COMMAND_WORDS = ("simkit", "python", "python3", "pip", ". ", "source ")

GAMES = 40
"""Games a run, a point, a trial or a pairing: enough for every table and figure to have
rows, few enough to play in a fraction of a second."""
SMALL = {"--games": GAMES, "--level-games": GAMES, "--confirm-games": GAMES,
         "--trials": 3, "--confirm": 1, "--trace-turns": GAMES, "--kingmaking": 8,
         "--check-cards": GAMES, "--generation-games": 20, "--match-games": 10,
         "--yardstick-games": 10, "--samples": 2, "--epochs": 1}
"""The most each count option gets (a smaller one given is kept)."""
ADDED = {"run": {"--games": GAMES}, "whatif": {"--games": GAMES},
         "sweep": {"--games": GAMES}, "sensitivity": {"--games": GAMES},
         "ladder": {"--games": 8},
         "balance": {"--games": GAMES, "--trials": 3, "--confirm": 1,
                     "--confirm-games": GAMES},
         "train": {"--generation-games": 20, "--match-games": 10, "--yardstick-games": 10}}
"""Counts a command gets when it leaves them to their defaults (thousands of games)."""
LADDER_GAMES = 8
"""Games a pairing of a ladder (its searches make its games the dearest)."""
TIME = "30s"
"""What a ``--time`` (a ladder's, a training's) becomes: the command must end by it."""
SEARCH_DEFAULT = 400
"""The iterations of a search strategy named without a budget (``ismcts``, ``mc``)."""


def iterations(n: int) -> int:
    """The iterations a search of ``n`` gets: about half the square root, so that a ladder's
    levels stay apart (50 -> 4, 200 -> 7, 1000 -> 16)."""
    return max(2, round(n ** 0.5 / 2))
TOML_COUNTS = {"games": GAMES, "level_games": GAMES, "confirm_games": GAMES, "trials": 3,
               "confirm": 1, "trace_turns": GAMES, "kingmaking": 8, "check_cards": GAMES}
TOML_ADDED = {"balance": {"games": GAMES, "trials": 3, "confirm": 1, "confirm_games": GAMES}}
"""Counts an experiment table gets when it leaves them to their defaults (else ``games``)."""

NOT_RUN = {
    "python3 -m venv": "makes a virtual environment: the tests run in one already",
    ". .venv/bin/activate": "activates the virtual environment the tests run in",
    'pip install -e ".[test]"': "installs simkit: the tests run the installed package",
    "pip install -e examples/": "installs the example games: tests/conftest.py registers "
                                "them as the entry point would",
    "python -m pytest": "the test suite itself",
    "simkit serve": "a server that runs until it is stopped (tests/serve/ drive it)",
    "pip install -e ./my-game": "installs a new plugin into the environment the tests share "
                                "(tests/test_new_game.py builds and checks one in a "
                                "folder of its own)",
    "simkit check my-game": "needs ./my-game installed (tests/test_new_game.py checks the "
                            "template)",
    "python -m simkit.serve.vendor uplot": "fetches the vendored front-end files with npm "
                                           "(a maintainer's step, with network)",
}
"""Commands (by how they start) that a test cannot run as written, and why."""
SNIPPETS_NOT_RUN = {
    "GAME = GameSpec(": "a fragment of a game package's __init__.py (examples/pig_game "
                        "is the whole of it, and every test plays it)",
    "@kernel\ndef determinize(": "a kernel's signature, not a program",
    "@kernel\ndef progress(params, state, out):      #": "kernels' signatures, not a program",
    "@kernel\ndef progress(params, state, out):\n": "Pig's progress kernel, out of its "
                                                    "module (examples/pig_game/rules.py)",
    "@kernel\ndef features(": "a kernel's signature, not a program",
    "@kernel\ndef move_features(": "a kernel's signature, not a program",
    "hidden_zones=(HiddenZone(": "a GameSpec field, out of its game's __init__.py",
    "@kernel\ndef choose_hold_at(": "Pig's strategy, out of its module "
                                    "(examples/pig_game/strategies.py)",
}
"""Python blocks (by how they start) that are not programs, and why."""
PREPARE = {
    "runs/war-of-the-wilds-2p-s1":
        "simkit run war-of-the-wilds --players 2 --seed 1 --strategies heuristic",
    "runs/rh":
        "simkit run rabbit-hunt --players 2 --games 4 --strategies learned,heuristic "
        "--out runs/rh",
}
"""Folders a snippet reads and the command (in its docs' comment) that writes them."""


@dataclass(frozen=True)
class Block:
    file: str
    line: int
    lang: str
    text: str

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}"


def blocks() -> list[Block]:
    """Every fenced block of the docs that holds commands or Python."""
    out = []
    for pattern in DOCS:
        for path in sorted(ROOT.glob(pattern)):
            text = path.read_text(encoding="utf-8")
            for m in re.finditer(r"^```([^\n`]*)\n(.*?)^```", text, re.S | re.M):
                lang = m.group(1).strip().lower()
                line = text[:m.start()].count("\n") + 1
                b = Block(str(path.relative_to(ROOT)), line, lang, m.group(2))
                if lang in PYTHON or (lang in SHELL and commands(b)):
                    out.append(b)
    return out


def commands(b: Block) -> list[str]:
    """The commands of a shell block, continuation lines joined, prompts and comments
    left out."""
    lines = b.text.replace("\\\n", " ").splitlines()
    prompted = [ln[2:] for ln in lines if ln.startswith("$ ")]
    if prompted:
        lines = prompted
    elif b.lang not in ("sh", "bash", "shell") and not any(
            ln.strip().startswith(COMMAND_WORDS) for ln in lines):
        return []  # a file tree, an output: not commands
    out = []
    for ln in lines:
        ln = ln.strip()
        if not ln or ln.startswith("#") or ln == "...":
            continue
        out += [part.strip() for part in ln.split(" && ")]
    return out


def not_run(command: str) -> str | None:
    return next((why for start, why in NOT_RUN.items() if command.startswith(start)), None)


def snippet_not_run(code: str) -> str | None:
    return next((why for start, why in SNIPPETS_NOT_RUN.items() if code.startswith(start)),
                None)


def _scaled_strategy(name: str) -> str:
    base, _, budget = name.partition("@")
    if base not in ("ismcts", "mc"):
        return name
    return f"{base}@{iterations(int(budget) if budget.isdigit() else SEARCH_DEFAULT)}"


def _scaled_strategies(value: str) -> str:
    return ",".join(_scaled_strategy(s) for s in value.split(","))


def rewrite(command: str) -> tuple[list[str], str | None]:
    """(the arguments of ``simkit``, the file its stdout goes to) of a docs command,
    scaled down: counts to at most ``SMALL``, missing counts added (``ADDED``), ``--time``
    to ``TIME``, searches to ``ITERATIONS`` iterations, ``--game`` (replay) to a game the
    smaller run has."""
    tokens = shlex.split(command, comments=True)
    redirect = None
    if ">" in tokens:
        i = tokens.index(">")
        tokens, redirect = tokens[:i], tokens[i + 1]
    assert tokens[0] == "simkit", command
    args = tokens[1:]
    out = []
    i = 0
    while i < len(args):
        a, value = args[i], args[i + 1] if i + 1 < len(args) else None
        key, eq, inline = a.partition("=")
        if eq and key.startswith("--"):
            a, value, step = key, inline, 1
        else:
            step = 2
        if a in SMALL and value is not None and value.replace("_", "").isdigit():
            most = LADDER_GAMES if a == "--games" and args[:1] == ["ladder"] else SMALL[a]
            out += [a, str(min(int(value.replace("_", "")), most))]
        elif a == "--time" and value is not None:
            out += [a, TIME]
        elif a == "--strategies" and value is not None:
            out += [a, _scaled_strategies(value)]
        elif a == "--game" and value is not None and value.isdigit():
            out += [a, str(min(int(value), GAMES - 1))]
        else:
            out.append(args[i])
            step = 1
        i += step
    sub = out[0] if out else ""
    target = next((x for x in out[1:] if not x.startswith("-")), "")
    if not target.endswith(".toml"):
        timed = "--time" in out
        for opt, n in ADDED.get(sub, {}).items():
            if opt not in out and not (timed and opt == "--games"):
                out += [opt, str(n)]
    if "--games" in out:  # traced and replayed games: at most the run's
        games = int(out[out.index("--games") + 1])
        for opt in ("--trace-turns", "--kingmaking", "--log-decisions"):
            if opt in out and out[out.index(opt) + 1].isdigit():
                i = out.index(opt) + 1
                out[i] = str(min(int(out[i]), games))
    return out, redirect


def scale_experiments(folder: Path) -> None:
    """Copy experiments/ into ``folder``, every count at most ``TOML_COUNTS``, every
    ``time`` ``TIME``, searches ``ITERATIONS``, and ``games`` added where a table leaves it
    to its default."""
    dest = folder / "experiments"
    shutil.copytree(ROOT / "experiments", dest)
    for path in dest.glob("*.toml"):
        path.write_text(scale_toml(path.read_text(encoding="utf-8")), encoding="utf-8")


def scale_toml(text: str) -> str:
    def count(m):
        n = int(m.group(3).replace("_", ""))
        return f"{m.group(1)}{m.group(2)}{min(n, TOML_COUNTS[m.group(1)])}"

    keys = "|".join(TOML_COUNTS)
    text = re.sub(rf"^({keys})(\s*=\s*)([\d_]+)", count, text, flags=re.M)
    text = re.sub(r'^time(\s*=\s*)"[^"]*"', rf'time\1"{TIME}"', text, flags=re.M)
    text = re.sub(r'"((?:ismcts|mc)(?:@\d+)?)"', lambda m: f'"{_scaled_strategy(m.group(1))}"',
                  text)
    doc = tomllib.loads(text)
    lines = text.splitlines()
    headers = [(i, m.group(1)) for i, ln in enumerate(lines)
               if (m := re.match(r"^\[\[(\w+)\]\]\s*$", ln))]
    for n in reversed(range(len(headers))):  # from the end, so the line numbers hold
        i, kind = headers[n]
        table = doc[kind][[k for _, k in headers[:n]].count(kind)]
        if kind == "ladder" and "games" in table:
            lines[i + 1:] = [re.sub(r"^games(\s*=\s*)\d+", rf"games\g<1>{LADDER_GAMES}", ln)
                             if not ln.startswith("[") else ln for ln in lines[i + 1:]]
        for key, n in TOML_ADDED.get(kind, {"games": GAMES}).items():
            if key not in table and "time" not in table:
                lines.insert(i + 1, f"{key} = {n}")
    return "\n".join(lines) + "\n"


def python_snippet(code: str) -> str:
    """A snippet scaled down: ``simulate``'s game count (its third argument, or games=)."""
    code = re.sub(r"(simulate\(\s*[^,()]+,\s*[^,()]+,\s*)([\d_]+)",
                  lambda m: f"{m.group(1)}{min(int(m.group(2).replace('_', '')), GAMES)}",
                  code)
    code = re.sub(r"\bgames=([\d_]+)",
                  lambda m: f"games={min(int(m.group(1).replace('_', '')), GAMES)}", code)
    ast.parse(code)  # a snippet that is not Python fails here, named by the test
    return code


def folders_read(code: str) -> list[str]:
    return [p for p in PREPARE if p in code]


def run_block(block: Block, folder: Path, monkeypatch) -> None:
    """Run ``block`` in ``folder`` (a fresh one, with experiments/ scaled): its commands in
    order, or its snippet; a failure names the command as written and as run."""
    import contextlib
    import io

    import pytest
    from click.testing import CliRunner

    import simkit.learn
    from simkit.cli import main

    monkeypatch.chdir(folder)
    scale_experiments(folder)
    # a trained model goes to the cache (``simkit train``'s default), this test's own: the
    # shared one keeps the kernels, and no test finds another's training
    monkeypatch.setattr(simkit.learn, "cache_root", lambda: folder / "cache")
    if block.lang in PYTHON:
        why = snippet_not_run(block.text)
        if why:
            pytest.skip(f"{block.id}: not a program: {why}")
        code = python_snippet(block.text)
        for path in folders_read(code):
            _simkit(block, PREPARE[path], folder, main, CliRunner())
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, block.id, "exec"), {"__name__": "__docs__"})
        except Exception as exc:  # noqa: BLE001 - shown with the snippet as run
            pytest.fail(f"{block.id}: the snippet failed with {type(exc).__name__}: {exc}\n"
                        f"as run:\n{code}")
        return
    ran, listed = 0, []
    for command in commands(block):
        why = not_run(command)
        if why:
            listed.append(f"{command} ({why})")
            continue
        if command.startswith("python -m simkit"):  # a module of simkit's, run as written
            _module(block, command, folder)
            ran += 1
            continue
        if not command.startswith("simkit "):
            pytest.fail(f"{block.id}: `{command}` is neither a simkit command nor listed in "
                        "tests/docs_commands.py NOT_RUN with the reason it cannot run here")
        _simkit(block, command, folder, main, CliRunner())
        ran += 1
    if not ran:
        pytest.skip(f"{block.id}: nothing a test can run: {'; '.join(listed)}")


def _simkit(block: Block, command: str, folder: Path, main, runner) -> None:
    import glob

    import pytest

    args, redirect = rewrite(command)
    expanded = []
    for a in args:  # the shell's globs
        found = sorted(glob.glob(a)) if any(c in a for c in "*?[") else []
        expanded += found or [a]
    result = runner.invoke(main, expanded, catch_exceptions=True)
    if result.exit_code == 2 and "cannot fit even the smallest ladder" in result.output:
        # a cold kernel cache: compiling took the scaled-down --time, and the ladder said so
        # before playing; now compiled, it is run again (on a warm cache it fits at once)
        result = runner.invoke(main, expanded, catch_exceptions=True)
    shown = "simkit " + shlex.join(args) + (f" > {redirect}" if redirect else "")
    if result.exit_code != 0:
        tail = "\n".join((result.output or "").splitlines()[-15:])
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            import traceback

            tail += "\n" + "".join(traceback.format_exception(result.exception))[-3000:]
        pytest.fail(f"{block.id}: `{command}` failed (exit {result.exit_code})\n"
                    f"as run: {shown}\nin {folder}\n{tail}")
    if redirect:
        (folder / redirect).write_text(result.stdout, encoding="utf-8")


def _module(block: Block, command: str, folder: Path) -> None:
    import subprocess
    import sys

    import pytest

    args = shlex.split(command, comments=True)[1:]
    proc = subprocess.run([sys.executable, *args], cwd=folder, capture_output=True, text=True,
                          timeout=300)
    if proc.returncode != 0:
        pytest.fail(f"{block.id}: `{command}` failed (exit {proc.returncode})\n"
                    f"{(proc.stdout + proc.stderr)[-2000:]}")
