"""Pay-what-you-get composition: multiLimitDom^{k*, l*} (DR19 Algorithm 2, DR19 §3; Theorem 2, §7).

Algorithm 2, transcribed::

    while k* > 0 and l* > 0:
        based on previous outcomes, select adaptive histogram h_i and parameters k_i, kbar_i
        if k_i <= k*:
            o_i = LimitDom^{k_i, kbar_i}(h_i)  with privacy parameters eps, delta
            k* <- k* - |o_i|  and  l* <- l* - 1
    return o = (o_1, o_2, ...)

``|o_i|`` is the size of the output *including* ⊥: ``(i_1, ..., i_j, ⊥)`` costs
``j + 1`` -- one unit per exponential-mechanism step of the peeling form (DR19 §7:
"the size of the output tells us the number of adaptive calls made to the
exponential mechanism"; §3.1: "the analyst need only pay for a single ⊥ outcome").
Footnote 6 (DR19 Claim 7.1): a round that first picks kbar with Algorithm 6 pays
``|o_i| + 1``.  The mutant accountant ``"indices-only"`` (⊥ free) exists to be
caught by the checker and the tests.

Two things are not printed and are fixed here, data-independently:

* the printed loop has no ``else``: a request with ``k_i > k*`` is not run, and a
  deterministic analyst would repeat it forever.  Here such a request *ends* the
  session (the session object raises :class:`~mechanisms.errors.BudgetExceeded`
  and runs nothing); whether it happens depends only on earlier outputs.
* Theorem 2 is a statement about the whole session with the *configured* k*, l*;
  the data-dependent amount used so far is not itself a privacy guarantee.

Exact transcript law (:func:`transcript_distribution`): for a strategy giving the
round-i request as a function of ``o_<i``, ``Pr[o_1..o_l] = prod_i
Pr[LimitDom^{k_i, kbar_i}(h_i(o_<i)) = o_i]`` over every transcript the loop can
produce (DR19 Lemma 7.3's first display); outcomes are tuples of per-round
outputs, e.g. ``((0, BOT), (BOT,), (2, 1))``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.base import ExactMechanism, HistogramLike
from mechanisms.core import DEFAULT_PREC, exact_context, relabel_outcome, symmetries_of, to_ctx
from mechanisms.errors import BudgetExceeded, InvalidParameter, InvalidParameterType
from mechanisms.exact.arb_context import certified_context, iv_law
from mechanisms.limited_domain.gumbel import LimitDom
from mechanisms.limited_domain.optimal_threshold import OptimalThreshold
from mechanisms.pay_what_you_get.transcript import charge_of

from .strategies import get_strategy

__all__ = [
    "Round",
    "eq3_eps",
    "theorem2_guarantee",
    "MultiLimitDomSession",
    "transcript_distribution",
    "sample_transcripts",
    "MultiLimitDom",
]


def eq3_eps(k_star: int, eps: Any, delta_prime: Any, *, prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
    """DR19 eq. (3): ``eps* = min{k* eps, k* eps (e^eps-1)/(e^eps+1) + eps sqrt(2 k* ln(1/delta')),
    k* eps^2/2 + eps sqrt(k*/2 ln(1/delta'))}`` (``delta' = 0``: only ``k* eps``).

    The *claimed* upper bound on the session's eps at delta ``2 l* delta + delta'``;
    transcribed here because ``mechanisms`` may not import ``proofs`` (the ledger
    checks it equals ``proofs.composition.eq3_eps``).
    """
    k_star = V.pos_int("k_star", k_star)
    V.positive("eps", eps)
    dp = V.probability("delta_prime", delta_prime, allow_zero=True)
    with exact_context(prec, interval) as ctx:
        e, k = to_ctx(ctx, eps), ctx.mpf(k_star)
        terms = [k * e]
        if dp != 0:
            ln = ctx.log(1 / to_ctx(ctx, dp))
            x = ctx.exp(e)
            terms.append(k * e * (x - 1) / (x + 1) + e * ctx.sqrt(2 * k * ln))
            terms.append(k * e * e / 2 + e * ctx.sqrt(k * ln / 2))
        if interval:
            return ctx.mpf([min(t.a for t in terms), min(t.b for t in terms)])
        return min(terms)


def theorem2_guarantee(k_star: int, l_star: int, eps: Any, delta: Any, delta_prime: Any = 0, **kw: Any) -> tuple[Any, Any]:
    """DR19 Theorem 2: ``(eps*, 2 l* delta + delta')`` -- the claimed (upper-bound) guarantee of a session."""
    l_star = V.pos_int("l_star", l_star)
    d = V.probability("delta", delta)
    dp = V.probability("delta_prime", delta_prime, allow_zero=True)
    return eq3_eps(k_star, eps, dp, **kw), 2 * l_star * d + dp


def _check_rng(rng: Any) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise InvalidParameterType(f"rng={rng!r} must be a numpy.random.Generator")
    return rng


class MultiLimitDomSession:
    """A pay-what-you-get session a user can run: DR19 Algorithm 2 as an object.

    ``MultiLimitDomSession(k_star, l_star, eps, delta, Delta=None)`` holds the
    budgets; each :meth:`query` runs ``LimitDom^{k, kbar}(h)`` with the session's
    (eps, delta, Delta) and charges ``|o_i|`` (⊥ included) against k* and one
    query against l*.  A query that cannot be paid for -- the session is closed
    (k* <= 0 or l* <= 0) or ``k`` exceeds the remaining k* -- raises
    :class:`BudgetExceeded` *before the histogram is looked at*; so do bad
    parameters (k > kbar ...), with :class:`InvalidParameter`.  The guarantee of
    the whole session is :meth:`guarantee` (Theorem 2), whatever is used.

    >>> import numpy as np
    >>> s = MultiLimitDomSession(3, 2, eps=1, delta="0.01")
    >>> o = s.query([50, 40, 3, 1], k=2, kbar=3, rng=np.random.default_rng(0))
    >>> s.k_remaining == 3 - len(o) and s.l_remaining == 1
    True
    """

    def __init__(self, k_star: int, l_star: int, eps: Any, delta: Any, *, Delta: int | None = None,
                 variant: str = "long", charge: str = "alg2"):
        self.k_star = V.pos_int("k_star", k_star)
        self.l_star = V.pos_int("l_star", l_star)
        self.eps = V.positive("eps", eps)
        self.delta = V.probability("delta", delta)
        self.Delta = None if Delta is None else V.pos_int("Delta", Delta)
        self.variant = variant
        charge_of((), charge)  # validates the rule name
        self.charge = charge
        self._transcript: list[tuple[Any, ...]] = []
        self._k_left, self._l_left = self.k_star, self.l_star

    @property
    def k_remaining(self) -> int:
        return self._k_left

    @property
    def l_remaining(self) -> int:
        return self._l_left

    @property
    def transcript(self) -> tuple[Any, ...]:
        """The outputs so far, ``(o_1, ..., o_i)``."""
        return tuple(self._transcript)

    @property
    def closed(self) -> bool:
        """Algorithm 2's loop condition failed: ``k* <= 0`` or ``l* <= 0``."""
        return self._k_left <= 0 or self._l_left <= 0

    def spent(self) -> dict[Any, Any]:
        """Budget used so far (data-dependent; not a privacy statement by itself)."""
        return {"k_used": self.k_star - self._k_left, "l_used": self.l_star - self._l_left,
                "k_remaining": self._k_left, "l_remaining": self._l_left}

    def guarantee(self, delta_prime: Any = 0, **kw: Any) -> tuple[Any, Any]:
        """Theorem 2 for this session: ``(eps*, 2 l* delta + delta')``, eps* from eq. (3) (an upper bound as claimed)."""
        return theorem2_guarantee(self.k_star, self.l_star, self.eps, self.delta, delta_prime, **kw)

    def can_pay(self, k: int) -> bool:
        """Whether a request for ``k`` indices would be run (Algorithm 2's ``k_i <= k*``)."""
        return not self.closed and V.pos_int("k", k) <= self._k_left

    def query(self, h: Sequence[int], k: int, kbar: int, *, rng: np.random.Generator) -> tuple[Any, ...]:
        """Run one round: ``LimitDom^{k,kbar}(h)``; charge it; return its output ``o_i``."""
        # Everything decided before reading h: budget, parameters, randomness source.
        k = V.pos_int("k", k)
        self._check_budget(k)
        mech = LimitDom(k, kbar, self.eps, self.delta, self.Delta, self.variant)
        return self._run(mech, h, rng)

    def query_optimal(self, h: Sequence[int], k: int, dbar: int, *, rng: np.random.Generator,
                      literal: bool = False) -> tuple[Any, ...]:
        """One round with Algorithm 6 (choose kbar in [k, dbar] privately, then LimitDom^{k-1, kbar});
        returns ``(kbar, o_i)`` and charges ``|o_i| + 1`` (DR19 footnote 6).  At most k is charged,
        so the same ``k <= k*`` test applies.  Unrestricted threshold only (DR19 §6.3)."""
        k = V.pos_int("k", k)
        self._check_budget(k)
        if self.Delta is not None or self.variant != "long":
            raise InvalidParameter("query_optimal has only the unrestricted threshold (DR19 §6.3 assumes Delta = d)")
        return self._run(OptimalThreshold(k, dbar, self.eps, self.delta, literal=literal), h, rng)

    def run(self, strategy: Any, h: Sequence[int], *, rng: np.random.Generator) -> tuple[Any, ...]:
        """Let ``strategy`` (transcript -> ``Step`` or None) drive the session on data ``h``
        until it stops, the session closes, or a request cannot be paid for; return the
        transcript.  Round i queries ``step.view(h)`` (Algorithm 1 rounds)."""
        if isinstance(strategy, str):
            strategy = get_strategy(strategy)
        while not self.closed:
            step = strategy(self.transcript)
            if step is None or not self.can_pay(step.k):
                break  # a request k_i > k* is not run and ends the session (module docstring)
            self.query(step.view(h), step.k, step.kbar, rng=rng)
        return self.transcript

    def _check_budget(self, k: int) -> None:
        if self.closed:
            raise BudgetExceeded(f"session closed: k* left={self._k_left}, l* left={self._l_left}")
        if k > self._k_left:
            raise BudgetExceeded(f"k={k} exceeds the remaining index budget k*={self._k_left}")

    def _run(self, mech: Any, h: Sequence[int], rng: np.random.Generator) -> tuple[Any, ...]:
        _check_rng(rng)
        o = mech.sample(h, rng=rng, size=1)[0]  # the first (and only) read of h
        self._transcript.append(o)
        self._k_left -= charge_of(o, self.charge)
        self._l_left -= 1
        result: tuple[Any, ...] = o
        return result


def _budget_left(t: tuple[Any, ...], k_star: int, l_star: int, charge: str) -> tuple[int, int]:
    return k_star - sum(charge_of(o, charge) for o in t), l_star - len(t)


class Round(NamedTuple):
    """One round as the loop runs it: ``mech`` (LimitDom, pLEM on a domain, Algorithm 6 ...)
    applied to histogram ``x``; ``k`` is the requested k_i checked against the k* left."""

    mech: Any
    x: tuple[Any, ...]
    k: int


def transcript_distribution(
    rounds: Callable[[tuple[Any, ...]], Round | None], *, k_star: int, l_star: int, charge: str = "alg2",
    prec: int = DEFAULT_PREC, interval: bool = False,
) -> dict[Any, Any]:
    """Exact law of the transcript of Algorithm 2's loop (module docstring).

    ``rounds(t)`` gives the :class:`Round` run after transcript ``t`` (None: the
    analyst stops).  The loop stops when k* or l* left is <= 0; a request with
    ``k > k*`` left ends the run.  Round laws are memoised per ``(mech, x)``.
    """
    memo: dict[Any, Any] = {}
    out: dict[Any, Any] = {}
    # certified: the products along the transcript tree on Arb balls (each round's iv law taken as balls once)
    with exact_context(prec, interval) as asked, certified_context(asked, ()) as ctx:
        stack: list[tuple[tuple[Any, ...], Any]] = [((), ctx.mpf(1))]
        while stack:
            t, p = stack.pop()
            k_left, l_left = _budget_left(t, k_star, l_star, charge)
            r = rounds(t) if (k_left > 0 and l_left > 0) else None
            if r is None or r.k > k_left:
                out[t] = out.get(t, 0 * p) + p
                continue
            key = (r.mech, tuple(r.x))
            law = memo.get(key)
            if law is None:
                law = r.mech.distribution(r.x, prec=prec, interval=interval)
                if ctx is not asked:
                    law = {o: ctx.mpf(q) for o, q in law.items()}
                memo[key] = law
            for o, q in law.items():
                stack.append((t + (o,), p * q))
        return iv_law(ctx, out)


def sample_transcripts(
    rounds: Callable[[tuple[Any, ...]], Round | None], *, k_star: int, l_star: int, charge: str = "alg2",
    rng: np.random.Generator, size: int = 1,
) -> list[Any]:
    """``size`` independent runs of the loop (fast path): runs sharing a transcript prefix
    advance together with one vectorised draw of the round mechanism; random order."""
    _check_rng(rng)
    size = V.pos_int("size", size)
    active: Counter[Any] = Counter({(): size})
    done: list[Any] = []
    while active:
        nxt: Counter[Any] = Counter()
        for t, n in sorted(active.items(), key=lambda kv: repr(kv[0])):  # fixed order: seeded runs reproduce
            k_left, l_left = _budget_left(t, k_star, l_star, charge)
            r = rounds(t) if (k_left > 0 and l_left > 0) else None
            if r is None or r.k > k_left:
                done.extend([t] * n)
                continue
            for o in r.mech.sample(r.x, rng=rng, size=n):
                nxt[t + (o,)] += 1
        active = nxt
    order = rng.permutation(len(done))
    return [done[i] for i in order]


ALGORITHMS = ("alg1", "alg6", "alg6-literal")


@dataclass(frozen=True)
class MultiLimitDom(ExactMechanism):
    """multiLimitDom^{k*, l*} run by a fixed strategy on views of one histogram h (DR19 Algorithm 2).

    ``strategy`` (a name from :data:`mechanisms.pay_what_you_get.strategies.STRATEGIES` or a
    strategy object) maps the transcript to ``Step(view, k, kbar)``; round i runs
    ``LimitDom^{k_i, kbar_i}(view_i(h))`` with (eps, delta, Delta, variant).  With
    ``algorithm="alg6"`` each round is instead Algorithm 6 + LimitDom
    (:class:`~mechanisms.limited_domain.optimal_threshold.OptimalThreshold` ``(k_i, dbar=kbar_i)``,
    EM reading of its selection; ``"alg6-literal"``: the printed argmin+Gumbel), whose
    output ``(kbar, o_i)`` costs ``|o_i| + 1`` (footnote 6).  As a function of h
    this is an ordinary mechanism: outputs are whole transcripts and
    ``distribution`` is :func:`transcript_distribution`.  Views preserve
    neighbourliness, so neighbouring h, h' give neighbouring families H^(0), H^(1)
    (DR19 Definition 7.1).  Claimed privacy: Theorem 2, ``(eps*, 2 l* delta + delta')``.
    ``charge`` other than "alg2" is a mutant accountant.
    """

    k_star: int
    l_star: int
    eps: Any
    delta: Any
    strategy: Any = "fixed-k1"
    Delta: int | None = None
    variant: str = "long"
    charge: str = "alg2"
    algorithm: str = "alg1"

    def __post_init__(self) -> None:
        self._set(k_star=V.pos_int("k_star", self.k_star), l_star=V.pos_int("l_star", self.l_star))
        self._set(eps=V.positive("eps", self.eps), delta=V.probability("delta", self.delta))
        if self.Delta is not None:
            self._set(Delta=V.pos_int("Delta", self.Delta))
        if isinstance(self.strategy, str):
            self._set(strategy=get_strategy(self.strategy))
        elif not callable(self.strategy):
            raise InvalidParameterType(f"strategy={self.strategy!r} must be a strategy name or a callable (transcript -> Step "
                                       f"or None)")
        charge_of((), self.charge)
        if self.algorithm not in ALGORITHMS:
            raise InvalidParameter(f"algorithm={self.algorithm!r} must be one of {ALGORITHMS}")
        if self.algorithm != "alg1" and (self.Delta is not None or self.variant != "long"):
            raise InvalidParameter("algorithm='alg6' has only the unrestricted threshold (DR19 §6.3 assumes Delta = d)")
        LimitDom(1, 1, self.eps, self.delta, self.Delta, self.variant)  # validates variant

    def round_mechanism(self, k: int, kbar: int) -> Any:
        """The round's mechanism for a request ``(k, kbar)`` (kbar is Algorithm 6's dbar there); built once per
        session and request (the mechanisms are frozen values)."""
        try:
            return _round_mechanism(self, k, kbar)
        except TypeError:  # an unhashable strategy object: built afresh
            return self._make_round_mechanism(k, kbar)

    def _make_round_mechanism(self, k: int, kbar: int) -> Any:
        if self.algorithm == "alg1":
            return LimitDom(k, kbar, self.eps, self.delta, self.Delta, self.variant)
        return OptimalThreshold(k, kbar, self.eps, self.delta, literal=self.algorithm == "alg6-literal")

    def symmetries(self, d: int) -> frozenset[Any]:
        """The symmetries every round mechanism the strategy can request has at length ``d``, if the strategy is
        item-blind (:mod:`mechanisms.pay_what_you_get.strategies`); none otherwise.

        Every round runs on ``h`` itself and the next request depends only on relabelling-invariant features of
        the transcript, so a shift of ``h`` leaves each round's law, hence the transcript law, unchanged when
        every round is shift-invariant, and a (tie-preserving) permutation of ``h`` relabels every round's
        output and so the transcript (:meth:`relabel`).  Checked by brute force in tests/dpverify/checker/test_reductions.py.
        """
        blind = getattr(self.strategy, "item_blind", None)
        if not callable(blind) or not blind():
            return frozenset()
        out = None
        for k, kbar in self.strategy.requests():
            try:
                sym = symmetries_of(self.round_mechanism(k, kbar), d)
            except InvalidParameter:
                continue  # a request this session can never run validly (e.g. k > kbar)
            out = sym if out is None else out & sym
        return frozenset() if out is None else frozenset(out)

    def relabel(self, outcome: tuple[Any, ...], items: Sequence[int]) -> tuple[Any, ...]:
        """A transcript on a permuted histogram written with the original items, round by round
        (Algorithm 6 rounds output ``(kbar, o_i)``: kbar is a count, not an item)."""
        if self.algorithm == "alg1":
            return tuple(relabel_outcome(None, o, items) for o in outcome)
        return tuple((o[0], relabel_outcome(None, o[1], items)) for o in outcome)

    def rounds(self, h: HistogramLike) -> Callable[[tuple[Any, ...]], Round | None]:
        """The loop's rounds on data ``h``: ``t -> Round(mechanism, view(h), k)``."""
        h = V.histogram(h)
        views: dict[Any, Any] = {}  # each view applied to h once

        def step(t: tuple[Any, ...]) -> Round | None:
            s = self.strategy(t)
            if s is None:
                return None
            x = views.get(s.view)
            if x is None:
                x = views[s.view] = s.view(h)
            return Round(self.round_mechanism(s.k, s.kbar), x, s.k)

        return step

    def _kw(self) -> dict[Any, Any]:
        return dict(k_star=self.k_star, l_star=self.l_star, charge=self.charge)

    # a composition of round mechanisms, each with its own law and sampler: both public methods are overridden
    def distribution(self, h: HistogramLike, *, prec: int = DEFAULT_PREC, interval: bool = False) -> dict[Any, Any]:
        """The exact transcript law (:func:`transcript_distribution`)."""
        return transcript_distribution(self.rounds(h), prec=prec, interval=interval, **self._kw())

    def sample(self, h: HistogramLike, *, rng: np.random.Generator, size: int = 1) -> list[Any]:
        """``size`` transcripts (:func:`sample_transcripts`)."""
        return sample_transcripts(self.rounds(h), rng=rng, size=size, **self._kw())


@lru_cache(maxsize=4096)
def _round_mechanism(session: "MultiLimitDom", k: int, kbar: int) -> Any:
    return session._make_round_mechanism(k, kbar)


def _registry() -> list[Any]:
    from mechanisms.registry import MechanismSpec

    base = {"k_star": 2, "l_star": 2, "eps": 1, "delta": "0.1"}
    invalid = [
        ({**base, "k_star": 0}, InvalidParameter, "k_star=0 must be >= 1"),
        ({**base, "l_star": 0}, InvalidParameter, "l_star=0 must be >= 1"),
        ({**base, "eps": 0}, InvalidParameter, "eps=0 must be > 0"),
        ({**base, "delta": 1}, InvalidParameter, "delta=1 must be in (0, 1)"),
        ({**base, "Delta": 0}, InvalidParameter, "Delta=0 must be >= 1"),
        ({**base, "strategy": "nope"}, InvalidParameter, "strategy='nope' is not one of"),
        ({**base, "charge": "free"}, InvalidParameter, "charge='free' must be one of"),
    ]
    claim = lambda p: theorem2_guarantee(p["k_star"], p["l_star"], p["eps"], p["delta"], 0)  # noqa: E731
    examples = ((3, 1, 0), (2, 2, 1), (4, 0, 0))
    return [
        MechanismSpec(
            name="multi-limit-dom", factory=MultiLimitDom,
            valid=tuple({**base, "strategy": s} for s in ("fixed-k1", "reask-on-bot", "peel-off", "switch", "greedy-k"))
            + ({**base, "k_star": 3, "l_star": 3, "strategy": "adaptive-kbar"},),
            invalid=invalid, examples=examples,
            paper="DR19 Algorithm 2 (§3), Theorem 2; a fixed analyst strategy on views of h",
            claim=claim, tags=frozenset({"transcript"}),
        ),
        MechanismSpec(
            name="multi-limit-dom-bot-free", factory=lambda **p: MultiLimitDom(**{**p, "charge": "indices-only"}),
            # the ledger probe DR19.Thm2#bot-free's witness: item 0 at the ⊥ threshold, small delta
            valid=({"k_star": 1, "l_star": 5, "eps": 1, "delta": "0.001", "strategy": "reask-far"},
                   {**base, "k_star": 1, "l_star": 3, "strategy": "reask-on-bot"}),
            examples=((0, 0, 0), (0, 0, 1), (1, 0, 0)), paper="mutant of DR19 Algorithm 2",
            mutant="accountant charges only returned indices: ⊥ answers are free (Algorithm 2 charges |o_i|, ⊥ included)",
            claim=lambda p: theorem2_guarantee(p["k_star"], p["l_star"], p["eps"], p["delta"], 0),
            tags=frozenset({"transcript"}),
        ),
    ]


REGISTRY = _registry()
