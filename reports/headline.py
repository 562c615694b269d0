"""Headlines: the one sentence per player count that a report, the summary ``simkit run``
prints and its ``--json`` open with, before every verdict and table.

A headline names the play it describes (the strategies, by display name) and says at most
three things, each one its 95% interval supports: which seat (or team) is ahead and by how
much, only when that seat's advantage interval excludes 0 (at 2 players, seat 1's is the
first-player advantage's); "balanced" only when every seat's interval lies inside
+-``fair``; otherwise that it cannot tell yet. A mixed line-up adds which strategy is
stronger, only when its score-share interval clears every other's. A headline has at most
``MAX_WORDS`` words: the optional parts (the games it would take to tell) are left out
before a claim is.

What-ifs, sweeps and skill ladders have a headline of their own here too, so that the
report, the terminal and the JSON say one thing in one way. Built from the summary tables
(``reports.summary.tables``: DataFrames or rows as dicts), never from games.
"""

from __future__ import annotations

import math
import textwrap

from simkit.reports import verdict as V
from simkit.reports.verdict import rows

MAX_WORDS = 40


def words(sentence: str) -> int:
    return len(sentence.split())


def wrapped(sentences, width: int = 100) -> list[str]:
    """Headlines as terminal lines of at most ``width`` columns, each continued indented."""
    return [line for x in sentences
            for line in textwrap.wrap(x, width, subsequent_indent="  ")]


def _fit(head: str, claims: list[str], extras: list[str] = (), last: list[str] = ()) -> str:
    """``head: claim; claim (extra); last.`` within ``MAX_WORDS``, the extras (parenthesised
    figures) dropped first, the last first; ``last``: claims after the extras (which belong
    to the claims before them)."""
    extras = list(extras)
    while True:
        body = "; ".join(claims) + "".join(x if x.startswith(" (") else f"; {x}"
                                           for x in extras) + "".join(f"; {x}" for x in last)
        text = f"{head}: {body}." if head else f"{body[0].upper()}{body[1:]}."
        if words(text) <= MAX_WORDS or not extras:
            return text
        extras.pop()


def _pts(x: float, digits: int = 1) -> str:
    return V.pts(x, digits)


def _ci(lo: float, hi: float) -> str:
    return f"[{_pts(lo)}, {_pts(hi)}]"


def _band(fair: float) -> str:
    """The band of "balanced" in words: "±1 point", "±0.5 points"."""
    return f"±{100 * fair:g} point{'' if 100 * fair == 1 else 's'}"


