"""Bring your own mechanism: register it with its claim, then check, profile and audit it.

Run:  python examples/byo_mechanism.py      (also executed by tests/dpverify/test_pytest_plugin_and_byo.py;
examples/rnm_geometric/ is the command-line walk-through)

The mechanism: randomized response on the argmax.  Output ``(i,)`` where ``i``
is the true argmax of ``h`` (ties -> smaller index) with probability
``e^eps / (e^eps + d - 1)`` and any other item with probability
``1 / (e^eps + d - 1)`` each.  Any two histograms give ratios of at most
``e^eps`` per outcome, so it is eps-DP under every neighbour relation.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from mechanisms.core import DEFAULT_PREC, exact_context, sorted_items, to_ctx  # noqa: E402

from dpverify.byo import register  # noqa: E402


@dataclass(frozen=True)
class ArgmaxRR:
    """Randomized response on the argmax (module docstring); ``eps`` > 0."""

    eps: Any

    def distribution(self, h, *, prec=DEFAULT_PREC, interval=False):
        with exact_context(prec, interval) as ctx:
            w = ctx.exp(to_ctx(ctx, self.eps))
            z = w + (len(h) - 1)
            top = sorted_items(h)[0]
            return {(i,): (w if i == top else 1) / z for i in range(len(h))}

    def sample(self, h, *, rng, size=1):
        d, top = len(h), sorted_items(h)[0]
        keep = rng.random(size) < np.exp(float(self.eps)) / (np.exp(float(self.eps)) + d - 1)
        other = rng.integers(0, d - 1, size)
        other = other + (other >= top)  # uniform over the items other than top
        return [(int(top),) if k else (int(o),) for k, o in zip(keep, other, strict=True)]


def buggy_argmax_rr(h, rng):
    """Someone else's implementation: keeps the argmax with probability e^(2 eps)/(e^(2 eps) + d - 1) at eps = 1."""
    d = len(h)
    top = max(range(d), key=lambda i: (h[i], -i))
    if rng.random() < np.exp(2.0) / (np.exp(2.0) + d - 1):
        return top
    return int(rng.choice([i for i in range(d) if i != top]))


def main() -> int:
    reg = register("byo-argmax-rr", ArgmaxRR, params={"eps": 1}, claim=lambda p: (p["eps"], 0),
                   examples=((2, 1, 0), (1, 1, 0)), domain=(3, 2), replace=True)

    res = reg.check()  # exact, every add/remove pair with d=3, counts 0..2
    print(f"check {res.claim}: {res.verdict} over {res.pairs_checked} pairs")
    assert res.verdict == "holds"

    wrong = register("byo-argmax-rr-overclaimed", ArgmaxRR, params={"eps": 1}, claim=lambda p: (p["eps"] / 2, 0),
                     examples=((2, 1, 0),), domain=(3, 2), replace=True)
    res = wrong.check()
    print(f"check {res.claim}: {res.verdict} (witness h={list(res.worst.h)} h'={list(res.worst.h_prime)})")
    assert res.verdict == "violated"

    prof = reg.profile((1, 1, 0))
    print(f"profile: pure eps against the worst neighbour of (1, 1, 0) = {prof['pure_eps'][:8]}")

    mine = reg.audit(samples=20_000)
    print(f"audit of its own sampler: {mine.verdict} ({mine.max_samples_per_input} samples per input)")
    assert mine.verdict == "PASS"

    theirs = reg.audit(buggy_argmax_rr, samples=20_000)
    print(theirs.summary())
    assert theirs.verdict == "FAIL"
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
