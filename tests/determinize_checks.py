"""A shared check for the per-game determinisation tests: unseen cards are dealt
uniformly among the places they could be."""

from __future__ import annotations

import numpy as np
from scipy import stats


def assert_uniform_deal(dealt: np.ndarray, alpha: float = 1e-4) -> None:
    """``dealt`` (int[D, K]): the value found at each of K unseen places in each of D
    determinisations. Every draw must deal the same multiset (nothing created or lost),
    and each kind must be spread over the places as a uniform deal spreads it: a
    chi-square test of independence between place and kind on the K x kinds table
    (``scipy.stats.chi2_contingency``), which a kernel that deals the same way every time
    fails at once."""
    dealt = np.asarray(dealt)
    first = np.sort(dealt[0])
    for row in dealt[1:]:
        assert np.array_equal(np.sort(row), first), "the draws deal different cards"
    kinds = np.unique(first)
    if len(kinds) < 2 or dealt.shape[1] < 2:
        return
    table = np.stack([(dealt == k).sum(axis=0) for k in kinds], axis=1)  # places x kinds
    p = stats.chi2_contingency(table, correction=False).pvalue
    assert p > alpha, f"unseen cards are not dealt uniformly among their places (p={p:.2g})"
