"""The decision log (``--log-decisions N``): a row per decision of a run's first N games,
true to the games it logs, the same on any number of workers, exported, refused beyond
100,000 games, and played by search strategies too. (Resuming a logging run: test_resume.)"""

import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from simkit.cli import main
from simkit.errors import SimkitError
from simkit.results import read_decisions, read_run
from simkit.runner import MAX_LOGGED, RunSpec, run_games


def _pig(games=300, log=40, **kw) -> RunSpec:
    return RunSpec.make("pig", 2, games, seed=11, strategies="hold-at,random",
                        log_decisions=log, **kw)


@pytest.fixture(scope="module")
def pig_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("log") / "run"
    run_games(_pig(), out=folder, workers=1, chunk_size=25)
    return folder


def test_a_row_per_decision_of_the_first_games_and_true_to_them(pig_run):
    res = read_run(pig_run)
    log = read_decisions(pig_run)
    games, items = res.games, res.items
    assert res.meta["logged_games"] == 40
    assert sorted(log["game"].unique()) == list(range(40))  # the first 40, no other
    per_game = log.groupby("game").size()
    assert (per_game.to_numpy() == games["decisions"][:40].to_numpy()).all()
    assert (log.groupby("game")["decision"].agg(list)
            .map(lambda d: d == list(range(len(d)))).all())
    # each label's count is the item count the game itself kept, per game and seat
    made = (log.assign(n=1).pivot_table(index=["game", "seat"], columns="label", values="n",
                                        aggfunc="sum", fill_value=0, observed=True))
    kept = items[items["game"] < 40].set_index(["game", "seat"])
    assert (made["roll"] == kept["roll:made"]).all()
    assert (made["hold"] == kept["hold:made"]).all()
    assert set(log["label"]) == {"roll", "hold"}
    assert (log.loc[log["label"] == "hold", "move"] == 1).all()
    # a hold is never forced; a decision's seat plays the strategy its games row names
    assert (log.loc[log["label"] == "hold", "legal_moves"] == 2).all()
    seat_strategy = games.set_index("game")[["strategy_s1", "strategy_s2"]]
    named = [seat_strategy.at[g, f"strategy_s{s}"] for g, s in
             zip(log["game"], log["seat"], strict=True)]
    assert (log["strategy"].astype(str).to_numpy() == np.array(named, str)).all()
    # the deciding seat's progress: Pig's progress is points banked plus the turn's total
    assert log["progress"].notna().all() and (log["progress"] >= 0).all()
    assert log.groupby("game")["turn"].apply(lambda t: t.is_monotonic_increasing).all()


def test_logging_changes_no_game_and_is_the_same_on_two_workers(pig_run, tmp_path):
    plain = run_games(RunSpec.make("pig", 2, 300, seed=11, strategies="hold-at,random"),
                      workers=1)
    logged = read_run(pig_run).games
    pd.testing.assert_frame_equal(plain.games, logged, check_dtype=True)
    two = tmp_path / "two"
    run_games(_pig(), out=two, workers=2, chunk_size=7)
    pd.testing.assert_frame_equal(read_decisions(two), read_decisions(pig_run))


def test_search_and_learned_strategies_are_logged_as_they_played():
    """The replay that logs a game searches (and values moves) again from the same streams:
    its decisions are the game's (``log_batch`` stops the run when a count differs), and its
    moves are the ones the game played (each seat's items, counted by the game, agree)."""
    run = RunSpec.make("pig", 2, 4, seed=3, strategies="ismcts@30,learned", log_decisions=3,
                       weights=["ismcts.rollout=random"])
    res = run_games(run, workers=1)
    log = res.decisions
    assert (log.groupby("game").size().to_numpy() == res.games["decisions"][:3].to_numpy()).all()
    assert set(log["strategy"].astype(str)) == {"ismcts@30", "learned"}
    holds = log[log["label"] == "hold"].groupby(["game", "seat"]).size()
    kept = res.items[res.items["game"] < 3].set_index(["game", "seat"])["hold:made"]
    assert (holds.reindex(kept.index, fill_value=0) == kept).all()


def test_more_than_the_cap_or_the_run_is_refused_in_one_line(tmp_path):
    out = tmp_path / "r"
    result = CliRunner().invoke(main, ["run", "pig", "--players", "2", "--games", "200000",
                                       "--log-decisions", "100001", "--out", str(out)])
    assert result.exit_code == 2
    assert result.output.strip().count("\n") == 0
    assert f"at most {MAX_LOGGED:,}" in result.output and "--log-decisions" in result.output
    assert not out.exists()
    with pytest.raises(SimkitError, match="more games than the run has"):
        _pig(games=10, log=11)
    assert _pig(games=10, log="all").log_decisions == 10


