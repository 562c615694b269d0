"""Playing a seat in the workbench (simkit.serve.table, /api/tables): the seat's view holds
nothing its observation hides, moves are checked, bots follow, the game is kept in a
``played`` folder that `simkit replay --run` plays back and that no report pools with
seeded runs; and "ask" (simkit.advise) answers from the seat's observation only."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

AVALON = "avalon"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """An empty runs folder (these tests need no seeded run)."""
    return tmp_path_factory.mktemp("play") / "runs"


@pytest.fixture(scope="module")
def app(runs):
    from serve_session import TOKEN

    from simkit.serve.app import make_app

    return make_app(runs, "runs", TOKEN, hosts={"testserver"}, start_jobs=False)


@pytest.fixture(scope="module")
def client(app):
    from serve_session import session

    return session(app)


def new_table(client, seats=("human", "heuristic"), seed=5, **more):
    res = client.post("/api/tables", json={"game": AVALON, "players": 2, "seats": list(seats),
                                          "seed": seed, **more})
    assert res.status_code == 200, res.text
    return res.json()


def live(app, table_id):
    return app.app.state.workbench.tables.get(table_id)


def to_my_move(client, v, plays=0):
    """Play the first listed move ``plays`` times (bots between), then stop at P1's move."""
    for _ in range(plays + 1):
        if v["to_move"] != v["seat"] and not v["over"]:
            v = client.post(f"/api/tables/{v['table']}/step",
                            json={"seat": v["seat"], "skip": True}).json()
        if v["over"] or _ == plays:
            return v
        v = client.post(f"/api/tables/{v['table']}/play",
                        json={"seat": v["seat"], "move": v["moves"][0]["move"]}).json()
    return v


def other_state(table, seat):
    """A true state ``seat`` cannot tell from the table's (the game's determinize of its
    observation) that differs from it in what the seat does not see."""
    obs = table.observe(seat)
    for k in range(50):
        state = np.empty_like(obs)
        table.rules.determinize(table.p.compiled, obs, seat, state,
                                np.array([1000 + k], np.uint64), np.empty_like(obs))
        if not np.array_equal(state, table.state):
            assert np.array_equal(table.observe(seat, state), obs)
            return state
    raise AssertionError("no other state found")


def test_a_seat_sees_nothing_its_observation_hides(app, client):
    v = to_my_move(client, new_table(client), plays=6)
    assert v["to_move"] == "P1" and v["moves"] and v["log"]
    table = live(app, v["table"])
    seen = client.get(f"/api/tables/{v['table']}?seat=P1").json()
    text = json.dumps(seen)
    assert "territory order" not in text  # the setup's line seen by no one
    assert "hidden from P1" in text  # P2's hand, marked by the game, is hidden
    # the same observation from another true state: the very same JSON
    table.state = other_state(table, 0)
    assert client.get(f"/api/tables/{v['table']}?seat=P1").json() == seen
    # the moves carry the game's own labels
    assert all(m["label"] and not m["label"].startswith("move ") for m in seen["moves"])


def test_a_played_game_is_kept_and_replays_from_the_command_line(app, client, runs):
    from simkit.cli import main

    v = new_table(client, seed=7)
    while not v["over"]:
        v = to_my_move(client, v, plays=40)
    assert v["result"]["end"] and "simkit replay" not in v["folder"]
    folder = runs / v["folder"]
    doc = json.loads((folder / "played.json").read_text())
    assert doc["complete"] and doc["seats"] == ["human", "heuristic"]
    assert len(doc["moves"]) == v["decisions"] and not (folder / "run.json").exists()
    res = CliRunner().invoke(main, ["replay", "--run", str(folder)])
    assert res.exit_code == 0, res.output
    assert f"end: {v['result']['end']}" in res.output and "P1=human" in res.output
    # listed apart from seeded runs, and never pooled with them
    listed = {f["path"]: f for f in client.get("/api/folders").json()["folders"]}
    assert listed[v["folder"]]["kind"] == "played"
    assert listed[v["folder"]]["strategies"] == "human,heuristic"
    for path in (f"/api/result?path={v['folder']}", f"/api/games-of?path={v['folder']}"):
        assert client.get(path).status_code == 400
    res = CliRunner().invoke(main, ["report", str(folder), "--out", str(runs.parent / "r")])
    assert res.exit_code != 0


