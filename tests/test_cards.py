"""Card lists a designer can edit: record lists in data.toml (one key per field), whole lists
replaced from CSV files (``--cards``) and written to them (``simkit cards --export``), and
every bad card file refused in one line, exit 2, nothing written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simkit import cards, data, registry
from simkit.cli import main
from simkit.errors import SimkitError
from simkit.runner import RunSpec, plan

LIST_TOML = """
[max_turns]
value = 10
source = "assumed"
why = "cap"

[beasts]
_noun = "beast"
[beasts._fields.strength]
type = "int"
min = 0
max = 9
source = "rulebook"
why = "How strong."
[beasts._fields.words]
type = "list"
choices = ["flying", "band"]
default = []
source = "assumed"
why = "Its words."
[beasts._fields.colour]
type = "str"
choices = ["red", "blue"]
default = "red"
source = "assumed"
why = "Its colour."
[beasts.owl]
strength = 2
words = ["flying"]
why = "An owl."
[beasts.mouse]
strength = 1
source = "assumed"

[tiles]
_rows = [{size = 1.5, open = true}, {size = 2, open = false, why = "the big one"}]
[tiles._fields.size]
type = "float"
min = 0
source = "assumed"
why = "Its size."
[tiles._fields.open]
type = "bool"
source = "rulebook"
why = "Open or not."
"""


@pytest.fixture
def beasts(tmp_path):
    path = tmp_path / "data.toml"
    path.write_text(LIST_TOML, encoding="utf-8")
    return data.load_data(path)


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


# ---------------------------------------------------------------- record lists in data.toml

def test_every_field_of_every_record_is_a_key_with_its_source(beasts):
    assert [k for k in beasts if k.startswith("beasts.owl")] == [
        "beasts.owl.strength", "beasts.owl.words", "beasts.owl.colour"]
    owl, mouse = beasts["beasts.owl.strength"], beasts["beasts.mouse.strength"]
    assert (owl.value, owl.source, owl.why) == (2, "rulebook", "An owl.")
    assert (mouse.value, mouse.source, mouse.why) == (1, "assumed", "How strong.")
    assert beasts["beasts.mouse.words"].value == [] and beasts["beasts.mouse.colour"].value == "red"
    assert beasts["tiles.2.size"].value == 2.0 and beasts["tiles.1.size"].value == 1.5
    assert beasts["tiles.2.open"].why == "the big one" and beasts["tiles.1.open"].value is True
    assert not any(p.changed for p in beasts.values())
    assert data.records(data.values(beasts), "beasts") == [
        ("owl", {"strength": 2, "words": ["flying"], "colour": "red"}),
        ("mouse", {"strength": 1, "words": [], "colour": "red"})]


@pytest.mark.parametrize("text,words", [
    ("[beasts.owl]\nstrength = 2\nwings = 2\n", "unknown field 'wings'"),
    ("[beasts.owl]\nwords = []\n", "lacks its strength"),
    ("[beasts.owl]\nstrength = 12\n", "out of range"),
    ("[beasts.owl]\nstrength = 1\ncolour = 'green'\n", "choices: red, blue"),
    ("[beasts.owl]\nstrength = 1\nsource = 'guess'\n", "source must be one of"),
    ("_rows = [{strength = 1}]\n[beasts.owl]\nstrength = 1\n", "not both"),
])
def test_a_bad_record_in_the_data_file_is_refused_in_one_line(tmp_path, text, words):
    schema = LIST_TOML[LIST_TOML.index("[beasts]"):LIST_TOML.index("[beasts.owl]")]
    if text.startswith("_rows"):
        schema = schema.replace('_noun = "beast"', '_noun = "beast"\n' + text.split("\n")[0])
        text = text.split("\n", 1)[1]
    (tmp_path / "d.toml").write_text(schema + text, encoding="utf-8")
    with pytest.raises(SimkitError, match=words) as err:
        data.load_data(tmp_path / "d.toml")
    assert "\n" not in str(err.value)


def test_one_field_override_and_a_list_replaced_whole(beasts):
    p = data.apply_overrides(beasts, {"beasts.owl.strength": 5, "beasts.owl.words": "flying band"})
    assert p["beasts.owl.strength"].value == 5 and p["beasts.owl.strength"].changed
    assert p["beasts.owl.words"].value == ["flying", "band"]
    rows = [{"name": "bat", "strength": 3, "words": ["flying"]}, {"name": "owl", "strength": 2,
                                                                  "words": ["flying"]}]
    p = data.apply_overrides(beasts, {"beasts": rows, "beasts.bat.strength": 4})
    assert [n for n, _ in data.table(p, "beasts")] == ["bat", "owl"]
    assert p["beasts.bat.strength"].value == 4 and p["beasts.bat.strength"].default is None
    assert p["beasts.bat.strength"].source == "assumed"  # a new record says nothing of itself
    assert not p["beasts.owl.strength"].changed and p["beasts.owl.strength"].why == "An owl."
    assert "beasts.mouse.strength" not in p and list(p)[0] == "max_turns"


@pytest.mark.parametrize("over,words", [
    ({"beasts.bat.strength": 1}, "unknown beast 'bat'"),
    ({"beasts.owl.strenght": 1}, "unknown field 'strenght' (did you mean 'strength'?)"),
    ({"beasts.owl": 1}, "is a beast: set one of its fields"),
    ({"tiles.3.size": 1.0}, "unknown row number '3'"),
    ({"beasts.owl.words": "swims"}, "'swims' is not allowed; choices: flying, band"),
    ({"beasts": [{"name": "owl", "strength": 1}, {"name": "owl", "strength": 2}]}, "two beasts"),
    ({"beasts": []}, "one or more beasts"),
    ({"beasts": [{"name": "o.wl", "strength": 1}]}, "cannot be a name"),
])
def test_overrides_naming_no_record_or_field_are_refused(beasts, over, words):
    with pytest.raises(SimkitError) as err:
        data.apply_overrides(beasts, over)
    assert words in str(err.value)


def test_a_list_override_is_hashable_and_thaws_for_run_json():
    rows = [{"name": "owl", "strength": 1, "words": ["flying"]}]
    frozen = data.freeze(rows)
    hash(frozen)
    assert data.thaw(frozen) == rows
    assert data.apply_overrides(data.load_data(_write(LIST_TOML)), {"beasts": frozen})[
        "beasts.owl.words"].value == ["flying"]


def _write(text: str) -> Path:
    import tempfile

    path = Path(tempfile.mkdtemp()) / "data.toml"
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------- CSV in and out

WITH_LISTS = sorted(g for g, s in registry.games().items() if data.lists_of(s.data))


def test_every_game_of_simkit_has_its_cards_as_record_lists():
    assert {"avalon", "dolina-krolikow", "rabbit-hunt", "war-of-the-wilds",
            "watership-down"} <= set(WITH_LISTS)


@pytest.mark.parametrize("game", WITH_LISTS)
def test_every_list_of_every_game_round_trips_through_csv(tmp_path, game):
    spec = registry.get_game(game)
    lists = data.lists_of(spec.data)
    written = cards.export(spec.data, game, tmp_path / "lists")
    over, _ = cards.read_card_files(game, [str(tmp_path / "lists")])
    assert set(over) == set(lists) and len(written) == len(lists)
    back = data.apply_overrides(spec.data, over)
    assert {k: (p.value, p.source, p.why) for k, p in back.items()} == \
        {k: (p.value, p.source, p.why) for k, p in spec.data.items()}
    assert not any(p.changed for p in back.values())
    for n in spec.players:
        for a, b in zip(spec.compile(data.values(back), n),
                        spec.compile(data.values(spec.data), n), strict=True):
            assert np.array_equal(a, b)


@pytest.mark.parametrize("game,players", [("war-of-the-wilds", 3), ("dolina-krolikow", 2)])
def test_export_then_import_unchanged_plays_identical_games(tmp_path, game, players):
    """The round trip end to end: the games and items tables of two small runs, bit for bit."""
    assert invoke("cards", game, "--export", tmp_path / "lists").exit_code == 0
    for name, extra in (("as_is", []), ("from_csv", ["--cards", tmp_path / "lists"])):
        res = invoke("run", game, "--players", players, "--games", 60, "--seed", 3, "--out",
                     tmp_path / name, "--quiet", "--workers", 1, *extra)
        assert res.exit_code == 0, res.output
    for table in ("games", "items"):
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "as_is" / f"{table}.parquet"),
                                      pd.read_parquet(tmp_path / "from_csv" / f"{table}.parquet"))


def wotw_cards(tmp_path, edit=None, name="cards.csv") -> Path:
    """War of the Wilds' cards.csv, edited: ``edit`` maps the text of the file to new text."""
    spec = registry.get_game("war-of-the-wilds")
    text = cards.csv_text(spec.data, "cards")
    path = tmp_path / name
    path.write_text(edit(text) if edit else text, encoding="utf-8")
    return path


