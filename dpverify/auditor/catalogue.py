"""``dpverify audit --catalogue``: the StatDP (DWWZK18) / DP-Sniper (BSBV21) benchmark, reproduced and compared with the
published bounds.

For every member of :data:`mechanisms.catalogue.MEMBERS` (claimed eps = 0.1 where the
mechanism has an eps; the neighbour relation the benchmark uses) two audits of the
mechanism's own sampler, no input given by hand:

* **black box** -- spec-less, as DP-Sniper: candidate pairs from StatDP's patterns and scales
  derived from the claim (:mod:`dpverify.auditor.inputs`), screened by successive halving with
  learned likelihood ratios (:mod:`dpverify.auditor.scored`), one event certified;
* **exact law** -- the same with the mechanism's exact log-likelihood ratio as the score
  (Neyman–Pearson events); for discrete laws the pairs come from an exact search that ranks
  pairs by the lower bound their best event would certify.

Each audit draws at most :data:`BUDGET` samples in total (all inputs, screening and
certification) and reports the eps lower bound certified at 90% confidence (``alpha = 0.1``,
one event, Clopper–Pearson on both sides at ``alpha/2`` -- DP-Sniper's own procedure).
:data:`PUBLISHED` holds the lower bounds DP-Sniper's evaluation published (logistic regression
and neural network) and StatDP's as verified by DP-Sniper (two runs), read from the machine-readable
logs of the DP-Sniper repository (:data:`PUBLISHED_SOURCE`).

The false-alarm run audits every *correct* member (its claim holds) with ``seeds`` further seeds
and counts certified violations at 90% (the benchmark's level: a correct mechanism whose claim is
tight may be refuted with probability up to 10%, and the two one-sided bounds make it about 1%) and
at 99%, ``dpverify audit``'s default confidence for a verdict (the same counts, bounds at 0.5% each).  The targets section audits
LSL17 Algorithm 6 (not DP) spec-less at d = 10 and d = 3 through :func:`dpverify.auditor.core.audit`,
exactly as ``dpverify audit FILE:svt6 --eps 1/2 --delta 0 --relation linf --d N`` does.
"""

from __future__ import annotations

import dataclasses
import math
import time
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction
from typing import Any, Callable, Iterable

import numpy as np

from mechanisms.catalogue import MEMBERS, Member, member, unique_rows
from mechanisms.errors import InvalidParameter

from dpverify.report.provenance import snapshot

from .adapters import Target
from .inputs import candidate_pairs, exact_search, scales_for
from .ratio import predicted_eps_lower
from .scored import scored_audit, summarise
from .stats import DEFAULT_ALPHA as VERDICT_ALPHA
from .stats import cp_lower, cp_upper, eps_lower_bound

__all__ = ["PUBLISHED", "PUBLISHED_SOURCE", "BUDGET", "ALPHA", "CERT_SHARE", "run_member", "false_alarm", "svt6_targets",
           "compute_catalogue", "plan", "noisy_max_value_ceiling"]

#: samples an audit of one member may draw in total (the catalogue's target budget: DP-Sniper uses about 2.2e8)
BUDGET = 20_000_000
#: samples per input of DP-Sniper's final estimate (its published bounds)
DPSNIPER_SAMPLES = 200_000_000
#: 1 - confidence of every catalogue bound (DP-Sniper's 90%)
ALPHA = 0.1
#: share of the budget spent on certifying the one chosen event (the rest screens)
CERT_SHARE = 0.75
#: seed of the benchmark rows (the false-alarm run uses SEED + 1 .. SEED + seeds)
SEED = 20260101
#: candidate pairs screened per member (the literature's first; DP-Sniper screens StatDP's 8 or 2)
CANDIDATES = 12
#: pairs the exact search of a discrete member scores (a count: the same on any machine)
EXACT_SEARCH_PAIRS = 600

