"""The workbench's API (simkit serve), each endpoint with good and bad input, through
Starlette's TestClient: the session, Host and Origin checks, paths kept in the runs folder,
the data grid's checks (the command line's messages), change sets, the run form and its
command line, the runs folder's list, results, reports and replays."""

from __future__ import annotations

import json
import os

import pytest
from serve_session import ORIGIN, TOKEN, session
from starlette.testclient import TestClient

WOTW = "war-of-the-wilds"


# ------------------------------------------------------------------ the session and headers

def test_without_the_session_every_request_is_refused(app):
    bare = TestClient(app, base_url="http://testserver")
    for path in ("/", "/api/games", "/static/app.js", "/api/folders", "/files/pig-2p-s3/run.json"):
        res = bare.get(path)
        assert res.status_code == 403 and "no session" in res.json()["error"], path


def test_a_wrong_token_gives_no_session(app):
    bare = TestClient(app, base_url="http://testserver")
    res = bare.get("/?token=guess", follow_redirects=False)
    assert res.status_code == 403 and "wrong token" in res.json()["error"]
    assert "set-cookie" not in res.headers
    assert bare.get("/api/games").status_code == 403


def test_the_token_is_exchanged_for_a_cookie_and_the_page_served(client):
    res = client.get("/")
    assert res.status_code == 200 and "simkit workbench" in res.text
    assert client.get("/static/app.js").status_code == 200


def test_another_host_is_refused_even_with_the_session(client):
    # DNS rebinding: a page of another name that resolves to 127.0.0.1 sends its own Host
    res = client.get("/api/games", headers={"host": "evil.example:8765"})
    assert res.status_code == 421 and "unknown host" in res.json()["error"]


def test_a_change_from_another_origin_or_not_json_is_refused(client):
    body = {"changes": {"target": "40"}}
    res = client.post("/api/games/pig/check", json=body, headers={"origin": "http://evil.example"})
    assert res.status_code == 403 and "origin" in res.json()["error"]
    bare = session(client.app)
    del bare.headers["origin"]
    assert bare.post("/api/games/pig/check", json=body).status_code == 403
    res = client.post("/api/games/pig/check", content="changes=1",
                      headers={"content-type": "application/x-www-form-urlencoded"})
    assert res.status_code == 415
    assert client.post("/api/games/pig/check", json=body).status_code == 200


def test_allowed_hosts_are_the_servers_own():
    from simkit.serve.security import allowed_hosts

    assert allowed_hosts("127.0.0.1", 8765) == {"127.0.0.1:8765", "localhost:8765",
                                                "[::1]:8765"}
    assert "evil.example:8765" not in allowed_hosts("0.0.0.0", 8765)


# ------------------------------------------------------------------ paths

@pytest.mark.parametrize("path", ["../etc/passwd", "pig-2p-s3/../../x", "/etc/passwd",
                                  "%2e%2e/%2e%2e/etc/passwd", "pig-2p-s3/..%2f..%2fx"])
def test_nothing_outside_the_runs_folder_can_be_read(client, path):
    res = client.get(f"/files/{path}")
    assert res.status_code in (400, 404), res.text
    assert "root:" not in res.text
    res = client.get("/api/result", params={"path": path})
    assert res.status_code == 400


