"""What one pay-what-you-get round released and what it costs (DR19 Algorithm 2, DR19 §3; footnote 6, §7).

A round of :class:`mechanisms.pay_what_you_get.session.MultiLimitDomSession` releases a
LimitDom outcome ``o_i`` -- or ``(kbar, o_i)`` for a round run with Algorithm 6 -- and is
charged by one of the accountants of :data:`CHARGES`.  Strategies
(:mod:`mechanisms.pay_what_you_get.strategies`) and the session share these definitions.
"""

from __future__ import annotations

from typing import Any

from mechanisms.core import BOT
from mechanisms.errors import InvalidParameter

__all__ = ["answer", "CHARGES", "charge_of"]


def answer(o: tuple[Any, ...]) -> tuple[Any, ...]:
    """The index tuple of one round's output: Algorithm 6 rounds output ``(kbar, o_i)``."""
    return o[1] if len(o) == 2 and isinstance(o[1], tuple) else o


#: Accountants.  "alg2": Algorithm 2's ``|o_i|`` (⊥ counts as one element), and
#: ``|o_i| + 1`` for a round run with Algorithm 6 (footnote 6 / Claim 7.1; such a
#: round outputs ``(kbar, o_i)``).  Mutants (not paper rules): "no-footnote6"
#: (Algorithm 6 rounds pay only ``|o_i|``) and "indices-only" (⊥ is free).
CHARGES = ("alg2", "no-footnote6", "indices-only")


def charge_of(o: tuple[Any, ...], rule: str = "alg2") -> int:
    """What one round's output costs under ``rule`` (see :data:`CHARGES`)."""
    inner = answer(o)
    extra = 1 if inner is not o else 0  # an Algorithm 6 round: (kbar, o_i)
    if rule == "alg2":
        return len(inner) + extra
    if rule == "no-footnote6":
        return len(inner)
    if rule == "indices-only":
        return sum(1 for x in inner if x is not BOT) + extra
    raise InvalidParameter(f"charge={rule!r} must be one of {CHARGES}")