#: (DP-Sniper logistic regression, DP-Sniper neural network, StatDP run 1, StatDP run 2) eps lower bounds
PUBLISHED: dict[str, tuple[float, float, float | None, float | None]] = {
    "Laplace": (0.096804, 0.097634, 0.099814, 0.099617),
    "TruncatedGeometric": (0.115564, 0.115543, 0.115881, 0.116854),
    "NoisyHist1": (0.097794, 0.097699, 0.082831, 0.099436),
    "NoisyHist2": (4.602022, 4.601470, 9.716927, 10.002169),
    "ReportNoisyMax1": (0.092254, 0.092501, 0.091952, 0.092102),
    "ReportNoisyMax2": (0.097503, 0.097920, 0.099575, 0.099672),
    "ReportNoisyMax3": (0.247816, 0.248810, 0.199142, 0.196071),
    "ReportNoisyMax4": (0.346343, 0.353444, 0.196020, 0.198830),
    "SVT1": (0.085798, 0.085782, 0.029754, 0.029846),
    "SVT2": (0.085934, 0.085247, 0.031642, 0.040683),
    "SVT3": (0.171572, 0.182168, 0.023061, 0.179285),
    "SVT4": (0.168683, 0.169569, 0.170860, 0.171908),
    "SVT5": (1.761185, 1.760988, 14.314309, 14.314307),
    "SVT6": (0.272041, 0.269827, 0.322037, 0.319954),
    "Rappor": (0.292985, 0.300802, 0.241583, 0.024255),
    "OneTimeRappor": (0.597778, 0.599899, 0.470635, 0.060192),
    "LaplaceParallel": (0.034953, 0.029869, 0.012593, 0.013493),
    "SVT34Parallel": (0.261038, 0.261621, 0.137089, 0.196324),
    "PrefixSum": (0.504012, 0.577433, 0.351606, 0.344593),
    "NumericalSVT": (0.034324, 0.034501, None, None),
}
PUBLISHED_SOURCE = ("eth-sri/dp-sniper at ee087b2, eval_sp2021/reference-results/dd_search_reg_data.log, dd_search_mlp_data.log, "
                    "statdp_1_data.log, statdp_2_data.log (field eps_lcb; 90% confidence; 2e8 samples per input in the final "
                    "estimate; StatDP has no NumericalSVT result)")


def plan(budget: int = BUDGET, cert_share: float = CERT_SHARE) -> dict:
    """Per-input certification size and screening cap of a member audit within ``budget`` samples in total.

    Certification: ``cert_share * budget / 2`` per input of the one chosen pair.  Screening: successive
    halving whose last round has ``top`` rows per input; its total stays below ``(1 - cert_share) * budget``
    for the candidate counts the search produces (checked after every run: ``samples_total``).
    """
    n_cert = int(cert_share * budget / 2)
    top = int((1 - cert_share) * budget / 8)
    return {"n_cert": n_cert, "top": top, "samples": n_cert + top, "selection": top / (n_cert + top)}


def _params(mech: Any) -> dict:
    return {f.name: getattr(mech, f.name) for f in dataclasses.fields(mech)} if dataclasses.is_dataclass(mech) else {}


def _loglik(mech: Any, discrete: bool) -> Callable[[tuple, np.ndarray], np.ndarray]:
    """The member's exact log-likelihood of encoded rows (a lookup in its exact law, or its ``log_density``)."""
    if not discrete:
        return lambda h, X: mech.log_density(h, X)
    tables: dict = {}

    def logp(h: tuple, X: np.ndarray) -> np.ndarray:
        if h not in tables:
            law = mech.distribution(h, prec=64)
            keys = {tuple(float(x) for x in o): (math.log(float(p)) if p > 0 else -math.inf) for o, p in law.items()}
            tables[h] = keys
        t = tables[h]
        uniq, inv = unique_rows(X)  # np.unique(X, axis=0) sorted 2e7 rows lexicographically for minutes
        vals = np.array([t.get(tuple(float(x) for x in r), -math.inf) for r in uniq])
        return vals[inv]

    return logp


def _exact_pairs(m: Member, mech: Any, n_cert: int, level: float, keep: int = 4,
                 n_target: int | None = None) -> tuple[list, dict]:
    """Pairs ranked by the eps lower bound their best Neyman–Pearson event would certify (exact laws, discrete members).

    ``n_target``: also the best such bound over every pair scored at that certification size (``best_at_target``,
    the ceiling of an audit with the target budget :data:`BUDGET` on these pairs)."""
    laws: dict = {}
    at_target = [-math.inf]

    def law(h: tuple) -> dict:
        if h not in laws:
            laws[h] = {o: float(p) for o, p in mech.distribution(h, prec=64).items()}
        return laws[h]

    def score(h: tuple, g: tuple) -> tuple[float, float]:
        try:
            A, B = law(h), law(g)
        except ValueError:
            return -math.inf, -math.inf
        best, pure = -math.inf, 0.0
        for P, Q in ((A, B), (B, A)):
            outs = sorted(set(P) | set(Q), key=lambda o: -(P.get(o, 0.0) / max(Q.get(o, 0.0), 1e-300)))
            ps = np.cumsum([P.get(o, 0.0) for o in outs])
            qs = np.cumsum([Q.get(o, 0.0) for o in outs])
            best = max(best, float(np.max(predicted_eps_lower(ps, qs, n_cert, level, 0.0))))
            if n_target:
                at_target[0] = max(at_target[0], float(np.max(predicted_eps_lower(ps, qs, n_target, level, 0.0))))
            r = [math.log(P[o] / Q[o]) for o in P if P[o] > 0 and Q.get(o, 0) > 0]
            pure = max([pure] + r)
        return best, pure

    scales = scales_for(mech, eps=m.claim_eps, delta=0, d=m.d, params=_params(mech))
    ranked, stats = exact_search(score, m.d, m.relation, scales, max_laws=EXACT_SEARCH_PAIRS)
    return [(h, g, tag) for _, _, h, g, tag in ranked[:keep]], {**stats, "best_predicted": ranked[0][0] if ranked else None,
                                                               "best_at_target": at_target[0] if n_target else None}