def test_a_changed_move_list_is_refused_by_replay(client, runs):
    from simkit.cli import main

    v = to_my_move(client, new_table(client, seed=9), plays=2)
    folder = runs / v["folder"]
    doc = json.loads((folder / "played.json").read_text())
    doc["moves"][0] = 9999
    (folder / "played.json").write_text(json.dumps(doc))
    res = CliRunner().invoke(main, ["replay", "--run", str(folder)])
    assert res.exit_code == 2 and "move 1 of" in res.output and "Traceback" not in res.output


@pytest.mark.parametrize("doc, said", [
    ({"game": "chess", "players": 2, "seats": ["human", "random"]}, "chess"),
    ({"game": AVALON, "players": 3, "seats": ["human", "random", "random"]}, "2 players"),
    ({"game": AVALON, "players": 2, "seats": ["random", "random"]}, "take at least one seat"),
    ({"game": AVALON, "players": 2, "seats": ["human"]}, "each of the 2 seats"),
    ({"game": AVALON, "players": 2, "seats": ["human", "genius"]}, "genius"),
])
def test_a_bad_table_is_one_line(client, doc, said):
    res = client.post("/api/tables", json=doc)
    assert res.status_code == 400 and said in res.json()["error"], res.text


def test_bad_moves_and_seats_are_one_line(client):
    v = to_my_move(client, new_table(client, seed=11))
    url = f"/api/tables/{v['table']}"
    for body, said in (({"seat": "P1", "move": 99999}, "not one of P1's legal moves"),
                       ({"seat": "P1", "move": "x"}, "move:"),
                       ({"seat": "P2", "move": 0}, "not P2's"),
                       ({"seat": "P7", "move": 0}, "seat 'P7'")):
        res = client.post(f"{url}/play", json=body)
        assert res.status_code == 400 and said in res.json()["error"], (body, res.text)
    assert "played by heuristic" in client.get(f"{url}?seat=P2").json()["error"]
    assert client.get("/api/tables/nope").status_code == 400


# ------------------------------------------------------------------ ask (simkit.advise)

def test_two_true_states_with_one_observation_get_one_advice(app, client):
    pytest.importorskip("simkit.advise", reason="simkit.advise (the guided-search branch)")
    v = to_my_move(client, new_table(client, seed=13), plays=3)
    table = live(app, v["table"])
    url = f"/api/tables/{v['table']}/ask"
    first = client.post(url, json={"seat": "P1", "strategy": "learned"})
    assert first.status_code == 200, first.text
    a = first.json()
    table.state = other_state(table, 0)
    b = client.post(url, json={"seat": "P1", "strategy": "learned"}).json()
    a.pop("seconds"), b.pop("seconds")
    assert a == b
    assert {r["move"] for r in a["ratings"]} == {m["move"] for m in v["moves"]}
    assert a["move"] in {m["move"] for m in v["moves"]} and a["ratings"][0]["chosen"]
    assert all(r["value"] is not None for r in a["ratings"])  # learned rates by value


def test_ask_is_for_the_seat_to_move_and_a_known_strategy(client):
    pytest.importorskip("simkit.advise", reason="simkit.advise (the guided-search branch)")
    v = to_my_move(client, new_table(client, seed=15))
    url = f"/api/tables/{v['table']}/ask"
    res = client.post(url, json={"seat": "P1", "strategy": "genius"})
    assert res.status_code == 400 and "genius" in res.json()["error"]
    v = client.post(f"/api/tables/{v['table']}/play",
                    json={"seat": "P1", "move": v["moves"][0]["move"]}).json()
    if v["to_move"] != "P1" and not v["over"]:
        res = client.post(url, json={"seat": "P1"})
        assert res.status_code == 400 and "not P1's move" in res.json()["error"]


def test_ask_at_a_decision_of_a_replay(client, runs):
    pytest.importorskip("simkit.advise", reason="simkit.advise (the guided-search branch)")
    from simkit.cli import main

    res = CliRunner().invoke(main, ["run", AVALON, "--games", "2", "--seed", "1", "--strategies",
                                    "heuristic", "--out", str(runs / "av"), "--quiet"])
    assert res.exit_code == 0, res.output
    a = client.post("/api/replay/ask", json={"path": "av", "game": 0, "decision": 3,
                                             "strategy": "learned"})
    assert a.status_code == 200, a.text
    a = a.json()
    assert a["strategy"] == "learned" and a["played"] is not None and a["ratings"]
    bad = client.post("/api/replay/ask", json={"path": "av", "game": 0, "decision": 99999})
    assert bad.status_code == 400 and "decision" in bad.json()["error"]
