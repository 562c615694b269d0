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

Whatever the measure, a sensitivity step also carries the signed first-player advantage at
both values and its paired change, and is marked when it changes which seat is ahead
(``seat_ahead_change``): an unsigned measure such as the seat spread can stay put while the
lead passes from one seat to the other.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
from simkit.reports import analysis as A
from simkit.reports import headline as H
from simkit.reports import stats as st
from simkit.reports import verdict as V
from simkit.reports.ladder import _pct, _pts

from simkit.errors import SimkitError
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
    if spec.get("assumptions"):  # sensitivity --assumptions: its own figures
        from simkit.reports.assumptions import summarise_assumptions

        return summarise_assumptions(Path(out), spec, doc.get("skipped", []), fair)
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
    summary = V.clean({"kind": "sweep", "headline": None, "game": spec["game"],
                       "players": spec["players"], "strategies": spec["strategies"],
                       "games": spec["games"], "master_seed": spec["seed"], "keys": keys,
                       "today": today_values(out / spec["points"][0]["folder"], keys,
                                             spec.get("overrides")),
                       "points": points, "steps": steps, "verdicts": verdicts})
    summary["headline"] = [H.sweep_headline(summary, fair)]
    return summary


def today_values(point: Path, keys: list[str], base: dict | None = None) -> dict:
    """Each key's value before the exploration changed it: the game's data (a point's
    run.json records each default) with the exploration's own --set (``base``); a key the
    run does not record is left out."""
    meta = read_meta(point)
    params, over = meta.get("params") or {}, base or {}
    out = {}
    for k in keys:
        p = params.get(k)
        if isinstance(p, dict) and "default" in p:
            out[k] = over.get(k, p["default"])
    return out


def _with_today(folder: Path, summary: dict) -> dict:
    """``summary`` with today's values, read from its first point when an older simkit
    wrote it without them."""
    if "today" in summary or not summary.get("points"):
        return summary
    try:
        import json

        spec = json.loads((Path(folder) / "explore.json").read_text(encoding="utf-8"))["spec"]
        today = today_values(Path(folder) / summary["points"][0]["folder"], summary["keys"],
                             spec.get("overrides"))
    except (OSError, ValueError, KeyError, TypeError, SimkitError):
        today = {}  # an unreadable point: the chart goes without the mark
    return {**summary, "today": today}


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
             f"{summary['games']:,} games each on the same seeds",
             *H.wrapped(summary.get("headline") or [H.sweep_headline(summary)]), "Verdict"]
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


def _fpa_interval(games: pd.DataFrame, players: int) -> tuple[float, float, float]:
    """A point's own first-player advantage (the run summary's t interval)."""
    r = st.mean_ci(st._fpa_per_game(_share(games, players)))
    return r["mean"], r["ci_low"], r["ci_high"]


def seat_ahead_change(base: tuple, changed: tuple, moved: bool) -> str | None:
    """Does a step change which seat is ahead (the sign of the first-player advantage)?
    ``base``, ``changed``: (advantage, ci_low, ci_high); ``moved``: the paired change's 95%
    interval excludes 0. "changes" when the two intervals lie on opposite sides of 0;
    "may change" when the estimates have opposite signs and something is known (one
    interval clear of 0, or a paired change that is real); None otherwise, including a
    sign that only wobbles around a fair game."""
    (b, bl, bh), (c, cl, ch) = base, changed
    if not b * c < 0:
        return None
    if (bl > 0 and ch < 0) or (bh < 0 and cl > 0):
        return "changes"
    if moved or bl > 0 or bh < 0 or cl > 0 or ch < 0:
        return "may change"
    return None


def _fairer(base: tuple, steps: list[dict]) -> dict:
    """The direction of a number whose first-player advantage is closest to 0: a step (its
    role and value; ``detectable`` when its paired change runs toward 0 with a 95% interval
    clear of 0 and does not overshoot to the other seat for sure), or "today" when neither
    step comes closer."""
    b = base[0]
    closer = [r for r in steps if abs(r["fpa"]["changed"]) < abs(b)]
    if not closer:
        return {"direction": "today"}
    r = min(closer, key=lambda r: abs(r["fpa"]["changed"]))
    f = r["fpa"]
    toward = (f["ci_high"] < 0 < b) or (f["ci_low"] > 0 > b)
    return {"direction": r["direction"], "value": r["value"], "advantage": f["changed"],
            "ci_low": f["changed_low"], "ci_high": f["changed_high"],
            "detectable": bool(toward and r["ahead"] != "changes")}


