"""A report of the second example game, Connect Four: a game whose draws give both seats
rank 1."""

from simkit.reports import build as B


def test_connect_four_report(connect_four_registered, tmp_path):
    from simkit.runner import RunSpec, run_games

    run = RunSpec.make("connect-four", 2, 3000, seed=4, strategies="win-block")
    run_games(run, out=tmp_path / "run", workers=1)
    out = B.build_report([tmp_path / "run"], tmp_path / "report")
    md = (out / "summary.md").read_text(encoding="utf-8")
    assert "connect-four" in md and "frame_full" in md and "Line up (made)" in md
