"""Resuming an interrupted run gives the tables of the uninterrupted run, bit for bit,
whatever the run's options and however many row groups its tables have; a damaged folder is
refused in one line and left as it is; a second Ctrl-C says what it discarded; a chunk's
memory is bounded whatever --chunk-size says."""

import json
import os
import shutil
import signal
import tempfile
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simkit import results, runner
from simkit.cli import main
from simkit.errors import SimkitError
from simkit.results import read_run
from simkit.runner import RunSpec, run_games, run_precise

ROW_GROUP = 100
"""Row groups of 100 games (instead of 2,000) make a run of a few hundred games hold several,
as a night's run does."""


@pytest.fixture(autouse=True)
def small_row_groups(monkeypatch):
    monkeypatch.setattr(results, "ROW_GROUP", ROW_GROUP)


@contextmanager
def ctrl_c_at(call: int, twice: bool = False):
    """Ctrl-C (twice: two) while play_chunk is called for the ``call``-th time (the first
    call is the warm-up game of ``run_games``)."""
    real = runner.play_chunk
    calls = {"n": 0}

    def interrupted(p, start, count):
        calls["n"] += 1
        if calls["n"] == call:
            os.kill(os.getpid(), signal.SIGINT)
            if twice:
                os.kill(os.getpid(), signal.SIGINT)
        return real(p, start, count)

    runner.play_chunk = interrupted
    try:
        yield
    finally:
        runner.play_chunk = real


TABLES = ("games", "items", "trace", "decisions")


def _bits(column: pa.ChunkedArray) -> bytes | list:
    """A column's values as they are stored: the bytes of its numbers (a NaN's too), or the
    names of a dictionary column."""
    column = column.combine_chunks()
    if pa.types.is_dictionary(column.type):
        return column.cast(pa.string()).to_pylist()
    assert column.null_count == 0
    return np.asarray(column).tobytes()


def assert_same_tables(a: Path, b: Path) -> None:
    """The run folders ``a`` and ``b`` hold the same tables, bit for bit."""
    assert [t for t in TABLES if (a / f"{t}.parquet").is_file()] == \
        [t for t in TABLES if (b / f"{t}.parquet").is_file()]
    for name in TABLES:
        if not (a / f"{name}.parquet").is_file():
            continue
        x, y = pq.read_table(a / f"{name}.parquet"), pq.read_table(b / f"{name}.parquet")
        assert x.schema.remove_metadata() == y.schema.remove_metadata(), name
        assert x.num_rows == y.num_rows, name
        for col in x.column_names:
            assert _bits(x[col]) == _bits(y[col]), f"{name}.{col}"


def row_groups(folder: Path, name: str = "games") -> int:
    return pq.ParquetFile(folder / f"{name}.parquet").metadata.num_row_groups


OPTIONS = {
    "plain": dict(players=3, strategies="hold-at,random,random"),
    "trace": dict(players=2, strategies="hold-at,random", trace=230),
    "kingmaking": dict(players=3, strategies="hold-at", kingmaking=150),
    "log": dict(players=2, strategies="hold-at,random", log_decisions=260),
}


def _run(option: str, games: int = 600) -> RunSpec:
    o = dict(OPTIONS[option])
    return RunSpec.make("pig", o.pop("players"), games, seed=4, **o)


@cache
def _whole(option: str) -> Path:
    """The uninterrupted run of ``option``, played once for every test that compares."""
    folder = Path(tempfile.mkdtemp(prefix="simkit-whole-")) / option
    run_games(_run(option), out=folder, workers=1, chunk_size=50)
    return folder


