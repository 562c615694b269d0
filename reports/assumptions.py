"""The assumptions a game's verdicts rest on, weighed: the figures of ``simkit sensitivity
GAME --assumptions`` (``simkit.explore.make_assumptions`` plays them) and the table each game
ships (``simkit/games/<game>/assumptions.json``, written by ``benchmarks/assumptions.py``).

Every move of an assumed value (a number a step down and up, another choice, a boolean
flipped, an alternative the data names) is paired with the base on the same seeds, under the
game's strong player. Its effect is measured on the first-player advantage (points: seat 1's
score share minus the mean share) and on each seat's win rate (points), each a paired t
interval of the per-game differences (95%, per move, not corrected for the number of moves).
A move *matters* when one of those intervals lies wholly outside ``±fair``; the moves are
ranked by their largest effect. The shares of the end reasons at the base and at each move
are kept, so a note can say what an assumption does to how games end.
"""

from __future__ import annotations

import json
from pathlib import Path

from simkit import registry

# pandas, numpy and the statistics are imported where a table is computed, so that `simkit
# rules` reads the shipped table without them

TABLE = "assumptions.json"
"""A game's shipped table, in its package beside data.toml."""


def _seat_names(game: str, players: int) -> list[str]:
    spec = registry.get_game(game)
    names = spec.seat_names(players) if spec.seat_names else None
    return list(names) if names else [f"seat {s + 1}" for s in range(players)]


def _endings(games) -> dict[str, float]:
    """Each end reason's share of the games (0 to 1), most common first."""
    if "end_reason" not in games:
        return {}
    shares = games["end_reason"].astype(str).value_counts(normalize=True)
    return {str(k): float(v) for k, v in shares.items()}


def _paired(per_game_diff) -> dict:
    from simkit.reports import stats as st

    r = st.mean_ci(per_game_diff)
    return {"difference": 100 * r["mean"], "ci_low": 100 * r["ci_low"],
            "ci_high": 100 * r["ci_high"]}


def _outside(x: dict, fair_points: float) -> bool:
    """The 95% interval lies wholly outside ±fair (a NaN interval never does)."""
    return bool(x["ci_low"] > fair_points or x["ci_high"] < -fair_points)


def summarise_assumptions(out: Path, spec: dict, skipped: list, fair: float) -> dict:
    """summary.json of an ``--assumptions`` run in ``out`` (see the module docstring)."""
    from simkit.reports import analysis as A
    from simkit.reports import stats as st
    from simkit.reports import verdict as V
    from simkit.reports.explore import _load

    p, game = int(spec["players"]), spec["game"]
    params = registry.get_game(game).data
    names = _seat_names(game, p)
    pts = spec["points"]
    base = next(x for x in pts if x["role"] == "base")
    gb, mb = _load(out / base["folder"])
    won_b, _, share_b = A._results(gb, p)
    fpa_b = st.mean_ci(st._fpa_per_game(share_b))
    rows = []
    for pt in pts:
        if pt["role"] == "base":
            continue
        (key, value), = pt["changes"].items()
        gc, _ = _load(out / pt["folder"])
        pb, pc = A._pair(gb, gc)
        wb, _, sb = A._results(pb, p)
        wc, _, sc = A._results(pc, p)
        fpa = _paired(st._fpa_per_game(sc) - st._fpa_per_game(sb))
        seats = [{"seat": s + 1, "name": names[s], "base": 100 * float(wb[:, s].mean()),
                  **_paired(wc[:, s].astype(float) - wb[:, s].astype(float))}
                 for s in range(p)]
        effects = [fpa, *seats]
        q = params.get(key)
        rows.append({"key": key, "value": value, "role": pt["role"],
                     "today": None if q is None else q.value,
                     "why": "" if q is None else q.why,
                     "fpa": fpa, "seats": seats, "endings": _endings(gc),
                     "effect": max(abs(e["difference"]) for e in effects),
                     "matters": any(_outside(e, 100 * fair) for e in effects),
                     "folder": pt["folder"]})
    rows.sort(key=lambda r: -r["effect"] if r["effect"] == r["effect"] else 0)
    summary = {"kind": "sensitivity", "assumptions": True, "game": game, "players": p,
               "strategies": spec["strategies"], "games": spec["games"],
               "master_seed": spec["seed"], "measure": "first-player-advantage",
               "fair": 100 * fair, "units": "points (100 a share)",
               "data_digest": mb.get("data_digest"), "game_version": mb.get("game_version"),
               "base": {"fpa": {"advantage": 100 * fpa_b["mean"],
                                "ci_low": 100 * fpa_b["ci_low"],
                                "ci_high": 100 * fpa_b["ci_high"]},
                        "seats": [{"seat": s + 1, "name": names[s],
                                   "win_rate": 100 * float(won_b[:, s].mean())}
                                  for s in range(p)],
                        "endings": _endings(gb)},
               "effects": rows, "skipped": list(skipped),
               "unmoved": list(spec.get("unmoved") or [])}
    summary["verdicts"] = [V.qualify(v, spec["strategies"]) for v in _verdicts(summary)]
    return V.clean(summary)


