"""A run's summary, as text (the end of ``simkit run``) and as a dict (``--json``): the
headline first (``reports.headline``: a sentence per player count), then verdicts, then
outcomes by seat, team and strategy, first-player advantage, scores, length and endings.
Built from the analysis tables of a games table and its items (a run folder), or from a
``reports.tally.Tally`` counted while the run was played (the end of ``simkit run``); it
never plays a game."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from simkit.reports import headline as H
from simkit.reports import verdict as V
from simkit.reports.stats import item_kind, item_name, p_text
from simkit.reports.verdict import rows

if TYPE_CHECKING:
    import pandas as pd


def _items(items, games: pd.DataFrame, meta: dict) -> pd.DataFrame | None:
    """Item value of the run's choices, by strategy when it has several, or None."""
    from simkit.reports import analysis as A

    if items is None:
        return None
    several = len(set(meta.get("strategies") or [])) > 1
    values = A.item_value(games, meta, items, by_strategy=several)
    if not len(values):
        return values
    kinds = values["item"].map(lambda c: item_kind(c, meta))
    values = values[kinds != "outcome"]
    return values.assign(name=values["item"].map(lambda c: item_name(c, meta)))


def tables(games, meta: dict | None, items=None, fair: float = V.DEFAULT_FAIR,
           trace=None) -> dict:
    """Every table and verdict of a run summary (``Verdict``s). ``games``: a games table
    (``items`` then the items table or its path, or None), and the tables are DataFrames; or
    a ``Tally`` of the run (``items`` unused), and the tables are lists of rows (dicts), so
    that the summary at the end of ``simkit run`` imports no pandas. ``trace``: the run's
    trace (a DataFrame or trace.parquet's path) for the feel figures (``t["feel"]``,
    ``reports.feel``); a Tally has counted them."""
    from simkit.reports.feel import FeelTally

    meta = meta or {}
    if hasattr(games, "tables"):
        t = games.tables(meta)
        t["items"] = [{**r, "name": item_name(r["item"], meta)} for r in t["items"]
                      if item_kind(r["item"], meta) != "outcome"]
        t["feel"] = games.feel.metrics(meta.get("master_seed") or 0) \
            if games.feel is not None else None
    else:
        from simkit.reports import analysis as A

        t = {"seats": A.seat_outcomes(games, meta), "teams": A.team_outcomes(games, meta),
             "strategies": A.strategy_outcomes(games, meta),
             "fpa": A.first_player_advantage(games, meta), "scores": A.scores(games, meta),
             "length": A.game_length(games, meta), "endings": A.endings(games, meta),
             "items": _items(items, games, meta)}
        t["feel"] = FeelTally.from_tables(games, meta, trace).metrics(
            meta.get("master_seed") or 0) if len(games) else None
    verdicts = []
    for p in sorted(int(r["players"]) for r in rows(t["fpa"])):
        verdicts.append(V.seat_verdict(t["seats"], t["endings"], p, fair))
        sv = V.strategy_verdict(t["strategies"], p)
        if sv is not None:
            verdicts.append(sv)
    if t["items"] is not None and len(t["items"]):
        from simkit.checks import check_values

        verdicts += V.item_verdicts(t["items"], meta.get("players"),
                                    checks=check_values(meta.get("card_checks")))
    t["verdicts"] = V.qualify_all(verdicts, meta.get("strategies"))
    t["headline"] = H.run_headlines(t, meta, fair)
    return t


def records(df) -> list[dict]:
    """A table (a DataFrame or its rows) as JSON-ready rows."""
    return V.clean(rows(df))


def summary_dict(games, meta: dict | None, items=None,
                 fair: float = V.DEFAULT_FAIR, trace=None) -> dict:
    """The summary as plain JSON-ready data: the headline (a sentence per player count),
    verdicts, outcomes by seat (and team and
    strategy), first-player advantage, scores, length, endings and item values, each with
    its 95% interval."""
    meta = meta or {}
    t = tables(games, meta, items, fair, trace)
    return {
        "headline": t["headline"],
        "game": meta.get("game"), "game_version": meta.get("game_version"),
        "players": meta.get("players"), "games": len(games),
        "complete": meta.get("complete", True), "master_seed": meta.get("master_seed"),
        "strategies": meta.get("strategies"), "fair_threshold": fair,
        "verdicts": [v.as_dict() for v in t["verdicts"]],
        "seats": records(t["seats"]), "teams": records(t["teams"]),
        "strategy_outcomes": records(t["strategies"]),
        "first_player_advantage": records(t["fpa"]), "scores": records(t["scores"]),
        "length": records(t["length"]), "endings": records(t["endings"]),
        "items": records(t["items"]), "feel": t["feel"],
        "card_checks": meta.get("card_checks"),
        "models": meta.get("models"), "model_note": model_note(meta),
    }


