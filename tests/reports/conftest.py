"""Shared fixtures: synthetic games tables with known answers, and small real Pig runs."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def make_games(ranks, strategies=None, teams=None, turns=None, end_reason=None,
               names=("a", "b", "c", "d")) -> pd.DataFrame:
    """A games table shaped like games.parquet from an int[G, P] array of ranks (column s of
    the arrays is seat s + 1; ``teams`` counts from 0, as the kernels do)."""
    ranks = np.asarray(ranks, dtype=np.int8)
    g, p = ranks.shape
    df = {"game": np.arange(g, dtype=np.int64), "seed": np.arange(g, dtype=np.uint64) + 1000,
          "players": np.full(g, p, dtype=np.int8)}
    if strategies is None:
        # rotate the strategy list by game index, as the runner does
        idx = (np.arange(p)[None, :] - np.arange(g)[:, None] % p) % p
        strategies = np.asarray(names[:p])[idx]
    strategies = np.asarray(strategies)
    for s in range(p):
        df[f"strategy_s{s + 1}"] = pd.Categorical(strategies[:, s], categories=list(names))
    for s in range(p):
        df[f"team_s{s + 1}"] = np.full(g, 1 + (s if teams is None else teams[s]), dtype=np.int8)
    for s in range(p):
        df[f"rank_s{s + 1}"] = ranks[:, s]
    for s in range(p):
        df[f"score_s{s + 1}"] = (ranks[:, s] == 1).astype(float)
    won = ranks == 1
    n_won = won.sum(axis=1)
    df["winner"] = np.where(n_won == 1, won.argmax(axis=1) + 1, 0).astype(np.int8)
    df["winning_team"] = np.zeros(g, dtype=np.int8)
    df["turns"] = np.asarray(turns if turns is not None else np.full(g, 10), dtype=np.int32)
    df["decisions"] = (df["turns"] * 2).astype(np.int32)
    if end_reason is None:
        end_reason = np.where(n_won == 0, "timeout", "target_reached")
    df["end_reason"] = pd.Categorical(end_reason, categories=["timeout", "target_reached"])
    return pd.DataFrame(df)


def item_fixture(n_games=1000):
    """Winners carry the item 70% of the time, losers 30%: win rate 0.7 with, 0.3 without."""
    ranks = np.array([[1, 2], [2, 1]] * (n_games // 2))
    games = make_games(ranks)
    won = (ranks == 1).ravel()
    k = np.arange(len(won))
    # per 100 winner rows 70 occur, per 100 loser rows 30 occur (counts 2 when occurring)
    w_idx = np.cumsum(won) - 1
    l_idx = np.cumsum(~won) - 1
    occ = np.where(won, (w_idx % 10) < 7, (l_idx % 10) < 3)
    items = pd.DataFrame({
        "game": np.repeat(games.game.to_numpy(), 2), "seat": np.tile([1, 2], n_games),
        "x:made": np.where(occ, 2, 0).astype(np.uint16),
        "never:made": np.zeros(len(k), dtype=np.uint16),
    })
    return games, items


def random_games(n=4000, p=2, seed=3):
    rng = np.random.default_rng(seed)
    winner = rng.integers(0, p, n)
    ranks = np.where(np.arange(p)[None, :] == winner[:, None], 1, 2)
    return make_games(ranks, turns=rng.integers(5, 30, n)), winner


@pytest.fixture(scope="session")
def pig_registered():
    sys.path.insert(0, str(EXAMPLES))
    from pig_game import GAME

    from simkit import registry

    registry.register_game(GAME)
    return GAME


@pytest.fixture(scope="session")
def connect_four_registered():
    sys.path.insert(0, str(EXAMPLES))
    from connect_four import GAME

    from simkit import registry

    registry.register_game(GAME)
    return GAME


def _run(out: Path, players=2, games=4000, overrides=None, strategies="hold-at,random"):
    from simkit.runner import RunSpec, run_games

    spec = RunSpec.make("pig", players, games, seed=1, strategies=strategies,
                        overrides=overrides)
    run_games(spec, out=out, workers=1)
    return out


@pytest.fixture(scope="session")
def pig_runs(pig_registered, tmp_path_factory):
    """Small real run folders: 2 players, the same at target 40, 3 and 4 players."""
    root = tmp_path_factory.mktemp("pigruns")
    return {
        "base": _run(root / "base"),
        "changed": _run(root / "changed", overrides={"target": 40}),
        "p3": _run(root / "p3", players=3, games=3000, strategies="hold-at,random,hold-at"),
        "p4": _run(root / "p4", players=4, games=3000,
                   strategies="hold-at,random,hold-at,random"),
    }


def _invoke(*args) -> None:
    from click.testing import CliRunner

    from simkit.cli import main

    res = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert res.exit_code == 0, res.output


@pytest.fixture(scope="session")
def pig_folders(pig_registered, tmp_path_factory):
    """Tiny Pig explorations, each written by its command (which writes its page into the
    folder too): a sweep, a balancing search and a ladder."""
    root = tmp_path_factory.mktemp("pigfolders")
    two = ("--players", 2, "--quiet", "--workers", 1)
    _invoke("sweep", "pig", "--vary", "target=20..22", "--games", 200, "--strategies",
            "hold-at,random", "--out", root / "sweep", *two)
    _invoke("balance", "pig", "--vary", "target=20..40", "--trials", 3, "--games", 100,
            "--confirm", 1, "--confirm-games", 200, "--strategies", "hold-at,random",
            "--out", root / "balance", *two)
    _invoke("ladder", "pig", "--strategies", "random,hold-at", "--games", 40,
            "--level-games", 40, "--out", root / "ladder", *two)
    return {k: root / k for k in ("sweep", "balance", "ladder")}


@pytest.fixture(scope="session")
def pig_reported(pig_runs, tmp_path_factory):
    """Folders `simkit report FOLDER` opened (each page in FOLDER/report): a what-if (its
    base/ and changed/ runs) and an experiment folder (`simkit run FILE.toml` writes a run
    folder a table under one folder) of the 2- and 3-player runs."""
    import shutil

    root = tmp_path_factory.mktemp("pigreported")
    whatif, experiment = root / "whatif", root / "experiment"
    whatif.mkdir()
    (whatif / ".simkit").write_text('{"kind": "whatif"}\n')
    for part in ("base", "changed"):
        shutil.copytree(pig_runs[part], whatif / part)
    experiment.mkdir()
    for name in ("base", "p3"):
        shutil.copytree(pig_runs[name], experiment / name)
    _invoke("report", whatif, "--quiet")
    _invoke("report", experiment, "--quiet")
    return {"whatif": whatif, "experiment": experiment}