def test_a_link_in_the_runs_folder_is_not_followed(client, runs, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("not yours")
    (runs / "link.txt").symlink_to(secret)
    (runs / "linkdir").symlink_to(tmp_path)
    try:
        for path in ("link.txt", "linkdir/secret.txt"):
            res = client.get(f"/files/{path}")
            assert res.status_code == 400 and "link" in res.json()["error"], path
        assert all(f["path"] != "linkdir" for f in client.get("/api/folders").json()["folders"])
    finally:
        (runs / "link.txt").unlink()
        (runs / "linkdir").unlink()


def test_a_change_set_cannot_be_written_outside(client, runs):
    for name in ("../evil", "a/b", "..", ".hidden", "x" * 65):
        res = client.put(f"/api/changesets/{name}", json={"game": "pig", "changes": {}})
        assert res.status_code in (400, 404), name
    assert not (runs.parent / "evil.json").exists()


def test_inside_refuses_absolute_parent_and_link(tmp_path):
    from simkit.serve.security import OutsideRuns, inside

    (tmp_path / "a").mkdir()
    assert inside(tmp_path, "a") == tmp_path / "a"
    for bad in ("/etc", "../x", "a/../../x", "C:/x"):
        with pytest.raises(OutsideRuns):
            inside(tmp_path, bad, must_exist=False)


# ------------------------------------------------------------------ games, data, checks

def test_the_games_are_listed_with_players_and_strategies(client):
    games = {g["name"]: g for g in client.get("/api/games").json()["games"]}
    assert games[WOTW]["players"] == [2, 3, 4]
    assert "heuristic" in games[WOTW]["strategies"] and games[WOTW]["summary"]
    assert "hold-at" in games["pig"]["strategies"]


def test_the_data_grid_has_the_records_and_fields_of_simkit_cards(client):
    from simkit import data, registry

    d = client.get(f"/api/games/{WOTW}/data").json()
    params = registry.get_game(WOTW).data
    lists = {lst["key"]: lst for lst in d["lists"]}
    assert set(lists) == set(data.lists_of(params))
    cards = lists["cards"]
    assert [f["name"] for f in cards["fields"]] == data.lists_of(params)["cards"].field_names
    assert [r["name"] for r in cards["records"]] == [n for n, _ in data.table(params, "cards")]
    boar = next(r for r in cards["records"] if r["name"] == "boar")
    assert boar["cells"]["cost_berry"]["key"] == "cards.boar.cost_berry"
    assert any(f["describe"].startswith("int") for f in cards["fields"])
    assert any(s["key"] == "deck_size" and s["source"] == "rulebook" for s in d["scalars"])


def test_a_cell_is_checked_with_the_command_lines_message(client):
    from click.testing import CliRunner

    from simkit.cli import main

    res = client.post(f"/api/games/{WOTW}/check",
                      json={"changes": {"cards.boar.cost_berry": "x", "deck_size": "999",
                                        "cards.sparrow.strength": "2"}}).json()
    assert not res["ok"]
    for key, text in (("cards.boar.cost_berry", "x"), ("deck_size", "999")):
        out = CliRunner().invoke(main, ["rules", WOTW, "--set", f"{key}={text}"])
        assert out.exit_code == 2
        assert out.output.strip() == f"error: {res['errors'][key]}"
    assert "cards.sparrow.strength" not in res["errors"]
    assert res["values"]["cards.sparrow.strength"] == "2"


@pytest.mark.parametrize("body", [{"changes": "x"}, {"changes": {"a": ["b"]}},
                                  {"changes": {"a": "1\n2"}}, {"changes": {"a": True}}])
def test_bad_check_bodies_get_one_line(client, body):
    res = client.post(f"/api/games/{WOTW}/check", json=body)
    assert res.status_code == 400 and "\n" not in res.json()["error"]


def test_an_unknown_game_is_one_line_with_the_choices(client):
    res = client.get("/api/games/war-of-the-wild/data")
    assert res.status_code == 400
    assert "did you mean 'war-of-the-wilds'" in res.json()["error"]


def test_a_body_that_is_not_json_is_refused(client):
    res = client.post(f"/api/games/{WOTW}/check", content=b"{not json",
                      headers={"content-type": "application/json"})
    assert res.status_code == 400 and res.json()["error"] == "the request is not JSON"


# ------------------------------------------------------------------ change sets

def test_a_change_set_is_saved_exported_and_opened_again(client, runs):
    changes = {"cards.boar.cost_berry": "1", "acorns_per_player": "14"}
    res = client.put("/api/changesets/cheap-boar", json={"game": WOTW, "changes": changes})
    assert res.status_code == 200, res.text
    saved = json.loads((runs / "changesets" / "cheap-boar.json").read_text())
    assert saved["changes"] == changes and saved["game"] == WOTW
    csv_text = client.get("/api/changesets/cheap-boar/csv").text
    assert csv_text.splitlines()[0] == "key,value,default,source,why"
    assert "cards.boar.cost_berry,1,2," in csv_text
    again = client.put("/api/changesets/again", json={"game": WOTW, "csv": csv_text})
    assert again.json()["changes"] == changes
    listed = client.get("/api/changesets", params={"game": WOTW}).json()["changesets"]
    assert {c["name"] for c in listed} >= {"cheap-boar", "again"}
    d = client.get(f"/api/games/{WOTW}/data", params={"changeset": "cheap-boar"}).json()
    boar = next(r for r in d["lists"][0]["records"] if r["name"] == "boar")
    assert boar["cells"]["cost_berry"] == {"key": "cards.boar.cost_berry", "value": "1",
                                           "default": "2", "changed": True}


def test_a_change_set_the_command_line_refuses_is_not_saved(client, runs):
    res = client.put("/api/changesets/bad", json={"game": WOTW,
                                                  "changes": {"cards.boar.cost_berry": "-1"}})
    assert res.status_code == 400 and "out of range" in res.json()["error"]
    assert not (runs / "changesets" / "bad.json").exists()
    res = client.get("/api/changesets/nope")
    assert res.status_code == 400 and "unknown change set" in res.json()["error"]


# ------------------------------------------------------------------ the form and its command

def test_the_form_shows_the_command_line(client):
    client.put("/api/changesets/t40", json={"game": "pig", "changes": {"target": "40"}})
    res = client.post("/api/command", json={"kind": "whatif", "game": "pig", "players": "2",
                                            "strategies": "hold-at", "games": "400",
                                            "seed": "3", "changeset": "t40"}).json()
    assert res["command"] == ("simkit whatif pig --players 2 --games 400 --seed 3 "
                              "--strategies hold-at --set target=40 --out "
                              "runs/whatif-pig-t40-s3 --quiet")


@pytest.mark.parametrize("field,value,says", [
    ("game", "chess", "unknown game"), ("players", "5", "is for 2, 3, 4 players"),
    ("games", "1e3", "--games"), ("games", "0", "number of games"), ("seed", "-1", "seed must be"),
    ("seed", str(2**64), "2**64 - 1"), ("precision", "0", "--precision"),
    ("precision", "nan", "--precision"),
    ("strategies", "hold-at,nobody", "unknown strategy"), ("kind", "tournament", "kind must be"),
    ("trace", "x", "--trace-turns"), ("trace", "101", "more games than the run has"),
])
def test_a_bad_field_is_named_beside_it(client, field, value, says):
    form = {"kind": "run", "game": "pig", "players": "2", "strategies": "hold-at",
            "games": "100", "seed": "0", field: value}
    res = client.post("/api/command", json=form)
    assert res.status_code == 400
    assert res.json()["field"] == field and says in res.json()["error"]


def test_a_whatif_needs_a_change_set(client):
    res = client.post("/api/command", json={"kind": "whatif", "game": "pig", "players": "2"})
    assert res.status_code == 400 and res.json()["field"] == "changeset"


# ------------------------------------------------------------------ the runs folder

def test_every_folder_is_listed_and_searchable(client):
    folders = {f["path"]: f for f in client.get("/api/folders").json()["folders"]}
    assert folders["pig-2p-s3"]["kind"] == "run" and folders["pig-2p-s3"]["games"] == 400
    assert folders["whatif-pig-s3"]["kind"] == "whatif"
    assert folders["whatif-pig-s3"]["changes"] == "target=40"
    assert "changesets" not in folders and ".workbench" not in folders
    found = client.get("/api/folders", params={"q": "whatif target"}).json()["folders"]
    assert [f["path"] for f in found] == ["whatif-pig-s3"]


def test_a_runs_headline_is_the_summarys(client, runs):
    from simkit.reports.summary import summary_dict

    from simkit.results import read_run

    res = client.get("/api/result", params={"path": "pig-2p-s3"}).json()
    r = read_run(runs / "pig-2p-s3")
    want = summary_dict(r.games, r.meta, runs / "pig-2p-s3" / "items.parquet")
    assert res["verdicts"] == [v["text"] for v in want["verdicts"]]
    assert res["seats"] == want["seats"]


def test_a_whatifs_headline_and_differences_are_the_commands(client, runs):
    res = client.get("/api/result", params={"path": "whatif-pig-s3"}).json()
    doc = json.loads((runs.parent / "whatif.json").read_text())  # `simkit whatif --json`
    assert res["verdicts"] == [v["text"] for v in doc["verdicts"]]
    head = [d for d in doc["differences"] if not d["measure"].startswith("item")]
    assert res["differences"] == head


def test_a_report_is_built_and_served_from_the_runs_folder(client):
    page = client.post("/api/report", json={"path": "pig-2p-s3"}).json()["report"]
    assert page == ".workbench/reports/pig-2p-s3/index.html"
    res = client.get(f"/files/{page}")
    assert res.status_code == 200 and "Verdict" in res.text
    listed = {f["path"]: f for f in client.get("/api/folders").json()["folders"]}
    assert listed["pig-2p-s3"]["report"] == page
    assert listed["whatif-pig-s3"]["report"] == "whatif-pig-s3/report/index.html"
    assert client.post("/api/report", json={"path": "changesets"}).status_code == 400


def test_a_folder_of_no_results_is_one_line(client):
    res = client.get("/api/result", params={"path": "changesets"})
    assert res.status_code == 400 and "simkit did not write" in res.json()["error"]


# ------------------------------------------------------------------ replays

def test_games_are_listed_by_filter(client):
    res = client.get("/api/games-of", params={"path": "pig-2p-s3", "filter": "seat1-lost"})
    doc = res.json()
    assert doc["matching"] > 0 and all(g["winner"] != 1 for g in doc["games"])
    every = client.get("/api/games-of", params={"path": "pig-2p-s3"}).json()
    assert every["matching"] == 400
    res = client.get("/api/games-of", params={"path": "pig-2p-s3", "filter": "comebacks"})
    assert res.status_code == 400 and "valid choices" in res.json()["error"]


def test_a_replay_is_the_commands_transcript_in_steps(client, runs):
    from click.testing import CliRunner

    from simkit.cli import main

    doc = client.get("/api/replay", params={"path": "whatif-pig-s3/changed",
                                            "game": "7"}).json()
    out = CliRunner().invoke(main, ["replay", "--run", str(runs / "whatif-pig-s3/changed"),
                                    "--game", "7"])
    assert out.exit_code == 0
    assert doc["transcript"] == out.output.splitlines()[:-1]  # less "(matches ...)"
    assert len(doc["steps"]) == sum(1 for ln in doc["transcript"] if ln.startswith("["))
    assert doc["steps"][0]["decision"] == 1


@pytest.mark.parametrize("params,says", [({"path": "pig-2p-s3", "game": "400"}, "0 to 399"),
                                         ({"path": "pig-2p-s3", "game": "x"}, "game"),
                                         ({"path": "changesets", "game": "0"}, "not a run"),
                                         ({"path": "pig-2p-s3", "game": "1", "seat": "X"},
                                          "seat")])
def test_bad_replays_are_one_line(client, params, says):
    res = client.get("/api/replay", params=params)
    assert res.status_code == 400 and says in res.json()["error"]


def test_a_seat_sees_only_what_it_saw():
    from simkit.serve.api import seat_view

    line = "puts a card back into the deck [Mouse Militia, seen by P1]"
    assert seat_view(line, "P1") == line
    assert seat_view(line, "P2") == ("puts a card back into the deck "
                                     "[hidden from P2: seen by P1]")
    hand = "P1's turn: hand Heron; berry 1 [hand seen by P1]"
    assert "Heron" not in seat_view(hand, "P2") and seat_view(hand, "P1") == hand
    assert seat_view("gathers 3 berry", "P2") == "gathers 3 berry"


# ------------------------------------------------------------------ jobs (no process here)

def test_jobs_are_queued_and_bad_job_ids_refused(client):
    assert client.get("/api/jobs").json()["jobs"] == []
    for bad in ("../../etc", "20261205-000000-zzzzzz"):
        assert client.get(f"/api/jobs/{bad}").status_code in (400, 404)
        assert client.post(f"/api/jobs/{bad}/cancel", json={}).status_code in (400, 404)


def test_unknown_pages_are_one_json_line(client):
    res = client.get("/api/nothing")
    assert res.status_code == 404 and res.json()["error"].startswith("no such page")


def test_vendored_files_match_their_pins():
    from simkit.serve.vendor import VENDOR, check, manifest

    assert check() == []
    for lib in manifest().values():
        assert any("LICENSE" in f for f in lib["files"]), "each library ships its licence"
    assert os.path.getsize(VENDOR / "uPlot.iife.min.js") < 100_000


_ = ORIGIN, TOKEN


# ------------------------------------------------------------------ the command

def _serve(monkeypatch, *args):
    """`simkit serve ARGS` up to the point where it would serve (uvicorn's loop is not run):
    its output, and the socket it would have served on."""
    import uvicorn
    from click.testing import CliRunner

    from simkit.cli import main

    served = {}

    def run(self, sockets=None):
        served["address"] = sockets[0].getsockname()
        sockets[0].close()

    monkeypatch.setattr(uvicorn.Server, "run", run)
    res = CliRunner().invoke(main, ["serve", "--no-browser", *map(str, args)])
    return res, served.get("address")


def test_serve_binds_localhost_and_prints_its_token(monkeypatch, tmp_path):
    res, address = _serve(monkeypatch, "--port", 0, "--runs", tmp_path / "runs")
    assert res.exit_code == 0, res.output
    assert address[0] == "127.0.0.1"
    assert f"http://127.0.0.1:{address[1]}/?token=" in res.output
    assert "warning" not in res.output


def test_serve_elsewhere_warns_naming_the_address(monkeypatch, tmp_path):
    res, address = _serve(monkeypatch, "--host", "0.0.0.0", "--port", 0, "--runs", tmp_path)
    assert res.exit_code == 0 and address[0] == "0.0.0.0"
    assert "warning: serving on 0.0.0.0, which other machines may reach" in res.output


def test_serve_bad_input_is_one_line(monkeypatch, tmp_path):
    import socket

    (tmp_path / "file").write_text("x")
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        for args, says in (((("--runs", tmp_path / "file")), "is a file"),
                           (("--port", 70000), "--port"),
                           (("--port", taken.getsockname()[1]), "is in use"),
                           (("--jobs", 0), "--jobs")):
            res, _ = _serve(monkeypatch, *args)
            assert res.exit_code == 2, (args, res.output)
            lines = res.output.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0]
    finally:
        taken.close()