def _holm(rows: list[dict], p_of, put) -> None:
    from statsmodels.stats.multitest import multipletests

    if not rows:
        return
    ps = [p if (p := p_of(r)) == p else 1.0 for r in rows]
    reject, adjusted, _, _ = multipletests(ps, alpha=0.05, method="holm")
    for r, rej, adj in zip(rows, reject, adjusted, strict=True):
        put(r, float(adj), bool(rej))


def _sensitivity_summary(out: Path, spec: dict, skipped: list) -> dict:
    p = int(spec["players"])
    measure = spec["measure"]
    pts = spec["points"]
    base = next(x for x in pts if x["role"] == "base")
    gb, mb = _load(out / base["folder"])
    ib = out / base["folder"] / "items.parquet"
    base_value = measure_of(measure, gb, p, ib, mb)
    base_fpa = _fpa_interval(gb, p)
    rows = []
    for pt in pts:
        if pt["role"] == "base":
            continue
        gc, mc = _load(out / pt["folder"])
        (key, value), = pt["changes"].items()
        d = paired_difference(measure, gb, gc, p, ib, out / pt["folder"] / "items.parquet",
                              mb, mc, seed=spec["seed"])
        # the signed first-player advantage beside the measure: a spread (unsigned) can stay
        # put while the advantage changes sign, i.e. the other seat comes out ahead
        f = paired_difference("first-player-advantage", gb, gc, p)
        a, lo, hi = _fpa_interval(gc, p)
        fpa = {"base": base_fpa[0], "base_low": base_fpa[1], "base_high": base_fpa[2],
               "changed": a, "changed_low": lo, "changed_high": hi,
               "difference": f["difference"], "ci_low": f["ci_low"], "ci_high": f["ci_high"],
               "p_value": f["p_value"]}
        ahead = seat_ahead_change(base_fpa, (a, lo, hi), f["ci_low"] > 0 or f["ci_high"] < 0)
        rows.append({"key": key, "direction": pt["role"], "value": value, **d, "fpa": fpa,
                     "ahead": ahead, "folder": pt["folder"]})
    _holm(rows, lambda r: r["p_value"], lambda r, adj, rej: r.update(p_holm=adj, moves=rej))
    _holm(rows, lambda r: r["fpa"]["p_value"],
          lambda r, adj, rej: r["fpa"].update(p_holm=adj, moves=rej))
    keys = {}
    for r in rows:
        k = keys.setdefault(r["key"], {"key": r["key"], "today": None, "effect": 0.0,
                                       "moves": False, "fpa_moves": False, "ahead": None,
                                       "steps": []})
        k[r["direction"]] = r
        k["steps"].append(r)
        k["effect"] = max(k["effect"], abs(r["difference"]))
        k["moves"] = k["moves"] or r["moves"]
        k["fpa_moves"] = k["fpa_moves"] or r["fpa"]["moves"]
        if r["ahead"] == "changes" or (r["ahead"] and not k["ahead"]):
            k["ahead"] = r["ahead"]
    today = today_values(out / base["folder"], list(keys), spec.get("overrides"))
    for k in keys.values():
        k["fairer"] = _fairer(base_fpa, k["steps"])
    ranked = sorted(keys.values(), key=lambda k: -k["effect"])
    verdicts = _sensitivity_verdicts(measure, ranked, base_fpa, p)
    verdicts = [V.qualify(v, spec["strategies"]) for v in verdicts]
    return V.clean({"kind": "sensitivity", "game": spec["game"], "players": p,
                    "strategies": spec["strategies"], "games": spec["games"],
                    "master_seed": spec["seed"], "measure": measure, "base": base_value,
                    "first_player_advantage": {"advantage": base_fpa[0],
                                               "ci_low": base_fpa[1], "ci_high": base_fpa[2]},
                    "effects": rows, "ranked": [
                        {"key": k["key"], "today": today.get(k["key"]),
                         "largest_effect": k["effect"], "moves": k["moves"],
                         "fpa_moves": k["fpa_moves"], "ahead": k["ahead"],
                         "fairer": k["fairer"]} for k in ranked],
                    "skipped": skipped, "verdicts": verdicts})


def _changed(f: dict) -> str:
    """A changed first-player advantage with its interval, in points."""
    if "changed" in f:
        return _pts(f["changed"], f["changed_low"], f["changed_high"])
    return _pts(f["advantage"], f["ci_low"], f["ci_high"])


def _step_name(r: dict) -> str:
    return f"{r['key']} {'down' if r['direction'] == 'down' else 'up'} to {r['value']}"