STAG = "stag,2,0,1,0,0,2,3,3,relentless,defend_strength,1,,A stag from the sheet.\n"


def with_stag(text: str) -> str:
    return text.replace("\nboar,4,", "\nboar,2,") + STAG


def test_a_card_added_in_the_sheet_plays_reports_and_replays_under_its_own_name(tmp_path):
    path = wotw_cards(tmp_path, with_stag)
    res = invoke("run", "war-of-the-wilds", "--players", 2, "--games", 200, "--seed", 1,
                 "--out", tmp_path / "r", "--quiet", "--workers", 1, "--cards", path)
    assert res.exit_code == 0, res.output
    meta = json.loads((tmp_path / "r" / "run.json").read_text())
    assert "stag:played" in meta["item_columns"]
    assert meta["params"]["cards.stag.ability"]["value"] == "defend_strength"
    assert meta["params"]["cards.boar.count"] == {
        "value": 2, "default": 4, "source": "assumed", "changed": True,
        "why": meta["params"]["cards.boar.count"]["why"]}
    assert [r["name"] for r in meta["overrides"]["cards"]][-1] == "stag"
    items = pd.read_parquet(tmp_path / "r" / "items.parquet")
    assert items["stag:drawn"].sum() > 0
    from simkit.reports.analysis import item_value

    games = pd.read_parquet(tmp_path / "r" / "games.parquet")
    value = item_value(games, meta, tmp_path / "r" / "items.parquet")
    assert "stag:played" in set(value["item"])
    path.unlink()  # run.json alone reproduces it
    game = int(np.flatnonzero(items.groupby("game")["stag:drawn"].sum().to_numpy() > 0)[0])
    res = invoke("replay", "--run", tmp_path / "r", "--game", game)
    assert res.exit_code == 0, res.output
    assert "(matches the recorded row)" in res.output and "Stag" in res.output


