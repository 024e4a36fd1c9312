"""Exact path counting for JOINT (GJMR21 §3.1: matrix M, M-hat, A^{ij}, Lemmas 6-7).

Everything here is combinatorics on Python integers: no float, no log.  The seed
(§5) says the counts reach O(d^k) and calls the overflow an open numerical
problem; Python's unbounded ``int`` solves it exactly, and the Toeplitz products
of Lemma 7 are done as *one* big-integer multiplication each (Kronecker
substitution: a vector of non-negative integers is packed into one integer with
a slot wide enough for every coefficient of the product).

Coordinates.  ``v = sorted counts`` (``mechanisms.core.sorted_items`` order:
larger count first, ties -> smaller index first); sorted *positions* are
1-based as in the seed.  A k-subset S is the increasing position sequence
``q_1 < ... < q_k``; its i-th largest count is ``v[q_i]`` whatever the tie
order, so the utility ``-max_i (v_i - v_{q_i})`` (Lemma 5 closed form) depends on
values only.  ``thresholds(v, k, m)`` gives ``t_i(m) = #{p : v_p >= v_i - m}``:
a set has ``max_i (v_i - v_{q_i}) <= m`` iff ``q_i <= t_i(m)`` for every i, and
``t`` is non-decreasing in i.  Counting such sets is the staircase count
:func:`count_bounded` (the path count of Lemma 6, computed as in Lemma 7).
"""

from __future__ import annotations

from math import comb
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "matrix_M",
    "matrix_M_hat",
    "matrix_A",
    "count_paths_grid",
    "count_paths_lemma7",
    "thresholds",
    "count_bounded",
    "FlagDP",
    "binom_row",
    "conv_trunc",
]

BOT_ENTRY = None  #: the ⊥ entries of M (Algorithm 1, Line 1)

_flint: Any
try:  # optional exact accelerator for Lemma 7's Toeplitz products (identical integers)
    import flint as _flint
except ImportError:  # pragma: no cover - plain Python ints are the reference path
    _flint = None

#: Whether python-flint is importable (the accelerated path exists; benchmarks and tests report or skip on it).
HAVE_FLINT = _flint is not None

#: Use python-flint for long convolutions when it is importable (tests flip it to compare).
USE_FLINT = True


# --------------------------------------------------------------------------- #
# Algorithm 1 Line 1, Definition 6 (M, M-hat, A^{ij}) -- literal transcriptions
# --------------------------------------------------------------------------- #
def matrix_M(v: Sequence[int], k: int) -> list[list[int | None]]:
    """Algorithm 1 Line 1, literally: the k x d matrix with ``M_ij = c_i - c_j`` if
    ``c_i - c_j >= 0`` and ``d - j >= k - i``, ⊥ (``None``) otherwise (1-based i, j,
    returned 0-based).  ``v`` must be sorted non-increasingly.

    Under Assumption 1 (distinct counts) ``c_i - c_j >= 0`` means ``j >= i``.  With
    ties the printed condition also admits ``j < i`` inside a tie block (value 0);
    this literal reading is what :class:`mechanisms.joint.JointLiteral` samples from.
    """
    d = len(v)
    return [
        [v[i - 1] - v[j - 1] if (v[i - 1] - v[j - 1] >= 0 and d - j >= k - i) else BOT_ENTRY
         for j in range(1, d + 1)]
        for i in range(1, k + 1)
    ]


def matrix_M_hat(v: Sequence[int], k: int) -> list[list[int]]:
    """Definition 6 (seed §3.1): M "left-aligned" to remove ⊥s, plus a row of 1s.

    Row i (1-based) holds ``c_i - c_{i+r-1}`` for r = 1..d-k+1 -- the entries
    ``i <= j <= d-k+i`` of M, as in the printed k=3, d=5 example (with ties the
    extra literal ``j < i`` entries of Line 1 are *not* moved into M-hat: the
    printed shape (k+1) x (d-k+1) has no room for them).
    """
    d = len(v)
    rows = [[v[i - 1] - v[i + r - 2] for r in range(1, d - k + 2)] for i in range(1, k + 1)]
    rows.append([1] * (d - k + 1))
    return rows


