"""Games a person played in the workbench (``simkit serve``, "Play a seat"): a folder of
kind ``played`` holds one game's seats, seed, data and every move in played.json. It has
no run.json, so no report and no table of runs pools it with seeded runs; `simkit replay
--run` plays it back here, move by move."""

from __future__ import annotations

import numpy as np

from simkit import registry
from simkit.errors import SimkitError
from simkit.replay import Replay, seat_label
from simkit.rng import seed_streams
from simkit.runner import Plan, plan

PLAYED = "played.json"
HUMAN = "human"
"""A seat the person plays (in played.json's seats)."""

STAND_IN = "random"
"""The strategy a person's seat is compiled with: it never decides (the person does)."""


def replay_played(folder) -> Replay:
    """The game a person played in the workbench (a ``played`` folder: played.json holds
    its seats, seed, data and every move), played back move by move and described as
    ``replay_game`` describes a run's game; checked against the result it saved when the
    game ended. ``simkit replay --run`` calls it for such a folder."""
    import json
    from pathlib import Path

    from simkit.runner import RunSpec

    path = Path(folder) / PLAYED
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        seats, moves = list(doc["seats"]), [int(m) for m in doc["moves"]]
        game, n, seed = str(doc["game"]), int(doc["players"]), int(doc["seed"])
    except (OSError, ValueError, KeyError, TypeError):
        raise SimkitError(f"{path} is missing or not a played game's record") from None
    names = [STAND_IN if s == HUMAN else s for s in seats]  # the seats' moves are given
    p = plan(RunSpec.make(game, n, 1, seed, names, doc.get("overrides") or {}, False,
                          doc.get("weights") or []))
    spec, rules = registry.get_game(game), registry.get_game(game).rules
    if doc.get("version") not in (None, spec.version):
        raise SimkitError(f"{folder} was played with {game} v{doc['version']}; this is "
                          f"v{spec.version}, whose rules may replay it otherwise")
    streams = np.empty(1 + n, np.uint64)
    seed_streams(np.uint64(seed), n, streams)
    st = np.empty(p.state_size, np.int32)
    rules.new_game(p.compiled, n, st, streams[0:1])
    lines = [f"{spec.name} v{spec.version}, {n} players, seed {seed}, played in the workbench",
             "seats: " + ", ".join(f"{seat_label(s)}={seats[s]}" for s in range(n))]
    if spec.describe_setup is not None:
        lines += spec.describe_setup(p.compiled, n, st.copy())
    items = np.zeros((n, max(1, len(p.item_columns))), np.int32)
    legal = np.empty(p.max_moves, np.int32)
    for k, move in enumerate(moves):
        legal_now = legal[:int(rules.legal_moves(p.compiled, st, legal))]
        if rules.is_over(st) or move not in legal_now:
            raise SimkitError(f"move {k + 1} of {folder} ({move}) is not legal here: was "
                              f"{game} changed since?")
        before, seat = st.copy(), int(rules.to_move(st))
        rules.apply_move(p.compiled, st, move, streams[0:1], items)
        text = (spec.describe_move(p.compiled, n, before, move, st.copy())
                if spec.describe_move is not None else [f"move {move}"])
        lines.append(f"[{k + 1}] {seat_label(seat)}: {text[0] if text else ''}")
        lines += [f"      {t}" for t in text[1:]]
    scores, ranks = np.zeros(n, np.float64), np.zeros(n, np.int32)
    end, turns, _ = p.driver.module.play_out(  # budget 0: the result, if the game is over
        p.compiled, n, np.zeros(n, np.int32), p.kernels, p.weights, p.max_turns, st,
        np.empty(p.state_size, np.int32), np.empty(p.max_moves, np.int32), streams, items,
        scores, ranks, np.full(1, -1, np.int32), 0, _workspace_arrays(p))
    if end < 0:
        lines.append(f"(unfinished: {len(moves)} decisions were played)")
        return Replay(seed, tuple(seats), moves, "unfinished", [], [], int(turns), lines)
    reason = spec.end_reasons[int(end)]
    if end == 0:
        ranks[:] = 0
    if doc.get("complete") and (reason != doc.get("end_reason")
                                or ranks.tolist() != doc.get("ranks")):
        raise SimkitError(f"the replay ended {reason} with ranks {ranks.tolist()}, but "
                          f"{path.name} says {doc.get('end_reason')}, {doc.get('ranks')}: "
                          f"was {game} changed since?")
    winners = [seat_label(s) for s in range(n) if ranks[s] == 1]
    lines.append(f"end: {reason} after {turns} turns and {len(moves)} decisions; "
                 f"winner(s): {', '.join(winners) or 'none'}; "
                 f"scores: {', '.join(f'{seat_label(s)}={scores[s]:g}' for s in range(n))}")
    return Replay(seed, tuple(seats), moves, reason, ranks.tolist(), scores.tolist(),
                  int(turns), lines)


def _workspace_arrays(p: Plan):
    from simkit.runner import workspace

    return workspace(p)[1]