def _move(r: dict) -> str:
    """``joining.hyzenthlay.appears "trigger" -> "Sandleford"``, ``max_turns 300 -> 301``."""
    def show(v):
        return f'"{v}"' if isinstance(v, str) else str(v).lower() if isinstance(v, bool) \
            else str(v)
    return f"{r['key']} {show(r['today'])} -> {show(r['value'])}"


def _figure(x: dict) -> str:
    return f"{x['difference']:+.1f} [{x['ci_low']:+.1f}, {x['ci_high']:+.1f}]"


def _moved_endings(base: dict, changed: dict, most: int = 3) -> list[tuple[str, float, float]]:
    """The end reasons whose share moves most (at least 2 points each), at most ``most``."""
    reasons = sorted(set(base) | set(changed))
    moved = [(r, base.get(r, 0.0), changed.get(r, 0.0)) for r in reasons]
    moved = [m for m in moved if abs(m[2] - m[1]) >= 0.02]
    return sorted(moved, key=lambda m: -abs(m[2] - m[1]))[:most]


def effect_sentence(r: dict, base_endings: dict | None = None) -> str:
    """One assumption's move and what it does, in points with 95% intervals, and the end
    reasons it moves most."""
    seats = max(r["seats"], key=lambda s: abs(s["difference"]))
    text = (f"{_move(r)} moves {seats['name']}'s win rate by {_figure(seats)} points "
            f"(first-player advantage {_figure(r['fpa'])})")
    ends = _moved_endings(base_endings or {}, r.get("endings") or {})
    if ends:
        text += "; games ending by " + ", ".join(
            f"{e[0].replace('_', ' ')} {e[1]:.1%} -> {e[2]:.1%}" for e in ends)
    return text


def _points(x: float) -> str:
    return f"{x:g} point{'' if x == 1 else 's'}"


def _verdicts(summary: dict) -> list[str]:
    fair = summary["fair"]
    rows = summary["effects"]
    matter = [r for r in rows if r["matters"]]
    keys = list(dict.fromkeys(r["key"] for r in rows))
    out = []
    if matter:
        out.append(f"{len(dict.fromkeys(r['key'] for r in matter))} of {len(keys)} assumed "
                   f"values move a seat's win rate or the first-player advantage by more than "
                   f"±{_points(fair)} (the whole 95% interval): "
                   + "; ".join(effect_sentence(r, summary["base"]["endings"])
                               for r in matter[:6]) + (" ..." if len(matter) > 6 else "") + ".")
    else:
        out.append(f"No assumed value's move shifts a seat's win rate or the first-player "
                   f"advantage beyond ±{_points(fair)} for sure ({len(keys)} values, "
                   f"{len(rows)} moves).")
    quiet = [k for k in keys if not any(r["matters"] for r in rows if r["key"] == k)]
    if quiet and matter:
        out.append(f"Within ±{_points(fair)} or not settled by {summary['games']:,} games: "
                   + ", ".join(quiet[:10]) + (" ..." if len(quiet) > 10 else "") + ".")
    if summary["unmoved"]:
        out.append(f"{len(summary['unmoved'])} assumed values of lists and records are not "
                   "moved (their data names no alternatives), e.g. "
                   + ", ".join(summary["unmoved"][:4]) + ".")
    return out


def _plain(v) -> str:
    """A value as data.toml writes it (true, not True)."""
    return str(v).lower() if isinstance(v, bool) else str(v)


def assumptions_frame(summary: dict):
    import pandas as pd

    rows = []
    for r in summary["effects"]:
        row = {"assumption": r["key"], "today": _plain(r["today"]),
               "moved to": _plain(r["value"]),
               "first-player advantage": _figure(r["fpa"])}
        for s in r["seats"]:
            row[f"{s['name']} wins"] = _figure(s)
        row["matters"] = "yes" if r["matters"] else ""
        rows.append(row)
    return pd.DataFrame(rows)


def assumptions_text(summary: dict) -> str:
    b = summary["base"]
    lines = [f"{summary['game']}, {summary['players']} players: the assumed values of the "
             f"data, each moved and paired with the base on {summary['games']:,} games "
             f"(strategies {', '.join(dict.fromkeys(summary['strategies']))}; first-player "
             f"advantage today {b['fpa']['advantage']:+.1f} [{b['fpa']['ci_low']:+.1f}, "
             f"{b['fpa']['ci_high']:+.1f}] points)", "Verdict"]
    lines += [f"  {v}" for v in summary["verdicts"]]
    lines.append("Each move's paired change in points (95% intervals), largest first")
    frame = assumptions_frame(summary)
    if len(frame):
        lines += ["  " + x for x in frame.to_string(index=False).splitlines()]
    if summary["skipped"]:
        lines.append(f"  not played (refused by the game's own laws): "
                     f"{'; '.join(summary['skipped'][:5])}")
    return "\n".join(lines)


