"""A shared check for the per-game determinisation tests: unseen cards are dealt
uniformly among the places they could be (``simkit.testing.uniform_deal_problem``, which
``simkit check`` runs on the places a game declares in its ``hidden_zones``)."""

from __future__ import annotations

import numpy as np

from simkit.testing import uniform_deal_problem


def assert_uniform_deal(dealt: np.ndarray, alpha: float = 1e-4) -> None:
    """``dealt`` (int[D, K]): the value found at each of K unseen places in each of D
    determinisations. Every draw must deal the same multiset (nothing created or lost),
    and each kind must be spread over the places as a uniform deal spreads it."""
    problem = uniform_deal_problem(dealt, alpha)
    assert problem is None, problem
