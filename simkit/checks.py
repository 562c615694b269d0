"""``--check-cards N``: a card value checked by taking a copy out of the game.

Card value (``item_value``) compares the seat-games in which a player made a choice with
those in which it did not: an association, since a player who is winning may make some
choices more often. For each card the run's verdict names strongest or weakest, a check
plays the game again without one copy of that card (the game's ``remove_copy`` hook says
which data keys change: its count, and a total such as ``deck_size`` tied to it) on the
run's first N seeds, under the run's strategies and seat rotation, and pairs those games
with the run's own (``reports.analysis.compare_runs``). The difference is then a causal,
paired effect of the removal under these strategies.

A run folder keeps its checks in ``checks/``:

    checks/checks.json       what was checked, the changes, the paired figures or why not
    checks/remove-NAME/      the run without one copy of NAME (a run folder)

The report and the summary read ``checks.json`` (``read_checks``); they never play.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from simkit import data, registry
from simkit.errors import SimkitError

MAX_CHECK_GAMES = 1_000_000
"""The most games one check plays (a card at a time): more is a typo."""
CHECKS = "checks"


def check_games(value, games: int | None = None, what: str = "--check-cards") -> int:
    """``value`` as the number of games a check plays: a whole number from 1 to
    ``MAX_CHECK_GAMES`` and, since a check pairs its games with the run's first N, at most
    the run's ``games``. One line (``SimkitError``) otherwise."""
    from simkit.numeric import whole

    n = whole(value, what, 1, MAX_CHECK_GAMES)
    if games is not None and n > games:
        raise SimkitError(f"{what} {n:,} is more than the run's {games:,} games: a check "
                          f"pairs its games with the run's first N, so N is at most {games:,}")
    return n


@dataclass(frozen=True)
class CopiesRule:
    """A game's ``remove_copy`` built from its data: item ``PREFIX + NAME`` is record
    ``NAME`` of the record list ``LIST`` (``lists``: ``(PREFIX, LIST)`` pairs, the first that
    fits wins), whose ``field`` counts its copies; each key of ``ties`` (a total such as
    ``deck_size``) goes down by one with it. ``fixed``: ``(PREFIX, WHY)`` pairs for items
    that have no copy to remove (a hand of one of each card), with the reason, for an item
    that is no record of the lists (a prefix matches every item that starts with it)."""

    lists: tuple[tuple[str, str], ...]
    ties: tuple[str, ...] = ()
    field: str = "count"
    fixed: tuple[tuple[str, str], ...] = ()

    def __call__(self, values: dict[str, Any], item: str) -> dict[str, Any]:
        # a card of a list first: a fixed prefix matches by its start, and "card" (card
        # events) would otherwise leave a "cardinal" of the list unchecked
        for prefix, key in self.lists:
            if not item.startswith(prefix):
                continue
            count_key = f"{key}.{item[len(prefix):]}.{self.field}"
            if count_key not in values:
                continue
            count = values[count_key]
            if not isinstance(count, int) or count < 1:
                raise SimkitError(f"{count_key} is {count!r}: there is no copy to remove")
            changes = {count_key: count - 1}
            for tie in self.ties:
                changes[tie] = values[tie] - 1
            return changes
        for prefix, why in self.fixed:
            if item.startswith(prefix):
                raise SimkitError(why)
        raise SimkitError("it is not a card with a count in the game's data")


def removal(game: str, values: dict[str, Any], item: str) -> dict[str, Any]:
    """The overrides that take one copy of ``item`` out of ``game`` with effective data
    ``values``; ``SimkitError`` with the reason when the game cannot."""
    spec = registry.get_game(game)
    if spec.remove_copy is None:
        raise SimkitError(f"{game} does not say how to remove a copy of a card (no "
                          "remove_copy in its GameSpec)")
    return dict(spec.remove_copy(values, item))


def to_check(verdicts) -> list[dict]:
    """The cards the item verdicts name strongest or weakest, each once, in order:
    ``{"column", "item", "role", "strategy"}``."""
    out, seen = [], set()
    for v in verdicts:
        if v.topic != "items":
            continue
        for role in ("strongest", "weakest"):
            named = v.figures.get(role)
            if not named:
                continue
            item = str(named["item"]).partition(":")[0]
            if item in seen:
                continue
            seen.add(item)
            out.append({"column": named["item"], "item": item, "role": role,
                        "strategy": v.figures.get("strategy")})
    return out


