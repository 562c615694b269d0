"""The board as data: every layout in data.toml compiles to a board the rules can play, and
a bad layout is refused with a message naming its key."""

import numpy as np
import pytest

from simkit import data
from simkit.data import records, values
from simkit.errors import SimkitError
from simkit.games.watership_down import board_layout, compile_params
from simkit.games.watership_down.state import (
    D_BACK,
    D_FWD,
    D_SIDE,
    ELIL,
    HLESSIL,
    N_SPACES,
    O_NB,
    O_SETUP,
    O_SP,
)
from simkit.games.watership_down.transcript import describe_setup, space_names

from .helpers import SPEC

DATA = values(SPEC.data)
LAYOUTS = list(SPEC.data["board.layout"].choices)


def layout_values(layout, changes=None):
    """The data values on ``layout``, with ``changes`` ({"Space.field": value}) to it."""
    vals = dict(DATA)
    vals["board.layout"] = layout
    vals.update({f"board.{layout}.spaces.{k}": v for k, v in (changes or {}).items()})
    return vals


def space_list(layout):
    return [n for n, _ in records(DATA, f"board.{layout}.spaces")]


def nb(table, side, d, s):
    return [int(t) for t in table[O_NB + side * 96 + d * 32 + s * 2:][:2] if t >= 0]


def test_the_default_layout_is_one_of_the_choices():
    assert DATA["board.layout"] in LAYOUTS and len(LAYOUTS) >= 2


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_layout_fits_the_rulebooks_board(layout):
    """Sixteen spaces; six a side (home and five); the Down side by side in the middle row;
    the elil's forward is the hlessil's backward; and from Sandleford every space but
    Efrafa has a way forward."""
    vals = layout_values(layout)
    (table,) = compile_params(vals, 2)
    names = space_names((table,))
    assert names == space_list(layout) and len(set(names)) == N_SPACES
    rows = [int(table[O_SP + s * 3]) for s in range(N_SPACES)]
    down = [names.index(n) for n in DATA["board.watership_down"]]
    middle = rows[down[0]]
    assert rows[down[1]] == middle and down[1] in nb(table, HLESSIL, D_SIDE, down[0])
    assert sum(r < middle for r in rows) == 6 and sum(r > middle for r in rows) == 6
    sand, ef = names.index("Sandleford"), names.index("Efrafa")
    assert rows[sand] == 0 and rows[ef] == max(rows)
    for side in (ELIL, HLESSIL):
        setup = [int(x) for x in table[O_SETUP + side * 5:][:5]]
        assert all((rows[s] < middle) == (side == HLESSIL) and rows[s] != middle
                   for s in setup)
    for s in range(N_SPACES):
        assert sorted(nb(table, ELIL, D_FWD, s)) == sorted(nb(table, HLESSIL, D_BACK, s))
        assert all(rows[t] > rows[s] for t in nb(table, HLESSIL, D_FWD, s))
        if s != ef:
            assert nb(table, HLESSIL, D_FWD, s), names[s]
        if s != sand:
            assert nb(table, ELIL, D_FWD, s), names[s]
    for key in ("joining.strawberry.trigger", "joining.clover.trigger"):
        assert DATA[key].split(":", 1)[1] in names
    assert sum(table[O_SP + s * 3 + 1] for s in range(N_SPACES)) == 6   # 'Six ... green'


def test_the_transcript_names_the_layouts_spaces():
    """Spaces renamed in the layout's list (as a card file renames them) are the board's."""
    layout = LAYOUTS[0]
    renamed = {"Sandleford": "Old Warren", "Efrafa": "Red Warren"}

    def new(name):
        return renamed.get(name, name)

    rows = [{"name": new(n), **{f: p.value for f, p in space.items()}}
            for n, space in data.table(SPEC.data, f"board.{layout}.spaces")]
    for row in rows:
        row["ahead"], row["beside"] = [new(x) for x in row["ahead"]], [new(x) for x in
                                                                        row["beside"]]
    vals = data.values(data.apply_overrides(SPEC.data, {
        "board.layout": layout, f"board.{layout}.spaces": rows,
        "board.hlessil_home": "Old Warren", "board.elil_home": "Red Warren",
        "joining.holly.appears": "Old Warren"}))
    p = compile_params(vals, 2)
    assert "Old Warren" in space_names(p) and "Sandleford" not in space_names(p)
    assert "from Red Warren" in describe_setup(p, 2, None)[0]


