"""The StatDP / DP-Sniper benchmark catalogue: our own implementations of the field's standard audit targets.

Written from the papers (Ding et al. CCS 2018 "StatDP", Bichsel et al. S&P 2021
"DP-Sniper", Lyu, Su & Li PVLDB 2017, Wang et al. PLDI 2019 "ShadowDP", Erlingsson et al.
CCS 2014 "RAPPOR", Balcer & Vadhan ITCS 2018); no code of the tools is used.

- :mod:`~mechanisms.catalogue.laplace`: Laplace, noisy histograms 1 and 2, Laplace in parallel, prefix sum;
- :mod:`~mechanisms.catalogue.noisy_max`: report noisy max 1-4 (index or value, Laplace or exponential noise);
- :mod:`~mechanisms.catalogue.svt`: sparse vector 1-6 of Lyu et al., NumericalSVT, SVT3 + SVT4 in parallel;
- :mod:`~mechanisms.catalogue.geometric`: the truncated geometric (GeoSample);
- :mod:`~mechanisms.catalogue.rappor`: RAPPOR and one-time RAPPOR (with MurmurHash3 written from its algorithm);
- :mod:`~mechanisms.catalogue.members`: the benchmark as DP-Sniper runs it (input length, neighbour relation,
  claim and truth per mechanism).

Every mechanism has a fast ``sample_array`` (numpy, ``(size, width)``) and ``sample`` (tuples).
Discrete laws that are tractable have an exact ``distribution`` (registered as ``cat-*`` entries,
claim-less: the benchmark's claims live in ``members``); continuous ones have ``log_density``, the
float log-density of an output (exact closed forms; variant 3 of the sparse vector tabulates an exact
exp-poly integral), which audits use to rank outputs.
"""

from ._vector import unique_rows
from .geometric import TruncatedGeometric
from .laplace import LaplaceMechanism, LaplaceParallel, NoisyHistWrongScale, PrefixSum
from .members import MEMBERS, Member, member
from .noisy_max import NoisyMax
from .rappor import OneTimeRappor, Rappor, murmur3_32
from .svt import LyuSVT, NumericalSVT, SVT34Parallel

__all__ = ["TruncatedGeometric", "LaplaceMechanism", "LaplaceParallel", "NoisyHistWrongScale", "PrefixSum", "NoisyMax",
           "Rappor", "OneTimeRappor", "murmur3_32", "LyuSVT", "NumericalSVT", "SVT34Parallel", "MEMBERS", "Member", "member",
           "unique_rows"]
