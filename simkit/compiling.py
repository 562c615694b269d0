"""The notice a run prints when it compiles its driver: once a process, saying what it
compiles, why, and how long it took before.

A run plays through its game's driver for its strategy line-up (``simkit.driver``); the
driver's ``play_batch`` holds every kernel of the game once compiled. Whether the run will
compile is known before its first game: ``play_batch`` compiled in this process already
(nothing to do: every later run of the line-up only plays), or in numba's cache (loaded in
a few hundredths of a second), or neither (compiled: seconds). Only the last is announced,
and only once a process: a ladder of twelve runs of one line-up compiles it once, and so does
an experiment file's second ladder (a new line-up of a process that has announced one
compiles without a second notice).

Why a line-up compiles is found in ``compiles.json`` beside numba's cache (one per version
of simkit and its compilers, ``simkit.jit.cache_root_key``): for every line-up compiled
before, the digests of the files its kernels were compiled from and how long it took. So a
notice names the files changed since (``avalon/rules.py``), or says that the line-up is new,
or that this game never compiled with this version of simkit; and it gives the range of
the game's measured compile times on this machine (before any: the range
benchmarks/compile_time.py measured for the five games).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

RECORDS_VERSION = 1
KEPT = 8
"""Compile times kept a line-up (the most recent)."""
FIRST_RANGE = (5, 22)
"""Seconds a game's driver takes to compile cold, before any was measured on this machine
(benchmarks/compile_time.py, 2026-12-04, the five games at random and with their heuristic
on 2 cores: 4.9 to 15.2 s with compile-ahead helpers, 6.7 to 21.7 s in one process)."""

_said = False


def state(driver) -> str:
    """"ready" (``driver``'s ``play_batch`` is compiled in this process), "cached" (numba's
    cache holds it: it is loaded) or "cold" (it will be compiled)."""
    kernel = driver.module.play_batch.python_copy
    if kernel.overloads:
        return "ready"
    return "cached" if kernel.has_cache_index() else "cold"


def _records_path() -> Path | None:
    import numba

    folder = numba.config.CACHE_DIR
    return Path(folder) / "compiles.json" if folder else None


def read_records() -> dict:
    path = _records_path()
    try:
        doc = json.loads(path.read_text(encoding="utf-8")) if path else {}
    except (OSError, ValueError):
        return {}
    if not isinstance(doc, dict) or doc.get("version") != RECORDS_VERSION:
        return {}
    lineups = doc.get("lineups")
    return lineups if isinstance(lineups, dict) else {}


def _write_records(lineups: dict) -> None:
    """Write ``compiles.json`` whole (by a rename); a cache that cannot be written keeps no
    record (the next notice is only less precise)."""
    path = _records_path()
    if path is None:
        return
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"version": RECORDS_VERSION, "lineups": lineups}, fh, indent=1)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def lineup_key(game: str, strategies) -> str:
    return f"{game}: {', '.join(sorted(strategies))}"


def sources_of(driver) -> dict[str, str]:
    """The files ``driver``'s kernels are compiled from, each with a digest of its content
    (``simkit.sources``)."""
    from simkit.driver import cache_dir
    from simkit.sources import kernel_sources

    module = driver.module
    found = kernel_sources(module.__name__, module.__file__)
    # generated modules (the driver, a search module) are named by their content, which
    # follows the line-up and the files above: not named again
    generated = cache_dir().resolve()
    return {_short(f): d for f, (d, _) in found.items()
            if Path(f).resolve().parent != generated}


def _short(file: str) -> str:
    """A source file's name as a person finds it: its package folder and its name
    (``avalon/rules.py``, ``simkit/jit.py``)."""
    p = Path(file)
    return f"{p.parent.name}/{p.name}"


def reason(game: str, strategies, sources: dict[str, str], records: dict) -> str:
    """Why a cold line-up compiles, from the ``records`` of line-ups compiled before."""
    own = records.get(lineup_key(game, strategies))
    if isinstance(own, dict) and isinstance(own.get("files"), dict):
        before = own["files"]
        changed = sorted(f for f in sources if before.get(f) != sources[f])
        changed += sorted(f for f in before if f not in sources)
        if changed:
            more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
            return f"changed since it last compiled: {', '.join(changed[:3])}{more}"
        return "its cache was removed"
    if any(k.startswith(f"{game}: ") for k in records):
        return "a new strategy line-up"
    return f"the first run of {game} with this version of simkit"


def seconds_range(game: str, records: dict) -> tuple[float, float, bool]:
    """(fewest, most, measured) seconds the game's line-ups took to compile on this machine;
    ``FIRST_RANGE`` (not measured here) before any was."""
    times = [t for k, r in records.items() if k.startswith(f"{game}: ") and isinstance(r, dict)
             for t in r.get("seconds", []) if isinstance(t, (int, float))]
    if not times:
        return (*FIRST_RANGE, False)
    return min(times), max(times), True


def notice_text(game: str, strategies, why: str, span: tuple[float, float, bool]) -> str:
    low, high, measured = span
    took = (f"{low:.0f} to {high:.0f} s here before" if measured and round(high) > round(low)
            else f"about {high:.0f} s here before" if measured
            else f"usually {low:.0f} to {high:.0f} s")
    return (f"compiling {game}'s kernels for {', '.join(sorted(strategies))} ({why}; "
            f"{took}; cached for later runs)...")


def record(game: str, strategies, sources: dict[str, str], seconds: float) -> None:
    records = read_records()
    key = lineup_key(game, strategies)
    old = records.get(key) if isinstance(records.get(key), dict) else {}
    times = [t for t in old.get("seconds", []) if isinstance(t, (int, float))]
    records[key] = {"files": sources, "seconds": [*times, round(seconds, 2)][-KEPT:]}
    _write_records(records)


@contextmanager
def compiling(game: str, driver, show: bool):
    """Around the first play of a run: when ``driver`` will be compiled, say so on stderr
    (if ``show``, once a process), and record how long it took and from which files."""
    global _said
    if state(driver) != "cold":
        yield
        return
    strategies = driver.compiled
    sources = sources_of(driver)
    if show and not _said:
        _said = True
        records = read_records()
        print(notice_text(game, strategies, reason(game, strategies, sources, records),
                          seconds_range(game, records)), file=sys.stderr, flush=True)
    started = time.perf_counter()
    yield
    record(game, strategies, sources, time.perf_counter() - started)
