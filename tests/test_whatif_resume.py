"""`simkit whatif --resume` (issue 32: a what-if cancelled in the workbench resumes): after
Ctrl-C in the changed run, the same command with --resume keeps the base run as it was,
plays the changed run's remaining games, and gives the tables of a what-if never stopped."""

import os
import signal

import pandas as pd
from click.testing import CliRunner

from simkit import runner
from simkit.cli import main
from simkit.results import read_run

ARGS = ["whatif", "pig", "--players", "2", "--games", "600", "--seed", "4", "--strategies",
        "hold-at", "--set", "target=40", "--workers", "1", "--quiet"]


def test_a_whatif_stopped_in_its_changed_run_resumes_to_the_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "DEFAULT_CHUNK", 100)  # six chunks a run, to stop between
    monkeypatch.setattr(runner, "MIN_CHUNK", 100)
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    for name, over in (("base", {}), ("changed", {"target": 40})):  # never stopped
        runner.run_games(runner.RunSpec.make("pig", 2, 600, 4, "hold-at", over),
                         out=whole / name, workers=1)
    real, calls = runner.play_chunk, {"n": 0}

    def ctrl_c(p, start, count):  # calls: base's warm-up and 6 chunks, changed's warm-up, ...
        calls["n"] += 1
        if calls["n"] == 10:
            os.kill(os.getpid(), signal.SIGINT)
        return real(p, start, count)

    monkeypatch.setattr(runner, "play_chunk", ctrl_c)
    res = CliRunner().invoke(main, [*ARGS, "--out", str(cut)])
    monkeypatch.setattr(runner, "play_chunk", real)
    assert res.exit_code == 130 and "--resume" in res.output
    kept = read_run(cut / "changed", items=False).meta
    assert not kept["complete"] and 0 < kept["games_completed"] < 600
    base_written = (cut / "base" / "games.parquet").stat().st_mtime_ns
    res = CliRunner().invoke(main, [*ARGS, "--out", str(cut), "--resume"])
    assert res.exit_code == 0, res.output
    assert (cut / "base" / "games.parquet").stat().st_mtime_ns == base_written
    for name in ("base", "changed"):
        pd.testing.assert_frame_equal(read_run(cut / name, items=False).games,
                                      read_run(whole / name, items=False).games)
    assert (cut / "report" / "index.html").is_file()
    res = CliRunner().invoke(main, [*ARGS[:-1], "--seed", "5", "--out", str(cut),
                                    "--resume"])
    assert res.exit_code == 2 and "holds a run with" in res.output
