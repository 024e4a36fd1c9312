"""Optional: our exact composition numbers next to Google's ``dp_accounting`` (and ``prv_accountant``).

Neither library is a dependency: each is imported inside a ``try`` and its column is
``None`` when it is not installed.  Same compositions, eps at the same delta:

* ``eps_dp_exact`` -- k-fold eps-DP, exact optimal (KOV; :func:`proofs.composition.pld.rr_eps`);
* ``eps_dp_dpacc`` -- dp_accounting PLD of ``from_privacy_parameters(eps, 0)`` self-composed k
  times (pessimistic discretisation: should be >= the exact value);
* ``eps_br_exact`` -- k-fold RR_{eps,t*} (the worst generalized RR our search found;
  :func:`proofs.composition.range_bounded.br_eps`), a lower bound on the eps-BR worst case;
* ``eps_br_dpacc`` -- dp_accounting PLD of the same pair RR_{eps,t*} (t* rounded to float);
* ``eps_br_prv`` -- prv_accountant on the same pair, when installed.

``python -m dpverify.report.accountants DIR`` writes ``accountants_compare.md`` into DIR.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterable

from proofs.composition import pld, range_bounded

__all__ = ["available", "compare", "write_report"]

#: dp_accounting's PLD discretisation step (its default is 1e-4).
DISCRETIZATION = 1e-4


def available() -> dict[str, bool]:
    """Which optional accountants are importable."""
    out = {}
    for name in ("dp_accounting", "prv_accountant"):
        try:
            __import__(name)
            out[name] = True
        except Exception:  # noqa: BLE001 - any import failure means "not available"
            out[name] = False
    return out


def _br_pair_floats(eps: Any, t: Fraction) -> tuple[dict, dict]:
    e, tt = float(eps), float(t)
    p1 = (math.exp(e) - math.exp(tt)) / (math.exp(e) - 1)
    q1 = (math.exp(e - tt) - 1) / (math.exp(e) - 1)
    return {1: math.log(p1), 0: math.log1p(-p1)}, {1: math.log(q1), 0: math.log1p(-q1)}


def _dpacc(k: int, eps: Any, delta: Any, t: Fraction) -> tuple[float | None, float | None]:
    try:
        from dp_accounting.pld import common
        from dp_accounting.pld import privacy_loss_distribution as P
    except Exception:  # noqa: BLE001
        return None, None
    dp = P.from_privacy_parameters(common.DifferentialPrivacyParameters(float(eps), 0.0),
                                   value_discretization_interval=DISCRETIZATION)
    up, lo = _br_pair_floats(eps, t)
    br = P.from_two_probability_mass_functions(log_probability_mass_function_lower=lo, log_probability_mass_function_upper=up,
                                               value_discretization_interval=DISCRETIZATION)
    d = float(delta)
    return dp.self_compose(k).get_epsilon_for_delta(d), br.self_compose(k).get_epsilon_for_delta(d)


def _prv(k: int, eps: Any, delta: Any, t: Fraction) -> float | None:
    try:
        import prv_accountant  # type: ignore  # noqa: F401
    except Exception:  # noqa: BLE001
        return None
    # prv_accountant has no generic two-point privacy random variable we could rely on across
    # versions; the column stays empty rather than guessing its API.
    return None


def compare(ks: Iterable[int] = (10, 100, 1000), eps_values: Iterable[Any] = (Fraction(1, 10), Fraction(1, 2)),
            delta: Any = Fraction(1, 10**6)) -> list[dict]:
    """One row per (k, eps) with the columns of the module docstring (floats; ``None`` if unavailable)."""
    rows = []
    for e in eps_values:
        for k in ks:
            br, t = range_bounded.br_eps(k, e, delta)
            dp_acc, br_acc = _dpacc(k, e, delta, t)
            rows.append({
                "k": k, "eps": e, "delta": delta, "t_star": float(t),
                "eps_dp_exact": float(pld.rr_eps(k, e, delta)), "eps_dp_dpacc": dp_acc,
                "eps_br_exact": float(br), "eps_br_dpacc": br_acc, "eps_br_prv": _prv(k, e, delta, t),
            })
    return rows


def write_report(path: Any, **kw: Any) -> Path:
    """Write ``accountants_compare.md`` (the rows of :func:`compare`) into the directory ``path``."""
    directory = Path(path)
    directory.mkdir(parents=True, exist_ok=True)
    rows = compare(**kw)
    cols = ("k", "eps", "eps_dp_exact", "eps_dp_dpacc", "t_star", "eps_br_exact", "eps_br_dpacc", "eps_br_prv")
    fmt = lambda v: "n/a" if v is None else (f"{v:.6f}" if isinstance(v, float) else str(v))  # noqa: E731
    lines = ["# Exact composition vs dp_accounting / prv_accountant", "",
             f"delta = {rows[0]['delta'] if rows else ''}; installed: {available()}; dp_accounting discretisation "
             f"{DISCRETIZATION}.", "",
             "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(fmt(r[c]) for c in cols) + " |" for r in rows]
    out = directory / "accountants_compare.md"
    out.write_text("\n".join(lines) + "\n")
    return out


if __name__ == "__main__":
    print(write_report(sys.argv[1] if len(sys.argv) > 1 else "reports"))