def test_a_runs_card_lists_export_from_its_run_json_alone(tmp_path):
    path = wotw_cards(tmp_path, with_stag)
    assert invoke("run", "war-of-the-wilds", "--players", 2, "--games", 5, "--out",
                  tmp_path / "r", "--quiet", "--workers", 1, "--cards", path).exit_code == 0
    res = invoke("cards", "--run", tmp_path / "r", "--export", tmp_path / "again.csv",
                 "--list", "cards")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "again.csv").read_text() == path.read_text()


def test_rules_shows_each_list_as_a_table_with_changed_cells_marked(tmp_path):
    res = invoke("rules", "war-of-the-wilds", "--set", "cards.boar.strength=3", "--cards",
                 wotw_cards(tmp_path, with_stag))
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    head = next(ln for ln in lines if ln.strip().startswith("card "))
    assert head.split()[:4] == ["card", "count", "cost_berry", "cost_twig"]
    boar = next(ln for ln in lines if ln.strip().startswith("boar "))
    assert boar.split()[1] == "2*" and boar.split()[7] == "3*" and boar.split()[8] == "4"
    assert any(ln.strip().startswith("stag +") for ln in lines)
    assert not any("*" in c for c in next(ln for ln in lines
                                          if ln.strip().startswith("sparrow ")).split())


