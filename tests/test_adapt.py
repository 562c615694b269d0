"""A model that fits the game being measured (docs/learning.md, "A model that does not
fit"): ``simkit train --from`` fine-tunes a model reproducibly, ``--train BUDGET`` fine-tunes
one for a run's data before play, and a what-if's two sides each play a model fine-tuned
for their own game. The mechanism on a small budget, in the test game Savings
(tests/fixtures/invest_game): a share that pays nothing any more is bought less by a model
fine-tuned on that game than by the model of the default data."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from simkit import learn, registry, tune
from simkit.cli import main
from simkit.errors import SimkitError

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from invest_game import GAME as SAVINGS  # noqa: E402

registry.register_game(SAVINGS)
WORTHLESS = ["--set", "dividend=0"]  # a share pays nothing: investing is clearly worse


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def one_line_error(res, *words):
    assert res.exit_code == 2, res.output
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert len(lines) == 1, res.output
    for w in words:
        assert w in lines[0], lines[0]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A model of Savings as it is (a share pays 1 a turn): it invests, then works."""
    out = tmp_path_factory.mktemp("base") / "savings.npz"
    res = invoke("train", "invest", "--players", 2, "--games", 600, "--generation-games", 150,
                 "--match-games", 100, "--yardstick-games", 0, "--hidden", 0, "--seed", 3,
                 "--out", out, "--workers", 1, "--quiet")
    assert res.exit_code == 0, res.output
    return out


@pytest.fixture(autouse=True)
def own_models(tmp_path, monkeypatch):
    """Models trained by a test in a folder of its own (numba's cache stays shared)."""
    monkeypatch.setattr(learn, "cache_root", lambda: tmp_path / "cache")


def invests_per_game(folder: Path) -> float:
    items = pq.read_table(folder / "items.parquet").to_pandas()
    return items["invest:made"].sum() / items["game"].nunique()


def test_fine_tuning_from_a_model_gives_the_same_bytes_on_one_and_two_workers(base, tmp_path):
    outs = []
    for workers in (1, 2):
        out = tmp_path / f"w{workers}" / "m.npz"
        res = invoke("train", "invest", "--players", 2, "--from", base, "--games", 300,
                     "--generation-games", 100, "--match-games", 60, "--yardstick-games", 0,
                     "--seed", 8, "--out", out, "--workers", workers, *WORTHLESS, "--quiet")
        assert res.exit_code == 0, res.output
        outs.append(out)
    assert outs[0].read_bytes() == outs[1].read_bytes()
    card = learn.read_model(outs[0]).card
    assert card["training"]["from"] == learn.read_model(base).digest
    assert f"--from {base}" in card["training"]["command"]
    res = invoke("train", "invest", "--players", 2, "--from", base, "--games", 100,
                 "--hidden", 4, "--out", tmp_path / "h.npz")
    one_line_error(res, "--hidden 4", "0 hidden units")


def test_a_model_retrained_for_a_worthless_share_buys_it_less(base, tmp_path):
    """Played on the changed game, the model of the default data keeps investing (its
    features show shares, not what they pay); the model --train fine-tunes there works."""
    args = ["run", "invest", "--players", 2, *WORTHLESS, "--strategies", "learned",
            "--weight", f"learned.model={base}", "--games", 100, "--workers", 1]
    one_line_error(invoke(*args, "--out", tmp_path / "refused"), "--train",
                   "--model-mismatch ok")
    assert not (tmp_path / "refused").exists()
    res = invoke(*args, "--out", tmp_path / "old", "--model-mismatch", "ok", "--quiet")
    assert res.exit_code == 0, res.output
    res = invoke(*args, "--out", tmp_path / "new", "--train", "300g")
    assert res.exit_code == 0, res.output
    assert "training: a model for this data, 300 self-play games from" in res.output
    old, new = invests_per_game(tmp_path / "old"), invests_per_game(tmp_path / "new")
    assert old > 10 and new <= old / 2, (old, new)
    meta = json.loads((tmp_path / "new" / "run.json").read_text())
    played = meta["models"]["learned"]
    assert played["trained_from"] == learn.read_model(base).digest and not played["mismatch"]
    assert played["generation"] > 0  # a generation beat the base: it re-learnt something
    assert (tmp_path / "new" / played["file"]).is_file()
    again = invoke(*args, "--out", tmp_path / "again", "--train", "300g")
    assert "trained before" in again.output  # the same command finds the model it trained
    meta2 = json.loads((tmp_path / "again" / "run.json").read_text())
    assert meta2["models"]["learned"]["digest"] == played["digest"]