def assumptions_section(doc, folder: Path, summary: dict, prefix: str = "") -> None:
    doc.heading(f"Assumptions weighed ({summary['game']}, {summary['players']} players)", 2,
                anchor=f"{prefix}assumptions")
    doc.verdicts(summary["verdicts"])
    doc.table(assumptions_frame(summary), caption="Each assumed value moved, paired with the "
              "base on the same seeds: change in points (95% intervals, per move)")


# ---------------------------------------------------------------------------------------------
# the shipped table


def table_path(game: str) -> Path:
    return Path(registry.get_game(game).data_path).parent / TABLE


def shipped_tables(game: str) -> dict[int, dict]:
    """The game's shipped tables by player count (``{"tables": {"2": table, ...}}`` in its
    assumptions.json); empty when it ships none (a plugin) or the file is unreadable."""
    try:
        doc = json.loads(table_path(game).read_text(encoding="utf-8"))
        return {int(k): v for k, v in doc["tables"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def shipped(game: str, players: int | None = None) -> dict | None:
    """The shipped table at ``players``, else at the fewest players measured; None when the
    game ships none."""
    tables = shipped_tables(game)
    if not tables:
        return None
    return tables.get(players) or tables[min(tables)]


def write_table(game: str, table: dict) -> Path:
    """``table`` into the game's assumptions.json, beside the tables of other player
    counts already there."""
    from simkit import folders

    tables = {str(k): v for k, v in shipped_tables(game).items()}
    tables[str(table["players"])] = table
    path = table_path(game)
    folders.write_json(path, {"kind": "assumptions", "game": game,
                              "tables": dict(sorted(tables.items()))})
    return path


def table_doc(summary: dict, command: str) -> dict:
    """The shipped table: an ``--assumptions`` summary without its folders, with the command
    that measured it."""
    doc = {k: v for k, v in summary.items() if k not in ("effects",)}
    doc["effects"] = [{k: v for k, v in r.items() if k != "folder"}
                      for r in summary["effects"]]
    doc["command"] = command
    return doc


def notes(game: str, digest: str | None, fair: float, whose: str = "this run's data",
          players: int | None = None) -> list[str]:
    """Sentences naming each assumption of the shipped table (at ``players``, else the
    fewest players measured) whose move lies wholly outside ±``fair`` (a share; the table's
    own intervals), with its measured effect; "measured at the default data" when ``whose``
    data (its ``digest``) differs from the table's."""
    table = shipped(game, players)
    if not table:
        return []
    f = 100 * fair
    rows = [r for r in table["effects"] if any(_outside(e, f) for e in [r["fpa"],
                                                                         *r["seats"]])]
    if not rows:
        return []
    where = ""
    if digest is not None and digest != table.get("data_digest"):
        from simkit import data

        default = data.data_digest(registry.get_game(game).data)
        where = "; measured at the default data" + (
            f", which {whose} differs from" if digest != default else
            f" of an earlier version: re-measure with {table.get('command')}")
    who = ", ".join(dict.fromkeys(table["strategies"]))
    by_key: dict[str, list[dict]] = {}
    for r in rows:
        by_key.setdefault(r["key"], []).append(r)
    out = []
    for key, rs in by_key.items():
        why = rs[0].get("why", "")
        out.append(f"Assumed, not in the rulebook: {key} ({why.rstrip('.')}). "
                   + "; ".join(effect_sentence(r, table["base"]["endings"]) for r in rs)
                   + f" ({table['games']:,} paired games a move, {who}, "
                   f"{table['players']} players{where}).")
    return out



def markdown(table: dict) -> str:
    """The shipped table as a markdown section for a game's NOTES.md."""
    b = table["base"]
    who = ", ".join(dict.fromkeys(table["strategies"]))
    lines = [f"Measured at the default data (digest `{table['data_digest']}`, VERSION "
             f"{table.get('game_version')}), {table['players']} players, {who} in every "
             f"seat, {table['games']:,} games a point on common seeds (master seed "
             f"{table['master_seed']}): `{table['command']}`. First-player advantage at the "
             f"default data {b['fpa']['advantage']:+.1f} [{b['fpa']['ci_low']:+.1f}, "
             f"{b['fpa']['ci_high']:+.1f}] points. Each cell is the paired change in points "
             "with its 95% interval; **matters**: an interval wholly outside ±"
             f"{table['fair']:g} point.", ""]
    frame = assumptions_frame(table)
    if len(frame):
        cols = list(frame.columns)
        lines.append("| " + " | ".join(cols) + " |")
        lines.append("| " + " | ".join("---" for _ in cols) + " |")
        for _, row in frame.iterrows():
            lines.append("| " + " | ".join(f"`{v}`" if c == "assumption" else str(v)
                                           for c, v in row.items()) + " |")
    if table["unmoved"]:
        lines += ["", f"Not moved: {len(table['unmoved'])} assumed values of lists and records "
                  "whose data names no alternatives."]
    if table["skipped"]:
        lines += ["", "Refused by the game's own laws: " + "; ".join(table["skipped"]) + "."]
    return "\n".join(lines)