@pytest.mark.parametrize("option", sorted(OPTIONS))
def test_a_resumed_run_is_the_uninterrupted_run(option, tmp_path):
    run = _run(option)
    cut = tmp_path / "cut"
    with ctrl_c_at(7), pytest.raises(runner.RunInterrupted):  # 6 chunks of 40 are kept
        run_games(run, out=cut, workers=1, chunk_size=40)
    assert read_run(cut).meta["games_completed"] == 240
    assert row_groups(cut) > 1 and row_groups(cut, "items") > 1
    res = run_games(run, out=cut, workers=2, chunk_size=70, resume=True)
    assert res.meta["complete"] and res.meta["resumed_at"] == [240]
    assert res.meta["games_completed"] == 600
    assert_same_tables(_whole(option), cut)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cut"]  # nothing left beside it


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cuts=st.lists(st.integers(2, 12), min_size=1, max_size=3),
       sizes=st.lists(st.sampled_from([23, 40, 100, 170]), min_size=4, max_size=4))
def test_resumed_again_and_again_it_is_still_the_uninterrupted_run(cuts, sizes):
    """Ctrl-C at any chunk of the run, and of each resume, then resume to the end."""
    run = _run("trace")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "r"
        for i, call in enumerate(cuts):
            with ctrl_c_at(call):
                try:
                    run_games(run, out=folder, workers=1, chunk_size=sizes[i], resume=i > 0)
                except runner.RunInterrupted:
                    pass
        run_games(run, out=folder, workers=2, chunk_size=sizes[-1], resume=True)
        assert_same_tables(_whole("trace"), folder)
        assert sorted(p.name for p in Path(tmp).iterdir()) == ["r"]


def _precise(folder: Path, ctrl_c_in_check: int = 0, **kw) -> dict:
    """A precision run of Pig to ±1.2 points (it stops at 8,000 games); Ctrl-C while its
    ``ctrl_c_in_check``-th check reads the tables, between two steps."""
    from simkit.reports.explore import run_widths

    checks = {"n": 0}

    def widths(out):
        checks["n"] += 1
        if checks["n"] == ctrl_c_in_check:
            os.kill(os.getpid(), signal.SIGINT)
        return run_widths(out)

    run = RunSpec.make("pig", 2, 16_000, seed=5, strategies="hold-at,random")
    return run_precise(run, folder, 0.012, widths, workers=1, **kw)


def test_a_resumed_precision_run_stops_where_the_uninterrupted_one_does(tmp_path):
    whole = _precise(tmp_path / "whole", chunk_size=500)
    assert whole["stopped_by"] == "precision"
    assert [c["games"] for c in whole["checks"]] == [1000, 2000, 4000, 8000]
    cut = tmp_path / "cut"
    with pytest.raises(runner.RunInterrupted):  # between the steps to 2,000 and 4,000
        _precise(cut, ctrl_c_in_check=2, chunk_size=200)
    meta = read_run(cut).meta
    assert meta["games_completed"] == 2000 and meta["precision"]["checks"] == whole["checks"][:1]
    # then the step to 4,000 games is cut after 2,600: its warm-up game and three chunks
    with ctrl_c_at(4), pytest.raises(runner.RunInterrupted):
        _precise(cut, chunk_size=200, resume=True)
    meta = read_run(cut).meta
    assert meta["games_completed"] == 2600 and not meta["complete"]
    assert meta["precision"]["checks"] == whole["checks"][:2]  # what it had reached
    assert row_groups(cut) > 1
    assert _precise(cut, chunk_size=300, resume=True) == whole
    assert_same_tables(tmp_path / "whole", cut)
    assert read_run(cut).meta["precision"] == whole
    before = (cut / "run.json").read_bytes()
    assert _precise(cut, resume=True) == whole  # a finished one is left as it is
    assert (cut / "run.json").read_bytes() == before


