"""What a universal certificate says, and what it covers (the one result type of the room)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["VERDICTS", "HOLDS", "VIOLATED", "UNDECIDED", "OUT_OF_SCOPE", "UniversalResult", "Witness"]

HOLDS = "holds-for-all-counts"
VIOLATED = "violated"
UNDECIDED = "undecided"
OUT_OF_SCOPE = "out-of-scope"
VERDICTS = (HOLDS, VIOLATED, UNDECIDED, OUT_OF_SCOPE)


@dataclass(frozen=True)
class Witness:
    """An integer neighbouring pair on which the claim fails, re-checked with the exact law.

    ``p`` / ``q`` are the probabilities of ``event`` under ``h`` / ``h_prime`` (decimal strings of certified
    enclosures or exact values); ``excess`` is a certified LOWER bound on ``P(event) - e^eps Q(event) - delta``
    (> 0 for a violation).
    """

    h: tuple[int, ...]
    h_prime: tuple[int, ...]
    event: Any
    p: str
    q: str
    eps: str
    delta: str
    excess: str

    def to_json(self) -> dict[str, Any]:
        return {"h": list(self.h), "h_prime": list(self.h_prime), "event": _jsonable(self.event), "P": self.p,
                "Q": self.q, "eps": self.eps, "delta": self.delta, "excess_lower": self.excess}


def _jsonable(x: Any) -> Any:
    if isinstance(x, (list, tuple, frozenset, set)):
        items = [_jsonable(v) for v in x]
        return sorted(items, key=repr) if isinstance(x, (set, frozenset)) else items
    if isinstance(x, (int, float, str)) or x is None:
        return x
    return str(x)


@dataclass(frozen=True)
class UniversalResult:
    """The verdict of a universal certificate on one claim at one parameter point.

    ``lengths`` says which histogram lengths it covers (``"all"`` or e.g. ``"1..6"``); ``scope`` names the
    mechanism, parameters, relation and claimed points; ``certified`` is True when every inequality was decided
    by interval arithmetic or exact (symbolic / rational) computation.  ``undecided`` lists what is left (boxes
    and their volume) and ``reason`` says why a claim is out of scope.
    """

    claim: str
    verdict: str
    lengths: str
    scope: dict[str, Any]
    certified: bool = True
    method: str = ""
    structures: int = 0
    boxes: int = 0
    seconds: float = 0.0
    witness: Witness | None = None
    undecided: tuple[dict[str, Any], ...] = ()
    reason: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "claim": self.claim, "verdict": self.verdict, "lengths": self.lengths, "scope": _jsonable_dict(self.scope),
            "certified": self.certified, "method": self.method, "structures": self.structures, "boxes": self.boxes,
            "seconds": round(self.seconds, 3),
            "witness": self.witness.to_json() if self.witness is not None else None,
        }
        if self.undecided:
            out["undecided"] = [_jsonable_dict(u) for u in self.undecided]
        if self.reason:
            out["reason"] = self.reason
        if self.extra:
            out["extra"] = _jsonable_dict(self.extra)
        return out


def _jsonable_dict(d: dict[str, Any]) -> dict[str, Any]:
    return {str(k): _jsonable(v) if not isinstance(v, dict) else _jsonable_dict(v) for k, v in d.items()}