def test_two_runs_side_by_side_are_the_report_of_both(client):
    res = client.post("/api/compare", json={"paths": ["pig-2p-s3", "whatif-pig-s3/changed"]})
    page = res.json()["report"]
    assert page.startswith(".workbench/reports/compare/")
    text = client.get(f"/files/{page}").text
    assert "pig-2p-s3" in text and "changed" in text
    for bad in ({"paths": ["pig-2p-s3"]}, {"paths": ["pig-2p-s3", "../x"]}, {"paths": "x"}):
        assert client.post("/api/compare", json=bad).status_code == 400


def test_a_precision_target_is_the_commands_option(client):
    res = client.post("/api/command", json={"kind": "run", "game": "pig", "players": "2",
                                            "games": "100000", "precision": "0.5"}).json()
    assert res["argv"][-5:-3] == ["--precision", "0.5"]


def test_a_jobs_progress_counts_each_run_once():
    from simkit.serve.jobs import summary

    def step(folder, first, done):
        return {"folder": folder, "first": first, "done": done, "started": 0.0}

    job = {"argv": ["whatif", "pig", "--games", "8000"], "status": "running",
           "progress": {"updated": 2.0, "runs": [step("w/base", 0, 1000),
                                                 step("w/changed", 0, 1000),
                                                 step("w/base", 1000, 2000)]}}
    s = summary(job)
    assert (s["done"], s["total"]) == (3000, 16000) and s["eta"] > 0


