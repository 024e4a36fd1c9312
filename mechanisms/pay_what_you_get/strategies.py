"""Analyst strategies for pay-what-you-get sessions (DR19 Algorithm 2, DR19 §3 and §7).

DR19 Algorithm 2 lets the analyst, "based on previous outcomes, select adaptive
histogram h_i and parameters k_i, kbar_i".  Here a *strategy* is a deterministic
function of the transcript so far -- the tuple ``(o_1, ..., o_{i-1})`` of earlier
LimitDom outputs -- returning a :class:`Step` ``(view, k, kbar)`` or ``None`` to
stop.  The round-i histogram is ``view(h)``: the strategy never sees the data
except through outputs, so ``k_i`` and ``kbar_i`` are data-independent by
construction, as Algorithm 2 requires.

A :class:`View` is a fixed, data-independent map of histograms that preserves
neighbourliness under every relation of ``dpverify.checker.neighbours`` (add-remove,
delta:N, linf): select coordinates (a projection or permutation, no repeats),
zero some coordinates, reflect (``x -> max(0, c - x)`` on every coordinate, which
flips the direction of an add/remove move), then add a fixed shift.  Each step is
coordinate-wise 1-Lipschitz and monotone in one common direction, so a one-signed
move of at most one per coordinate stays one, on no more coordinates.  A view
applied to a top-level neighbouring pair ``(h, h')`` therefore yields, at every
node of the transcript tree, a neighbouring (or equal) pair: exactly the
"neighbouring families of adaptive histogram sequences" H^(0), H^(1) of DR19 §7
(Definition 7.1), with one family per side.

Strategies are frozen (hashable) dataclasses so a mechanism holding one can be a
cache key.  A strategy may also say it is *item-blind* (``item_blind()``: every view is
the identity and the requests depend on the transcript only through what relabelling the
items leaves unchanged -- answer sizes, ⊥, the budget left) and list the ``requests()``
``(k, kbar)`` it can make; a session run by such a strategy inherits its rounds'
symmetries (:meth:`mechanisms.pay_what_you_get.session.MultiLimitDom.symmetries`).
PeelOff (zeroes the returned items: not shift-invariant) and Switch (chooses the view
by the returned item) are not item-blind.  :data:`STRATEGIES` names the catalogue used by the ledger and tests,
including adversarial ones (re-ask on ⊥, switch histogram on the previous
output, adaptive kbar, adaptive k spending the whole budget, direction flips).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from mechanisms import validation as V
from mechanisms.base import FrozenSetter
from mechanisms.core import BOT
from mechanisms.errors import InvalidParameter
from mechanisms.pay_what_you_get.transcript import answer, charge_of

__all__ = ["View", "Step", "Fixed", "ReaskOnBot", "PeelOff", "AdaptiveKbar", "Switch", "GreedyK", "STRATEGIES", "get_strategy"]

Transcript = tuple[Any, ...]  # tuple of per-round outputs, each an ordered tuple possibly ending with BOT


@dataclass(frozen=True)
class View(FrozenSetter):
    """``h -> shift + reflect(zero(select(h)))``, a neighbour-preserving fixed transform (module docstring).

    ``select``: coordinates kept, in order (None: all); no repeats.  ``zero``:
    positions (after selection) set to 0.  ``reflect``: if not None, every count
    ``x`` becomes ``max(0, reflect - x)``.  ``shift``: added per position (>= 0),
    a data-independent offset (e.g. to place counts near the ⊥ threshold).
    """

    select: tuple[int, ...] | None = None
    zero: tuple[int, ...] = ()
    reflect: int | None = None
    shift: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.select is not None:
            sel = tuple(V.nonneg_int("select", i) for i in self.select)
            if not sel or len(set(sel)) != len(sel):
                raise InvalidParameter(f"select={self.select!r} must be a non-empty tuple without repeats")
            self._set(select=sel)
        self._set(zero=tuple(V.nonneg_int("zero", i) for i in self.zero))
        if self.reflect is not None:
            self._set(reflect=V.nonneg_int("reflect", self.reflect))
        if self.shift is not None:
            self._set(shift=tuple(V.nonneg_int("shift", s) for s in self.shift))

    def __call__(self, h: Sequence[int]) -> tuple[int, ...]:
        h = V.histogram(h)
        x = list(h) if self.select is None else [h[i] for i in self._checked(self.select, len(h), "select")]
        for i in self._checked(self.zero, len(x), "zero"):
            x[i] = 0
        if self.reflect is not None:
            x = [max(0, self.reflect - v) for v in x]
        if self.shift is not None:
            if len(self.shift) != len(x):
                raise InvalidParameter(f"shift has length {len(self.shift)} but the view has {len(x)} items")
            x = [v + s for v, s in zip(x, self.shift, strict=True)]
        return tuple(x)

    @staticmethod
    def _checked(idx: Sequence[int], d: int, name: str) -> Sequence[int]:
        for i in idx:
            if i >= d:
                raise InvalidParameter(f"{name} index {i} must be < d={d}")
        return idx


IDENTITY = View()


@dataclass(frozen=True)
class Step:
    """One round's request: run LimitDom^{k, kbar} on ``view(h)``."""

    view: View
    k: int
    kbar: int


