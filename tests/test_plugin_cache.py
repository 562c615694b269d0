"""A compiled kernel is cached under a key of every source it depends on (simkit.sources,
simkit.jit._KeyedLocator): a plugin's rules that import a constant from its own state module
are compiled again when only that constant changes, and an edit that no kernel of a game
depends on (another game, a NOTES.md) compiles nothing of it (issue 27)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simkit import sources

STATE = '''"""The state of a die duel: N_PLAYERS | SEAT | ROLLS[4]."""

N_PLAYERS, SEAT, ROLLS = 0, 1, 2
STATE_SIZE = ROLLS + 4
FACES = {faces}  # the die every seat rolls
'''

RULES = '''"""Each seat rolls one die (state.FACES faces); the highest roll wins."""

from simkit.jit import kernel
from simkit.rng import rand_below

from .state import FACES, N_PLAYERS, ROLLS, SEAT, STATE_SIZE

ITEM_COLUMNS = ["die:rolled"]
END_REASONS = ["timeout", "all_rolled"]


@kernel
def state_size(params, n_players):
    return STATE_SIZE


@kernel
def max_moves(params, n_players):
    return 1


@kernel
def new_game(params, n_players, state, chance):
    for i in range(STATE_SIZE):
        state[i] = 0
    state[N_PLAYERS] = n_players


@kernel
def to_move(state):
    return state[SEAT]


@kernel
def legal_moves(params, state, moves):
    moves[0] = 0
    return 1


@kernel
def apply_move(params, state, move, chance, items):
    seat = state[SEAT]
    state[ROLLS + seat] = 1 + rand_below(chance, FACES)
    items[seat, 0] += 1
    state[SEAT] = seat + 1


@kernel
def is_over(state):
    return state[SEAT] >= state[N_PLAYERS]


@kernel
def turn_number(state):
    return state[SEAT]


@kernel
def finish(params, state, scores, ranks):
    n = state[N_PLAYERS]
    best = 0
    for s in range(n):
        best = max(best, state[ROLLS + s])
    for s in range(n):
        scores[s] = state[ROLLS + s]
        ranks[s] = 1 if state[ROLLS + s] == best else 2
    return 1


@kernel
def observe(params, state, seat, obs):
    for i in range(STATE_SIZE):
        obs[i] = state[i]
'''

INIT = '''from pathlib import Path

from simkit.game import GameSpec

from . import rules

GAME = GameSpec(name="{name}", package_dir=Path(__file__).parent, rules=rules,
                players=(2,), compile=lambda values, n: (), item_columns=rules.ITEM_COLUMNS,
                end_reasons=rules.END_REASONS, summary="a die duel (test game)")
'''

DATA = '[max_turns]\nvalue = 4\nmin = 1\nmax = 10\nsource = "assumed"\nwhy = "a duel"\n'

PLAY = '''
import sys
sys.path.insert(0, sys.argv[1])
from duel_game import GAME
from other_game import GAME as OTHER
from simkit import registry, simulate
registry.register_game(GAME)
registry.register_game(OTHER)
res = simulate("duel", 2, 300, seed=5, strategies="random", progress=False, workers=1)
print(int(res.games[["score_s1", "score_s2"]].max().max()))
'''


def write_game(root: Path, package: str, name: str, faces: int) -> None:
    folder = root / package
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "__init__.py").write_text(INIT.format(name=name))
    (folder / "state.py").write_text(STATE.format(faces=faces))
    (folder / "rules.py").write_text(RULES)
    (folder / "data.toml").write_text(DATA)
    (folder / "VERSION").write_text("1\n")


def indexes(cache: Path) -> dict[str, int]:
    """Every numba cache index under ``cache``, with its modification time."""
    return {str(p): p.stat().st_mtime_ns for p in cache.rglob("*.nbi")}


def play(root: Path, cache: Path) -> tuple[int, set[str]]:
    """A run in a fresh process: the highest roll of its games, and the cache indexes it
    wrote (its kernels compiled)."""
    before = indexes(cache) if cache.exists() else {}
    env = {**os.environ, "SIMKIT_CACHE_DIR": str(cache), "SIMKIT_COMPILE_AHEAD": "0"}
    env.pop("NUMBA_CACHE_DIR", None)
    res = subprocess.run([sys.executable, "-c", PLAY, str(root)], capture_output=True,
                         text=True, env=env, timeout=600)
    assert res.returncode == 0, res.stderr
    assert "changed after this process read" not in res.stderr
    written = {p for p, t in indexes(cache).items() if before.get(p) != t}
    return int(res.stdout.split()[-1]), written


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    """Two plugin games in one folder; the duel played once, cold (its kernels cached)."""
    root = tmp_path_factory.mktemp("plugins")
    write_game(root, "duel_game", "duel", faces=6)
    write_game(root, "other_game", "other", faces=6)
    cache = root / "cache"
    highest, written = play(root, cache)
    assert highest == 6 and written
    return root, cache


def test_a_constant_changed_in_a_plugins_state_module_recompiles_its_rules(plugin):
    """state.py's FACES goes from 6 to 2: the next run compiles the rules that import it
    again and plays two-sided dice (before issue 27 it loaded the six-sided machine code)."""
    root, cache = plugin
    write_game(root, "duel_game", "duel", faces=2)
    try:
        highest, written = play(root, cache)
        assert highest == 2
        assert [p for p in written if "/duel_game_" in p and "rules.apply_move" in p], \
            "the rules kernels were compiled again"
    finally:
        write_game(root, "duel_game", "duel", faces=6)  # as the fixture played it


def test_an_unrelated_edit_recompiles_nothing(plugin):
    """Another game's rules and state change, and the duel's Python side (its package's
    __init__.py, a new transcript module), NOTES.md and data.toml: the duel's next run
    loads every kernel it plays from the cache (no index written). Its kernels' sources are
    those of the fixture's run again (the test above puts them back): the kernels of a
    version gone back to are found too."""
    root, cache = plugin
    write_game(root, "other_game", "other", faces=3)
    (root / "other_game" / "rules.py").write_text(RULES + "\n# edited\n")
    duel = root / "duel_game"
    (duel / "__init__.py").write_text((duel / "__init__.py").read_text() + "# edited\n")
    (duel / "transcript.py").write_text("def describe_move(move):\n    return 'rolls'\n")
    (duel / "NOTES.md").write_text("a note on the duel\n")
    (duel / "data.toml").write_text(DATA + "# a comment\n")
    assert play(root, cache) == (6, set())


def test_a_kernels_sources_are_what_its_module_imports(plugin):
    """The sources keyed for the duel's rules: the rules, the state module they import, and
    simkit's compiler and random numbers; not the other game, not simkit's Python side."""
    root, _ = plugin
    sys.path.insert(0, str(root))
    try:
        import duel_game.rules as rules
        found = {Path(f).relative_to(Path(f).parents[1]).as_posix()
                 for f in sources.kernel_sources(rules.__name__, rules.__file__)}
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m.partition(".")[0] == "duel_game"]:
            del sys.modules[name]
    assert {"duel_game/rules.py", "duel_game/state.py", "simkit/jit.py",
            "simkit/rng.py"} <= found
    assert not {f for f in found if f.startswith("other_game/") or
                f in ("simkit/runner.py", "simkit/cli.py", "simkit/results.py")}
    assert not any("numba" in f or "numpy" in f for f in found)


def test_the_cache_is_keyed_by_versions_and_each_kernel_by_its_sources():
    """numba's cache folder is named by the versions of simkit, Python, numba, llvmlite and
    numpy; each kernel's folder in it by the digest of its sources."""
    import numba

    from simkit import jit, rng

    if "NUMBA_CACHE_DIR" not in os.environ:
        assert Path(numba.config.CACHE_DIR).name == jit.cache_root_key()
    rng.rand_below.has_cache_index()  # sets its cache up
    key, changed = sources.kernel_key("simkit.rng", rng.__file__)
    assert changed == []
    assert Path(rng.rand_below._cache.cache_path).name == key


def test_a_file_changed_after_its_module_was_read_keys_no_cache(tmp_path, monkeypatch,
                                                                capsys):
    """A source edited while a process runs (after it imported it): the process compiles
    what it read, so its kernels are neither loaded from nor saved to the cache of the new
    content (the next run would play the old code), and it says so."""
    import numba

    from simkit import jit

    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(jit, "_changed_said", [])
    source = tmp_path / "edited_kernels.py"
    source.write_text("from simkit.jit import kernel\n\n\n@kernel\ndef three(x):\n"
                      "    return 3 * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("edited_kernels", None)
    import edited_kernels

    try:
        assert sources.kernel_key("edited_kernels", str(source))[1] == []
        time.sleep(0.05)  # past the file system clock's tick
        source.write_text("X = 1\n")
        assert sources.kernel_key("edited_kernels", str(source))[1] == [str(source)]
        assert edited_kernels.three(2) == 6  # what it read
        assert not edited_kernels.three.python_copy._cache._enabled
        assert not list((tmp_path / "cache").rglob("*.nbi"))
        assert "edited_kernels.py changed after this process read it" in capsys.readouterr().err
    finally:
        sys.modules.pop("edited_kernels", None)
