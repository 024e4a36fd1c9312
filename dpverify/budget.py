"""A privacy budget users can trust: compose mechanisms, ask for the tightest valid (eps, delta).

>>> from fractions import Fraction
>>> from mechanisms.exponential import PeelingEM
>>> b = PrivacyBudget(eps_cap=2, delta_cap=Fraction(1, 10**6))
>>> s = b.add(PeelingEM(k=50, eps=Fraction(1, 10)))   # 50 eps-range-bounded steps
>>> s.method, round(s.eps, 3)                          # Lemma 4.4 would say 2.108
('zcdp', 1.66)
>>> b.add(PeelingEM(k=50, eps=Fraction(1, 10)))       # 100 steps in all: ~2.42 > 2
Traceback (most recent call last):
...
mechanisms.errors.BudgetExceeded: composing PeelingEM(k=50, eps=1/10, ...) would spend eps=2.41909 > eps_cap=2 at delta=1e-06 ...
>>> len(b.items), round(b.spent().eps, 3)
(1, 1.66)

What is composed, and how each item is accounted (DR19 is the bibliography key of ``docs/references.md``):

``add_range_bounded(eps, count)``
    ``count`` adaptively chosen eps-range-bounded steps (DR19 Def. 4.2).  ``add`` maps
    ``ExponentialMechanism`` to one step and ``PeelingEM`` / ``OneShotGumbel`` (Lemma 4.2)
    to k steps, each ``eps_q``-RB with ``eps_q = eps / sensitivity`` (halved with
    ``factor2``) for the histogram score ``q(h, i) = h_i`` (Lemma 4.3: monotone under
    add/remove and Delta-restricted neighbours); with ``monotone=False`` (the l_inf
    relation) each step is ``2 eps_q``-RB.
``add_dp(eps, delta, count)``
    generic (eps, delta)-DP mechanisms (adaptively chosen).
``add_limit_dom(k, eps, delta, delta_prime=0)`` / ``add(LimitDom(...))``
    DR19 Algorithm 1 (also Algorithm 5, Lemma 6.6), accounted by Theorem 1: alone it
    contributes its whole curve ``(eps'(delta'), delta + delta')`` (eq. (2)); with other items
    it is the point ``(eps'(delta_prime), delta + delta_prime)`` (``delta_prime = 0``: ``(k eps, delta)``).
    Several LimitDom calls with one common (eps, delta) and nothing else are also an
    instance of Algorithm 2 with ``k* = sum k_i``, ``l* = #calls`` (no call is ever refused),
    so Theorem 2 applies: ``(eps*(delta'), 2 l* delta + delta')``.
``add(MultiLimitDomSession(...))``
    a pay-what-you-get session (Theorem 2), handled like a LimitDom group.

Bounds tried (each an **upper bound** on the composed eps at a delta, valid for items
chosen *adaptively*; the budget reports the smallest valid one, rounded *up* to a float,
and names it in ``Spend.method``):

* ``basic`` -- (sum eps_i, sum delta_i);
* ``theorem3`` -- DR19 Theorem 3 (KOV17-improved advanced composition);
* ``lemma4.4`` -- DR19 Lemma 4.4, eq. (4), only when *every* item is range-bounded;
* ``zcdp`` -- only when every item is range-bounded: eps_i-BR is eps_i^2/8-zCDP (CR21),
  zCDP composes adaptively, and the optimal conversion of CKS20 gives the eps at delta (:func:`proofs.composition.zcdp.cks_eps`);
* ``ddr20-adaptive`` -- only when every item is range-bounded: the adaptive bound of
  DDR20 (Prop. 4; :func:`proofs.composition.br_optimal.ddr20_adaptive_eps`);
* ``optimal-dp`` -- the exact optimal composition of the items as (eps_i, delta_i)-DP
  points (KOV17 Thm 3.3 = DR19 Lemma A.1 when homogeneous; MV16 Thm 1.5 /
  KOV17 Thm 3.5 otherwise), when its PLD has at most ``max_atoms`` atoms;
* ``theorem1`` / ``theorem2`` -- for LimitDom-only budgets (see above).  These are
  paper theorems that ``dpverify verify`` checks (DR19.Thm1, DR19.Thm2); pass
  ``use_limitdom_theorems=False`` to rely on composition theorems only.  Their eps term
  (eq. (2) / (3)) is DR19 Lemma 4.4 applied to the at most k (k*) adaptively chosen
  eps-BR exponential-mechanism calls inside (Corollary 5.2 / Lemma 7.1); the proofs use
  nothing else about it, so any valid bound for that composition may replace it:
  ``theorem1/zcdp``, ``theorem1/ddr20-adaptive``, ``theorem1/optimal-dp`` (and the same for
  ``theorem2``) are Theorem 1 (2) with that step bounded by the named accountant.

Not used: the *optimal non-adaptive* composition of eps-BR mechanisms
(:func:`proofs.composition.br_optimal.br_optimal_eps`).  A budget composes what it is
given in sequence, and peeling / one-shot top-k and pay-what-you-get rounds are adaptive
compositions, for which that value is too small (ledger ``DDR20.Gap``).

Anything else is refused with :class:`InvalidParameterType` (the budget cannot
account for it), and composing past ``(eps_cap, delta_cap)`` raises
:class:`BudgetExceeded`, leaving the budget unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath

from mechanisms import validation as V
from mechanisms.core import DEFAULT_PREC, exact_context, to_ctx
from mechanisms.errors import BudgetExceeded, InvalidParameter, InvalidParameterType
from mechanisms.exponential import ExponentialMechanism, OneShotGumbel, PeelingEM
from mechanisms.limited_domain import LimitDom, StrictLimitDom
from mechanisms.pay_what_you_get import MultiLimitDomSession

from proofs.composition import bounds as C
from proofs.composition import br_optimal, pld
from proofs.composition import zcdp as Z

__all__ = ["Item", "Spend", "PrivacyBudget", "br_adaptive_accountants", "theorem2_accountants"]


@dataclass(frozen=True)
class Item:
    """One composed thing: ``kind`` in ``"rb"``, ``"dp"``, ``"limitdom"``, ``"pwyg"``."""

    kind: str
    eps: Any
    delta: Any = 0
    count: int = 1          # rb/dp: number of steps; limitdom: k; pwyg: k*
    calls: int = 1          # pwyg: l*
    delta_prime: Any = 0    # limitdom/pwyg: the point used when composed with other items
    label: str = ""

    def points(self) -> list[tuple[Any, Any]]:
        """The item as (eps_i, delta_i)-DP points (one per step for rb/dp)."""
        if self.kind in ("rb", "dp"):
            return [(self.eps, self.delta)] * self.count
        if self.kind == "limitdom":
            return [(C.eq2_eps(self.count, self.eps, self.delta_prime), Fraction(self.delta) + Fraction(self.delta_prime))]
        return [(C.eq3_eps(self.count, self.eps, self.delta_prime),
                 2 * self.calls * Fraction(self.delta) + Fraction(self.delta_prime))]


@dataclass(frozen=True)
class Spend:
    """An (eps, delta) guarantee of everything composed: floats rounded *up* (safe side).

    ``method`` names the bound that gave it; ``candidates`` maps every bound tried to
    its eps (``None``: not applicable / no guarantee at this delta); ``eps_exact`` is
    the unrounded value.
    """

    eps: float
    delta: float
    method: str
    candidates: dict = field(default_factory=dict)
    eps_exact: Any = None


def br_adaptive_accountants(k: int, eps: Any, delta: Any, *, prec: int = DEFAULT_PREC) -> dict[str, Any]:
    """Upper bounds on the eps at ``delta`` of k *adaptively* chosen eps-bounded-range mechanisms, by accountant.

    ``lemma4.4`` (DR19 eq. (4), i.e. eq. (2)/(3)), ``zcdp`` (CR21 + CKS20), ``ddr20-adaptive`` (DDR20 Prop. 4) and
    ``optimal-dp`` (KOV: each step is eps-DP).  ``None`` where an accountant says nothing at this delta.
    """
    out: dict[str, Any] = {"lemma4.4": C.eq3_eps(k, eps, delta, prec=prec)}
    dpos = delta > 0
    out["zcdp"] = Z.cks_eps(k * Z.br_rho(eps), delta) if dpos else None
    out["ddr20-adaptive"] = br_optimal.ddr20_adaptive_eps([eps] * k, delta, prec=prec) if dpos else None
    out["optimal-dp"] = pld.rr_eps(k, eps, delta, prec=prec)
    return out


def theorem2_accountants(k_star: int, l_star: int, eps: Any, delta: Any, delta_prime: Any, *, prec: int = DEFAULT_PREC) -> dict:
    """DR19 Theorem 2 for a pay-what-you-get session, with its composition step bounded by the tightest valid accountant.

    ``(eps_acc, 2 l* delta + delta')``-DP where ``eps_acc`` bounds the adaptive composition of at most k*
    eps-BR exponential-mechanism calls at ``delta'`` (Lemma 7.1; printed: eq. (3) = Lemma 4.4).  Returns
    ``{"eps", "delta", "accountant", "candidates"}`` with every accountant's eps (module docstring).
    """
    cands = br_adaptive_accountants(k_star, Fraction(eps), Fraction(delta_prime), prec=prec)
    valid = {m: v for m, v in cands.items() if v is not None}
    best = min(valid, key=lambda m: valid[m])
    return {"eps": valid[best], "delta": 2 * l_star * Fraction(delta) + Fraction(delta_prime), "accountant": best,
            "candidates": cands}


def _up(x: Any) -> float:
    """``x`` as a float rounded toward +inf (never below the exact value)."""
    if x == mpmath.mp.inf:
        return math.inf
    f = float(x)
    return f if mpmath.mpf(f) >= x else math.nextafter(f, math.inf)


def _frac(name: str, x: Any) -> Any:
    v = V.real(name, x)
    return Fraction(v) if isinstance(v, float) else v


class PrivacyBudget:
    """Composes mechanisms and reports the tightest valid (eps, delta) (module docstring).

    ``eps_cap`` / ``delta_cap`` (optional): every ``add`` that would make the tightest eps
    at ``delta_cap`` exceed ``eps_cap`` raises :class:`BudgetExceeded` and adds nothing.
    ``delta_cap`` alone fixes the delta at which :meth:`spent` reports.
    """

    def __init__(self, eps_cap: Any = None, delta_cap: Any = None, *, monotone: bool = True,
                 use_limitdom_theorems: bool = True, max_atoms: int = 20000, prec: int = DEFAULT_PREC):
        self.eps_cap = None if eps_cap is None else _frac("eps_cap", V.positive("eps_cap", eps_cap))
        if eps_cap is not None and delta_cap is None:
            delta_cap = 0
        self.delta_cap = None if delta_cap is None else _frac("delta_cap", V.probability("delta_cap", delta_cap, allow_zero=True))
        if not isinstance(monotone, bool):
            raise InvalidParameterType(f"monotone={monotone!r} must be a bool")
        self.monotone = monotone
        self.use_limitdom_theorems = bool(use_limitdom_theorems)
        self.max_atoms = V.pos_int("max_atoms", max_atoms)
        self.prec = V.pos_int("prec", prec)
        self._items: list[Item] = []

    # ------------------------------------------------------------------ adding

    @property
    def items(self) -> tuple[Item, ...]:
        """Everything composed so far, in order."""
        return tuple(self._items)

    def add_range_bounded(self, eps: Any, count: int = 1, label: str = "") -> Spend:
        """Compose ``count`` eps-range-bounded steps (e.g. exponential-mechanism selections)."""
        item = Item("rb", _frac("eps", V.positive("eps", eps)), 0, V.pos_int("count", count), label=label)
        return self._push(item, label or f"{count} x {eps}-range-bounded")

    def add_dp(self, eps: Any, delta: Any = 0, count: int = 1, label: str = "") -> Spend:
        """Compose ``count`` (eps, delta)-DP mechanisms of which nothing more is known."""
        item = Item("dp", _frac("eps", V.positive("eps", eps)), _frac("delta", V.probability("delta", delta, allow_zero=True)),
                    V.pos_int("count", count), label=label)
        return self._push(item, label or f"{count} x ({eps}, {delta})-DP")

    def add_limit_dom(self, k: Any, eps: Any, delta: Any, delta_prime: Any = 0, label: str = "") -> Spend:
        """Compose one LimitDom^{k, kbar} call with privacy parameters (eps, delta) (DR19 Theorem 1)."""
        item = Item("limitdom", _frac("eps", V.positive("eps", eps)), _frac("delta", V.probability("delta", delta)),
                    V.pos_int("k", k),
                    delta_prime=_frac("delta_prime", V.probability("delta_prime", delta_prime, allow_zero=True)), label=label)
        return self._push(item, label or f"LimitDom(k={k}, eps={eps}, delta={delta})")

    def add(self, mechanism: Any, *, label: str = "", delta_prime: Any = 0) -> Spend:
        """Compose a mechanism object the budget knows how to account for (module docstring)."""
        name = type(mechanism).__name__
        desc = label or (f"{name}(" + ", ".join(f"{f}={getattr(mechanism, f)}" for f in ("k", "eps") if hasattr(mechanism, f))
                         + ", ...)")
        if type(mechanism) in (ExponentialMechanism, PeelingEM, OneShotGumbel):  # exact types: a subclass may change the law
            e = _frac("eps", mechanism.eps) / _frac("sensitivity", mechanism.sensitivity)
            e = e / 2 if mechanism.factor2 else e
            e = e if self.monotone else 2 * e
            item = Item("rb", e, 0, getattr(mechanism, "k", 1), label=desc)
        elif type(mechanism) in (LimitDom, StrictLimitDom):
            if getattr(mechanism, "variant", "long") != "long":
                raise InvalidParameterType(f"mechanism={desc} (variant={mechanism.variant!r}) is not covered by Theorem 1 as "
                                           f"the budget uses it; "
                                           "account for it with add_dp(eps, delta) if you know its guarantee")
            item = Item("limitdom", _frac("eps", mechanism.eps), _frac("delta", mechanism.delta), mechanism.k,
                        delta_prime=_frac("delta_prime", V.probability("delta_prime", delta_prime, allow_zero=True)), label=desc)
        elif type(mechanism) is MultiLimitDomSession:
            item = Item("pwyg", _frac("eps", mechanism.eps), _frac("delta", mechanism.delta), mechanism.k_star, mechanism.l_star,
                        delta_prime=_frac("delta_prime", V.probability("delta_prime", delta_prime, allow_zero=True)), label=desc)
        else:
            raise InvalidParameterType(
                f"mechanism={mechanism!r} is not one the budget can account for "
                "(known: ExponentialMechanism, PeelingEM, OneShotGumbel, LimitDom, StrictLimitDom, MultiLimitDomSession); "
                "if you know its guarantee, use add_dp(eps, delta) or add_range_bounded(eps)")
        return self._push(item, desc)

    def _push(self, item: Item, desc: str) -> Spend:
        trial = self._items + [item]
        if self.eps_cap is not None:
            assert self.delta_cap is not None  # set with eps_cap (__init__)
            try:
                s = self._eps_at(trial, self.delta_cap)
            except InvalidParameter as exc:
                raise BudgetExceeded(f"composing {desc} cannot stay within delta_cap: {exc}; nothing was added") from None
            if not s.eps_exact <= to_ctx(mpmath.mp, self.eps_cap):
                raise BudgetExceeded(
                    f"composing {desc} would spend eps={mpmath.nstr(s.eps_exact, 6)} > eps_cap={self.eps_cap} at "
                    f"delta={float(self.delta_cap):.6g} "
                    f"(tightest bound: {s.method}); nothing was added")
        self._items = trial
        if self.delta_cap is not None:
            return self.spent()
        return self._eps_at(trial, sum((Fraction(d) for d in self._points(trial)[1]), Fraction(0)))

    # ------------------------------------------------------------------ querying

    def spent(self) -> Spend:
        """The tightest eps at ``delta_cap`` (without a cap: at the sum of the per-item deltas)."""
        if self.delta_cap is None:
            return self._eps_at(self._items, sum((Fraction(d) for d in self._points(self._items)[1]), Fraction(0)))
        return self._eps_at(self._items, self.delta_cap)

    def eps_at(self, delta: Any) -> Spend:
        """The tightest eps (upper bound) such that everything composed is (eps, delta)-DP."""
        return self._eps_at(self._items, _frac("delta", V.probability("delta", delta, allow_zero=True)))

    def delta_at(self, eps: Any) -> Spend:
        """The tightest delta (upper bound) such that everything composed is (eps, delta)-DP."""
        x = _frac("eps", V.real("eps", eps))
        if x < 0:
            raise InvalidParameter(f"eps={eps!r} must be >= 0")
        cands = self._deltas(self._items, x)
        method = min((m for m in cands if cands[m] is not None), key=lambda m: cands[m], default="none")
        best = cands.get(method, 1) if method != "none" else 1
        return Spend(eps=float(x), delta=_up(best), method=method,
                     candidates={m: (None if v is None else _up(v)) for m, v in cands.items()}, eps_exact=x)

    # ------------------------------------------------------------------ the bounds

    def _points(self, items: list[Item]) -> tuple[list, list]:
        pts = [p for it in items for p in it.points()]
        return [p[0] for p in pts], [p[1] for p in pts]

    def _ld_group(self, items: list[Item]) -> tuple[int, int, Any, Any] | None:
        """(k*, l*, eps, delta) if every item is LimitDom/pwyg with one common (eps, delta)."""
        if not self.use_limitdom_theorems or not items or any(it.kind not in ("limitdom", "pwyg") for it in items):
            return None
        if len({(it.eps, it.delta) for it in items}) != 1:
            return None
        k_star = sum(it.count for it in items)
        l_star = sum(1 if it.kind == "limitdom" else it.calls for it in items)
        return k_star, l_star, items[0].eps, items[0].delta

    def _optimal_ok(self, eps_list: list) -> bool:
        groups: dict = {}
        for e in eps_list:
            groups[e] = groups.get(e, 0) + 1
        size = 1
        for n in groups.values():
            size *= n + 1
        return size <= self.max_atoms

    def _eps_at(self, items: list[Item], delta: Any) -> Spend:
        p = self.prec
        cands: dict[str, Any] = {}
        if not items:
            return Spend(0.0, float(delta or 0), "empty", {}, mpmath.mpf(0))
        es, ds = self._points(items)
        dsum = sum(Fraction(d) for d in ds)
        cands["basic"] = C.basic_eps(es, ds, prec=p) if delta is not None and dsum <= delta else None
        ok = delta is not None and dsum <= delta < 1 + dsum and delta - dsum < 1
        cands["theorem3"] = C.advanced_eps(es, delta - dsum, ds, prec=p) if ok else None
        if all(it.kind == "rb" for it in items) and delta is not None:
            cands["lemma4.4"] = C.range_bounded_eps(es, delta, prec=p)
            cands["zcdp"] = Z.cks_eps(sum((Z.br_rho(e) for e in es), Fraction(0)), delta) if delta > 0 else None
            cands["ddr20-adaptive"] = br_optimal.ddr20_adaptive_eps(es, delta, prec=p) if delta > 0 else None
        if delta is not None and self._optimal_ok(es) and dsum <= delta:
            if len(set(es)) == 1 and len(set(ds)) == 1:
                cands["optimal-dp"] = pld.rr_eps(len(es), es[0], delta, delta0=ds[0], prec=p)
            else:
                cands["optimal-dp"] = pld.rr_hetero_eps(es, delta, ds, prec=p)
        grp = self._ld_group(items)
        if grp is not None and delta is not None:
            k_star, l_star, e, d = grp
            thms = [("theorem2", delta - 2 * l_star * d)]
            if len(items) == 1 and items[0].kind == "limitdom":
                thms.insert(0, ("theorem1", delta - d))
            for name, dp in thms:
                if dp < 0:
                    cands[name] = None
                    continue
                for acc, v in br_adaptive_accountants(k_star, e, dp, prec=p).items():
                    cands[name if acc == "lemma4.4" else f"{name}/{acc}"] = v
        valid = {m: v for m, v in cands.items() if v is not None and v != mpmath.mp.inf}
        if not valid:
            raise InvalidParameter(f"delta={float(delta):.6g} is certified by no bound for what was composed "
                                 f"(the per-item deltas alone sum to {float(dsum):.6g})")
        method = min(valid, key=lambda m: valid[m])
        return Spend(eps=_up(valid[method]), delta=float(delta), method=method,
                     candidates={m: (None if v is None else _up(v)) for m, v in cands.items()}, eps_exact=valid[method])

    def _deltas(self, items: list[Item], x: Any) -> dict[str, Any]:
        p = self.prec
        if not items:
            return {"empty": mpmath.mpf(0)}
        es, ds = self._points(items)
        out: dict[str, Any] = {"basic": C.basic_delta(es, x, ds, prec=p), "theorem3": C.advanced_delta(es, x, ds, prec=p)}
        if all(it.kind == "rb" for it in items):
            out["lemma4.4"] = C.range_bounded_delta(es, x, prec=p)
            out["zcdp"] = Z.cks_delta(sum((Z.br_rho(e) for e in es), Fraction(0)), x, prec=p)
            out["ddr20-adaptive"] = br_optimal.ddr20_adaptive_delta(es, x, prec=p)
        if self._optimal_ok(es):
            out["optimal-dp"] = pld.rr_hetero_delta(es, x, ds, prec=p)
        grp = self._ld_group(items)
        if grp is not None:
            k_star, l_star, e, d = grp
            with exact_context(p, False) as ctx:
                tail = C.range_bounded_delta(C.homogeneous(k_star, e), x, prec=p)  # eq. (2)/(3) = eq. (4) homogeneous
                if len(items) == 1 and items[0].kind == "limitdom":
                    out["theorem1"] = min(ctx.mpf(1), to_ctx(ctx, d) + tail)
                out["theorem2"] = min(ctx.mpf(1), to_ctx(ctx, 2 * l_star * d) + tail)
        return out
