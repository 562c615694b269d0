"""Assumptions weighed: `simkit sensitivity GAME --assumptions` moves only the data's assumed
values, as the data allows, under the game's strong player on common seeds; each game ships
the table measured at its default data; `simkit rules` and the report name what matters."""

import json
from dataclasses import replace

import pytest
from click.testing import CliRunner
from simkit.reports.assumptions import notes, shipped_tables

from simkit import data, registry
from simkit.cli import main
from simkit.errors import SimkitError
from simkit.explore import assumed_moves
from simkit.results import read_run

GAMES = ("avalon", "dolina-krolikow", "rabbit-hunt", "war-of-the-wilds", "watership-down")


def test_only_assumed_values_move_and_lists_only_through_named_alternatives():
    moves, unmoved = assumed_moves("watership-down")
    params = registry.get_game("watership-down").data
    assert all(params[k].source == "assumed" for k, _, _ in moves)
    got = {(k, v, role) for k, v, role in moves}
    assert ("board.layout", "long-9", "alternative") in got  # every other choice
    assert {("joining.hyzenthlay.appears", "Sandleford", "alternative"),
            ("joining.hyzenthlay.appears", "The Beech Hanger", "alternative")} <= got
    assert ("cards.refill_when_empty", False, "flipped") in got  # a boolean flipped
    assert {("max_turns", 299, "down"), ("max_turns", 301, "up")} <= got  # a step each way
    # a board, a card list and the joiners without alternatives move only through the data
    assert not [k for k, _, _ in moves if k.startswith(("board.diamond-7", "cards.hlessil"))]
    assert "board.diamond-7.spaces.Sandleford.wooded" in unmoved
    assert "joining.holly.appears" in unmoved
    assert "abilities.snare_group_strength" not in {k for k, _, _ in moves} | set(unmoved)


def test_alternatives_are_checked_where_the_data_is_read(tmp_path):
    path = tmp_path / "data.toml"
    path.write_text('[mode]\nvalue = "a"\nsource = "assumed"\nwhy = "x"\n'
                    'alternatives = [3]\n', encoding="utf-8")
    with pytest.raises(SimkitError, match="mode must be a string"):
        data.load_data(path)
    path.write_text('[cards]\n[cards._fields.power]\ntype = "int"\nsource = "assumed"\n'
                    'why = "x"\n[cards.boar]\npower = 2\nalternatives = { speed = [3] }\n',
                    encoding="utf-8")
    with pytest.raises(SimkitError, match="alternatives is a table of the record's fields"):
        data.load_data(path)
    path.write_text('[cards]\n[cards._fields.power]\ntype = "int"\nmin = 0\nmax = 5\n'
                    'source = "assumed"\nwhy = "x"\n[cards.boar]\npower = 2\n'
                    'alternatives = { power = [4, 0] }\n', encoding="utf-8")
    assert data.load_data(path)["cards.boar.power"].alternatives == (4, 0)


@pytest.fixture
def strong_pig(monkeypatch):
    """Pig whose strong player is hold-at (Pig's own GameSpec names none it has)."""
    spec = registry.get_game("pig")
    monkeypatch.setitem(registry._games, "pig", replace(spec, strong="hold-at"))