def test_cards_shows_the_fields_and_exports_one_list_or_all(tmp_path):
    res = invoke("cards", "war-of-the-wilds")
    assert res.exit_code == 0, res.output
    assert "cards: 21 cards" in res.output and "homes: 6 homes" in res.output
    assert "strength      int 0..20 (default 0); assumed: A creature's strength" in res.output
    res = invoke("cards", "war-of-the-wilds", "--export", tmp_path / "one.csv", "--list", "cards")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "one.csv").read_text().startswith("name,count,cost_berry")
    res = invoke("cards", "war-of-the-wilds", "--export", tmp_path / "one.csv", "--list", "cards")
    assert res.exit_code == 2 and "--overwrite" in res.output


def test_an_experiment_file_takes_card_files_beside_it(tmp_path):
    wotw_cards(tmp_path, with_stag, "mine.cards.csv")
    exp = tmp_path / "e.toml"
    exp.write_text('[[run]]\nname = "stag"\ngame = "war-of-the-wilds"\nplayers = 2\n'
                   'games = 20\ncards = ["mine.cards.csv"]\n[run.set]\n'
                   '"cards.stag.strength" = 4\n', encoding="utf-8")
    res = invoke("run", exp, "--out", tmp_path / "runs", "--quiet", "--workers", 1)
    assert res.exit_code == 0, res.output
    meta = json.loads((tmp_path / "runs" / "stag" / "run.json").read_text())
    assert meta["params"]["cards.stag.strength"]["value"] == 4


def test_whatif_compares_a_card_file_with_the_game_as_it_is(tmp_path):
    res = invoke("whatif", "war-of-the-wilds", "--players", 2, "--games", 40, "--cards",
                 wotw_cards(tmp_path, with_stag), "--out", tmp_path / "w", "--workers", 1)
    assert res.exit_code == 0, res.output
    assert f"cards={tmp_path / 'cards.csv'}" in res.output
    assert "stag:played" in json.loads(
        (tmp_path / "w" / "changed" / "run.json").read_text())["item_columns"]
    title = (tmp_path / "w" / "report" / "summary.md").read_text().splitlines()[0]
    assert title.endswith("cards.boar.count 4 -> 2, cards.stag added")


# ---------------------------------------------------------------- bad card files

BAD = [
    (lambda t: t + "elk,2,0,1,0,0,2,3,3,,fly_away,1,,\n",
     "row 22 (elk), column ability = 'fly_away' is not allowed; choices: none, defend_strength"),
    (lambda t: t + "elk,2,0,1,0,0,2,3,3,trick,tire_draw,1,,\n",
     "row 22 (elk), column ability: 'tire_draw' does not fit a trick; choices for one: ambush"),
    (lambda t: t + "elk,2,0,1,0,0,2,3,0,,none,1,,\n",
     "row 22 (elk), column health: a creature needs health of at least 1"),
    (lambda t: t.replace("\nboar,4,", "\nboar,x,"), "row 13 (boar), column count must be an "
                                                    "integer, not 'x'"),
    (lambda t: t.replace("\nboar,4,2,0,1,0,2,4,", "\nboar,4,2,0,1,0,2,99,"),
     "row 13 (boar), column strength = 99 is out of range; allowed 0..20"),
    (lambda t: t.replace("\nboar,4,", "\nboar,5,"),
     "cards: the counts add up to 109, but deck_size is 108"),
    (lambda t: t.replace("\nboar,4,", "\nboar,,"), "row 13 (boar), column count is empty"),
    (lambda t: t.replace(",health,", ",hp,"), "unknown column"),
    (lambda t: "\n".join(",".join(c for i, c in enumerate(line.split(",")) if i != 8)
                         for line in t.splitlines()), "the column 'health' is missing"),
    (lambda t: t + "boar,4,2,0,1,0,2,4,4,relentless,none,0,,\n", "'boar' is already row 13"),
    (lambda t: t + ",4,2,0,1,0,2,4,4,relentless,none,0,,\n", "every card needs a name"),
    (lambda t: t + "b.oar,4,2,0,1,0,2,4,4,,none,0,,\n", "cannot be a name"),
    (lambda t: t.replace(",,Named", ",guess,Named", 1), "column source must be one of"),
    (lambda t: t.splitlines()[0] + "\n", "has no rows"),
    (lambda t: "", "is empty"),
]


