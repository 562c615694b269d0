"""How a run is cut into chunks: guided chunks that shrink toward the end, and the same
tables whatever the chunks and the workers."""

import pandas as pd
import pytest

from simkit.runner import DEFAULT_CHUNK, MIN_CHUNK, RunSpec, chunk_bounds, run_games


@pytest.mark.parametrize("games,workers", [(1, 1), (1_000, 2), (200_000, 2), (1_234_567, 4),
                                           (30_001, 1)])
def test_guided_chunks_cover_the_run_and_shrink_toward_its_end(games, workers):
    bounds = chunk_bounds(games, workers)
    assert bounds[0][0] == 0
    assert all(a + n == b for (a, n), (b, _) in zip(bounds, bounds[1:], strict=False))
    assert sum(n for _, n in bounds) == games
    sizes = [n for _, n in bounds]
    assert all(n <= DEFAULT_CHUNK for n in sizes)
    assert all(n >= MIN_CHUNK for n in sizes[:-1])
    assert sizes == sorted(sizes, reverse=True)  # never a big chunk after a small one
    if games >= 8 * workers * DEFAULT_CHUNK:
        # the last chunks are small: a worker that takes one near the end finishes soon
        assert sum(sizes[-2 * workers:]) <= 2 * workers * MIN_CHUNK


def test_fixed_chunks_when_asked():
    assert chunk_bounds(10, 2, chunk_size=4) == [(0, 4), (4, 4), (8, 2)]


def test_guided_and_fixed_chunks_give_the_same_tables():
    run = RunSpec.make("pig", 2, 9_000, seed=3, strategies="hold-at,random")
    guided = run_games(run, workers=2)
    assert len(chunk_bounds(9_000, 2)) > 2
    fixed = run_games(run, workers=1, chunk_size=9_000)
    pd.testing.assert_frame_equal(guided.games, fixed.games)
    pd.testing.assert_frame_equal(guided.items, fixed.items)
    assert guided.meta["backend"] == "threads:2" and fixed.meta["backend"] == "serial"
