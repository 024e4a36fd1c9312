"""Guarded adapters auditing third-party DP libraries (optional extras, never hard dependencies).

Each adapter returns a black-box target (``dpverify.auditor.adapters`` shapes) or
raises ``ImportError`` naming the package to install.  Tested with opendp
0.16 and diffprivlib 0.6.6 (which needs scikit-learn < 1.7).

* :func:`opendp_noisy_top_k` -- OpenDP's ``make_noisy_max`` / ``make_noisy_top_k``
  on count vectors under ``LInfDistance(monotonic=True)``.  OpenDP draws from its
  own CSPRNG, so these targets have the ``f(h)`` shape and the audit **cannot
  be seeded**.  With ``measure="zCDP"`` the noise is Gumbel(scale), so the
  exact references are ``em`` (k = 1) and ``gumbel-topk`` with ``eps = 1/scale``;
  with ``measure="pure"`` the noise is exponential (report-noisy-max form of
  permute-and-flip, MS20), for which dpverify has no exact reference: audit
  it spec-less against OpenDP's own privacy map (``k/scale``).
* :func:`pipelinedp_exponential` / :func:`pipelinedp_peel` -- PipelineDP's
  ``dp_computations.ExponentialMechanism`` (tested with pipeline-dp 0.3.1): weights
  ``exp(eps score / sensitivity)`` (``/ 2 sensitivity`` when not monotonic), drawn
  from an unseeded ``np.random.default_rng()`` (**cannot be seeded**).  It does not
  subtract the largest score before ``exp``: raw counts above ~709/eps overflow
  and candidates all below ~-745/eps of 0 underflow, and either way the
  probabilities are NaN and ``apply`` raises ``ValueError``.  ``shift=True`` (the
  default) scores ``h_i - max h`` over the current candidates, which leaves the
  law unchanged (reference ``em``) and keeps the weights finite.
* :func:`diffprivlib_exponential` -- IBM diffprivlib's ``Exponential``
  mechanism with the histogram as utility (``monotonic=True``: weights
  ``exp(eps u / sensitivity)``, reference ``em``; ``monotonic=False``:
  ``exp(eps u / (2 sensitivity))``, reference ``em`` with ``factor2=True``).
  Seeded through a ``numpy.random.RandomState`` drawn from the audit's ``rng``.

:func:`thirdparty_audits` runs the worked examples and returns rows for
``reports/audits.md`` (a row says "not installed" instead of failing).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .stats import DEFAULT_SEED

__all__ = ["opendp_noisy_top_k", "opendp_privacy_map", "diffprivlib_exponential", "pipelinedp_exponential", "pipelinedp_peel",
           "pipelinedp_scoring", "thirdparty_audits"]


def _opendp_measurement(k: int, scale: float, measure: str) -> Any:
    try:
        import opendp.prelude as dp
    except ImportError as exc:
        raise ImportError("the OpenDP adapter needs `pip install opendp`") from exc
    dp.enable_features("contrib")
    out = {"pure": dp.max_divergence(), "zCDP": dp.zero_concentrated_divergence()}.get(measure)
    if out is None:
        raise ValueError(f"measure={measure!r} must be 'pure' or 'zCDP'")
    dom = dp.vector_domain(dp.atom_domain(T=int))
    met = dp.linf_distance(T=int, monotonic=True)
    if k == 1:
        return dp.m.make_noisy_max(dom, met, out, scale=float(scale))
    return dp.m.make_noisy_top_k(dom, met, out, k=k, scale=float(scale))


def opendp_noisy_top_k(k: int = 1, scale: float = 1.0, measure: str = "zCDP") -> Callable[[Any], Any]:
    """``f(h) -> index`` (k = 1) or ``[i_1, ..., i_k]``: OpenDP's noisy max / top-k (module docstring)."""
    meas = _opendp_measurement(k, scale, measure)

    def opendp_target(h: Any) -> Any:
        return meas([int(c) for c in h])

    opendp_target.__qualname__ = f"opendp_noisy_top_k(k={k}, scale={scale}, measure={measure!r})"
    return opendp_target


def opendp_privacy_map(k: int = 1, scale: float = 1.0, measure: str = "pure") -> float:
    """OpenDP's own privacy map at ``d_in = 1`` (eps for ``"pure"``, rho for ``"zCDP"``)."""
    return float(_opendp_measurement(k, scale, measure).map(1))


def diffprivlib_exponential(eps: float = 1.0, monotonic: bool = True, sensitivity: float = 1.0) -> Callable[..., list]:
    """``f(h, rng, size)``: diffprivlib's ``Exponential`` with utility ``h`` (module docstring)."""
    try:
        from diffprivlib.mechanisms import Exponential
    except ImportError as exc:
        raise ImportError("the diffprivlib adapter needs `pip install diffprivlib` (and scikit-learn < 1.7)") from exc

    def diffprivlib_target(h: Any, rng: np.random.Generator, size: int) -> list:
        mech = Exponential(epsilon=float(eps), sensitivity=float(sensitivity), utility=[float(c) for c in h],
                           monotonic=monotonic, random_state=np.random.RandomState(int(rng.integers(2**32))))
        return [mech.randomise() for _ in range(size)]

    diffprivlib_target.__qualname__ = f"diffprivlib.Exponential(eps={eps}, monotonic={monotonic})"
    return diffprivlib_target


