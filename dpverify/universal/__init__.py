"""Universal certificates: a privacy claim decided for EVERY histogram, not only on an enumerated box.

The exhaustive checker (:mod:`dpverify.checker`) certifies a claim on a bounded domain (lengths <= 5,
counts 0..6).  This room certifies it for all non-negative counts -- and for every length where the
mechanism's structure allows -- or refutes it with an integer witness re-checked by the exact law, or
says exactly what it left undecided, or that the claim is out of its scope (and why).

Verdicts (:data:`VERDICTS`): ``holds-for-all-counts`` / ``violated`` / ``undecided`` / ``out-of-scope``.
Every result is a :class:`~dpverify.universal.result.UniversalResult` naming what it covers.
"""

from .api import certify, universal_eps
from .result import VERDICTS, UniversalResult, Witness

__all__ = ["VERDICTS", "UniversalResult", "Witness", "certify", "universal_eps"]
