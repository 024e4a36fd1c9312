"""The sparse vector technique as printed in CWGM20 Algorithm 2 (§2.3; Lyu-Su-Li style).

SVT(D, {q_1..q_m}, T, eps_1, eps_2, c): ``T_hat = T + Lap(c/eps_1)`` once
("Lap(1/(eps_1/c))"); for each query in order, ``nu_i = Lap(2c/eps_2)``
("Lap(2/(eps_2/c))"); answer ⊤ if ``q_i(D) + nu_i >= T_hat`` (and count it), else
⊥; abort once ``c`` answers were ⊤.

Input: the query *answers* on D, given as the "histogram" ``h`` (``q_i = h_i``;
the checker's neighbour relations then model sensitivity-1 queries: monotone
under ``add-remove``, non-monotone under ``linf``).

Outcome: the tuple of 0-based indices answered ⊤, increasing.  It determines
the whole printed bit string: if it has ``c`` entries the run aborted right after
the last one, otherwise every query was answered and the others were ⊥.

Exact law (closed form over the threshold noise, :mod:`mechanisms.exact.threshold_runs`):
``Pr[S] = int pdf_{T_hat}(x) prod_{i in S} S_i(x) prod_{i not in S, i < end} F_i(x) dx``
with ``end = max(S) + 1`` if ``|S| = c`` else ``m``.

Theorem 2.8 claims ``(eps_1 + eps_2, 0)``-DP.  The printed threshold noise
``Lap(c/eps_1)`` is ``c`` times Lyu et al.'s ``Lap(1/eps_1)``: more noise, so no
privacy harm (recorded in ``proofs.cwgm20``).  ``calibration`` names the noise:
``"printed"`` (the above) or a deliberately broken mutant (see
:data:`CALIBRATIONS`), each labelled with what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from mechanisms import validation as V
from mechanisms.float_sampling import sampler_float
from mechanisms.base import ExactMechanism
from mechanisms.errors import InvalidParameter, InvalidParameterType
from mechanisms.exact.threshold_runs import run_distribution, run_sample
from mechanisms.registry import MechanismSpec

__all__ = ["SVT", "CALIBRATIONS"]

#: ``calibration -> (threshold scale, query scale)`` as functions of (eps1, eps2, c).
CALIBRATIONS: dict[str, Callable[[Fraction, Fraction, int], tuple[Any, Any]]] = {
    "printed": lambda e1, e2, c: (c / e1, 2 * c / e2),
    # mutants (noise calibration broken):
    "no-query-noise": lambda e1, e2, c: (c / e1, 0),
    "no-threshold-noise": lambda e1, e2, c: (0, 2 * c / e2),
    "query-noise-1-over-eps2": lambda e1, e2, c: (c / e1, 1 / e2),
}


def _exact(name: str, x: Any) -> Any:
    v = V.real(name, x)
    return Fraction(v) if isinstance(v, float) else v


@dataclass(frozen=True)
class SVT(ExactMechanism):
    """CWGM20 Algorithm 2 with cutoff ``c`` (see the module docstring for the outcome and its law)."""

    T: Any
    eps1: Any
    eps2: Any
    c: int = 1
    calibration: str = "printed"

    def __post_init__(self) -> None:
        self._set(T=_exact("T", self.T))
        self._set(eps1=_exact("eps1", V.positive("eps1", self.eps1)))
        self._set(eps2=_exact("eps2", V.positive("eps2", self.eps2)))
        self._set(c=V.pos_int("c", self.c))
        if not isinstance(self.calibration, str):
            raise InvalidParameterType(f"calibration={self.calibration!r} must be a string")
        if self.calibration not in CALIBRATIONS:
            raise InvalidParameter(f"calibration={self.calibration!r} must be one of {sorted(CALIBRATIONS)}")

    @property
    def scales(self) -> tuple[Fraction, Fraction]:
        """(threshold Laplace scale, query Laplace scale), exact."""
        bt, bq = CALIBRATIONS[self.calibration](Fraction(self.eps1), Fraction(self.eps2), self.c)
        return Fraction(bt), Fraction(bq)

    def _stop(self, pattern: tuple[bool, ...]) -> bool:
        return sum(pattern) >= self.c

    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        bt, bq = self.scales
        q = np.asarray(h, dtype=np.float64)
        passed = run_sample(float(self.T), _scale_float("threshold noise scale", bt), q,
                            np.full(q.shape, _scale_float("query noise scale", bq)), rng=rng, size=size)
        # abort after the c-th ⊤: keep the first c passing indices of each row
        out = []
        for row in passed:
            idx = np.flatnonzero(row)[: self.c]
            out.append(tuple(int(i) for i in idx))
        return out

    def critical_scales(self) -> tuple[float, ...]:
        """The threshold T (the answers are compared with it) and the two Laplace scales (count units; the worst-case
        search builds its gaps around them)."""
        return (float(self.T),) + tuple(float(s) for s in self.scales)

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        bt, bq = self.scales
        runs = run_distribution(ctx, self.T, bt, list(h), [bq] * len(h), self._stop)
        return {tuple(i for i, p in enumerate(pat) if p): pr for pat, pr in runs.items()}


_VALID = ({"T": 1, "eps1": Fraction(1, 2), "eps2": Fraction(1, 2)}, {"T": 2, "eps1": 1, "eps2": 1, "c": 2})
_INVALID: list[tuple[dict[str, Any], type, str]] = [
    ({"T": 1, "eps1": -1, "eps2": 1}, InvalidParameter, "eps1=-1 must be > 0"),
    ({"T": 1, "eps1": 1, "eps2": 0}, InvalidParameter, "eps2=0 must be > 0"),
    ({"T": 1, "eps1": 1, "eps2": 1, "c": 0}, InvalidParameter, "c=0 must be >= 1"),
    ({"T": float("nan"), "eps1": 1, "eps2": 1}, InvalidParameter, "T=nan must be finite"),
    ({"T": 1, "eps1": 1, "eps2": 1, "c": 1.5}, InvalidParameterType, "c=1.5 must be an integer"),
    ({"T": 1, "eps1": 1, "eps2": 1, "calibration": "x"}, InvalidParameter, "calibration='x' must be one of"),
]


def _mutant(calibration: str, what: str, valid: Any) -> MechanismSpec:
    return MechanismSpec(
        name=f"svt-mutant-{calibration}",
        factory=lambda **p: SVT(**p, calibration=calibration),
        valid=valid,
        examples=((2, 1, 0), (1, 2, 2)),
        paper="mutant of CWGM20 Alg. 2",
        mutant=what,
        relation="linf",
        claim=lambda p: (p["eps1"] + p["eps2"], 0),
    )


REGISTRY = [
    MechanismSpec(
        name="svt",
        factory=SVT,
        valid=_VALID,
        invalid=_INVALID,
        examples=((2, 1, 0), (0, 0, 0), (3, 1, 2)),
        paper="CWGM20 Alg. 2 (§2.3), Theorem 2.8",
        relation="linf",
        claim=lambda p: (p["eps1"] + p["eps2"], 0),
    ),
    _mutant("no-query-noise", "no noise on the queries (nu_i = 0): the answer pattern is a deterministic function of T_hat, "
                              "supports differ between neighbours", ({"T": Fraction(3, 2), "eps1": 1, "eps2": 1},)),
    _mutant("no-threshold-noise", "threshold noise never drawn (T_hat = T): every query then costs eps_2/2 separately, so the "
                                  "loss grows with the number of ⊥ "
                                  "answers", ({"T": Fraction(3, 2), "eps1": Fraction(1, 10), "eps2": 1},)),
    _mutant("query-noise-1-over-eps2", "query noise Lap(1/eps_2) instead of Lap(2c/eps_2): too little for non-monotone "
                                       "sensitivity-1 queries", ({"T": 1, "eps1": Fraction(1, 10), "eps2": 1},)),
]


def _scale_float(name: str, b: Any) -> float:
    """A noise scale for the sampler: 0 (no noise, the mutants) or within the float samplers' range."""
    return 0.0 if b == 0 else sampler_float(name, b)
