"""How a claim becomes a verdict: neighbour relations, exact privacy profiles, the checker, parallel runs and the result store.

- :mod:`~dpverify.checker.neighbours`: the relations and the enumeration of bounded domains (defined in
  :mod:`mechanisms.neighbours`, re-exported);
- :mod:`~dpverify.checker.prepared`: a claim resolved once (:class:`~dpverify.checker.prepared.ClaimPlan`, one
  :class:`~dpverify.checker.prepared.PreparedClaim` per parameter point), per-pair evaluations as values, and
  the checker's caches with one ``clear_caches()``;
- :mod:`~dpverify.checker.profile`: hockey-stick profiles, eps(delta) and pure eps of a pair of exact laws;
- :mod:`~dpverify.checker.numbers`: margins, tolerances and printing of mixed exact / interval numbers;
- :mod:`~dpverify.checker.core`: a claim over a domain -> :class:`CheckResult` (verdict, witness, ratio);
- :mod:`~dpverify.checker.parallel`, :mod:`~dpverify.checker.store`, :mod:`~dpverify.checker.cost`: chunked
  parallel runs (identical for any worker count), the resumable SQLite store, the cost guard;
- :mod:`~dpverify.checker.ledger`: every registered claim on one executor (``dpverify verify``'s checks);
- :mod:`~dpverify.checker.pair_report`: the library side of ``dpverify profile`` and ``dpverify equal``.

The core's names are importable from here (``from dpverify.checker import check, CheckResult``).
"""

from .core import CheckResult, Partial, Witness, base_result, check, evaluate_instance, finish, instances_of, scan

__all__ = ["Witness", "CheckResult", "Partial", "check", "scan", "finish", "base_result", "instances_of", "evaluate_instance"]