def pipelinedp_scoring(values: list, shift: float, monotonic: bool, sensitivity: float) -> Any:
    """PipelineDP's exponential mechanism with the score ``values[i] - shift`` (its declared sensitivity and monotonicity)."""
    try:
        from pipeline_dp.dp_computations import ExponentialMechanism
    except ImportError as exc:
        raise ImportError("the PipelineDP adapter needs `pip install pipeline-dp`") from exc

    class _Counts(ExponentialMechanism.ScoringFunction):
        def score(self, i: int) -> float:
            return values[i] - shift

        @property
        def global_sensitivity(self) -> float:
            return sensitivity

        @property
        def is_monotonic(self) -> bool:
            return monotonic

    return ExponentialMechanism(_Counts())




def pipelinedp_exponential(eps: float = 1.0, monotonic: bool = True, sensitivity: float = 1.0,
                           shift: bool = True) -> Callable[[Any], int]:
    """``f(h) -> index``: PipelineDP's exponential mechanism over the items, utility ``h`` (module docstring)."""

    def pipelinedp_target(h: Any) -> int:
        values = [int(c) for c in h]
        mech = pipelinedp_scoring(values, max(values) if shift else 0, monotonic, sensitivity)
        return int(mech.apply(float(eps), list(range(len(values)))))

    pipelinedp_target.__qualname__ = f"pipelinedp.ExponentialMechanism(eps={eps}, monotonic={monotonic}, shift={shift})"
    return pipelinedp_target


def pipelinedp_peel(h: Any, k: int, eps_each: float, *, shift: bool = True) -> list[int]:
    """Top-k by PipelineDP's exponential mechanism applied ``k`` times, each chosen item removed (peeling EM).

    ``shift=True`` subtracts the largest remaining count each round (same law; see the module docstring).
    """
    values = [int(c) for c in h]
    cands = list(range(len(values)))
    chosen: list[int] = []
    for _ in range(k):
        top = max(values[i] for i in cands) if shift else 0
        i = int(pipelinedp_scoring(values, top, True, 1.0).apply(float(eps_each), cands))
        chosen.append(i)
        cands.remove(i)
    return chosen


def thirdparty_audits(*, samples: int = 20_000, seed: int = DEFAULT_SEED) -> list[dict]:
    """Audit the worked examples of the module docstring; one row each (see ``dpverify.auditor.suite``)."""
    from .core import audit

    plans: list[tuple[str, Callable[[], Any], dict[str, Any], str]] = [
        ("OpenDP make_noisy_max (zCDP, Gumbel, scale 1)", lambda: opendp_noisy_top_k(1, 1.0, "zCDP"),
         dict(spec="em", params={"eps": 1}), "reference em, eps = 1/scale"),
        ("OpenDP make_noisy_top_k (zCDP, Gumbel, k=2, scale 1)", lambda: opendp_noisy_top_k(2, 1.0, "zCDP"),
         dict(spec="gumbel-topk", params={"k": 2, "eps": 1}), "reference gumbel-topk, eps = 1/scale per item"),
        ("OpenDP make_noisy_max (pure, exponential noise, scale 1)", lambda: opendp_noisy_top_k(1, 1.0, "pure"),
         dict(eps=1, inputs=[(1, 0, 0), (1, 1, 0), (0, 0, 0), (0, 0, 1)]), "spec-less, claim = OpenDP's map (1/scale)"),
        ("OpenDP make_noisy_max (pure) claimed at eps/2 (deliberately wrong claim)", lambda: opendp_noisy_top_k(1, 1.0, "pure"),
         dict(eps="0.5", inputs=[(0, 0, 0), (0, 0, 1), (1, 1, 0)]), "power check: the audit must refute half of OpenDP's eps"),
        ("diffprivlib Exponential (monotonic, eps=1)", lambda: diffprivlib_exponential(1.0, True),
         dict(spec="em", params={"eps": 1}), "reference em"),
        ("diffprivlib Exponential (non-monotonic, eps=1)", lambda: diffprivlib_exponential(1.0, False),
         dict(spec="em", params={"eps": 1, "factor2": True}), "reference em with factor2"),
        ("diffprivlib Exponential (non-monotonic) audited as monotonic EM", lambda: diffprivlib_exponential(1.0, False),
         dict(spec="em", params={"eps": 1}), "power check: different law, fit must reject"),
    ]
    rows = []
    for label, make, kw, note in plans:
        try:
            target = make()
        except ImportError as exc:
            rows.append({"target": label, "reference": kw.get("spec", "(none)"), "verdict": "not installed", "note": str(exc)})
            continue
        r = audit(target, samples=samples, seed=seed, **kw)
        rows.append({
            "target": label, "reference": f"{r.reference} {r.params or ''}".strip(), "verdict": r.verdict,
            "privacy": r.privacy_verdict, "fit": r.fit_verdict or "-", "samples_per_input": r.max_samples_per_input,
            "eps_lower_bound": round(max(r.eps_lower_bound, 0.0), 4), "seeded": r.seeded, "seconds": round(r.seconds, 1),
            "note": note + ("" if r.seeded else "; not seeded (library owns its randomness)"),
        })
    return rows
