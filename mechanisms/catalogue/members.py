"""The StatDP / DP-Sniper benchmark as DP-Sniper's evaluation runs it (Bichsel et al. S&P 2021, ``exp_default``).

One :class:`Member` per mechanism: how to build it (claimed eps = 0.1 where the
mechanism has an eps), the length ``d`` of its input vector, the neighbour relation
the benchmark uses, the claim an audit holds it to, and the truth where it is known.

Neighbour relations (decided per mechanism as the benchmark does).  Inputs are
vectors of query answers with sensitivity 1.  DP-Sniper's "one-differ" (exactly one
query changes, by at most 1) is dpverify's ``delta:1``; its "component-wise" (every
query may change by at most 1, mixed signs) is ``linf``.  Laplace, the truncated
geometric, both noisy histograms, both RAPPORs and Laplace-in-parallel use
``delta:1``; report noisy max, every sparse vector, NumericalSVT, SVT3+4 in parallel and
the prefix sum use ``linf``.  The truth depends on it: PrefixSum is 0.1-DP under
``delta:1`` but exactly ``n eps = 1.0``-DP under ``linf`` (the benchmark's choice).

Inputs are non-negative integer histograms here (DP-Sniper draws its patterns from
{0, 1, 2} as well, so nothing of the benchmark is lost); an audit chooses them itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

from .geometric import TruncatedGeometric
from .laplace import LaplaceMechanism, LaplaceParallel, NoisyHistWrongScale, PrefixSum
from .noisy_max import NoisyMax
from .rappor import OneTimeRappor, Rappor
from .svt import LyuSVT, NumericalSVT, SVT34Parallel

__all__ = ["Member", "MEMBERS", "member", "EPS"]

#: the claimed eps of DP-Sniper's evaluation
EPS = Fraction(1, 10)


@dataclass(frozen=True)
class Member:
    """One benchmark mechanism.

    ``claim_eps``: the eps an audit claims (pure DP, ``delta = 0``).  ``truth``: the
    smallest eps at which the mechanism is DP under ``relation`` for inputs of length
    ``d``, where known (``math.inf`` for not DP at any eps; ``None`` when only bounds are
    known, given in ``truth_text``).  ``correct``: the claim holds.  ``discrete``: the
    output law is discrete with an exact ``distribution``.
    """

    name: str
    build: Callable[[], Any]
    d: int
    relation: str
    claim_eps: Fraction
    truth: float | None
    truth_text: str
    correct: bool
    source: str
    discrete: bool = False

    def mechanism(self) -> Any:
        return self.build()


_L10 = math.log(1.125)

MEMBERS: tuple[Member, ...] = (
    Member("Laplace", lambda: LaplaceMechanism(EPS), 1, "delta:1", EPS, 0.1, "0.1", True, "Dwork et al. 2006"),
    Member("TruncatedGeometric", lambda: TruncatedGeometric(EPS, 5), 1, "delta:1", EPS, _L10,
           "ln(1 + 2^-3) = 0.1178 (k = ceil(ln 20) = 3)", False, "Balcer & Vadhan Alg. 4.8 (natural log, as DP-Sniper)", True),
    Member("NoisyHist1", lambda: LaplaceMechanism(EPS), 5, "delta:1", EPS, 0.1, "0.1", True, "StatDP Alg. 9"),
    Member("NoisyHist2", lambda: NoisyHistWrongScale(EPS), 5, "delta:1", EPS, 10.0, "1/eps = 10", False, "StatDP Alg. 10"),
    Member("ReportNoisyMax1", lambda: NoisyMax(EPS, "laplace", "index"), 5, "linf", EPS, None, "<= 0.1", True,
           "StatDP Alg. 5", True),
    Member("ReportNoisyMax2", lambda: NoisyMax(EPS, "exponential", "index"), 5, "linf", EPS, None, "<= 0.1", True,
           "StatDP Alg. 6", True),
    Member("ReportNoisyMax3", lambda: NoisyMax(EPS, "laplace", "value"), 5, "linf", EPS, 0.25, "n eps / 2 = "
                                                                                               "0.25", False, "StatDP Alg. 7"),
    Member("ReportNoisyMax4", lambda: NoisyMax(EPS, "exponential", "value"), 5, "linf", EPS, math.inf,
           "inf (support shift)", False, "StatDP Alg. 8"),
    Member("SVT1", lambda: LyuSVT(1, EPS, Fraction(1, 2), 1), 10, "linf", EPS, None, "<= 0.1", True, "Lyu et al. Alg. 1", True),
    Member("SVT2", lambda: LyuSVT(2, EPS, 1, 1), 10, "linf", EPS, None, "<= 0.1", True, "Lyu et al. Alg. 2", True),
    Member("SVT3", lambda: LyuSVT(3, EPS, 1, 1), 10, "linf", EPS, None, "not 0.1-DP (inf for unbounded "
                                                                        "n)", False, "Lyu et al. Alg. 3"),
    Member("SVT4", lambda: LyuSVT(4, EPS, 1, 1), 10, "linf", EPS, None, "<= (1 + 6c) eps / 4 = 0.175, > "
                                                                        "0.1", False, "Lyu et al. Alg. 4", True),
    Member("SVT5", lambda: LyuSVT(5, EPS, 1, 1), 10, "linf", EPS, math.inf, "inf", False, "Lyu et al. Alg. 5", True),
    Member("SVT6", lambda: LyuSVT(6, EPS, 1, 1), 10, "linf", EPS, None, "not 0.1-DP (inf for unbounded "
                                                                        "n)", False, "Lyu et al. Alg. 6", True),
    Member("Rappor", lambda: Rappor(), 1, "delta:1", Fraction(2, 5), None, "<= 0.4 (0.05 per differing Bloom bit, at most "
                                                                           "8)", True,
           "Erlingsson et al. steps 1-3"),
    Member("OneTimeRappor", lambda: OneTimeRappor(), 1, "delta:1", Fraction(4, 5), None, "<= 0.8 (0.1 per differing Bloom bit, "
                                                                                         "at most 8)", True,
           "Erlingsson et al. steps 1-2"),
    Member("LaplaceParallel", lambda: LaplaceParallel(Fraction(1, 200), 20), 1, "delta:1", EPS, 0.1, "20 x 0.005 = "
                                                                                                     "0.1", True, "DP-Sniper"),
    Member("SVT34Parallel", lambda: SVT34Parallel(EPS, 1, 2), 10, "linf", 2 * EPS, None, "not 0.2-DP (SVT4 with c = 2 alone: <= "
                                                                                         "0.325)", False,
           "DP-Sniper (SVT3 and SVT4 in parallel, c = 2); claim 0.2 by naive composition"),
    Member("PrefixSum", lambda: PrefixSum(EPS), 10, "linf", EPS, 1.0, "n eps = 1.0 under linf (0.1 under "
                                                                      "delta:1)", False, "ShadowDP"),
    Member("NumericalSVT", lambda: NumericalSVT(EPS, 1, 2), 10, "linf", EPS, None, "<= 0.1", True, "ShadowDP"),
)


def member(name: str) -> Member:
    """The member called ``name`` (case-insensitive)."""
    for m in MEMBERS:
        if m.name.lower() == str(name).lower():
            return m
    from mechanisms.errors import UnknownName

    raise UnknownName(f"catalogue member {name!r} is not one of {', '.join(m.name for m in MEMBERS)}")
