"""Outputs as numbers: any sampler's outputs as float rows, and the features a learned likelihood ratio reads.

An audit without a discrete reference cannot count outcomes one by one: a
mechanism may release reals (a noisy count), real vectors (a noisy histogram),
or tuples mixing indices with released values (index + noisy count).  Here

* :class:`Encoder` turns raw outputs into a float array ``(n, width)``: numbers
  stay numbers, ``None`` / ⊥ / ``'⊥'`` become ``nan``, a set becomes its sorted
  elements; rows of different lengths are padded with ``nan`` and a last column
  holds the length.  The width is fixed by the first batch (later longer rows are
  cut, their length column still says so).
* :func:`row_keys` gives one hashable key per row (for counting discrete outputs).
* :class:`FeatureMap` (fit on a training sample) gives, per column: indicators of
  its *atoms* (values taking at least :data:`ATOM_SHARE` of the sample, e.g. the
  sentinels of a sparse vector, or every value of a column with at most
  :data:`MAX_CATEGORIES` distinct values), indicators of :data:`BINS` quantile bins
  of the remaining values and the standardised value itself; the same for the first
  differences of consecutive continuous columns (running sums such as prefix sums
  are linear in them).  A linear score over these features is an additive model of
  arbitrary shape per coordinate -- the exact log-likelihood ratio of a mechanism
  with independent coordinates (noisy histograms, RAPPOR, Laplace in parallel) --
  plus the raw linear terms DP-Sniper's logistic regression uses (BSBV21).
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Sequence

import numpy as np
from scipy import sparse

from mechanisms.core import BOT
from mechanisms.errors import AdapterError

__all__ = ["Encoder", "row_keys", "FeatureMap", "ATOM_SHARE", "MAX_CATEGORIES", "BINS"]

#: a value taking at least this share of a column's training sample is an atom (its own indicator)
ATOM_SHARE = 0.005
#: a column with at most this many distinct values is categorical (one indicator per value)
MAX_CATEGORIES = 32
#: quantile bins of a column's non-atom values
BINS = 16
#: at most this many atoms per column
MAX_ATOMS = 8

_BOT_STRINGS = frozenset({"⊥", "bot", "BOT", "Bot", "stop", "STOP"})


def _scalar(x: Any, raw: Any) -> float:
    if x is None or x is BOT:
        return math.nan
    if isinstance(x, str):
        if x in _BOT_STRINGS:
            return math.nan
        raise AdapterError(f"cannot read output {raw!r} as numbers: element {x!r} is a string")
    if isinstance(x, (bool, np.bool_)):
        return float(x)
    if isinstance(x, numbers.Real):
        return float(x)
    raise AdapterError(f"cannot read output {raw!r} as numbers: element {x!r} of type {type(x).__name__}")


def _row(raw: Any) -> list[float]:
    if isinstance(raw, np.ndarray):
        if raw.ndim == 0:
            return [_scalar(raw.item(), raw)]
        if raw.ndim != 1:
            raise AdapterError(f"cannot read output of shape {raw.shape} as numbers: one output must be a scalar or 1-D")
        return [_scalar(x, raw) for x in raw.tolist()]
    if isinstance(raw, (set, frozenset)):
        return sorted(_scalar(x, raw) for x in raw)
    if isinstance(raw, (list, tuple)):
        out: list[float] = []
        for x in raw:
            if isinstance(x, (list, tuple, np.ndarray, set, frozenset)) and not isinstance(x, str):
                raise AdapterError(f"cannot read output {raw!r} as numbers: nested sequence {x!r}")
            out.append(_scalar(x, raw))
        return out
    if isinstance(raw, (dict, str, bytes)):
        if isinstance(raw, str) and raw in _BOT_STRINGS:
            return [math.nan]
        hint = (" (a release of keys with values: audit its values with --values T,W, its key set by returning the keys)"
                if isinstance(raw, dict) else "")
        raise AdapterError(f"cannot read output {raw!r} as numbers: a {type(raw).__name__} is not an output{hint}")
    return [_scalar(raw, raw)]


class Encoder:
    """Raw outputs -> float rows of a fixed width (module docstring).  One encoder per audit."""

    def __init__(self) -> None:
        self.width: int | None = None
        self.variable = False

    def encode(self, raws: Any) -> np.ndarray:
        """``(n, width)`` float64 rows of a batch (a numpy array or a sequence of outputs)."""
        if isinstance(raws, np.ndarray) and raws.dtype.kind in "biuf" and raws.ndim in (1, 2):
            X = raws.astype(np.float64, copy=False)
            X = X[:, None] if X.ndim == 1 else X
            return self._fit_width([X.shape[1]] * X.shape[0], X)
        rows = [_row(r) for r in raws]
        lens = [len(r) for r in rows]
        if self.width is None:
            w = max(lens, default=1) or 1
        else:
            w = self.width - (1 if self.variable else 0)
        X = np.full((len(rows), max(w, 1)), np.nan)
        for i, r in enumerate(rows):
            r = r[:w]
            X[i, : len(r)] = r
        return self._fit_width(lens, X)

    def _fit_width(self, lens: Sequence[int], X: np.ndarray) -> np.ndarray:
        if self.width is None:
            self.variable = len(set(lens)) > 1
            self.width = X.shape[1] + (1 if self.variable else 0)
        if self.variable:
            base = self.width - 1
            if X.shape[1] < base:
                X = np.hstack([X, np.full((X.shape[0], base - X.shape[1]), np.nan)])
            X = np.hstack([X[:, :base], np.asarray(lens, dtype=np.float64)[:, None]])
        elif X.shape[1] != self.width:
            raise AdapterError(f"output width changed from {self.width} to {X.shape[1]}; "
                               "outputs of one audit must have one length (or vary from the first batch on)")
        return X


def row_keys(X: np.ndarray) -> np.ndarray:
    """One hashable-compatible key per row (a numpy void scalar of the row's bytes; ``nan`` rows compare equal)."""
    X = np.ascontiguousarray(np.where(np.isnan(X), np.nan, X))  # one NaN bit pattern
    return X.view(np.dtype((np.void, X.dtype.itemsize * X.shape[1]))).reshape(-1)


class _Column:
    """The feature recipe of one (possibly derived) column."""

    def __init__(self, x: np.ndarray):
        finite = x[np.isfinite(x)]
        n = max(1, x.size)
        nan_share = float(np.isnan(x).mean()) if x.size else 0.0
        vals, counts = np.unique(x[~np.isnan(x)], return_counts=True)  # nan is counted apart (np.unique splits it)
        if vals.size <= MAX_CATEGORIES:
            self.atoms = [float(v) for v in vals]
        else:
            order = np.argsort(-counts)
            self.atoms = [float(vals[j]) for j in order[:MAX_ATOMS] if counts[j] >= ATOM_SHARE * n]
        self.nan_atom = nan_share > 0
        rest = finite[~np.isin(finite, self.atoms)] if finite.size else finite
        if rest.size >= 4 * BINS:
            qs = np.quantile(rest, np.linspace(0, 1, BINS + 1)[1:-1])
            self.edges = np.unique(qs)
        else:
            self.edges = np.array([])
        self.continuous = rest.size > 0 and vals.size > MAX_CATEGORIES
        if self.continuous:
            self.mean = float(rest.mean())
            self.std = float(rest.std()) or 1.0
        self.size = len(self.atoms) + int(self.nan_atom) + (self.edges.size + 2 if self.continuous else 0)

    def block(self, x: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
        """(rows, cols, data) of this column's features for the values ``x``, column offsets from 0."""
        n = x.size
        idx = np.arange(n)
        rows, cols, data = [], [], []
        is_atom = np.zeros(n, dtype=bool)
        for j, a in enumerate(self.atoms):
            m = x == a
            is_atom |= m
            rows.append(idx[m])
            cols.append(np.full(m.sum(), j))
            data.append(np.ones(m.sum()))
        off = len(self.atoms)
        if self.nan_atom:
            m = np.isnan(x)
            is_atom |= m
            rows.append(idx[m])
            cols.append(np.full(m.sum(), off))
            data.append(np.ones(m.sum()))
            off += 1
        if self.continuous:
            m = ~is_atom & np.isfinite(x)
            b = np.searchsorted(self.edges, x[m], side="right")
            rows.append(idx[m])
            cols.append(off + b)
            data.append(np.ones(m.sum()))
            off += self.edges.size + 1
            z = np.clip((x[m] - self.mean) / self.std, -50, 50)
            rows.append(idx[m])
            cols.append(np.full(m.sum(), off))
            data.append(z)
        return rows, cols, data


class FeatureMap:
    """Features of float rows for a learned ratio (module docstring); fit once on a training sample."""

    def __init__(self, X: np.ndarray, *, diffs: bool = True):
        X = np.asarray(X, dtype=np.float64)
        self.width = X.shape[1]
        self.cols = [_Column(X[:, j]) for j in range(self.width)]
        cont = [j for j, c in enumerate(self.cols) if c.continuous]
        self.pairs = [(i, j) for i, j in zip(cont, cont[1:], strict=False) if j == i + 1] if diffs else []
        self.dcols = [_Column(self._diff(X, i, j)) for i, j in self.pairs]
        self.size = sum(c.size for c in self.cols) + sum(c.size for c in self.dcols)

    @staticmethod
    def _diff(X: np.ndarray, i: int, j: int) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            d = X[:, j] - X[:, i]
        return np.where(np.isfinite(X[:, i]) & np.isfinite(X[:, j]), d, np.nan)

    def transform(self, X: np.ndarray) -> sparse.csr_matrix:
        """The sparse feature matrix ``(n, size)`` of ``X``."""
        X = np.asarray(X, dtype=np.float64)
        n = X.shape[0]
        R, C, D = [], [], []
        off = 0
        blocks = [(c, X[:, j]) for j, c in enumerate(self.cols)]
        blocks += [(c, self._diff(X, i, j)) for c, (i, j) in zip(self.dcols, self.pairs, strict=True)]
        for col, x in blocks:
            rows, cols, data = col.block(x)
            R += rows
            C += [c + off for c in cols]
            D += data
            off += col.size
        if not R:
            return sparse.csr_matrix((n, max(1, self.size)))
        return sparse.csr_matrix((np.concatenate(D), (np.concatenate(R), np.concatenate(C))), shape=(n, max(1, self.size)))
