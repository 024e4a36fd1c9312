"""Benchmark of the exact JOINT samplers (GJMR21 Claim 3.3 / Theorem 8 runtime; target: exact sampling no slower than float64).

``bench_joint``: exact sequence JOINT (:class:`JointSequence`, big-integer counts,
certified gap draw) against :class:`Float64JointSequence`, an all-float64 log-space
implementation of the same mechanism written the way GJMR21's ICML 2022 version describes
it (every one of the d*k entries of the difference matrix, made distinct by a
data-independent tie-break term, log-counts by running sums, inverse-CDF draw over
the entries).  Both report a one-off *setup* per histogram and a *per-sample* time.

``bench_joint_sets``: the exact k-SET JOINT (:class:`Joint`): setup = Lemma 6/7
counts for every gap (Algorithm 1 Line 2), per-sample = gap draw + uniform set.

Data: per-movie counts of distinct users in ``data/movielens_ratings.csv.gz``
(MovieLens latest-small, d = 9,066); a smaller d uses the d most-rated movies
(as GJMR21 §4 does).  ``dpverify bench`` (full profile) runs all three functions and
renders their rows in ``reports/performance.md``.  This module is bench-only: no mechanism imports it.
"""

from __future__ import annotations

import csv
import gzip
import time
from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator, Sequence, TypeVar

import numpy as np

from mechanisms.joint.sequence import JointSequence, sequence_tables
from mechanisms.joint.sets import Joint, set_tables

from dpverify.report.provenance import REPO_ROOT

__all__ = ["movielens_histogram", "Float64JointSequence", "bench_joint", "bench_joint_sets", "bench_flint"]

T = TypeVar("T")

DATA = REPO_ROOT / "data" / "movielens_ratings.csv.gz"


@lru_cache(maxsize=2)
def movielens_histogram(path: str | None = None) -> tuple[int, ...]:
    """Distinct users per movieId (movies ordered by id): d = 9,066, max count 341."""
    users: dict[str, set[str]] = {}
    with gzip.open(path or DATA, "rt", newline="") as f:
        for row in csv.DictReader(f):
            users.setdefault(row["movieId"], set()).add(row["userId"])
    return tuple(len(users[m]) for m in sorted(users, key=int))


def top_d(h: Sequence[int], d: int) -> tuple[int, ...]:
    return tuple(sorted(h, reverse=True)[:d])


class Float64JointSequence:
    """float64 log-space sequence JOINT (the reference the exact sampler must not be slower than).

    Same law as :class:`JointSequence` up to float64 rounding.  Entries (i, p) of
    ``D[i, p] = c_(i) - c_(p) + (d (k-1-i) + p + 1) / (2dk)`` (0-based; the term
    makes entries distinct, rows increasing, columns decreasing, and is < 1/2 so
    ``floor(D) = c_(i) - c_(p)``).  A sequence's max entry is unique; the number of
    sequences whose max entry is e = (i, p) is ``prod_{r != i} (L_r(e) - r)`` with
    ``L_r(e)`` the number of row-r entries before e.  Probability of e is that count
    times ``exp(-eps floor(D_e) / 2)``, normalised in log space; draw e by inverse
    CDF, then s_i = p and rows r != i uniform among unused positions < L_r(e).
    """

    def __init__(self, h: Sequence[int], k: int, eps: float):
        self.k, self.eps = k, float(eps)
        a = np.asarray(h, dtype=np.int64)
        self.order = np.lexsort((np.arange(len(a)), -a))      # sorted_items order
        v = a[self.order].astype(np.float64)
        d = len(v)
        i = np.arange(k)[:, None]
        p = np.arange(d)[None, :]
        self.D = (v[:k, None] - v[None, :]) + (d * (k - 1 - i) + p + 1) / (2.0 * d * k)
        flat = np.argsort(self.D, axis=None, kind="stable")
        rows, cols = np.divmod(flat, d)
        # factor of row r before/after passing its entry at column c: (c - r) -> (c + 1 - r)
        before, after = (cols - rows).astype(np.float64), (cols + 1 - rows).astype(np.float64)
        with np.errstate(divide="ignore"):
            lf_b = np.where(before >= 1, np.log(np.maximum(before, 1)), 0.0)
            lf_a = np.where(after >= 1, np.log(np.maximum(after, 1)), 0.0)
        dz = (after <= 0).astype(np.int64) - (before <= 0).astype(np.int64)
        S = np.concatenate(([0.0], np.cumsum(lf_a - lf_b)[:-1]))
        Z = k + np.concatenate(([0], np.cumsum(dz)[:-1]))
        own_zero = before <= 0
        logc = np.where(Z - own_zero == 0, S - lf_b, -np.inf)
        logw = logc - self.eps / 2 * np.floor(self.D.ravel()[flat])
        top = np.max(logw)
        cdf = np.cumsum(np.exp(logw - top))
        self.cdf = cdf / cdf[-1]
        self.rows, self.cols, self.vals = rows, cols, self.D.ravel()[flat]

    def sample(self, rng: np.random.Generator, size: int = 1) -> list[tuple[int, ...]]:
        es = np.searchsorted(self.cdf, rng.random(size), side="right")
        out = []
        k = self.k
        for e in es:
            i, p, val = int(self.rows[e]), int(self.cols[e]), self.vals[e]
            L = [int(np.searchsorted(self.D[r], val, side="left")) for r in range(k)]
            pos = [0] * k
            pos[i] = p
            used = {p}
            for r in range(k):
                if r == i:
                    continue
                x = int(rng.integers(0, L[r]))
                while x in used:
                    x = int(rng.integers(0, L[r]))
                pos[r] = x
                used.add(x)
            out.append(tuple(int(self.order[x]) for x in pos))
        return out


