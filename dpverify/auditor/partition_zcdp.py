"""OpenDP's Gaussian threshold as an audit target: delta-approximate rho-zCDP read from its own privacy map.

* :class:`OpenDPGaussianThreshold` builds ``opendp.measurements.make_gaussian_threshold`` on a map of integer counts
  (string keys) and reads the claim ``(rho, delta) = meas.map((L, L, 1))`` from the library -- one user, one count in
  each of at most L keys -- never retyped.  Its documented noise (discrete Gaussian of ``scale``, CKS20) and rule
  (keep iff ``n + X >= T``) give the exact keep probability, so :func:`exact_check` decides the claim with the
  certified checker (``dpverify.checker.notions``: notion ``approx-zcdp``, OpenDP's reading of the events) on windows
  of counts through :class:`proofs.dvgm22.zcdp.DiscreteGaussianThreshold`.
* :func:`black_box_delta` runs the measurement itself on L keys of one user against L absent keys: the event "some
  key released" is impossible under the absent keys (structurally: a key not in the data is not in the output), so
  any admissible events must leave it out, and a Clopper-Pearson lower bound on its probability is a certified lower
  bound (at the stated confidence) on the delta the claim must have -- an audit with power where an eps lower bound has
  none.  OpenDP draws its own noise: **the run cannot be seeded**; its confidence is the Clopper-Pearson level only.
* Power: :func:`threshold_minus_one` (the measurement at ``T - 1`` claiming the map of ``T``) and the exact
  ``rho halved`` claim (the corrected delta, rho / 2) are refuted; the corrected claim is the control that holds.
* :func:`page_rows` returns the rows for ``reports/partition_selection.md`` (a library not installed gives a row
  ``not installed``, never a pass).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from proofs.claims import Domain, PrivacyClaim
from proofs.dvgm22.zcdp import DiscreteGaussianThreshold, corrected_delta

from .partition_libs import classify_ratio
from .stats import cp_lower

__all__ = ["OpenDPGaussianThreshold", "exact_check", "black_box_delta", "threshold_minus_one", "page_rows", "PARAMS"]

#: (scale, threshold, L) audited by :func:`page_rows`
PARAMS: tuple[tuple[float, int, int], ...] = ((1.0, 3, 1), (2.0, 8, 1), (5.0, 40, 1), (2.0, 8, 2))


def opendp_version() -> str | None:
    """The installed opendp version, or None."""
    try:
        from importlib.metadata import version
        return version("opendp")
    except Exception:  # noqa: BLE001 - not installed (or no metadata): reported as such
        return None


@dataclass
class OpenDPGaussianThreshold:
    """``make_gaussian_threshold(map<str, int>, l02inf_distance, scale, threshold)`` and its map at ``(L, L, 1)``.

    ``claim_threshold``: the threshold whose map is claimed (default: the one run); a smaller run threshold is a
    deliberately wrong target (:func:`threshold_minus_one`)."""

    scale: float = 1.0
    threshold: int = 3
    L: int = 1
    claim_threshold: int | None = None

    def __post_init__(self) -> None:
        try:
            import opendp.prelude as dp
        except ImportError as exc:
            raise ImportError("the OpenDP adapter needs `pip install opendp`") from exc
        dp.enable_features("contrib")
        dom = dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T=int))
        met = dp.l02inf_distance(dp.absolute_distance(T=int))
        self.meas = dp.m.make_gaussian_threshold(dom, met, scale=float(self.scale), threshold=int(self.threshold))
        stated = self.meas if self.claim_threshold is None else dp.m.make_gaussian_threshold(
            dom, met, scale=float(self.scale), threshold=int(self.claim_threshold))
        self.rho, self.delta = stated.map((int(self.L), int(self.L), 1))
        self.output_measure = str(self.meas.output_measure)

    def law(self, base: int = 0) -> DiscreteGaussianThreshold:
        """The exact law of the released key set (counts from ``base``)."""
        return DiscreteGaussianThreshold(Fraction(self.scale), int(self.threshold), base=base)

    def released(self, counts: list[int]) -> set[str]:
        """The keys the measurement releases on keys ``k0, k1, ...`` with these counts (absent when 0)."""
        data = {f"k{i}": int(c) for i, c in enumerate(counts) if c > 0}
        return set(self.meas(data)) if data else set()


def _claim(target: OpenDPGaussianThreshold, d: int, width: int, bases: list[int], rho: Any, delta: Any,
           events: str = "opendp") -> PrivacyClaim:
    laws = {b: target.law(b) for b in bases}
    return PrivacyClaim(
        id=f"opendp.gaussian_threshold(scale={target.scale}, T={target.threshold})", title="library measurement",
        source="opendp make_gaussian_threshold privacy map", statement="as the library states", code="opendp",
        relation="delta:L", domain=Domain(d=d, max_count=width, relation="delta:L",
                                          params=tuple({"L": target.L, "base": b} for b in bases)),
        mechanism=lambda p: laws[p["base"]], points=lambda p: [(rho, delta)], notion="approx-zcdp", approx_events=events)


def exact_check(target: OpenDPGaussianThreshold, *, width: int = 4, d: int | None = None, rho: Any = None,
                delta: Any = None, events: str = "opendp") -> dict[str, Any]:
    """The target's (rho, delta) (or the given ones) decided exactly (certified) on windows: counts 0..width (absent
    keys against present ones), a window ending at the threshold and one around it."""
    from dpverify.checker.core import check
    r = Fraction(target.rho) if rho is None else Fraction(rho)
    dl = Fraction(target.delta) if delta is None else Fraction(delta)
    d = d or min(target.L, 2)
    T = int(target.threshold)
    bases = sorted({0, max(0, T - width), max(0, T - width // 2)})
    t0 = time.perf_counter()
    res = check(_claim(target, d, width, bases, r, dl, events), certify=True)
    w = res.worst
    details = (w.details or {}) if w is not None else {}
    out: dict[str, Any] = {
        "verdict": str(res.verdict), "certified": res.certified, "ratio": None if res.ratio is None else float(res.ratio),
        "seconds": round(time.perf_counter() - t0, 2), "claim": {"rho": float(r), "delta": float(dl), "L": target.L},
        "windows": bases, "d": d, "part": details.get("part"),
    }
    if w is not None and w.h is not None and w.h_prime is not None:
        base = int(w.params.get("base", 0))
        out["witness"] = {"h": [c + base for c in w.h], "h_prime": [c + base for c in w.h_prime]}
    if str(res.verdict) == "violated" and details.get("part") == "mass off the other support" and res.ratio:
        size, rel, excess = classify_ratio(res.ratio, dl)
        out.update(size=size, relative_excess=rel, absolute_excess=excess)
    return out


def black_box_delta(target: OpenDPGaussianThreshold, *, samples: int = 20_000, alpha: float = 0.05) -> dict[str, Any]:
    """A Clopper-Pearson lower bound on the delta the claim needs, from the measurement run on L keys of one user (count
    1 each) against L absent keys (released with probability exactly 0, known structurally, not sampled).  Unseeded."""
    L = int(target.L)
    t0 = time.perf_counter()
    hits = sum(1 for _ in range(samples) if target.released([1] * L))
    lo = cp_lower(hits, samples, alpha)
    return {"pair": [[0] * L, [1] * L], "samples": samples, "hits": hits, "delta_lower_bound": lo,
            "claimed_delta": float(target.delta), "alpha": alpha, "seeded": False, "refutes": lo > float(target.delta),
            "seconds": round(time.perf_counter() - t0, 2)}


def threshold_minus_one(scale: float, threshold: int, L: int = 1) -> OpenDPGaussianThreshold:
    """A deliberately wrong target: the measurement run at ``threshold - 1``, claiming the map of ``threshold``."""
    return OpenDPGaussianThreshold(scale, threshold - 1, L, claim_threshold=threshold)


def _row(kind: str, target: OpenDPGaussianThreshold, exact: dict[str, Any], bb: dict[str, Any] | None,
         version: str | None) -> dict[str, Any]:
    return {"library": "opendp", "version": version, "kind": kind,
            "measurement": f"make_gaussian_threshold (scale {target.scale:g}, T = {target.threshold})", "L": target.L,
            "claim": f"({exact['claim']['rho']:.6g}, {exact['claim']['delta']:.6g})-approximate zCDP",
            "how": "exact law of the key set (discrete Gaussian, keep iff n + X >= T), certified checker, notion "
                   "approx-zcdp (OpenDP's events)" + ("; black box: Clopper-Pearson on an event impossible under the "
                                                      "neighbour" if bb else ""),
            "verdict": exact["verdict"], "certified": exact["certified"], "ratio": exact["ratio"],
            "size": exact.get("size", "none"), "relative_excess": exact.get("relative_excess"),
            "witness": exact.get("witness"), "part": exact.get("part"),
            "black_box": None if bb is None else {k: bb[k] for k in ("delta_lower_bound", "samples", "hits", "refutes",
                                                                     "alpha", "seeded")}}


def page_rows(*, samples: int = 20_000, params: tuple[tuple[float, int, int], ...] = PARAMS,
              black_box_below: float = 1e-3) -> list[dict[str, Any]]:
    """Rows for the findings page: each (scale, T, L) of ``params`` as OpenDP states it (exact; black box where delta
    is large enough to sample, ``delta >= black_box_below``), the corrected control (holds), and the power checks (the
    threshold lowered by one, exact and black box; rho halved, exact)."""
    version = opendp_version()
    if version is None:
        return [{"library": "opendp", "version": None, "kind": "stated", "verdict": "not installed",
                 "measurement": "make_gaussian_threshold"}]
    rows = []
    for scale, T, L in params:
        tgt = OpenDPGaussianThreshold(scale, T, L)
        bb = black_box_delta(tgt, samples=samples) if tgt.delta >= black_box_below else None
        rows.append(_row("stated", tgt, exact_check(tgt), bb, version))
        fixed = corrected_delta(Fraction(scale), T, L)
        rows.append(_row("corrected delta (control)", tgt, exact_check(tgt, delta=fixed, events="bs16"), None, version))
    scale, T, L = params[0]
    mut = threshold_minus_one(scale, T, L)
    rows.append(_row("power: threshold lowered by one", mut, exact_check(mut), black_box_delta(mut, samples=samples),
                     version))
    low = OpenDPGaussianThreshold(1.0, 10, 1)
    fixed = corrected_delta(Fraction(1), 10, 1)
    rows.append(_row("power: rho halved (corrected delta)", low,
                     exact_check(low, width=6, rho=Fraction(low.rho) / 2, delta=fixed), None, version))
    return rows
