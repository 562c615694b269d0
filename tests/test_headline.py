"""Headlines (reports/headline.py): one sentence per player count, at most 40 words, naming
the strategies by display name, every claim one its 95% intervals support: a seat ahead only
when its interval excludes 0, "balanced" only inside +-fair, otherwise "cannot tell yet".
Checked on built tables, then on the README's experiment (small game counts), a what-if, a
sweep and a skill ladder, each through the command line's --json."""

import json
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner
from simkit.reports import headline as H

from simkit.cli import main

ROOT = Path(__file__).resolve().parents[1]
FAIR = 0.01


def invoke(*args):
    res = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res


def seat_rows(players, advs, games=2000):
    """Seat rows of ``seat_outcomes``: (advantage, low, high) per seat."""
    return [{"players": players, "seat": s, "name": f"seat {s}", "games": games,
             "advantage": a, "adv_low": lo, "adv_high": hi, "win_rate": 0.5}
            for s, (a, lo, hi) in enumerate(advs, start=1)]


def tables(players, advs, teams=(), strategies=None):
    a, lo, hi = advs[0]
    return {"seats": seat_rows(players, advs), "teams": list(teams),
            "fpa": [{"players": players, "games": 2000, "advantage": a, "ci_low": lo,
                     "ci_high": hi}],
            "strategies": strategies or [{"players": players, "seat": "all",
                                          "strategy": "heuristic", "score_share": 0.5,
                                          "share_low": 0.48, "share_high": 0.52}]}


def check_claims(sentence, seats, fpa=None, fair=FAIR):
    """Every claim of a run headline is one the seats' (and first-player advantage's)
    intervals support."""
    assert len(sentence.split()) <= H.MAX_WORDS, sentence
    if "team of seats" in sentence and "is ahead by" in sentence:  # seat 1's is its team's
        assert fpa["ci_low"] > 0 or fpa["ci_high"] < 0, sentence
    named = [r for r in seats if f"{r['name']} is ahead by" in sentence]
    for r in named:  # a seat called ahead: its interval excludes 0
        assert r["adv_low"] > 0, sentence
    inside = all(r["adv_low"] >= -fair and r["adv_high"] <= fair for r in seats)
    assert ("balanced" in sentence) == inside, sentence
    if "is ahead by" not in sentence and not inside:
        assert "cannot tell yet" in sentence or "too few games" in sentence, sentence
    if "cannot tell yet whether a seat" in sentence:
        assert not any(r["adv_low"] > 0 for r in seats), sentence


@pytest.mark.parametrize("advs", [
    [(0.01, -0.002, 0.022), (-0.01, -0.022, 0.002)],  # holds 0, wider than +-1
    [(0.004, -0.009, 0.017), (-0.004, -0.017, 0.009)],  # holds 0, one end beyond +1
])
def test_no_seat_is_called_ahead_when_its_interval_holds_zero(advs):
    text = H.run_headline(tables(2, advs), ["heuristic", "heuristic"], 2, FAIR)
    assert "is ahead by" not in text and "balanced" not in text
    assert "cannot tell yet whether a seat is ahead" in text
    assert text.startswith("2 players, heuristic against itself: ")
    check_claims(text, seat_rows(2, advs))


def test_balanced_only_when_every_interval_lies_inside_fair():
    advs = [(0.002, -0.006, 0.009), (-0.002, -0.009, 0.006)]
    text = H.run_headline(tables(2, advs), ["random", "random"], 2, FAIR)
    assert "balanced" in text and "under random play" in text
    check_claims(text, seat_rows(2, advs))


def test_a_seat_is_ahead_only_when_its_interval_excludes_zero():
    advs = [(-0.03, -0.04, -0.02), (0.03, 0.02, 0.04)]
    text = H.run_headline(tables(2, advs), ["learned", "learned"], 2, FAIR)
    assert "seat 2 is ahead by +3.0 points of score share [+2.0, +4.0]" in text
    assert "learnt model against itself" in text  # display names, not codes
    check_claims(text, seat_rows(2, advs))


def test_at_four_players_in_two_teams_the_headline_speaks_of_teams():
    advs = [(-0.02, -0.03, -0.01), (0.02, 0.01, 0.03)] * 2
    teams = [{"players": 4, "team": 1, "seats": "1+3"}, {"players": 4, "team": 2,
                                                          "seats": "2+4"}]
    text = H.run_headline(tables(4, advs, teams), ["heuristic"] * 4, 4, FAIR)
    assert text.startswith("4 players in two teams")
    assert "the team of seats 2 and 4 is ahead by +2.0 points" in text
    unclear = H.run_headline(tables(4, [(0.01, -0.01, 0.03)] * 4, teams), ["heuristic"] * 4,
                             4, FAIR)
    assert "cannot tell yet which team is ahead" in unclear


