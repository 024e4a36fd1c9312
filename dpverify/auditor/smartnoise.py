"""SmartNoise SQL's tau-thresholding (censoring rare dimensions) audited end to end, in an environment of its own.

smartnoise-sql 1.0.10 requires opendp < 0.15; dpverify's environment has opendp 0.16, so SmartNoise runs in a separate
virtual environment (default ``<repo>/.venv-smartnoise``, or ``$DPVERIFY_SMARTNOISE_VENV``) with the pinned versions
:data:`PINS`, created from the package registry by :func:`ensure_env` (``pip install``), and the job script
``smartnoise_job.py`` (beside this module; it imports nothing of dpverify) runs there by subprocess, JSON in and out.
Without that environment every row is ``not installed`` with the reason -- never a pass.

What is checked (:func:`audit`), for a user contributing to at most L keys (SmartNoise's ``max_ids``):

* the claim, read from SmartNoise: the key-count mechanism's own cost (its (epsilon, delta): the key set is a
  post-processing of that column alone), beside the whole query's cost from ``get_privacy_cost``;
* **absent keys** (black box): L keys absent from D, each with the one user in D'.  A key not in the table is never
  released (structural; the D samples confirm it), so the Clopper-Pearson lower bound of Pr_D'[some key released] is a
  lower bound on delta(eps) for every eps; it refutes the claim when above delta;
* **at the threshold** (black box): L keys at count n (just below tau) against n + 1, events {all released} and
  {none released} in both directions: an eps lower bound (Bonferroni over the 4 events and the delta test);
* **the model** (exact, interval arithmetic): keep iff n + Lap(b) > tau with SmartNoise's own b and tau (its doubles,
  exactly; continuous Laplace -- OpenDP samples a discretised Laplace, so this is the noise as specified, not the
  sampler).  If b >= L/eps each present key's loss is at most eps/L (the Laplace hazard rates are <= 1/b) and, when
  eps/L >= -ln(1 - p(1)), the sup of delta(eps) over every count vector is ``1 - (1 - p(1))^L``, attained by L absent
  keys appearing (the argument of ``proofs.dvgm22.universal.prove_laplace_l_keys``), with p(1) = exp(-(tau - 1)/b)/2.
  SmartNoise's tau = L (1 - ln(2 delta / L)/eps) is computed for b = L/eps, while b is OpenDP's binary-searched scale
  (>= L/eps): at L = 1 that makes p(1) = (2 delta)^{1/(eps b)}/2 slightly above delta.

Power check: ``mutant="threshold-minus-one"`` lowers tau by one inside the job; its absent-key bound must refute.
OpenDP draws from OS entropy: the runs cannot be seeded (``seeded: False``), the confidence is the stated level.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

from mechanisms.core import exact_context, to_ctx

from dpverify.errors import InvalidParameter

from .stats import cp_lower, cp_upper, eps_lower_bound

__all__ = ["PINS", "SCRIPT", "venv_path", "status", "ensure_env", "run_job", "model", "audit", "audit_rows", "main"]

#: the separate environment's pins (installed together from the registry; opendp < 0.15 is smartnoise-sql 1.0.10's bound)
PINS = ("smartnoise-sql==1.0.10", "opendp==0.14.1", "pandas==2.3.3", "SQLAlchemy==2.1.9", "numpy==2.4.6")
SCRIPT = Path(__file__).with_name("smartnoise_job.py")
_REPO = Path(__file__).resolve().parents[2]


def venv_path() -> Path:
    """The SmartNoise environment: ``$DPVERIFY_SMARTNOISE_VENV`` or ``<repo>/.venv-smartnoise``."""
    return Path(os.environ.get("DPVERIFY_SMARTNOISE_VENV") or _REPO / ".venv-smartnoise")


def _python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def status(venv: Path | None = None) -> dict:
    """``{"installed": True, "python": ..., "versions": {...}}`` or ``{"installed": False, "reason": ...}``."""
    venv = venv or venv_path()
    py = _python(venv)
    if not py.exists():
        return {"installed": False, "reason": f"no environment at {venv} (create it: dpverify.auditor.smartnoise.ensure_env())"}
    code = ("import json; from importlib.metadata import version as v; "
            "print(json.dumps({p: v(p) for p in ('smartnoise-sql', 'opendp', 'pandas')}))")
    try:
        out = subprocess.run([str(py), "-c", code], capture_output=True, text=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {"installed": False, "reason": f"{py} does not run: {exc}"}
    if out.returncode != 0:
        return {"installed": False, "reason": f"smartnoise-sql not importable in {venv}: {out.stderr.strip()[-300:]}"}
    return {"installed": True, "python": str(py), "versions": json.loads(out.stdout)}


def ensure_env(venv: Path | None = None, *, create: bool = True, timeout: float = 900) -> dict:
    """The environment's :func:`status`, after creating it (``python -m venv`` + ``pip install`` :data:`PINS` from the
    package registry) when it is missing and ``create``; a failed install is reported with pip's last lines."""
    venv = venv or venv_path()
    st = status(venv)
    if st["installed"] or not create:
        return st
    try:
        if not _python(venv).exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=timeout)
        pip = subprocess.run([str(_python(venv)), "-m", "pip", "install", "-q", *PINS], capture_output=True, text=True,
                             timeout=timeout, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return {"installed": False, "reason": f"creating {venv} failed: {exc}"}
    if pip.returncode != 0:
        return {"installed": False, "reason": f"pip install {' '.join(PINS)} failed: {pip.stderr.strip()[-400:]}"}
    return status(venv)


def run_job(job: dict, *, venv: Path | None = None, timeout: float = 3600) -> dict:
    """Run one job (``smartnoise_job.py``'s JSON) in the SmartNoise environment; ``{"error": ...}`` on failure."""
    st = status(venv)
    if not st["installed"]:
        return {"error": "not installed: " + st["reason"]}
    try:
        out = subprocess.run([st["python"], str(SCRIPT)], input=json.dumps(job), capture_output=True, text=True,
                             timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"the SmartNoise job took more than {timeout} s"}
    try:
        result: dict = json.loads(out.stdout)
    except json.JSONDecodeError:
        return {"error": f"the SmartNoise job failed (exit {out.returncode}): {out.stderr.strip()[-400:]}"}
    return result


def model(eps: float, delta: float, L: int, scale: float, tau: float, *, prec: int = 120) -> dict:
    """The exact model (module docstring): p(1), the all-vector sup 1 - (1 - p(1))^L when the proof's side conditions
    hold (certified in interval arithmetic), and its verdict against delta: ``holds-for-all-n`` / ``violated`` (at L
    absent keys) / ``undecided`` (a side condition fails: the sup is then only a lower bound)."""
    with exact_context(prec, interval=True) as iv:
        e, d, b, t = (to_ctx(iv, Fraction(x)) for x in (eps, delta, scale, tau))   # the doubles, exactly
        p1 = iv.exp(-(t - 1) / b) / 2 if tau >= 1 else 1 - iv.exp((t - 1) / b) / 2
        worst = 1 - (1 - p1) ** L
        side_loss = (b * e - L).a >= 0               # each present key's loss <= 1/b <= eps/L
        side_rev = (e / L + iv.log(1 - p1)).a >= 0   # eps/L >= -ln(1 - p(1))
        rel = (worst / d - 1)
        if worst.a > d.b:
            verdict = "violated"
        elif worst.b <= d.a and side_loss and side_rev:
            verdict = "holds-for-all-n"
        else:
            verdict = "undecided"
        return {"verdict": verdict, "p1": float(p1.b), "sup_delta": [float(worst.a), float(worst.b)],
                "witness": [[0] * L, [1] * L], "relative_excess": float(rel.b) if worst.a > d.b else 0.0,
                "claimed_over_exact": float((d / worst).a), "side_conditions": {"scale >= L/eps": side_loss,
                                                                                   "eps/L >= -ln(1 - p1)": side_rev},
                "noise": "continuous Laplace with SmartNoise's scale and tau (the noise as specified, not OpenDP's sampler)"}


def _analyse(res: dict, eps: float, delta: float, L: int, alpha: float) -> list[dict]:
    """Black-box bounds from the job's histograms (module docstring)."""
    rows = []
    a = alpha / 5   # Bonferroni: the delta test and the 4 events of the threshold pair
    for pair in res["pairs"]:
        hd, hp, n = pair["hist"]["D"], pair["hist"]["D'"], pair["samples"]
        row: dict[str, Any] = {"pair": pair["name"], "counts": [pair["counts"], [c + 1 for c in pair["counts"]]],
                               "samples_per_table": n, "hist_D": hd, "hist_D'": hp}
        if pair["name"] == "absent":
            hits, hits_d = n - hp[0], n - hd[0]
            lo = cp_lower(hits, n, a)
            row.update({"released_D'": hits, "released_D": hits_d, "delta_lower_bound": lo, "refutes": lo > delta,
                        "structural_zero_confirmed": hits_d == 0})
        else:
            best = -math.inf
            for x, y in ((hp, hd), (hd, hp)):
                for idx in (L, 0):   # all released / none released
                    best = max(best, eps_lower_bound(cp_lower(x[idx], n, a), cp_upper(y[idx], n, a), delta))
            row.update({"eps_lower_bound": None if best == -math.inf else best, "refutes": best > eps})
        rows.append(row)
    return rows


def audit(eps: float, delta: float, L: int, *, groups: int = 500, runs: int = 10, mutant: str | None = None,
          alpha: float = 0.05, venv: Path | None = None) -> dict:
    """One SmartNoise configuration end to end (module docstring): the claim as SmartNoise states it, the black-box
    bounds on the absent-key and threshold pairs, the exact model; ``{"installed": False, "reason": ...}`` without the
    environment."""
    if not (eps > 0 and 0 < delta < 1):
        raise InvalidParameter(f"eps={eps}, delta={delta}: need eps > 0 and 0 < delta < 1")
    if not isinstance(L, int) or L < 1:
        raise InvalidParameter(f"L={L!r} must be an int >= 1")
    st = status(venv)
    base = {"library": "smartnoise-sql", "strategy": "tau-thresholding (censor_dims)", "L": L, "eps": eps, "delta": delta,
            "mutant": mutant}
    if not st["installed"]:
        return {**base, "installed": False, "verdict": "not installed", "reason": st["reason"]}
    # the threshold pair's n: just below tau (tau = L (1 - ln(2 delta / L) / eps), SmartNoise's formula)
    tau0 = L * (1 - math.log(2 * delta / L) / eps) - (1 if mutant == "threshold-minus-one" else 0)
    n = max(1, math.floor(tau0) - 1)
    job = {"eps": eps, "delta": delta, "L": L, "groups": groups, "runs": runs, "mutant": mutant,
           "pairs": [{"name": "absent", "counts": [0] * L}, {"name": "threshold", "counts": [n] * L}]}
    res = run_job(job, venv=venv)
    if "error" in res:
        return {**base, "installed": True, "verdict": "error", "reason": res["error"]}
    kc = res["keycount"]
    claim = {"eps": kc.get("epsilon", eps), "delta": kc.get("delta", delta), "source": "key-count mechanism's cost"}
    bb = _analyse(res, claim["eps"], claim["delta"], L, alpha)
    # kc["threshold"] is read inside the job, after a mutant lowered it: the model uses the threshold that ran
    exact = model(claim["eps"], claim["delta"], L, kc["scale"], kc["threshold"]) \
        if "scale" in kc else {"verdict": "undecided", "reason": kc.get("error")}
    if "sup_delta" in exact:   # the whole query's stated delta (SmartNoise's odometer) beside the key count's own
        exact["within_query_cost"] = exact["sup_delta"][1] <= res["query_cost"][1]
    refuted = any(r["refutes"] for r in bb)
    verdict = "violated (black box)" if refuted else ("violated (model)" if exact["verdict"] == "violated" else
                                                        "no violation found")
    return {**base, "installed": True, "versions": res["versions"], "claim": claim, "query": res["query"],
            "query_cost": res["query_cost"], "keycount": kc, "black_box": bb, "model": exact, "verdict": verdict,
            "groups": res["groups"], "runs": res["runs"], "seeded": False, "alpha": alpha, "seconds": res["seconds"],
            "note": "copies of the pair in one table are independent samples (SmartNoise noises each group-by row "
                    "independently); OpenDP's randomness cannot be seeded"}


def audit_rows(configs: tuple = ((1.0, 1e-5, 1), (1.0, 1e-5, 2), (1.0, 0.05, 1), (1.0, 0.05, 2), (1.0, 0.05, 3)), *,
               groups: int = 500, runs: int = 10, power: bool = True, venv: Path | None = None) -> list[dict]:
    """The page's SmartNoise rows: each (eps, delta, L) of ``configs`` and (``power``) the lowered threshold at
    (1, 0.05, 1); one ``not installed`` row (with the reason) when the environment is missing."""
    st = status(venv)
    if not st["installed"]:
        return [{"library": "smartnoise-sql", "verdict": "not installed", "installed": False, "reason": st["reason"]}]
    rows = [audit(e, d, L, groups=groups, runs=runs, venv=venv) for e, d, L in configs]
    if power:
        rows.append(audit(1.0, 0.05, 1, groups=groups, runs=runs, mutant="threshold-minus-one", venv=venv))
    return rows


def main(argv: list[str] | None = None) -> int:
    """``python -m dpverify.auditor.smartnoise [--create] [--groups N] [--runs N]``: the rows as JSON on stdout (exit 0;
    a ``not installed`` row when the environment is missing and ``--create`` is not given or fails)."""
    import argparse
    ap = argparse.ArgumentParser(prog="python -m dpverify.auditor.smartnoise", description=__doc__.split("\n", 1)[0])
    ap.add_argument("--create", action="store_true", help="create the environment from the package registry if missing")
    ap.add_argument("--groups", type=int, default=500, help="copies of each pair per table (default 500)")
    ap.add_argument("--runs", type=int, default=10, help="queries per table (default 10)")
    args = ap.parse_args(argv)
    if args.create:
        ensure_env()
    json.dump({"status": status(), "rows": audit_rows(groups=args.groups, runs=args.runs)}, sys.stdout, indent=1, default=str)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
