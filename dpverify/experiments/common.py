"""What every design of :mod:`dpverify.experiments` shares: the data sets, the papers' metrics, the configuration.

Data: MovieLens "latest-small" (distinct users per movie), IMDB (votes per title), Netflix
(ratings per movie) from ``data/`` (provenance ``data/README.md``).  Metrics: CWGM20 §6's
``P`` and ``S``, GJMR21 §4's ``l_inf`` error.  Confidence intervals are
normal-approximation 95% intervals of a mean (``mean ± 1.96 s/sqrt(trials)``).
"""

from __future__ import annotations

import csv
import gzip
import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from mechanisms.core import BOT

from dpverify.report.provenance import REPO_ROOT

__all__ = ["Dataset", "load_datasets", "returned_items", "precision", "relative_sum", "linf_error", "mean_ci",
           "Config", "DEFAULT_CONFIG", "NETFLIX_USERS", "Z95", "DATA", "sorted_order", "scores_matrix"]

DATA = REPO_ROOT / "data"
#: users in the Netflix prize training data (BL07); the shipped file has per-movie counts only.
NETFLIX_USERS = 480_189
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Dataset:
    """A count histogram (int64, original item order), item labels, and the n used for delta = 1/n."""

    name: str
    h: np.ndarray
    labels: tuple[str, ...]
    n: int
    n_what: str


def load_datasets(data_dir: Path | str = DATA) -> list[Dataset]:
    """MovieLens (distinct users per movie), IMDB (votes per title), Netflix (ratings per movie)."""
    data_dir = Path(data_dir)
    with gzip.open(data_dir / "movielens_ratings.csv.gz", "rt", newline="") as f:
        pairs = {(r["userId"], r["movieId"]) for r in csv.DictReader(f)}
    users = len({u for u, _ in pairs})
    per = Counter(m for _, m in pairs)
    titles: dict[str, str] = {}
    with gzip.open(data_dir / "movielens_movies.csv.gz", "rt", newline="") as f:
        for r in csv.DictReader(f):
            titles[r["movieId"]] = r["title"]
    mids = sorted(per, key=int)
    ml = Dataset("MovieLens", np.array([per[m] for m in mids], dtype=np.int64),
                 tuple(titles.get(m, f"movieId {m}") for m in mids), users, "distinct users in the ratings file")
    with gzip.open(data_dir / "imdb_movie_votes.csv.gz", "rt", newline="") as f:
        rows = list(csv.DictReader(f))
    ih = np.array([int(r["votes"]) for r in rows], dtype=np.int64)
    imdb = Dataset("IMDB", ih, tuple(f"{r['title']} ({r['year']})" for r in rows), int(ih.sum()),
                   "total votes (the number of voters is not in the data; total votes >= voters, so delta = 1/n is conservative)")
    nh = np.load(data_dir / "NETFLIX.n17770.npy").astype(np.int64)
    nf = Dataset("Netflix", nh, tuple(f"movie {i + 1}" for i in range(nh.size)), NETFLIX_USERS,
                 "users in the Netflix prize data (constant, not derived from the count file)")
    return [ml, imdb, nf]


# ----------------------------------------------------------------------------- metrics
def returned_items(o: Any) -> list[int]:
    """The items an output releases: tuple entries that are not BOT; a frozenset inside (TS transcript) is unpacked."""
    if isinstance(o, frozenset):
        return sorted(o)
    out: list[int] = []
    for x in o:
        if x is BOT:
            continue
        if isinstance(x, frozenset):
            out.extend(sorted(x))
        else:
            out.append(int(x))
    return out


def precision(items: Sequence[int], top: Sequence[int], k: int) -> float:
    """CWGM20 ``P``: number of true top-k items returned, divided by k."""
    return len(set(items) & set(top)) / k


def relative_sum(h: np.ndarray, items: Sequence[int], top: Sequence[int]) -> float:
    """CWGM20 ``S``: sum of the true counts of the returned items / sum of the true top-k counts."""
    den = int(sum(int(h[i]) for i in top))
    return int(sum(int(h[i]) for i in items)) / den if den else 1.0


def linf_error(h: np.ndarray, items: Sequence[int], k: int) -> int:
    """GJMR21 §4 ``l_inf`` error: ``max_i |c_(i) - c_[i](S)|`` over i = 1..k.

    ``c_(i)`` is the i-th largest true count, ``c_[i](S)`` the i-th largest true
    count among the k returned items (a set metric: the order of output is ignored,
    matching JOINT's utility u*, GJMR21 §3).
    """
    if len(items) != k:
        raise ValueError(f"linf_error needs k={k} items, got {len(items)}")
    true = np.sort(h)[::-1][:k]
    est = np.sort(np.asarray([h[i] for i in items], dtype=np.int64))[::-1]
    return int(np.max(np.abs(true - est)))