def _time(f: Callable[..., T], *args: Any, **kwargs: Any) -> tuple[float, T]:
    """Seconds taken by ``f(*args, **kwargs)`` and its value."""
    t = time.perf_counter()
    out = f(*args, **kwargs)
    return time.perf_counter() - t, out


def _grid(d_values: Iterable[int], k_values: Iterable[int],
          h: Sequence[int] | None) -> Iterator[tuple[int, int, tuple[int, ...]]]:
    """Every (d, k) with k <= d and the histogram of the d largest counts (MovieLens unless ``h`` is given)."""
    full = tuple(h) if h is not None else movielens_histogram()
    for d in d_values:
        hd = top_d(full, d)
        for k in k_values:
            if k <= d:
                yield d, k, hd


def bench_joint(d_values=(100, 1000, 3000, 9066), k_values=(10, 50, 100), eps=1, n_samples=300,
                seed=0, h: Sequence[int] | None = None) -> list[dict]:
    """Sequence JOINT, exact vs float64: seconds of setup and per sample for every (d, k)."""
    rows = []
    for d, k, hd in _grid(d_values, k_values, h):
        sequence_tables.cache_clear()
        mech = JointSequence(k, eps)
        t_setup, tab = _time(mech.tables, hd)
        t_cat, _ = _time(mech.categorical, tab)
        t_ex, _ = _time(mech.sample, hd, rng=np.random.default_rng(seed), size=n_samples)
        t_fsetup, ref = _time(Float64JointSequence, hd, k, float(eps))
        t_f, _ = _time(ref.sample, np.random.default_rng(seed), n_samples)
        rows.append({
            "d": d, "k": k, "eps": eps, "n": n_samples, "gaps": len(tab.gaps),
            "count_bits": tab.below[-1].bit_length(),
            "exact_setup_s": t_setup + t_cat, "exact_per_sample_s": t_ex / n_samples,
            "float_setup_s": t_fsetup, "float_per_sample_s": t_f / n_samples,
        })
    return rows


def bench_joint_sets(d_values=(100, 1000, 9066), k_values=(5, 10, 50, 100), eps=1, n_samples=50,
                     seed=0, h: Sequence[int] | None = None) -> list[dict]:
    """k-set JOINT (exact): Line 2 setup (all gap counts) and per-sample time."""
    rows = []
    for d, k, hd in _grid(d_values, k_values, h):
        set_tables.cache_clear()
        mech = Joint(k, eps)
        t_setup, tab = _time(mech.tables, hd)
        t_s, _ = _time(mech.sample, hd, rng=np.random.default_rng(seed), size=n_samples)
        rows.append({"d": d, "k": k, "eps": eps, "n": n_samples, "gaps": len(tab.gaps),
                     "count_bits": max(tab.below).bit_length(), "setup_s": t_setup,
                     "per_sample_s": t_s / n_samples})
    return rows


def bench_flint(d_values=(1000, 9066), k_values=(50, 100), h: Sequence[int] | None = None) -> list[dict]:
    """Line 2 of Algorithm 1 (all gap counts) with plain Python ints vs python-flint products."""
    from mechanisms.joint import paths as joint_paths
    from mechanisms.joint.sets import SetTables

    full = tuple(h) if h is not None else movielens_histogram()
    rows = []
    saved = joint_paths.USE_FLINT
    try:
        for d in d_values:
            for k in k_values:
                hd = top_d(full, d)
                row = {"d": d, "k": k}
                for flag in (False, True):
                    if flag and not joint_paths.HAVE_FLINT:
                        row["flint_s"] = None
                        continue
                    joint_paths.USE_FLINT = flag
                    t, _ = _time(SetTables, hd, k)
                    row["flint_s" if flag else "python_s"] = t
                rows.append(row)
    finally:
        joint_paths.USE_FLINT = saved
    return rows
