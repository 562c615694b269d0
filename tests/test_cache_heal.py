"""A damaged cache heals: an emptied numba index, a truncated generated driver and a cache
folder that cannot be written each leave a run that carries on (rebuilding what it must,
or using a temporary cache with a warning) and plays the same games. Each case runs simkit
in a fresh process on a cache of its own (Connect Four, whose kernels compile quickly)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLAY = """
import sys
sys.path.insert(0, {examples!r})
from connect_four import GAME
from simkit import registry
registry.register_game(GAME)
import simkit
res = simkit.simulate("connect-four", 2, 200, seed=4, strategies="win-block,random",
                      progress=False, workers=1)
print("games", int(res.games["winner"].sum()), int(res.games["decisions"].sum()))
"""


def play(cache: Path, **env) -> subprocess.CompletedProcess:
    full = {**os.environ, "SIMKIT_CACHE_DIR": str(cache), **env}
    full.pop("NUMBA_CACHE_DIR", None)
    return subprocess.run([sys.executable, "-c", PLAY.format(examples=str(ROOT / "examples"))],
                          capture_output=True, text=True, env=full, timeout=600)


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    first = play(cache)
    assert first.returncode == 0, first.stderr
    return cache, first.stdout


def test_an_emptied_numba_index_is_rebuilt_and_the_run_carries_on(warm):
    cache, expected = warm
    emptied = list(cache.rglob("*.nbi"))
    assert emptied
    for f in emptied:
        f.write_bytes(b"")
    healed = play(cache)
    assert healed.returncode == 0, healed.stderr
    assert healed.stdout == expected
    assert "damaged cache entry" in healed.stderr
    again = play(cache)
    assert again.stdout == expected and "damaged" not in again.stderr


def test_a_truncated_generated_driver_is_written_again(warm):
    cache, expected = warm
    drivers = list((cache / "drivers").glob("simkit_driver_connect_four_*.py"))
    assert drivers
    for d in drivers:
        d.write_text(d.read_text()[:200])
    healed = play(cache)
    assert healed.returncode == 0, healed.stderr
    assert healed.stdout == expected


def test_a_cache_folder_that_cannot_be_written_falls_back_with_a_warning(tmp_path, warm):
    _, expected = warm
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    res = play(blocker / "cache", TMPDIR=str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert res.stdout == expected
    assert "cannot be written; using" in res.stderr
