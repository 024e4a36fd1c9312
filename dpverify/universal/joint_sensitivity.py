"""JOINT's utility has add/remove sensitivity 1 for EVERY count (lengths <= 6, exactly), and the generic EM lemma.

JOINT (GJMR21 Def. 3 / Lemma 5; the sequences of its ICML 2022 version) is an exponential mechanism ``P(S) = F^{u(h,S)} / Z(h)``,
``F = e^{eps/2}``, with ``u(h, S) = -max_i (a_i - b_i)``: ``a_i`` the i-th largest count of h, ``b_i`` the i-th
largest count inside the k-set S (sets) or the count of the i-th item of the sequence s (sequences).

GENERIC EM LEMMA.  If ``|u(h,S) - u(h',S)| <= Delta`` for every outcome then ``Z(h')/Z(h)`` lies in
``[F^{-Delta}, F^{Delta}]`` (termwise: ``F^{Delta} F^{u(h,S)} - F^{u(h',S)} >= 0``, a polynomial in F with a
non-negative coefficient in ``t = F - 1``) and ``P(S)/Q(S) = F^{u(h,S) - u(h',S)} Z(h')/Z(h) <= F^{2 Delta}``:
with Delta = 1, ``e^{eps}``.

SENSITIVITY over structures.  With h sorted (u uses count values and is permutation-equivariant), every gap
``g_l = h_(l-1) - h_(l)`` is 0, 1 or ``>= 2``; a gap ``>= 2`` is kept as a SYMBOL (any value >= 2).  Counts are
linear forms ``const + sum_l c_l L_l``.  For ``h' = h + v`` (v in {0,1}^d) the order of h' is decided by the
pattern alone: two counts separated by a symbolic gap differ by at least 2 - 1 > 0 whatever v does.  So the
order statistics of h' (and inside S) are linear forms, and ``delta_i = (a'_i - b'_i) - (a_i - b_i)`` is
computed exactly.  If every ``delta_i`` has no symbolic part and lies in ``{-1, 0, 1}`` then
``max_i (T_i + delta_i) - max_i T_i`` is in ``[-1, 1]`` for EVERY value of the symbols: sensitivity 1 on the
whole structure, all counts.  Lengths beyond the check: the written argument (order statistics are monotone and
shift-equivariant, so ``a_i <= a'_i <= a_i + 1``, likewise ``b``), mechanisms/joint/sets.py -- not machine-checked.
"""

from __future__ import annotations

import functools
import itertools
import time
from fractions import Fraction
from typing import Any, Iterator

from .em_witness import box_witness
from .result import HOLDS, UNDECIDED, VIOLATED, UniversalResult
from .stagewise import generic_em_lemma

__all__ = ["sensitivity_structures", "check_sensitivity"]

SMALL = (0, 1)


def _form(pattern: tuple, p: int) -> tuple:
    """Count at sorted position p (top = 0): ``(const, symbol coefficients)`` (coefficients 0 or -1)."""
    const = -sum(g for g in pattern[:p] if g != "L")
    return const, tuple(-1 if (j < p and pattern[j] == "L") else 0 for j in range(len(pattern)))


def _cmp_key(pattern: tuple, v: tuple):
    """Order items of ``h + v`` by value (largest first); the pattern decides every comparison."""

    def cmp(a: int, b: int) -> int:
        if a == b:
            return 0
        lo, hi = (a, b) if a < b else (b, a)          # positions: lo is the larger count of h
        symbolic = any(pattern[j] == "L" for j in range(lo, hi))
        diff_h = sum(pattern[j] for j in range(lo, hi) if pattern[j] != "L")
        if symbolic:
            s = 1                                      # >= 2 + small - 1 > 0: lo stays strictly above hi
        else:
            val = diff_h + v[lo] - v[hi]
            s = (val > 0) - (val < 0)
        s = s if a == lo else -s
        return -s if s else 0                          # larger first; ties: equal values (order irrelevant)

    return functools.cmp_to_key(cmp)


def _add(f: tuple, c: int) -> tuple:
    return f[0] + c, f[1]


def _sub(f: tuple, g: tuple) -> tuple:
    return f[0] - g[0], tuple(x - y for x, y in zip(f[1], g[1], strict=True))


def _terms(pattern: tuple, v: tuple, out: tuple, kind: str, d: int) -> list[tuple]:
    """``T'_i - T_i`` for every row i (linear forms)."""
    forms = [_form(pattern, p) for p in range(d)]
    new = [_add(forms[p], v[p]) for p in range(d)]
    key = _cmp_key(pattern, v)
    a = forms[: len(out)]                              # h sorted: a_i = position i
    a2 = [new[p] for p in sorted(range(d), key=key)[: len(out)]]
    if kind == "set":
        b = [forms[p] for p in sorted(out)]            # S's counts in h, already in sorted order
        b2 = [new[p] for p in sorted(out, key=key)]
    else:
        b = [forms[p] for p in out]
        b2 = [new[p] for p in out]
    return [_sub(_sub(a2[i], b2[i]), _sub(a[i], b[i])) for i in range(len(out))]


def sensitivity_structures(d: int, k: int, kind: str) -> Iterator[tuple]:
    outs: list[tuple[int, ...]] = list(itertools.combinations(range(d), k) if kind == "set"
                                        else itertools.permutations(range(d), k))
    for pattern in itertools.product(SMALL + ("L",), repeat=d - 1):
        for v in itertools.product((0, 1), repeat=d):
            if any(v):
                yield pattern, v, outs


