"""The histograms the benchmarks run on: a seeded Zipf-like workload and the shipped Netflix counts."""

from __future__ import annotations

import numpy as np

from dpverify.report.provenance import REPO_ROOT

__all__ = ["SEED", "zipf_counts", "netflix_counts"]


#: Seed of every synthetic histogram and every draw in the benchmarks.
SEED = 20261122


def zipf_counts(d: int, seed: int = SEED) -> np.ndarray:
    """A Zipf-like int64 histogram of length d (seeded): counts ~ 10^6 / rank^1.1, shuffled, plus noise."""
    rng = np.random.default_rng(seed)
    ranks = np.arange(1, d + 1, dtype=np.float64)
    counts = np.floor(1e6 / ranks**1.1).astype(np.int64) + rng.integers(0, 3, size=d)
    rng.shuffle(counts)
    return counts


def netflix_counts() -> np.ndarray:
    """The Netflix per-movie rating counts shipped in ``data/`` (d = 17,770)."""
    return np.load(REPO_ROOT / "data" / "NETFLIX.n17770.npy").astype(np.int64)
