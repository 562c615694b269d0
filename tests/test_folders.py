"""Nothing is deleted that simkit did not write: --overwrite replaces only an empty folder
or a simkit folder of the same kind, and every output path is checked before any game."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from simkit import folders
from simkit.cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "run-v1-avalon"


def invoke(*args, cwd=None):
    if cwd is None:
        return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    finally:
        os.chdir(old)


def pig(out, *extra):
    return invoke("run", "pig", "--players", 2, "--games", 20, "--workers", 1, "--quiet",
                  "--out", out, *extra)


def victim(root: Path) -> Path:
    v = root / "victim"
    v.mkdir(parents=True)
    (v / "thesis.tex").write_text("years of work")
    return v


def assert_untouched(v: Path) -> None:
    assert (v / "thesis.tex").read_text() == "years of work"


def one_error_line(res) -> str:
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.output
    return lines[0]


def test_an_experiment_run_name_must_be_a_plain_name(tmp_path):
    v = victim(tmp_path)
    exp = tmp_path / "a" / "b" / "exp.toml"
    exp.parent.mkdir(parents=True)
    for name in ("../../victim", "/tmp/x", "a/b", ".hidden", "", "x" * 101):
        exp.write_text(f'[[run]]\nname = "{name}"\ngame = "pig"\nplayers = 2\ngames = 5\n')
        res = invoke("run", exp, "--out", tmp_path / "a" / "b", "--overwrite")
        line = one_error_line(res)
        assert "plain name" in line or "two runs" in line
        assert_untouched(v)
    exp.write_text('[[run]]\nname = 5\ngame = "pig"\nplayers = 2\ngames = 5\n')
    assert "plain name" in one_error_line(invoke("run", exp))


def test_overwrite_never_replaces_a_folder_simkit_did_not_write(tmp_path):
    v = victim(tmp_path)
    line = one_error_line(pig(v, "--overwrite"))
    assert "not written by simkit" in line
    assert_untouched(v)
    line = one_error_line(invoke("whatif", "pig", "--players", 2, "--games", 10, "--set",
                                 "target=50", "--out", v, "--overwrite"))
    assert "not written by simkit" in line
    assert_untouched(v)
    line = one_error_line(invoke("report", FIXTURE, "--out", v))
    assert "not written by simkit" in line
    assert_untouched(v)


def test_overwrite_replaces_a_run_simkit_wrote(tmp_path):
    out = tmp_path / "r"
    assert pig(out).exit_code == 0
    assert folders.kind_of(out) == "run"
    assert "--overwrite" in one_error_line(pig(out))
    (out / "stale.txt").write_text("from the old run")
    assert pig(out, "--overwrite").exit_code == 0
    assert not (out / "stale.txt").exists() and (out / "run.json").is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["r"], "no temporary folders left"


def test_a_run_written_before_the_marker_is_still_recognised(tmp_path):
    old = tmp_path / "old"
    shutil.copytree(FIXTURE, old)
    assert not (old / folders.MARKER).exists()
    assert folders.kind_of(old) == "run"
    assert pig(old, "--overwrite").exit_code == 0
    assert json.loads((old / "run.json").read_text())["game"] == "pig"


def test_kinds_are_not_mixed(tmp_path):
    report = tmp_path / "rep"
    assert invoke("report", FIXTURE, "--out", report).exit_code == 0
    assert folders.kind_of(report) == "report"
    assert "simkit report folder, not a run folder" in one_error_line(pig(report, "--overwrite"))
    run = tmp_path / "run"
    assert pig(run).exit_code == 0
    assert "run folder, not a report" in one_error_line(invoke("report", FIXTURE, "--out", run))
    assert invoke("report", FIXTURE, "--out", report).exit_code == 0, "a report is rebuilt"


def test_the_current_folder_and_its_parents_are_refused_before_playing(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    for out in (".", "..", str(tmp_path), "/"):
        line = one_error_line(invoke("run", "pig", "--players", 2, "--games", 20, "--out",
                                     out, "--overwrite", cwd=work))
        assert "current folder" in line
    assert list(work.iterdir()) == []


@pytest.mark.parametrize("option", ["--out", "--report"])
def test_a_file_in_the_way_is_refused_before_playing(tmp_path, option):
    f = tmp_path / "file.txt"
    f.write_text("mine")
    args = ["--out", tmp_path / "r"] if option == "--report" else []
    res = invoke("run", "pig", "--players", 2, "--games", 20, "--quiet", option, f, *args)
    assert "is a file" in one_error_line(res)
    assert f.read_text() == "mine"
    assert not (tmp_path / "r").exists(), "nothing was played"
    res = invoke("run", "pig", "--players", 2, "--games", 20, "--quiet", "--out", f / "sub")
    assert "is a file" in one_error_line(res)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_an_unwritable_parent_is_refused(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        assert "no permission" in one_error_line(pig(locked / "r"))
    finally:
        locked.chmod(0o700)


def test_an_empty_folder_is_used(tmp_path):
    (tmp_path / "empty").mkdir()
    assert pig(tmp_path / "empty").exit_code == 0
    assert folders.kind_of(tmp_path / "empty") == "run"


def test_whatif_marks_its_folder_and_replaces_only_its_own(tmp_path):
    out = tmp_path / "w"
    args = ["whatif", "pig", "--players", 2, "--games", 30, "--workers", 1, "--set",
            "target=50", "--out", out]
    assert invoke(*args).exit_code == 0
    assert folders.kind_of(out) == "whatif"
    assert "--overwrite" in one_error_line(invoke(*args))
    assert invoke(*args, "--overwrite").exit_code == 0


def test_folders_named_like_simkits_temporary_ones_are_the_users(tmp_path):
    """A user's folders beside --out named as simkit's temporary folders of a dead process
    (old names, and the new ones with a token but none of simkit's marks) are left alone."""
    names = [".r.old-999999999", ".r.partial-999999999", ".r.building-999999999",
             ".r.partial-999999999-0123456789abcdef", ".r.old-999999999-0123456789abcdef"]
    for name in names:
        victim(tmp_path / name)
    assert pig(tmp_path / "r").exit_code == 0
    assert pig(tmp_path / "r", "--overwrite").exit_code == 0
    for name in names:
        assert_untouched(tmp_path / name / "victim")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*names, "r"])