def check_sensitivity(d: int, k: int, kind: str = "set") -> tuple[int, int, tuple | None]:
    """Every structure at length d: ``(structures, outcomes, first failure or None)``; failure = a row whose
    change is symbolic or outside {-1, 0, 1}."""
    n_s = n_o = 0
    for pattern, v, outs in sensitivity_structures(d, k, kind):
        n_s += 1
        for o in outs:
            n_o += 1
            for delta in _terms(pattern, v, o, kind, d):
                if any(delta[1]) or abs(delta[0]) > 1:
                    return n_s, n_o, (pattern, v, o, delta)
    return n_s, n_o, None


def certify_joint(claim, p: dict, mech, scope: dict, extra: dict, *, d: int | None = None, dmax: int = 4):
    """JOINT (``Joint`` over sets, ``JointSequence``): eps-DP through the generic EM lemma and the structure check
    of the sensitivity at lengths ``k..dmax`` (or the one length ``d``).  ``None`` when ``mech`` is not JOINT."""
    from mechanisms.joint.sequence import JointSequence
    from mechanisms.joint.sets import Joint

    if type(mech) is Joint:
        kind = "set"
    elif type(mech) is JointSequence:
        kind = "sequence"
    else:
        return None
    t0 = time.monotonic()
    method = ("generic EM lemma (exact, F = e^{eps/2}) + utility sensitivity 1 checked on every structure "
              "(gaps 0, 1 or symbolic >= 2; exact linear forms)")
    if claim.relation.strip().lower() != "add-remove" or claim.notion not in ("dp", "br"):
        return UniversalResult(claim.id, UNDECIDED, "none", scope, False, method, seconds=time.monotonic() - t0,
                               reason=f"JOINT: only add-remove (eps, 0) claims are structured, not "
                                      f"{claim.relation}/{claim.notion}",
                               extra=extra)
    k = mech.k
    lens = [d] if d is not None else list(range(max(k, 1), max(k, dmax) + 1))
    n_s = n_o = 0
    for dd in lens:
        ns, no, bad = check_sensitivity(dd, k, kind) if dd >= k else (0, 0, None)
        n_s, n_o = n_s + ns, n_o + no
        if bad is not None:
            return UniversalResult(claim.id, UNDECIDED, str(dd), scope, True, method, n_s, n_o, time.monotonic() - t0,
                                   undecided=({"d": dd, "structure": str(bad)},),
                                   reason="a row's utility change is not in {-1, 0, 1} on this structure", extra=extra)
    ok, two_delta = generic_em_lemma(1)
    bound = Fraction(two_delta, 2) * Fraction(mech.eps)  # F^{2 Delta} = e^{eps}
    lengths = f"{lens[0]}..{lens[-1]}" if len(lens) > 1 else str(lens[0])
    extra.update({"utility": kind, "sensitivity": 1, "eps_bound": str(bound),
                  "other_lengths": "written argument only (order statistics monotone and shift-equivariant: "
                                   "a_i <= a'_i <= a_i + 1), not machine-checked"})
    if claim.notion == "br":  # P(S)Q(S') / (P(S')Q(S)) = F^{du(S) - du(S')}: the normalisers cancel
        return _joint_br(claim, p, ok, bound, lengths, scope, extra, method, n_s, n_o, t0)
    return _joint_dp(claim, p, mech, ok, bound, lengths, scope, extra, method, n_s, n_o, t0)


def _joint_br(claim: Any, p: dict, ok: bool, bound: Any, lengths: str, scope: dict, extra: dict, method: str, n_s: int,
              n_o: int, t0: float) -> UniversalResult:
    """An eps-BR claim of JOINT: holds when every claimed eta is at least the generic EM bound, else undecided."""
    etas = [Fraction(e) for e in claim.points(p)]
    scope["points"] = [str(e) for e in etas]
    extra["br_range"] = f"<= 2 Delta eps/2 = {bound} (normalisers cancel, rows change by at most 1)"
    if ok and all(e >= bound for e in etas):
        return UniversalResult(claim.id, HOLDS, lengths, scope, True, method, n_s, n_o, time.monotonic() - t0, extra=extra)
    return UniversalResult(claim.id, UNDECIDED, lengths, scope, True, method, n_s, n_o, time.monotonic() - t0,
                           undecided=({"points": [str(e) for e in etas if e < bound], "why": "below the bound"},),
                           extra=extra)


def _joint_dp(claim: Any, p: dict, mech: Any, ok: bool, bound: Any, lengths: str, scope: dict, extra: dict, method: str,
              n_s: int, n_o: int, t0: float) -> UniversalResult:
    """The (eps, delta) points of JOINT: at or above the generic EM bound hold; below it a box witness refutes the
    point, else it is undecided."""
    points = [(Fraction(e), Fraction(dl)) for e, dl in claim.points(p)]
    scope["points"] = [[str(e), str(dl)] for e, dl in points]
    for eps_c, dl in points:
        if ok and eps_c >= bound:
            continue
        w = box_witness(mech, "add-remove", eps_c, 4, 2) if dl == 0 else None
        if w is not None:
            return UniversalResult(claim.id, VIOLATED, "all", scope, True, "box witness, interval law", n_s, n_o,
                                   time.monotonic() - t0, witness=w, extra=extra)
        return UniversalResult(claim.id, UNDECIDED, lengths, scope, True, method, n_s, n_o, time.monotonic() - t0,
                               undecided=({"point": [str(eps_c), str(dl)], "why": "below the generic EM bound, no box witness"},),
                               extra=extra)
    return UniversalResult(claim.id, HOLDS, lengths, scope, True, method, n_s, n_o, time.monotonic() - t0, extra=extra)
