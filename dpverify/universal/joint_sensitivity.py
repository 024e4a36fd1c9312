"""JOINT's utility has add/remove sensitivity 1 for EVERY count and EVERY length, and the generic EM lemma.

JOINT (GJMR21 Def. 3 / Lemma 5; the sequences of its ICML 2022 version) is an exponential mechanism ``P(S) = F^{u(h,S)} / Z(h)``,
``F = e^{eps/2}``, with ``u(h, S) = -max_i (a_i - b_i)``: ``a_i`` the i-th largest count of h, ``b_i`` the i-th
largest count inside the k-set S (sets) or the count of the i-th item of the sequence s (sequences).

GENERIC EM LEMMA.  If ``|u(h,S) - u(h',S)| <= Delta`` for every outcome then ``Z(h')/Z(h)`` lies in
``[F^{-Delta}, F^{Delta}]`` (termwise: ``F^{Delta} F^{u(h,S)} - F^{u(h',S)} >= 0``, a polynomial in F with a
non-negative coefficient in ``t = F - 1``) and ``P(S)/Q(S) = F^{u(h,S) - u(h',S)} Z(h')/Z(h) <= F^{2 Delta}``:
with Delta = 1, ``e^{eps}``.

SENSITIVITY FOR EVERY LENGTH (the length-free lemma, :func:`length_free_lemma`).  Add/remove: ``h' = h + v`` with
``v`` in ``{0, 1}^d`` (or the reverse).  Call a map of integer families *D-stable* when shifting every argument by
an amount in ``D`` (an integer range ``[lo, hi]``) shifts its value by an amount in ``D``.

* (L1, machine-checked) ``min(x, y)`` and ``max(x, y)`` are D-stable for ``D = {0, 1}`` and ``D = {-1, 0, 1}``: the
  two values matter only through ``y - x``, and for ``|y - x| > hi - lo`` the order is kept, so the check of
  ``y - x`` in ``[-(hi - lo) - 1, hi - lo + 1]`` and every pair of shifts is complete (:func:`pair_step`).
* (L2) By induction on the number of arguments (``min(x_1..x_{n+1}) = min(min(x_1..x_n), x_{n+1})``, and the shift
  of the inner min is again in ``D`` because ``D`` is an integer range), min and max of ANY finite family are
  D-stable: the two-element step is all that any length needs.
* (L3) The i-th largest count is ``a_i(h) = max over i-subsets T of min_{t in T} h_t`` (a finite max of finite
  mins; brute-forced at lengths <= 6 in the tests), hence ``a_i(h') - a_i(h)`` is in ``{0, 1}``; likewise the i-th
  largest inside the fixed set S, and for sequences ``b'_i - b_i = v_{s_i}`` in ``{0, 1}``.
* (L4) ``T_i = a_i - b_i`` therefore moves by an amount in ``{-1, 0, 1}``, and ``u = -max_i T_i`` moves by an amount
  in ``{-1, 0, 1}`` (L2 with ``D = {-1, 0, 1}``): sensitivity 1 for every d and every count.

The structure check below (gaps 0, 1 or a symbol >= 2, exact linear forms, lengths k..dmax) stays as a cross-check
of the lemma: counts are linear forms ``const + sum_l c_l L_l``; for ``h' = h + v`` (v in {0,1}^d) the order of h'
is decided by the pattern alone (two counts separated by a symbolic gap differ by at least 2 - 1 > 0 whatever v
does), so ``delta_i = (a'_i - b'_i) - (a_i - b_i)`` is computed exactly; every ``delta_i`` without a symbolic part and
in ``{-1, 0, 1}`` means sensitivity 1 on the whole structure.  The lemma is also tested on random long pairs.
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

__all__ = ["sensitivity_structures", "check_sensitivity", "pair_step", "length_free_lemma"]

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


def pair_step(shifts: tuple[int, ...], funcs: tuple[Any, ...] = (min, max)) -> tuple[int, tuple | None]:
    """(L1) ``min`` and ``max`` of two integers are stable under shifts in ``shifts`` (an integer range): every gap
    ``y - x`` that can matter and every pair of shifts.  ``(cases, first failure or None)``."""
    lo, hi = min(shifts), max(shifts)
    if tuple(sorted(set(shifts))) != tuple(range(lo, hi + 1)):
        raise ValueError(f"shifts={shifts!r} must be an integer range")
    width = hi - lo
    n = 0
    for gap in range(-width - 1, width + 2):
        x, y = 0, gap
        for dx in shifts:
            for dy in shifts:
                for f in funcs:
                    n += 1
                    if not lo <= f(x + dx, y + dy) - f(x, y) <= hi:
                        return n, (getattr(f, "__name__", "f"), gap, dx, dy)
    return n, None


def length_free_lemma() -> dict[str, Any]:
    """The machine-checked part of the length-free sensitivity lemma (module docstring): L1 for the two shift
    ranges it uses; L2-L4 are the written induction.  ``holds`` is True when every case passed."""
    steps = {name: pair_step(D) for name, D in (("order statistics, shifts {0,1}", (0, 1)),
                                                 ("rows and their max, shifts {-1,0,1}", (-1, 0, 1)))}
    return {"holds": all(bad is None for _, bad in steps.values()), "cases": sum(n for n, _ in steps.values()),
            "steps": {k: ("ok" if bad is None else f"fails at {bad}") for k, (_, bad) in steps.items()},
            "statement": "|u(h + v, S) - u(h, S)| <= 1 for every v in {0,1}^d, every length d and every count "
                         "(min/max of any finite family shift-stable by induction from the two-element step)"}


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
    if claim.relation.strip().lower() != "add-remove" or claim.notion not in ("dp", "br", "zcdp", "rdp"):
        return UniversalResult(claim.id, UNDECIDED, "none", scope, False, method, seconds=time.monotonic() - t0,
                               reason=f"JOINT: only add-remove (eps, 0) claims are structured, not "
                                      f"{claim.relation}/{claim.notion}",
                               extra=extra)
    k = mech.k
    lemma = length_free_lemma()
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
    checked = f"{lens[0]}..{lens[-1]}" if len(lens) > 1 else str(lens[0])
    lengths = "all" if d is None and lemma["holds"] else checked
    ok = ok and (lemma["holds"] or d is not None)
    method += "; every length: the length-free lemma (min/max shift-stable, two-element step machine-checked)"
    extra.update({"utility": kind, "sensitivity": 1, "eps_bound": str(bound), "structure_lengths": checked,
                  "length_free_lemma": lemma})
    if claim.notion in ("zcdp", "rdp") and ok:  # eps-BR (normalisers cancel) + CR21 + zCDP composition
        from .em_zcdp import certify_zcdp_claim

        return certify_zcdp_claim(claim, p, mech, 1, Fraction(bound), Fraction(bound), lengths, scope, extra,
                                  dict(structures=n_s, boxes=n_o), t0)
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
