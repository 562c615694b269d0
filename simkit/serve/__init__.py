"""``simkit serve``: the designer's workbench, a local web app over the runs folder
(docs/workbench.md). ``app`` holds the routes, ``api`` what they answer, ``jobs`` and
``worker`` the runs they start, ``security`` the token, the checks of Host and Origin and the
paths; ``static`` the page and its vendored libraries."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

from simkit.errors import SimkitError

LOOPBACK = ("127.0.0.1", "localhost", "::1")
DEFAULT_PORT = 8765


def bind(host: str, port: int) -> socket.socket:
    """A listening socket at ``host``:``port`` (0: a free port), or one line saying why not."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        raise SimkitError(f"--host {host}: no such address on this machine") from None
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno in (98, 48):  # in use (Linux, macOS)
            raise SimkitError(f"port {port} of {host} is in use (another simkit serve?); give "
                              "--port N, or --port 0 for any free port") from None
        raise SimkitError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(64)
    return sock


def serve(host: str, port: int, runs: Path, jobs: int, browser: bool) -> None:
    """Serve the workbench until Ctrl-C; print its address with the token."""
    import uvicorn

    from simkit.serve.app import make_app
    from simkit.serve.security import new_token

    if runs.exists() and not runs.is_dir():
        raise SimkitError(f"--runs {runs} is a file; give a folder (made if missing)")
    try:
        runs.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SimkitError(f"--runs {runs}: cannot make the folder ({exc.strerror or exc})") \
            from None
    sock = bind(host, port)
    port = sock.getsockname()[1]
    token = new_token()
    app = make_app(runs, str(runs), token, host, port, jobs)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else shown}:{port}/?token={token}"
    if host not in LOOPBACK:
        print(f"warning: serving on {host}, which other machines may reach; the token still "
              "guards every request, but anyone who sees the address below can use it",
              file=sys.stderr)
    wb = app.app.state.workbench
    waiting = [j for j in wb.jobs.all() if j["status"] == "interrupted"]
    if waiting:
        print(f"{len(waiting)} job(s) stopped with the last server keep their finished games: "
              "resume them under Jobs in the page", file=sys.stderr)
    print(f"simkit workbench on {runs}: {url}", flush=True)
    print("(Ctrl-C stops it; running jobs keep their finished games)", file=sys.stderr)
    if browser:
        import webbrowser

        try:
            webbrowser.open(url)
        except Exception:  # noqa: BLE001 - no browser: the printed address is enough
            pass
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    uvicorn.Server(config).run(sockets=[sock])