def _ended_with_bot(t: Transcript) -> bool:
    return bool(t) and answer(t[-1])[-1] is BOT


@dataclass(frozen=True)
class Fixed:
    """Non-adaptive: the same request every round until the budget (or ``rounds``) runs out."""

    k: int
    kbar: int
    view: View = IDENTITY
    rounds: int | None = None
    name: str = "fixed"

    def __call__(self, t: Transcript) -> Step | None:
        if self.rounds is not None and len(t) >= self.rounds:
            return None
        return Step(self.view, self.k, self.kbar)

    def item_blind(self) -> bool:
        return self.view == IDENTITY

    def requests(self) -> tuple[tuple[int, int], ...]:
        return ((self.k, self.kbar),)


@dataclass(frozen=True)
class ReaskOnBot:
    """Adversarial: re-ask the same query whenever the previous answer ended with ⊥; stop otherwise.

    A ⊥-only answer costs one unit under Algorithm 2's ``|o_i|``; an accountant that
    charged only returned indices would let this strategy ask for free.
    """

    k: int
    kbar: int
    view: View = IDENTITY
    name: str = "reask-on-bot"

    def __call__(self, t: Transcript) -> Step | None:
        if t and not _ended_with_bot(t):
            return None
        return Step(self.view, self.k, self.kbar)

    def item_blind(self) -> bool:
        return self.view == IDENTITY

    def requests(self) -> tuple[tuple[int, int], ...]:
        return ((self.k, self.kbar),)


@dataclass(frozen=True)
class PeelOff:
    """Adaptive histogram: each round zeroes every item returned so far (on top of ``view``)."""

    k: int
    kbar: int
    view: View = IDENTITY
    name: str = "peel-off"

    def __call__(self, t: Transcript) -> Step | None:
        seen = sorted({i for o in t for i in answer(o) if i is not BOT})
        v = self.view
        return Step(View(v.select, tuple(sorted(set(v.zero) | set(seen))), v.reflect, v.shift), self.k, self.kbar)


@dataclass(frozen=True)
class AdaptiveKbar:
    """Adaptive kbar: round i uses ``kbars[number of ⊥ answers so far mod len(kbars)]``."""

    k: int
    kbars: tuple[int, ...]
    view: View = IDENTITY
    name: str = "adaptive-kbar"

    def __call__(self, t: Transcript) -> Step | None:
        bots = sum(1 for o in t if answer(o)[-1] is BOT)
        return Step(self.view, self.k, self.kbars[bots % len(self.kbars)])

    def item_blind(self) -> bool:
        return self.view == IDENTITY

    def requests(self) -> tuple[tuple[int, int], ...]:
        return tuple((self.k, kb) for kb in self.kbars)


