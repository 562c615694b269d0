"""Faults: a full disk leaves the disk as it was, a killed run's leftovers are cleaned by the
next run, two writers of one folder at once are refused while the first writes, and Ctrl-C
stops a ladder or a sweep even while a run of one chunk plays."""

from __future__ import annotations

import builtins
import errno
import io
import json
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
    assert res.exit_code == 1, res.output
    assert res.output.count("\n") == 1 and "nothing was kept" in res.output
    assert "no space left" in res.output
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
    mine = folders.temporary_folder(out)
    dead = mine.with_name(mine.name.replace(f"-{os.getpid()}-", "-999999999-"))
    mine.rename(dead)  # as a process that died would have left it
    mine = folders.temporary_folder(out)
    other = tmp_path / ".other.partial-999999999-0123456789abcdef"
    other.mkdir()
    keep = tmp_path / ".r.partial-notapid"
    keep.mkdir()
    removed = folders.clean_leftovers(out)
    assert removed == [dead]
    assert mine.exists() and other.exists() and keep.exists()


HOLD = ("import sys, time; from simkit import folders; lock = folders.OutputLock(sys.argv[1]); "
        "print('locked', flush=True); time.sleep(60)")


def _holder(out: Path) -> subprocess.Popen:
    """Another process that holds ``out``'s lock (as one writing it would)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout.readline().strip() == "locked"
    return proc


def test_a_lock_of_a_live_process_refuses(tmp_path):
    holder = _holder(tmp_path / "r")
    try:
        with pytest.raises(Exception, match=f"pid {holder.pid}"):
            folders.OutputLock(tmp_path / "r")
    finally:
        holder.kill()
        holder.wait()
    lock = folders.OutputLock(tmp_path / "r")  # a lock ends with its process, even killed
    assert [p.name for p in tmp_path.iterdir()] == [lock.path.name]
    lock.release()
    assert list(tmp_path.iterdir()) == []


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def pig(out, *extra):
    return invoke("run", "pig", "--players", 2, "--games", 20, "--workers", 1, "--quiet",
                  "--out", out, *extra)


def one_line(res, status: int) -> str:
    assert res.exit_code == status, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.output
    return lines[0]


def test_an_export_is_refused_while_another_process_writes_it(tmp_path):
    run, out = tmp_path / "r", tmp_path / "e"
    assert pig(run).exit_code == 0
    holder = _holder(out)
    try:
        line = one_line(invoke("export", run, "--out", out), 2)
        assert f"(pid {holder.pid}) is writing {out}" in line
    finally:
        holder.kill()
        holder.wait()
    assert not out.exists()
    assert invoke("export", run, "--out", out).exit_code == 0
    assert "--overwrite" in one_line(invoke("export", run, "--out", out), 2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e", "r"]


def test_of_two_exports_at_once_one_wins_and_the_other_is_refused(tmp_path, monkeypatch):
    """A second export starts while the first writes its files: one of them is refused,
    naming the folder, and the folder holds the other's files whole."""
    import pandas as pd

    run, out = tmp_path / "r", tmp_path / "e"
    assert pig(run).exit_code == 0
    real, second = pd.DataFrame.to_csv, []

    def meanwhile(self, *args, **kwargs):
        if not second:
            second.append(invoke("export", run, "--out", out, "--overwrite"))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_csv", meanwhile)
    first = invoke("export", run, "--out", out, "--overwrite")
    codes = sorted([first.exit_code, second[0].exit_code])
    assert codes == [0, 2], (first.output, second[0].output)
    loser = first if first.exit_code else second[0]
    assert str(out) in one_line(loser, 2)
    assert len(pd.read_csv(out / "games.csv")) == 20
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e", "r"]


class _FullDisk:
    """A file that takes ``room`` bytes, then fails as a full disk does."""

    def __init__(self, f, room: int):
        self._f, self._room = f, room

    def write(self, data):
        if len(data) > self._room:
            self._f.write(data[: self._room])
            self._room = 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self._room -= len(data)
        return self._f.write(data)

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()


@pytest.fixture
def full_disk(monkeypatch):
    """``full_disk(folder, names)``: from then on a file written under ``folder`` (whose name
    holds one of ``names``) gets 100 bytes and then fails with ENOSPC."""

    def arm(folder: Path, names=("",)):
        real = io.open
        root = str(Path(folder).resolve())

        def opening(file, mode="r", *args, **kwargs):
            f = real(file, mode, *args, **kwargs)
            path = os.fspath(file) if isinstance(file, str | os.PathLike) else ""
            if any(m in mode for m in "wxa") and str(path).startswith(root) and \
                    any(n in Path(path).name for n in names):
                return _FullDisk(f, 100)
            return f

        monkeypatch.setattr(builtins, "open", opening)
        monkeypatch.setattr(io, "open", opening)

    return arm


def no_space(res, path: Path) -> None:
    line = one_line(res, 1)
    assert f"cannot write {path}: no space left" in line, line