def _numbers(n: int) -> str:
    return "1 number moves" if n == 1 else f"{n} numbers move"


def _ahead_words(players: int) -> str:
    return "which seat is ahead" if players == 2 else \
        "whether seat 1 is ahead of or behind the average seat"


def _sensitivity_verdicts(measure: str, ranked: list[dict], base_fpa: tuple,
                          players: int) -> list[str]:
    """Seat changes first (a flip the measure can hide), then what moves the measure and
    the advantage, which way is fairer, and what shows nothing at all."""
    out = []
    b = _pts(*base_fpa)
    scale = 100 if measure != "length" else 1
    for k in [k for k in ranked if k["ahead"] == "changes"][:6]:
        r = next(r for r in k["steps"] if r["ahead"] == "changes")
        hidden = "" if r["moves"] or measure == "first-player-advantage" else (
            f"; the {measure} does not show it ({scale * r['difference']:+.2f} "
            f"[{scale * r['ci_low']:+.2f}, {scale * r['ci_high']:+.2f}])")
        out.append(f"{k['key']} changes {_ahead_words(players)}: one step "
                   f"{r['direction']} (to {r['value']}) turns the first-player advantage from "
                   f"{b} to {_changed(r['fpa'])} points (both 95% intervals clear of 0)"
                   f"{hidden}.")
    maybe = [k for k in ranked if k["ahead"] == "may change"]
    if maybe:
        parts = []
        for k in maybe[:8]:
            r = next(r for r in k["steps"] if r["ahead"] == "may change")
            parts.append(f"{_step_name(r)} ({b} to {_changed(r['fpa'])})")
        out.append(f"May change {_ahead_words(players)} (the estimates change sign, the "
                   "intervals do not settle it): " + "; ".join(parts)
                   + (" ..." if len(maybe) > 8 else "") + ".")
    movers = [k for k in ranked if k["moves"]]
    unit = "points" if measure != "length" and not measure.startswith("item") else ""
    if movers:
        out.append(f"{len(movers)} of {len(ranked)} numbers move the {measure} "
                   "detectably (Holm-corrected 95%): " + ", ".join(
                       f"{k['key']} (up to {scale * k['effect']:.1f} {unit})".replace(
                           " )", ")") for k in movers[:8]) + ".")
    else:
        out.append(f"No number moves the {measure} detectably at one step "
                   f"(Holm-corrected, {len(ranked)} numbers).")
    if measure != "first-player-advantage":
        also = [k["key"] for k in ranked if k["fpa_moves"] and not k["moves"]]
        if also:
            out.append(f"{_numbers(len(also))} the first-player advantage detectably "
                       f"though not the {measure}: " + ", ".join(also[:10])
                       + (" ..." if len(also) > 10 else "") + ".")
    fairer = [k for k in ranked if k["fairer"]["direction"] != "today"
              and k["fairer"]["detectable"]]
    if fairer:
        out.append(f"Fairer (first-player advantage closer to 0 than today's {b} points): "
                   + "; ".join(f"{k['key']} {k['fairer']['direction']} to "
                               f"{k['fairer']['value']} ({_changed(k['fairer'])})"
                               for k in fairer[:8]) + (" ..." if len(fairer) > 8 else "")
                   + "; no other number is detectably fairer a step either way.")
    else:
        out.append(f"No number's step brings the first-player advantage (today {b} points) "
                   "detectably closer to 0.")
    still = [k["key"] for k in ranked if not (k["moves"] or k["fpa_moves"] or k["ahead"])]
    if still:
        out.append(f"{len(still)} number{'s' * (len(still) != 1)} show"
                   f"{'s' * (len(still) == 1)} no detectable effect (on the {measure} or the "
                   "first-player advantage, and no change of seat): "
                   + ", ".join(still[:12]) + (" ..." if len(still) > 12 else "") + ".")
    return out


def _fairer_mark(r: dict, keys: dict) -> str:
    f = keys[r["key"]]["fairer"]
    if f["direction"] != r["direction"]:
        return ""
    return "yes" if f["detectable"] else "by estimate"


def _signed(x: float) -> str:
    """A signed figure to two places; a dash where there is none (never "+nan")."""
    return "\u2014" if x != x else f"{x:+.2f}"