def test_an_experiment_file_logs_and_export_writes_the_log(tmp_path):
    toml = tmp_path / "e.toml"
    toml.write_text('[[run]]\nname = "a"\ngame = "pig"\nplayers = 2\ngames = 30\n'
                    'strategies = "hold-at,random"\nlog_decisions = 5\n', encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(main, ["run", str(toml), "--out", str(tmp_path / "runs"),
                                  "--quiet"])
    assert result.exit_code == 0, result.output
    folder = tmp_path / "runs" / "a"
    result = runner.invoke(main, ["export", str(folder), "--out", str(tmp_path / "csv"),
                                  "--quiet"])
    assert result.exit_code == 0, result.output
    csv = pd.read_csv(tmp_path / "csv" / "decisions.csv")
    assert list(csv.columns) == list(read_decisions(folder).columns)
    assert sorted(csv["game"].unique()) == [0, 1, 2, 3, 4]


def test_a_run_that_logs_nothing_writes_no_log(tmp_path):
    out = tmp_path / "r"
    res = run_games(RunSpec.make("pig", 2, 20, seed=1), out=out, workers=1)
    assert not (out / "decisions.parquet").exists() and read_decisions(out) is None
    assert res.meta["logged_games"] == 0


def test_the_report_says_when_each_move_is_chosen_and_by_whom(pig_run, tmp_path):
    from simkit.reports.build import Document, _decisions_section, load_run

    doc = Document(tmp_path)  # the section alone: a whole report takes seconds more
    _decisions_section(doc, load_run(pig_run), "")
    section = "\n".join(doc.md).split("### When each move is chosen, and by whom", 1)[1]
    assert (tmp_path / "moves_by_turn.png").is_file()
    rows = {line.split("|")[1].strip(): line for line in section.splitlines()
            if line.startswith("| roll") or line.startswith("| hold")}
    log = read_decisions(pig_run)
    holds = int(((log["label"] == "hold") & (log["legal_moves"] > 1)).sum())
    assert f"| hold | {holds:,} | 0 |" in rows["hold"]  # never forced
    assert "Share of hold-at's choices" in section and "Share of seat 2's" in section


def test_shipped_labels_name_every_move_by_action_and_card():
    """Avalon's and Rabbit Hunt's ``move_label`` name every move code of their encodings
    (never the "move N" fallback) by card and action, not by slot or cell."""
    from simkit.games.avalon import move_label as avalon
    from simkit.games.avalon import rules
    from simkit.games.rabbit_hunt import move_label as rabbit
    from simkit.games.rabbit_hunt import state

    labels = [avalon(None, 2, m) for m in range(rules.N_MOVES)]
    fallback = re.compile(r"^move \d+$")
    assert not [x for x in labels if fallback.match(x)]
    assert labels[rules.STRENGTHEN] == labels[rules.STRENGTHEN + 1] == "lay knight red"
    codes = [(state.M_PLACE << 16) | (k * 256 + cell) for k in range(state.N_KINDS)
             for cell in (0, 7)] + [(k << 16) | 3 for k in range(1, len(state.MOVE_NAMES))]
    named = [rabbit(None, 3, m) for m in codes]
    assert not [x for x in named if fallback.match(x)]
    assert named[0] == named[1] == "place an empty farmland"
    assert rabbit(None, 3, (state.M_PLACE << 16) | (state.BUNNY * 256 + 9)) == "place a bunny"


def _legal_labels(game: str, n: int, seed: int = 3) -> dict[str, int]:
    """Every legal move of a seeded random game of ``game``, by label (how often legal): the
    moves as the game builds them, labelled with the run's own parameters."""
    from simkit import registry
    from simkit.rng import seed_streams
    from simkit.runner import plan

    spec, p = registry.get_game(game), plan(RunSpec.make(game, n, 1))
    rules, rng = spec.rules, np.random.default_rng(seed)
    streams = np.empty(1 + n, np.uint64)
    seed_streams(np.uint64(seed), n, streams)
    state, moves = np.empty(p.state_size, np.int32), np.empty(p.max_moves, np.int32)
    items = np.zeros((n, len(p.item_columns)), np.int32)
    rules.new_game(p.compiled, n, state, streams[0:1])
    seen: dict[str, int] = {}
    while not rules.is_over(state) and rules.turn_number(state) < p.max_turns:
        k = rules.legal_moves(p.compiled, state, moves)
        for m in moves[:k]:
            label = spec.move_label(p.compiled, n, int(m))
            seen[label] = seen.get(label, 0) + 1
        rules.apply_move(p.compiled, state, moves[rng.integers(k)], streams[0:1], items)
    return seen


FALLBACK = re.compile(r"^move \d+$")


def test_war_of_the_wilds_labels_name_the_card_and_the_action():
    from simkit.games.war_of_the_wilds import kind_names, move_label
    from simkit.games.war_of_the_wilds import state as S
    from simkit.runner import plan

    params = plan(RunSpec.make("war-of-the-wilds", 3, 1)).compiled
    boar = kind_names(params).index("boar")
    assert move_label(params, 3, S.PLAY + 4 * boar + 2) == "play Boar"  # (t: a trick's target)
    assert move_label(params, 3, S.DISCARD_CARD + boar) == "discard Boar"
    pair = [list(q) for q in S.PAIRS.tolist()].index([0, 1])
    assert move_label(params, 3, S.SWAP + 4 * pair + 2) == "swap berry and twig for 1 pebble"
    assert move_label(params, 3, S.BURY + 1) == "bury 2 acorns"
    assert move_label(params, 3, S.OFFER_ADD + S.TRADE_ACORN) == "offer 1 stored acorn"
    assert not [x for x in (move_label(params, 3, m) for m in range(S.MAX_MOVES))
                if FALLBACK.match(x)]
    seen = _legal_labels("war-of-the-wilds", 3)
    assert not [x for x in seen if FALLBACK.match(x)], seen
    assert {"draw", "forage", "gather (0 of the home's second kind)"} <= set(seen), seen


def test_watership_down_labels_name_the_character_the_card_and_the_space():
    from simkit.games.watership_down import move_label
    from simkit.games.watership_down import state as S
    from simkit.runner import plan

    params = plan(RunSpec.make("watership-down", 2, 1)).compiled
    assert move_label(params, 2, S.BIGWIG * S.N_SPACES + 7) == "move Bigwig"
    assert move_label(params, 2, S.M_GIFT + S.HAZEL * S.N_SPACES + 3) == \
        "move Hazel with Gift to the Thousand"
    assert move_label(params, 2, S.M_CARD + 4) == "play 5"  # both hands' fifth card
    assert move_label(params, 2, S.M_CARD + 8) == "play Flaming Stick (elil) or Kehaar " \
                                                  "(hlessil)"
    assert move_label(params, 2, S.M_CHAR + S.HOLLY) == "choose Holly"
    assert move_label(params, 2, S.M_SPACE + int(params[0][0])) == "choose Efrafa"
    codes = [*range(S.N_CHARS * S.N_SPACES), *range(S.M_SPACE, S.M_PASS + 1),
             *range(S.M_CHAR, S.M_CHAR + S.N_CHARS),
             *range(S.M_GIFT, S.M_GIFT + S.N_CHARS * S.N_SPACES)]
    assert not [x for x in (move_label(params, 2, m) for m in codes) if FALLBACK.match(x)]
    seen = _legal_labels("watership-down", 2)
    assert not [x for x in seen if FALLBACK.match(x)], seen
    assert "move Woundwort" in seen and "choose Hazel" in seen, seen


def test_dolina_labels_name_the_die_face_and_the_action():
    from simkit.games.dolina_krolikow import move_label
    from simkit.games.dolina_krolikow import rules as R
    from simkit.games.dolina_krolikow import state as S
    from simkit.runner import plan

    params = plan(RunSpec.make("dolina-krolikow", 3, 1)).compiled
    die, pos, green_4 = 2, 5, 1 * 6 + 4 - 1
    placed = R.PLACE + (die * S.MAXPOS + pos) * S.N_FACES + green_4
    assert move_label(params, 3, placed) == "die on a rabbit as green 4"
    assert move_label(params, 3, R.RES + die) == "die for resources"
    assert move_label(params, 3, R.PAY_TOKEN + 1) == "pay 1 cabbage"
    assert move_label(params, 3, R.F_KEEP + 1) == "keep Forest card 2"
    assert move_label(params, 3, R.LEFT_SWAP + die) == \
        "leftover die for its pips: a rabbit swapped"
    assert not [x for x in (move_label(params, 3, m) for m in range(R.N_MOVES))
                if FALLBACK.match(x)]
    seen = _legal_labels("dolina-krolikow", 3)
    assert not [x for x in seen if FALLBACK.match(x)], seen
    assert {"die for resources", "draw House cards", "leftover die for its colour"} <= \
        set(seen), seen
