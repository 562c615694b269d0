"""A real distributed.LocalCluster gives the same tables as local threads."""

import pandas as pd
import pytest

from simkit.runner import RunSpec, run_games

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as c:
            yield c


def test_dask_cluster_matches_local_threads(client, tmp_path):
    run = RunSpec.make("rabbit-hunt", 3, 3000, seed=11, strategies="heuristic,random,random")
    local = run_games(run, workers=2, chunk_size=500)
    remote = run_games(run, out=tmp_path / "dask", scheduler=client, chunk_size=700)
    from simkit.results import read_run

    on_dask = read_run(tmp_path / "dask")
    assert on_dask.meta["backend"].startswith("dask:")
    pd.testing.assert_frame_equal(local.games, on_dask.games)
    pd.testing.assert_frame_equal(local.items, on_dask.items)
    assert remote.meta["games_completed"] == 3000


def test_a_search_run_on_dask_matches_local_threads(client, tmp_path):
    run = RunSpec.make("avalon", 2, 8, seed=3, strategies="ismcts@20,heuristic")
    local = run_games(run, workers=2, chunk_size=3)
    run_games(run, out=tmp_path / "dask", scheduler=client, chunk_size=2)
    from simkit.results import read_run

    on_dask = read_run(tmp_path / "dask")
    pd.testing.assert_frame_equal(local.games, on_dask.games)
    pd.testing.assert_frame_equal(local.items, on_dask.items)
    assert on_dask.meta["search"] == local.meta["search"]


def test_a_ladder_and_a_sweep_on_dask_match_local_threads(client, tmp_path):
    import json

    from simkit.explore import make_sweep, run_explore
    from simkit.ladder import LadderSpec, run_ladder

    lad = LadderSpec.make("rabbit-hunt", 2, "random,heuristic", 60, level_games=20, seed=4)
    run_ladder(lad, tmp_path / "local", workers=2)
    run_ladder(lad, tmp_path / "dask", scheduler=client)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "local" / "games.parquet"),
                                  pd.read_parquet(tmp_path / "dask" / "games.parquet"))
    assert json.loads((tmp_path / "local" / "summary.json").read_text()) == \
        json.loads((tmp_path / "dask" / "summary.json").read_text())
    spec = make_sweep("rabbit-hunt", 2, ["carrots.cap=5,6"], 200, seed=2)
    a = run_explore(spec, tmp_path / "sl", workers=2)
    b = run_explore(spec, tmp_path / "sd", scheduler=client)
    assert a == b
