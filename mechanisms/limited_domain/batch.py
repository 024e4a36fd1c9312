"""Batched sampling of the limited-domain Gumbel race as an int64 array (no Python objects per draw).

Law (the same as :func:`mechanisms.limited_domain.race_sample` and
:func:`mechanisms.limited_domain.race_distribution`; DR19, DR19 Algorithm 1
and the module docstring of :mod:`mechanisms.limited_domain`): the Gumbel race
over ``domain ∪ {⊥}`` with rates ``w_i = exp(eps h_i)`` and ``w_⊥ = exp(eps
bot_count) m / delta``.  By DR19 Lemma 4.2 (§4.1: the one-shot Gumbel
order *is* peeling the exponential mechanism) the race order is the order of
sequential sampling **without replacement** proportional to ``w``.  So a draw is:
pick ``o_1`` with probability ``w_{o_1} / sum w``, then ``o_2`` among the rest,
..., stopping after ``k`` items or as soon as ⊥ is picked.  That costs about
``k + 1`` uniforms per draw instead of ``|domain| + 1`` Gumbels plus a partial sort.

Output of :func:`race_sample_array`: shape ``(size, k)`` int64.  Row ``r`` holds
the released item indices in order; ``-1`` marks ⊥ and every place after it.
So a row ``(i_1, ..., i_j, -1, ..., -1)`` with ``j < k`` is the outcome
``(i_1, ..., i_j, BOT)`` and a row without ``-1`` is ``(i_1, ..., i_k)``
(:func:`array_to_outcomes` converts).

Floating point (why the tables look the way they do).  Positions ``0..n`` hold
the ``n`` domain items and ⊥ sorted by decreasing log-weight.  In a draw, let
``f`` be the first position not yet picked; every unpicked weight is at most
``w_f`` (up to the rounding of the sort key), so each step works with weights
*relative to* ``w_f``: ``W[f, i] = exp(lw_i - lw_f)``, where ``lw_i - lw_f =
eps (h_i - h_f)`` is formed from the exact integer difference (counts near
2**62 included: no ``float(h)`` of a large count is ever subtracted) plus
``ln(m/delta)`` for ⊥.  ``S[f, i] = sum_{l >= i} W[f, l]`` is summed from the
smallest weight up, so its relative error is about ``n 2**-53``, and the
remaining mass ``S[f, f] - (picked beyond f)`` is at least ``W[f, f] = 1``, at
least ``1/(n+1)`` of ``S[f, f]``: removing dominant items never cancels
catastrophically (a prefix-sum table would: after removing a weight 1, the rest
may be ``1e-20`` and vanish in ``1 + 1e-20``).  ``f <= k - 1`` always (at most
``k - 1`` picks precede the last step), so the tables have ``min(k, n+1)``
rows.  A weight below ``2**-1074`` of the current ``w_f`` rounds to 0 and is
never picked: the law is then off by at most ``(n+1) 2**-1074`` per step.

The step itself is a rejection step: draw ``u`` uniform, find the position
``i >= f`` with ``S[f, i+1] <= u S[f, f] < S[f, i]`` (a Chen-Asau guide table per
row ``f`` gives a start at or after the answer in O(1); a short vectorised walk
finishes; zero weights are never returned), and redraw the rows whose ``i`` was
already picked.  Accepted values of a rejection loop follow the law restricted
to the unpicked positions, exactly sequential sampling without replacement.
The acceptance rate is at least ``1/(1 + picked)``; rows still rejected after
:data:`MAX_REJECTION_ROUNDS` rounds draw directly from their explicit residual
weights (same law, bounded time when ``k`` is close to ``kbar`` with flat counts).
The search resolves ``u S[f, f]`` to float64, so each step's probabilities carry
an absolute error of order ``2**-52`` (as a float Gumbel race does).

Randomness: only ``rng.random`` (float64 uniforms in [0, 1)), a data-dependent
number of them.  The stream differs from :func:`race_sample`'s (Gumbels): same
law, different draws for the same seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mechanisms.float_sampling import log_ratio
from mechanisms.core import BOT

__all__ = ["race_sample_array", "array_to_outcomes", "outcomes_to_array", "race_tables", "MAX_TABLE_ENTRIES",
           "MAX_REJECTION_ROUNDS"]

#: Largest ``rows * (n + 2)`` table the sampler builds (float64 W and S, int64 guide: ~100 MiB at the cap).
#: Beyond it :func:`race_sample_array` returns ``None`` and the caller falls back to the Gumbel race.
MAX_TABLE_ENTRIES = 2**21

#: Rejection rounds per step before the remaining rows draw from their explicit residual weights.
MAX_REJECTION_ROUNDS = 6


def _positions(h: np.ndarray, domain: np.ndarray, eps: float, bot_count: int, L: float | None) -> tuple[list[Any], list[Any]]:
    """Positions sorted by decreasing log-weight: (labels, integer counts); ⊥ is label -1 (absent if L is None).

    ``domain`` is in decreasing count order (``top_sorted``), so only ⊥'s place is
    searched: after every item with ``eps (h_i - bot_count) >= L``, the same float
    expression as the exponents of :func:`race_tables`, so every ``W[f, i] <= 1 = W[f, f]``.
    """
    counts = [int(x) for x in h[domain].tolist()]
    labels = [int(x) for x in domain.tolist()]
    if L is None:
        return labels, counts
    b = 0
    while b < len(counts) and eps * float(counts[b] - bot_count) >= L:
        b += 1
    return labels[:b] + [-1] + labels[b:], counts[:b] + [bot_count] + counts[b:]


def race_tables(counts: list[Any], labels: list[Any], eps: float, L: float | None, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """``(W, S)``: ``W[f, i] = w_i / w_f`` for ``i >= f`` (0 below), ``S[f, i] = sum_{l >= i} W[f, l]``, ``S[f, n+1] = 0``.

    Exponents are ``eps (h_i - h_f) (+ L for ⊥ at i) (- L for ⊥ at f)`` with the
    count difference taken in Python integers (exact for any count size).
    """
    n1 = len(counts)
    isbot = np.array([lab == -1 for lab in labels])
    c = np.array(counts, dtype=object)
    W = np.zeros((rows, n1))
    for f in range(rows):
        diff = (c[f:] - counts[f]).astype(np.float64)  # exact ints, rounded once
        e = eps * diff
        if L is not None:
            e = e + np.where(isbot[f:], L, 0.0) - (L if isbot[f] else 0.0)
        W[f, f:] = np.exp(e)
    S = np.zeros((rows, n1 + 1))
    # suffix sums from the small end (reversed cumsum): relative error ~ n 2**-53
    S[:, :n1] = np.cumsum(W[:, ::-1], axis=1)[:, ::-1]
    return W, S


def _redraw_picked(choice: np.ndarray, picks: np.ndarray, f: np.ndarray, beyond: np.ndarray, W: np.ndarray,
                   search: tuple[Any, ...], rng: np.random.Generator) -> None:
    """Replace (in place) every ``choice`` of a position its row already picked (``picks``: the earlier steps):
    up to ``MAX_REJECTION_ROUNDS - 1`` rounds of redrawing from the guide tables ``search``, then exact direct draws."""
    total, guide, s_flat, stride, nb = search
    # f itself is never picked, so only choices beyond f in rows with picks beyond f need a test
    todo = np.flatnonzero((choice > f) & (beyond > 0))
    if todo.size:
        todo = todo[_is_picked(picks[:, todo], choice[todo])]
    for _ in range(MAX_REJECTION_ROUNDS - 1):
        if todo.size == 0:
            break
        i = _search(rng.random(todo.size), f[todo], total, guide, s_flat, stride, nb)
        choice[todo] = i
        bad = (i > f[todo]) & _is_picked(picks[:, todo], i)
        todo = todo[bad]
    if todo.size:
        choice[todo] = _direct(W, picks[:, todo], f[todo], rng)


def _advance_first_unpicked(choice: np.ndarray, f: np.ndarray, beyond: np.ndarray, picks: np.ndarray) -> None:
    """Advance ``f`` (in place) past picked positions (a row that picked ⊥ stops, so f never needs to pass ⊥)."""
    adv = np.flatnonzero(choice == f)
    f[adv] += 1
    adv = adv[beyond[adv] > 0]
    while adv.size:
        hit = _is_picked(picks[:, adv], f[adv])
        adv = adv[hit]
        f[adv] += 1
        beyond[adv] -= 1


def race_sample_array(h: np.ndarray, domain: np.ndarray, k: int, eps: float, bot_count: int, m: int, delta: Any, *,
                      rng: np.random.Generator, size: int) -> np.ndarray | None:
    """``size`` draws of the Gumbel race over ``domain ∪ {⊥}`` as a ``(size, k)`` int64 array (module docstring).

    ``-1`` marks ⊥ and the places after it.  ``m = 0`` means ⊥ has weight 0.
    Returns ``None`` (draws nothing) when the tables would exceed :data:`MAX_TABLE_ENTRIES`.
    """
    n = int(domain.size)
    L = log_ratio(m, delta) if m > 0 else None
    labels, counts = _positions(h, domain, eps, bot_count, L)
    n1 = len(counts)
    kk = min(k, n)
    if kk == 0:
        return np.full((size, k), -1, dtype=np.int64)
    rows_t = min(k, n1)
    if rows_t * (n1 + 1) > MAX_TABLE_ENTRIES:
        return None
    W, S = race_tables(counts, labels, eps, L, rows_t)
    lab = np.array(labels, dtype=np.int64)
    total = S[np.arange(rows_t), np.arange(rows_t)]  # S[f, f] >= 1
    nb = _buckets(n1)
    guide = _guide(S, total, nb).reshape(-1)
    s_flat = S.reshape(-1)
    stride = n1 + 1

    # state of the rows still drawing, compacted (rows that picked ⊥ are dropped): their row ids,
    # picks so far (positions, one array per step), f = first unpicked position, and how many
    # picked positions lie beyond f (0 in the common in-order case: then no membership test is needed)
    rid = np.arange(size)
    picks = np.empty((k, size), dtype=np.int64)
    f = np.zeros(size, dtype=np.int64)
    beyond = np.zeros(size, dtype=np.int64)
    out_t = np.full((k, size), -1, dtype=np.int64)  # filled by step (contiguous), transposed at the end
    # without ⊥ (m = 0) and fewer items than k, rows end after n picks with -1 (the old sampler's BOT)
    for step in range(k if L is not None else kk):
        if rid.size == 0:
            break
        choice = _search(rng.random(rid.size), f, total, guide, s_flat, stride, nb)
        _redraw_picked(choice, picks[:step], f, beyond, W, (total, guide, s_flat, stride, nb), rng)
        picks[step, : rid.size] = choice
        labs = lab[choice]
        if rid.size == size:
            out_t[step] = labs
        else:
            out_t[step, rid] = labs
        beyond += choice > f
        _advance_first_unpicked(choice, f, beyond, picks[: step + 1])
        keep = labs != -1
        if not keep.all():
            rid, f, beyond = rid[keep], f[keep], beyond[keep]
            picks = picks[:, keep]
    return np.ascontiguousarray(out_t.T)


def _buckets(n1: int) -> int:
    """Guide-table size: a power of two (so ``floor(u * nb)`` and ``b / nb`` are exact) >= 2 (n + 1)."""
    return 1 << max(1, (2 * n1 - 1).bit_length())


def _guide(S: np.ndarray, total: np.ndarray, nb: int) -> np.ndarray:
    """``guide[f, b]`` = the largest position ``i`` with ``S[f, i] > lo``, ``lo = fl((b / nb) S[f, f])`` (Chen-Asau guide table).

    A uniform ``u`` in bucket ``b = floor(u nb)`` gives ``t = fl(u S[f, f]) >= lo``
    (``nb`` a power of two: ``u nb`` and ``b / nb`` are exact, and rounding is
    monotone), so the answer is at or before ``guide[f, b]``: the search only walks down.
    """
    rows = S.shape[0]
    g = np.empty((rows, nb), dtype=np.int64)
    frac = np.arange(nb, dtype=np.float64) / nb
    for f in range(rows):
        lo = frac * total[f]
        # S[f, f:] is non-increasing: the count of entries > lo, minus one, is the last position above lo
        g[f] = f + np.searchsorted(-S[f, f:], -lo, side="left") - 1
    return g


def _search(u: np.ndarray, f: np.ndarray, total: np.ndarray, guide: np.ndarray, s_flat: np.ndarray, stride: int,
            nb: int) -> np.ndarray:
    """Positions ``i`` with ``S[f, i+1] <= u S[f, f] < S[f, i]`` (zero-weight positions are never returned)."""
    t = u * total[f]
    i = guide[f * nb + (u * nb).astype(np.int64)]
    base = f * stride
    idx = np.flatnonzero(s_flat[base + i] <= t)
    while idx.size:
        i[idx] -= 1
        idx = idx[s_flat[base[idx] + i[idx]] <= t[idx]]
    result: np.ndarray = i
    return result


def _is_picked(picks: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Whether ``pos[r]`` occurs in column ``r`` of ``picks`` (shape ``(steps, rows)``)."""
    hit = np.zeros(pos.size, dtype=bool)
    for row in picks:
        hit |= row == pos
    return hit