def sensitivity_frame(summary: dict) -> pd.DataFrame:
    scale = 1 if summary["measure"] == "length" else 100
    rows = []
    order = {k["key"]: i for i, k in enumerate(summary["ranked"])}
    keys = {k["key"]: k for k in summary["ranked"]}
    for r in sorted(summary["effects"], key=lambda r: (order[r["key"]], r["direction"])):
        f = r["fpa"]
        rows.append({"number": r["key"], "step": r["direction"], "value": r["value"],
                     "effect": _signed(scale * r["difference"]),
                     "95% interval": f"[{_signed(scale * r['ci_low'])}, "
                                     f"{_signed(scale * r['ci_high'])}]"
                     if r["ci_low"] == r["ci_low"] else "\u2014",
                     "p (Holm)": st.p_text(r["p_holm"]),
                     "moves": "yes" if r["moves"] else "",
                     "first-player advantage": _changed(f),
                     "seat ahead": r["ahead"] or "",
                     "fairer than today": _fairer_mark(r, keys)})
    return pd.DataFrame(rows)


def sensitivity_text(summary: dict, top: int = 25) -> str:
    scale = 1 if summary["measure"] == "length" else 100
    f = summary.get("first_player_advantage") or {}
    fpa = f"; first-player advantage {_changed(f)} points" if f else ""
    lines = [f"{summary['game']}, {summary['players']} players: sensitivity of the "
             f"{summary['measure']} (today {scale * summary['base']:.2f}{fpa}) to "
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


def sweep_section(doc, folder: Path, summary: dict, prefix: str = "",
                  fair: float = V.DEFAULT_FAIR) -> None:
    from simkit.reports import figures as F

    doc.heading(f"Sweep: {', '.join(summary['keys'])} ({summary['game']}, "
                f"{summary['players']} players)", 2, anchor=f"{prefix}sweep")
    doc.headline(summary.get("headline") or [H.sweep_headline(summary, fair)])
    doc.folded_verdicts(summary["verdicts"])
    doc.para(f"{len(summary['points'])} points, {summary['games']:,} games each, all on the "
             f"same seeds (master seed {summary['master_seed']}); strategies "
             f"{', '.join(dict.fromkeys(summary['strategies']))}. Folder: {folder}.",
             cls="meta")
    today = _with_today(folder, summary).get("today") or {}
    marks = [bool(today) and all(pt["changes"][k] == today.get(k) for k in summary["keys"])
             for pt in summary["points"]]
    doc.table(sweep_frame(summary), caption="Every point (95% intervals)" + (
        "; highlighted: today's value (" + ", ".join(f"{k}={v}" for k, v in today.items())
        + ")" if any(marks) else "; today's value (" + ", ".join(
            f"{k}={v}" for k, v in today.items()) + ") is not among the points"
        if today else ""), highlight=marks)
    if len(summary["keys"]) == 1:
        doc.figure(F.sweep_line_figure(_with_today(folder, summary), fair),
                   f"{prefix}sweep.png", "sweep: first-player advantage in points, with the "
                   f"fair band (±{100 * fair:g} of 0) and today's value marked")
        key = summary["keys"][0]
        pts = [{"x": pt["changes"][key], "feel": pt.get("feel")} for pt in summary["points"]]
        if any((p["feel"] or {}).get("decisions") for p in pts):
            doc.figure(F.feel_by_figure(pts, key, f"How it plays against {key}"),
                       f"{prefix}sweep_feel.png", "feel metrics against the swept value")
    elif len(summary["keys"]) == 2:
        doc.figure(F.sweep_heatmap_figure(_with_today(folder, summary)), f"{prefix}sweep.png",
                   "sweep heatmap: first-player advantage in points, today's cell outlined")


def _with_fpa(folder: Path, summary: dict) -> dict:
    """``summary``, recomputed from the folder's runs when an older simkit wrote it without
    the signed first-player advantage of each step (so its report can show a seat change)."""
    import json

    if all("fpa" in r for r in summary["effects"]):
        return summary
    doc = json.loads((Path(folder) / "explore.json").read_text(encoding="utf-8"))
    return summarise(folder, doc)


def sensitivity_section(doc, folder: Path, summary: dict, prefix: str = "") -> None:
    from simkit.reports import figures as F

    if summary.get("assumptions"):
        from simkit.reports.assumptions import assumptions_section

        return assumptions_section(doc, folder, summary, prefix)
    summary = _with_fpa(folder, summary)

    doc.heading(f"Sensitivity of the {summary['measure']} ({summary['game']}, "
                f"{summary['players']} players)", 2, anchor=f"{prefix}sensitivity")
    doc.verdicts(summary["verdicts"])
    doc.figure(F.tornado_figure(summary), f"{prefix}tornado.png", "tornado")
    doc.table(sensitivity_frame(summary), caption="Each number a step down and up, paired "
              "with the base on the same seeds (95% intervals; p corrected by Holm's method "
              "over every step)")