def test_cli_resume_of_a_precision_run(tmp_path):
    args = ["run", "pig", "--players", "2", "--games", "8000", "--seed", "5", "--strategies",
            "hold-at,random", "--precision", "1.6", "--chunk-size", "400", "--quiet"]
    res = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "whole")])
    assert res.exit_code == 0, res.output
    with ctrl_c_at(4 + 4 + 2):  # in the step to 4,000 games: its first chunk is kept
        res = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "cut")])
    assert res.exit_code == 130 and "--resume" in res.output
    assert 2000 < read_run(tmp_path / "cut").meta["games_completed"] < 4000
    res = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "cut"), "--resume"])
    assert res.exit_code == 0, res.output
    assert_same_tables(tmp_path / "whole", tmp_path / "cut")
    record = read_run(tmp_path / "whole").meta["precision"]
    assert record["stopped_by"] == "precision" and record["checks"][-1]["games"] == 4000
    assert read_run(tmp_path / "cut").meta["precision"] == record
    # the settings of a precision run are its own: another target or no --precision at all
    for other, said in (("0.9", "to ±1.6 points, not ±0.9"),
                        (None, "a --precision run (±1.6 points)")):
        given = [a for a in args if a not in ("--precision", "1.6")]
        if other:
            given += ["--precision", other]
        res = CliRunner().invoke(main, [*given, "--out", str(tmp_path / "cut"), "--resume"])
        assert res.exit_code == 2 and said in res.output, res.output
    run_games(RunSpec.make("pig", 2, 100), out=tmp_path / "plain", workers=1)
    res = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "plain"), "--resume"])
    assert res.exit_code == 2 and "without a --precision record" in res.output, res.output