def noisy_max_value_ceiling(d: int, scale: float, n: int, level: float) -> float:
    """The largest expected certified bound of one event at ``n`` samples per input for the noisy maximum's *value*
    (StatDP's report-noisy-max 3: ``max_i (h_i + Lap(scale))``, ``d`` items) under ``linf``.

    The all-shift pair ``h = 0`` vs ``h' = 1`` attains the truth ``d / scale``: the value's density ratio is at most
    ``e^(k / scale)`` when ``k`` counts move, so every other pair has ratio ``<= e^((d - 1) / scale)``.  Its likelihood
    ratio decreases in the value (log-concave cdf), so the Neyman–Pearson events are ``{max <= t}``, with
    ``P = F(t)^d`` and ``Q = F(t - 1)^d``; the best ``t`` on a fine grid gives the ceiling (Clopper–Pearson at
    ``level`` on each side, as the certification).  A bound above it needs more samples, not a better audit.
    """
    ts = np.linspace(-40 * scale, 40 * scale, 40001)

    def cdf(x: np.ndarray) -> np.ndarray:
        return np.where(x < 0, 0.5 * np.exp(np.minimum(x, 0) / scale), 1 - 0.5 * np.exp(-np.maximum(x, 0) / scale))

    return float(np.max(predicted_eps_lower(cdf(ts) ** d, cdf(ts - 1) ** d, n, level, 0.0)))


def run_member(m: Member | str, *, mode: str = "black box", seed: int = SEED, budget: int = BUDGET, alpha: float = ALPHA) -> dict:
    """Audit one member (module docstring) and return its row."""
    if isinstance(m, str):
        m = member(m)
    if mode not in ("black box", "exact law"):
        raise InvalidParameter(f"mode={mode!r} must be 'black box' or 'exact law'")
    t0 = time.perf_counter()
    mech = m.mechanism()
    pl = plan(budget)
    level = alpha / 2
    exact = _loglik(mech, m.discrete) if mode == "exact law" else None
    pairs, search = _member_pairs(m, mech, mode, pl["n_cert"], level)
    tgt = Target(mech, shape="mechanism", name=m.name)
    parts = scored_audit(tgt, pairs, eps=m.claim_eps, delta=0, samples=pl["samples"], selection=pl["selection"], seed=seed,
                         alpha=alpha, max_pairs=1, looks=[pl["n_cert"]], exact_loglik=exact, single_event=True)
    summ = summarise(parts, eps=m.claim_eps, delta=0, alpha=alpha)
    tests = parts["tests"]
    t = max(tests, key=lambda x: x.eps_lower) if tests else None
    lcb = t.eps_lower if t is not None else -math.inf
    # the same counts at the audit's default confidence (99%: the level of dpverify audit's verdicts)
    lcb99 = (eps_lower_bound(cp_lower(t.x_a, t.n_a, VERDICT_ALPHA / 2), cp_upper(t.x_b, t.n_b, VERDICT_ALPHA / 2), 0) if t
             else -math.inf)
    total = sum(parts["used"].values())
    pub = PUBLISHED.get(m.name, (None, None, None, None))
    dps = max(x for x in pub[:2] if x is not None) if pub[0] is not None else None
    row = {
        "member": m.name, "mode": mode, "d": m.d, "relation": m.relation, "claim_eps": str(m.claim_eps), "truth": m.truth_text,
        "correct": m.correct, "seed": seed, "eps_lower_bound": _r(lcb), "verdict": summ["privacy"],
        "eps_lower_bound_99": _r(lcb99), "verdict_99": "FAIL" if lcb99 > float(m.claim_eps) else "PASS",
        "samples_total": total, "within_budget": total <= budget, "seconds": round(time.perf_counter() - t0, 1),
        "candidates": len(pairs), "dpsniper_lr": pub[0], "dpsniper_mlp": pub[1], "statdp_1": pub[2], "statdp_2": pub[3],
        "meets_dpsniper": (lcb >= dps) if dps is not None else None,
    }
    if t is not None:
        e = t.event
        row["witness"] = {"h": list(e.a), "h_prime": list(e.b), "pattern": parts["screens"][0].tag if parts["screens"] else "",
                          "event": e.description, "p_hat": t.p_hat, "q_hat": t.q_hat, "n": t.n_a}
    if summ["power"] and summ["privacy"] != "FAIL":
        row["detectable_eps"] = summ["power"]["detectable_eps"]
    if m.name == "ReportNoisyMax3":
        row.update(_closed_form_ceilings(m, level))
    if search:
        row["exact_search"] = {k: search[k] for k in ("pairs_scored", "refinement_steps", "stopped") if k in search}
        row["exact_ceiling"] = _r(search["best_predicted"]) if search.get("best_predicted") is not None else None
        if search.get("best_at_target") is not None:
            row["exact_ceiling_at_target"] = _r(search["best_at_target"])
    return row


