"""The workbench's routes (Starlette): the page and its static files, the JSON API
(``simkit.serve.api``), the jobs (``simkit.serve.jobs``) and the runs folder's files, all
behind ``simkit.serve.security.Guard``."""

from __future__ import annotations

from contextlib import asynccontextmanager
from functools import wraps
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from simkit.errors import SimkitError
from simkit.numeric import whole
from simkit.serve import api
from simkit.serve.jobs import FormError, Jobs, build
from simkit.serve.security import Guard, allowed_hosts

STATIC = Path(__file__).parent / "static"


def handled(fn):
    """A route whose SimkitError is one JSON line, status 400 (404 for what is not there),
    and whose work runs off the event loop (reading tables, replaying a game)."""

    @wraps(fn)
    async def route(request: Request):
        try:
            doc = await api.body(request) if request.method in ("POST", "PUT") else None
            out = await run_in_threadpool(fn, request, doc) if doc is not None else \
                await run_in_threadpool(fn, request)
        except FormError as exc:
            return api.error(str(exc), field=exc.field)
        except SimkitError as exc:
            return api.error(str(exc))
        return out if isinstance(out, Response) else JSONResponse(out)

    return route


class Workbench:
    """The app's state: the runs folder (as given and resolved), the jobs, the fairness band."""

    def __init__(self, runs: Path, runs_shown: str, jobs: Jobs, fair: float = 0.01):
        from simkit.serve.table import Tables

        self.runs, self.runs_shown, self.jobs, self.fair = runs, runs_shown, jobs, fair
        self.tables = Tables(runs)

    # -- games and data
    def games(self, request):
        return {"games": api.games_list()}

    def game_data(self, request):
        game = request.path_params["game"]
        name = request.query_params.get("changeset")
        cs = api.read_changeset(self.runs, name) if name else {}
        return api.game_data(game, cs.get("changes", {}), cs.get("lists", {}))

    def check(self, request, doc):
        game = request.path_params["game"]
        changes = api.check_changes(doc)
        params, errors = api.effective(game, changes, api.check_lists(doc))
        values = {k: api._scalar(params[k].value) for k in changes if k in params
                  and k not in errors}
        return {"errors": errors, "values": values, "ok": not errors,
                "set": [f"--set {k}={v}" for k, v in changes.items()]}

    # -- change sets
    def changesets(self, request):
        folder = api.changeset_dir(self.runs)
        out = []
        if folder.is_dir():
            for p in sorted(folder.glob("*.json")):
                try:
                    out.append(api.read_changeset(self.runs, p.stem))
                except (SimkitError, ValueError, OSError):
                    continue
        game = request.query_params.get("game")
        return {"changesets": [c for c in out if not game or c.get("game") == game]}

    def changeset(self, request):
        return api.read_changeset(self.runs, request.path_params["name"])

    def save_changeset(self, request, doc):
        changes, lists = api.check_changes(doc), api.check_lists(doc)
        if "csv" in doc:
            changes = api.changes_from_csv(str(doc["csv"]))
        return api.save_changeset(self.runs, request.path_params["name"],
                                  str(doc.get("game", "")), changes, lists)

    def changeset_csv(self, request):
        name = request.path_params["name"]
        return PlainTextResponse(api.changeset_csv(self.runs, name), media_type="text/csv",
                                 headers={"content-disposition":
                                          f'attachment; filename="{name}.csv"'})

    # -- commands and jobs
    def _changeset(self, doc) -> tuple[dict, dict, list[str]]:
        """The form's change set: its ``--set`` values, its card lists (as ``--cards``
        reads them) and its card files as the command line names them."""
        name = doc.get("changeset") or None
        if not name:
            return {}, {}, []
        cs = api.read_changeset(self.runs, name)
        if cs["game"] != doc.get("game"):
            raise FormError("changeset", f"change set {name!r} is of another game")
        lists, errors = api.parse_lists(cs["game"], cs["lists"])
        if errors:
            raise FormError("changeset", next(iter(errors.values())))
        shown = self.runs_shown.rstrip("/")
        return cs["changes"], lists, [f"{shown}/changesets/{name}/{key}.csv" for key in lists]

    def _command(self, doc):
        changes, lists, cards = self._changeset(doc)
        return build(doc, self.runs, self.runs_shown, changes, lists, cards)

    def command(self, request, doc):
        cmd = self._command(doc)
        from simkit.serve.jobs import Jobs as _J

        _J.reserved.discard(cmd.out.name)  # only shown, not started
        return {"argv": cmd.argv, "command": cmd.text, "out": cmd.out.name, "runs": cmd.runs,
                "total": cmd.total, "training": cmd.training}

    def start_job(self, request, doc):
        # with --train, what the training costs is kept with the job (the command trains
        # quietly before its first game; the page says so while it prepares)
        cmd = self._command({**doc, "estimate": True})
        return self.jobs.add(cmd, {"game": doc.get("game"), "kind": doc.get("kind", "run"),
                                   "changeset": doc.get("changeset") or None,
                                   "training": cmd.training})

    def list_jobs(self, request):
        return {"jobs": self.jobs.all(), "limit": self.jobs.limit}

    def job(self, request):
        return self.jobs.record(request.path_params["job"])

    def cancel(self, request, doc):
        return self.jobs.cancel(request.path_params["job"])

    def resume(self, request, doc):
        return self.jobs.resume(request.path_params["job"])

    # -- the runs folder
    def folders(self, request):
        return {"folders": api.list_folders(self.runs, request.query_params.get("q", ""))}

    def result(self, request):
        return api.result(self.runs, request.query_params.get("path", ""), self.fair)

    def report(self, request, doc):
        return {"report": api.build_report_for(self.runs, str(doc.get("path", "")))}

    def compare(self, request, doc):
        return {"report": api.compare_report(self.runs, doc.get("paths"))}

    def games_of(self, request):
        q = request.query_params
        return api.game_list(self.runs, q.get("path", ""), q.get("filter", "all"),
                             seat=q.get("seat"), by=q.get("by"))

    def replay(self, request):
        q = request.query_params
        index = whole(q.get("game", ""), "game", 0)
        return api.replay_steps(self.runs, q.get("path", ""), index, q.get("seat") or None)

    # -- live games (simkit.serve.table) and advice
    def new_table(self, request, doc):
        changes, lists, _ = self._changeset(doc)
        table = self.tables.new(doc, {**lists, **changes})
        with table.lock:
            return table.view(table.humans[0])

    def _table(self, request, doc=None):
        from simkit.serve.table import parse_seat

        table = self.tables.get(request.path_params["table"])
        seat = (doc or {}).get("seat") or request.query_params.get("seat") or \
            f"P{table.humans[0] + 1}"
        return table, parse_seat(seat, table)

    def table_view(self, request):
        table, seat = self._table(request)
        with table.lock:
            return table.view(seat)

    def table_step(self, request, doc):
        """One bot decision (the page calls it at a readable pace), or with ``skip`` every
        one until a person decides."""
        table, seat = self._table(request, doc)
        with table.lock:
            if doc.get("skip"):
                table.bots_until_person()
            else:
                table.step()
            return table.view(seat)

    def table_play(self, request, doc):
        table, seat = self._table(request, doc)
        move = doc.get("move")
        if not isinstance(move, int) or isinstance(move, bool):
            raise SimkitError("move: the number of one of the seat's legal moves")
        with table.lock:
            table.play(seat, move)
            return table.view(seat)

    def table_ask(self, request, doc):
        from simkit.serve.advice import ask_table

        table, seat = self._table(request, doc)
        with table.lock:
            obs = table.observe(seat)
            if table.over or table.to_move() != seat:
                raise SimkitError(f"advice is for the seat to move; it is not P{seat + 1}'s "
                                  "move")
        return ask_table(table, obs, seat, doc.get("strategy") or None)

    def replay_ask(self, request, doc):
        from simkit.serve.advice import ask_replay

        folder = api.run_folder(self.runs, str(doc.get("path", "")))
        return ask_replay(folder, whole(str(doc.get("game", "")), "game", 0),
                          whole(str(doc.get("decision", "")), "decision", 1),
                          doc.get("strategy") or None)

    def file(self, request):
        return api.file_response(self.runs, request.path_params["path"])