def test_a_sweep_is_built_as_the_command_would_play_it(client):
    form = {"kind": "sweep", "game": "pig", "players": "2", "games": "1000",
            "vary": "target=20,30,40"}
    res = client.post("/api/command", json=form).json()
    assert res["argv"][:4] == ["sweep", "pig", "--vary", "target=20,30,40"]
    assert res["out"] == "sweep-pig-2p-s0"
    res = client.post("/api/command", json={**form, "vary": "target=0..5"})
    assert res.status_code == 400 and res.json()["field"] == "vary"
    assert res.json()["error"] == "target=0 is outside its bounds 1..1000 (today 30)"


# ------------------------------------------------------------------ one figure data

def _drawn_points(fig):
    """What a what-if figure draws: each panel's labels (top to bottom) and points."""
    fig.canvas.draw()
    out = []
    for ax in fig.axes:
        label = {round(y): t.get_text() for y, t in zip(ax.get_yticks(),
                                                        ax.get_yticklabels(), strict=True)}
        xy = sorted(ax.collections[0].get_offsets().tolist(), key=lambda p: -p[1])
        out.append([(label[round(y)], float(x)) for x, y in xy])  # top row first
    return out


def test_the_page_and_the_report_draw_the_same_figures(client, runs):
    import math

    from simkit.reports import analysis as A
    from simkit.reports import figures as F
    from simkit.reports.build import load_run

    page = client.get("/api/result", params={"path": "whatif-pig-s3"}).json()
    fig = page["figures"]["differences"]
    # the report's figure, from the table its report builds it from (build_whatif_report)
    b, c = load_run(runs / "whatif-pig-s3/base"), load_run(runs / "whatif-pig-s3/changed")
    table = A.compare_runs(b.games, c.games, b.meta, c.meta, b.items_path, c.items_path,
                           b.trace_path, c.trace_path)
    drawn = _drawn_points(F.whatif_figure(table))
    sent = [[(r["label"], r["value"]) for r in p["rows"]] for p in fig["panels"]]
    assert len(drawn) == len(sent) >= 2
    for d, s in zip(drawn, sent, strict=True):
        assert [lab for lab, _ in d] == [lab for lab, _ in s]
        assert all(v is None and math.isnan(x) or x == pytest.approx(v)
                   for (_, x), (_, v) in zip(d, s, strict=True))
    rate = next(r for r in fig["panels"][0]["rows"] if r["measure"] == "win rate")
    want = table[(table["measure"] == "win rate") & (table["group"] == rate["group"])].iloc[0]
    assert rate["value"] == pytest.approx(100 * want["difference"])  # in points
    assert rate["low"] == pytest.approx(100 * want["ci_low"])
    # a run: the outcome-by-seat bars are the page's seat rows
    page = client.get("/api/result", params={"path": "pig-2p-s3"}).json()
    [panel] = page["figures"]["seats"]["panels"]
    r = load_run(runs / "pig-2p-s3")
    bars = F.seat_outcomes_figure(A.seat_outcomes(r.games, r.meta)).axes[0].patches
    widths = sorted(round(b.get_width(), 9) for b in bars)
    sent = sorted(round(row[k], 9) for row in panel["rows"] for k in ("win", "tie", "loss"))
    assert widths == sent and panel["games"] == 400
    assert [row["label"] for row in panel["rows"]] == [s["name"] for s in page["seats"]]
    endings = F.endings_figure(A.endings(r.games, r.meta))
    for ax, panel in zip(endings.axes, page["figures"]["endings"]["panels"], strict=True):
        drawn = sorted((round(b.get_y() + b.get_height() / 2), round(b.get_width(), 9))
                       for b in ax.patches)
        n = len(panel["rows"])
        assert drawn == sorted((n - 1 - i, round(row["value"], 9))
                               for i, row in enumerate(panel["rows"]))
        assert [t.get_text() for t in ax.get_yticklabels()] == \
            [row["label"] for row in panel["rows"]]