@dataclass(frozen=True)
class Switch:
    """Adversarial switching: the next histogram depends on the previous answer.

    After an answer starting with item ``i``, the next view is ``views[i % len(views)]``;
    after a ⊥-first answer it is ``on_bot`` (e.g. a reflected view, which reverses
    the direction of the neighbouring move in that subtree).
    """

    k: int
    kbar: int
    views: tuple[View, ...]
    on_bot: View
    first: View = IDENTITY
    name: str = "switch"

    def __call__(self, t: Transcript) -> Step | None:
        if not t:
            return Step(self.first, self.k, self.kbar)
        head = answer(t[-1])[0]
        view = self.on_bot if head is BOT else self.views[head % len(self.views)]
        return Step(view, self.k, self.kbar)


@dataclass(frozen=True)
class GreedyK:
    """Adaptive k: ask for ``min(kbar, remaining k*)`` indices each round (Algorithm 2's ``k_i <= k*``).

    ``k_star`` and ``charge`` let the strategy replay the accountant on the
    transcript, as a real analyst can; it stops when fewer than ``min_k`` are left.
    """

    kbar: int
    k_star: int
    view: View = IDENTITY
    charge: str = "alg2"
    min_k: int = 1
    name: str = "greedy-k"

    def __call__(self, t: Transcript) -> Step | None:
        left = self.k_star - sum(charge_of(o, self.charge) for o in t)
        if left < self.min_k:  # e.g. Algorithm 6 rounds need k >= 2
            return None
        return Step(self.view, min(self.kbar, left), self.kbar)

    def item_blind(self) -> bool:
        return self.view == IDENTITY

    def requests(self) -> tuple[tuple[int, int], ...]:
        return tuple((k, self.kbar) for k in range(max(1, self.min_k), self.kbar + 1))


def _catalogue() -> dict[str, Any]:
    """Named strategies for histograms of length 3 (the ledger's domains; identity views fit any d)."""
    far = View(shift=(3, 0, 0))  # lift item 0 towards the ⊥ threshold
    return {
        "fixed-k1": Fixed(1, 1, name="fixed-k1"),
        "fixed-k2": Fixed(2, 2, name="fixed-k2"),
        "fixed-k2-kbar3": Fixed(2, 3, name="fixed-k2-kbar3"),  # any d >= 3
        "alg6-fixed": Fixed(2, 3, name="alg6-fixed"),  # Algorithm 6 rounds: k=2, dbar=3
        "alg6-greedy": GreedyK(3, 4, min_k=2, name="alg6-greedy"),
        "reask-on-bot": ReaskOnBot(1, 2, name="reask-on-bot"),
        "reask-shifted": ReaskOnBot(2, 2, view=far, name="reask-shifted"),
        # item 0 lifted to the ⊥ threshold of (kbar=1, eps=1, delta=1/1000): ⊥ answers carry information
        "reask-far": ReaskOnBot(1, 1, view=View(shift=(8, 0, 0)), name="reask-far"),
        "far-k1": Fixed(1, 1, view=View(shift=(7, 0, 0)), name="far-k1"),
        "peel-off": PeelOff(1, 2, name="peel-off"),
        "adaptive-kbar": AdaptiveKbar(1, (1, 2), name="adaptive-kbar"),
        "switch": Switch(1, 1, views=(View(select=(1, 2, 0)), View(select=(2, 0, 1), shift=(2, 0, 0))),
                         on_bot=View(reflect=3), name="switch"),
        "greedy-k": GreedyK(2, 3, name="greedy-k"),
        "project": Fixed(1, 1, view=View(select=(2, 0)), name="project"),
    }


STRATEGIES: dict[str, Any] = _catalogue()


def get_strategy(name: str) -> Any:
    """The catalogue strategy called ``name``."""
    if name not in STRATEGIES:
        raise InvalidParameter(f"strategy={name!r} is not one of {sorted(STRATEGIES)}")
    return STRATEGIES[name]
