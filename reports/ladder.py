"""A ladder's figures, from its folder (``simkit.ladder`` plays it): ratings, the win matrix,
skill depth, and the game's balance at every level of skill; as JSON (``summarise``), text
(``ladder_text``) and a report section (``ladder_section``)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from simkit.reports import headline as H
from simkit.reports import ratings as R
from simkit.reports import summary as S
from simkit.reports import verdict as V

from simkit import folders, registry
from simkit.results import read_games, read_meta, seat_column

LEAD_COLUMNS = ("part", "run", "table")


def _runs(out: Path, doc: dict, part: str) -> list[tuple[dict, Path]]:
    return [(m, out / m["folder"]) for m in doc["schedule"] if m["part"] == part]


def _plain(table: pa.Table) -> pa.Table:
    """``table`` with its dictionary columns as plain strings (runs' dictionaries differ)."""
    cols = [c.cast(pa.string()) if pa.types.is_dictionary(c.type) else c
            for c in table.columns]
    return pa.table(cols, names=table.column_names)


def combine_games(out: Path, doc: dict) -> pd.DataFrame:
    """Every game of the ladder's runs, with ``part``, ``run`` and ``table`` first; written
    to ``out/games.parquet`` (whole or not at all) and returned."""
    parts = []
    for m in doc["schedule"]:
        folder = out / m["folder"]
        if not (folder / "games.parquet").is_file():
            continue
        t = _plain(pq.read_table(folder / "games.parquet"))
        n = t.num_rows
        lead = {"part": pa.array([m["part"]] * n), "run": pa.array([m["folder"]] * n),
                "table": pa.array(np.full(n, m["table"] + 1, np.int16))}
        parts.append(pa.table({**lead, **{c: t[c] for c in t.column_names}}))
    table = pa.concat_tables(parts) if parts else pa.table({})
    with folders.new_file(out / "games.parquet") as tmp:
        pq.write_table(table, tmp)
    return table.to_pandas()


def _seat_arrays(games: pd.DataFrame, names: list[str], players: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    index = {n: i for i, n in enumerate(names)}
    codes = np.stack([games[seat_column("strategy", s)].map(index).to_numpy(np.int64)
                      for s in range(1, players + 1)], axis=1)
    ranks = np.stack([games[seat_column("rank", s)].to_numpy(np.int64)
                      for s in range(1, players + 1)], axis=1)
    return codes, ranks


def _depth(fit: dict, names: list[str]) -> dict:
    """The rating gap from ``random`` (or the weakest level) to the strongest, and what each
    step of the ladder as given buys (with the Elo per doubling of budget where two levels
    are one search at two budgets)."""
    by = {r["strategy"]: r for r in fit["ratings"]}
    base = "random" if "random" in by else min(names, key=lambda n: by[n]["rating"])
    top = max(names, key=lambda n: by[n]["rating"])
    gap = R.rating_difference(fit, top, base)
    steps = []
    for a, b in zip(names, names[1:], strict=False):
        d = R.rating_difference(fit, b, a)
        row = {"from": a, "to": b, **d, "expected_score": R.expected_score(d["difference"])}
        (ba, na), (bb, nb) = registry.split_budget(a), registry.split_budget(b)
        if ba == bb and na and nb and na != nb:
            row["per_doubling"] = d["difference"] / math.log2(nb / na)
        steps.append(row)
    return {"from": base, "to": top, **gap, "steps": steps}


def _balance(out: Path, doc: dict, fit: dict, fair: float) -> list[dict]:
    """Each level's self-play summary (``reports.summary.tables``), with its rating and how
    the game plays at that level (``reports.feel``)."""
    from simkit.reports.feel import compact

    by = {r["strategy"]: r for r in fit["ratings"]}
    rows = []
    for m, folder in _runs(out, doc, "level"):
        meta = read_meta(folder)
        games = read_games(folder, meta)
        items = folder / "items.parquet"
        trace = folder / "trace.parquet"
        t = S.tables(games, meta, items if items.is_file() else None, fair,
                     trace if trace.is_file() else None)
        fpa = S.records(t["fpa"])[0]
        name = m["seats"][0]
        rows.append({
            "level": name, "rating": by[name]["rating"], "rating_low": by[name]["ci_low"],
            "rating_high": by[name]["ci_high"], "games": len(games),
            "fpa_half_width": (fpa["ci_high"] - fpa["ci_low"]) / 2
            if fpa["ci_high"] is not None else None,
            "first_player_advantage": fpa, "seats": S.records(t["seats"]),
            "teams": S.records(t["teams"]), "length": S.records(t["length"]),
            "endings": S.records(t["endings"]), "items": S.records(t["items"]),
            "verdicts": [v.as_dict() for v in t["verdicts"]], "folder": m["folder"],
            "feel": compact(t["feel"])})
    return rows


def _verdicts(fit: dict, depth: dict, balance: list[dict]) -> list[str]:
    out = []
    lo, hi = depth["ci_low"], depth["ci_high"]
    if lo > 0:
        out.append(f"Skill wins: {depth['to']} is rated {depth['difference']:.0f} "
                   f"[{lo:.0f}, {hi:.0f}] Elo above {depth['from']} (an expected score of "
                   f"{R.expected_score(depth['difference']):.1%} at two players).")
    else:
        out.append(f"No level is clearly stronger than {depth['from']}: the gap to "
                   f"{depth['to']} is {depth['difference']:.0f} [{lo:.0f}, {hi:.0f}] Elo.")
    flat = [s for s in depth["steps"] if s["ci_low"] <= 0 <= s["ci_high"]]
    if flat:
        out.append("Steps that buy no clear strength: " + ", ".join(
            f"{s['from']} -> {s['to']} ({s['difference']:+.0f} [{s['ci_low']:.0f}, "
            f"{s['ci_high']:.0f}])" for s in flat) + ".")
    ordered = sorted(balance, key=lambda r: r["rating"])
    if len(ordered) >= 2:
        a, b = ordered[0], ordered[-1]
        fa, fb = a["first_player_advantage"], b["first_player_advantage"]
        if fa["se"] is not None and fb["se"] is not None:
            d = fb["advantage"] - fa["advantage"]
            se = math.hypot(fa["se"], fb["se"])
            sig = abs(d) > 1.96 * se
            trend = ("rises" if d > 0 else "falls") if sig else "does not clearly change"
            out.append(f"First-player advantage {trend} with skill: {100 * fa['advantage']:+.1f} "
                       f"points in {a['level']} self-play, {100 * fb['advantage']:+.1f} in "
                       f"{b['level']} (difference {100 * d:+.1f} ± {196 * se:.1f}).")
        from simkit.reports.feel import trend_sentence

        trend = trend_sentence([{"label": r["level"], **r} for r in ordered],
                               "In stronger hands", "the weakest level", "the strongest")
        if trend:
            out.append(trend)
    return out


SETTLED, MOVING, UNSURE = "settled", "still moving", "not enough games"


def settle_verdict(figure: str, difference: float, ci_low: float, ci_high: float,
                   games: int, gap: dict, fair: float, match_games: int,
                   top: str, below: str) -> dict:
    """Whether ``figure`` has settled at the top of the ladder: ``difference`` (with its
    95% interval ``ci_low``..``ci_high``, from ``games`` paired level games) is the change
    of the figure from level ``below`` to level ``top``; ``gap`` the rating of ``top`` minus
    ``below`` (``R.rating_difference``), from pairings of ``match_games`` games.

    - settled: ``top`` is rated above ``below`` (the gap's interval above 0) and the change
      has a 95% interval inside +-``fair``;
    - still moving: the change's interval excludes 0 (and which way);
    - otherwise not enough games, with about how many more level games would make the
      interval narrow enough to tell (settled if the change is inside +-fair, moving
      otherwise), and more match games if the two levels are not yet rated apart (the
      intervals shrink as one over the square root of the games)."""
    rated_apart = gap["ci_low"] > 0
    base = {"figure": figure, "top": top, "below": below, "difference": difference,
            "ci_low": ci_low, "ci_high": ci_high, "games": games,
            "rating_gap": gap["difference"], "rating_low": gap["ci_low"],
            "rating_high": gap["ci_high"], "fair": fair}
    if any(x is None or not math.isfinite(x) for x in (difference, ci_low, ci_high)):
        return {**base, "state": UNSURE, "more_level_games": None, "more_match_games": None,
                "text": f"{figure}: not enough games to say whether it has settled (its "
                        f"change from {below} to {top} has no interval yet)."}
    if ci_low == ci_high:  # every paired game gave one difference (a few games, or no play
        # that differs): a t interval of zero width, which is no evidence of precision
        return {**base, "state": UNSURE, "more_level_games": None, "more_match_games": None,
                "text": f"{figure}: not enough games to say whether it has settled (all "
                        f"{games:,} paired games from {below} to {top} give one change, "
                        f"{_signed(difference)} points: no spread to measure)."}
    change = (f"{_signed(difference)} [{_signed(ci_low)}, {_signed(ci_high)}] points from "
              f"{below} to {top}")
    inside = -fair < ci_low and ci_high < fair
    if rated_apart and inside:
        return {**base, "state": SETTLED, "more_level_games": 0, "more_match_games": 0,
                "text": f"{figure} has settled: {top} is rated {gap['difference']:.0f} "
                        f"[{gap['ci_low']:.0f}, {gap['ci_high']:.0f}] Elo above {below}, "
                        f"and the figure moves {change}, inside ±{100 * fair:g}."}
    if ci_low > 0 or ci_high < 0:
        way = "rises" if difference > 0 else "falls"
        text = f"{figure} is still moving: it {way} by {change}"
        if not rated_apart:
            text += f" (though {top} is not yet clearly rated above {below})"
        return {**base, "state": MOVING, "more_level_games": 0, "more_match_games": 0,
                "text": text + "."}
    more_level = _more_games(difference, ci_low, ci_high, games, fair) if not inside else 0
    more_match = 0
    if not rated_apart:
        h = (gap["ci_high"] - gap["ci_low"]) / 2
        # a gap much smaller than its interval (under a tenth of the half-width: a hundred
        # times the games) gives no useful count: the two are rated alike
        more_match = (math.ceil(match_games * ((h / gap["difference"]) ** 2 - 1))
                      if gap["difference"] > h / 10 and h > 0 else None)
    needs = []
    if more_level:
        needs.append(f"about {more_level:,} more level games")
    if more_match:
        needs.append(f"about {more_match:,} more games a pairing to rate {top} above "
                     f"{below}")
    elif more_match is None:
        needs.append(f"more games a pairing: {top} and {below} are rated alike")
    return {**base, "state": UNSURE, "more_level_games": more_level,
            "more_match_games": more_match,
            "text": f"{figure}: not enough games to say whether it has settled (it moves "
                    f"{change}); {' and '.join(needs) or 'more games'}."}


def _signed(x: float) -> str:
    return f"{100 * x:+.1f}"


def _more_games(d: float, lo: float, hi: float, n: int, fair: float) -> int:
    """More paired games for the interval of ``d`` to fall inside +-``fair`` (when ``d``
    is inside it) or to exclude 0 (otherwise), at the same spread per game."""
    h = (hi - lo) / 2
    need = abs(d) if abs(d) >= fair else fair - abs(d)
    if h <= 0 or need <= 0:
        return 0
    return max(1, math.ceil(n * ((h / need) ** 2 - 1)))


def settlement(out: Path, doc: dict, fit: dict, fair: float) -> list[dict]:
    """``settle_verdict`` for the first-player advantage and each seat's win rate, between
    the two levels rated highest, from their self-play on the same deals (paired by game)."""
    from simkit.reports.analysis import compare_runs

    levels = {m["seats"][0]: folder for m, folder in _runs(out, doc, "level")}
    rated = sorted((r for r in fit["ratings"] if r["strategy"] in levels),
                   key=lambda r: -r["rating"])
    if len(rated) < 2:
        return []
    top, below = rated[0]["strategy"], rated[1]["strategy"]
    gap = R.rating_difference(fit, top, below)
    b_meta, t_meta = read_meta(levels[below]), read_meta(levels[top])
    table = compare_runs(read_games(levels[below], b_meta), read_games(levels[top], t_meta),
                         b_meta, t_meta)
    rows = table[(table["measure"] == "first-player advantage")
                 | ((table["measure"] == "win rate") & table["group"].str.startswith("seat"))]
    rows = rows.iloc[np.argsort(rows["measure"] != "first-player advantage", kind="stable")]
    names = _seat_labels(doc)
    out_rows = []
    for r in rows.itertuples(index=False):
        figure = ("First-player advantage" if r.measure == "first-player advantage" else
                  f"{names[int(r.group.split()[1]) - 1].capitalize()}'s win rate")
        out_rows.append(settle_verdict(figure, _num(r.difference), _num(r.ci_low),
                                       _num(r.ci_high), int(r.n), gap, fair,
                                       int(doc["ladder"]["games"]), top, below))
    return out_rows


def _num(x) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _seat_labels(doc: dict) -> list[str]:
    lad = doc["ladder"]
    spec = registry.get_game(lad["game"])
    n = int(lad["players"])
    names = list(spec.seat_names(n)) if spec.seat_names else None
    return [f"seat {s + 1}" + (f" ({names[s]})" if names else "") for s in range(n)]


def summarise(out: Path, doc: dict, fair: float = V.DEFAULT_FAIR) -> dict:
    """The ladder's summary (summary.json) from its folder, and its games.parquet."""
    out = Path(out)
    lad = doc["ladder"]
    names, players = list(lad["strategies"]), int(lad["players"])
    spec = registry.get_game(lad["game"])
    games = combine_games(out, doc)
    matches = games[games["part"] == "match"]
    codes, ranks = _seat_arrays(matches, names, players)
    labels = list(spec.seat_names(players)) if spec.seat_names else None
    labels = [f"seat {s + 1} ({n})" for s, n in enumerate(labels)] if labels else None
    fit = R.fit_ratings(codes, ranks, names, "random", seat_names=labels)
    teams = np.array(spec.teams(players))
    matrix = R.win_matrix(codes, ranks, teams, names)
    depth = _depth(fit, names)
    balance = _balance(out, doc, fit, fair)
    tables = spec_tables(lad, names)
    settled = settlement(out, doc, fit, fair)
    summary = V.clean({
        "headline": None, "game": lad["game"], "players": players, "strategies": names,
        "master_seed": lad["seed"], "games_a_table": lad["games"],
        "level_games": lad["level_games"], "match_games": int(len(matches)),
        "tables": tables, "ratings": fit, "win_matrix": matrix, "depth": depth,
        "balance": balance, "settled": settled,
        "verdicts": _verdicts(fit, depth, balance) + [r["text"] for r in settled],
    })
    summary["headline"] = [H.ladder_headline(summary, fair)]
    return summary


def spec_tables(lad: dict, names: list[str]) -> str:
    """How the round robin was arranged, in a sentence."""
    p, k = int(lad["players"]), len(names)
    if p == 2:
        return (f"every pair of the {k} strategies, each in both seat orders on the same "
                f"deals, {lad['games']:,} games a pair")
    if k >= p:
        return (f"every set of {p} of the {k} strategies at one table, each in all "
                f"{math.factorial(p)} seat arrangements on the same deals, about "
                f"{lad['games']:,} games a table")
    return (f"every table of {p} seats that seats all {k} strategies (one or more twice), in "
            f"each of its distinct seat arrangements on the same deals, about "
            f"{lad['games']:,} games a table")


# ---------------------------------------------------------------------------------------------
# tables and text


def ratings_frame(summary: dict) -> pd.DataFrame:
    fit = summary["ratings"]
    rows = sorted(fit["ratings"], key=lambda r: -r["rating"])
    return pd.DataFrame([{
        "strategy": r["strategy"], "rating": f"{r['rating']:.0f}",
        "95% interval": "anchor" if r["strategy"] == fit["anchor"] else
        f"[{r['ci_low']:.0f}, {r['ci_high']:.0f}]",
        "seat-games": f"{r['seat_games']:,}"} for r in rows])


def matrix_frame(summary: dict) -> pd.DataFrame:
    names = summary["strategies"]
    cells = {(r["row"], r["column"]): r for r in summary["win_matrix"]}
    out = []
    for a in names:
        row = {"row beats column": a}
        for b in names:
            c = cells.get((a, b))
            row[b] = "-" if c is None else (
                f"{c['score']:.1%} [{c['ci_low']:.1%}, {c['ci_high']:.1%}]"
                if c["ci_low"] is not None else f"{c['score']:.1%}")
        out.append(row)
    return pd.DataFrame(out)


def balance_frame(summary: dict) -> pd.DataFrame:
    rows = []
    for b in summary["balance"]:
        f = b["first_player_advantage"]
        length = next((x for x in b["length"] if x["measure"] == "turns"), {})
        ends = [e for e in b["endings"] if e["kind"] == "outcome" and e["name"] == "tie"]
        row = {"level": b["level"], "rating": f"{b['rating']:.0f}", "games": f"{b['games']:,}",
               "first-player advantage": _pts(f["advantage"], f["ci_low"], f["ci_high"])}
        for s in b["seats"]:
            row[f"{s['name']} wins"] = _pct(s["win_rate"], s["win_low"], s["win_high"])
        row["ties"] = _pct(ends[0]["share"], ends[0]["ci_low"], ends[0]["ci_high"]) \
            if ends else "-"
        row["turns"] = _mean(length, b["games"])
        rows.append(row)
    return pd.DataFrame(rows)


def _mean(length: dict, n: int) -> str:
    """Mean turns with its 95% normal interval (from the length table's sd)."""
    m, sd = length.get("mean"), length.get("sd")
    if m is None:
        return "n/a"
    if sd is None or n < 2:
        return f"{m:.1f}"
    half = 1.96 * sd / math.sqrt(n)
    return f"{m:.1f} [{m - half:.1f}, {m + half:.1f}]"


def seat_frame(summary: dict) -> pd.DataFrame:
    """Each seat's wins, ties and losses at each level."""
    rows = []
    for b in summary["balance"]:
        for s in b["seats"]:
            rows.append({"level": b["level"], "seat": s["name"],
                         "wins": _pct(s["win_rate"], s["win_low"], s["win_high"]),
                         "ties": _pct(s["tie_rate"], s["tie_low"], s["tie_high"]),
                         "losses": _pct(s["loss_rate"], s["loss_low"], s["loss_high"]),
                         "score share": _pct(s["score_share"], s["share_low"],
                                             s["share_high"])})
    return pd.DataFrame(rows)


def endings_frame(summary: dict) -> pd.DataFrame:
    """How games end at each level: the share of each end reason."""
    rows = []
    for b in summary["balance"]:
        row = {"level": b["level"]}
        for e in b["endings"]:
            if e["kind"] == "end reason":
                row[e["name"]] = _pct(e["share"], e["ci_low"], e["ci_high"])
        rows.append(row)
    return pd.DataFrame(rows)


def _pts(x, lo, hi) -> str:
    if x is None:
        return "n/a"
    if lo is None:
        return f"{100 * x:+.1f}"
    return f"{100 * x:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"


def _pct(x, lo, hi) -> str:
    if x is None:
        return "n/a"
    return f"{x:.1%}" + (f" [{lo:.1%}, {hi:.1%}]" if lo is not None else "")


def ladder_text(summary: dict) -> str:
    lines = [f"{summary['game']}, {summary['players']} players: a ladder of "
             f"{len(summary['strategies'])} strategies; {summary['tables']}; "
             f"{summary['level_games']:,} self-play games a level",
             *H.wrapped(summary.get("headline") or [H.ladder_headline(summary)]), "Verdict"]
    lines += [f"  {v}" for v in summary["verdicts"]]
    fit = summary["ratings"]
    lines.append(f"Ratings (Elo; {fit['model']} fit of {fit['games']:,} games, {fit['anchor']} "
                 "= 0, 95% intervals)")
    lines += ["  " + x for x in ratings_frame(summary).to_string(index=False).splitlines()]
    lines.append("Win matrix (row's score against column: a win 1, a tie 1/2)")
    lines += ["  " + x for x in matrix_frame(summary).to_string(index=False).splitlines()]
    lines.append("Balance by skill (self-play at each level; 95% intervals)")
    lines += ["  " + x for x in balance_frame(summary).to_string(index=False).splitlines()]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# the report section


def ladder_section(doc, folder: Path, summary: dict, prefix: str = "",
                   fair: float = V.DEFAULT_FAIR) -> None:
    """The ladder's part of an HTML/Markdown report (``reports.build.Document``)."""
    from simkit.reports import figures as F

    doc.heading(f"Skill ladder: {summary['game']}, {summary['players']} players", 2,
                anchor=f"{prefix}ladder")
    doc.headline(summary.get("headline") or [H.ladder_headline(summary)])
    doc.folded_verdicts(summary["verdicts"])
    doc.para(f"The round robin: {summary['tables']}. Each level also played "
             f"{summary['level_games']:,} games against itself, on the same deals as the "
             f"other levels. Folder: {folder}.", cls="meta")
    fit = summary["ratings"]
    doc.table(ratings_frame(summary), caption=f"Ratings on the Elo scale ({fit['model']} fit, "
              f"{fit['anchor']} = 0; {fit['prior_games']:g} virtual tied game between every "
              "pair, as BayesElo; 95% intervals)")
    doc.figure(F.ratings_figure(summary), f"{prefix}ladder_ratings.png", "ratings")
    doc.table(matrix_frame(summary), caption="Win matrix: the row's score against the "
              "column (a win 1, a tie 1/2), with 95% intervals")
    doc.figure(F.win_matrix_figure(summary), f"{prefix}ladder_matrix.png", "win matrix")
    d = summary["depth"]
    steps = pd.DataFrame([{
        "step": f"{s['from']} -> {s['to']}", "Elo gained": f"{s['difference']:+.0f}",
        "95% interval": f"[{s['ci_low']:.0f}, {s['ci_high']:.0f}]",
        "expected score": f"{s['expected_score']:.1%}",
        "Elo per doubling": f"{s['per_doubling']:.0f}" if s.get("per_doubling") is not None
        else "-"} for s in d["steps"]])
    doc.table(steps, caption=f"Skill depth: {d['to']} is {d['difference']:.0f} "
              f"[{d['ci_low']:.0f}, {d['ci_high']:.0f}] Elo above {d['from']}; each step of "
              "the ladder as listed")
    doc.table(balance_frame(summary), caption="Balance by skill: each level in self-play "
              "(first-player advantage in points of score share; mean turns)")
    doc.figure(F.balance_by_skill_figure(summary, fair), f"{prefix}ladder_balance.png",
               f"balance by skill: first-player advantage in points, with the fair band "
               f"(±{100 * fair:g} of 0)")
    pts = [{"x": r["rating"], "feel": r.get("feel")} for r in summary["balance"]]
    if any((p["feel"] or {}).get("decisions") for p in sorted(pts, key=lambda p: p["x"])):
        doc.figure(F.feel_by_figure(sorted(pts, key=lambda p: p["x"]),
                                    "rating of the level (Elo)", "How it plays by skill"),
                   f"{prefix}ladder_feel.png", "feel metrics by skill")
    doc.details("Each seat's wins, ties and losses at each level", seat_frame(summary))
    doc.details("How games end at each level", endings_frame(summary))
    items = _item_levels(summary)
    if items is not None:
        doc.table(items, caption="Card value by skill: win rate with the card minus without "
                  "it, in points, in each level's self-play (95% intervals); shown first the "
                  "cards whose interval is clear of 0 at some level, by that value, then the "
                  "cards played most")
        doc.figure(F.item_value_by_skill_figure(summary, list(items["card"])),
                   f"{prefix}ladder_items.png", "card value by skill")
    seats = pd.DataFrame([{"seat": s["name"], "effect (Elo)": f"{s['effect']:+.0f}",
                           "95% interval": "reference" if s["seat"] == 1 else
                           f"[{s['ci_low']:.0f}, {s['ci_high']:.0f}]"}
                          for s in fit["seats"]])
    doc.details("What each seat is worth in the fit (Elo, against seat 1)", seats)


def _item_levels(summary: dict, top: int = 8) -> pd.DataFrame | None:
    """The cards to show by skill, ``top`` at most, chosen by a criterion that noise does
    not drive: first the cards whose value is clear of 0 (95% interval) at some level, by
    the largest such value; then the cards played in the most seat-games. (The largest
    estimate alone picks the noisiest card: a card played in 30 seat-games can show +40
    points by luck.)"""
    values: dict[str, dict[str, str]] = {}
    clear: dict[str, float] = {}
    played: dict[str, int] = {}
    for b in summary["balance"]:
        for it in b["items"] or []:
            if not it.get("enough") or it.get("difference") is None:
                continue
            name = it.get("name") or it["item"]  # the display name, as the figure's
            lo, hi = it["ci_low"], it["ci_high"]
            values.setdefault(name, {})[b["level"]] = (
                f"{100 * it['difference']:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]")
            played[name] = played.get(name, 0) + int(it.get("occurred") or 0)
            if lo is not None and hi is not None and (lo > 0 or hi < 0):
                clear[name] = max(clear.get(name, 0.0), abs(it["difference"]))
    if not values:
        return None
    chosen = sorted(values, key=lambda n: (n not in clear, -clear.get(n, 0.0),
                                           -played.get(n, 0), n))[:top]
    levels = [b["level"] for b in summary["balance"]]
    return pd.DataFrame([{"card": n, **{lv: values[n].get(lv, "-") for lv in levels}}
                         for n in chosen])
