"""The workbench's vendored front-end libraries: pinned, minified files under
``static/vendor`` with their licences, listed in ``static/vendor/VENDORED.json`` (package,
version, each file's source in the npm package and its SHA-256). No build step runs at install
or in CI; the page loads these files as they are, so it works with no network.

Update one (a maintainer's step, with network and npm):

    python -m simkit.serve.vendor uplot 1.6.33     # fetch with `npm pack`, copy, re-pin
    python -m simkit.serve.vendor --check           # the files match VENDORED.json

tests/serve/test_api.py runs ``--check``'s function, so a file edited by hand is caught."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VENDOR = Path(__file__).parent / "static" / "vendor"
MANIFEST = VENDOR / "VENDORED.json"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def manifest() -> dict:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


def check() -> list[str]:
    """Each vendored file that is missing or differs from its pinned digest."""
    problems = []
    for name, lib in manifest().items():
        for dest, pinned in lib["files"].items():
            path = VENDOR / dest
            if not path.is_file():
                problems.append(f"{name}: {dest} is missing")
            elif _digest(path) != pinned["sha256"]:
                problems.append(f"{name}: {dest} differs from its pinned digest")
    return problems


def update(name: str, version: str) -> None:
    """Fetch ``name@version`` with ``npm pack``, copy its files and licence, re-pin them."""
    doc = manifest()
    if name not in doc:
        sys.exit(f"error: unknown vendored library {name!r}; vendored: {', '.join(doc)}")
    lib = doc[name]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["npm", "pack", f"{lib['npm']}@{version}"], cwd=tmp, check=True,
                       stdout=subprocess.DEVNULL)
        tgz = next(Path(tmp).glob("*.tgz"))
        with tarfile.open(tgz) as tar:
            tar.extractall(tmp, filter="data")
        for dest, pinned in lib["files"].items():
            shutil.copyfile(Path(tmp) / "package" / pinned["from"], VENDOR / dest)
            pinned["sha256"] = _digest(VENDOR / dest)
    lib["version"] = version
    MANIFEST.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    print(f"{name} {version}: {', '.join(lib['files'])} updated; reload the page and run "
          "tests/serve")


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        bad = check()
        print("\n".join(bad) or "every vendored file matches VENDORED.json")
        sys.exit(1 if bad else 0)
    if len(sys.argv) != 3:
        sys.exit("usage: python -m simkit.serve.vendor NAME VERSION | --check")
    update(sys.argv[1], sys.argv[2])