def _member_pairs(m: Member, mech: Any, mode: str, n_cert: int, level: float) -> tuple[list, dict]:
    """A member's candidate pairs and its exact search record (empty unless the exact law of a discrete member ranks them)."""
    if mode != "exact law":
        return candidate_pairs(m.d, m.relation, scales_for(None, eps=m.claim_eps, delta=0, d=m.d), limit=CANDIDATES), {}
    if m.discrete:
        return _exact_pairs(m, mech, n_cert, level, n_target=plan(BUDGET)["n_cert"])
    scales = scales_for(mech, eps=m.claim_eps, delta=0, d=m.d, params=_params(mech))
    return candidate_pairs(m.d, m.relation, scales, limit=CANDIDATES), {}


def _closed_form_ceilings(m: Member, level: float) -> dict:
    """ReportNoisyMax3's closed-form ceilings (:func:`noisy_max_value_ceiling`: Lap(2/eps) on d items)."""
    scale = 2 / float(m.claim_eps)
    return {
        "closed_form_ceiling_at_target": _r(noisy_max_value_ceiling(m.d, scale, plan(BUDGET)["n_cert"], level)),
        # no screening at all: the whole budget certifying the one best event (the most any one-event audit can have)
        "closed_form_ceiling_whole_budget": _r(noisy_max_value_ceiling(m.d, scale, BUDGET // 2, level)),
        # at DP-Sniper's own size (2e8 per input), to set beside its published bound
        "closed_form_ceiling_at_dpsniper": _r(noisy_max_value_ceiling(m.d, scale, DPSNIPER_SAMPLES, level)),
    }


def _r(x: float) -> Any:
    return round(x, 6) if math.isfinite(x) else str(x)


def false_alarm(names: Iterable[str] | None = None, *, seeds: int = 20, budget: int = BUDGET, alpha: float = ALPHA,
                workers: int = 1, executor: Any = None, mode: str = "black box") -> list[dict]:
    """Audit every correct member (or ``names``) with ``seeds`` seeds; one row per member with the number of false FAILs."""
    ms = [m for m in MEMBERS if m.correct and (names is None or m.name in set(names))]
    tasks = [(m.name, mode, SEED + 1 + s, budget, alpha) for m in ms for s in range(seeds)]
    rows = list(_map(_member_task, tasks, workers, executor))
    out = []
    for m in ms:
        mine = [r for r in rows if r["member"] == m.name]
        lcbs = [r["eps_lower_bound"] for r in mine if not isinstance(r["eps_lower_bound"], str)]
        out.append({"member": m.name, "mode": mode, "claim_eps": str(m.claim_eps), "runs": len(mine),
                    "false_fails": sum(r["verdict"] == "FAIL" for r in mine),
                    "false_fails_99": sum(r["verdict_99"] == "FAIL" for r in mine),
                    "max_eps_lower_bound": max(lcbs, default=None),
                    "max_samples_total": max(r["samples_total"] for r in mine),
                    "seconds": round(sum(r["seconds"] for r in mine), 1)})
    return out


def _member_task(args: tuple) -> dict:
    name, mode, seed, budget, alpha = args
    return run_member(name, mode=mode, seed=seed, budget=budget, alpha=alpha)


def _map(fn: Callable, tasks: list, workers: int, executor: Any) -> Iterable:
    """``fn`` over ``tasks`` in order, results as they come (one process, a pool of ``workers``, or ``executor``)."""
    if executor is not None:
        futures = [executor.submit(fn, t) for t in tasks]
        return (f.result() for f in futures)
    if workers > 1:
        def pooled() -> Iterable:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                yield from pool.map(fn, tasks)
        return pooled()
    return (fn(t) for t in tasks)


def svt6_targets(*, samples: int = 100_000, seed: int = SEED) -> list[dict]:
    """LSL17 Algorithm 6 at eps = 1/2 (T = 1), spec-less, ``--d 10`` and ``--d 3``, default confidence.

    With d = 3's truth bounds.
    """
    from mechanisms.catalogue import LyuSVT

    from .core import audit

    mech = LyuSVT(6, Fraction(1, 2))
    out = []
    for d in (10, 3):
        t0 = time.perf_counter()
        r = audit(mech, eps=Fraction(1, 2), delta=0, relation="linf", d=d, samples=samples, seed=seed)
        row = {"d": d, "verdict": r.verdict, "finding": r.finding, "eps_lower_bound": _r(r.eps_lower_bound),
               "samples_total": r.total_samples, "seconds": round(time.perf_counter() - t0, 1),
               "command": f"dpverify audit FILE:svt6 --eps 1/2 --delta 0 --relation linf --d {d} "
                          f"--samples {samples} --seed {seed}"}
        if r.witness is not None:
            row["witness"] = {"h": list(r.witness.event.a), "h_prime": list(r.witness.event.b),
                              "event": r.witness.as_json()["event"][0]}
        if r.power:
            row["detectable_eps"] = r.power["detectable_eps"]
            row["power_curve"] = r.power["curve"]
        if d == 3:
            row["truth_lower"] = _svt6_exact_lower(mech, d)
            row["truth_upper"] = float(Fraction(3, 2) * Fraction(1, 2))
        out.append(row)
    return out


def _svt6_exact_lower(mech: Any, d: int) -> float:
    """The largest pure eps over an exact search of pairs of length ``d`` (``linf``): a lower bound on the truth at that d."""
    laws: dict = {}

    def law(h: tuple) -> dict:
        if h not in laws:
            laws[h] = {o: float(p) for o, p in mech.distribution(h, prec=64).items()}
        return laws[h]

    def score(h: tuple, g: tuple) -> tuple[float, float]:
        A, B = law(h), law(g)
        pe = max([abs(math.log(A[o] / B[o])) for o in A if A[o] > 0 and B.get(o, 0) > 0] + [0.0])
        return pe, 0.0

    scales = scales_for(mech, eps=Fraction(1, 2), delta=0, d=d, params=_params(mech))
    ranked, _ = exact_search(score, d, "linf", scales, max_laws=1500)
    return round(ranked[0][0], 6)


def compute_catalogue(names: Iterable[str] | None = None, *, modes: tuple = ("black box", "exact law"), budget: int = BUDGET,
                      alpha: float = ALPHA, seeds: int = 20, false_alarm_budget: int | None = None, workers: int = 1,
                      executor: Any = None, targets: bool = True, on_row: Callable[[dict], None] | None = None,
                      command: str = "dpverify audit --catalogue") -> dict:
    """The page data of the catalogue section (stored as ``reports/data/catalogue.json``)."""
    start = time.perf_counter()
    wanted = None if names is None else {n.lower() for n in names}
    ms = [m for m in MEMBERS if wanted is None or m.name.lower() in wanted]
    tasks = [(m.name, mode, SEED, budget, alpha) for m in ms for mode in modes]
    rows = []
    for r in _map(_member_task, tasks, workers, executor):
        rows.append(r)
        if on_row:
            on_row(r)
    fa = false_alarm([m.name for m in ms], seeds=seeds, budget=false_alarm_budget or budget, alpha=alpha, workers=workers,
                     executor=executor) if seeds else []
    tg = svt6_targets() if targets else []
    return {"provenance": snapshot(), "command": command, "published_source": PUBLISHED_SOURCE,
            "settings": {"budget": budget, "alpha": alpha, "seed": SEED, "false_alarm_seeds": seeds,
                         "false_alarm_budget": false_alarm_budget or budget, "plan": plan(budget)},
            "rows": rows, "false_alarm": fa, "targets": tg, "wall_seconds": round(time.perf_counter() - start, 1)}
