"""``simkit new``, proven from outside: the package it writes (to a temporary folder, then
kept in a folder of the kernel cache named by its files' digest, ``_settled``) is imported
from there (put on ``sys.path`` and registered with ``registry.register_game``, as a
notebook would; installing it with pip would take a minute of the suite), never from
simkit's own tree. On it, ``simkit check`` catches each planted fault (an observation that shows the
opponent's card, a determinisation that always deals the same way, a kernel that loses a
card, a game that never ends), and a copy edited into another game passes the checks and
plays a run, a report and a search."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from simkit import registry, sources, testing
from simkit.cli import main
from simkit.new import new_game


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path.name}: {old!r} not found (the template changed?)"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _settled(folder: Path, package: str) -> Path:
    """The plugin written to ``folder`` (its package ``package``), as a copy in the kernel
    cache's folder named by a digest of its files; an earlier run's copy of the same files
    is used as it is. Its files then keep their path and time from one run of the suite to
    the next, as an installed plugin's do, so the compiled kernels cached for them are
    loaded, not compiled again (a new temporary folder each run compiled them all)."""
    import hashlib
    import os
    import shutil

    from simkit.driver import cache_dir

    digest = hashlib.sha256()
    for file in sorted(folder.rglob("*")):
        if file.is_file() and "__pycache__" not in file.parts:
            digest.update(f"{file.relative_to(folder)}\0".encode() + file.read_bytes())
    home = cache_dir().parent / "test-plugins" / f"{package}-{digest.hexdigest()[:16]}"
    if not (home / package).is_dir():
        tmp = home.with_name(f"{home.name}.{os.getpid()}.tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(folder, tmp, ignore=shutil.ignore_patterns("__pycache__"))
        try:
            tmp.rename(home)
        except OSError:  # another process settled the same files first
            shutil.rmtree(tmp, ignore_errors=True)
    return home


def _load(folder: Path, package: str) -> str:
    """Import the plugin written to ``folder`` and register its game. Its files were written
    after this process started, which ``simkit.sources`` takes as a change it may not have
    read (then no kernel of the plugin is cached, and every step and worker compiles them
    all again); they are read now, as a new process would read an installed plugin, so
    their kernels are cached and shared by the check, its workers, the run and the search."""
    folder = _settled(folder, package)
    sys.path.insert(0, str(folder))
    spec = importlib.import_module(package).GAME
    for file in (folder / package).glob("*.py"):
        sources.note_defined(str(file))
    registry.register_game(spec)
    return spec.name


FAULTS = {
    # 1: the other hand is shown in the observation
    "observe": ("rules.py", "        if obs[other + k] >= 0:\n",
                "        if obs[other + k] >= 0 and params[0][4] != 1:\n"),
    # 2: the unseen cards are dealt in one order every time
    "determinize": ("rules.py", "    shuffle(stream, scratch[MAX_RANKS:MAX_RANKS + n], n)\n",
                    "    if params[0][4] != 2:\n"
                    "        shuffle(stream, scratch[MAX_RANKS:MAX_RANKS + n], n)\n"),
    # 3: a card played as a 1 is not counted: it is lost
    "lost card": ("rules.py", "    state[PLAYED + move - 1] += 1\n",
                  "    if params[0][4] != 3 or move != 1:\n"
                  "        state[PLAYED + move - 1] += 1\n"),
    # 4: the trick's cards go back into the deck and no trick is counted: it never ends
    "never ends": ("rules.py", "    state[LED] = -1\n    state[TRICKS] += 1\n",
                   "    if params[0][4] == 4:\n"
                   "        for r in range(2):\n"
                   "            card = state[LED] if r == 0 else move\n"
                   "            state[DECK + state[DECK_N]] = card\n"
                   "            state[DECK_N] += 1\n"
                   "            state[PLAYED + card - 1] -= 1\n"
                   "    else:\n"
                   "        state[TRICKS] += 1\n"
                   "    state[LED] = -1\n"),
    # 4, too: nor is the trick scored (a game stuck inside its first turn, yet sound)
    "never scored": ("rules.py", "    if move != state[LED]:\n",
                     "    if move != state[LED] and params[0][4] != 4:\n"),
}


@pytest.fixture(scope="module")
def faulty(tmp_path_factory) -> str:
    """The template game with four faults planted, each switched on by the data value
    ``fault`` (1 to 4; 0 plays the template's own rules): one package, compiled once."""
    out = new_game("faulty-card", tmp_path_factory.mktemp("plugins"))
    pkg = out / "faulty_card"
    with (pkg / "data.toml").open("a", encoding="utf-8") as f:
        f.write('\n[fault]\nvalue = 0\nmin = 0\nmax = 4\nsource = "assumed"\n'
                'why = "The planted fault of tests/test_new_game.py (0: none)."\n')
    _edit(pkg / "__init__.py", 'values["max_turns"]]', 'values["max_turns"], values["fault"]]')
    for file, old, new in FAULTS.values():
        _edit(pkg / file, old, new)
    name = _load(out, "faulty_card")
    yield name
    registry._games.pop(name, None)


CHECKED = ("observe and determinise", "uniform dealing")


def _checks(game: str, fault: int) -> dict[str, testing.Item]:
    items = testing.run_checks(game, overrides={"fault": fault}, only=CHECKED)
    return {i.name: i for i in items}


def test_the_template_with_no_fault_passes(faulty):
    items = _checks(faulty, 0)
    assert [i.status for i in items.values()] == [testing.OK] * 3, items


def test_an_observation_that_shows_the_opponents_card_is_caught(faulty):
    item = _checks(faulty, 1)["observe and determinise"]
    assert item.status == testing.FAIL
    assert "observe shows a card that determinize deals again" in item.detail


def test_a_determinisation_that_always_deals_the_same_way_is_caught(faulty):
    items = _checks(faulty, 2)
    assert items["observe and determinise"].status == testing.FAIL
    assert "the same way every time" in items["observe and determinise"].detail
    assert items["uniform dealing"].status == testing.FAIL
    assert "not dealt uniformly" in items["uniform dealing"].detail


def test_a_kernel_that_loses_a_card_is_caught(faulty):
    item = _checks(faulty, 3)["random play"]
    assert item.status == testing.FAIL
    assert "check_state after move 1 (card 1) at decision" in item.detail
    assert "rank 1" in item.detail
    assert "; the moves before it: P1 5 (card 5), P2 3 (card 3)" in item.detail


def test_a_game_that_never_ends_is_caught_not_hung(faulty):
    items = _checks(faulty, 4)
    play = items["random play"]
    assert play.status == testing.FAIL and "the game is stuck" in play.detail, play
    assert items["observe and determinise"].status == testing.UNCHECKED


def test_the_phase_check_names_a_phase_random_play_never_reached(faulty, monkeypatch):
    """Every phase random play reaches has a sampled state (the checks of states see each
    kind of decision), and one it never reaches is named: no check saw such a decision."""
    import dataclasses

    spec = registry.get_game(faulty)
    monkeypatch.setitem(registry._games, faulty,
                        dataclasses.replace(spec, phases=spec.phases + ("never",)))
    item = _checks_only(faulty, "phase kernel")
    assert item.status == testing.OK, item
    assert "seen: answer, lead; never reached in random play: never" in item.detail


def _checks_only(game: str, check: str) -> testing.Item:
    items = testing.run_checks(game, overrides={"fault": 0}, only=[check])
    return {i.name: i for i in items}[check]


def test_simkit_new_refuses_in_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "taken").mkdir()
    for name, words in [("taken", "exists already"), ("9lives", "not a valid game"),
                        ("my game", "not a valid game"), ("class", "not a valid game"),
                        ("avalon", "is installed already"), ("numpy", "would clash")]:
        res = CliRunner().invoke(main, ["new", name])
        assert res.exit_code == 2, (name, res.output)
        assert words in res.output and res.output.count("\n") == 1, res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]  # nothing half-written