def test_a_strategy_is_stronger_only_when_its_interval_clears_the_others():
    def strat(name, share, lo, hi):
        return {"players": 2, "seat": "all", "strategy": name, "score_share": share,
                "share_low": lo, "share_high": hi, "win_rate": share, "win_low": lo,
                "win_high": hi}
    advs = [(0.0, -0.02, 0.02), (0.0, -0.02, 0.02)]
    clear = tables(2, advs, strategies=[strat("heuristic", 0.9, 0.88, 0.92),
                                        strat("random", 0.1, 0.08, 0.12)])
    text = H.run_headline(clear, ["heuristic", "random"], 2, FAIR)
    assert "heuristic against random: heuristic is stronger, winning 90.0%" in text
    close = tables(2, advs, strategies=[strat("ismcts@400", 0.52, 0.49, 0.55),
                                        strat("heuristic-v1", 0.48, 0.45, 0.51)])
    text = H.run_headline(close, ["ismcts@400", "heuristic-v1"], 2, FAIR)
    assert "ISMCTS@400 against heuristic v1: no strategy is clearly stronger yet" in text


def test_a_long_line_up_stays_within_forty_words():
    names = ["ismcts@400", "heuristic-v1", "learned", "random"]
    advs = [(0.01, -0.002, 0.022)] * 4
    text = H.run_headline(tables(4, advs), names, 4, FAIR)
    assert len(text.split()) <= H.MAX_WORDS and "cannot tell yet" in text


def test_an_experiment_headlines_its_strong_players_self_play():
    runs = [{"game": "g", "players": 2, "strategies": ["heuristic", "random"],
             "headline": ["2 players, heuristic against random: a."]},
            {"game": "g", "players": 2, "strategies": ["learned", "learned"],
             "headline": ["2 players, learnt model against itself: b."]},
            {"game": "g", "players": 2, "strategies": ["heuristic", "heuristic"],
             "headline": ["2 players, heuristic against itself: c."]},
            {"game": "g", "players": 3, "strategies": ["random"] * 3,
             "headline": ["3 players, under random play: d."]}]
    assert H.pick_headlines(runs, lambda game, players: "heuristic") == [
        "2 players, heuristic against itself: c.", "3 players, under random play: d."]
    other = {"game": "h", "players": 2, "strategies": ["heuristic"] * 2,
             "headline": ["2 players, heuristic against itself: e."]}
    assert H.pick_headlines([*runs, other], lambda game, players: "heuristic") == [
        "g, 2 players, heuristic against itself: c.", "g, 3 players, under random play: d.",
        "h, 2 players, heuristic against itself: e."]  # a headline per game and count


def test_a_card_edit_values_the_new_card_only_as_its_interval_allows():
    diff = [("cards.boar.count", "4", "2"), ("cards.stag", "-", "added")]
    cards = H.edited_cards(diff, ["boar:played", "stag:drawn", "stag:played"])
    assert cards == [("stag", True), ("boar", False)]  # the new card first
    fpa = [{"measure": "first-player advantage", "base": 0.05, "changed": 0.02,
            "difference": -0.03, "ci_low": -0.04, "ci_high": -0.02}]
    for (lo, hi), says in [((0.02, 0.06), "seats that played the new Stag win 4.0 points "
                                          "more often [+2.0, +6.0], an association"),
                           ((-0.01, 0.09), "cannot tell yet whether seats that played the "
                                           "new Stag win more often")]:
        values = [{"item": "stag:played", "difference": 0.04, "ci_low": lo, "ci_high": hi,
                   "occurred": 50}, {"item": "boar:played", "difference": 0.1, "ci_low": 0.05,
                                     "ci_high": 0.15, "occurred": 90}]
        text = H.whatif_headline(fpa, diff, 2, ["heuristic"] * 2, FAIR,
                                 H.card_value(cards, values, {"item_names": {
                                     "stag:played": "Stag (played)"}}))
        assert text.startswith("cards.boar.count 4 -> 2, cards.stag added (2 players, "
                               "heuristic against itself): first-player advantage moves by "
                               "-3.0 points [-4.0, -2.0], from +5.0 to +2.0; ")
        assert says in text and len(text.split()) <= H.MAX_WORDS, text


