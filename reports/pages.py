"""Every folder simkit writes has a page: what ``simkit report FOLDER`` opens, and the
sections of the folders that have no other (a balancing search, a training).

A folder is known by its ``.simkit`` marker (``simkit.folders``), a training folder by its
train.json, an experiment folder (``simkit run FILE.toml`` and friends write one folder a
table under it) by the simkit folders inside it. Anything else is one line naming what
``simkit report`` takes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from simkit.reports import verdict as V

from simkit import folders
from simkit.errors import SimkitError

SUMMARY_KINDS = ("ladder", "sweep", "sensitivity", "balance", "training")
"""Folders whose page is drawn from their summary (summary.json, train.json), not from a
games table."""

TAKES = ("a run, a what-if, a sweep, a sensitivity, a balance, a ladder, a training or an "
         "experiment folder")


def kind_of(folder: Path) -> str | None:
    """What simkit wrote at ``folder`` (``folders.kind_of``'s kinds, "training" for a
    training folder, "experiment" for a folder of simkit folders), or None."""
    folder = Path(folder)
    kind = folders.kind_of(folder)
    if kind is not None:
        return kind
    try:
        doc = json.loads((folder / "train.json").read_text(encoding="utf-8"))
        if isinstance(doc, dict) and "generations" in doc and "spec" in doc:
            return "training"
    except (OSError, ValueError):
        pass
    if folder.is_dir() and _children(folder):
        return "experiment"
    return None


def _children(folder: Path) -> list[Path]:
    """The folders with a page that an experiment folder holds, in name order: none unless
    everything in ``folder`` (but hidden names) is a folder simkit wrote, so that a folder
    of the user's that happens to hold a run is never taken for an experiment's."""
    try:
        entries = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    except OSError:
        return []
    kinds = [folders.kind_of(p) if p.is_dir() and not p.is_symlink() else None
             for p in entries]
    if not entries or None in kinds:
        return []
    return [p for p, k in zip(entries, kinds, strict=True)
            if k in ("run", "whatif", *SUMMARY_KINDS)]


def expand(paths: list[Path]) -> list[tuple[str, Path]]:
    """``paths`` as (kind, folder) pairs, an experiment folder replaced by the folders it
    holds; one line (``SimkitError``) for a path that is not a folder simkit wrote."""
    out = []
    for path in map(Path, paths):
        if not path.exists():
            raise SimkitError(f"{path} does not exist; simkit report takes {TAKES}")
        kind = kind_of(path)
        if kind is None:
            what = "a file" if path.is_file() else "a folder simkit did not write"
            raise SimkitError(f"{path} is {what} (no .simkit marker, run.json or train.json); "
                              f"simkit report takes {TAKES}")
        if kind == "report":
            raise SimkitError(f"{path} is a report already: open {path / 'index.html'}")
        if kind in ("export", "cards"):
            raise SimkitError(f"{path} is a simkit {kind} folder (files for a spreadsheet), "
                              f"which has no report; simkit report takes {TAKES}")
        if kind == "experiment":
            out += [(kind_of(p), p) for p in _children(path)]
        else:
            out.append((kind, path))
    return out


def default_out(paths: list[Path]) -> Path:
    """Where ``simkit report FOLDER`` writes without --out: FOLDER/report (a what-if's own
    report folder, where ``simkit whatif`` writes it); several folders need --out."""
    if len(paths) != 1:
        raise SimkitError("a report of several folders needs --out FOLDER (one folder's "
                          "report goes in FOLDER/report)")
    return Path(paths[0]) / "report"


def report_folders(paths: list[Path], out: Path | None, title: str | None = None,
                   fair: float = V.DEFAULT_FAIR) -> Path:
    """Write the page of ``paths`` (any folders simkit writes) to ``out`` (default
    ``default_out``) and return ``out``."""
    from simkit.reports.build import build_report, build_whatif_report

    pairs = expand(paths)
    if not pairs:
        raise SimkitError(f"{paths[0]} holds no folder simkit wrote; simkit report takes "
                          f"{TAKES}")
    out = Path(out) if out is not None else default_out(paths)
    whatifs = [p for k, p in pairs if k == "whatif"]
    if whatifs:
        if len(pairs) > 1:
            raise SimkitError(f"{whatifs[0]} is a what-if: report it on its own (simkit "
                              f"report {whatifs[0]})")
        return build_whatif_report(whatifs[0] / "base", whatifs[0] / "changed", out,
                                   title=title, fair=fair)
    return build_report([p for _, p in pairs], out, title=title, fair=fair)


def load_summary(folder: Path) -> dict:
    """A finished exploration's summary.json, or a training's train.json (with ``kind``);
    one line when it has not finished."""
    folder = Path(folder)
    train = folder / "train.json"
    if folders.kind_of(folder) is None and train.is_file():
        try:
            doc = json.loads(train.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SimkitError(f"{train} cannot be read ({exc})") from exc
        return {"kind": "training", **doc, "game": doc["spec"].get("game", "?"),
                "players": doc["spec"].get("players", "?")}
    path = folder / "summary.json"
    if not path.is_file():
        kind = folders.kind_of(folder) or "ladder"
        raise SimkitError(f"{folder} is a {kind} that has not finished (no summary.json); "
                          f"continue it with `simkit {kind} ... --resume` first")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SimkitError(f"{path} cannot be read ({exc})") from exc


# ---------------------------------------------------------------------------------------------
# balancing


def _scale(summary: dict) -> float:
    """What turns a balancing's shares into points: 1 since it records points (its
    ``units``), 100 for a search written before."""
    return 1.0 if str(summary.get("units", "")).startswith("points") else 100.0


def _points(x: float) -> str:
    return f"{x:g} point{'s' * (x != 1)}"


def _pts(f: dict, scale: float) -> str:
    return (f"{scale * f['estimate']:+.2f} [{scale * f['ci_low']:+.2f}, "
            f"{scale * f['ci_high']:+.2f}]")


def confirmed_frame(summary: dict) -> pd.DataFrame:
    """The confirmed settings, a row each: first-player advantage in points, turns."""
    scale, best = _scale(summary), (summary.get("best") or {}).get("setting")
    rows = []
    for c in summary.get("confirmed") or []:
        ln = c["length"]
        notes = [x for x, on in (("today's data", c.get("today")),
                                 ("confirmed best", best is not None
                                  and c["setting"] == best),
                                 ("smallest change", c.get("smallest_change"))) if on]
        rows.append({"trial": "-" if c.get("trial") is None else str(c["trial"]),
                     "setting": ", ".join(f"{k}={v}" for k, v in c["setting"].items()),
                     "games": f"{c['games']:,}",
                     "first-player advantage (points)": _pts(c["first_player_advantage"],
                                                             scale),
                     "turns": f"{ln['estimate']:.1f} [{ln['ci_low']:.1f}, {ln['ci_high']:.1f}]",
                     "meets the target": {True: "yes", False: "no"}.get(c.get("meets_target"),
                                                                        "-"),
                     "which": ", ".join(notes)})
    return pd.DataFrame(rows)


def trials_frame(folder: Path, scale: float = 1.0) -> pd.DataFrame | None:
    """Every trial of the search (trials.parquet) for people: measures of shares in
    points (``scale`` 100 for a search that recorded shares), lengths in turns."""
    path = Path(folder) / "trials.parquet"
    if not path.is_file():
        return None
    t = pd.read_parquet(path)
    out = pd.DataFrame({"trial": t["trial"].astype(str)})
    for c in t.columns:
        if c in ("trial", "refused") or c.startswith("objective:"):
            continue
        if c.startswith("measure:"):
            name = c[8:]
            turns = name.startswith("length")
            out[name + (" (turns)" if turns else " (points)")] = [
                "-" if v != v else f"{v:.1f}" if turns else f"{scale * v:+.2f}"
                for v in t[c]]
        else:
            out[c] = t[c].astype(str)
    if "refused" in t and (t["refused"] != "").any():
        out["refused"] = t["refused"].astype(str)
    return out


def balance_section(doc, folder: Path, summary: dict, prefix: str = "") -> None:
    """A balancing search's part of a report: the verdict, the confirmed settings, the
    search's figure and every trial (folded)."""
    keys = ", ".join(d["key"] for d in summary.get("vary") or []) or "?"
    doc.heading(f"Balance: {keys} ({summary['game']}, {summary['players']} players)", 2,
                anchor=f"{prefix}balance")
    doc.verdicts(summary.get("verdicts") or [])
    today = ", ".join(f"{k}={v}" for k, v in (summary.get("today") or {}).items())
    scale = _scale(summary)
    doc.para(f"{summary.get('trials_played', '?')} trials of {summary.get('games', 0):,} games "
             f"on common seeds ({summary.get('sampler', '?')}), objectives "
             f"{', '.join(summary.get('objectives') or [])}, target "
             f"±{_points(scale * summary.get('target', 0))}; today's data: {today or '?'}. "
             f"The best settings played again on {summary.get('confirm_games', 0):,} fresh "
             f"games each. Folder: {folder}.", cls="meta")
    confirmed = confirmed_frame(summary)
    if len(confirmed):
        doc.table(confirmed, caption="Confirmed on fresh seeds (95% intervals)")
    png = Path(folder) / "trials.png"
    if png.is_file():
        doc.image(png.read_bytes(), f"{prefix}balance_trials.png",
                  "the balancing search: each trial's distance to the objective")
    trials = trials_frame(folder, scale)
    if trials is not None:
        doc.details(f"All {len(trials)} trials (on the search's common seeds)", trials)