def make_app(runs: Path, runs_shown: str | None = None, token: str = "", host: str = "127.0.0.1",
             port: int = 8765, jobs: int = 1, hosts: set[str] | None = None,
             start_jobs: bool = True) -> Starlette:
    """The workbench app over the runs folder ``runs``; ``hosts``: the Host headers to accept
    (default: this server's own names at ``port``)."""
    runs = Path(runs)
    runs.mkdir(parents=True, exist_ok=True)
    queue = Jobs(runs.resolve(), jobs)
    wb = Workbench(runs.resolve(), runs_shown or str(runs), queue)

    async def index(request):
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-store"})

    routes = [
        Route("/", index),
        Route("/api/games", handled(wb.games)),
        Route("/api/games/{game}/data", handled(wb.game_data)),
        Route("/api/games/{game}/check", handled(wb.check), methods=["POST"]),
        Route("/api/changesets", handled(wb.changesets)),
        Route("/api/changesets/{name}", handled(wb.changeset)),
        Route("/api/changesets/{name}", handled(wb.save_changeset), methods=["PUT"]),
        Route("/api/changesets/{name}/csv", handled(wb.changeset_csv)),
        Route("/api/command", handled(wb.command), methods=["POST"]),
        Route("/api/jobs", handled(wb.list_jobs)),
        Route("/api/jobs", handled(wb.start_job), methods=["POST"]),
        Route("/api/jobs/{job}", handled(wb.job)),
        Route("/api/jobs/{job}/cancel", handled(wb.cancel), methods=["POST"]),
        Route("/api/jobs/{job}/resume", handled(wb.resume), methods=["POST"]),
        Route("/api/folders", handled(wb.folders)),
        Route("/api/result", handled(wb.result)),
        Route("/api/report", handled(wb.report), methods=["POST"]),
        Route("/api/compare", handled(wb.compare), methods=["POST"]),
        Route("/api/games-of", handled(wb.games_of)),
        Route("/api/replay", handled(wb.replay)),
        Route("/api/tables", handled(wb.new_table), methods=["POST"]),
        Route("/api/tables/{table}", handled(wb.table_view)),
        Route("/api/tables/{table}/step", handled(wb.table_step), methods=["POST"]),
        Route("/api/tables/{table}/play", handled(wb.table_play), methods=["POST"]),
        Route("/api/tables/{table}/ask", handled(wb.table_ask), methods=["POST"]),
        Route("/api/replay/ask", handled(wb.replay_ask), methods=["POST"]),
        Route("/files/{path:path}", handled(wb.file)),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]

    async def not_found(request, exc):
        return api.error(f"no such page: {request.url.path}", 404)

    async def failed(request, exc):  # a bug: one line, never a traceback page
        from simkit.cli import _log_traceback

        return api.error(f"internal error ({type(exc).__name__}); this is a bug in simkit. "
                         f"The traceback is in {_log_traceback()}", 500)

    @asynccontextmanager
    async def lifespan(app):
        yield
        queue.stop()  # the server stops: every job keeps its finished games

    app = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_found,
                                                        Exception: failed},
                    lifespan=lifespan, max_body_size=api.MAX_BODY)
    if start_jobs:
        queue.start()
    app.state.workbench = wb
    return Guard(app, token, hosts or allowed_hosts(host, port))
