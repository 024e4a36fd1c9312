"""``dpverify bench``: speed and memory, measured as ratios side by side (:mod:`~dpverify.bench.suite`).

Workloads in :mod:`~dpverify.bench.workloads`; the exact samplers' cost in :mod:`~dpverify.bench.exact`;
JOINT's exact samplers against a float64 reference in :mod:`~dpverify.bench.joint`.
"""
