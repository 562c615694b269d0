"""What docs/adding-a-game.md tells a plugin author holds: its kernel table and
simkit/game.py's list the same kernels, every one the engine calls; a strategy module named
under the ``simkit.strategies`` entry-point group is loaded; the examples follow the speed
advice (no array-to-array assignment in a kernel)."""

import re
from dataclasses import replace
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

import simkit.game
from simkit import registry

ROOT = Path(__file__).resolve().parents[1]
KERNELS = {"state_size", "max_moves", "new_game", "to_move", "legal_moves", "apply_move",
           "is_over", "turn_number", "finish", "observe", "determinize", "progress", "phase",
           "features", "move_features"}
"""Every kernel of a game's rules module that simkit calls (the driver, search, learning)."""


def test_the_guide_and_the_protocol_list_every_kernel_in_one_table():
    guide = (ROOT / "docs" / "adding-a-game.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)\(", guide, flags=re.M)
    assert set(rows) == KERNELS and len(rows) == len(KERNELS)
    doc = simkit.game.__doc__
    table = doc.split("Every kernel, required and optional", 1)[1].split("The required", 1)[0]
    listed = {line.split()[0] for line in table.splitlines() if line.startswith("    ")
              and not line.startswith("     ")} - {"kernel"}  # the heading
    assert listed == KERNELS
    assert "determinize(params, obs, seat, state, stream, scratch)" in doc
    assert "named exactly" in guide and "``heuristic``" in doc
    assert "uniformly among" in guide and "strength curve" in guide


def test_a_strategy_module_named_under_the_entry_point_group_is_loaded(tmp_path, monkeypatch):
    (tmp_path / "guide_strategies.py").write_text(
        "from simkit.jit import kernel\n"
        "from simkit.registry import StrategySpec, register_strategy\n\n\n"
        "@kernel\n"
        "def choose_last(params, obs, seat, moves, n_moves, weights, stream):\n"
        "    return n_moves - 1\n\n\n"
        'register_strategy(StrategySpec("last-legal", choose_last, game="pig-guide"))\n',
        encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    real = registry._entry_points

    def with_mine(group):
        mine = (EntryPoint("mine", "guide_strategies", "simkit.strategies"),)
        return real(group) + (mine if group == "simkit.strategies" else ())

    monkeypatch.setattr(registry, "_entry_points", with_mine)
    # as in a new process: nothing loaded yet (another test may have loaded every game)
    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setattr(registry, "_games_loaded", set(registry._games_loaded))
    monkeypatch.setattr(registry, "_modules_loaded", set(registry._modules_loaded))
    registry.register_game(replace(registry.get_game("pig"), name="pig-guide"))
    try:
        assert "last-legal" in registry.strategies_for("pig-guide")
        assert registry.resolve_strategies("pig-guide", "last-legal,random", 2) == \
            ["last-legal", "random"]
    finally:
        registry._games.pop("pig-guide")
        registry._strategies.pop(("last-legal", "pig-guide"), None)


@pytest.mark.parametrize("package", ["pig_game", "connect_four"])
def test_the_examples_follow_the_speed_advice(package):
    for path in (ROOT / "examples" / package).glob("*.py"):
        if path.name == "transcript.py":  # Python, not kernels
            continue
        text = path.read_text(encoding="utf-8")
        copies = re.findall(r"^\s*\w+(\[[^\]]*:[^\]]*\])\s*=\s*[a-z_]+\b(?!\s*[-+*/(])",
                            text, flags=re.M)
        assert not [c for c in copies if not re.search(r"=\s*-?\d", c)], (path, copies)
        assert ".copy()" not in text, path