def test_a_whatif_with_train_plays_a_model_fine_tuned_for_each_side(base, tmp_path):
    res = invoke("whatif", "invest", "--players", 2, *WORTHLESS, "--strategies", "learned",
                 "--weight", f"learned.model={base}", "--games", 30, "--workers", 1,
                 "--train", "100g", "--out", tmp_path / "w")
    assert res.exit_code == 0, res.output
    sides = {s: json.loads((tmp_path / "w" / s / "run.json").read_text())["models"]["learned"]
             for s in ("base", "changed")}
    base_digest = learn.read_model(base).digest
    assert all(m["trained_from"] == base_digest and not m["mismatch"] for m in sides.values())
    assert sides["base"]["digest"] != sides["changed"]["digest"]
    assert f"base: learned played model {sides['base']['digest'][:12]}" in res.output
    assert f"changed: learned played model {sides['changed']['digest'][:12]}" in res.output
    html = (tmp_path / "w" / "report" / "index.html").read_text()
    assert "Models played" in html and sides["changed"]["digest"][:12] in html


def test_a_fine_tuning_that_never_beat_its_base_is_said_to_play_the_bases_weights():
    """A fine-tuning keeps its last accepted generation; when none beat the base model, the
    side plays the base's weights under a new digest, and the what-if must not read as if
    that side had re-learnt the change."""
    from simkit.reports.summary import models_played

    base = "b2e1a6b3122f" + "0" * 52
    sides = {"base": {"models": {"learned": {"digest": "aa" * 32, "trained_from": base,
                                             "generation": 3}}},
             "changed": {"models": {"learned": {"digest": "bb" * 32, "trained_from": base,
                                                "generation": 0}}}}
    lines = models_played(sides)
    assert lines[0] == ("base: learned played model aaaaaaaaaaaa, fine-tuned from "
                        "b2e1a6b3122f for this side's data")
    assert lines[1] == ("changed: learned played model bbbbbbbbbbbb, fine-tuned from "
                        "b2e1a6b3122f for this side's data, but no generation beat "
                        "b2e1a6b3122f: it plays b2e1a6b3122f's weights")


@pytest.mark.parametrize("text,words", [
    ("5000", ["5000g", "10m"]), ("0g", ["from 1g"]), ("ten minutes", ["(90s, 10m, 2h)"]),
    ("0m", ["more than 0"])])
def test_a_bad_train_budget_is_one_line(text, words, tmp_path):
    res = invoke("run", "pig", "--players", 2, "--strategies", "learned", "--games", 10,
                 "--train", text, "--out", tmp_path / "r")
    one_line_error(res, *words)
    assert not (tmp_path / "r").exists()


def test_train_without_a_learned_seat_is_one_line(tmp_path):
    res = invoke("run", "pig", "--players", 2, "--games", 10, "--train", "100g",
                 "--out", tmp_path / "r")
    one_line_error(res, "no seat of this run plays learned", "random")


@pytest.mark.parametrize("change,words", [
    ("nosuch=1", ["unknown parameter 'nosuch'", "dividend"]),
    ("dividend=-5", ["dividend", "out of range"])])