def _direct(W: np.ndarray, picks: np.ndarray, f: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One pick per row from the explicit residual weights ``W[f, i]`` over unpicked ``i`` (suffix sums, as above)."""
    w = W[f].copy()
    r = np.arange(f.size)
    for row in picks:
        w[r, row] = 0.0
    s = np.cumsum(w[:, ::-1], axis=1)[:, ::-1]
    t = rng.random(f.size) * s[:, 0]
    # largest i with s[i] > t: count of suffix sums above t, minus one
    result: np.ndarray = (s > t[:, None]).sum(axis=1) - 1
    return result


def array_to_outcomes(arr: np.ndarray) -> list[Any]:
    """Rows of a :func:`race_sample_array` result as outcome tuples (``-1`` -> ``BOT``, nothing after it)."""
    rows = arr.tolist()
    out = list(map(tuple, rows))
    if arr.shape[1]:
        for r in np.flatnonzero(arr[:, -1] == -1).tolist():
            row = rows[r]
            j = row.index(-1)
            out[r] = tuple(row[:j]) + (BOT,)
    return out


def outcomes_to_array(outcomes: list[Any], k: int) -> np.ndarray:
    """Outcome tuples (at most ``k`` indices, optionally ending with ``BOT``) as a ``(len, k)`` int64 array, ``-1`` for ⊥ on."""
    out = np.full((len(outcomes), k), -1, dtype=np.int64)
    for r, o in enumerate(outcomes):
        j = len(o) - (1 if o and o[-1] is BOT else 0)
        out[r, :j] = o[:j]
    return out