# ------------------------------------------------------------------ sensitivity, balance, ladders

def _parses(argv):
    """``simkit ARGV`` read by the command line's own parser (nothing played)."""
    import click

    from simkit.cli import main

    with click.Context(main) as ctx:
        cmd = main.get_command(ctx, argv[0])
        return cmd.make_context(argv[0], list(argv[1:])).params


@pytest.mark.parametrize("form,argv,n_runs,total", [
    ({"kind": "sensitivity", "keys": "target", "measure": "first-player-advantage"},
     ["sensitivity", "pig", "--keys", "target", "--measure", "first-player-advantage"], 3,
     3 * 500),
    ({"kind": "balance", "vary": "target=20..40", "objective": "seat-spread", "trials": "6",
      "confirm_games": "300"},
     ["balance", "pig", "--vary", "target=20..40", "--objective", "seat-spread", "--trials",
      "6", "--confirm-games", "300"], 6 + 3 + 2, 6 * 500 + 5 * 300),
    ({"kind": "ladder", "levels": "random,hold-at"}, ["ladder", "pig"], 2 + 2,
     2 * 250 + 2 * 500),  # two seatings of 250 games, then each level against itself
])
def test_sensitivity_balance_and_ladders_are_built_as_their_commands(client, form, argv,
                                                                      n_runs, total):
    doc = {"game": "pig", "players": "2", "strategies": "hold-at", "games": "500", **form}
    res = client.post("/api/command", json=doc).json()
    assert res["argv"][:len(argv)] == argv, res["command"]
    assert (res["runs"], res["total"]) == (n_runs, total)
    assert res["out"] == f"{form['kind']}-pig-2p-s0"
    params = _parses(res["argv"])  # the command line takes it as it is
    assert params["n_games"] == 500 and params["out"].name == res["out"]
    if form["kind"] == "ladder":
        assert params["strategies"] == "random,hold-at"