def run_checks(spec_run, folder: Path, n: int, verdicts, meta: dict,
               workers: int | None = None, scheduler: Any = None, quiet: bool = False,
               say=print) -> dict:
    """Check every card ``verdicts`` name (``to_check``) with a paired what-if of ``n``
    games that removes one copy of it, against the run ``spec_run`` played into ``folder``
    (``meta`` its run.json); write ``folder/checks`` and return what ``checks.json``
    holds."""
    from simkit import folders
    from simkit.reports.analysis import compare_runs
    from simkit.reports.stats import seat_names
    from simkit.results import read_run
    from simkit.runner import run_games

    folder = Path(folder)
    n = min(n, int(meta.get("games_completed") or n))
    base = read_run(folder, items=False, trace=False)
    base_games = base.games[base.games["game"] < n]
    values = {k: p["value"] for k, p in (meta.get("params") or {}).items()}
    names = seat_names(meta, spec_run.players)
    spec = registry.get_game(spec_run.game)
    cards = []
    for c in to_check(verdicts):
        entry = {**c, "name": spec.item_name(c["item"]), "games": n}
        try:
            changes = removal(spec_run.game, values, c["item"])
            changed = changed_run(spec_run, n, changes)
        except SimkitError as exc:
            entry["reason"] = str(exc)
            cards.append(entry)
            continue
        out = folder / CHECKS / ("remove-" + re.sub(r"[^A-Za-z0-9._-]", "_", c["item"]))
        entry.update(changes=changes, folder=str(out.relative_to(folder)))
        if not quiet:
            say(f"check: {n:,} games without one {entry['name']} "
                f"({', '.join(f'{k}={v}' for k, v in changes.items())}) -> {out}")
        run_games(changed, out=out, workers=workers, scheduler=scheduler,
                  progress=not quiet, overwrite=True)
        played = read_run(out, items=False, trace=False)
        table = compare_runs(base_games, played.games, meta, played.meta)
        entry.update(_figures(table, names, c["strategy"]))
        cards.append(entry)
    doc = {"games": n, "master_seed": spec_run.seed, "strategies": list(spec_run.strategies),
           "cards": cards}
    (folder / CHECKS).mkdir(exist_ok=True)  # a run whose verdict named no card played none
    folders.write_json(folder / CHECKS / "checks.json", doc)
    return doc


def changed_run(spec_run, n: int, changes: dict[str, Any]):
    """``spec_run``'s first ``n`` games with ``changes`` on top of its own overrides: the
    same seeds, strategies, weights, rotation and models (a learned seat plays the run's
    model: the check measures the card under the run's play), no trace, no decision log.
    ``SimkitError``
    when the changed data is refused (a deck that no longer deals)."""
    from simkit.runner import plan

    over = {**dict(spec_run.overrides), **data.parse_overrides(changes)}
    changed = replace(spec_run, games=n, trace=0, kingmaking=0, log_decisions=0,
                      overrides=tuple(sorted((k, data.freeze(v)) for k, v in over.items())))
    plan(changed)  # compiles the data: a refusal is the reason the card cannot be checked
    return changed


def _figures(table, names: list[str], strategy: str | None = None) -> dict:
    """A check's paired figures from ``compare_runs``: every seat's and strategy's win rate,
    first-player advantage, and the one the verdict gives (``moved``): the win rate of the
    strategy the card was named for (a card is valued per strategy when several play), else
    of the seat that moved most."""
    def row(r, label):
        return {"group": label, "base": float(r["base"]), "changed": float(r["changed"]),
                "difference": float(r["difference"]), "ci_low": float(r["ci_low"]),
                "ci_high": float(r["ci_high"]), "n": int(r["n"])}

    seats, strategies = [], []
    for r in table[table["measure"] == "win rate"].to_dict("records"):
        group = str(r["group"])
        if group.startswith("seat "):
            s = int(group.split()[1])
            seats.append(row(r, names[s - 1] if s <= len(names) else group))
        elif group.startswith("strategy "):
            strategies.append(row(r, group.removeprefix("strategy ")))
    fpa = table[table["measure"] == "first-player advantage"].to_dict("records")
    mine = [r for r in strategies if strategy not in (None, "all") and r["group"] == strategy]
    moved = None
    if mine:
        moved = {**mine[0], "kind": "strategy"}
    elif seats:
        moved = {**_largest(seats), "kind": "seat"}
    return {"seats": seats, "strategies": strategies, "moved": moved,
            "first_player_advantage": row(fpa[0], "first-player advantage") if fpa else None}


def item_meta(meta: dict) -> dict:
    """run.json's ``choice_columns`` and ``item_names`` for a run made before they were
    recorded, from its game's declaration today ({} when the run has them, or its game is
    not installed): a report of an old Rabbit Hunt run then shows its bunny placement as an
    outcome too."""
    if "choice_columns" in meta or not meta.get("item_columns"):
        return {}
    try:
        spec = registry.get_game(str(meta.get("game")))
    except SimkitError:
        return {}
    columns = [str(c) for c in meta["item_columns"]]
    return {"choice_columns": spec.choices_of(columns),
            "item_names": {c: spec.column_name(c) for c in columns}}


def _largest(seats: list[dict]) -> dict:
    """The seat whose win rate moved most, with its interval widened for the choice
    (Bonferroni over the seats, normal quantiles): picking the largest of P intervals of 95%
    would otherwise call a change detectable more often than one time in twenty."""
    from statistics import NormalDist

    top = max(seats, key=lambda r: abs(r["difference"]))
    k = len(seats)
    if k < 2:
        return top
    z = NormalDist().inv_cdf
    widen = z(1 - 0.025 / k) / z(0.975)
    d = top["difference"]
    return {**top, "ci_low": d - (d - top["ci_low"]) * widen,
            "ci_high": d + (top["ci_high"] - d) * widen, "adjusted_for": k}


def read_checks(folder: Path) -> dict | None:
    """A run folder's ``checks/checks.json``, or None when the run checked no card."""
    path = Path(folder) / CHECKS / "checks.json"
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SimkitError(f"{path} is unreadable: {exc}") from exc
    return doc if isinstance(doc, dict) else None


def check_values(doc: dict | None) -> dict[str, dict]:
    """``{item: its check}`` of a checks document (``read_checks``), for the verdicts."""
    return {str(c.get("item")): c for c in (doc or {}).get("cards") or []}
