"""What keeps the workbench to its designer: a token exchanged for a session cookie, the Host
and Origin headers checked, and every path kept inside the runs folder.

The server binds 127.0.0.1 unless told otherwise, but a page of any site the designer visits
can still send requests to it (a cross-site POST) or reach it by a name of its own that
resolves to 127.0.0.1 (DNS rebinding). So every request must carry the session cookie, which
only the URL printed by ``simkit serve`` gives; the Host header must name this server (a
rebound name does not); and a request that changes anything must come from this server's own
origin, with a JSON body (which a plain HTML form cannot send)."""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path
from urllib.parse import parse_qs

from simkit.errors import SimkitError

COOKIE = "simkit_session"
SAFE_METHODS = ("GET", "HEAD")


def new_token() -> str:
    return secrets.token_urlsafe(24)


def allowed_hosts(host: str, port: int) -> set[str]:
    """The Host headers of this server: the address it binds, and localhost's names when it
    binds a loopback address (a browser may be given either)."""
    names = {host}
    if host in ("127.0.0.1", "localhost", "::1"):
        names |= {"127.0.0.1", "localhost", "[::1]"}
    if host in ("0.0.0.0", "::"):  # every address: its own name and the loopback ones
        names |= {"127.0.0.1", "localhost"}
    return {f"{n}:{port}" for n in names}


class Guard:
    """ASGI middleware: refuses, in one JSON line, a request of another Host, an unsafe one
    of another Origin (or of a body other than JSON), and any without the session cookie,
    except the first visit with the token, which it answers with the cookie."""

    def __init__(self, app, token: str, hosts: set[str]):
        self.app, self.token, self.hosts = app, token, hosts
        self.session = secrets.token_urlsafe(24)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        host = headers.get("host", "")
        if host not in self.hosts:
            return await _refuse(send, 421, f"unknown host {host!r}: open the address "
                                            "simkit serve printed")
        method = scope["method"]
        if method not in SAFE_METHODS:
            origin = headers.get("origin")
            if origin is None or origin.split("://", 1)[-1] not in self.hosts:
                return await _refuse(send, 403, "a change must come from the workbench's own "
                                                f"page (origin {origin!r} refused)")
            if headers.get("content-type", "").split(";")[0].strip() != "application/json":
                return await _refuse(send, 415, "a change is sent as JSON")
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given = query.get("token", [""])[0]
        if scope["path"] == "/" and method == "GET" and given:
            if not hmac.compare_digest(given, self.token):
                return await _refuse(send, 403, "wrong token: open the address simkit serve "
                                                "printed")
            return await self._welcome(send)
        if not hmac.compare_digest(_cookie(headers.get("cookie", "")), self.session):
            return await _refuse(send, 403, "no session: open the address simkit serve "
                                            "printed (it holds the token)")
        return await self.app(scope, receive, send)

    async def _welcome(self, send):
        """The token's one use: a session cookie, and the page again without the token (so it
        stays out of the history and of what the page's address shows)."""
        cookie = f"{COOKIE}={self.session}; Path=/; HttpOnly; SameSite=Strict"
        await send({"type": "http.response.start", "status": 303,
                    "headers": [(b"location", b"/"), (b"set-cookie", cookie.encode()),
                                (b"cache-control", b"no-store"), (b"content-length", b"0")]})
        await send({"type": "http.response.body", "body": b""})


def _cookie(header: str) -> str:
    for part in header.split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE:
            return value
    return ""


async def _refuse(send, status: int, message: str):
    import json

    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


# ------------------------------------------------------------------------ paths

class OutsideRuns(SimkitError):
    """A path that would leave the runs folder: absolute, with '..', or through a link."""


def inside(root: Path, rel: str, must_exist: bool = True) -> Path:
    """``rel`` (a path the page sent, relative to the runs folder ``root``) as a path inside
    ``root``, or OutsideRuns: an absolute path, a '..' part, a link anywhere on the way (a
    link could point anywhere) or a name simkit could not have written are all refused."""
    root = Path(root).resolve()
    text = str(rel).replace("\\", "/")
    if text.startswith("/") or (len(text) > 1 and text[1] == ":") or "\x00" in text:
        raise OutsideRuns(f"{rel!r}: give a path inside the runs folder, not an absolute one")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        raise OutsideRuns(f"{rel!r}: '..' would leave the runs folder")
    path = root
    for part in parts:
        path = path / part
        if path.is_symlink():
            raise OutsideRuns(f"{rel!r}: {part!r} is a link; the workbench follows none")
    if must_exist and not path.exists():
        raise SimkitError(f"{rel!r} is not in the runs folder")
    if os.path.commonpath([root, path.resolve()]) != str(root):  # belt and braces
        raise OutsideRuns(f"{rel!r} is outside the runs folder")
    return path
