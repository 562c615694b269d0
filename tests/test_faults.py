"""Faults: a full disk leaves the disk as it was, a killed run's leftovers are cleaned by the
next run, and two runs to one folder at once are refused while the first runs."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from simkit import folders
from simkit.cli import main


def _can_mount() -> bool:
    return os.geteuid() == 0 and shutil.which("mount") is not None


@pytest.fixture
def tiny_disk(tmp_path):
    """A 5 MiB tmpfs, where the system lets the test mount one."""
    if not _can_mount():
        pytest.skip("mounting a tmpfs needs root")
    where = tmp_path / "disk"
    where.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=5m", "tmpfs", str(where)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip()}")
    yield where
    subprocess.run(["umount", str(where)], check=False)


def test_a_full_disk_leaves_the_disk_as_it_was(tiny_disk):
    res = CliRunner().invoke(main, ["run", "rabbit-hunt", "--players", "2", "--games",
                                    "400000", "--quiet", "--out", str(tiny_disk / "r")])
    assert res.exit_code == 2, res.output
    assert res.output.count("\n") == 1 and "nothing was kept" in res.output
    assert list(tiny_disk.iterdir()) == [], "no partial folder, no lock"


def test_a_killed_run_leaves_what_the_next_run_cleans(tmp_path):
    out = tmp_path / "r"
    proc = subprocess.Popen([sys.executable, "-m", "simkit", "run", "rabbit-hunt", "--players",
                             "2", "--games", "3000000", "--quiet", "--workers", "1",
                             "--out", str(out)])
    deadline = time.time() + 120
    while time.time() < deadline and not list(tmp_path.glob(".r.partial-*")):
        time.sleep(0.2)
    assert list(tmp_path.glob(".r.partial-*")), "the run never started writing"
    # a second run to the same folder is refused while the first one runs
    res = CliRunner().invoke(main, ["run", "pig", "--players", "2", "--games", "10",
                                    "--quiet", "--out", str(out)])
    assert res.exit_code == 2 and f"(pid {proc.pid}) is writing" in res.output
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert list(tmp_path.glob(".r.*")), "SIGKILL left its partial folder and lock"
    res = CliRunner().invoke(main, ["run", "pig", "--players", "2", "--games", "10",
                                    "--quiet", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]
    assert folders.kind_of(out) == "run"


def test_only_leftovers_of_dead_processes_are_removed(tmp_path):
    out = tmp_path / "r"
    mine = tmp_path / f".r.partial-{os.getpid()}"
    mine.mkdir()
    dead = tmp_path / ".r.partial-999999999"
    dead.mkdir()
    other = tmp_path / ".other.partial-999999999"
    other.mkdir()
    keep = tmp_path / ".r.partial-notapid"
    keep.mkdir()
    removed = folders.clean_leftovers(out)
    assert removed == [dead]
    assert mine.exists() and other.exists() and keep.exists()


def test_a_lock_of_a_live_process_refuses(tmp_path):
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        Path(tmp_path / f".r.lock-{sleeper.pid}").touch()
        with pytest.raises(Exception, match=f"pid {sleeper.pid}"):
            folders.OutputLock(tmp_path / "r")
    finally:
        sleeper.kill()
        sleeper.wait()
    lock = folders.OutputLock(tmp_path / "r")  # the dead one's lock is cleaned
    assert [p.name for p in tmp_path.iterdir()] == [lock.path.name]
    lock.release()