@pytest.mark.parametrize("edit,message", BAD)
def test_a_bad_card_file_gets_one_line_exit_2_and_nothing_written(tmp_path, edit, message):
    path = wotw_cards(tmp_path, edit)
    for args in (["run", "war-of-the-wilds", "--players", 2, "--out", tmp_path / "out"],
                 ["rules", "war-of-the-wilds"], ["cards", "war-of-the-wilds", "--export",
                                                 tmp_path / "out"]):
        res = invoke(*args, "--cards", path)
        assert res.exit_code == 2, (args, res.output)
        lines = res.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), res.output
        assert message in lines[0] and str(path) in lines[0], lines[0]
        assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("arg,message", [
    ("nothere.csv", "does not exist"),
    ("book.xlsx", "save the sheet as CSV"),
    ("mystery.csv", "cannot tell which of war-of-the-wilds's lists"),
    ("monsters=cards.csv", "unknown list of war-of-the-wilds 'monsters'"),
])
def test_card_files_that_name_no_list_are_refused(tmp_path, arg, message):
    wotw_cards(tmp_path)
    wotw_cards(tmp_path, name="mystery.csv")
    res = _in(tmp_path, ["run", "war-of-the-wilds", "--players", "2", "--out",
                         str(tmp_path / "out"), "--cards", arg])
    assert res.exit_code == 2 and message in res.output, res.output
    assert not (tmp_path / "out").exists()


def _in(folder: Path, args):
    import os

    old = os.getcwd()
    os.chdir(folder)
    try:
        return CliRunner().invoke(main, args)
    finally:
        os.chdir(old)


def test_a_run_spec_with_a_card_list_is_planned_once():
    spec = registry.get_game("war-of-the-wilds")
    rows = [{"name": n, **{f: p.value for f, p in r.items()}}
            for n, r in data.table(spec.data, "cards")]
    a = RunSpec.make("war-of-the-wilds", 2, 1, overrides={"cards": rows})
    b = RunSpec.make("war-of-the-wilds", 2, 1, overrides={"cards": [dict(r) for r in rows]})
    assert a == b and plan(a) is plan(b)


@settings(max_examples=int(os.environ.get("CARDS_EXAMPLES", 40)), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(row=st.integers(0, 21), col=st.integers(0, 13),
       text=st.one_of(st.text(max_size=12), st.sampled_from(
           ["0", "-1", "99", "1.5", "3.0", "true", "flying band", "trick", "rally", "none",
            "ambush", '"', "a,b", "\n", "boar"])))
def test_any_cell_of_a_card_file_plays_or_is_refused_in_one_line(tmp_path, row, col, text):
    """Whatever a designer types in any cell, `rules --cards` shows the game or refuses the
    file in one line naming it, exit 2; never a traceback."""
    import csv
    import io

    table = list(csv.reader(io.StringIO(wotw_cards(tmp_path).read_text())))
    table[row][col] = text
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(table)
    path = tmp_path / "cards.csv"
    path.write_text(buf.getvalue(), encoding="utf-8")
    res = invoke("rules", "war-of-the-wilds", "--cards", path)
    if res.exit_code == 0:
        return
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and str(path) in lines[0], \
        res.output