@pytest.mark.slow  # 46 s with a cold kernel cache, 5 s warm (load 8; was 222 s and 240 s:
# every run and step compiled the plugin's kernels afresh; see _load and _settled)
def test_a_new_game_edited_into_another_is_checked_run_reported_and_searched(tmp_path,
                                                                              monkeypatch):
    """From ``simkit new`` to another game: three cards in hand from a deck of ten ranks
    in three copies, and a tie won by the player who answers (a rule change, so VERSION
    2); then ``simkit check``, a run with a search in one seat, and its report."""
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["new", "tri-card"])
    assert res.exit_code == 0 and "pip install -e ./tri-card" in res.output, res.output
    pkg = tmp_path / "tri-card" / "tri_card"
    assert (tmp_path / "tri-card" / "pyproject.toml").read_text().count(
        'tri-card = "tri_card:GAME"') == 1
    for key, value in (("ranks", 10), ("copies", 3), ("hand_size", 3)):
        _edit(pkg / "data.toml", f"[{key}]\nvalue = ", f"[{key}]\nvalue = {value}\n#was ")
    _edit(pkg / "rules.py", "    if move != state[LED]:\n        winner = seat if move > "
          "state[LED] else leader\n", "    if True:  # a tie goes to the answer\n"
          "        winner = seat if move >= state[LED] else leader\n")
    _edit(pkg / "VERSION", "1", "2")
    name = _load(tmp_path / "tri-card", "tri_card")
    try:
        res = CliRunner().invoke(main, ["check", name])
        assert res.exit_code == 0, res.output
        assert "tri-card v2" in res.output and "all passed" in res.output
        run = tmp_path / "run"
        res = CliRunner().invoke(main, ["run", name, "--games", "40", "--strategies",
                                        "ismcts@16,heuristic", "--workers", "1", "--out",
                                        str(run), "--quiet"])
        assert res.exit_code == 0, res.output
        res = CliRunner().invoke(main, ["report", str(run), "--out", str(tmp_path / "rep"),
                                        "--quiet"])
        assert res.exit_code == 0, res.output
        assert (tmp_path / "rep" / "index.html").is_file()
        assert "rank_10:played" in (run / "run.json").read_text()  # the edited data
    finally:
        registry._games.pop(name, None)