def test_a_whatif_with_train_checks_the_changed_game_before_any_training(change, words, base,
                                                                         tmp_path):
    res = invoke("whatif", "invest", "--players", 2, "--set", change, "--strategies", "learned",
                 "--weight", f"learned.model={base}", "--games", 10, "--train", "100g",
                 "--out", tmp_path / "w")
    one_line_error(res, *words)
    assert not (tmp_path / "w").exists()


def test_budgets_parse():
    assert tune.parse_budget("5_000g").games == 5000
    assert tune.parse_budget("200 games").games == 200
    assert tune.parse_budget("10m").seconds == 600
    with pytest.raises(SimkitError):
        tune.parse_budget("12")


def test_a_sweep_refuses_a_model_of_other_data_unless_told_and_trains_one_a_point(base,
                                                                                 tmp_path):
    args = ["sweep", "invest", "--players", 2, "--vary", "dividend=0,2", "--strategies",
            "learned", "--weight", f"learned.model={base}", "--games", 20, "--workers", 1,
            "--quiet"]
    one_line_error(invoke(*args, "--out", tmp_path / "refused"), "--train",
                   "--model-mismatch ok")
    one_line_error(invoke("sensitivity", "invest", "--players", 2, "--keys", "dividend",
                          "--strategies", "learned", "--weight", f"learned.model={base}",
                          "--games", 20, "--out", tmp_path / "s"), "--model-mismatch ok")
    assert not (tmp_path / "refused").exists() and not (tmp_path / "s").exists()
    res = invoke(*args, "--out", tmp_path / "ok", "--model-mismatch", "ok")
    assert res.exit_code == 0, res.output
    res = invoke(*args, "--out", tmp_path / "trained", "--train", "200g")
    assert res.exit_code == 0, res.output
    played = [json.loads(p.read_text())["models"]["learned"]
              for p in sorted((tmp_path / "trained" / "points").glob("*/run.json"))]
    assert len(played) == 2 and len({m["digest"] for m in played}) == 2
    assert all(m["trained_from"] == learn.read_model(base).digest and not m["mismatch"]
               for m in played)


def test_a_balancing_search_follows_the_same_rule(base, tmp_path):
    args = ["balance", "invest", "--players", 2, "--vary", "dividend=0..2", "--strategies",
            "learned", "--weight", f"learned.model={base}", "--trials", 2, "--games", 20,
            "--confirm", 1, "--confirm-games", 20, "--workers", 1, "--quiet"]
    one_line_error(invoke(*args, "--out", tmp_path / "refused"), "--train",
                   "--model-mismatch ok")
    assert not (tmp_path / "refused").exists()
    res = invoke(*args, "--out", tmp_path / "trained", "--train", "100g")
    assert res.exit_code == 0, res.output
    spec = json.loads((tmp_path / "trained" / "balance.json").read_text())["spec"]
    assert spec["train"] == "100g"


def test_a_ladder_with_a_learned_level_follows_the_same_rule(base, tmp_path, monkeypatch):
    import simkit.ladder

    monkeypatch.setattr(simkit.ladder, "measure_costs",  # the estimate is not under test
                        lambda spec, seconds=0, **k: dict.fromkeys(spec.strategies, 1e-3))
    args = ["ladder", "invest", "--players", 2, *WORTHLESS, "--strategies", "random,learned",
            "--weight", f"learned.model={base}", "--games", 10, "--workers", 1, "--quiet"]
    one_line_error(invoke(*args, "--out", tmp_path / "refused"), "--train",
                   "--model-mismatch ok")
    assert not (tmp_path / "refused").exists()
    res = invoke(*args, "--out", tmp_path / "lad", "--train", "100g")
    assert res.exit_code == 0, res.output
    level = json.loads((tmp_path / "lad" / "levels" / "02-learned" / "run.json").read_text())
    assert level["models"]["learned"]["trained_from"] == learn.read_model(base).digest
    res = invoke(*args, "--out", tmp_path / "lad", "--train", "100g", "--resume")
    assert res.exit_code == 0, res.output  # the same model, found again: nothing to play
