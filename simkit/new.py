"""``simkit new GAME``: a new game package to start from, as an outside plugin.

It writes ``./GAME/``: a pyproject that registers the game under ``simkit.games``, the
package (data.toml, state.py, rules.py, transcript.py, strategy.py with a heuristic,
NOTES.md, VERSION) and its tests. The package is a complete small game, High card (a
hidden hand, a shuffled deck, a choice that matters), renamed: every check of
``simkit check`` exercises something in it from the start. The template is
``simkit/template/``, a working game of its own kept under the name ``high-card``.
"""

from __future__ import annotations

import keyword
import re
import shutil
from pathlib import Path

from simkit import folders, registry
from simkit.errors import SimkitError

TEMPLATE = Path(__file__).parent / "template"
NAME = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
"""A game name: lower-case letters and digits, words joined by ``-`` or ``_``."""


def package_of(name: str) -> str:
    return name.replace("-", "_")


def check_name(name: str, where: Path) -> None:
    """One line (``SimkitError``) unless ``name`` can be a new game written to
    ``where/name``: a valid package name, no installed game or module of that name, and
    no file or folder there yet."""
    import importlib.util

    if not NAME.fullmatch(name) or keyword.iskeyword(package_of(name)):
        raise SimkitError(f"{name!r} is not a valid game and package name: use lower-case "
                          "letters and digits, words joined by '-' or '_', starting with a "
                          "letter (e.g. my-game)")
    if name in registry.games() or package_of(name) in {package_of(g) for g in
                                                         registry.games()}:
        raise SimkitError(f"a game named {name!r} is installed already; choose another "
                          f"name (installed: {', '.join(registry.games())})")
    if importlib.util.find_spec(package_of(name)) is not None:
        raise SimkitError(f"a Python package named {package_of(name)!r} is installed "
                          "already, so the game's package would clash with it; choose "
                          "another name")
    out = where / name
    if out.exists() or out.is_symlink():
        raise SimkitError(f"{out} exists already; choose another name or folder (simkit new "
                          "never writes over a folder)")
    folders.check_writable(out, "GAME")


def _renamed(text: str, name: str) -> str:
    package = package_of(name)
    title = name.replace("-", " ").replace("_", " ")
    return (text.replace("high_card", package).replace("high-card", name)
            .replace("High card", title[:1].upper() + title[1:]))


def new_game(name: str, where: Path | None = None) -> Path:
    """Write the package of a new game ``name`` to ``where/name`` (the current folder by
    default), whole or not at all; returns the folder."""
    where = Path.cwd() if where is None else Path(where)
    check_name(name, where)
    out = where / name
    tmp = folders.temporary_folder(out)
    try:
        for src in sorted(TEMPLATE.rglob("*")):
            rel = src.relative_to(TEMPLATE)
            if src.is_dir() or "__pycache__" in rel.parts:
                continue
            dest = tmp / _renamed(str(rel), name).removesuffix(".tmpl")
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(_renamed(src.read_text(encoding="utf-8"), name), encoding="utf-8")
        folders.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out
