"""A release of keys WITH their noisy counts, for ``dpverify audit ... --values T,W`` (README, "More commands").

Laplace thresholding at eps = 1, delta = 1e-5 for a user in one key: a key with n users is released with the value
n + Lap(1) when that value is at least T = 1 + ln(1 / (2 delta)) (about 11.82).  ``underpaid`` decides the key set the
same way but draws the released value again with half the noise: its key set is exactly right, its values are not.

    dpverify audit examples/threshold_release.py:release --values 11.82,1 --eps 1 --delta 1e-5     # no violation found
    dpverify audit examples/threshold_release.py:underpaid --values 11.82,1 --eps 1 --delta 1e-5   # violation (exit 1)
"""

import math

import numpy as np

T = 1 + math.log(1 / (2 * 1e-5))


def release(h: list[int], rng: np.random.Generator) -> dict[int, float]:
    """Each key i with h[i] > 0 users: released with n + Lap(1) if that is >= T."""
    out = {}
    for i, n in enumerate(h):
        v = n + rng.laplace(0, 1.0)
        if n > 0 and v >= T:
            out[i] = float(v)
    return out


def underpaid(h: list[int], rng: np.random.Generator) -> dict[int, float]:
    """The same key set, but the value drawn again with half the noise (it pays for the key set only)."""
    out = {}
    for i, n in enumerate(h):
        if n > 0 and n + rng.laplace(0, 1.0) >= T:
            out[i] = float(n + rng.laplace(0, 0.5))
    return out