def test_a_precision_run_too_short_to_measure_ends_normally(tmp_path):
    res = CliRunner().invoke(main, ["run", "pig", "--players", "2", "--games", "1",
                                    "--precision", "1", "--out", str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    assert "--games was reached first" in res.output and "too few games" in res.output
    record = read_run(tmp_path / "r").meta["precision"]
    assert record["stopped_by"] == "games" and record["checks"][0]["half_width"] is None


def test_resuming_a_complete_run_leaves_it_as_it_is(tmp_path):
    run = RunSpec.make("pig", 2, 300, seed=1)
    run_games(run, out=tmp_path / "r", workers=1)
    before = (tmp_path / "r" / "games.parquet").stat().st_mtime_ns
    res = run_games(run, out=tmp_path / "r", workers=1, resume=True)
    assert res.meta["complete"] and res.tally is None
    assert (tmp_path / "r" / "games.parquet").stat().st_mtime_ns == before


def test_resuming_with_other_settings_is_refused(tmp_path):
    run_games(RunSpec.make("pig", 2, 300, seed=1), out=tmp_path / "r", workers=1)
    with pytest.raises(SimkitError, match="holds a run with seed 1, not 2"):
        run_games(RunSpec.make("pig", 2, 300, seed=2), out=tmp_path / "r", resume=True)


def test_a_second_ctrl_c_says_what_it_discarded(tmp_path):
    run = RunSpec.make("pig", 2, 5000, seed=1)
    with ctrl_c_at(3, twice=True), \
            pytest.raises(runner.RunAbandoned, match="second Ctrl-C stopped at once: the "
                                                     "1,000 games played were discarded"):
        run_games(run, out=tmp_path / "r", workers=1, chunk_size=1000)
    assert list(tmp_path.iterdir()) == []


def test_cli_resume_of_an_experiment(tmp_path):
    exp = tmp_path / "e.toml"
    exp.write_text('[[run]]\nname = "a"\ngame = "pig"\nplayers = 2\ngames = 900\n'
                   '[[run]]\nname = "b"\ngame = "pig"\nplayers = 3\ngames = 900\n'
                   'trace_turns = 300\nkingmaking = 200\nstrategies = "hold-at"\n')
    whole, out = tmp_path / "whole", tmp_path / "runs"
    res = CliRunner().invoke(main, ["run", str(exp), "--out", str(whole), "--quiet",
                                    "--chunk-size", "60"])
    assert res.exit_code == 0, res.output
    # a complete, b cut after 480 games: each run's warm-up game, then 15 chunks of a and 8
    # of b
    with ctrl_c_at(1 + 15 + 1 + 8):
        res = CliRunner().invoke(main, ["run", str(exp), "--out", str(out), "--quiet",
                                        "--chunk-size", "60", "--workers", "1"])
    assert res.exit_code == 130, res.output
    assert read_run(out / "b").meta["games_completed"] == 480 and row_groups(out / "b") > 1
    a_before = (out / "a" / "games.parquet").stat().st_mtime_ns
    res = CliRunner().invoke(main, ["run", str(exp), "--out", str(out), "--resume",
                                    "--workers", "2", "--chunk-size", "70"])
    assert res.exit_code == 0, res.output
    assert "first-player advantage" in res.output  # the summaries, read from the folders
    assert (out / "a" / "games.parquet").stat().st_mtime_ns == a_before  # complete: kept
    for name in ("a", "b"):
        assert_same_tables(whole / name, out / name)
    res = CliRunner().invoke(main, ["run", "pig", "--players", "2", "--games", "900",
                                    "--seed", "5", "--out", str(out / "a"), "--resume"])
    assert res.exit_code == 2 and "holds a run with seed 0, not 5" in res.output


# ---------------------------------------------------------------------------------------
# damaged folders: one line, exit 2, the folder as it was


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory):
    """A traced run of 400 games cut after 240 (several row groups), played once."""
    folder = tmp_path_factory.mktemp("interrupted") / "r"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(results, "ROW_GROUP", ROW_GROUP)
        with ctrl_c_at(7), pytest.raises(runner.RunInterrupted):
            run_games(_run("trace", 400), out=folder, workers=1, chunk_size=40)
    return folder


def _edit_meta(**changes):
    def edit(folder: Path):
        meta = json.loads((folder / "run.json").read_text())
        for key, value in changes.items():
            if value is _DROP:
                del meta[key]
            else:
                meta[key] = value
        (folder / "run.json").write_text(json.dumps(meta))
    return edit


_DROP = object()


def _truncate(name: str):
    def edit(folder: Path):
        path = folder / name
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    return edit


def _garbled(name: str):
    """A table whose footer is sound but whose first pages are zeros: found in the copy."""
    def edit(folder: Path):
        data = bytearray((folder / name).read_bytes())
        data[4:len(data) // 3] = bytes(len(data) // 3 - 4)
        (folder / name).write_bytes(bytes(data))
        assert pq.ParquetFile(folder / name).metadata.num_rows  # the footer is sound
    return edit


def _other_items(folder: Path):
    """items.parquet of another run (of 3 players, with seats 1 to 3 and no trace)."""
    other = folder.parent / "other"
    run_games(RunSpec.make("pig", 3, 80, seed=4), out=other, workers=1)
    shutil.move(other / "items.parquet", folder / "items.parquet")
    shutil.rmtree(other)


def _renamed_items(folder: Path):
    """The right number of rows, but a column renamed."""
    table = pq.read_table(folder / "items.parquet")
    table = table.rename_columns([c.replace("seat", "player") for c in table.column_names])
    pq.write_table(table, folder / "items.parquet")


DAMAGE = {
    "a newer schema": (_edit_meta(schema_version=99),
                       "written by a newer simkit (run folder schema 99"),
    "no game": (_edit_meta(game=_DROP), "run.json has no game"),
    "no players": (_edit_meta(players=_DROP), "run.json has no players"),
    "counts as text": (_edit_meta(games_completed="240"),
                       "games_completed is '240', not a whole number"),
    "players as text": (_edit_meta(players="2"), "players is '2', not a whole number"),
    "more games than the tables": (_edit_meta(games_completed=280),
                                   "games.parquet holds 240 games, but its run.json says 280"),
    "another game version": (_edit_meta(game_version="0-old"),
                             "pig version '0-old'"),
    "a truncated trace": (_truncate("trace.parquet"), "trace.parquet cannot be read"),
    "a truncated games table": (_truncate("games.parquet"), "games.parquet cannot be read"),
    "a garbled items table": (_garbled("items.parquet"), "items.parquet cannot be read"),
    "items of another run": (_other_items, "items.parquet is not the items table of this run"),
    "items of the wrong schema": (_renamed_items,
                                  "items.parquet is not the items table of this run"),
    "no trace": (lambda f: (f / "trace.parquet").unlink(), "trace.parquet is missing"),
}


def _contents(root: Path) -> dict:
    return {str(p.relative_to(root)): p.read_bytes() if p.is_file() else None
            for p in sorted(root.rglob("*"))}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_folder_is_refused_in_one_line_and_left_as_it_is(damage, interrupted,
                                                                    tmp_path):
    folder = tmp_path / "r"
    shutil.copytree(interrupted, folder)
    edit, said = DAMAGE[damage]
    edit(folder)
    before = _contents(tmp_path)
    res = CliRunner().invoke(main, ["run", "pig", "--players", "2", "--games", "400",
                                    "--seed", "4", "--strategies", "hold-at,random",
                                    "--trace-turns", "230", "--out", str(folder), "--resume",
                                    "--chunk-size", "40", "--quiet"])
    assert res.exit_code == 2, res.output
    assert res.output.startswith("error: --resume: ") and res.output.count("\n") == 1
    assert said in res.output, res.output
    assert "--overwrite" in res.output or "upgrade simkit" in res.output
    assert _contents(tmp_path) == before


def test_a_folder_of_the_old_layout_is_not_continued(tmp_path):
    """A schema 1 folder counts seats from 0: games of today's layout cannot follow them."""
    folder = tmp_path / "old"
    shutil.copytree(Path(__file__).parent / "fixtures" / "run-v1-avalon", folder)
    meta = json.loads((folder / "run.json").read_text())
    meta["complete"] = False
    (folder / "run.json").write_text(json.dumps(meta))
    spec = meta["run_spec"]
    run = RunSpec.make("avalon", spec["players"], spec["games"] + 10, spec["seed"])
    before = _contents(tmp_path)
    with pytest.raises(SimkitError, match="older simkit .run folder schema 1.*--overwrite"):
        run_games(run, out=folder, workers=1, resume=True)
    assert _contents(tmp_path) == before


def test_a_chunk_holds_no_more_than_its_memory_bound(tmp_path):
    run = RunSpec.make("dolina-krolikow", 4, 40, seed=1)
    p = runner.plan(run)
    cap = runner.chunk_cap(p)
    assert 1 <= cap < runner.DEFAULT_CHUNK  # Dolina's many card columns at 4 players
    per_game = runner.CHUNK_BYTES // cap
    assert per_game >= 4 * 4 * len(p.item_columns)  # at least the int32 item counts
    assert runner.chunk_bounds(10**6, 2, cap)[0] == (0, cap)
    res = run_games(RunSpec.make("dolina-krolikow", 4, cap + 5, seed=1),
                    out=tmp_path / "r", workers=1, chunk_size=10**6)
    assert res.meta["chunk_size"] == cap
    meta = json.loads((tmp_path / "r" / "run.json").read_text())
    assert meta["games_completed"] == cap + 5


def test_pandas_reads_the_resumed_tables_as_the_uninterrupted_ones(tmp_path):
    """The same check as a user's: read_run's DataFrames are equal too."""
    run = _run("plain")
    with ctrl_c_at(5), pytest.raises(runner.RunInterrupted):
        run_games(run, out=tmp_path / "cut", workers=1, chunk_size=90)
    run_games(run, out=tmp_path / "cut", workers=1, resume=True)
    a, b = read_run(_whole("plain")), read_run(tmp_path / "cut")
    pd.testing.assert_frame_equal(a.games, b.games, check_exact=True)
    pd.testing.assert_frame_equal(a.items, b.items, check_exact=True)
