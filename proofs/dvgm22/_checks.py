"""Evaluators of the DVGM22 ledger: the for-all-n proofs (``proofs.dvgm22.universal``) as obligations."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Mapping

import mpmath

from mechanisms.partition_selection.selection import PartitionSelection

from proofs.claims import Comparison, Domain, Instance

from .universal import prove_l_keys, prove_one_key

__all__ = ["mechanism", "points", "one_key_all_n", "l_keys_all_n", "per_params"]


def mechanism(strategy: str, delta_factor: Any = 1) -> Any:
    """The claim's mechanism builder: ``strategy`` at the parameter dict's eps, delta (times ``delta_factor``: a
    deliberately wrong strategy), L, tau, threshold_shift and window base."""
    def build(p: Mapping[str, Any]) -> PartitionSelection:
        return PartitionSelection(strategy, p["eps"], Fraction(p["delta"]) * Fraction(delta_factor), L=p.get("L", 1),
                                  tau=p.get("tau", 1), threshold_shift=p.get("threshold_shift", 0), base=p.get("base", 0))
    return build


def points(p: Mapping[str, Any]) -> list[Any]:
    """The claimed (eps, delta) for a user touching at most L keys."""
    return [(p["eps"], p["delta"])]


def per_params(domain: Domain) -> list[Instance]:
    """One instance per parameter dict (the for-all-n proofs quantify over n themselves)."""
    return [Instance(None, None, dict(p)) for p in domain.params]


def _exact(x: Any) -> Fraction:
    """An mpmath number as the exact rational it is (sign included)."""
    sign, man, exp, _ = mpmath.mpf(x)._mpf_
    return Fraction((-1) ** sign) * Fraction(int(man)) * Fraction(2) ** int(exp)


def _comparisons(res: Any, what: str) -> list[Any]:
    if res.verdict == "holds-for-all-n":
        # proved: the certified lower end of delta - sup (0 where the strategy is tight by an identity)
        return [Comparison(Fraction(0), "<=", _exact(res.margin.a), exact=True,
                           label=f"{what} holds for all n: {res.covers}; sup attained at {res.argmax}; {'; '.join(res.notes)}")]
    if res.verdict == "violated":
        return [Comparison(Fraction(0), "<=", _exact(res.margin.b), exact=True,
                           label=f"{what} violated at n = {res.argmax}: delta_n = {mpmath.nstr(res.sup.b, 12)}; {res.covers}")]
    return [Comparison(res.sup if res.sup is not None else mpmath.iv.mpf([0, 1]), "<=",
                       mpmath.iv.mpf([0, 1]) if res.margin is None else res.sup + res.margin,
                       label=f"{what} undecided: {res.covers}")]


def one_key_all_n(strategy: str) -> Callable[..., list[Any]]:
    """Evaluator: delta_n(eps/L) <= delta_L for every count n of one key (:func:`prove_one_key`)."""
    def evaluate(inst: Instance, prec: int = 120, interval: bool = True) -> list[Any]:
        return _comparisons(prove_one_key(mechanism(strategy)(inst.params)), "one key")
    return evaluate


def l_keys_all_n(strategy: str) -> Callable[..., list[Any]]:
    """Evaluator: (eps, delta)-DP of the key set for every count vector, at most L keys touched (:func:`prove_l_keys`)."""
    def evaluate(inst: Instance, prec: int = 80, interval: bool = True) -> list[Any]:
        return _comparisons(prove_l_keys(mechanism(strategy)(inst.params)), f"L = {inst.params.get('L', 1)} keys")
    return evaluate