def matrix_A(Mh: Sequence[Sequence[int]], i: int, j: int, *, strict: bool = True) -> list[list[int]]:
    """Definition 6: ``A^{ij}_{lr} = 1[M-hat_{lr} < M-hat_{ij}]`` (``strict=True``, as printed).

    ``i, j`` index M-hat (1-based).  ``strict=False`` uses ``<=``, the reading the
    printed example A^{34} needs (its entry (3,2) is M-hat_{32} itself and is
    printed as 1).  The appended last row is all 1s whatever the comparison (it is
    the path's landing row, not a count difference).
    """
    ref = Mh[i - 1][j - 1]
    k1 = len(Mh)
    out = []
    for row_no, row in enumerate(Mh, start=1):
        if row_no == k1:
            out.append([1] * len(row))
        else:
            out.append([int(x < ref) if strict else int(x <= ref) for x in row])
    return out


def count_paths_grid(A: Sequence[Sequence[int]]) -> int:
    """Lemma 6's path count by plain dynamic programming: right/down paths from
    ``A_{1,1}`` to the bottom-right corner visiting only 1s (the brute-force twin)."""
    rows, cols = len(A), len(A[0])
    f = [[0] * cols for _ in range(rows)]
    for row_no in range(rows):
        for r in range(cols):
            if not A[row_no][r]:
                continue
            if row_no == 0 and r == 0:
                f[row_no][r] = 1
            else:
                f[row_no][r] = (f[row_no - 1][r] if row_no else 0) + (f[row_no][r - 1] if r else 0)
    return f[-1][-1]


def count_paths_lemma7(A: Sequence[Sequence[int]]) -> int:
    """Lemma 7: the same count as a product ``Q_1 Q_2 ... Q_{O(k)}`` of Pascal/Toeplitz blocks.

    Rows of A are first cut to their reachable 1-prefix (a cell right of the next
    row's prefix can never go down: ``p_l <- min(p_l, p_{l+1})``; a 0 inside a
    prefix also cuts it).  The distinct prefix lengths split the columns into
    blocks; inside a block every open row is a full rectangle, so the number of
    paths from entering column ``c0+1`` at row ``r`` to leaving column ``c1`` at row
    ``r'`` is ``binom(c1-c0-1 + r'-r, r'-r)`` -- a Toeplitz matrix in ``r'-r`` built
    from Pascal's triangle, applied as one exact big-integer convolution.  The
    boundary column ``e_j`` of the seed is the set of rows that may leave a block
    to the right.  Returns 0 if the start or the end cell is 0.
    """
    rows, cols = len(A), len(A[0])
    p = []
    for row in A:
        n = 0
        while n < cols and row[n]:
            n += 1
        p.append(n)
    for row_no in range(rows - 2, -1, -1):
        p[row_no] = min(p[row_no], p[row_no + 1])
    if p[0] == 0 or p[-1] < cols:
        return 0
    # vector over rows 0..rows-1: number of paths that leave the current boundary column
    # to the right at that row (start: "leave column 0 at row 0").
    vec = [1] + [0] * (rows - 1)
    c0 = 0
    for c1 in sorted(set(p)):
        rho = next(row_no for row_no in range(rows) if p[row_no] >= c1)  # first open row of the block
        for row_no in range(rho):  # rows above the block are closed
            vec[row_no] = 0
        # Toeplitz block: Q[r, r'] = binom(c1 - c0 - 1 + r' - r, r' - r), r' >= r.
        steps = c1 - c0 - 1
        kern = [comb(steps + t, t) for t in range(rows)]
        vec = conv_trunc(vec, kern, rows - 1)
        c0 = c1
    return vec[rows - 1]


# --------------------------------------------------------------------------- #
# Exact big-integer convolution (the engine of Lemma 7)
# --------------------------------------------------------------------------- #
def binom_row(L: int, k: int) -> list[int]:
    """``[C(L, 0), ..., C(L, k)]`` exactly (zeros beyond L)."""
    out = [1]
    c = 1
    for a in range(k):
        c = c * (L - a) // (a + 1)
        out.append(c)
    return out