@pytest.mark.parametrize("change,message", [
    ({"Sandleford.ahead": ["Nowhere"]}, "unknown space 'Nowhere'"),
    ({"The Enborne.ahead": ["Sandleford"]}, "ahead: Sandleford must be in a higher row"),
    ({"Sandleford.beside": ["The Enborne"]}, "must be another space of its row"),
    ({"Sandleford.ahead": ["The Enborne", "Newtown Copse", "The Road"]},
     "more than two forward neighbours"),
    ({f"{n}.row": 0 for n in space_list("diamond-7")}, "must be in a higher row"),
    ({"The Enborne.beside": []}, "Newtown Copse.beside: The Enborne must name Newtown Copse"),
])
def test_a_bad_layout_is_refused_naming_its_key(change, message):
    vals = layout_values("diamond-7", change)
    with pytest.raises(SimkitError, match=message) as err:
        compile_params(vals, 2)
    assert "board.diamond-7.spaces." in str(err.value)


def test_the_down_must_lie_between_two_sides_of_six():
    vals = layout_values("diamond-7")
    vals["board.watership_down"] = ["Ecchinswell Copse", "Heather Wood"]
    with pytest.raises(SimkitError, match="six spaces"):
        compile_params(vals, 2)


def test_an_unknown_layout_is_refused():
    with pytest.raises(SimkitError, match="no layout"):
        board_layout(dict(DATA, **{"board.layout": "hexagon"}))


def test_diamond_7_neighbours():
    """The diamond's own geometry, as NOTES.md draws it."""
    (table,) = compile_params(layout_values("diamond-7"), 2)
    names = space_names((table,))
    n = {x: i for i, x in enumerate(names)}
    fwd = [names[t] for t in nb(table, HLESSIL, D_FWD, n["Heather Wood"])]
    assert fwd == ["The Beech Hanger", "The Honeycomb"]
    assert [names[t] for t in nb(table, ELIL, D_FWD, n["Heather Wood"])] == \
        ["The Enborne", "Newtown Copse"]
    assert [names[t] for t in nb(table, HLESSIL, D_SIDE, n["Heather Wood"])] == \
        ["Ecchinswell Copse", "The Road"]
    assert np.array_equal(compile_params(layout_values("diamond-7"), 2)[0], table)


def test_the_characters_and_battle_cards_are_lists_the_kernels_know_by_name():
    rabbits = [{"name": "hazle" if n == "hazel" else n, **{f: p.value for f, p in r.items()}}
               for n, r in data.table(SPEC.data, "hlessil")]
    with pytest.raises(SimkitError, match="hlessil: unknown rabbit 'hazle' .*did you mean"):
        SPEC.compile(data.values(data.apply_overrides(SPEC.data, {"hlessil": rabbits})), 2)
    with pytest.raises(SimkitError, match="elil.snare.strength: the Snare has no strength"):
        SPEC.compile(dict(DATA, **{"elil.snare.strength": 2}), 2)
    cards = [{"name": "seven" if n == "6" else n, **{f: p.value for f, p in c.items()}}
             for n, c in data.table(SPEC.data, "cards.elil")]
    vals = data.values(data.apply_overrides(SPEC.data, {"cards.elil": cards,
                                                        "cards.elil.seven.value": 7}))
    assert "card_elil_seven:played" in SPEC.columns_for(vals)
    from simkit.games.watership_down import card_names

    assert card_names(SPEC.compile(vals, 2), "elil")[5] == "seven"  # the replay's name
    with pytest.raises(SimkitError, match="a hand of nine cards', not 8"):
        SPEC.compile(data.values(data.apply_overrides(SPEC.data, {"cards.elil": cards[:8]})),
                     2)
