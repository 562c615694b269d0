"""The ladder ratings each game ships (simkit/games/<game>/ladder.json, written by
benchmarks/ladder_ratings.py) and the headline's "a stronger player exists" that reads them
(reports/headline.py). The files are read, never played: the CLI runs here are of random
seats, a few games each."""

import json

import pytest
from click.testing import CliRunner
from simkit.reports import headline as H

from simkit import data, learn, registry
from simkit.cli import main
from simkit.ladder import RATINGS_FILE, shipped_ratings

SHIPPED = [name for name, spec in registry.games().items()
           if (spec.package_dir / RATINGS_FILE).is_file()]
GAME = "rabbit-hunt"


def test_every_game_of_ours_ships_its_ladder_ratings():
    assert set(SHIPPED) >= {"avalon", "dolina-krolikow", "rabbit-hunt", "war-of-the-wilds",
                            "watership-down"}


@pytest.mark.parametrize("game", SHIPPED)
def test_shipped_ratings_fit_their_game_as_it_is(game):
    """Measured at the game's VERSION and default data: a rules or data change fails here
    until the ladder is played again (``python benchmarks/ladder_ratings.py --game G
    --fresh``)."""
    spec = registry.get_game(game)
    doc = shipped_ratings(game)
    assert doc["game"] == game
    assert doc["game_version"] == spec.version, "measured on another VERSION"
    assert doc["data_digest"] == data.data_digest(spec.data), "measured on other data"
    assert doc["command"].startswith(f"python benchmarks/ladder_ratings.py --game {game} ")
    names = [lv["strategy"] for lv in doc["levels"]]
    for lv in doc["levels"]:
        assert set(lv["stronger"]) <= set(names) - {lv["strategy"]}
        assert all(lv["rating"] < next(x["rating"] for x in doc["levels"] if x["strategy"] == s)
                   for s in lv["stronger"])


@pytest.mark.parametrize("game", SHIPPED)
def test_shipped_ratings_name_the_models_the_game_ships(game):
    """A level that plays by a model was rated with the model the game ships now: a new
    model (a retraining) fails here until the ladder is played again."""
    spec = registry.get_game(game)
    doc = shipped_ratings(game)
    for lv in doc["levels"]:
        if lv["model_digest"] is not None:
            path = spec.package_dir / "models" / f"{doc['players']}p.npz"
            assert learn.read_model(path).digest == lv["model_digest"], lv["strategy"]


@pytest.mark.parametrize("game", SHIPPED)
def test_shipped_ratings_rate_the_searches_at_their_default_budgets(game):
    """A search level (``ismcts@600``) was rated at the budget the game gives it by default
    now: new defaults (Dolina królików's guided search, 500 iterations of a tree, then 1,200
    playouts by halving) fail here until the ladder is played again."""
    from simkit.search import knob_defaults

    kinds = {"ismcts": "ismcts", "ismcts+learned": "guided"}
    for lv in shipped_ratings(game)["levels"]:
        name, budget = registry.split_budget(lv["strategy"])
        if name in kinds:
            assert budget == int(knob_defaults(game, kinds[name])["iterations"]), lv["strategy"]