def conv_trunc(a: Sequence[int], b: Sequence[int], k: int) -> list[int]:
    """``c_s = sum_t a_t b_{s-t}`` for s = 0..k, exactly, for non-negative integers.

    If python-flint is installed (and :data:`USE_FLINT`), long vectors are multiplied
    as FLINT ``fmpz_poly`` (exact integer polynomials; measured ~6x faster than the
    pure-Python path at k = 100, see the JOINT sections of reports/performance.md) -- same integers either way.

    Short vectors: schoolbook.  Long ones: Kronecker substitution -- pack each
    vector into one integer with slots of ``B`` bits, where ``B`` bounds every
    coefficient of the full product (``bitlen(max a) + bitlen(max b) +
    bitlen(len)``), multiply once, and read the slots back.  CPython's
    Karatsuba multiplication then does Lemma 7's Toeplitz product.
    """
    a = list(a[: k + 1])
    b = list(b[: k + 1])
    if _flint is not None and len(a) > 16 and USE_FLINT:
        c = (_flint.fmpz_poly(a) * _flint.fmpz_poly(b)).coeffs()[: k + 1]
        return [int(x) for x in c] + [0] * (k + 1 - len(c))
    if len(a) <= 16:
        out = [0] * (k + 1)
        for t, x in enumerate(a):
            if x:
                for u in range(min(len(b), k + 1 - t)):
                    out[t + u] += x * b[u]
        return out
    B = max(a).bit_length() + max(b).bit_length() + (k + 1).bit_length() + 1
    B = (B + 7) // 8 * 8
    nbytes = B // 8
    pa = int.from_bytes(b"".join(x.to_bytes(nbytes, "little") for x in a), "little")
    pb = int.from_bytes(b"".join(x.to_bytes(nbytes, "little") for x in b), "little")
    prod = (pa * pb).to_bytes(nbytes * (len(a) + len(b)), "little")
    return [int.from_bytes(prod[s * nbytes:(s + 1) * nbytes], "little") for s in range(k + 1)]


# --------------------------------------------------------------------------- #
# Thresholds and the staircase count (Lemma 6 + Lemma 7 in position coordinates)
# --------------------------------------------------------------------------- #
def thresholds(v: Sequence[int], k: int, m: int, *, neg_sorted: Sequence[int] | None = None) -> list[int]:
    """``[t_1(m), ..., t_k(m)]`` with ``t_i(m) = #{p : v_p >= v_i - m}`` (v sorted non-increasing).

    ``neg_sorted`` (the list ``[-x for x in v]``, ascending) may be passed to avoid
    rebuilding it.
    """
    ns = neg_sorted if neg_sorted is not None else [-x for x in v]
    # #{p : v_p >= x} = #{p : -v_p <= -x} = bisect_right(ns, -x)
    from bisect import bisect_right

    return [bisect_right(ns, m - v[i]) for i in range(k)]


def _segments(bounds: Sequence[int]) -> list[int]:
    return sorted(set(bounds))


def count_bounded(b: Sequence[int], k: int) -> int:
    """``#{q_1 < ... < q_k : 1 <= q_i <= b_i}`` for non-decreasing integer bounds ``b``.

    Equivalently (Lemma 6) the number of right/down paths through the 0/1 staircase
    whose row i is open up to ``b_i``: ``q_i <= b_i`` for all i iff at every
    breakpoint tau at least ``#{i : b_i <= tau}`` of the q's are ``<= tau``.  Positions
    are processed in blocks between breakpoints; a block of L positions multiplies
    the state vector (by number chosen) by the Toeplitz matrix ``C(L, s'-s)``
    (Lemma 7).  Exact integers throughout.
    """
    if any(b[i] < i + 1 for i in range(k)):
        return 0
    vec = [1] + [0] * k
    prev = 0
    for tau in _segments(b[:k]):
        vec = conv_trunc(vec, binom_row(tau - prev, k), k)
        need = bisect_left_count(b, tau, k)
        for s in range(need):
            vec[s] = 0
        prev = tau
    return vec[k]