def model_note(meta: dict) -> str | None:
    """What a verdict must say when a learned seat played a model of other data or another
    VERSION of the game than the run's (``--model-mismatch ok``), or the user's own model
    (simkit's cache, where ``simkit train`` writes) in place of the one the game ships;
    else None."""
    models = meta.get("models") or {}
    own = [(slot, m["source"].split(": ", 1)[1]) for slot, m in models.items()
           if isinstance(m, dict) and str(m.get("source", "")).startswith("user: ")]
    notes = [f"Note: {slot} played your model {path} (from `simkit train`), not the one the "
             "game ships; remove it to play the shipped one." for slot, path in own]
    mismatch = _mismatch_note(meta, models)
    return " ".join(notes + ([mismatch] if mismatch else [])) or None


def _mismatch_note(meta: dict, models: dict) -> str | None:
    odd = [slot for slot, m in models.items() if isinstance(m, dict) and m.get("mismatch")]
    if not odd:
        return None
    first = models[odd[0]]
    if first.get("game_version") != meta.get("game_version"):
        what = f"played with a model of VERSION {first.get('game_version')} of the game"
    elif first.get("default_data"):
        what = "played with the model of the default data"
    else:
        what = "played with a model of other data"
    return (f"Note: {', '.join(odd)} {what}, not one trained on this run's (--model-mismatch "
            "ok): its play may not fit the game measured here.")


def models_played(sides: dict[str, dict]) -> list[str]:
    """One line a learned slot of each side (``{"base": run.json, "changed": run.json}``):
    the model it played (digest) and where it came from (``model_origin``)."""
    lines = []
    for side, meta in sides.items():
        for slot, m in ((meta or {}).get("models") or {}).items():
            if isinstance(m, dict):
                lines.append(f"{side}: {slot} played model {str(m.get('digest'))[:12]}"
                             f"{model_origin(m)}")
    return lines


def model_origin(m: dict) -> str:
    """The model fine-tuned from (``--train``), or that it is the default data's model
    (``--model-mismatch ok``), as a clause (run.json's ``models`` entry ``m``). A fine-tuning
    none of whose generations beat its base model is said so: the side plays the base's
    weights and has re-learnt nothing."""
    if m.get("trained_from"):
        base = str(m["trained_from"])[:12]
        if m.get("generation") == 0:
            return (f", fine-tuned from {base} for this side's data, but no generation beat "
                    f"{base}: it plays {base}'s weights")
        return f", fine-tuned from {base} for this side's data"
    return ", the model of the default data (--model-mismatch ok)" if m.get("mismatch") else ""


def _pct(x) -> str:
    return "   n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:6.1%}"


def _ci(lo, hi) -> str:
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
        return "[  n/a,   n/a]"
    return f"[{100 * lo:5.1f}, {100 * hi:5.1f}]"


def _p(p) -> str:
    return p_text(p)


def _wrap(prefix: str, parts: list[str], width: int = 100) -> list[str]:
    lines, cur = [], prefix
    for i, part in enumerate(parts):
        piece = part + (", " if i < len(parts) - 1 else "")
        if len(cur) + len(piece.rstrip()) > width and cur.strip():
            lines.append(cur.rstrip())
            cur = " " * len(prefix)
        cur += piece
    lines.append(cur.rstrip())
    return lines


def _text(text: str, indent: str = "  ", width: int = 100) -> list[str]:
    words, lines, cur = text.split(), [], indent
    for w in words:
        if len(cur) + len(w) + 1 > width and cur.strip():
            lines.append(cur.rstrip())
            cur = indent + "  "
        cur += w + " "
    lines.append(cur.rstrip())
    return lines


def _outcome_line(label: str, n: int, r: dict) -> str:
    label = label if len(label) <= 26 else label[:25] + "~"
    return (f"  {label:<26}{n:>10,} {_pct(r['win_rate'])} {_ci(r['win_low'], r['win_high'])}"
            f" {_pct(r['tie_rate'])} {_pct(r['loss_rate'])} {_pct(r['score_share'])}")


