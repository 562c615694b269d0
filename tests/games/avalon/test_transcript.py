"""The transcript names the right seats and facts on hand-built states."""

from avalon_table import E, K, Table, attack, enchant

from simkit.games.avalon import rules as r
from simkit.games.avalon.transcript import describe_move, describe_setup


def told(t, move):
    before = t.state.copy()
    t.play(move)
    return describe_move(t.params, 2, before, move, t.state.copy())


def test_an_undefended_attack_is_conquered_by_the_attacker():
    t = Table().territory(3, "plain_a").hand(0, K("red"), E("blue")).hand(1, K("red"))
    assert told(t, attack(K("red"), 3)) == ["attacks slot 4 (face down) with a red knight (1:0)"]
    lines = told(t, r.DEFEND_NO)
    assert lines[0] == "does not defend"
    assert lines[1] == "P1 conquers slot 4: plain_a (3 crowns, plain)"
    assert "additional losses to pay: 1" in lines[2]


def test_counter_spell_and_defence_are_told():
    t = Table().pile(1, 2, K("green")).hand(0, E("green")).hand(1, E("green"))
    assert told(t, enchant(2))[1] == "P2 may counter with a green enchantress"
    assert told(t, r.COUNTER_YES)[0].startswith("counter-spells with a green enchantress")
    t = Table().hand(0, K("blue")).hand(1, K("blue"))
    told(t, attack(K("blue"), 0))
    assert told(t, r.DEFEND_YES) == ["wards off the attack with a blue knight"]


def test_turn_end_tells_crowns_and_dark_draws():
    t = Table().territory(0, "swamp", 0)
    told(t, r.END_PLAYS)
    lines = told(t, r.SUPPLY_TILE + 3)
    assert "end of turn 1: P1 holds 1 crown, P2 0 crowns" in lines
    told(t, r.END_PLAYS)
    lines = told(t, r.SUPPLY_TILE + 0)
    assert any(line.startswith("P1 draws 4 from his dark tile") for line in lines)


def test_setup_marks_hands_as_private():
    t = Table()
    lines = describe_setup(t.params, 2, t.state)
    assert any(line.startswith("P1 hand") and line.endswith("[seen by P1]") for line in lines)
    assert any("seen by no one" in line for line in lines)
