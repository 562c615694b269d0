"""The figures of sweeps, sensitivity runs and balancing (``simkit.explore`` plays them):
each point's outcomes with intervals, paired differences on the common seeds, verdicts,
charts and report sections.

Measures of a set of games (``measure``):

- ``seat-spread``: the largest seat's score share minus the smallest (0 when fair);
- ``first-player-advantage``: seat 1's score share minus the mean share of all seats;
- ``length``: mean turns;
- ``item:NAME``: the item's value, win rate when it occurred minus when not.

A difference between two points is *paired* on the same games (by index, on the same
seeds), which removes the luck the points share. For a mean of per-game values (the
first-player advantage, length) it is the t interval of the per-game differences, as
``simkit whatif``; the seat spread (a maximum minus a minimum of means) is resampled: the
same games weighted alike in each of 250 Poisson bootstrap resamples with a fixed seed,
whose standard error gives a normal interval and p-value. Item value has nothing to pair
(its seat-games differ), so its difference uses the two points' independent standard
errors, as ``simkit whatif`` does.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
from simkit.reports import analysis as A
from simkit.reports import stats as st
from simkit.reports import verdict as V
from simkit.reports.ladder import _pct, _pts

from simkit.results import read_games, read_meta

BOOTSTRAP = 250
"""Bootstrap resamples of a seat-spread difference: its standard error to within about 5%."""


def _load(folder: Path) -> tuple[pd.DataFrame, dict]:
    meta = read_meta(folder)
    return read_games(folder, meta), meta


def _share(games: pd.DataFrame, players: int) -> np.ndarray:
    return A._results(games, players)[2]


def run_widths(folder: Path) -> dict[str, float]:
    """The 95% half-widths that ``--precision`` bounds: every seat's win rate (Wilson) and
    the first-player advantage (t)."""
    games, meta = _load(folder)
    p = int(meta["players"])
    won, _, share = A._results(games, p)
    n = len(games)
    out = {}
    for s in range(p):
        lo, hi = st.wilson(int(won[:, s].sum()), n)
        out[f"seat {s + 1} win rate"] = float(hi - lo) / 2
    f = st.mean_ci(st._fpa_per_game(share))
    out["first-player advantage"] = (f["ci_high"] - f["ci_low"]) / 2 \
        if f["ci_high"] == f["ci_high"] else math.inf
    return out


def measure_of(measure: str, games: pd.DataFrame, players: int, items=None,
               meta: dict | None = None) -> float:
    """``measure`` (see the module docstring) of a set of games."""
    if measure == "seat-spread":
        m = _share(games, players).mean(axis=0)
        return float(m.max() - m.min())
    if measure == "first-player-advantage":
        return float(st._fpa_per_game(_share(games, players)).mean())
    if measure == "length":
        return float(games["turns"].mean())
    if measure.startswith("item:"):
        v = A.item_value(games, meta, items)
        row = v[v["item"] == measure[5:]]
        return float(row["difference"].iloc[0]) if len(row) else math.nan
    raise ValueError(measure)


def _per_game(measure: str, games: pd.DataFrame, players: int) -> np.ndarray:
    """Per-game columns whose column means give the measure: shares [G, P] or turns [G, 1]."""
    if measure == "length":
        return games["turns"].to_numpy(float)[:, None]
    return _share(games, players)


def _from_means(measure: str, means: np.ndarray) -> np.ndarray:
    """The measure from per-game column means (rows: resamples)."""
    if measure == "seat-spread":
        return means.max(axis=-1) - means.min(axis=-1)
    if measure == "first-player-advantage":
        return means[..., 0] - means.mean(axis=-1)
    return means[..., 0]


def paired_difference(measure: str, base: pd.DataFrame, changed: pd.DataFrame, players: int,
                      base_items=None, changed_items=None, base_meta=None,
                      changed_meta=None, seed: int = 0) -> dict:
    """``measure(changed) - measure(base)`` on the games both played, with a 95% interval
    and p-value (paired bootstrap, or independent errors for item value)."""
    if measure.startswith("item:"):
        vb = A.item_value(base, base_meta, base_items)
        vc = A.item_value(changed, changed_meta, changed_items)
        rb, rc = vb[vb["item"] == measure[5:]], vc[vc["item"] == measure[5:]]
        if not len(rb) or not len(rc):
            return {"base": math.nan, "changed": math.nan, "difference": math.nan,
                    "se": math.nan, "ci_low": math.nan, "ci_high": math.nan,
                    "p_value": math.nan}
        b, c = float(rb["difference"].iloc[0]), float(rc["difference"].iloc[0])
        se = math.hypot(*(A._item_se(r.iloc[0]) for r in (rb, rc)))
    else:
        pb, pc = A._pair(base, changed)
        xb, xc = _per_game(measure, pb, players), _per_game(measure, pc, players)
        b = float(_from_means(measure, xb.mean(axis=0)))
        c = float(_from_means(measure, xc.mean(axis=0)))
        if measure in ("first-player-advantage", "length"):  # a mean of per-game values:
            # the paired t interval of the per-game differences, as simkit whatif
            def per_game(x):
                return x[:, 0] - x.mean(axis=1) if measure != "length" else x[:, 0]

            r = st.mean_ci(per_game(xc) - per_game(xb))
            return {"base": b, "changed": c, "difference": r["mean"], "se": r["se"],
                    "ci_low": r["ci_low"], "ci_high": r["ci_high"], "p_value": r["p_value"]}
        se = _bootstrap_se(measure, xb, xc, seed)
    d = c - b
    if not se > 0:
        lo = hi = d
        p = 1.0 if d == 0 else 0.0
    else:
        lo, hi = d - st.Z95 * se, d + st.Z95 * se
        p = st._normal_two_sided_p(d / se)
    return {"base": b, "changed": c, "difference": d, "se": se, "ci_low": lo, "ci_high": hi,
            "p_value": p}


def _bootstrap_se(measure: str, xb: np.ndarray, xc: np.ndarray, seed: int) -> float:
    """The standard error of ``measure(xc) - measure(xb)`` over games resampled together:
    a Poisson bootstrap (each game weighted by a Poisson(1) count, the same for both),
    ``BOOTSTRAP`` resamples in blocks of bounded memory, with a fixed seed."""
    rng = np.random.default_rng(seed)
    n = len(xb)
    block = max(1, min(BOOTSTRAP, 4_000_000 // max(n, 1)))
    xb32, xc32 = xb.astype(np.float32), xc.astype(np.float32)
    diffs = np.empty(BOOTSTRAP)
    for i in range(0, BOOTSTRAP, block):
        w = rng.poisson(1.0, (min(block, BOOTSTRAP - i), n)).astype(np.float32)
        total = np.maximum(w.sum(axis=1, keepdims=True), 1.0)
        mb, mc = (w @ xb32) / total, (w @ xc32) / total
        diffs[i:i + len(w)] = _from_means(measure, mc) - _from_means(measure, mb)
    return float(diffs.std(ddof=1))


def point_figures(folder: Path, fair: float) -> dict:
    """A point's summary: every table of ``reports.summary`` (seats, first-player
    advantage, length, endings, items), as JSON rows."""
    from simkit.reports import summary as S
    from simkit.reports.feel import compact

    games, meta = _load(folder)
    items = folder / "items.parquet"
    trace = folder / "trace.parquet"
    t = S.tables(games, meta, items if items.is_file() else None, fair,
                 trace if trace.is_file() else None)
    return {"games": len(games), "seats": S.records(t["seats"]), "feel": compact(t["feel"]),
            "first_player_advantage": S.records(t["fpa"])[0],
            "length": S.records(t["length"]), "endings": S.records(t["endings"]),
            "items": S.records(t["items"]), "verdicts": [v.as_dict() for v in t["verdicts"]],
            "precision": meta.get("precision")}


def summarise(out: Path, doc: dict, fair: float = V.DEFAULT_FAIR) -> dict:
    spec = doc["spec"]
    if doc["kind"] == "sweep":
        return _sweep_summary(Path(out), spec, fair)
    return _sensitivity_summary(Path(out), spec, doc.get("skipped", []))


# ---------------------------------------------------------------------------------------------
# sweeps


def _sweep_summary(out: Path, spec: dict, fair: float) -> dict:
    points = []
    for pt in spec["points"]:
        fig = point_figures(out / pt["folder"], fair)
        points.append({"index": pt["index"], "changes": pt["changes"],
                       "folder": pt["folder"], **fig})
    keys = list(spec["varies"])
    steps = []
    if len(keys) == 1:  # paired differences of neighbouring points
        p = int(spec["players"])
        loaded = [_load(out / pt["folder"]) for pt in spec["points"]]
        for a, b, (ga, _), (gb, _) in zip(points, points[1:], loaded, loaded[1:],
                                          strict=False):
            d = paired_difference("first-player-advantage", ga, gb, p, seed=spec["seed"])
            steps.append({"from": a["changes"][keys[0]], "to": b["changes"][keys[0]],
                          "measure": "first-player-advantage", **d})
    verdicts = sweep_verdicts(keys, points, steps, fair)
    if len(keys) == 1 and spec.get("trace"):
        from simkit.reports.feel import trend_sentence

        labelled = [{"label": f"{keys[0]}={pt['changes'][keys[0]]}", **pt} for pt in points]
        trend = trend_sentence(labelled, f"As {keys[0]} grows", "the first point",
                               "the last")
        if trend:
            verdicts.append(trend)
    verdicts = [V.qualify(v, spec["strategies"]) for v in verdicts]
    return V.clean({"kind": "sweep", "game": spec["game"], "players": spec["players"],
                    "strategies": spec["strategies"], "games": spec["games"],
                    "master_seed": spec["seed"], "keys": keys, "points": points,
                    "steps": steps, "verdicts": verdicts})


def _fpa(pt: dict) -> tuple[float, float, float]:
    f = pt["first_player_advantage"]
    return f["advantage"], f["ci_low"], f["ci_high"]


def sweep_verdicts(keys: list[str], points: list[dict], steps: list[dict],
                   fair: float) -> list[str]:
    out = []

    def at(pt):
        return ", ".join(f"{k}={pt['changes'][k]}" for k in keys)

    best = min(points, key=lambda pt: abs(_fpa(pt)[0]))
    a, lo, hi = _fpa(best)
    out.append(f"First-player advantage is closest to zero at {at(best)}: "
               f"{100 * a:+.1f} points [{100 * lo:+.1f}, {100 * hi:+.1f}]"
               + (" (fair within the interval)" if lo <= 0 <= hi else "") + ".")
    if len(keys) == 1:
        for x, y in zip(points, points[1:], strict=False):
            (ax, lx, hx), (ay, ly, hy) = _fpa(x), _fpa(y)
            if ax * ay < 0:
                sure = (hx < 0 < ly) or (lx > 0 > hy)
                out.append(f"First-player advantage crosses zero between {keys[0]}="
                           f"{x['changes'][keys[0]]} and {y['changes'][keys[0]]} "
                           f"({100 * ax:+.1f} to {100 * ay:+.1f} points"
                           + (", both intervals clear of zero)" if sure else
                              "; the intervals overlap zero)") + ".")
        moved = [s for s in steps if s["ci_low"] > 0 or s["ci_high"] < 0]
        if steps and not moved:
            out.append(f"No step of {keys[0]} moves the first-player advantage detectably "
                       "(paired 95% intervals all hold zero).")
    fair_points = [pt for pt in points if _fpa(pt)[1] >= -fair and _fpa(pt)[2] <= fair]
    if fair_points:
        out.append(f"Balanced within ±{100 * fair:.0f} point (the whole interval): "
                   + "; ".join(at(pt) for pt in fair_points[:6]) + ".")
    return out


def sweep_frame(summary: dict) -> pd.DataFrame:
    rows = []
    for pt in summary["points"]:
        f = pt["first_player_advantage"]
        row = {k: pt["changes"][k] for k in summary["keys"]}
        row["games"] = f"{pt['games']:,}"
        row["first-player advantage"] = _pts(f["advantage"], f["ci_low"], f["ci_high"])
        for s in pt["seats"]:
            row[f"{s['name']} wins"] = _pct(s["win_rate"], s["win_low"], s["win_high"])
        ties = [e for e in pt["endings"] if e["kind"] == "outcome" and e["name"] == "tie"]
        row["ties"] = _pct(ties[0]["share"], ties[0]["ci_low"], ties[0]["ci_high"]) \
            if ties else "-"
        turns = next(x for x in pt["length"] if x["measure"] == "turns")
        row["turns"] = f"{turns['mean']:.1f}"
        ends = [e for e in pt["endings"] if e["kind"] == "end reason" and e["share"]]
        if ends:
            top = max(ends, key=lambda e: e["share"])
            row["most games end by"] = f"{top['name']} ({top['share']:.0%})"
        if pt.get("precision"):
            row["stopped by"] = pt["precision"]["stopped_by"]
        rows.append(row)
    return pd.DataFrame(rows)


def sweep_text(summary: dict) -> str:
    lines = [f"{summary['game']}, {summary['players']} players: a sweep of "
             f"{', '.join(summary['keys'])} over {len(summary['points'])} points, "
             f"{summary['games']:,} games each on the same seeds", "Verdict"]
    lines += [f"  {v}" for v in summary["verdicts"]]
    lines += ["  " + x for x in sweep_frame(summary).to_string(index=False).splitlines()]
    if summary["steps"]:
        lines.append("Paired change of the first-player advantage between neighbours (points)")
        for s in summary["steps"]:
            lines.append(f"  {s['from']} -> {s['to']}: {100 * s['difference']:+.2f} "
                         f"[{100 * s['ci_low']:+.2f}, {100 * s['ci_high']:+.2f}]")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# sensitivity


def _sensitivity_summary(out: Path, spec: dict, skipped: list) -> dict:
    from statsmodels.stats.multitest import multipletests

    p = int(spec["players"])
    measure = spec["measure"]
    pts = spec["points"]
    base = next(x for x in pts if x["role"] == "base")
    gb, mb = _load(out / base["folder"])
    ib = out / base["folder"] / "items.parquet"
    base_value = measure_of(measure, gb, p, ib, mb)
    rows = []
    for pt in pts:
        if pt["role"] == "base":
            continue
        gc, mc = _load(out / pt["folder"])
        (key, value), = pt["changes"].items()
        d = paired_difference(measure, gb, gc, p, ib, out / pt["folder"] / "items.parquet",
                              mb, mc, seed=spec["seed"])
        rows.append({"key": key, "direction": pt["role"], "value": value, **d,
                     "folder": pt["folder"]})
    if rows:
        ps = [r["p_value"] if r["p_value"] == r["p_value"] else 1.0 for r in rows]
        reject, adjusted, _, _ = multipletests(ps, alpha=0.05, method="holm")
        for r, rej, adj in zip(rows, reject, adjusted, strict=True):
            r["p_holm"] = float(adj)
            r["moves"] = bool(rej)
    keys = {}
    for r in rows:
        k = keys.setdefault(r["key"], {"key": r["key"], "today": None, "effect": 0.0,
                                       "moves": False})
        k[r["direction"]] = r
        k["effect"] = max(k["effect"], abs(r["difference"]))
        k["moves"] = k["moves"] or r["moves"]
    ranked = sorted(keys.values(), key=lambda k: -k["effect"])
    verdicts = []
    movers = [k for k in ranked if k["moves"]]
    unit = "points" if measure != "length" and not measure.startswith("item") else ""
    scale = 100 if measure != "length" else 1
    if movers:
        verdicts.append(f"{len(movers)} of {len(ranked)} numbers move the {measure} "
                        "detectably (Holm-corrected 95%): " + ", ".join(
                            f"{k['key']} (up to {scale * k['effect']:.1f} {unit})".replace(
                                " )", ")") for k in movers[:8]) + ".")
    else:
        verdicts.append(f"No number moves the {measure} detectably at one step "
                        f"(Holm-corrected, {len(ranked)} numbers).")
    still = [k["key"] for k in ranked if not k["moves"]]
    if still:
        verdicts.append(f"{len(still)} numbers show no detectable effect: "
                        + ", ".join(still[:12]) + (" ..." if len(still) > 12 else "") + ".")
    verdicts = [V.qualify(v, spec["strategies"]) for v in verdicts]
    return V.clean({"kind": "sensitivity", "game": spec["game"], "players": p,
                    "strategies": spec["strategies"], "games": spec["games"],
                    "master_seed": spec["seed"], "measure": measure, "base": base_value,
                    "effects": rows, "ranked": [{"key": k["key"], "largest_effect":
                                                k["effect"], "moves": k["moves"]}
                                               for k in ranked],
                    "skipped": skipped, "verdicts": verdicts})


def sensitivity_frame(summary: dict) -> pd.DataFrame:
    scale = 1 if summary["measure"] == "length" else 100
    rows = []
    order = {k["key"]: i for i, k in enumerate(summary["ranked"])}
    for r in sorted(summary["effects"], key=lambda r: (order[r["key"]], r["direction"])):
        rows.append({"number": r["key"], "step": r["direction"], "value": r["value"],
                     "effect": f"{scale * r['difference']:+.2f}",
                     "95% interval": f"[{scale * r['ci_low']:+.2f}, {scale * r['ci_high']:+.2f}]",
                     "p (Holm)": f"{r['p_holm']:.3g}", "moves": "yes" if r["moves"] else ""})
    return pd.DataFrame(rows)


def sensitivity_text(summary: dict, top: int = 25) -> str:
    scale = 1 if summary["measure"] == "length" else 100
    lines = [f"{summary['game']}, {summary['players']} players: sensitivity of the "
             f"{summary['measure']} (today {scale * summary['base']:.2f}) to "
             f"{len(summary['ranked'])} numbers, each a step down and up, {summary['games']:,} "
             "paired games each", "Verdict"]
    lines += [f"  {v}" for v in summary["verdicts"]]
    frame = sensitivity_frame(summary)
    lines += ["  " + x for x in frame.head(2 * top).to_string(index=False).splitlines()]
    if summary["skipped"]:
        lines.append(f"  not played (refused by the game's own laws): "
                     f"{'; '.join(summary['skipped'][:5])}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# report sections


def sweep_section(doc, folder: Path, summary: dict, prefix: str = "") -> None:
    from simkit.reports import figures as F

    doc.heading(f"Sweep: {', '.join(summary['keys'])} ({summary['game']}, "
                f"{summary['players']} players)", 2, anchor=f"{prefix}sweep")
    doc.verdicts(summary["verdicts"])
    doc.para(f"{len(summary['points'])} points, {summary['games']:,} games each, all on the "
             f"same seeds (master seed {summary['master_seed']}); strategies "
             f"{', '.join(dict.fromkeys(summary['strategies']))}. Folder: {folder}.",
             cls="meta")
    doc.table(sweep_frame(summary), caption="Every point (95% intervals)")
    if len(summary["keys"]) == 1:
        doc.figure(F.sweep_line_figure(summary), f"{prefix}sweep.png", "sweep")
        key = summary["keys"][0]
        pts = [{"x": pt["changes"][key], "feel": pt.get("feel")} for pt in summary["points"]]
        if any((p["feel"] or {}).get("decisions") for p in pts):
            doc.figure(F.feel_by_figure(pts, key, f"How it plays against {key}"),
                       f"{prefix}sweep_feel.png", "feel metrics against the swept value")
    elif len(summary["keys"]) == 2:
        doc.figure(F.sweep_heatmap_figure(summary), f"{prefix}sweep.png", "sweep heatmap")


def sensitivity_section(doc, folder: Path, summary: dict, prefix: str = "") -> None:
    from simkit.reports import figures as F

    doc.heading(f"Sensitivity of the {summary['measure']} ({summary['game']}, "
                f"{summary['players']} players)", 2, anchor=f"{prefix}sensitivity")
    doc.verdicts(summary["verdicts"])
    doc.figure(F.tornado_figure(summary), f"{prefix}tornado.png", "tornado")
    doc.table(sensitivity_frame(summary), caption="Each number a step down and up, paired "
              "with the base on the same seeds (95% intervals; p corrected by Holm's method "
              "over every step)")