@pytest.mark.parametrize("form,field,says", [
    ({"kind": "sensitivity", "keys": "nothing"}, "keys", "nothing"),
    ({"kind": "sensitivity", "measure": "fun"}, "measure", "valid choices"),
    ({"kind": "balance"}, "vary", "--vary"),
    ({"kind": "balance", "vary": "target", "objective": "fun"}, "objective", "fun"),
    ({"kind": "balance", "vary": "target", "trials": "1"}, "trials", "--trials"),
    ({"kind": "ladder", "levels": "random"}, "levels", "two different strategies"),
    ({"kind": "ladder", "levels": "random,nobody"}, "levels", "unknown strategy"),
    ({"kind": "ladder", "levels": "random,hold-at", "precision": "1"}, "precision", "a ladder"),
])
def test_bad_sensitivity_balance_and_ladder_fields_are_named(client, form, field, says):
    doc = {"game": "pig", "players": "2", "strategies": "hold-at", "games": "100", **form}
    res = client.post("/api/command", json=doc)
    assert res.status_code == 400, res.text
    assert res.json()["field"] == field and says in res.json()["error"]


# ------------------------------------------------------------------ learned seats on changed data

AVALON = {"kind": "whatif", "game": "avalon", "players": "2", "strategies": "learned",
          "games": "100", "changeset": "long-hand"}


def test_a_learned_seat_on_changed_data_offers_the_command_lines_ways_out(client):
    client.put("/api/changesets/long-hand", json={"game": "avalon",
                                                  "changes": {"rules.hand_limit": "6"}})
    res = client.post("/api/command", json=AVALON)
    assert res.status_code == 400 and res.json()["field"] == "changeset"
    assert "--train" in res.json()["error"] and "--model-mismatch ok" in res.json()["error"]
    ok = client.post("/api/command", json={**AVALON, "model": "ok"}).json()
    assert ok["argv"][-5:-3] == ["--model-mismatch", "ok"]
    assert _parses(ok["argv"])["model_mismatch"] == "ok"
    train = client.post("/api/command", json={**AVALON, "model": "train", "train": "50g"}).json()
    assert train["argv"][-5:-3] == ["--train", "50g"] and train["training"] is None
    assert _parses(train["argv"])["train_budget"] == "50g"


@pytest.mark.parametrize("form,says", [
    ({"model": "train", "train": "5"}, "a budget of self-play games"),
    ({"model": "train", "train": "50g", "strategies": "random"}, "no seat here plays learned"),
    ({"model": "maybe"}, "refuse, ok, train"),
])
def test_bad_training_choices_are_named(client, form, says):
    client.put("/api/changesets/long-hand", json={"game": "avalon",
                                                  "changes": {"rules.hand_limit": "6"}})
    res = client.post("/api/command", json={**AVALON, **form})
    assert res.status_code == 400 and says in res.json()["error"]
    assert res.json()["field"] == ("model" if form["model"] == "maybe" else "train")