def _nan(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


# ---------------------------------------------------------------------------------------------
# names


_SEARCHES = {"ismcts": "ISMCTS", "mc": "Monte Carlo search"}


def strategy_name(name: str) -> str:
    """How a person reads a strategy: ``learned`` -> "learnt model", ``ismcts@400`` ->
    "ISMCTS@400", ``heuristic-v1`` -> "heuristic v1"; other names as they are."""
    base, at, budget = str(name).partition("@")
    base = {"learned": "learnt model", "heuristic-v1": "heuristic v1"}.get(
        base, _SEARCHES.get(base, base))
    return f"{base}@{budget}" if at else base


def line_up(strategies) -> str:
    """The play a headline describes: "under random play", "heuristic against itself",
    "heuristic against random", "A, B and C"."""
    names = [strategy_name(n) for n in dict.fromkeys(str(s) for s in strategies or ())]
    if not names:
        return "strategies unknown"
    if names == ["random"]:
        return "under random play"
    if len(names) == 1:
        return f"{names[0]} against itself"
    if len(names) == 2:
        return f"{names[0]} against {names[1]}"
    return ", ".join(names[:-1]) + " and " + names[-1]


def _team_name(seats: str) -> str:
    nums = str(seats).split("+")
    return "the team of seats " + ", ".join(nums[:-1]) + " and " + nums[-1]


# ---------------------------------------------------------------------------------------------
# a run


def seat_claim(seats: list[dict], fpa: dict, teams: list[dict], fair: float,
               more: bool = True) -> tuple[str, list[str], list[str]]:
    """(kind, claims, extras) about the seats of one player count: kind "ahead",
    "balanced" or "unclear"; every claim one the intervals support; the extras are figures
    a headline may leave out for length."""
    f_txt = (f"first-player advantage {_pts(fpa['advantage'])} points "
             f"{_ci(fpa['ci_low'], fpa['ci_high'])}") if not _nan(fpa.get("ci_low")) else ""
    if not seats or any(_nan(r.get("adv_low")) for r in seats) or _nan(fpa.get("ci_low")):
        return "unclear", ["too few games to tell whether a seat is ahead"], []
    if all(r["adv_low"] >= -fair and r["adv_high"] <= fair for r in seats):
        return "balanced", [f"balanced, no seat ahead by more than {_band(fair)} ({f_txt})"], []
    if len(teams) == 2:  # seat 1's advantage is its team's; the other team's is its negative
        first = next(t for t in teams if "1" in str(t["seats"]).split("+"))
        other = next(t for t in teams if t is not first)
        if fpa["ci_low"] > 0 or fpa["ci_high"] < 0:
            sign = 1 if fpa["ci_low"] > 0 else -1
            who = _team_name((first if sign > 0 else other)["seats"])
            a, lo, hi = (sign * fpa["advantage"], sign * fpa["ci_low"], sign * fpa["ci_high"])
            lo, hi = min(lo, hi), max(lo, hi)
            return "ahead", [f"{who} is ahead by {_pts(a)} points of score share "
                             f"{_ci(lo, hi)}"], []
        return "unclear", ["cannot tell yet which team is ahead"], [f" ({f_txt})"]
    lead = max(seats, key=lambda r: r["advantage"])
    if lead["adv_low"] > 0:
        return "ahead", [f"{lead['name']} is ahead by {_pts(lead['advantage'])} points of "
                         f"score share {_ci(lead['adv_low'], lead['adv_high'])}"], []
    extras = [f" ({f_txt})"]
    n = int(seats[0]["games"])
    half = max((r["adv_high"] - r["adv_low"]) / 2 for r in seats)
    worst = max(abs(r["advantage"]) for r in seats)
    need = V.more_games(n, half, max(abs(fair - worst), fair / 4))
    if more and need:
        extras.append(f"about {need:,} more games would tell")
    return "unclear", ["cannot tell yet whether a seat is ahead"], extras


def strategy_claim(strategies: list[dict]) -> str | None:
    """Which strategy is stronger, when its score-share interval clears every other's;
    None with one strategy."""
    t = [r for r in strategies if str(r["seat"]) == "all"]
    if len(t) < 2:
        return None
    t = sorted(t, key=lambda r: -1 if _nan(r["score_share"]) else -r["score_share"])
    best, rest = t[0], t[1:]
    highs = [r["share_high"] for r in rest if not _nan(r["share_high"])]
    if highs and not _nan(best["share_low"]) and best["share_low"] > max(highs):
        return (f"{strategy_name(best['strategy'])} is stronger, winning "
                f"{V.pct(best['win_rate'])} [{V.pct(best['win_low'])}, "
                f"{V.pct(best['win_high'])}] of its seat-games")
    return "no strategy is clearly stronger yet"


def _at(table, players: int) -> list[dict]:
    return [r for r in rows(table) if int(r["players"]) == players]


def run_headline(t: dict, strategies, players: int, fair: float = V.DEFAULT_FAIR,
                 stronger: str | None = None) -> str:
    """The headline of one player count of a run, from its summary tables ``t``
    (``reports.summary.tables``) and the line-up ``strategies`` (a name per seat);
    ``stronger``: the note that a stronger player exists (``stronger_claim``), its last
    claim, kept before the figures a long headline leaves out."""
    fpa = _at(t["fpa"], players)
    seats = _at(t["seats"], players)
    teams = _at(t.get("teams"), players)
    head = f"{players} players"
    if len(teams) == 2:
        head += " in two teams"
    head += f", {line_up(strategies)}"
    if not fpa:
        return _fit(head, ["no games"])
    _, claims, extras = seat_claim(seats, fpa[0], teams, fair)
    strat = strategy_claim(_at(t["strategies"], players))
    return _fit(head, ([strat] if strat else []) + claims, extras,
                [stronger] if stronger else [])


def run_headlines(t: dict, meta: dict | None, fair: float = V.DEFAULT_FAIR,
                  ratings=None) -> list[str]:
    """One headline per player count of a run (its summary tables ``t``); ``ratings``: the
    game's shipped ladder ratings (``simkit.ladder.shipped_ratings``), read when not given."""
    meta = meta or {}
    if ratings is None:
        from simkit.ladder import shipped_ratings

        ratings = shipped_ratings(meta.get("game")) if meta.get("game") else None
    counts = sorted({int(r["players"]) for r in rows(t["fpa"])})
    return [run_headline(t, meta.get("strategies") or _played(t, p), p, fair,
                         stronger_claim(meta, p, ratings)) for p in counts]


def stronger_claim(meta: dict, players: int, ratings: dict | None) -> str | None:
    """"a stronger player than X exists: Y" when the game's shipped ladder ratings
    (``ratings``) rate a level Y above X, the strongest strategy the run used (their rating
    difference's interval above 0), with "(measured at the default data)" when the run's
    data differ from the ratings'. None when it cannot be said: no ratings (a plugin), other
    players or another VERSION than they were measured at, a strategy of the run the ladder
    did not rate, a weight given (``--weight``: another player than the rated one), or a
    model other than the rated one (``--train``, ``learned.model=``)."""
    if not ratings or int(ratings.get("players") or 0) != players \
            or str(meta.get("game_version")) != str(ratings.get("game_version")):
        return None
    if (meta.get("run_spec") or {}).get("weights"):
        return None
    levels = {lv["strategy"]: lv for lv in ratings.get("levels") or ()}
    models = meta.get("models") or {}
    used = []
    for name in dict.fromkeys(str(s) for s in meta.get("strategies") or ()):
        lv = levels.get(name)
        if lv is None or (lv.get("model_digest") and
                          (models.get(name) or {}).get("digest") != lv["model_digest"]):
            return None
        used.append(lv)
    if not used:
        return None
    best = max(used, key=lambda lv: lv["rating"])
    if not best.get("stronger"):
        return None
    text = (f"a stronger player than {strategy_name(best['strategy'])} exists: "
            f"{strategy_name(best['stronger'][0])}")
    if meta.get("data_digest") != ratings.get("data_digest"):
        text += " (measured at the default data)"
    return text


def _played(t: dict, players: int) -> list[str]:
    """The strategies of a games table without run.json's line-up, from its tables."""
    return [str(r["strategy"]) for r in _at(t["strategies"], players) if str(r["seat"]) == "all"]


def _rank(run: dict, strong) -> tuple:
    """How well a run's line-up serves as its player count's headline: the game's strong
    player against itself first, then any one skilled strategy against itself, then a
    line-up without random seats, then the rest (in their order)."""
    names = list(dict.fromkeys(run.get("strategies") or ()))
    target = strong(run.get("game"), run.get("players")) if strong else None
    if len(names) == 1 and names[0] == target:
        return (0,)
    if len(names) == 1 and names[0] != "random":
        return (1,)
    if "random" not in names:
        return (2,)
    return (3,)


def pick_headlines(runs: list[dict], strong=None) -> list[str]:
    """An experiment's headlines, one per game and player count: the headline of the run
    that best describes the game at that count (``_rank``), named by its game when the
    experiment has several. ``runs``: each run's ``players``, ``strategies``, ``game`` and
    ``headline`` (its sentences, each opening with its player count);
    ``strong(game, players)`` the game's strong player (``registry.strong_strategy``), or
    None."""
    by: dict[tuple[str, int], list[tuple[tuple, int, str]]] = {}
    for i, run in enumerate(runs):
        for sentence in run.get("headline") or ():
            first = sentence.split()[0]
            p = int(first) if first.isdigit() else int(run.get("players") or 0)
            key = (str(run.get("game")), p)
            by.setdefault(key, []).append((_rank(run, strong), i, sentence))
    several = len({game for game, _ in by}) > 1
    games = list(dict.fromkeys(game for game, _ in by))  # in the order the file gives them
    order = sorted(by, key=lambda k: (games.index(k[0]), k[1]))
    return [(f"{game}, " if several else "") + min(by[(game, p)])[2] for game, p in order]


def strong_or_none(game, players):
    """``registry.strong_strategy``, or None for a game not installed here (a report of
    another machine's runs)."""
    from simkit import registry
    from simkit.errors import SimkitError

    try:
        return registry.strong_strategy(str(game), int(players or 2))
    except (SimkitError, ValueError, TypeError):
        return None


# ---------------------------------------------------------------------------------------------
# a what-if


def _change_words(diff: list[tuple[str, str, str]]) -> str:
    """The change, short: "carrots.cap 5 -> 4", "cards.stag added"."""
    parts = [f"{k} {c}" if b == "-" else f"{k} {b}" if c == "-" else f"{k} {b} -> {c}"
             for k, b, c in diff[:2]]
    if len(diff) > 2:
        parts.append(f"{len(diff) - 2} more")
    return ", ".join(parts) or "no parameter change"


def whatif_headline(table, diff: list[tuple[str, str, str]], players, strategies,
                    fair: float = V.DEFAULT_FAIR, card: dict | None = None) -> str:
    """A what-if's headline: the change and its effect on first-player advantage (paired,
    from ``compare_runs``); with ``card`` (``card_value``), the new or changed card's value.
    ``diff``: the parameters that differ (``build._param_diff``)."""
    head = f"{_change_words(diff)} ({players} players, {line_up(strategies)})"
    f = [r for r in rows(table) if r["measure"] == "first-player advantage"]
    claims, extras = [], []
    if f:
        r = f[0]
        d = _ci(r["ci_low"], r["ci_high"])
        if r["ci_low"] > 0 or r["ci_high"] < 0:
            claims.append(f"first-player advantage moves by {_pts(r['difference'])} points "
                          f"{d}, from {_pts(r['base'])} to {_pts(r['changed'])}")
        elif r["ci_low"] >= -fair and r["ci_high"] <= fair:
            claims.append(f"first-player advantage moves by no more than {_band(fair)} "
                          f"({_pts(r['difference'])} {d})")
        else:
            claims.append(f"cannot tell yet how first-player advantage moves "
                          f"({_pts(r['difference'])} points {d})")
    if card:
        claims.append(card_claim(card))
    return _fit(head, claims or ["no paired games to compare"], extras)


def card_claim(card: dict) -> str:
    """What a card edit's card is worth in the changed run: how much more (or less) often
    the seats that chose it win, when the interval excludes 0 (an association, not a
    cause: docs/statistics.md), else that it cannot tell yet."""
    event = str(card["item"]).partition(":")[2].replace("_", " ")
    name = ("the new " if card.get("new") else "") + card["name"]
    who = f"seats that {event} {name}" if event else f"seats with {name}"
    if _nan(card.get("ci_low")):
        return f"too few games to value {name}"
    d, ci = card["difference"], _ci(card["ci_low"], card["ci_high"])
    if card["ci_low"] > 0 or card["ci_high"] < 0:
        return (f"{who} win {abs(100 * d):.1f} points {'more' if d > 0 else 'less'} often "
                f"{ci}, an association")
    return f"cannot tell yet whether {who} win more often ({_pts(d)} points {ci})"


def edited_cards(diff, item_columns) -> list[tuple[str, bool]]:
    """The cards (items) a what-if added or changed: each parameter key of ``diff`` that
    names an item of ``item_columns`` (``cards.stag``, ``farmland.take_2_carrots.count``),
    with whether the run added it; added cards first."""
    items = {str(c).partition(":")[0] for c in item_columns or ()}
    out = []
    for key, base, _ in diff:
        name = next((part for part in key.split(".")[1:] if part in items), None)
        if name is not None and name not in [n for n, _ in out]:
            out.append((name, base == "-"))
    return sorted(out, key=lambda c: not c[1])  # a new card first: the edit is about it


def card_value(cards: list[tuple[str, bool]], values, meta: dict | None = None) -> dict | None:
    """The first of ``cards`` (``edited_cards``) with a value in the changed run, from its
    ``item_value`` rows (``values``, choices only): the card's column with the most
    seat-games in which it happened, named as the game names it (``meta``: the changed
    run's run.json, ``item_names``). None when no card was edited."""
    from simkit.reports.stats import item_name

    vals = rows(values)
    for name, new in cards:
        mine = [r for r in vals if str(r["item"]).partition(":")[0] == name
                and str(r.get("strategy", "all")) == "all"]
        mine = mine or [r for r in vals if str(r["item"]).partition(":")[0] == name]
        if mine:
            r = max(mine, key=lambda r: r.get("occurred") or 0)
            event = str(r["item"]).partition(":")[2].replace("_", " ")
            shown = item_name(r["item"], meta)  # "Take 2 carrots (placed)": the card alone
            shown = shown.removesuffix(f" ({event})") if event else shown
            return {"item": r["item"], "name": shown, "difference": r["difference"],
                    "ci_low": r["ci_low"], "ci_high": r["ci_high"], "new": new}
    return None


# ---------------------------------------------------------------------------------------------
# a sweep and a ladder


def sweep_headline(summary: dict, fair: float = V.DEFAULT_FAIR) -> str:
    """A sweep's headline: how first-player advantage goes from the first point to the
    last, and where it is balanced (interval inside +-fair) or closest to zero."""
    keys, points = summary["keys"], summary["points"]

    def at(pt):
        return ", ".join(f"{k}={pt['changes'][k]}" for k in keys)

    def fpa(pt):
        f = pt["first_player_advantage"]
        return f["advantage"], f["ci_low"], f["ci_high"]

    head = (f"{summary['players']} players, {line_up(summary['strategies'])}, "
            f"{' and '.join(keys)} over {len(points)} values")
    first, last = points[0], points[-1]
    claims = [f"first-player advantage {_pts(fpa(first)[0])} points at {at(first)}, "
              f"{_pts(fpa(last)[0])} at {at(last)}"]
    ok = [pt for pt in points if not _nan(fpa(pt)[1])]
    fair_points = [pt for pt in ok if fpa(pt)[1] >= -fair and fpa(pt)[2] <= fair]
    if fair_points:
        claims.append(f"balanced within {_band(fair)} at "
                      + ", ".join(at(pt) for pt in fair_points[:2])
                      + (" and more" if len(fair_points) > 2 else ""))
    elif ok and all(fpa(pt)[1] > 0 for pt in ok):
        claims.append("seat 1 is ahead at every value")
    elif ok and all(fpa(pt)[2] < 0 for pt in ok):
        claims.append("seat 1 is behind at every value")
    elif ok:
        best = min(ok, key=lambda pt: abs(fpa(pt)[0]))
        a, lo, hi = fpa(best)
        claims.append(f"closest to zero at {at(best)}, {_pts(a)} {_ci(lo, hi)}: cannot tell "
                      "yet whether balanced")
    return _fit(head, claims)


def ladder_headline(summary: dict, fair: float = V.DEFAULT_FAIR) -> str:
    """A skill ladder's headline: how far the top level is rated above the weakest (only
    when its interval excludes 0), and the seats in the top level's self-play."""
    depth = summary["depth"]
    p = summary["players"]
    head = f"{p} players, skill ladder of {len(summary['strategies'])} levels"
    top, base = strategy_name(depth["to"]), strategy_name(depth["from"])
    if depth["ci_low"] > 0:
        claims = [f"{top} is rated {depth['difference']:.0f} Elo [{depth['ci_low']:.0f}, "
                  f"{depth['ci_high']:.0f}] above {base}"]
    else:
        claims = [f"no level is clearly stronger than {base}"]
    level = next((r for r in summary.get("balance") or () if r["level"] == depth["to"]), None)
    if level is not None:
        _, seat, _ = seat_claim(level["seats"], level["first_player_advantage"],
                                level.get("teams") or [], fair, more=False)
        claims.append(f"in {top} self-play, {seat[0]}")
    return _fit(head, claims)
