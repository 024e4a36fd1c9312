"""Utility experiments on real data: the papers' experiment designs re-run.

Three designs, each with the paper's own metric:

* CWGM20 §6 (:mod:`dpverify.experiments.cwgm20`): TS (:class:`mechanisms.stability.top_stable.TopStable`, Alg. 3) vs
  LD as the paper prints it -- "For LD we compose k + 1 iterations, and consider the
  extra iteration for selecting kbar from [k, ..., 5k] using their optimization
  method" -- i.e. DR19 Algorithm 6 (:class:`mechanisms.limited_domain.optimal_threshold.OptimalThreshold`,
  DR19 §6.3) choosing kbar privately, then LimitDom with k outputs
  (:func:`ld_private_mechanism`); LD at the fixed kbar = k
  (:class:`mechanisms.limited_domain.LimitDom`, DR19 Alg. 1) is a second column; metrics
  ``P`` = |returned ∩ true top-k| / k and ``S`` = sum of the true counts of the
  returned items / sum of the true top-k counts (⊥-terminated outputs count what
  they return; an all-⊥ output scores 0).  Both arms are also run as the authors' public code
  runs them (:mod:`dpverify.experiments.authors`, each difference a named switch; not what the
  paper prints), and S is swept over every k in 1..100 (the paper's Figure 1 axes).
* GJMR21 §4: JOINT / JOINT-sequence vs PEEL vs LAPLACE, ``l_inf`` error
  between the true and the estimated top-k counts (:func:`linf_error`), k = 5,
  eps in {0.1, 1}, a sweep over d (the d most-rated items) and the synthetic
  design counts ~ U{0, ..., 10d}, redrawn ``gj_draws`` (40) times per d (:func:`run_gjmr21_redraw`).
* DR19 §8: Pr[LimitDom returns k items] as kbar varies, against the
  lower bound ``1 - beta*`` of Lemma 8.1's second statement
  (``beta* = k min{Delta,kbar}/delta * exp(-eps (h_(k) - h_(kbar+1) - 1))``,
  as implemented in :func:`proofs.dr19._limited_sec3.k_indices_instances`).

Shared pieces (data, metrics, configuration) are in :mod:`dpverify.experiments.common`; the
setting tables (the papers' settings beside ours) in :mod:`dpverify.report.experiments_settings`.
Everything here is Monte Carlo with fixed seeds (floats), except the exact law of
Algorithm 6's kbar selection (reported next to its sampled mean as a cross-check).
:func:`run_all` returns plain JSON data (Fractions as ``"a/b"`` strings, tuples as
lists); :func:`write_experiments` saves it to ``data/experiments.json`` and renders the
page from that file only.  The
confidence intervals are normal-approximation 95% intervals of a mean
(``mean ± 1.96 s/sqrt(trials)``, ``s`` the sample standard deviation).
Rendering (tables, figures, the Markdown page) is in :mod:`dpverify.report.experiments`.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from mechanisms.core import BOT, DEFAULT_PREC
from mechanisms.exponential.em import OneShotGumbel
from mechanisms.joint.sequence import JointSequence
from mechanisms.joint.sets import Joint
from mechanisms.laplace.noisy_max import LaplaceTopK
from mechanisms.limited_domain.domain import top_sorted
from mechanisms.limited_domain.gumbel import LimitDom

from .common import (DATA, NETFLIX_USERS, Z95, Config, Dataset, _sub_rng, linf_error, load_datasets, mean_ci,  # noqa: F401
                     precision, relative_sum, returned_items)
from .cwgm20 import (ld_private_mechanism, run_cwgm20, run_cwgm20_ksweep, run_ld, run_ld_private,  # noqa: F401
                     run_ld_switches, run_ts)

__all__ = [
    "Dataset", "load_datasets", "returned_items", "precision", "relative_sum", "linf_error", "mean_ci",
    "Config", "run_cwgm20", "run_cwgm20_ksweep", "run_gjmr21", "run_dr19", "run_all", "lemma_8_1_bound",
    "NETFLIX_USERS", "ld_private_mechanism", "run_ld_private", "dataset_summary", "write_experiments",
]


GJ_MECHS = ("JOINT", "JOINT-seq", "PEEL", "LAPLACE")


def _gj_sample(name: str, k: int, eps: Fraction, h: np.ndarray, trials: int, rng: np.random.Generator) -> list:
    if name == "JOINT":
        return Joint(k, eps).sample(h.tolist(), rng=rng, size=trials, exact=False)
    if name == "JOINT-seq":
        return JointSequence(k, eps).sample(h.tolist(), rng=rng, size=trials, exact=False)
    if name == "PEEL":
        return OneShotGumbel.gjmr21_peel(k, eps).sample(h.tolist(), rng=rng, size=trials)
    return LaplaceTopK.gjmr21(k, eps).sample(h.tolist(), rng=rng, size=trials)


def run_gjmr21(hist_for_d: Any, cfg: Config, tag: int) -> list[dict]:
    """Rows (d, eps, mechanism, mean l_inf ± CI); ``hist_for_d(d)`` gives the length-d histogram."""
    rows = []
    for d in cfg.ds_gj:
        h = hist_for_d(d)
        for ei, eps in enumerate(cfg.eps_gj):
            for mi, name in enumerate(GJ_MECHS):
                outs = _gj_sample(name, cfg.k_gj, eps, h, cfg.trials_gj, _sub_rng(cfg.seed, 5, tag, d, ei, mi))
                errs = [linf_error(h, returned_items(o), cfg.k_gj) for o in outs]
                rows.append({"d": d, "eps": eps, "mech": name, "linf": mean_ci(errs)})
    return rows


def uniform_counts(d: int, seed: int, draw: int | None = None) -> np.ndarray:
    """GJMR21's synthetic design: d integer counts i.i.d. uniform on {0, ..., 10d} (fixed seed per d and draw)."""
    tags = [seed, 6, d] if draw is None else [seed, 6, d, draw]
    return np.random.default_rng(tags).integers(0, 10 * d, size=d, endpoint=True).astype(np.int64)