def test_the_form_shows_what_training_costs_before_play(client):
    client.put("/api/changesets/long-hand", json={"game": "avalon",
                                                  "changes": {"rules.hand_limit": "6"}})
    from simkit.ladder import say_duration

    # a time budget costs its time (a games budget is measured by playing a few games);
    # a what-if fine-tunes a model for each side's data
    res = client.post("/api/command", json={**AVALON, "model": "train", "train": "10m",
                                            "estimate": True}).json()
    assert res["training"]["models"] == 2 and res["training"]["seconds"] == 1200
    assert f"about {say_duration(1200)} before play" in res["training"]["text"]
    run = client.post("/api/command", json={**AVALON, "kind": "run", "model": "train",
                                            "train": "10m", "estimate": True}).json()
    assert run["training"]["models"] == 1 and "--train 10m" in run["command"]


# ------------------------------------------------------------------ the replay filter

@pytest.fixture(scope="module")
def traced(runs):
    """A Pig run traced turn by turn (--trace-turns all): comebacks are read from it."""
    from click.testing import CliRunner

    from simkit.cli import main

    res = CliRunner().invoke(main, ["run", "pig", "--players", "2", "--games", "300", "--seed",
                                    "4", "--strategies", "hold-at,random", "--trace-turns",
                                    "all", "--out", str(runs / "pig-traced"), "--quiet"])
    assert res.exit_code == 0, res.output
    return "pig-traced"


def test_comebacks_are_the_games_whose_winner_trailed(client, runs, traced):
    import pandas as pd

    doc = client.get("/api/games-of", params={"path": traced, "filter": "comeback"}).json()
    assert doc["traced"] == 300 and 0 < doc["matching"] < 300
    assert doc["progress_unit"] == "points"
    # by hand from the trace: the winner's progress below another seat's after some turn
    trace = pd.read_parquet(runs / traced / "trace.parquet")
    games = pd.read_parquet(runs / traced / "games.parquet").set_index("game")
    want = set()
    for game, t in trace.groupby("game"):
        w = int(games.loc[game, "winner"])
        if w > 0:
            mine, other = t[f"progress_s{w}"], t[f"progress_s{3 - w}"]
            if ((t["turn"] >= 1) & (other > mine)).any():
                want.add(int(game))
    listed = client.get("/api/games-of", params={"path": traced, "filter": "comeback"}).json()
    assert doc["matching"] == len(want)
    assert {g["game"] for g in listed["games"]} <= want
    assert all(g["deficit"] > 0 for g in listed["games"])
    res = client.get("/api/games-of", params={"path": "pig-2p-s3", "filter": "comeback"})
    assert res.status_code == 400 and "--trace-turns" in res.json()["error"]


def test_games_a_seat_lost_by_n_points_or_fewer(client, runs):
    import pandas as pd

    g = pd.read_parquet(runs / "pig-2p-s3" / "games.parquet")
    for by in (0, 5, 30):
        doc = client.get("/api/games-of", params={"path": "pig-2p-s3", "filter": "lost-by",
                                                  "seat": "2", "by": str(by)}).json()
        want = g[(g["rank_s1"] == 1) & (g["rank_s2"] != 1)
                 & (g["score_s1"] - g["score_s2"] <= by)]
        assert doc["matching"] == len(want), by
        assert all(r["winner"] == 1 and r["scores"][0] - r["scores"][1] <= by
                   for r in doc["games"])
    timeouts = client.get("/api/games-of", params={"path": "pig-2p-s3",
                                                   "filter": "timeout"}).json()
    assert timeouts["matching"] == int((g["end_reason"] == "timeout").sum())


@pytest.mark.parametrize("params,says", [({"seat": "3", "by": "1"}, "1 to 2"),
                                         ({"seat": "x", "by": "1"}, "seat"),
                                         ({"seat": "1", "by": "-1"}, "by"),
                                         ({"seat": "1"}, "by")])
def test_a_bad_lost_by_is_one_line(client, params, says):
    res = client.get("/api/games-of", params={"path": "pig-2p-s3", "filter": "lost-by",
                                              **params})
    assert res.status_code == 400 and says in res.json()["error"], res.text


def test_a_trace_is_the_commands_option(client):
    res = client.post("/api/command", json={"kind": "run", "game": "pig", "players": "2",
                                            "games": "100", "trace": "all"}).json()
    assert res["argv"][-5:-3] == ["--trace-turns", "all"]
    assert _parses(res["argv"])["trace"] == "all"
    res = client.post("/api/command", json={"kind": "sensitivity", "game": "pig",
                                            "players": "2", "games": "100", "trace": "5"})
    assert res.status_code == 400 and res.json()["field"] == "trace"


# ------------------------------------------------------------------ adding and removing cards

def _wotw_rows(client):
    d = client.get(f"/api/games/{WOTW}/data").json()
    cards = next(lst for lst in d["lists"] if lst["key"] == "cards")
    return [{"name": r["name"], **{f: c["value"] for f, c in r["cells"].items()}}
            for r in cards["records"]]


STAG = {"name": "stag", "count": "4", "cost_berry": "2", "strength": "5", "health": "3",
        "words": "relentless", "ability": "none", "amount": "0"}


