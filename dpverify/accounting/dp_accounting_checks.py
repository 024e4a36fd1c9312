"""Cross-checks with Google's ``dp_accounting`` (optional: ``pip install dpverify[compare]``).

Each function returns ``{"status", "eps", "seconds", "call"}``: ``status`` is ``"ok"``, ``"not installed"``
or ``"error: <exception>"`` (an exception raised by the library is a finding, not a crash).  ``call`` is
the library call made, so a reader can reproduce the number.  What each compares with:

* :func:`worst_pair_pld` -- the PLD of the worst pair ``RR_{eps,t*}`` self-composed k times
  (``from_two_probability_mass_functions(..., symmetric=False)``: the default ``symmetric=True`` would
  silently use one direction) against our exact eps of the same pair;
* :func:`pure_dp_pld` -- ``from_privacy_parameters(eps, 0)`` self-composed k times against KOV;
* :func:`zcdp_rdp` -- ``RdpAccountant`` with ``ZCDpEvent(rho = eps^2/8)`` x k against our CKS20 conversion;
* :func:`rr_event_count` -- ``PLDAccountant(REPLACE_ONE).compose(RandomizedResponseDpEvent, count=k)``, the
  randomized response that is exactly eps-DP, against KOV (the exact value of k composed eps-RR);
* :func:`advanced_composition` -- ``pld.accountant.advanced_composition`` against KOV.
"""

from __future__ import annotations

import math
import time
from typing import Callable

__all__ = ["available", "version", "worst_pair_pld", "pure_dp_pld", "zcdp_rdp", "rr_event_count", "advanced_composition",
           "DISCRETIZATION"]

#: dp_accounting's PLD discretisation step (its default).
DISCRETIZATION = 1e-4


def available() -> bool:
    try:
        import dp_accounting  # noqa: F401
    except Exception:  # noqa: BLE001 - any import failure means "not available"
        return False
    return True


def version() -> str:
    from importlib import metadata

    try:
        return metadata.version("dp-accounting")
    except metadata.PackageNotFoundError:
        return "not installed"


def _run(call: str, f: Callable[[], float]) -> dict:
    if not available():
        return {"status": "not installed", "eps": None, "seconds": None, "call": call}
    t = time.perf_counter()
    try:
        v = float(f())
        return {"status": "ok", "eps": v, "seconds": round(time.perf_counter() - t, 4), "call": call}
    except Exception as exc:  # noqa: BLE001 - the library's failure is the finding
        return {"status": f"error: {type(exc).__name__}: "
                          f"{exc}", "eps": None, "seconds": round(time.perf_counter() - t, 4), "call": call}


def worst_pair_pld(k: int, eps: float, t: float, delta: float) -> dict:
    """``RR_{eps,t}`` (losses t and t - eps) as two log-pmfs, both directions, self-composed k times."""

    def f() -> float:
        from dp_accounting.pld import privacy_loss_distribution as P

        p1 = (math.exp(eps) - math.exp(t)) / (math.exp(eps) - 1)  # P(high), loss t
        q1 = (math.exp(eps - t) - 1) / (math.exp(eps) - 1)
        upper = {1: math.log(p1), 0: math.log1p(-p1)}
        lower = {1: math.log(q1), 0: math.log1p(-q1)}
        pld = P.from_two_probability_mass_functions(log_probability_mass_function_lower=lower,
                                                    log_probability_mass_function_upper=upper,
                                                    value_discretization_interval=DISCRETIZATION, symmetric=False)
        return pld.self_compose(k).get_epsilon_for_delta(delta)

    return _run(f"from_two_probability_mass_functions(RR_(eps,t*), symmetric=False, vdi={DISCRETIZATION}).self_compose({k})"
                f".get_epsilon_for_delta({delta:g})", f)


def pure_dp_pld(k: int, eps: float, delta: float) -> dict:
    def f() -> float:
        from dp_accounting.pld import common
        from dp_accounting.pld import privacy_loss_distribution as P

        pld = P.from_privacy_parameters(common.DifferentialPrivacyParameters(eps, 0.0),
                                        value_discretization_interval=DISCRETIZATION)
        return pld.self_compose(k).get_epsilon_for_delta(delta)

    return _run(f"from_privacy_parameters(DifferentialPrivacyParameters({eps:g}, "
                f"0)).self_compose({k}).get_epsilon_for_delta({delta:g})", f)


def zcdp_rdp(k: int, eps: float, delta: float) -> dict:
    def f() -> float:
        import dp_accounting as dpa

        acc = dpa.rdp.RdpAccountant()
        acc.compose(dpa.ZCDpEvent(eps * eps / 8), count=k)
        return acc.get_epsilon(delta)

    return _run(f"RdpAccountant().compose(ZCDpEvent(rho={eps:g}^2/8), count={k}).get_epsilon({delta:g})", f)


def rr_event_count(k: int, eps: float, delta: float) -> dict:
    """2-bucket randomized response with ``noise_parameter = 2/(1 + e^eps)``: exactly eps-DP, so k of them are the
    worst case of KOV17."""

    def f() -> float:
        import dp_accounting as dpa
        from dp_accounting.pld import pld_privacy_accountant as pa

        rr = dpa.RandomizedResponseDpEvent(noise_parameter=2 / (1 + math.exp(eps)), num_buckets=2)
        acc = pa.PLDAccountant(dpa.NeighboringRelation.REPLACE_ONE)
        acc.compose(rr, count=k)
        return acc.get_epsilon(delta)

    return _run(f"PLDAccountant(REPLACE_ONE).compose(RandomizedResponseDpEvent(2/(1+e^{eps:g}), 2), "
                f"count={k}).get_epsilon({delta:g})", f)


def advanced_composition(k: int, eps: float, delta: float) -> dict:
    def f() -> float:
        from dp_accounting.pld import accountant, common

        v = accountant.advanced_composition(common.DifferentialPrivacyParameters(eps, 0.0), k, delta)
        if v is None:
            raise ValueError("returned None")
        return v

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's overflow RuntimeWarning precedes the OverflowError we record
        return _run(f"pld.accountant.advanced_composition(DifferentialPrivacyParameters({eps:g}, 0), {k}, {delta:g})", f)