# ---------------------------------------------------------------------------------------------
# through the command line


def test_the_readme_experiment_opens_with_one_supported_headline_per_player_count(
        tmp_path, monkeypatch):
    from simkit.reports import figures

    monkeypatch.setattr(figures, "save", lambda fig, buf: None)  # the text is what is read
    exp = tomllib.loads((ROOT / "experiments" / "rabbit-hunt.toml").read_text())
    lines = []
    for run in exp["run"]:  # the README's experiment at 300 games a run
        lines += ["[[run]]", *(f"{k} = {json.dumps(min(v, 300) if k == 'games' else v)}"
                              for k, v in run.items() if k != "check_cards")]
    small = tmp_path / "rabbit-hunt.toml"
    small.write_text("\n".join(lines) + "\n")
    report = tmp_path / "report"
    res = invoke("run", small, "--out", tmp_path / "runs", "--workers", 1, "--json",
                 "--report", report)
    out = json.loads(res.stdout)
    players = sorted({r["players"] for r in out["runs"]})
    assert [int(h.split()[0]) for h in out["headline"]] == players
    by_sentence = {h: r for r in out["runs"] for h in r["headline"]}
    for h in out["headline"]:
        run = by_sentence[h]  # each experiment headline is one run's
        assert "heuristic" in h  # the strong player, by name
        check_claims(h, run["seats"], run["first_player_advantage"][0])
        if run["players"] == 4:
            assert "two teams" in h
    assert any(set(r["strategies"]) == {"heuristic"} for r in out["runs"])
    page = (report / "index.html").read_text()
    assert page.index('class="headline"') < page.index("Details: every verdict")
    assert out["headline"][0].split(":")[0] in page


def test_a_card_whatif_names_the_change_its_effect_and_the_cards_value(tmp_path):
    res = invoke("whatif", "rabbit-hunt", "--players", 2, "--strategies", "heuristic",
                 "--set", "farmland.take_2_carrots.count=2", "--games", 300, "--workers", 1,
                 "--out", tmp_path / "w", "--json")
    out = json.loads(res.stdout)
    [h] = out["headline"]
    assert h.startswith("farmland.take_2_carrots.count 4 -> 2 (2 players, heuristic against "
                        "itself): ")
    assert "seats that placed Take 2 carrots" in h and len(h.split()) <= H.MAX_WORDS
    f = next(r for r in out["differences"] if r["measure"] == "first-player advantage")
    moved = f["ci_low"] > 0 or f["ci_high"] < 0
    assert ("moves by" in h and "no more than" not in h) == moved
    assert ("cannot tell yet how" in h) == (not moved and not (
        f["ci_low"] >= -FAIR and f["ci_high"] <= FAIR))
    page = Path(out["report"]).read_text()  # the report opens with it, the verdicts fold below
    assert page.index('class="headline"') < page.index("Details: every verdict")
    assert "seats that placed Take 2 carrots" in page


def test_a_sweep_and_a_ladder_have_a_supported_headline(tmp_path):
    res = invoke("sweep", "pig", "--players", 2, "--vary", "target=20,40", "--games", 400,
                 "--workers", 1, "--out", tmp_path / "s", "--json")
    s = json.loads(res.stdout)
    [h] = s["headline"]
    assert h.startswith("2 players, ") and "target over 2 values" in h
    assert len(h.split()) <= H.MAX_WORDS
    fpas = [pt["first_player_advantage"] for pt in s["points"]]
    if "balanced" in h:
        assert any(f["ci_low"] >= -FAIR and f["ci_high"] <= FAIR for f in fpas)
    if "ahead at every value" in h:
        assert all(f["ci_low"] > 0 for f in fpas)
    res = invoke("ladder", "pig", "--players", 2, "--strategies", "random,hold-at",
                 "--games", 200, "--workers", 1, "--out", tmp_path / "l", "--json")
    lad = json.loads(res.stdout)
    [h] = lad["headline"]
    assert h.startswith("2 players, skill ladder of 2 levels: ")
    assert len(h.split()) <= H.MAX_WORDS
    assert ("rated" in h) == (lad["depth"]["ci_low"] > 0)
    top = next(r for r in lad["balance"] if r["level"] == lad["depth"]["to"])
    check_claims(h, top["seats"])