def test_a_card_added_or_removed_is_checked_as_cards_csv(client, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from simkit.cli import main

    rows = [r for r in _wotw_rows(client) if r["name"] != "boar"]
    res = client.post(f"/api/games/{WOTW}/check",
                      json={"changes": {}, "lists": {"cards": [*rows, STAG]}}).json()
    assert res["ok"], res["errors"]
    short = client.post(f"/api/games/{WOTW}/check", json={"changes": {}, "lists": {
        "cards": rows}}).json()  # four copies fewer: the deck no longer adds up
    assert "deck_size" in short["errors"]["*"]
    bad = client.post(f"/api/games/{WOTW}/check", json={"changes": {}, "lists": {
        "cards": [*rows, {**STAG, "count": "x"}, {**STAG, "count": "1"}]}}).json()
    [(key, message)] = bad["errors"].items()
    assert key == f"cards[{len(rows) + 1}].count"
    # the command line's message for the same card file
    monkeypatch.chdir(tmp_path)
    from simkit.serve.api import list_csv

    (tmp_path / "cards.csv").write_text(list_csv(WOTW, "cards", [*rows, {**STAG, "count": "x"},
                                                                {**STAG, "count": "1"}]))
    out = CliRunner().invoke(main, ["cards", WOTW, "--cards", "cards.csv"])
    assert out.exit_code == 2 and out.output.strip() == f"error: {message}"
    twice = client.post(f"/api/games/{WOTW}/check", json={"changes": {}, "lists": {
        "cards": [*rows, STAG, STAG]}}).json()
    assert f"cards[{len(rows) + 2}].name" in twice["errors"]
    for lists in ({"nolist": []}, {"cards": "x"}, {"cards": [{"name": ["x"]}]}):
        res = client.post(f"/api/games/{WOTW}/check", json={"changes": {}, "lists": lists})
        assert res.status_code == 400 or not res.json()["ok"], lists


def test_a_change_set_keeps_its_cards_as_the_file_its_jobs_read(client, runs):
    from simkit.cards import read_card_files

    rows = [r for r in _wotw_rows(client) if r["name"] != "boar"] + [STAG]
    res = client.put("/api/changesets/stag", json={"game": WOTW, "changes": {
        "cards.stag.cost_berry": "1"}, "lists": {"cards": rows}})
    assert res.status_code == 200, res.text
    file = runs / "changesets" / "stag" / "cards.csv"
    assert file.is_file()
    d = client.get(f"/api/games/{WOTW}/data", params={"changeset": "stag"}).json()
    cards = next(lst for lst in d["lists"] if lst["key"] == "cards")
    assert cards["replaced"] and cards["removed"] == ["boar"]
    stag = next(r for r in cards["records"] if r["name"] == "stag")
    assert stag["added"] and stag["cells"]["cost_berry"]["value"] == "1"  # the --set on top
    cmd = client.post("/api/command", json={"kind": "whatif", "game": WOTW, "players": "2",
                                            "strategies": "heuristic", "games": "100",
                                            "changeset": "stag"}).json()
    at = cmd["argv"].index("--cards")
    assert cmd["argv"][at + 1] == "runs/changesets/stag/cards.csv"
    assert cmd["argv"][at + 2:at + 4] == ["--set", "cards.stag.cost_berry=1"]
    assert _parses(cmd["argv"])["card_files"] == ("runs/changesets/stag/cards.csv",)
    over, _ = read_card_files(WOTW, [str(file)])  # what the job's command reads
    assert [r["name"] for r in over["cards"]][-1] == "stag" and len(over["cards"]) == 21
    # a list no longer replaced leaves no file behind; one the command refuses is not saved
    client.put("/api/changesets/stag", json={"game": WOTW, "changes": {"deck_size": "108"}})
    assert not file.exists()
    res = client.put("/api/changesets/stag2", json={"game": WOTW, "changes": {},
                                                   "lists": {"cards": rows[:-1]}})
    assert res.status_code == 400 and not (runs / "changesets" / "stag2.json").exists()


def test_a_job_keeps_what_its_training_costs(client, runs, monkeypatch):
    import shutil

    from simkit.serve.jobs import Jobs

    monkeypatch.setattr(Jobs, "poke", lambda self: None)  # queued only: no process here
    client.put("/api/changesets/long-hand", json={"game": "avalon",
                                                  "changes": {"rules.hand_limit": "6"}})
    job = client.post("/api/jobs", json={**AVALON, "model": "train", "train": "10m"}).json()
    plain = client.post("/api/jobs", json={**AVALON, "model": "ok"}).json()
    try:
        assert job["training"]["models"] == 2 and job["training"]["seconds"] == 1200
        assert job["status"] == "queued" and "--train 10m" in job["command"]
        assert plain["training"] is None
    finally:
        for j in (job, plain):
            shutil.rmtree(runs / ".workbench" / "jobs" / j["id"])
