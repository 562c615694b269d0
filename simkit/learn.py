"""The learnt players' models (``docs/learning.md``): the file format, how a file is checked,
where a run finds the model of its game, and the flat row the kernels read.

A model is data, never code: one ``.npz`` file read with ``allow_pickle=False``, holding
the standardisation of the game's features, one small network per seat and a JSON card
(format, game, player count, game VERSION, data digest, feature names, architecture, how it
was trained, its training curve and rating). Written byte for byte the same for the same
contents (fixed zip dates), so one seed's training gives one file and its digest (sha256
of the bytes) names the model everywhere: in run.json, in a RunSpec, in this process's
store of loaded models.

Each network maps the standardised features ``z = (x - mean) / std`` to the seat's expected
score share: ``sigmoid(w2 . tanh(W1 z + b1) + b2)``, or ``sigmoid(w2 . z + b2)`` when it has
no hidden layer (``hidden`` 0, a linear model).

A model may also hold a *policy* (``docs/learning.md``, "The policy"), distilled from its
own afterstate values (``simkit.distill``): the move codes it knows and, per network, a row
of weights over the standardised features and a bias for each code (and one for a code it
does not know), so that ``learned`` scores each legal move from the seat's observation alone,
``temperature * (W[code] . z + c[code])``, without applying any move. In a game with move
features (``GameSpec.move_features``: what one move does, read from the observation) the
policy also reads them, standardised (``y = (m - mmean) / mstd``), through a linear term and
a small hidden layer of rectified units whose position part is computed once a decision:
``temperature * (W[code] . z + c[code] + u . y + v . max(A z + B y + hb, 0))``.

How the kernels get a model: a slot played by ``learned`` has its weights row grown by the
flattened model after its named weights (``flat``; ``search_template`` reads it at
``L_MODEL``), so every slot of a run carries its own model and every kernel that is handed
a slot's weights (a run's games, a replay, a kingmaking replay) plays it.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simkit.errors import SimkitError

FORMAT = 1
KIND = "simkit-model"
NAMED = {"temperature": 0.0, "epsilon": 0.0, "samples": 1.0, "by": 0.0, "top": 1.0,
         "margin": 1.0}
"""The ``learned`` strategy's own weights, in its row before the model: the softmax
temperature of its choice (0: the best move), the chance of a uniformly random move, how
many determinisations (and chance draws) each move's value is averaged over, what it plays
by (``BY``: its model's policy when the model has one, or the afterstate values), and, by
the policy, how many of its best moves are then valued by their afterstates (1: none, the
policy's best is played), and how close (in score shares) to the policy's best a move's
score must be to be among them."""
BY = {"policy": 0.0, "values": 1.0}
"""``learned.by``: ``policy`` (the default) plays by the model's policy when it has one and
by its afterstate values otherwise; ``values`` always by the values (search_template's
``BY_POLICY``, ``BY_VALUES``)."""
ARRAYS = ("mean", "std", "w1", "b1", "w2", "b2", "seat_net")
POLICY_ARRAYS = ("policy_codes", "policy_w", "policy_b")
"""A policy's arrays (all or none): the move codes it knows (int64[M], sorted), per network
a row of weights for each code and one for any other (float64[K, M + 1, F]), and their
biases (float64[K, M + 1])."""
MOVE_ARRAYS = ("policy_mmean", "policy_mstd", "policy_u", "policy_a", "policy_bm",
               "policy_hb", "policy_v")
"""A policy's move-feature arrays (all or none, only with a policy): the standardisation of
the G move features (float64[G] each), per network the linear weights ``u`` (float64[K, G])
and a hidden layer of Q units: ``A`` over the position (float64[K, Q, F]), ``B`` over the
move (float64[K, Q, G]), its biases (float64[K, Q]) and output weights ``v`` (float64[K,
Q]). The card's ``policy.move_features`` names the G entries."""
MAX_MOVE_FEATURES = 128
MAX_POLICY_HIDDEN = 64
SCRATCH = MAX_MOVE_FEATURES + MAX_POLICY_HIDDEN
"""Room a workspace's feature buffer keeps after a model's F features: the policy writes a
move's features and its hidden layer's position part there (a decision allocates
nothing)."""
HEADER = 4  # features, hidden, nets, players; then seat_net[players]
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)


@dataclass
class Model:
    """A learnt evaluation of one game at one player count.

    ``mean``, ``std`` float64[F]; ``w1`` float64[K, H, F]; ``b1`` float64[K, H]; ``w2``
    float64[K, H] (float64[K, F] when H is 0); ``b2`` float64[K]; ``seat_net`` int64[P],
    the network of each seat (K networks; a seat each by default)."""

    card: dict
    mean: np.ndarray
    std: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    seat_net: np.ndarray
    _bytes: bytes | None = field(default=None, repr=False, compare=False)
    policy_codes: np.ndarray | None = None
    policy_w: np.ndarray | None = None
    policy_b: np.ndarray | None = None
    policy_mmean: np.ndarray | None = None
    policy_mstd: np.ndarray | None = None
    policy_u: np.ndarray | None = None
    policy_a: np.ndarray | None = None
    policy_bm: np.ndarray | None = None
    policy_hb: np.ndarray | None = None
    policy_v: np.ndarray | None = None

    @property
    def has_policy(self) -> bool:
        return self.policy_codes is not None

    @property
    def has_move_features(self) -> bool:
        """Whether the model's policy reads the game's move features."""
        return self.has_policy and self.policy_u is not None

    @property
    def move_features(self) -> list[str]:
        """The names of the move features the policy reads (none without them)."""
        return list(self.card["policy"]["move_features"]) if self.has_move_features else []

    @property
    def policy_temperature(self) -> float:
        """The temperature that turns the policy's logits into score shares (the one it
        was distilled at)."""
        return float(self.card["policy"]["temperature"])

    def without_policy(self) -> Model:
        """This model's value networks and card, without its policy."""
        card = {k: v for k, v in self.card.items() if k != "policy"}
        return Model(card, *(np.copy(getattr(self, k)) for k in ARRAYS))

    @property
    def game(self) -> str:
        return self.card["game"]

    @property
    def players(self) -> int:
        return int(self.card["players"])

    @property
    def hidden(self) -> int:
        return int(self.w1.shape[1])

    @property
    def n_features(self) -> int:
        return int(self.mean.shape[0])

    def to_bytes(self) -> bytes:
        """The model file's bytes: the same contents give the same bytes."""
        if self._bytes is None:
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
                card = json.dumps(self.card, sort_keys=True, indent=1, allow_nan=False)
                arrays = {"card": np.frombuffer(card.encode(), np.uint8)}
                arrays.update({k: np.ascontiguousarray(getattr(self, k)) for k in ARRAYS})
                if self.has_policy:
                    arrays.update({k: np.ascontiguousarray(getattr(self, k))
                                   for k in POLICY_ARRAYS})
                if self.has_move_features:
                    arrays.update({k: np.ascontiguousarray(getattr(self, k))
                                   for k in MOVE_ARRAYS})
                for name, arr in arrays.items():
                    info = zipfile.ZipInfo(f"{name}.npy", date_time=_ZIP_DATE)
                    info.compress_type = zipfile.ZIP_DEFLATED
                    info.external_attr = 0o644 << 16
                    member = io.BytesIO()
                    np.lib.format.write_array(member, arr, allow_pickle=False)
                    zf.writestr(info, member.getvalue())
            self._bytes = buf.getvalue()
        return self._bytes

    @property
    def digest(self) -> str:
        """sha256 of the file's bytes (hex): the model's name in runs and stores."""
        return hashlib.sha256(self.to_bytes()).hexdigest()

    def flat(self) -> np.ndarray:
        """float64: the model as the kernels read it, after the strategy's named weights:
        F, H, K, P, seat_net[P], mean[F], 1/std[F], then per network W1 transposed (F x H,
        a feature's H weights together), b1[H], w2[H], b2 (H > 0) or w[F], b (H = 0);
        then the policy: M (0: none), and when M > 0 its temperature, codes[M], D and a
        dense table from code to row (D codes; D = 0: none, ``_dense_rows``), per network
        M + 1 rows of F weights and their bias, then G and Q (the move features and hidden
        units; 0 0 without them), and when G > 0 per network, with the move features'
        standardisation folded in (``u / mstd``, ``B / mstd``), u[G], the constant ``-u .
        mmean / mstd``, A (Q x F), B (Q x G), ``hb - B . mmean / mstd`` [Q] and v[Q]."""
        k = self.w1.shape[0]
        parts = [np.array([self.n_features, self.hidden, k, self.players], np.float64),
                 self.seat_net.astype(np.float64), self.mean, 1.0 / self.std]
        for i in range(k):
            if self.hidden:
                parts += [self.w1[i].T.ravel(), self.b1[i], self.w2[i], self.b2[i:i + 1]]
            else:
                parts += [self.w2[i], self.b2[i:i + 1]]
        if not self.has_policy:
            parts.append(np.zeros(1))
        else:
            m = len(self.policy_codes)
            parts += [np.array([m, self.policy_temperature], np.float64),
                      self.policy_codes.astype(np.float64), _dense_rows(self.policy_codes)]
            for i in range(k):
                parts.append(np.concatenate([self.policy_w[i], self.policy_b[i][:, None]],
                                            axis=1).ravel())
            if not self.has_move_features:
                parts.append(np.zeros(2))
            else:
                g, q = self.policy_u.shape[1], self.policy_a.shape[1]
                parts.append(np.array([g, q], np.float64))
                # the standardisation folded into the weights: the kernel reads raw move
                # features, (m - mean) / std never computed a move
                mean, inv = self.policy_mmean, 1.0 / self.policy_mstd
                for i in range(k):
                    u, bm = self.policy_u[i] * inv, self.policy_bm[i] * inv
                    parts += [u, [-(u @ mean)], self.policy_a[i].ravel(), bm.ravel(),
                              self.policy_hb[i] - bm @ mean, self.policy_v[i]]
        return np.concatenate(parts).astype(np.float64)

    def policy_values(self, seat: int, x: np.ndarray, codes: np.ndarray,
                      mf: np.ndarray | None = None) -> np.ndarray:
        """The policy's score (in score shares) of each move of ``codes`` (int[N]) from
        the features ``x`` (float[F]) of ``seat``'s observation and, when the policy reads
        them, each move's features ``mf`` (float[N, G]), as the kernels compute it (for the
        tests)."""
        k = int(self.seat_net[seat])
        z = np.subtract(x, self.mean, dtype=np.float64)  # one array the size of x, not three
        z /= self.std
        rows = move_rows(self.policy_codes, codes)
        logit = self.policy_w[k][rows] @ z + self.policy_b[k][rows]
        if self.has_move_features:
            y = (np.asarray(mf, np.float64) - self.policy_mmean) / self.policy_mstd
            hidden = np.maximum(self.policy_a[k] @ z + self.policy_hb[k]
                                + y @ self.policy_bm[k].T, 0.0)
            logit = logit + y @ self.policy_u[k] + hidden @ self.policy_v[k]
        return self.policy_temperature * logit

    def value(self, seat: int, x: np.ndarray) -> np.ndarray:
        """The model's values (float64[N]) of feature rows ``x`` (float[N, F]) for
        ``seat``, as the kernels compute them (for the learner and the tests)."""
        return _sigmoid(self.logit(seat, x))

    def logit(self, seat: int, x: np.ndarray) -> np.ndarray:
        k = int(self.seat_net[seat])
        z = np.subtract(x, self.mean, dtype=np.float64)  # one array the size of x, not three
        z /= self.std
        if self.hidden:
            return np.tanh(z @ self.w1[k].T + self.b1[k]) @ self.w2[k] + self.b2[k]
        return z @ self.w2[k] + self.b2[k]


DENSE_CODES = 1 << 15
"""Move codes below this get the policy a dense table from code to row in the flat row (one
load a move, where a binary search over the sorted codes mispredicts a branch a step)."""


def _dense_rows(codes: np.ndarray) -> np.ndarray:
    """float64[1 + D]: D, then the row of each code below D (``len(codes)`` for a code the
    policy does not know); D is 0 (no table: a binary search) when a code is negative or
    not below ``DENSE_CODES``."""
    m = len(codes)
    if m == 0 or codes.min() < 0 or codes.max() >= DENSE_CODES:
        return np.zeros(1)
    table = np.full(int(codes.max()) + 1, m, np.float64)
    table[codes] = np.arange(m)
    return np.concatenate([[len(table)], table])


def play_defaults(model: Model) -> dict[str, float]:
    """The named weights a model plays with unless a run gives them (its card's ``play``:
    the ``samples`` it was trained with, so a model of a game whose moves draw chance
    values each move as it learnt to)."""
    play = model.card.get("play")
    if not isinstance(play, dict):
        return {}
    return {k: float(v) for k, v in play.items()
            if k in NAMED and isinstance(v, int | float) and not isinstance(v, bool)
            and math.isfinite(v)}


def move_rows(known: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The policy's row of each move code: its index in the sorted ``known`` codes, or
    ``len(known)`` for a code it does not know (search_template's ``move_bucket``)."""
    codes = np.asarray(codes, np.int64)
    at = np.searchsorted(known, codes)
    hit = (at < len(known)) & (known[np.minimum(at, len(known) - 1)] == codes) \
        if len(known) else np.zeros(len(codes), bool)
    return np.where(hit, at, len(known))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def new_model(card: dict, n_features: int, hidden: int, seat_net, rng: np.random.Generator,
              mean=None, std=None) -> Model:
    """A model that values every position alike (``w2`` and ``b2`` zero, so ``learned``
    breaks every tie at random: the first generation plays uniformly), with ``W1`` drawn
    small from ``rng`` so its hidden units can learn apart."""
    seat_net = np.asarray(seat_net, np.int64)
    k = int(seat_net.max()) + 1
    w1 = rng.normal(0.0, 1.0 / np.sqrt(max(n_features, 1)), (k, hidden, n_features))
    return Model(dict(card), np.zeros(n_features) if mean is None else np.asarray(mean, float),
                 np.ones(n_features) if std is None else np.asarray(std, float), w1,
                 np.zeros((k, hidden)), np.zeros((k, hidden if hidden else n_features)),
                 np.zeros(k), seat_net)


# ---------------------------------------------------------------- reading and checking

def read_model(path: Path, game: str | None = None, players: int | None = None,
               features: tuple[str, ...] | None = None, what: str = "model") -> Model:
    """The model in ``path``, checked whole, or one line naming what is wrong with it: a
    missing, unreadable, corrupt or foreign (not a simkit model) file, or a model of another
    game, player count or set of features than asked for."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise SimkitError(f"{what} file {path} does not exist") from None
    except IsADirectoryError:
        raise SimkitError(f"{what} file {path} is a folder, not a model file") from None
    except OSError as exc:
        raise SimkitError(f"{what} file {path} cannot be read ({exc.strerror})") from None
    model = model_from_bytes(raw, str(path))
    check_fits(model, str(path), game, players, features)
    return model


def model_from_bytes(raw: bytes, name: str) -> Model:
    """A model from a file's bytes (``name`` for the messages), checked for shape and
    finiteness."""
    if not raw.startswith(b"PK"):
        raise SimkitError(f"{name} is not a simkit model (not an .npz file); a model is "
                          "what `simkit train` writes")
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as z:
            names = set(z.files)
            if "card" not in names:
                raise SimkitError(f"{name} is an .npz file but not a simkit model (it has no "
                                  "card); a model is what `simkit train` writes")
            arrays = {k: z[k] for k in names}
    except SimkitError:
        raise
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise SimkitError(f"{name} is a corrupt model file ({type(exc).__name__}: "
                          f"{str(exc)[:120]}); train it again or give another") from None
    try:
        card = json.loads(arrays["card"].astype(np.uint8).tobytes().decode("utf-8"))
    except (ValueError, UnicodeDecodeError, TypeError):
        raise SimkitError(f"{name} is a corrupt model file (its card is not JSON)") from None
    if not isinstance(card, dict) or card.get("kind") != KIND:
        raise SimkitError(f"{name} is an .npz file but not a simkit model (its card does not "
                          f"say {KIND!r})")
    if card.get("format") != FORMAT:
        raise SimkitError(f"{name} is a model of format {card.get('format')!r}; this simkit "
                          f"reads format {FORMAT}: train it again")
    missing = [k for k in ARRAYS if k not in arrays]
    if missing:
        raise SimkitError(f"{name} is a corrupt model file (no {missing[0]} array)")
    model = Model(card, *(arrays[k] for k in ARRAYS))
    held = [k for k in POLICY_ARRAYS if k in arrays]
    if held and len(held) < len(POLICY_ARRAYS):
        missing = next(k for k in POLICY_ARRAYS if k not in arrays)
        raise SimkitError(f"{name} is a corrupt model file (a policy without its {missing} "
                          "array)")
    movers = [k for k in MOVE_ARRAYS if k in arrays]
    if movers and (not held or len(movers) < len(MOVE_ARRAYS)):
        missing = next((k for k in MOVE_ARRAYS if k not in arrays), POLICY_ARRAYS[0])
        raise SimkitError(f"{name} is a corrupt model file (move features without its "
                          f"{missing} array)")
    for k in held + movers:
        setattr(model, k, arrays[k])
    problem = _shape_problem(model) or (_policy_problem(model) if held else None)
    if problem:
        raise SimkitError(f"{name} is a corrupt model file ({problem})")
    model._bytes = raw
    return model


def _shape_problem(m: Model) -> str | None:
    c = m.card
    names = c.get("features")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        return "its card names no features"
    for key in ("game", "game_version", "data_digest"):
        if not isinstance(c.get(key), str):
            return f"its card has no {key}"
    if not isinstance(c.get("players"), int) or c["players"] < 1:
        return "its card has no player count"
    f, p = len(names), c["players"]
    for k in ARRAYS:
        arr = getattr(m, k)
        if not isinstance(arr, np.ndarray) or arr.dtype.kind not in "fiu":
            return f"{k} is not numbers"
    if m.w1.ndim != 3 or m.w1.shape[2] != f:
        return f"w1 has shape {m.w1.shape}, not (nets, hidden, {f})"
    k, h = m.w1.shape[0], m.w1.shape[1]
    want = {"mean": (f,), "std": (f,), "b1": (k, h), "w2": (k, h if h else f), "b2": (k,),
            "seat_net": (p,)}
    for name, shape in want.items():
        if getattr(m, name).shape != shape:
            return f"{name} has shape {getattr(m, name).shape}, not {shape}"
    for name in ARRAYS:
        if not np.all(np.isfinite(getattr(m, name))):
            return f"{name} holds a value that is not finite"
    if np.any(m.std <= 0):
        return "std holds a value that is not positive"
    if k < 1 or np.any(m.seat_net < 0) or np.any(m.seat_net >= k):
        return f"seat_net names a network outside 0..{k - 1}"
    for name in ("mean", "std", "w1", "b1", "w2", "b2"):
        setattr(m, name, getattr(m, name).astype(np.float64))
    m.seat_net = m.seat_net.astype(np.int64)
    return None


def _numbers_problem(m: Model, names) -> str | None:
    """The first of the arrays ``names`` of ``m`` that is not finite numbers, said."""
    for k in names:
        arr = getattr(m, k)
        if not isinstance(arr, np.ndarray) or arr.dtype.kind not in "fiu":
            return f"{k} is not numbers"
        if not np.all(np.isfinite(arr)):
            return f"{k} holds a value that is not finite"
    return None


def _policy_problem(m: Model) -> str | None:
    """What is wrong with a model's policy (its arrays and its card's ``policy``), or None."""
    problem = _numbers_problem(m, POLICY_ARRAYS)
    if problem:
        return problem
    policy = m.card.get("policy")
    t = policy.get("temperature") if isinstance(policy, dict) else None
    if isinstance(t, bool) or not isinstance(t, int | float) or not 0 < t < math.inf:
        return "its card's policy has no positive temperature"
    codes = m.policy_codes
    k, f = m.w1.shape[0], m.n_features
    if codes.ndim != 1 or len(codes) < 1 or np.any(codes != np.round(codes)) \
            or np.any(np.diff(codes) <= 0):
        return "policy_codes is not a sorted list of distinct move codes"
    n = len(codes)
    if m.policy_w.shape != (k, n + 1, f):
        return f"policy_w has shape {m.policy_w.shape}, not {(k, n + 1, f)}"
    if m.policy_b.shape != (k, n + 1):
        return f"policy_b has shape {m.policy_b.shape}, not {(k, n + 1)}"
    m.policy_codes = codes.astype(np.int64)
    m.policy_w = m.policy_w.astype(np.float64)
    m.policy_b = m.policy_b.astype(np.float64)
    return _move_problem(m) if m.policy_u is not None else None


def _move_problem(m: Model) -> str | None:
    """What is wrong with a policy's move-feature arrays and names, or None."""
    names = m.card["policy"].get("move_features")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        return "its card's policy names no move features"
    problem = _numbers_problem(m, MOVE_ARRAYS)
    if problem:
        return problem
    k, f, g = m.w1.shape[0], m.n_features, len(names)
    q = m.policy_a.shape[1] if m.policy_a.ndim == 3 else -1
    if g > MAX_MOVE_FEATURES or not 0 <= q <= MAX_POLICY_HIDDEN:
        return (f"its policy has {g} move features and {q} hidden units (at most "
                f"{MAX_MOVE_FEATURES} and {MAX_POLICY_HIDDEN})")
    want = {"policy_mmean": (g,), "policy_mstd": (g,), "policy_u": (k, g),
            "policy_a": (k, q, f), "policy_bm": (k, q, g), "policy_hb": (k, q),
            "policy_v": (k, q)}
    for name, shape in want.items():
        if getattr(m, name).shape != shape:
            return f"{name} has shape {getattr(m, name).shape}, not {shape}"
        setattr(m, name, getattr(m, name).astype(np.float64))
    if np.any(m.policy_mstd <= 0):
        return "policy_mstd holds a value that is not positive"
    return None


def check_fits(model: Model, name: str, game: str | None, players: int | None,
               features: tuple[str, ...] | None) -> None:
    """One line when ``model`` is not a model of ``game`` at ``players`` with ``features``."""
    if game is not None and model.game != game:
        raise SimkitError(f"{name} is a model of {model.game}, not of {game}")
    if players is not None and model.players != players:
        raise SimkitError(f"{name} is a model of {model.game} at {model.players} players, "
                          f"not {players}")
    if features is not None and list(features) != list(model.card["features"]):
        theirs = set(model.card["features"])
        diff = sorted(set(features) ^ theirs) or ["their order"]
        raise SimkitError(f"{name} was trained on other features than {model.game}'s now "
                          f"(they differ in {', '.join(diff[:3])}); train it again")
    if model.has_move_features and game is not None:
        from simkit import registry

        spec = registry.get_game(game)
        theirs = list(spec.move_features or ()) if spec.has_move_features else []
        if model.move_features != theirs:
            diff = sorted(set(model.move_features) ^ set(theirs)) or ["their order"]
            raise SimkitError(f"{name}'s policy reads other move features than {game}'s now "
                              f"(they differ in {', '.join(diff[:3])}); distil it again "
                              f"(simkit train {game} --from MODEL --distill-only)")


def write_model(model: Model, path: Path) -> None:
    """Write ``model`` to ``path`` whole or not at all (a temporary file, then a rename)."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
        with os.fdopen(fd, "wb") as fh:
            fh.write(model.to_bytes())
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # as an ordinary file (mkstemp makes it private)
        os.replace(tmp, path)
    except OSError as exc:
        raise SimkitError(f"cannot write the model to {path} ({exc.strerror or exc})") from None


# ---------------------------------------------------------------- finding a run's model

_STORE: dict[str, Model] = {}
"""The models this process has loaded, by digest: a RunSpec names its models by digest,
and ``plan`` takes them from here (a Dask worker gets them with its chunk)."""


SOURCES: dict[str, str] = {}
"""Where each model of the store was found (run.json's ``models``)."""


def remember(model: Model) -> str:
    _STORE[model.digest] = model
    return model.digest


def recall(digest: str) -> Model:
    try:
        return _STORE[digest]
    except KeyError:
        raise SimkitError(f"the model {digest[:12]} is not loaded in this process; give it "
                          "with --weight learned.model=FILE") from None


def cache_root() -> Path:
    return Path(os.environ.get("SIMKIT_CACHE_DIR") or Path.home() / ".cache" / "simkit")


def user_model_path(game: str, players: int, data_digest: str) -> Path:
    """Where ``simkit train`` writes by default, and where a run looks first: simkit's
    cache, ``models/<game>-<players>p-<data digest>.npz``."""
    return cache_root() / "models" / f"{game}-{players}p-{data_digest}.npz"


def shipped_model_path(spec, players: int) -> Path:
    """The model a game ships for its default data: ``<package>/models/<players>p.npz``."""
    return Path(spec.package_dir) / "models" / f"{players}p.npz"


@dataclass
class Found:
    """The model a slot plays, where it came from, and whether it was trained on other
    data or another VERSION of the game than the run's (a mismatch the user allowed)."""

    model: Model
    source: str
    mismatch: bool = False


def _candidates(spec, players: int, digest: str) -> list[tuple[Path, str]]:
    return [(user_model_path(spec.name, players, digest), "user"),
            (shipped_model_path(spec, players), "shipped")]


def _fits(model: Model, version: str, digest: str) -> bool:
    return _fits_card(model.card, version, digest)


def _fits_card(card: dict, version: str, digest: str) -> bool:
    """Whether a model's card is of this VERSION of the game and this data."""
    return card["game_version"] == version and card["data_digest"] == digest


def has_model(spec, players: int, data_digest: str | None = None,
              policy: bool = False) -> bool:
    """Whether a model fits ``spec`` at ``players`` on the data of ``data_digest`` (None:
    the default data): the user's (simkit's cache) or the shipped one, of this VERSION and
    data. A file that cannot be read is no model. With ``policy``, the model a run would
    play (the first that fits) must also have a policy: ``learned`` plays fast by it."""
    from simkit import data

    digest = data_digest or data.data_digest(spec.data)
    for path, _ in _candidates(spec, players, digest):
        if path.is_file():
            try:
                card = read_model(path, spec.name, players, tuple(spec.features or ())).card
            except SimkitError:
                continue
            if _fits_card(card, spec.version, digest):
                return not policy or "policy" in card
    return False


def find_model(spec, players: int, data_digest: str, default_digest: str,
               file: Path | None = None, mismatch_ok: bool = False) -> Found:
    """The model a ``learned`` seat plays in a run of ``spec`` at ``players`` on data of
    ``data_digest``: the ``file`` given, else the user's model of that data (simkit's cache)
    and then the game's shipped one. A model of other data or another VERSION is refused in
    one line unless ``mismatch_ok``; then, with no file given, the model of the default
    data (``default_digest``) plays."""
    features = tuple(spec.features or ())
    version = spec.version
    if file is not None:
        model = read_model(file, spec.name, players, features)
        if not _fits(model, version, data_digest) and not mismatch_ok:
            raise SimkitError(_mismatch_line(model, str(file), version, data_digest,
                                             default_digest))
        return Found(model, str(file), not _fits(model, version, data_digest))
    near = []  # models of this game and player count that do not fit: nearest first
    for digest in dict.fromkeys([data_digest, default_digest]):
        for path, kind in _candidates(spec, players, digest):
            if path.is_file():
                try:
                    model = read_model(path, spec.name, players, features,
                                       what=f"the {kind} model")
                except SimkitError as exc:
                    if kind != "user":
                        raise
                    raise SimkitError(f"{exc}; or remove it to play the model the game "
                                      "ships") from None
                if _fits(model, version, data_digest):
                    return Found(model, f"{kind}: {path}")
                near.append((model, f"{kind}: {path}"))
    if near and mismatch_ok:
        return Found(near[0][0], near[0][1], True)
    if near:
        raise SimkitError(_mismatch_line(near[0][0], near[0][1].split(": ", 1)[1], version,
                                         data_digest, default_digest))
    raise SimkitError(f"learned has no model of {spec.name} at {players} players for its "
                      f"data (digest {data_digest}, VERSION {version}): train one with "
                      f"`simkit train {spec.name} --players {players}` (with the run's --set "
                      "and --cards), or give one with --weight learned.model=FILE")


def _mismatch_line(model: Model, name: str, version: str, digest: str, default: str) -> str:
    c = model.card
    if c["game_version"] != version:
        what = f"VERSION {c['game_version']} of {c['game']}, not {version}"
    elif c["data_digest"] == default:
        what = "the default data, not this run's (--set or --cards)"
    else:
        what = f"other data (digest {c['data_digest']}) than this run's ({digest})"
    return (f"the model {name} was trained on {what}: fine-tune one for this data first "
            f"with --train (e.g. --train 5000g), or train one with `simkit train "
            f"{c['game']} --players {c['players']}` and the run's --set and --cards, or play "
            "it anyway with --model-mismatch ok")


# ---------------------------------------------------------------- one decision from Python

class Learned:
    """``learned`` ready to decide from Python with ``model`` (for tests, benchmarks and
    advice): the game's rendered kernels, the slot's weights row and a workspace. ``weights``
    by name, as ``NAMED`` lists them."""

    def __init__(self, plan, model: Model, weights: dict[str, float] | None = None):
        from simkit import registry
        from simkit.search import Workspace, load_search

        spec = registry.get_game(plan.run.game)
        registry.check_learnable(spec.name)
        check_fits(model, "the model", spec.name, plan.run.players, tuple(spec.features))
        unknown = set(weights or {}) - set(NAMED)
        if unknown:
            raise SimkitError(f"learned has no weight {sorted(unknown)[0]!r}; its weights: "
                              + ", ".join(NAMED))
        self.plan = plan
        self.module = load_search(spec.name)
        named = {**NAMED, **play_defaults(model), **(weights or {})}
        self.row = np.concatenate([np.array(list(named.values()), np.float64), model.flat()])
        n = plan.run.players
        self.teams = np.array(spec.teams(n), np.int32)
        self.ws = Workspace.make(0, n, plan.state_size, plan.max_moves, len(plan.item_columns),
                                 1, model.n_features)

    def _args(self, obs, seat, moves, n_moves, stream):
        ws, p = self.ws, self.plan
        return (p.compiled, obs, seat, moves, n_moves, self.row, stream, p.run.players,
                p.max_turns, self.teams, ws.state, ws.after, ws.obs, ws.items, ws.scores,
                ws.ranks, ws.reward, ws.feat, ws.values)

    def values(self, obs: np.ndarray, seat: int, moves: np.ndarray, n_moves: int,
               stream: np.ndarray) -> np.ndarray:
        """``seat``'s value of each of ``moves[:n_moves]`` from ``obs`` (float64[n_moves]),
        drawing only from ``stream`` (uint64[1])."""
        self.module.learned_values(*self._args(obs, seat, moves, n_moves, stream))
        return self.ws.values[:n_moves].copy()

    def decide(self, obs: np.ndarray, seat: int, moves: np.ndarray, n_moves: int,
               stream: np.ndarray) -> int:
        """The index into ``moves[:n_moves]`` that ``learned`` plays."""
        return int(self.module.learned_choose(*self._args(obs, seat, moves, n_moves, stream)))
