"""The certified scan's pair screen (dpverify.checker.batch: the throughput of the wide domains).

The screen lets a certified scan skip pairs that hold by a margin and cannot be the witness.  It is
sound only if (1) its margin enclosures contain the per-pair fast path's for every pair and point, and
(2) the scan's result is the same with and without it.  Both are held here, the first against the
per-pair functions of :mod:`dpverify.checker.enclosure` on random laws with zeros and one-sided outcomes,
the second on claims of every family -- including violated ones -- with a spy showing the screen does skip.
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest
from mpmath import iv

import dpverify.checker.core as core
from dpverify.checker import batch as B
from dpverify.checker import enclosure as E
from mechanisms.core import exact_context
from proofs.registry import get_claim

from support import interval_law

SEED = 20261127


def _laws(n_laws: int, n_out: int, seed: int) -> list[E.LawArrays]:
    rng = random.Random(seed)
    out = []
    for _ in range(n_laws):
        outs = [o for o in range(n_out) if rng.random() < 0.8] or [0]
        if rng.random() < 0.3:  # an outcome only some laws list
            outs.append(("only", rng.randint(0, 3)))
        out.append(E.law_arrays(interval_law(rng, outs, zero_share=0.15, prec=120)))
    return out


@pytest.mark.parametrize("n_out", [3, 40, 120])  # 120 > enclosure.SMALL: the per-pair numpy summation path too
def test_batch_margins_contain_the_per_pair_fast_path(n_out: int) -> None:
    laws = _laws(12, n_out, SEED + n_out)
    s = B.stack(laws)
    a = np.array([i for i in range(12) for j in range(12) if i != j])
    b = np.array([j for i in range(12) for j in range(12) if i != j])
    eps_list = [0, 0.01, 0.5, 3]
    factors = [E.exp_bounds(e) for e in eps_list]
    claimed = [E.float_bounds(x) for x in (0, 1e-3, 0.05, 0.2)]
    pure = [True, False, False, False]
    lo, holds, hi = B.pair_margins(s, a, b, factors, claimed, pure)
    for k, (i, j) in enumerate(zip(a.tolist(), b.tolist(), strict=True)):
        A, Bl = laws[i], laws[j]
        los, his, decided = [], [], True
        for f, c, p in zip(factors, claimed, pure, strict=True):
            if p:
                mb = E.pure_margin_bounds(E.ratio_bounds(A, Bl), f)
                if mb is None:
                    decided = False
                    continue
            else:
                dlo, dhi, _ = E.delta_enclosures(A, Bl, [f])[0]
                mb = E.margin_bounds((dlo, dhi), c)
            los.append(mb[0])
            his.append(mb[1])
            decided &= mb[0] >= 0
        assert lo[k] <= min(los)  # the screen's lower end never exceeds the scan's key
        if decided and len(los) == len(factors):
            assert hi[k] >= min(his)
        if holds[k]:  # decided "holds" by the screen: decided "holds" by the per-pair path too
            assert decided and min(los) >= 0


def test_ratio_bounds_are_the_per_pair_ones_exactly() -> None:
    laws = _laws(10, 30, SEED)
    s = B.stack(laws)
    a = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    b = np.array([9, 8, 7, 6, 5, 4, 3, 2, 1, 0])
    rlo, rhi = B._ratios(s, a, b)
    for k in range(10):
        assert (rlo[k], rhi[k]) == E.ratio_bounds(laws[a[k]], laws[b[k]])


def test_skippable_keeps_violations_undecided_pairs_and_the_smallest() -> None:
    lo = np.array([0.5, 0.1, -0.2, 0.9, 0.9, 0.3])
    holds = np.array([True, True, False, True, False, True])
    upper = 0.3
    got = B.skippable(lo, holds, upper).tolist()
    # 0.5 and 0.9 (decided) lie above the smallest upper end; 0.1 might be the witness; 0.3 ties it (kept)
    assert got == [True, False, False, True, False, False]
    assert not B.skippable(lo, holds, float("inf")).any()
    # the absolute part of the slack: near a zero upper end, a tiny positive lower end is not enough to skip
    assert not B.skippable(np.array([1e-305]), np.array([True]), 0.0)[0]
    assert B.skippable(np.array([1e-290]), np.array([True]), 0.0)[0]


CLAIMS = ["DR19.Thm1", "DR19.Lem4.1", "GJMR21.Thm8", "CWGM20.Thm3.2", "DR19.Lem6.1#corrected", "CWGM20.Thm2.8",
          "DR19.Thm1#linf", "GJMR21.Thm8#literal", "CWGM20.Thm3.2#mutant-gap-to-bottom", "DR19.Lem4.1#monotone-dropped"]


def _fresh_check(cid: str, screen: int, **domain: object) -> dict:
    """``cid`` checked afresh (certified) with ``core.SCREEN = screen`` on its quick domain grown to d = 3, counts 0..3
    (and ``domain``'s other changes); the result's JSON without its time."""
    c = get_claim(cid)
    dom = dataclasses.replace(c.quick_domain, **{"d": 3, "max_count": 3, **domain})
    old = core.SCREEN
    core.SCREEN = screen
    try:
        j = core.check(c, dom, certify=True).as_json()
    finally:
        core.SCREEN = old
    j.pop("seconds")
    return j


@pytest.mark.parametrize("cid", CLAIMS)
def test_screened_scan_gives_the_same_result(cid: str) -> None:
    assert _fresh_check(cid, core.SCREEN) == _fresh_check(cid, 0)


def test_screen_skips_most_pairs_of_a_holding_claim(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = []
    real = core._take
    monkeypatch.setattr(core, "_take",
                        lambda acc, claim, inst, prec, certify: (taken.append(inst), real(acc, claim, inst, prec, certify)))
    c = get_claim("DR19.Lem4.1")
    r = core.check(c, dataclasses.replace(c.quick_domain, d=4, max_count=3, reduce=False, min_d=None), certify=True)
    assert r.verdict == "holds" and r.pairs_checked > 1000
    assert 0 < len(taken) < r.pairs_checked / 4  # most pairs were skipped, the witness was evaluated
    assert (r.worst.h, r.worst.h_prime) in {(i.h, i.h_prime) for i in taken}


def test_a_screen_that_skips_everything_would_be_caught() -> None:
    """Power: skipping every decided pair regardless of the bound changes the witness of a holding claim."""
    c = get_claim("DR19.Lem4.1")
    dom = dataclasses.replace(c.quick_domain, d=3, max_count=3)
    good = core.check(c, dom, certify=True).as_json()
    real = B.skippable
    try:
        core.skippable = lambda lo, holds, upper: holds  # type: ignore[assignment]
        bad = core.check(c, dom, certify=True).as_json()
    finally:
        core.skippable = real
    assert bad["worst"] != good["worst"] or bad["pairs_checked"] != good["pairs_checked"] or bad["verdict"] != good["verdict"]


@pytest.mark.parametrize("n_out", [3, 120])
def test_fast_keys_are_the_per_pair_keys_bit_for_bit(n_out: int) -> None:
    rng = random.Random(SEED + 7 * n_out)
    laws = []
    for _ in range(10):  # full supports, weights within a factor 1.3: most pairs hold at eps = 0.5, some at eps = 0 do not
        w = [rng.randint(10**6, 13 * 10**5) for _ in range(n_out)]
        with exact_context(120, interval=True):
            laws.append(E.law_arrays({o: iv.mpf(x) / sum(w) for o, x in enumerate(w)}))
    s = B.stack(laws)
    a = np.array([i for i in range(10) for j in range(10) if i != j])
    b = np.array([j for i in range(10) for j in range(10) if i != j])
    factors = [E.exp_bounds(e) for e in (0.5, 0.2, 3)]
    claimed = [E.float_bounds(x) for x in (0, 0.05, 0.2)]
    pure = [True, False, False]
    lo, holds, _ = B.pair_margins(s, a, b, factors, claimed, pure)
    keys = B.fast_keys(s, a[holds], b[holds], factors, claimed, pure)
    assert holds.sum() > 5
    for key, i, j in zip(keys, a[holds].tolist(), b[holds].tolist(), strict=True):
        per_pair = [E.pure_margin_bounds(E.ratio_bounds(laws[i], laws[j]), factors[0])[0]]
        for f, c in zip(factors[1:], claimed[1:], strict=True):
            dlo, dhi, _ = E.delta_enclosures(laws[i], laws[j], [f])[0]
            per_pair.append(E.margin_bounds((dlo, dhi), c)[0])
        assert key == min(per_pair)


def test_tied_pairs_keep_the_first_and_evaluate_only_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """DR19.Cor4.1 at (eps = 2, delta = 1e-4): delta_exact(2) = 0 on every pair, so every pair ties at margin 1e-4;
    the scan's witness is the first pair, and the screen evaluates no other (the tie rule, exactly)."""
    c = get_claim("DR19.Cor4.1")
    dom = dataclasses.replace(c.quick_domain, d=3, max_count=3, reduce=False, min_d=None)
    taken = []
    real = core._take
    monkeypatch.setattr(core, "_take",
                        lambda acc, claim, inst, prec, certify: (taken.append(inst), real(acc, claim, inst, prec, certify)))
    screened = core.check(c, dom, certify=True).as_json()
    n_taken = len(taken)
    monkeypatch.setattr(core, "SCREEN", 0)
    plain = core.check(c, dom, certify=True).as_json()
    screened.pop("seconds"), plain.pop("seconds")
    assert screened == plain
    assert n_taken <= len(dom.params) and plain["pairs_checked"] > 100 * n_taken


def _close_laws(n_laws: int, n_out: int, seed: int, absent: bool = True) -> list[E.LawArrays]:
    """Full or nearly full supports, weights within a factor 1.3 (ratios near 1, most pure-DP points decided), and
    now and then an outcome one law does not list or lists with probability exactly 0."""
    rng = random.Random(seed)
    out = []
    for r in range(n_laws):
        w = {o: rng.randint(10**6, 13 * 10**5) for o in range(n_out)}
        if absent and r % 3 == 1:
            del w[rng.randrange(n_out)]
        if absent and r % 3 == 2:
            w[rng.randrange(n_out)] = 0
        tot = sum(w.values())
        with exact_context(120, interval=True):
            out.append(E.law_arrays({o: iv.mpf(x) / tot for o, x in w.items()}))
    return out


def _per_pair(A: E.LawArrays, Bl: E.LawArrays, f: tuple, c: tuple, pure: bool) -> tuple[float, float, float] | None:
    """The per-pair fast path's margin ends, and the delta enclosure's upper end (0 at pure points)."""
    if pure:
        mb = E.pure_margin_bounds(E.ratio_bounds(A, Bl), f)
        return None if mb is None else (mb[0], mb[1], 0.0)
    dlo, dhi, _ = E.delta_enclosures(A, Bl, [f])[0]
    return (*E.margin_bounds((dlo, dhi), c), dhi)


@pytest.mark.parametrize("n_out", [3, 30, 120])
@pytest.mark.parametrize("far", [False, True])
def test_each_points_margin_contains_the_per_pair_one_and_is_barely_wider(n_out: int, far: bool) -> None:
    """Per point and pair (identical pairs included): the screen's margin enclosure contains the per-pair one, its
    'holds' is the per-pair one's, and it is wider only by the summation allowance (c = 2 (n + 4) 2^-52 relative,
    plus a few ulps; 8-ulp logarithms for pure DP)."""
    laws = _laws(9, n_out, SEED + n_out) if far else _close_laws(9, n_out, SEED + n_out)
    s = B.stack(laws)
    a = np.array([i for i in range(9) for j in range(9)])
    b = np.array([j for i in range(9) for j in range(9)])
    c_rel = 2.0 * (s.n + 4) * 2.0 ** -52
    for eps, dc in [(0, 0), (0.01, 0.001), (0.2, 0.05), (0.3, 0), (3, 0.2)]:
        f, c, pure = E.exp_bounds(eps), E.float_bounds(dc), dc == 0
        lo, holds, hi = B.pair_margins(s, a, b, [f], [c], [pure])
        for k, (i, j) in enumerate(zip(a.tolist(), b.tolist(), strict=True)):
            pp = _per_pair(laws[i], laws[j], f, c, pure)
            if pp is None:  # undecided pure-DP point: the screen decides nothing either
                assert lo[k] == -np.inf and hi[k] == np.inf and not holds[k]
                continue
            assert lo[k] <= pp[0] and hi[k] >= pp[1]
            assert bool(holds[k]) == (pp[0] >= 0)
            # the summation allowance c * delta, plus a few ulps of the margin (2.5 c would already fail: the
            # allowance is pinned, not just bounded)
            slack = 1e-12 if pure else 1.25 * c_rel * pp[2] + 4 * np.spacing(max(abs(pp[0]), abs(pp[1]), pp[2])) + 1e-300
            assert lo[k] == pp[0] or pp[0] - lo[k] <= slack, (eps, dc, i, j, lo[k], pp)
            assert hi[k] == pp[1] or hi[k] - pp[1] <= slack, (eps, dc, i, j, hi[k], pp)


def test_a_pure_point_at_the_ratio_bound_itself_is_decided_as_the_per_pair_path_decides() -> None:
    laws = _close_laws(4, 6, SEED, absent=False)
    s = B.stack(laws)
    a, b = np.array([0, 1, 2]), np.array([1, 2, 3])
    for k in range(3):
        rlo, rhi = E.ratio_bounds(laws[a[k]], laws[b[k]])
        f = (rhi, np.nextafter(rhi, np.inf))  # e^eps enclosed exactly at the largest ratio: 'holds', margin 0
        pp = E.pure_margin_bounds((rlo, rhi), f)
        lo, holds, _ = B.pair_margins(s, a[k:k + 1], b[k:k + 1], [f], [(0.0, 0.0)], [True])
        assert pp is not None and holds[0] and lo[0] <= pp[0]


def test_ratio_bounds_of_close_laws_are_the_per_pair_ones_exactly() -> None:
    laws = _close_laws(9, 12, SEED + 3)
    s = B.stack(laws)
    a = np.array([i for i in range(9) for j in range(9)])
    b = np.array([j for i in range(9) for j in range(9)])
    rlo, rhi = B._ratios(s, a, b)
    for k, (i, j) in enumerate(zip(a.tolist(), b.tolist(), strict=True)):
        assert (rlo[k], rhi[k]) == E.ratio_bounds(laws[i], laws[j])


def test_blocks_of_pairs_give_the_same_margins_as_one_block(monkeypatch: pytest.MonkeyPatch) -> None:
    laws = _close_laws(6, 8, SEED + 11)
    s = B.stack(laws)
    a = np.array([i for i in range(6) for j in range(6)])
    b = np.array([j for i in range(6) for j in range(6)])
    args = ([E.exp_bounds(0.2), E.exp_bounds(0.3)], [E.float_bounds(0.05), (0.0, 0.0)], [False, True])
    whole = B.pair_margins(s, a, b, *args)
    monkeypatch.setattr(B, "BLOCK", 7)  # 36 pairs in blocks of 7: the last block is short
    blocked = B.pair_margins(s, a, b, *args)
    for x, y in zip(whole, blocked, strict=True):
        assert np.array_equal(x, y)