# ---------------------------------------------------------------------------------------------
# training


def training_frame(summary: dict) -> pd.DataFrame:
    rows = []
    for g in summary.get("generations") or []:
        last, stick = g.get("vs_last") or {}, g.get("yardstick") or {}
        rows.append({
            "generation": str(g.get("generation")), "self-play games": f"{g.get('games', 0):,}",
            "loss": f"{g['loss']:.4f}" if g.get("loss") is not None else "-",
            "score against the last accepted": f"{last['score']:.3f}" if last else "-",
            "accepted": "yes" if g.get("accepted") else "no",
            "against the yardstick": (f"{stick['strategy']}: won {stick['win_rate']:.1%} of "
                                      f"{stick['games']:,}") if stick else "-"})
    return pd.DataFrame(rows)


def training_section(doc, folder: Path, summary: dict, prefix: str = "") -> None:
    """A training folder's part of a report: its generations."""
    spec = summary.get("spec") or {}
    doc.heading(f"Training: {summary['game']}, {summary['players']} players", 2,
                anchor=f"{prefix}training")
    doc.para(f"{len(summary.get('generations') or [])} generations, "
             f"{summary.get('games', 0):,} self-play games; generation "
             f"{summary.get('accepted', '?')} is the one accepted last (the model). Seed "
             f"{spec.get('seed', '?')}. Folder: {folder} (docs/learning.md).", cls="meta")
    frame = training_frame(summary)
    if len(frame):
        doc.table(frame, caption="Each generation: its self-play, its fit's loss, its match "
                                 "against the last accepted generation, and its yardstick")