def run_gjmr21_redraw(cfg: Config, tag: int = 1) -> list[dict]:
    """GJMR21 §4's synthetic design with the data redrawn: ``cfg.gj_draws`` fresh U{0..10d} histograms per d.

    Each draw gets ``trials_gj // gj_draws`` runs of every mechanism; the row's mean ± CI is
    over the per-draw mean errors (the draws are i.i.d., so the interval covers the
    variability of the data as well as of the mechanism -- the quantity the paper's curves
    average over).  The d grid is ``cfg.ds_gj_synth``.
    """
    per = max(1, cfg.trials_gj // cfg.gj_draws)
    rows = []
    for d in cfg.ds_gj_synth:
        hs = [uniform_counts(d, cfg.seed, j) for j in range(cfg.gj_draws)]
        for ei, eps in enumerate(cfg.eps_gj):
            for mi, name in enumerate(GJ_MECHS):
                means = []
                for j, h in enumerate(hs):
                    outs = _gj_sample(name, cfg.k_gj, eps, h, per, _sub_rng(cfg.seed, 15, tag, d, ei, mi, j))
                    means.append(float(np.mean([linf_error(h, returned_items(o), cfg.k_gj) for o in outs])))
                rows.append({"d": d, "eps": eps, "mech": name, "linf": mean_ci(means), "draws": cfg.gj_draws, "per_draw": per})
    return rows


def lemma_8_1_bound(h: np.ndarray, k: int, kbar: int, eps: Fraction, delta: Fraction) -> float:
    """Lower bound on Pr[LimitDom returns k items] from DR19 Lemma 8.1: ``max(0, 1 - beta*)`` (a lower bound).

    ``beta* = k m / delta * exp(-eps (h_(k) - h_(kbar+1) - 1))``, m = kbar (unrestricted),
    the smallest beta for which the lemma's hypothesis holds (float, reporting only).
    """
    s = np.sort(h)[::-1]
    hk, hk1 = int(s[k - 1]), (int(s[kbar]) if kbar < s.size else 0)
    logb = math.log(k * kbar) - math.log(float(delta)) - float(eps) * (hk - hk1 - 1)
    return 0.0 if logb >= 0 else -math.expm1(logb)


def run_dr19(datasets: list[Dataset], cfg: Config) -> list[dict]:
    """Rows (dataset, eps per step, kbar, Pr[k items] ± CI, Lemma 8.1 bound)."""
    rows = []
    k = cfg.k_dr
    for di, ds in enumerate(datasets):
        delta = Fraction(1, ds.n)
        for ei, eps in enumerate(cfg.eps_dr):
            for kbar in cfg.kbars_dr:
                if kbar >= ds.h.size:
                    continue
                outs = LimitDom(k=k, kbar=kbar, eps=eps, delta=delta).sample(ds.h, rng=_sub_rng(cfg.seed, 7, di, ei, kbar),
                                                                             size=cfg.trials_dr)
                full = [0.0 if BOT in o else 1.0 for o in outs]
                rows.append({"dataset": ds.name, "eps": eps, "kbar": kbar, "full": mean_ci(full),
                             "bound": lemma_8_1_bound(ds.h, k, kbar, eps, delta)})
    return rows


def dataset_summary(ds: Dataset, top: int = 5) -> dict:
    """What the page shows about a dataset: sizes, n and its meaning, and the true top-``top`` (label, count)."""
    order = top_sorted(ds.h, min(top, ds.h.size))
    return {"name": ds.name, "d": int(ds.h.size), "n": int(ds.n), "n_what": ds.n_what, "max_count": int(ds.h.max()),
            "top": [[r + 1, ds.labels[int(i)], int(ds.h[int(i)])] for r, i in enumerate(order)]}


def _provenance() -> dict:
    from dpverify.report.provenance import git_commit, versions

    return {"git_commit": git_commit(), "versions": [[k, v] for k, v in versions().items()], "exact_prec_bits": DEFAULT_PREC}


def run_all(cfg: Config, datasets: list[Dataset] | None = None) -> dict:
    """Every design, as plain JSON data (:func:`dpverify.report.experiments.to_jsonable`); the page is rendered from it alone.

    The MovieLens histogram sorted by count gives GJMR21's 'd most-rated items'.
    """
    from dpverify.report.experiments import to_jsonable

    datasets = datasets if datasets is not None else load_datasets()
    ml = next(d for d in datasets if d.name == "MovieLens")
    ml_sorted = np.sort(ml.h)[::-1]
    ds_ok = tuple(d for d in cfg.ds_gj if d <= ml_sorted.size)
    cfg_ml = replace(cfg, ds_gj=ds_ok)
    return to_jsonable({
        "config": cfg,
        "constants": {"z95": Z95, "netflix_users": NETFLIX_USERS, "gj_mechs": GJ_MECHS,
                      "ld_private": "OptimalThreshold(k, dbar=kbar_hi*k, eps/(k+1), delta=1/n, inner_k=k, literal=False)"},
        "provenance": _provenance(),
        "datasets": [dataset_summary(d) for d in datasets],
        "gj_movielens_ds": ds_ok,
        "cwgm20": run_cwgm20(datasets, cfg),
        "cwgm20_switches": run_ld_switches(datasets, cfg),
        "ksweep": run_cwgm20_ksweep(datasets, cfg),
        "gj_movielens": run_gjmr21(lambda d: ml_sorted[:d].copy(), cfg_ml, 0),
        "gj_uniform": run_gjmr21_redraw(cfg, 1),
        "dr19": run_dr19(datasets, cfg),
    })


def write_experiments(outdir: Path | str = "reports", quick: bool = False) -> Path:
    """Run every design, save ``outdir/data/experiments.json``, render ``experiments.md`` + PNGs from that file.

    The wall time of the run is stored under ``"run"`` (not printed on the page, which
    stays byte-identical for the same seed and code).
    """
    from dpverify.report.experiments import load_data, render_from_data, save_data

    outdir = Path(outdir)
    t0 = time.perf_counter()
    data = run_all(Config.make(quick))
    data["run"] = {"wall_time_s": round(time.perf_counter() - t0, 3)}
    path = save_data(data, outdir / "data" / "experiments.json")
    return render_from_data(load_data(path), outdir)