def test_what_a_dead_simkit_left_is_removed(tmp_path):
    """Its own leftovers are known by their token and by what they hold."""
    out = tmp_path / "r"
    assert pig(out).exit_code == 0  # a run ...
    old = tmp_path / ".r.old-999999999-00000000000000aa"  # ... and the one it replaced
    assert pig(old).exit_code == 0
    made = folders.temporary_folder(out)  # as a process that died would have left it
    dead = made.with_name(made.name.replace(f"-{os.getpid()}-", "-999999999-"))
    made.rename(dead)
    (dead / "games.parquet").write_bytes(b"half")
    assert sorted(p.name for p in folders.clean_leftovers(out)) == sorted([dead.name, old.name])
    assert [p.name for p in tmp_path.iterdir()] == ["r"]


def test_a_folder_moved_aside_by_a_killed_replace_goes_back(tmp_path):
    """Killed between ``replace``'s two renames, a process leaves the only copy of ``out``
    under its ``old`` name: the next one puts it back rather than deleting it."""
    out = tmp_path / "r"
    old = tmp_path / ".r.old-999999999-00000000000000aa"
    assert pig(old).exit_code == 0
    games = (old / "games.parquet").read_bytes()
    assert folders.clean_leftovers(out) == []
    assert [p.name for p in tmp_path.iterdir()] == ["r"]
    assert (out / "games.parquet").read_bytes() == games


@pytest.mark.parametrize("command", ["run", "sweep", "export", "cards"])
def test_an_out_that_is_a_link_is_written_where_it_points(tmp_path, command):
    """The folder the link points to is replaced; the link stays, nothing is left beside.
    (A report is written by the same ``folders.writing`` as an export.)"""
    run = tmp_path / "run"
    if command == "export":
        assert pig(run).exit_code == 0
    args = {"run": ["run", "pig", "--players", 2, "--games", 20, "--workers", 1, "--quiet"],
            "sweep": ["sweep", "pig", "--players", 2, "--vary", "target=20,30", "--games", 20,
                      "--workers", 1, "--quiet"],
            "export": ["export", run],
            "cards": ["cards", "rabbit-hunt"]}[command]
    option = "--export" if command == "cards" else "--out"
    target, link = tmp_path / "target", tmp_path / "link"
    res = invoke(*args, option, target)
    assert res.exit_code == 0, res.output
    kind = folders.kind_of(target)
    (target / "stale.txt").write_text("from the first time")
    link.symlink_to(target)
    res = invoke(*args, option, link, "--overwrite")
    assert res.exit_code == 0, res.output
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert folders.kind_of(target) == kind and not (target / "stale.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["link", "target"] + (["run"] if command == "export" else []))