def bisect_left_count(b: Sequence[int], tau: int, k: int) -> int:
    """``#{i < k : b_i <= tau}`` for non-decreasing ``b``."""
    from bisect import bisect_right

    return bisect_right(b, tau, 0, k)


class FlagDP:
    """Uniform sampling of k-subsets with ``q_i <= hi_i`` for all i and ``q_i > lo_i`` for some i.

    ``hi`` = thresholds at gap m, ``lo`` = thresholds at the next smaller gap: the
    sets accepted are exactly those whose utility is *exactly* ``-m``.  Forward
    pass over blocks between the breakpoints of ``hi`` and ``lo`` with state (s =
    number chosen so far, f = "some row already exceeds lo"); ``count`` is the
    number of accepted sets.  :meth:`sample` draws one uniformly by backward
    sampling with exact integer weights, then a uniform subset inside each block.
    """

    def __init__(self, hi: Sequence[int], lo: Sequence[int], k: int):
        self.k = k
        self.hi = list(hi)
        self.lo = list(lo)
        bps = sorted(set(self.hi) | set(x for x in self.lo if x < self.hi[-1]))
        self.blocks: list[tuple[int, int]] = []     # (start position exclusive, end inclusive)
        self.states: list[tuple[list[int], list[int]]] = [([1] + [0] * k, [0] * (k + 1))]
        self.lower_lo: list[int] = []
        v0, v1 = self.states[0]
        prev = 0
        valid = all(self.hi[i] >= i + 1 for i in range(k))
        for tau in bps:
            if not valid:
                break
            row = binom_row(tau - prev, k)
            v0 = conv_trunc(v0, row, k)
            v1 = conv_trunc(v1, row, k)
            need = bisect_left_count(self.hi, tau, k)
            need_lo = bisect_left_count(self.lo, tau, k)
            for s in range(need):
                v0[s] = 0
                v1[s] = 0
            for s in range(need_lo):                 # some q_i > lo_i already forced
                v1[s] += v0[s]
                v0[s] = 0
            self.blocks.append((prev, tau))
            self.lower_lo.append(need_lo)
            self.states.append((v0, v1))
            prev = tau
        self.count = self.states[-1][1][k] if valid and self.blocks else 0
        self._steps: dict[Any, Any] = {}

    def _step(self, b: int, s: int, f: int) -> tuple[list[tuple[int, int]], list[int]]:
        """Predecessor states of (s, f) after block b, with cumulative exact weights (cached)."""
        key = (b, s, f)
        if key not in self._steps:
            start, end = self.blocks[b]
            L = end - start
            prev0, prev1 = self.states[b]
            fpre = [f] if not (f == 1 and s < self.lower_lo[b]) else [0, 1]
            cands, cum, tot = [], [], 0
            for fp in fpre:
                vec = prev1 if fp else prev0
                for s0 in range(max(0, s - L), s + 1):
                    w = vec[s0] * comb(L, s - s0)
                    if w:
                        tot += w
                        cands.append((s0, fp))
                        cum.append(tot)
            self._steps[key] = (cands, cum)
        result: tuple[list[tuple[int, int]], list[int]] = self._steps[key]
        return result

    def sample(self, rng: np.random.Generator) -> list[int]:
        """One accepted set, uniformly, as 1-based sorted positions."""
        from bisect import bisect_right

        from .sampling import randbelow

        if self.count == 0:
            raise ValueError("no set has this utility")
        s, f = self.k, 1
        chosen: list[int] = []
        for b in range(len(self.blocks) - 1, -1, -1):
            cands, cum = self._step(b, s, f)
            s0, fp = cands[bisect_right(cum, randbelow(rng, cum[-1]))]
            a = s - s0
            if a:
                start, end = self.blocks[b]
                chosen.extend(start + 1 + p for p in floyd_subset(rng, end - start, a))
            s, f = s0, fp
        return sorted(chosen)


def floyd_subset(rng: np.random.Generator, n: int, a: int) -> set[int]:
    """A uniformly random a-subset of range(n) (Floyd's algorithm: a draws, exact)."""
    out: set[int] = set()
    for j in range(n - a, n):
        t = int(rng.integers(0, j + 1))
        out.add(j if t in out else t)
    return out