def test_assumptions_play_the_strong_player_on_common_seeds(tmp_path, strong_pig):
    out = tmp_path / "a"
    res = CliRunner().invoke(main, ["sensitivity", "pig", "--players", "2", "--assumptions",
                                    "--games", "200", "--out", str(out), "--json", "--quiet",
                                    "--workers", "1"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["assumptions"] and d["strategies"] == ["hold-at", "hold-at"]
    assert {(r["key"], r["value"]) for r in d["effects"]} == {
        ("target", 29), ("target", 31), ("max_turns", 399), ("max_turns", 401)}
    assert d["data_digest"] == data.data_digest(registry.get_game("pig").data)
    effects = [r["effect"] for r in d["effects"]]
    assert effects == sorted(effects, reverse=True)  # ranked, largest first
    cap = next(r for r in d["effects"] if r["key"] == "max_turns")
    assert cap["fpa"] == {"difference": 0.0, "ci_low": 0.0, "ci_high": 0.0}  # paired: exact
    assert [s["name"] for s in cap["seats"]] == ["seat 1", "seat 2"] and not cap["matters"]
    base = read_run(out / "points/000-base").games
    moved = read_run(out / next(r for r in d["effects"] if r["key"] == "target")["folder"])
    assert (base["seed"].to_numpy() == moved.games["seed"].to_numpy()).all()


def test_a_game_with_no_assumed_values_is_told_so(tmp_path, monkeypatch):
    spec = registry.get_game("pig")
    sure = replace(spec)
    sure.__dict__["data"] = {k: replace(p, source="rulebook") for k, p in spec.data.items()}
    monkeypatch.setitem(registry._games, "pig", sure)
    out = tmp_path / "a"
    res = CliRunner().invoke(main, ["sensitivity", "pig", "--players", "2", "--assumptions",
                                    "--out", str(out)])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "pig has no assumed values" in res.output and len(res.output.splitlines()) == 1
    assert not out.exists()
    res = CliRunner().invoke(main, ["sensitivity", "pig", "--players", "2", "--assumptions",
                                    "--keys", "target", "--out", str(out)])
    assert res.exit_code == 2 and "leave out --keys" in res.output and not out.exists()


@pytest.mark.parametrize("game", GAMES)
def test_each_game_ships_its_table_measured_at_its_default_data(game):
    tables = shipped_tables(game)
    spec = registry.get_game(game)
    assert 2 in tables, f"run: python benchmarks/assumptions.py --game {game}"
    moved = {k for k, _, _ in assumed_moves(game)[0]}
    for players, table in tables.items():
        assert table["players"] == players and players in spec.players
        assert table["data_digest"] == data.data_digest(spec.data), table["command"]
        assert table["strategies"] == [registry.strong_strategy(
            game, players, varied_data=True)] * players
        assert table["command"].startswith("python benchmarks/assumptions.py")
        assert {r["key"] for r in table["effects"]} <= moved


def test_rules_and_the_report_name_watership_downs_assumptions():
    res = CliRunner().invoke(main, ["rules", "watership-down"], catch_exceptions=False)
    assert res.exit_code == 0
    tail = res.output.split("Assumptions that move the outcome")[1]
    assert "joining.hyzenthlay.appears" in tail and "board.layout" in tail
    assert "elil's win rate" in tail and "no legal move" in tail
    default = data.data_digest(registry.get_game("watership-down").data)
    same = notes("watership-down", default, 0.01)
    assert same and not any("measured at the default data" in n for n in same)
    other = notes("watership-down", "0" * 16, 0.01)
    assert all("measured at the default data, which this run's data differs from" in n
               for n in other)
    assert notes("watership-down", default, 0.49) == []  # only what lies outside +-fair


def test_the_reports_endings_section_names_what_matters(tmp_path, monkeypatch):
    """A fake shipped table for Pig: the report names the row beyond ±fair, under its
    endings, and says it was measured at the default data when the run's data differs."""
    import simkit.reports.assumptions as RA
    from simkit.reports.build import build_report

    from simkit.runner import RunSpec, run_games

    row = {"key": "target", "value": 29, "today": 30, "role": "down", "why": "a guess",
           "fpa": {"difference": 3.0, "ci_low": 2.0, "ci_high": 4.0}, "endings": {},
           "seats": [{"seat": 1, "name": "seat 1", "difference": 3.0, "ci_low": 2.0,
                      "ci_high": 4.0},
                     {"seat": 2, "name": "seat 2", "difference": -3.0, "ci_low": -4.0,
                      "ci_high": -2.0}]}
    within = {"difference": 0.5, "ci_low": -0.5, "ci_high": 1.5}
    quiet = {**row, "key": "max_turns", "value": 399, "today": 400, "fpa": within,
             "seats": [{**s, **within} for s in row["seats"]]}
    table = {"data_digest": data.data_digest(registry.get_game("pig").data), "games": 100,
             "players": 2, "strategies": ["random", "random"], "command": "x",
             "base": {"endings": {}}, "effects": [row, quiet]}
    monkeypatch.setattr(RA, "shipped", lambda game, players=None: table if game == "pig"
                        else None)
    import simkit.reports.build as B

    class NoFigures:  # the figures are not what is tested, and most of the report's time
        def __getattr__(self, name):
            return lambda *a, **k: None

    monkeypatch.setattr(B, "F", NoFigures())
    monkeypatch.setattr(B.Document, "figure", lambda self, *a, **k: None)
    run_games(RunSpec.make("pig", 2, 40, 1, "random", {"target": 25}), out=tmp_path / "r",
              workers=1)
    html = (build_report([tmp_path / "r"], tmp_path / "rep") / "index.html").read_text()
    endings = html[html.index("Game length and endings"):]
    assert "Assumed, not in the rulebook: target (a guess). target 30 -&gt; 29" in endings \
        or "Assumed, not in the rulebook: target (a guess). target 30 -> 29" in endings
    assert "measured at the default data, which this run's data differs from" in endings \
        or "measured at the default data, which this run&#x27;s data differs from" in endings
    assert "Assumed, not in the rulebook: max_turns" not in html  # within ±1 point