def play(tmp_path, *extra):
    out = tmp_path / "run"
    res = CliRunner().invoke(main, ["run", GAME, "--players", "2", "--games", "20",
                                    "--strategies", "random", "--workers", "1", "--out",
                                    str(out), *extra], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res, json.loads((out / "run.json").read_text())


def test_random_seats_hear_that_a_stronger_player_exists_and_its_name(tmp_path):
    doc = shipped_ratings(GAME)
    random = next(lv for lv in doc["levels"] if lv["strategy"] == "random")
    assert random["stronger"], "the shipped ladder rates nothing above random"
    res, _ = play(tmp_path, "--json")
    [text] = json.loads(res.stdout)["headline"]
    best = H.strategy_name(random["stronger"][0])
    assert f"a stronger player than random exists: {best}." in text, text
    assert "measured at the default data" not in text
    assert len(text.split()) <= H.MAX_WORDS


def test_a_run_at_other_data_says_the_ratings_were_measured_at_the_default_data(
        tmp_path, monkeypatch):
    from simkit.reports import figures

    monkeypatch.setattr(figures, "save", lambda fig, buf: None)  # the text is what is read
    res, meta = play(tmp_path, "--set", "carrots.cap=4", "--report", tmp_path / "page")
    assert meta["data_digest"] != shipped_ratings(GAME)["data_digest"]
    said = " ".join(res.output.split())  # the terminal's headline, its lines joined
    assert "exists: " in said and " (measured at the default data)." in said, res.output
    page = (tmp_path / "page" / "index.html").read_text()
    assert "(measured at the default data)." in page


def _meta(doc, names, **over):
    models = {lv["strategy"]: {"digest": lv["model_digest"]} for lv in doc["levels"]
              if lv["model_digest"]}
    return {"game": doc["game"], "game_version": doc["game_version"],
            "data_digest": doc["data_digest"], "strategies": names, "models": models,
            "run_spec": {"weights": []}, **over}


@pytest.mark.parametrize("game", SHIPPED)
def test_the_strongest_level_hears_nothing_of_a_stronger_player(game):
    doc = shipped_ratings(game)
    top = max(doc["levels"], key=lambda lv: lv["rating"])
    assert not top["stronger"]
    meta = _meta(doc, [top["strategy"]] * 2)
    assert H.stronger_claim(meta, 2, doc) is None
    below = min(doc["levels"], key=lambda lv: lv["rating"])  # with the top: it speaks of the top
    assert H.stronger_claim(_meta(doc, [below["strategy"], top["strategy"]]), 2, doc) is None


def test_nothing_is_said_where_the_ratings_do_not_speak_of_this_play():
    doc = shipped_ratings(GAME)
    weak = next(lv for lv in doc["levels"] if lv["stronger"])
    names = [weak["strategy"]] * 2
    assert H.stronger_claim(_meta(doc, names), 2, doc)  # the control: it speaks here
    assert H.stronger_claim(_meta(doc, names), 2, None) is None  # a plugin: no ratings
    assert H.stronger_claim(_meta(doc, names), 3, doc) is None  # rated at 2 players
    assert H.stronger_claim(_meta(doc, names, game_version="0"), 2, doc) is None
    assert H.stronger_claim(_meta(doc, ["mc@7"] * 2), 2, doc) is None  # not rated
    weighted = _meta(doc, names, run_spec={"weights": ["heuristic.w=1"]})
    assert H.stronger_claim(weighted, 2, doc) is None  # another player than the rated one
    learned = next((lv for lv in doc["levels"] if lv["model_digest"]), None)
    if learned is not None and learned["stronger"]:
        other = _meta(doc, [learned["strategy"]] * 2)
        other["models"][learned["strategy"]] = {"digest": "0" * 64}  # --train's model
        assert H.stronger_claim(other, 2, doc) is None


def test_the_note_comes_last_within_forty_words_after_the_figures_of_its_claim():
    """The note follows the seat claim's figures (which are that claim's, not the note's)
    and the headline still keeps to its 40 words, with the longest 2-player line-up."""
    def strat(name, share, lo, hi):
        return {"players": 2, "seat": "all", "strategy": name, "score_share": share,
                "share_low": lo, "share_high": hi, "win_rate": share, "win_low": lo,
                "win_high": hi}
    seats = [{"players": 2, "seat": s, "name": f"seat {s}", "games": 400, "advantage": a,
              "adv_low": a - 0.05, "adv_high": a + 0.05, "win_rate": 0.5}
             for s, a in ((1, 0.02), (2, -0.02))]
    t = {"seats": seats, "teams": [], "strategies": [strat("heuristic-v1", 0.9, 0.88, 0.92),
                                                     strat("random", 0.1, 0.08, 0.12)],
         "fpa": [{"players": 2, "games": 400, "advantage": 0.02, "ci_low": -0.03,
                  "ci_high": 0.07}]}
    note = ("a stronger player than heuristic v1 exists: ismcts+learned@500 (measured at the "
            "default data)")
    text = H.run_headline(t, ["heuristic-v1", "random"], 2, 0.01, note)
    assert text.endswith(f"; {note}.") and len(text.split()) <= H.MAX_WORDS, text
    plain = H.run_headline(t, ["heuristic-v1", "random"], 2, 0.01)
    assert "(first-player advantage" in plain  # the figures the note may push out
    if "(first-player advantage" in text:
        assert text.index("(first-player advantage") < text.index("a stronger player")
