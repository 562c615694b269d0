"""Game data: every number of a game, where it comes from, and the user's overrides.

A game's ``data.toml`` is a tree of tables. A table with a ``value`` key is a parameter:

    [carrot_cap]
    value = 6
    source = "rulebook"          # or "assumed"
    why = "Take Two Actions: 'A player can only have up to 6 carrots.'"
    min = 0                      # optional bounds for numbers (and list elements)
    max = 24
    choices = [...]              # optional, for strings

Its key is its dotted path (``cards.empty``). Overrides (``--set cards.empty=10``) are parsed
as TOML values and checked against the default's type and the bounds.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from simkit.errors import SimkitError, unknown

SOURCES = ("rulebook", "assumed")


@dataclass(frozen=True)
class Param:
    key: str
    default: Any
    value: Any
    source: str
    why: str
    min: float | None = None
    max: float | None = None
    choices: tuple | None = None

    @property
    def changed(self) -> bool:
        return self.value != self.default


def load_data(path: Path) -> dict[str, Param]:
    """Read a game's data file into ``{key: Param}``, in file order."""
    try:
        tree = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SimkitError(f"malformed data file {path}: {exc}") from exc
    params: dict[str, Param] = {}
    _collect(tree, "", params, path)
    return params


def _collect(tree: dict, prefix: str, out: dict, path) -> None:
    for name, node in tree.items():
        key = f"{prefix}{name}"
        if not isinstance(node, dict):
            raise SimkitError(f"{path}: {key} must be a table with 'value', 'source' and 'why'")
        if "value" not in node:
            _collect(node, key + ".", out, path)
            continue
        source = node.get("source")
        if source not in SOURCES:
            raise SimkitError(f"{path}: {key}.source must be one of {', '.join(SOURCES)}")
        if not node.get("why"):
            raise SimkitError(f"{path}: {key} needs a 'why' saying where the value comes from")
        choices = tuple(node["choices"]) if "choices" in node else None
        value = node["value"]
        out[key] = Param(key, value, value, source, node["why"], node.get("min"),
                         node.get("max"), choices)
        check_value(out[key], value)


def parse_value(text: str) -> Any:
    """Parse an override's text as a TOML value; bare words are strings."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def _type_name(v: Any) -> str:
    return {bool: "true/false", int: "an integer", float: "a number", str: "a string",
            list: "a list"}.get(type(v), type(v).__name__)


def check_value(p: Param, v: Any) -> Any:
    """Return ``v`` coerced to ``p``'s type, or raise a SimkitError naming what is allowed."""
    d = p.default
    if isinstance(d, bool):
        ok = isinstance(v, bool)
    elif isinstance(d, int):
        ok = isinstance(v, int) and not isinstance(v, bool)
    elif isinstance(d, float):
        ok = isinstance(v, int | float) and not isinstance(v, bool)
        v = float(v) if ok else v
    elif isinstance(d, list):
        v = list(v) if isinstance(v, tuple) else v
        ok = isinstance(v, list) and len(v) == len(d)
        if ok:
            items = [check_value(replace(p, default=d[i], choices=None), x)
                     for i, x in enumerate(v)]
            return items
        raise SimkitError(f"{p.key} must be a list of {len(d)} values like {d!r}, not {v!r}")
    else:
        ok = isinstance(v, str)
    if not ok:
        raise SimkitError(f"{p.key} must be {_type_name(d)} (default {d!r}), not {v!r}")
    if p.min is not None and v < p.min or p.max is not None and v > p.max:
        lo = "" if p.min is None else p.min
        hi = "" if p.max is None else p.max
        raise SimkitError(f"{p.key} = {v!r} is out of range; allowed {lo}..{hi}")
    if p.choices is not None and v not in p.choices:
        allowed = ", ".join(map(str, p.choices))
        raise SimkitError(f"{p.key} = {v!r} is not allowed; choices: {allowed}")
    return v


def parse_overrides(pairs) -> dict[str, Any]:
    """``["a.b=3", ...]`` -> ``{"a.b": 3}``; values already parsed are kept as they are."""
    if isinstance(pairs, dict):
        return dict(pairs)
    out = {}
    for pair in pairs or ():
        if "=" not in pair:
            raise SimkitError(f"--set takes KEY=VALUE, not {pair!r}")
        key, text = pair.split("=", 1)
        out[key.strip()] = parse_value(text.strip())
    return out


def apply_overrides(params: dict[str, Param], overrides: dict[str, Any]) -> dict[str, Param]:
    """A copy of ``params`` with each override checked and applied."""
    out = dict(params)
    for key, v in overrides.items():
        if key not in params:
            raise unknown("parameter", key, params)
        out[key] = replace(params[key], value=check_value(params[key], v))
    return out


def values(params: dict[str, Param]) -> dict[str, Any]:
    """``{key: value}`` of the effective parameters."""
    return {k: p.value for k, p in params.items()}
