"""User-given text made inert where simkit writes it for another program: a card name is
refused where it enters unless it is plain, a CSV cell a spreadsheet would run is written
with a leading apostrophe that ``--cards`` takes off again, and Markdown shows any text as
text (``simkit.escape``)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from simkit import cards, data
from simkit.cli import main
from simkit.errors import SimkitError
from simkit.escape import csv_cell, csv_frame, csv_uncell, markdown

FORMULA = "=cmd|' /C calc'!A0"
TAG = "<img src=x onerror=alert(1)>"
HOSTILE = [FORMULA, TAG, "-2+3", "@SUM(A1)", "+1", "'=x", "a.b", "a:b", "é ", " x", "x\ty",
           "(x)", "x\u200by"]

# ---------------------------------------------------------------- spreadsheet cells


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text())
def test_a_cell_is_never_a_formula_and_comes_back_as_it_was(text):
    cell = csv_cell(text)
    assert not cell or cell[0] not in "=+-@\t\r"
    assert csv_uncell(cell) == text


def test_only_the_apostrophe_export_adds_is_taken_off():
    assert csv_cell(FORMULA) == "'" + FORMULA and csv_cell("'=x") == "''=x"
    assert csv_cell("it's") == "it's" and csv_cell("'quoted'") == "'quoted'"
    assert csv_uncell("'hello") == "'hello"  # a cell that export never escaped stays
    assert csv_uncell("'-1") == "-1" and csv_uncell("-1") == "-1"


def test_a_frame_has_its_text_escaped_and_its_numbers_kept():
    import pandas as pd

    t = pd.DataFrame({"=name": ["=a", "b", None], "n": [-1, 2, 3], "x": [-1.5, 0.0, 1.0],
                      "c": pd.Categorical(["-x", "y", "-x"])})
    out = csv_frame(t)
    assert list(out.columns) == ["'=name", "n", "x", "c"]
    assert out["'=name"].tolist()[:2] == ["'=a", "b"] and out["'=name"].isna().tolist()[2]
    assert out["n"].tolist() == [-1, 2, 3] and out["x"].tolist() == [-1.5, 0.0, 1.0]
    assert out["c"].tolist() == ["'-x", "y", "'-x"]
    assert list(t.columns)[0] == "=name" and t["c"].tolist()[0] == "-x"  # a copy


# ---------------------------------------------------------------- card names where they enter

LIST_TOML = """
[beasts]
_noun = "beast"
[beasts._fields.strength]
type = "int"
min = -9
max = 9
source = "rulebook"
why = "How strong."
[beasts._fields.weight]
type = "float"
min = -100
max = 100
default = 0.0
source = "assumed"
why = "Its weight."
[beasts._fields.note]
type = "str"
default = ""
source = "assumed"
why = "Any text."
[beasts._fields.friends]
type = "list"
default = []
source = "assumed"
why = "Names."
[beasts._fields.flies]
type = "bool"
default = false
source = "assumed"
why = "Whether it flies."
[beasts.owl]
strength = 2
"""


@pytest.fixture(scope="module")
def beasts(tmp_path_factory):
    path = tmp_path_factory.mktemp("beasts") / "data.toml"
    path.write_text(LIST_TOML, encoding="utf-8")
    return data.load_data(path)


def test_plain_names_of_any_script_are_names():
    for name in ("mouse_militia", "Cowslip's Warren", "Żółw (mały)", "Hase-2", "1", "e\u0301"):
        assert data.name_problem(name) is None, name


@pytest.mark.parametrize("name", HOSTILE)
def test_a_name_that_is_not_plain_is_refused_in_a_data_file(tmp_path, name):
    path = tmp_path / "data.toml"
    path.write_text(LIST_TOML.replace("[beasts.owl]", f"[beasts.{json.dumps(name)}]"),
                    encoding="utf-8")
    with pytest.raises(SimkitError) as err:
        data.load_data(path)
    assert "cannot be a name: a name is letters, digits, spaces and - _ ' ( )" in str(err.value)
    assert repr(name) in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("name", [*HOSTILE, "_x"])
def test_a_name_that_is_not_plain_is_refused_in_an_override(beasts, name):
    with pytest.raises(SimkitError, match="cannot be a name: a name is letters"):
        data.apply_overrides(beasts, {"beasts": [{"name": name, "strength": 1}]})


@pytest.mark.parametrize("name", [FORMULA, TAG, "-x", "@x"])
def test_a_card_file_naming_a_card_so_is_refused_in_one_line_and_nothing_written(tmp_path,
                                                                                 name):
    """`--cards` and `--set` on the command line: one line naming the card and the rule,
    exit 2, no run folder (the file is refused before any game is compiled)."""
    from simkit import registry

    text = cards.csv_text(registry.get_game("war-of-the-wilds").data, "cards")
    path = tmp_path / "cards.csv"
    path.write_text(text.replace("\nboar,", f"\n{csv_cell(name)},"), encoding="utf-8")
    for extra in (["--cards", path], ["--set", f"cards=[{{name={json.dumps(name)}}}]"]):
        res = CliRunner().invoke(main, ["run", "war-of-the-wilds", "--players", "2", "--out",
                                        str(tmp_path / "out"), *map(str, extra)])
        assert res.exit_code == 2, res.output
        lines = res.output.strip().splitlines()
        assert len(lines) == 1 and repr(name) in lines[0], lines
        assert "cannot be a name: a name is letters, digits" in lines[0]
        assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------- export then import

LETTER = st.characters(whitelist_categories=("L", "N"))
NAME = st.builds(lambda a, b: (a + "".join(b)).rstrip(), LETTER,
                 st.lists(st.one_of(LETTER, st.sampled_from(list(" -_'()"))), max_size=10))
# text a designer may type in a cell: formulas, apostrophes, commas, quotes, line breaks
TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
               max_size=16).map(str.strip)
FORMULAISH = st.sampled_from([FORMULA, "-1", "+x", "@x", "'=x", "''-1", "=1+1", "\t=x"])
ROW = st.fixed_dictionaries({
    "strength": st.integers(-9, 9),
    "weight": st.floats(-100, 100, allow_nan=False).map(lambda x: x + 0.0),
    "note": st.one_of(TEXT, FORMULAISH.map(str.strip)),
    "friends": st.lists(st.one_of(NAME, st.sampled_from(["=x", "-y", "@z"])), max_size=3,
                        unique=True),
    "flies": st.booleans(),
    "why": st.one_of(TEXT, FORMULAISH.map(str.strip)).filter(bool),
})


@settings(max_examples=60, deadline=None, derandomize=True)
@given(rows=st.lists(st.tuples(NAME, ROW), min_size=1, max_size=5,
                     unique_by=lambda r: r[0]))
def test_any_valid_card_list_exported_then_imported_is_the_same(beasts, tmp_path_factory,
                                                                 rows):
    """Every value, source and why survives the spreadsheet file; a number stays a number
    (``-1`` unescaped), every text cell a spreadsheet would run gets its apostrophe."""
    import csv
    import io

    rl = data.lists_of(beasts)["beasts"]
    params = data.apply_overrides(beasts, {"beasts": [{"name": n, **r} for n, r in rows]})
    text = cards.csv_text(params, "beasts")
    for line in csv.reader(io.StringIO(text)):
        for cell in line:
            assert not cell or cell[0] not in "=+@\t\r" and (
                cell[0] != "-" or float(cell) < 0), cell
    path = tmp_path_factory.mktemp("csv") / "beasts.csv"
    path.write_text(text, encoding="utf-8")
    back_rows, _ = cards.read_csv(path, rl)
    back = data.apply_overrides(beasts, {"beasts": back_rows})
    assert {k: (p.value, p.source, p.why) for k, p in back.items()} == \
        {k: (p.value, p.source, p.why) for k, p in params.items()}


# ---------------------------------------------------------------- Markdown

RENDER = MarkdownIt("commonmark").enable(["table", "strikethrough"])
ANY = st.text(st.characters(blacklist_characters="\x00"), max_size=40)
MARKUP = st.lists(st.sampled_from(["<img src=x>", "</p>", "<!--", "[a](b)", "[a]: b", "![i](x)",
                                   "*", "_", "`", "~~", "#", "- ", "1. ", "> ", "|", "&amp;",
                                   "\\", "$x$", "\n\n", "    ", "---", "<http://x>", " "]),
                  max_size=8).map("".join)


def inline_text(tokens) -> str:
    """The text of inline tokens that must all be plain text (no tag, link, emphasis)."""
    kinds = {t.type for t in tokens}
    assert kinds <= {"text"}, kinds
    return "".join(t.content for t in tokens)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(text=st.one_of(ANY, MARKUP, st.tuples(MARKUP, ANY, MARKUP).map("".join)))
def test_markdown_renders_any_text_as_that_text_and_nothing_else(text):
    """Rendered by a CommonMark parser (with GFM tables and strikethrough): a paragraph, a
    heading, a list item (a verdict), a table cell, a caption in emphasis and a warning's
    quote hold exactly the text, as plain text."""
    want = " ".join(text.replace("\r\n", "\n").replace("\r", "\n").split("\n")).strip()
    if not want:
        return
    para = RENDER.parse(markdown(text))
    assert [t.type for t in para] == ["paragraph_open", "inline", "paragraph_close"]
    assert inline_text(para[1].children) == want
    head = RENDER.parse("## " + markdown(text))
    assert head[0].type == "heading_open" and inline_text(head[1].children) == want
    item = RENDER.parse("- " + markdown(text))
    assert [t.type for t in item][:3] == ["bullet_list_open", "list_item_open",
                                           "paragraph_open"]
    assert inline_text(item[3].children) == want and len(item) == 7
    table = RENDER.parse(f"| h |\n|---|\n| {markdown(text, line_start=False)} |\n")
    cells = [t for t in table if t.type == "inline"]
    assert len(cells) == 2 and inline_text(cells[1].children) == want
    caption = RENDER.parse(f"*{markdown(text, line_start=False)}*")[1].children
    assert [caption[0].type, caption[-1].type] == ["em_open", "em_close"]
    assert inline_text(caption[1:-1]) == want
    warn = RENDER.parse(f"> **Warning:** {markdown(text, line_start=False)}")
    assert [t.type for t in warn][:2] == ["blockquote_open", "paragraph_open"]
    assert len(warn) == 5 and inline_text(warn[2].children[4:]).strip() == want