def test_a_full_disk_during_an_export_leaves_nothing(tmp_path, full_disk):
    run = tmp_path / "r"
    assert pig(run).exit_code == 0
    full_disk(tmp_path)
    no_space(invoke("export", run, "--out", tmp_path / "e"), tmp_path / "e")
    assert [p.name for p in tmp_path.iterdir()] == ["r"]


@pytest.mark.parametrize("to", ["cards.csv", "lists"])
def test_a_full_disk_during_a_card_export_leaves_nothing(tmp_path, full_disk, to):
    full_disk(tmp_path)
    no_space(invoke("cards", "rabbit-hunt", "--export", tmp_path / to), tmp_path / to)
    assert list(tmp_path.iterdir()) == [], "no half-written cards.csv, no temporary file"


def test_a_full_disk_during_a_report_leaves_nothing(tmp_path, full_disk):
    run = tmp_path / "r"
    assert pig(run).exit_code == 0
    full_disk(tmp_path)
    no_space(invoke("report", run, "--out", tmp_path / "rep"), tmp_path / "rep")
    assert [p.name for p in tmp_path.iterdir()] == ["r"]


def test_a_full_disk_during_a_run_leaves_nothing(tmp_path, monkeypatch):
    from simkit.results import RunWriter

    def full(self, *args):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(RunWriter, "write", full)
    no_space(pig(tmp_path / "r"), tmp_path / "r")
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_as_a_sweep_ends_keeps_its_points(tmp_path, full_disk):
    out = tmp_path / "sw"
    full_disk(out, names=["summary.json"])
    res = invoke("sweep", "pig", "--players", 2, "--vary", "target=20,30", "--games", 20,
                 "--workers", 1, "--quiet", "--out", out)
    no_space(res, out / "summary.json")
    assert not list(out.glob("*summary.json*")), "no summary, whole or half"
    assert json.loads((out / "explore.json").read_text())["complete"] is False
    assert len(list(out.glob("points/*/run.json"))) == 2  # kept: --resume ends it


def _ctrl_c_during(monkeypatch, call: int) -> list:
    """SIGINT while the ``call``-th chunk is played (a run plays a warm-up game, then its
    chunks: a run of 20 games is one chunk), as Ctrl-C in a terminal would."""
    from simkit import runner

    real, calls = runner.play_chunk, []

    def chunk(p, start, count):
        calls.append(count)
        if len(calls) == call:
            os.kill(os.getpid(), signal.SIGINT)
        return real(p, start, count)

    monkeypatch.setattr(runner, "play_chunk", chunk)
    return calls


def test_ctrl_c_stops_a_ladder_while_a_run_of_one_chunk_plays(tmp_path, monkeypatch):
    import simkit.ladder

    monkeypatch.setattr(simkit.ladder, "measure_costs",
                        lambda spec, *a, **k: dict.fromkeys(spec.strategies, 1e-4))
    calls = _ctrl_c_during(monkeypatch, 4)  # the second run's only chunk
    out = tmp_path / "lad"
    res = invoke("ladder", "pig", "--players", 2, "--strategies", "random,hold-at,first",
                 "--games", 20, "--level-games", 10, "--workers", 1, "--quiet", "--out", out)
    assert res.exit_code == 130, res.output
    assert "kept the 2 runs finished of the 9 to play" in res.output
    assert "--resume" in res.output
    assert len(calls) == 4, "nothing was played after Ctrl-C"
    assert json.loads((out / "ladder.json").read_text())["complete"] is False
    runs = sorted(out.glob("*/*/run.json"))
    assert [json.loads(r.read_text())["complete"] for r in runs] == [True, True]
    assert not list(out.glob("**/.*partial*")) and not list(tmp_path.glob(".*"))


def test_ctrl_c_stops_a_sweep_while_a_run_of_one_chunk_plays(tmp_path, monkeypatch):
    calls = _ctrl_c_during(monkeypatch, 2)  # the first point's only chunk
    out = tmp_path / "sw"
    args = ["sweep", "pig", "--players", 2, "--vary", "target=20,30,40", "--games", 20,
            "--workers", 1, "--quiet", "--out", out]
    res = invoke(*args)
    assert res.exit_code == 130, res.output
    assert "kept the 1 points finished of the 3 to play" in res.output
    assert len(calls) == 2 and len(list(out.glob("points/*/run.json"))) == 1
    monkeypatch.undo()
    assert invoke(*args, "--resume").exit_code == 0
    assert json.loads((out / "explore.json").read_text())["complete"] is True


def test_ctrl_c_during_a_run_of_one_chunk_says_the_run_finished(tmp_path, monkeypatch):
    _ctrl_c_during(monkeypatch, 2)
    res = pig(tmp_path / "r")
    assert res.exit_code == 130 and "the run had finished: all 20 games" in res.output
    assert json.loads((tmp_path / "r" / "run.json").read_text())["complete"] is True