def mean_ci(x: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """(mean, half-width of the normal-approximation 95% CI)."""
    a = np.asarray(x, dtype=np.float64)
    if a.size < 2:
        return float(a.mean()), float("nan")
    return float(a.mean()), float(Z95 * a.std(ddof=1) / math.sqrt(a.size))


# ----------------------------------------------------------------------------- configuration
@dataclass(frozen=True)
class Config:
    """Trials, grids and seeds for one run (``quick`` shrinks everything)."""

    quick: bool = False
    seed: int = 20201220
    trials_cw: int = 2000
    trials_gj: int = 400
    trials_dr: int = 2000
    eps_cw: tuple = (Fraction(2, 5), Fraction(4, 5), Fraction(1))
    ks_cw: tuple = (3, 10, 50)
    #: CWGM20 Figure 1's axis: every k in 1..100, per data set and eps (S, as the paper plots it)
    ksweep: tuple = tuple(range(1, 101))
    eps_sweep: tuple = (Fraction(2, 5), Fraction(4, 5), Fraction(1))
    trials_sweep: int = 200
    #: the data sets whose LD arms are compared switch by switch (printed -> as run)
    switch_datasets: tuple = ("MovieLens", "IMDB")
    #: CWGM20 §6: Algorithm 6 picks kbar in [k, kbar_hi * k] ("from [k, ..., 5k]")
    kbar_hi: int = 5
    #: CWGM20 §6 TS settings: "TS uses p1 = 0.37" and "fix eps_EM = 0 and kbar = k"
    p1: Fraction = Fraction(37, 100)
    eps_em: Fraction = Fraction(0)
    eps_gj: tuple = (Fraction(1, 10), Fraction(1))
    ds_gj: tuple = (10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 9066)
    k_gj: int = 5
    #: GJMR21's synthetic design: fresh draws of U{0..10d} per d (trials_gj // gj_draws trials each), on a
    #: shorter d grid than MovieLens: JOINT's sampler costs ~0.35 s per fresh histogram at d = 2000, eps = 0.1
    gj_draws: int = 40
    ds_gj_synth: tuple = (10, 20, 50, 100, 200, 500, 1000)
    k_dr: int = 10
    eps_dr: tuple = (Fraction(1, 10), Fraction(1))
    kbars_dr: tuple = (10, 11, 12, 15, 20, 30, 50, 75, 100, 150, 200, 300, 500)

    @classmethod
    def make(cls, quick: bool) -> "Config":
        if not quick:
            return cls()
        return cls(quick=True, trials_cw=100, trials_gj=30, trials_dr=100, ks_cw=(3, 10),
                   ksweep=(1, 5, 10, 30), eps_sweep=(Fraction(1),), trials_sweep=60, gj_draws=5, ds_gj_synth=(10, 100),
                   ds_gj=(10, 100), kbars_dr=(10, 50, 200))


#: the full-size configuration, the default argument of the single-arm runners (a frozen value: safe to share)
DEFAULT_CONFIG = Config()


def _sub_rng(seed: int, *tags: int) -> np.random.Generator:
    """One independent stream per (design, dataset, setting): results do not depend on run order."""
    return np.random.default_rng([seed, *tags])


_ORDER_CACHE: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def sorted_order(h: np.ndarray) -> np.ndarray:
    """All item indices in sorted_items order (count descending, index ascending), computed once per array.

    ``sorted_order(h)[:n]`` equals :func:`mechanisms.limited_domain.domain.top_sorted` ``(h, n)``; the
    cache holds the array itself, so an id is never reused while its entry lives.
    """
    hit = _ORDER_CACHE.get(id(h))
    if hit is not None and hit[0] is h:
        return hit[1]
    order = np.lexsort((np.arange(h.size), -h))
    if len(_ORDER_CACHE) > 64:
        _ORDER_CACHE.clear()
    _ORDER_CACHE[id(h)] = (h, order)
    return order


def _top_restricted(h: np.ndarray, kbar: int) -> tuple[np.ndarray, list[int]]:
    """The true top-(kbar+1) counts (in sorted_items order) and their original indices.

    TS reads only h_(1..kbar+1) (Alg. 3 line 6), so running it on this restriction
    and mapping indices back has the same law as on the full histogram (and is the
    papers' unknown-domain access pattern).
    """
    top = sorted_order(h)[: min(kbar + 1, h.size)]
    return h[top], [int(i) for i in top]


def scores_matrix(h: np.ndarray, items: np.ndarray, top: Sequence[int], k: int, hit_top: Sequence[int] | None = None) -> dict:
    """:func:`_scores` for outputs given as a ``(trials, width)`` int array of item indices, ``-1`` for none."""
    valid = items >= 0
    safe = np.where(valid, items, 0)
    hits = np.isin(safe, np.asarray(top if hit_top is None else hit_top)) & valid
    den = int(sum(int(h[i]) for i in top))
    p = hits.sum(axis=1) / k
    s = (np.where(valid, h[safe], 0).sum(axis=1) / den) if den else np.ones(items.shape[0])
    return {"P": mean_ci(p), "S": mean_ci(s), "full": float(np.mean(valid.sum(axis=1) == k))}


def _scores(h: np.ndarray, outs: list, top: list[int], k: int, hit_top: list[int] | None = None) -> dict:
    """Mean ± CI of P (hits: ``hit_top``, default the true top-k ``top``) and S, and Pr[k items]."""
    items = [o if type(o) is list else returned_items(o) for o in outs]  # lists are already item lists (mapped outputs)
    hits = set(top if hit_top is None else hit_top)
    den = int(sum(int(h[i]) for i in top))
    # the same values as precision() / relative_sum() per output, with the top set and the denominator formed once
    p = [len(hits.intersection(it)) / k for it in items]
    s = [int(h[np.asarray(it, dtype=np.int64)].sum()) / den if den else 1.0 for it in items]
    full = [len(it) == k for it in items]
    return {"P": mean_ci(p), "S": mean_ci(s), "full": float(np.mean(full))}

