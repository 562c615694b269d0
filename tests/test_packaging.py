"""How simkit installs: every package of the tree is listed in pyproject.toml, and the
strategies/ and reports/ folders import only under the simkit name."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tree_packages() -> set[str]:
    mapped = {"strategies": "simkit.strategies", "reports": "simkit.reports"}
    found = set()
    for top, name in [("simkit", "simkit"), *mapped.items()]:
        for init in (ROOT / top).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / top).parts
            if top == "simkit" and rel[:1] == ("template",):
                continue  # simkit new's template game: package data, copied, never imported
            found.add(".".join((name if top == "simkit" else mapped[top], *rel)))
    return found


def test_every_package_of_the_tree_is_installed():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    assert _tree_packages() == listed


def test_strategies_and_reports_import_under_simkit_only(tmp_path):
    code = ("import importlib.util, simkit.strategies, simkit.reports, simkit.analysis;"
            "print(importlib.util.find_spec('strategies'), importlib.util.find_spec('reports'))")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, check=True)
    assert out.stdout.split() == ["None", "None"]
