"""Ledger: partition selection (Desfontaines, Voss, Gipson & Mandayam, PoPETs 2022, arXiv:2006.03684) and the
strategies of Google's library (python-dp 1.1.5, ``partition-selection.h``).

Every privacy claim is (eps, delta)-DP of the released key set under ``delta:L`` -- one user adds or removes one
count in each of at most L keys, L a parameter of each parameter dict -- checked exactly on *windows* of counts:
``base`` moves the window (``mechanisms.partition_selection.selection``), so each claim covers counts 0..m and a
window around its threshold / crossover.  The ``#all-n`` obligations decide the claims for EVERY count
(``proofs.dvgm22.universal``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from proofs.claims import Domain, Obligation, PrivacyClaim

from ._checks import l_keys_all_n, mechanism, one_key_all_n, per_params, points

F = Fraction
D5 = F(1, 10**5)
SRC = "DVGM22 (arXiv:2006.03684)"
CODE = "mechanisms.partition_selection.selection.PartitionSelection"


def _p(eps: Any, delta: Any, L: int = 1, **kw: Any) -> dict[str, Any]:
    return {"eps": eps, "delta": delta, "L": L, **kw}


def _win(d: int, m: int, *params: Mapping[str, Any]) -> Domain:
    return Domain(d=d, max_count=m, relation="delta:L", params=tuple(params))


def _all_n(params: tuple[Mapping[str, Any], ...]) -> Domain:
    return Domain(d=1, max_count=0, relation="none", params=params)


CLAIMS = [
    PrivacyClaim(
        id="DVGM22.Thm1", title="The truncated-geometric strategy is (eps, delta)-DP and optimal", source=SRC + " §3, Theorem 1",
        statement="For L = 1 the optimal partition selection keeps a key with n users with probability p(n) = min(e^eps p(n-1) "
                  "+ delta, 1 - e^-eps (1 - delta - p(n-1)), 1), p(0) = 0; it is (eps, delta)-DP",
        code=CODE + "('truncated-geometric')", relation="delta:L",
        domain=_win(2, 12, _p(1, D5), _p(1, D5, base=8), _p(F(1, 2), F(1, 10**10), base=40)),
        quick=_win(1, 25, _p(1, D5)), mechanism=mechanism("truncated-geometric"), points=points,
        notes="Tight by construction: delta_0(eps) = p(1) = delta. Windows: counts 0..12, 8..20 (the crossover c1 = 11), 40..52 "
              "at eps = 1/2, delta = 1e-10.",
    ),
    PrivacyClaim(
        id="DVGM22.Thm1#closed", title="Google's closed form (floored crossovers) is (eps, delta)-DP",
        source="python-dp 1.1.5 truncated_geometric; google/differential-privacy partition-selection.h "
               "(PreaggPartitionSelection)",
        statement="p(n) = delta (e^{n eps} - 1)/(e^eps - 1) up to c1, p(c1) - (1 - p(c1) + delta/(e^eps - 1))(e^{-(n-c1) eps} - "
                  "1) up to c2, then 1 (crossovers floored) is (eps, delta)-DP at eps/L, delta_L per key",
        code=CODE + "('truncated-geometric-closed')", relation="delta:L",
        domain=_win(2, 12, _p(1, D5), _p(1, D5, base=8), _p(1, D5, base=16)),
        quick=_win(1, 25, _p(1, D5)), mechanism=mechanism("truncated-geometric-closed"), points=points,
    ),
    PrivacyClaim(
        id="DVGM22.Split", title="The L-key split (eps/L, delta_L = 1 - (1 - delta)^(1/L)) is (eps, delta)-DP for L keys",
        source=SRC + " §3 (L > 1); partition-selection.h CalculateAdjustedDelta",
        statement="Running the one-key strategy at eps/L and delta_L = 1 - (1 - delta)^(1/L) per key is (eps, delta)-DP when a "
                  "user contributes to at most L keys",
        code=CODE + "('truncated-geometric', L)", relation="delta:L",
        domain=_win(2, 6, _p(1, D5, L=2), _p(1, D5, L=2, base=18), _p(1, D5, L=2, base=38)),
        quick=_win(2, 4, _p(1, D5, L=2)), mechanism=mechanism("truncated-geometric"), points=points,
        notes="Tight: two absent keys appearing give delta(eps) = 1 - (1 - delta_2)^2 = delta.",
    ),
    PrivacyClaim(
        id="DVGM22.Split#L3", title="The L-key split at L = 3", source=SRC + " §3 (L > 1)",
        statement="as DVGM22.Split, L = 3", code=CODE + "('truncated-geometric-closed', L=3)", relation="delta:L",
        domain=_win(3, 3, _p(1, D5, L=3), _p(1, D5, L=3, base=30)), quick=_win(3, 2, _p(1, D5, L=3)),
        mechanism=mechanism("truncated-geometric-closed"), points=points,
    ),
    PrivacyClaim(
        id="DVGM22.Laplace", title="Laplace thresholding at T = 1 - (L/eps) ln(2 delta_L) is (eps, delta)-DP",
        source="python-dp 1.1.5 laplace; partition-selection.h LaplacePartitionSelection::CalculateThreshold",
        statement="Keep a key iff n + Lap(L/eps) >= 1 - (L/eps) ln(2 delta_L); (eps, delta)-DP for users in at most L keys",
        code=CODE + "('laplace')", relation="delta:L",
        domain=_win(2, 6, _p(1, D5), _p(1, D5, base=9), _p(1, D5, L=2), _p(1, D5, L=2, base=21), _p(F(1, 10), F(1, 10**15), L=3)),
        quick=_win(1, 14, _p(1, D5)), mechanism=mechanism("laplace"), points=points,
    ),
    PrivacyClaim(
        id="DVGM22.Gaussian", title="Gaussian thresholding (delta split in halves) is (eps, delta)-DP",
        source="python-dp 1.1.5 gaussian; partition-selection.h GaussianPartitionSelection (Delta_For_Thresholding)",
        statement="Keep iff n + N(0, sigma^2) >= 1 + sigma Phi^-1(1 - delta_thr,L), sigma calibrated to (eps, delta/2) at "
                  "l2-sensitivity sqrt(L), delta_thr = delta/2: (eps, delta)-DP for users in at most L keys",
        code=CODE + "('gaussian')", relation="delta:L",
        domain=_win(2, 6, _p(1, D5), _p(1, D5, base=20), _p(1, D5, L=2), _p(1, D5, L=2, base=24)),
        quick=_win(1, 12, _p(1, D5)), mechanism=mechanism("gaussian"), points=points,
    ),
    PrivacyClaim(
        id="DVGM22.PreThreshold", title="The pre-threshold wrapper keeps the strategy's (eps, delta)",
        source="python-dp 1.1.5 create_pre_thresholding_partition_strategy",
        statement="Dropping keys with fewer than tau users and running the strategy on n - tau + 1 is (eps, delta)-DP",
        code=CODE + "(tau)", relation="delta:L",
        domain=_win(2, 8, _p(1, D5, tau=5), _p(1, D5, tau=5, base=8), _p(1, D5, L=2, tau=3)),
        quick=_win(1, 10, _p(1, D5, tau=5)), mechanism=mechanism("laplace"), points=points,
    ),
    PrivacyClaim(
        id="DVGM22.Thm1#delta-tripled", title="Power check: the truncated geometric run at 3 delta, claimed at delta",
        source="deliberately wrong strategy (a power check of the partition-selection "
               "checks)", statement="(probe) p built with 3 delta is (eps, delta)-DP",
        code=CODE + "('truncated-geometric', delta x 3)", relation="delta:L", expected="violated", probe=True,
        domain=_win(1, 6, _p(1, D5), _p(1, D5, L=2)), mechanism=mechanism("truncated-geometric", 3), points=points,
    ),
    PrivacyClaim(
        id="DVGM22.Laplace#threshold-minus-one", title="Power check: Laplace thresholding with the threshold lowered by one",
        source="deliberately wrong strategy (a power check of the partition-selection checks)",
        statement="(probe) keep iff n + Lap(L/eps) >= T - 1 is (eps, delta)-DP",
        code=CODE + "('laplace', threshold_shift=-1)", relation="delta:L", expected="violated", probe=True,
        domain=_win(1, 6, _p(1, D5, threshold_shift=-1), _p(1, D5, L=2, threshold_shift=-1)), mechanism=mechanism("laplace"),
        points=points,
    ),
    Obligation(
        id="DVGM22.Thm1#all-n", title="One key, every count n: the truncated geometric (both forms), Laplace, Gaussian",
        source=SRC + " §3 (the L = 1 condition: p(n+1) <= e^eps p(n) + delta and 1 - p(n) <= e^eps (1 - p(n+1)) + delta)",
        statement="delta_n(eps/L) <= delta_L for every count n >= 0 of one key",
        code="proofs.dvgm22.universal.prove_one_key", relation="none",
        domain=_all_n((_p(1, D5), _p(1, F(1, 10**15), 3), _p(F(1, 10), D5), _p(F(1, 10), F(1, 10**15)))),
        quick=_all_n((_p(1, D5),)), evaluate=one_key_all_n("truncated-geometric-closed"), instances=per_params,
        notes="Proved for ALL n: monotone p, a certified tail index N0, n < N0 in interval arithmetic, tight identities exact.",
    ),
    Obligation(
        id="DVGM22.Laplace#all-n", title="Laplace thresholding, one key, every count n", source="python-dp 1.1.5 laplace",
        statement="delta_n(eps/L) <= delta_L for every count n >= 0 of one key", code="proofs.dvgm22.universal.prove_one_key",
        relation="none", domain=_all_n((_p(1, D5), _p(1, F(1, 10**15), 3), _p(F(1, 10), D5), _p(F(1, 10), F(1, 10**15)))),
        quick=_all_n((_p(1, D5),)), evaluate=one_key_all_n("laplace"), instances=per_params,
    ),
    Obligation(
        id="DVGM22.Gaussian#all-n", title="Gaussian thresholding, one key (L = 1), every count n",
        source="python-dp 1.1.5 gaussian",
        statement="delta_n(eps) <= delta for every count n >= 0 of one key (L = 1)", code="proofs.dvgm22.universal.prove_one_key",
        relation="none", domain=_all_n(tuple(_p(e, dl) for e in (1, F(1, 10)) for dl in (D5, F(1, 10**15)))),
        quick=_all_n((_p(1, D5),)), evaluate=one_key_all_n("gaussian"), instances=per_params,
    ),
    Obligation(
        id="DVGM22.Laplace#all-n-L", title="Laplace thresholding, L keys, every count vector (a proof)",
        source="python-dp 1.1.5 laplace; partition-selection.h LaplacePartitionSelection",
        statement="Keep iff n + Lap(L/eps) >= 1 - (L/eps) ln(2 delta_L) is (eps, delta)-DP for every count vector, a user in at "
                  "most L keys",
        code="proofs.dvgm22.universal.prove_laplace_l_keys", relation="none",
        domain=_all_n(tuple(_p(e, dl, L) for e in (1, F(1, 10)) for dl in (D5, F(1, 10**10), F(1, 10**15)) for L in (1, 2, 3))),
        quick=_all_n((_p(1, D5, 3),)), evaluate=l_keys_all_n("laplace"), instances=per_params,
        notes="Per-key loss <= eps/L for n >= 1 (the Laplace hazard rates are <= 1/b), p(1) = delta_L, eps/L >= -ln(1 - "
              "delta_L); tight at L absent keys appearing.",
    ),
    Obligation(
        id="DVGM22.Laplace#all-n-L-shifted", title="Power check: the lowered threshold refuted for every L by the same proof",
        source="deliberately wrong strategy (a power check of the partition-selection checks)",
        statement="(probe) keep iff n + Lap(L/eps) >= T - 1 is (eps, delta)-DP",
        code="proofs.dvgm22.universal.prove_laplace_l_keys", relation="none", expected="violated", probe=True,
        domain=_all_n(tuple(_p(1, D5, L, threshold_shift=-1) for L in (1, 2, 3))), evaluate=l_keys_all_n("laplace"),
        instances=per_params,
    ),
    Obligation(
        id="DVGM22.Split#all-n", title="The L-key split, every count vector (truncated geometric, L = 2)", source=SRC + " §3",
        statement="(eps, delta)-DP of the released key set for every count vector, a user touching at most L keys",
        code="proofs.dvgm22.universal.prove_l_keys", relation="none", domain=_all_n((_p(1, D5, 2),)),
        quick=_all_n((_p(1, D5, 2),)), evaluate=l_keys_all_n("truncated-geometric"), instances=per_params,
        notes="L = 3 also holds for all vectors (52,393 touched-count vectors, ~110 s: prove_l_keys, not in the default run).",
    ),
]