def summary_text(games, meta: dict | None = None, items=None,
                 fair: float = V.DEFAULT_FAIR, trace=None, t: dict | None = None) -> str:
    """The fixed-width summary printed at the end of a run (at most 100 columns); ``t``:
    its ``tables`` when the caller has them already."""
    meta = meta or {}
    t = t or tables(games, meta, items, fair, trace)
    head = f"{meta.get('game', 'game')}"
    if meta.get("game_version") is not None:
        head += f" (version {meta['game_version']})"
    head += f": {len(games):,} games"
    if not meta.get("complete", True):
        asked = meta.get("games")
        head += f" of {asked:,}" if isinstance(asked, int) else ""
        head += " (INCOMPLETE RUN)"
    if "master_seed" in meta:
        head += f", seed {meta['master_seed']}"
    lines = [head[:100], ""]
    for sentence in t["headline"]:
        lines += _text(sentence, indent="")
    lines += ["", "Verdict"]
    for v in t["verdicts"]:
        lines += _text(v.text)
    note = model_note(meta)
    if note:
        lines += _text(note)
    seats, teams, strategies = rows(t["seats"]), rows(t["teams"]), rows(t["strategies"])
    fpa, scores, length = rows(t["fpa"]), rows(t["scores"]), rows(t["length"])
    endings = rows(t["endings"])
    for p in sorted(int(r["players"]) for r in fpa):
        lines += ["", f"{p} players   (win: outright; tie: rank 1 shared with another team; "
                      "share: win 1, tie 1/k)"]
        lines.append(f"  {'':<26}{'games':>10} {'win':>6} {'95% CI':<14} {'tie':>6} "
                     f"{'loss':>6} {'share':>6}")
        for r in seats:
            if r["players"] == p:
                lines.append(_outcome_line(r["name"], r["games"], r))
        for r in teams:
            if r["players"] == p:
                lines.append(_outcome_line(f"team {r['team']} (seats {r['seats']})",
                                           r["games"], r))
        for r in strategies:
            if r["players"] == p and str(r["seat"]) == "all":
                lines.append(_outcome_line(f"strategy {r['strategy']}", r["seat_games"], r))
        f = next(r for r in fpa if r["players"] == p)
        if not math.isnan(f["advantage"]):
            text = (f"first-player advantage (seat 1's score share minus the mean share of all "
                    f"seats): {100 * f['advantage']:+.2f} points")
            if not math.isnan(f["ci_low"]):
                text += (f" [{100 * f['ci_low']:+.2f}, {100 * f['ci_high']:+.2f}], "
                         f"p {_p(f['p_value'])}")
            if p == 2 and not math.isnan(f["first_minus_second"]):
                text += (f"; first wins minus second wins {100 * f['first_minus_second']:+.2f} "
                         f"points [{100 * f['fms_low']:+.2f}, {100 * f['fms_high']:+.2f}]")
            lines += _text(text)
        parts = []
        for r in scores:
            if r["players"] == p:
                part = f"{r['name']} mean {r['mean_score']:.2f}"
                if r["wins"] and not math.isnan(r["mean_margin"]):
                    part += f" (margin when it won {r['mean_margin']:+.2f})"
                parts.append(part)
        if parts:
            lines += _wrap("  scores: ", parts)
        lt = [r for r in length if r["players"] == p and r["measure"] == "turns"]
        ld = [r for r in length if r["players"] == p and r["measure"] == "decisions"]
        if lt:
            r = lt[0]
            sd = "n/a" if math.isnan(r["sd"]) else f"{r['sd']:.1f}"
            text = (f"  turns: mean {r['mean']:.1f}, sd {sd}, median {r['median']:g},"
                    f" 95th percentile {r['p95']:g}, max {r['max']:g}")
            if ld:
                text += f"; decisions: mean {ld[0]['mean']:.1f}"
            lines.append(text[:100])
        e = [r for r in endings if r["players"] == p]
        lines += _wrap("  end reasons: ", [f"{r['name']} {r['count']:,} ({r['share']:.1%})"
                                           for r in e if r["kind"] == "end reason"])
        lines += _wrap("  outcomes: ", [f"{r['name']} {r['count']:,} ({r['share']:.1%})"
                                        for r in e if r["kind"] == "outcome"])
    if t.get("feel"):
        from simkit.reports.feel import feel_lines

        lines += ["", *feel_lines(t["feel"])]
    return "\n".join(line.rstrip() for line in lines)
