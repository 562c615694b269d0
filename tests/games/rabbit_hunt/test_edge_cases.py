"""Edge cases found by the scenario tests, kept as regressions (NOTES.md: The end)."""

from rh_table import E, Table

from simkit.games.rabbit_hunt import state as S
from simkit.runner import RunSpec, plan


def test_nobody_eligible_nobody_wins_and_all_share_last_place():
    """Both still hold bunnies when the pile runs out: rule a leaves no winner, even though
    P1 caught one of P2's."""
    t = Table(2)
    t.to_actions(0)
    t.lose_bunnies(1, 0, 1)
    t.set_pile([])
    t[S.END] = S.PILE_EMPTY
    t.check()
    _, ranks, scores = t.finish()
    assert list(ranks) == [2, 2]
    assert list(scores) == [1, 0]


def test_last_card_filling_a_caught_bunnys_place_ends_the_game_even_on_elimination():
    """The catch takes the pile's last card and also knocks P2 out, whose hand then goes
    into the pile: the game still ends there (pile used up), with two players left."""
    t = Table(3)
    t.strip_ring()
    t.to_actions(0)
    t.set_carrots(0, 1)
    t.lose_bunnies(1, 0, 2)
    c = t.cell(1, 0)
    t.lay(c, S.BUNNY + 1, seen=2, placer=1)
    t.set_hand(1, {S.DRAW_1: 2})
    t.set_pile([S.EMPTY])
    t.check()
    t.apply(E(S.M_MOVE, c))
    assert t[S.ELIMINATED + 1] == 1
    assert t[S.END] == S.PILE_EMPTY


def test_list_valued_override_reaches_the_kernels():
    run = RunSpec.make("rabbit-hunt", 2, 1, overrides=["removed_cards=[20,15,0]"])
    assert plan(run).compiled[0][S.P_REMOVED] == 20
    assert dict(run.overrides)["removed_cards"] == (20, 15, 0)
