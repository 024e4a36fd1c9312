"""Privacy assertions and hypothesis strategies for any pytest suite.

``assert_dp(obj, eps=..., delta=..., relation=..., domain=...)`` raises
``AssertionError`` (with the witness) when ``obj`` is not (eps, delta)-DP:

* **exactly** when ``obj`` has ``distribution`` (a mechanism object, a
  ``MechanismSpec`` or a registered name): every neighbouring pair of the
  domain is checked by ``dpverify.checker.core.check`` -- a proof on that domain;
* **statistically** otherwise (a sampler callable or ``"module:name"``): a
  spec-less ``dpverify.auditor.audit`` over the domain (or ``inputs``); FAIL
  raises, and so does INCONCLUSIVE unless ``allow_inconclusive``.

``assert_claim(claim, ...)`` checks a registered claim or lemma -- a ledger entry, or one a
researcher registered (:mod:`dpverify.byo`) -- on its domain, optionally also by the worst-case
search, and raises ``AssertionError`` when a verdict is not the expected one, with what the
verdict covers (domain, pairs enumerated, certified or not, the searched space) and the witness::

    def test_my_claim():
        assert_claim("BYO.my-rnm", search=True, evals=100)

(the pytest fixture ``dp_claim`` is the same function, after loading ``--dpverify-load`` files).

``assert_pair_dp(mech, h, h_prime, eps, delta)`` checks one pair exactly and
is meant for hypothesis::

    from hypothesis import given
    from dpverify.testing import assert_pair_dp, neighbouring_pairs

    @given(neighbouring_pairs(max_d=4, max_count=3))
    def test_em_is_private(pair):
        assert_pair_dp(ExponentialMechanism(1), *pair, eps=1)

Strategies shrink towards few items and zero counts, so a failure is reported
on a minimal histogram pair.  ``hypothesis`` is imported only when a strategy
is requested.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping, NamedTuple, Sequence

import mpmath

from mechanisms import validation as V
from mechanisms.registry import MechanismSpec, all_mechanisms, get_mechanism

from dpverify.auditor.stats import DEFAULT_ALPHA, DEFAULT_SEED
from dpverify.checker.neighbours import parse_relation, relation_for
from dpverify.checker.numbers import short_num

__all__ = [
    "DEFAULT_ASSERT_DOMAIN",
    "DEFAULT_ASSERT_SAMPLES",
    "assert_dp",
    "assert_claim",
    "ClaimResult",
    "describe_check",
    "describe_search",
    "assert_pair_dp",
    "histograms",
    "neighbouring_pairs",
    "mechanism_params",
    "eps_values",
    "registered_mechanisms",
]

#: Domain ``(d, max_count)`` used by :func:`assert_dp` when none is given.
DEFAULT_ASSERT_DOMAIN = (3, 2)

#: Per-input sample budget of a statistical :func:`assert_dp` (kept small for CI).
DEFAULT_ASSERT_SAMPLES = 20_000


def _resolve(obj: Any, params: Mapping[str, Any] | None) -> tuple[Any, MechanismSpec | None]:
    if isinstance(obj, str) and ":" not in obj:
        obj = get_mechanism(obj)
    if isinstance(obj, MechanismSpec):
        p = dict(params) if params is not None else dict(obj.valid[0])
        return obj.factory(**p), obj
    return obj, None


def assert_dp(
    obj: Any,
    eps: Any = None,
    delta: Any = None,
    relation: str | None = None,
    domain: tuple[int, int] | None = None,
    *,
    params: Mapping[str, Any] | None = None,
    inputs: Sequence[Sequence[int]] | None = None,
    exact: bool | None = None,
    samples: int = DEFAULT_ASSERT_SAMPLES,
    seed: int = DEFAULT_SEED,
    alpha: float = DEFAULT_ALPHA,
    allow_inconclusive: bool = False,
) -> Any:
    """Assert that ``obj`` is ``(eps, delta)``-DP under ``relation`` (see the module docstring).

    ``eps``/``delta``/``relation`` default to the registry claim when ``obj`` is
    a registered mechanism (name or ``MechanismSpec``); ``delta`` defaults to 0
    otherwise.  ``domain=(d, max_count)`` defaults to the first registry
    example's length (else 3) with counts up to 2.  ``exact=False`` forces the
    statistical path.  Returns the ``CheckResult`` / ``AuditResult``.
    """
    mech, spec = _resolve(obj, params)
    p = dict(params) if params is not None else (dict(spec.valid[0]) if spec else {})
    if spec is not None and spec.claim is not None:
        c_eps, c_delta = spec.claim(p)
        eps = c_eps if eps is None else eps
        delta = c_delta if delta is None else delta
    if eps is None:
        raise TypeError("assert_dp() needs eps= (no registered claim to take it from)")
    eps = V.positive("eps", eps)
    delta = V.probability("delta", 0 if delta is None else delta, allow_zero=True)
    relation = relation_for(relation or (spec.relation if spec else "add-remove"), p, mech)
    if domain is None:
        d = len(spec.examples[0]) if spec and spec.examples else DEFAULT_ASSERT_DOMAIN[0]
        domain = (d, DEFAULT_ASSERT_DOMAIN[1])
    use_exact = hasattr(mech, "distribution") if exact is None else exact
    if use_exact:
        return _assert_exact(mech, eps, delta, relation, domain, inputs)
    from dpverify.auditor.core import audit

    res = audit(mech, eps=eps, delta=delta, relation=relation, inputs=inputs, domain=None if inputs else domain,
                samples=samples, seed=seed, alpha=alpha)
    if res.verdict == "FAIL" or (res.verdict == "INCONCLUSIVE" and not allow_inconclusive):
        raise AssertionError(f"not ({eps}, {delta})-DP under {relation}:\n{res.summary()}")
    return res


def _assert_exact(mech: Any, eps: Any, delta: Any, relation: str, domain: tuple[int, int], inputs: Any) -> Any:
    from proofs.claims import Domain, Instance, PrivacyClaim

    from dpverify.checker.core import check
    from dpverify.checker.neighbours import is_neighbour

    dom = Domain(d=V.pos_int("d", domain[0]), max_count=V.nonneg_int("max_count", domain[1]), relation=relation, params=({},))
    claim = PrivacyClaim(
        id="assert_dp", title=f"{mech!r} is ({eps}, {delta})-DP", source="dpverify.testing.assert_dp",
        statement="", code=repr(mech), relation=relation, domain=dom,
        mechanism=lambda _p: mech, points=lambda _p: [(eps, delta)],
    )
    insts = None
    if inputs:
        hs = [V.histogram(h, f"inputs[{i}]") for i, h in enumerate(inputs)]
        insts = [Instance(a, b, {}) for i, a in enumerate(hs) for b in hs[i + 1:] if is_neighbour(a, b, relation)]
    res = check(claim, dom, instances=insts)
    if res.verdict == "violated":
        assert res.worst is not None  # a violation always has its witness
        w = res.worst.as_json()
        raise AssertionError(
            f"{mech!r} is not ({eps}, {delta})-DP under {relation}: h={w['h']} h'={w['h_prime']}: "
            f"{w['label']}: {short_num(w['lhs'], 12)} {w['op']} {short_num(w['rhs'], 12)}; event {w['event'][:6]} "
            f"P={short_num(w['p_event'], 12)} Q={short_num(w['q_event'], 12)}"
        )
    return res


class ClaimResult(NamedTuple):
    """What :func:`assert_claim` ran: the exhaustive check and, if asked, the worst-case search."""

    check: Any
    search: Any = None


def _instance_text(w: dict) -> str:
    where = f"h={w['h']}" + (f" h'={w['h_prime']}" if w.get("h_prime") is not None else "")
    params = ", ".join(f"{k}={v}" for k, v in (w.get("params") or {}).items())
    text = (f"{where} params={{{params}}}: {w['label'] or 'comparison'}: {short_num(w['lhs'], 12)} {w['op']} "
            f"{short_num(w['rhs'], 12)} (margin {short_num(w['margin'], 6)})")
    if w.get("event"):
        text += (f"; event ({w.get('direction')}) {w['event'][:6]}: P={short_num(w['p_event'], 12)} "
                 f"Q={short_num(w['q_event'], 12)}")
    return text


def describe_check(res: Any, expected: str | None = None) -> str:
    """A check result with its coverage: verdict, domain, pairs enumerated, instances, certified, tightest instance."""
    j = res.as_json()
    lines = [f"{j['claim']}: {j['verdict']} (expected {expected or j['expected']}); certified: "
             f"{'yes' if j['certified'] else 'no'}"
             + (", tight (bound attained up to the working precision)" if j["tight"] else ""),
             f"  domain: {j['domain']}", f"  pairs enumerated: {j['coverage'] or '-'}; {j['pairs_checked']} instances checked"]
    if j["worst"]:
        lines.append(f"  tightest instance: {_instance_text(j['worst'])}")
    if j["reason"]:
        lines.append(f"  reason: {j['reason']}")
    return "\n".join(lines)


def describe_search(res: Any) -> str:
    """A search result with its coverage: verdict, searched space, evaluations, certified, best instance."""
    j = res.as_json()
    lines = [f"  search: {j['verdict']}; certified: {'yes' if j['certified'] else 'no'}; {j['evaluations']} evaluations",
             f"    searched space: {j['space']}"]
    if j["best"]:
        lines.append(f"    tightest instance found: {_instance_text(j['best'])}")
    if j["reason"]:
        lines.append(f"    reason: {j['reason']}")
    return "\n".join(lines)


def assert_claim(
    claim: Any,
    domain: Any = None,
    *,
    expected: str | None = None,
    certify: bool = True,
    search: bool = False,
    evals: int = 200,
    grid: str | None = "quick",
    max_d: int = 8,
    max_count: int = 10_000,
    seed: int = 0,
    budget: float = 600.0,
    force: bool = False,
) -> ClaimResult:
    """Assert that a claim's verdict is the expected one (module docstring); returns a :class:`ClaimResult`.

    ``claim``: a claim id, a registered mechanism name (its claim), a ``Claim`` object or what
    :func:`dpverify.byo.register` / ``register_lemma`` returned.  ``domain``: ``(d, max_count)`` or a
    ``Domain`` (default: the claim's own).  ``expected``: default the claim's own (``"holds"`` for a
    researcher's entry unless registered otherwise).  ``certify`` (default): every comparison decided in
    interval arithmetic.  ``budget`` / ``force``: the guard of ``dpverify check`` (:func:`dpverify.checker.cost.guard_domain`:
    the claim's own domains always run; a wider domain estimated above ``budget`` seconds raises
    ``DomainTooLarge`` unless ``force``).  ``search``: also run the worst-case search (``evals``, ``grid``, ``max_d``,
    ``max_count``, ``seed`` as :func:`dpverify.search.search`).  Fails on any other verdict, on a
    ``skipped`` or ``inconclusive`` one (nothing is passed silently), and when the search refutes a claim
    expected to hold; the message says what each verdict covers.
    """
    from dpverify.checker.core import check
    from dpverify.checker.cost import guard_domain

    obj = _claim_of(claim)
    domain = _domain_of(obj, domain)
    want = expected or obj.expected
    guard_domain(obj, domain if domain is not None else obj.domain, budget_seconds=budget, force=force)  # as `dpverify check`
    res = check(obj, domain, certify=certify)
    text = describe_check(res, want)
    bad = res.verdict != want
    sres = None
    if search:
        from dpverify.search import search as run_search

        sres = run_search(obj, grid=grid, max_d=max_d, max_count=max_count, evals=evals, seed=seed)
        text += "\n" + describe_search(sres)
        if sres.verdict in ("skipped", "inconclusive", "error") or (sres.verdict == "violated" and want == "holds"):
            bad = True
    if bad:
        raise AssertionError(f"{obj.id}: a verdict is not the expected one ({want})\n{text}")
    return ClaimResult(res, sres)


def _claim_of(claim: Any) -> Any:
    """The ``Claim`` that ``assert_claim``'s argument names: a claim id, a registered mechanism name (its researcher's
    claim ``BYO.name`` if registered, else its registry claim), a ``Claim`` or what ``dpverify.byo`` returned."""
    from proofs.claims import Claim
    from proofs.registry import all_claims, get_claim

    obj = getattr(claim, "claim", claim)
    if isinstance(obj, str):
        if obj not in all_claims() and obj in all_mechanisms():
            byo = f"BYO.{obj}"
            if byo in all_claims():
                obj = byo
            else:
                from dpverify.checker.spec_claims import spec_claim

                obj = spec_claim(get_mechanism(obj))
        obj = get_claim(obj) if isinstance(obj, str) else obj
    if not isinstance(obj, Claim):
        raise TypeError(f"assert_claim() needs a claim id, a registered mechanism name or a Claim, not {claim!r}")
    return obj


def _domain_of(claim: Any, domain: Any) -> Any:
    """``domain`` as a ``Domain``: None (the claim's own), a ``Domain``, or ``(d, max_count)`` on the claim's domain."""
    from dataclasses import replace as dc_replace

    from proofs.claims import Domain

    if domain is None or isinstance(domain, Domain):
        return domain
    d, m = domain
    return dc_replace(claim.domain, d=V.pos_int("d", d), max_count=V.nonneg_int("max_count", m))


def assert_pair_dp(mech: Any, h: Sequence[int], h_prime: Sequence[int], eps: Any, delta: Any = 0, *, prec: int = 128) -> None:
    """Exact: ``Pr[M(a) in S] <= e^eps Pr[M(b) in S] + delta`` for every S, both directions, on one pair."""
    from dpverify.auditor.events import call_distribution
    from dpverify.checker.profile import pair_profile, pure_eps

    hh, gg = V.histogram(h), V.histogram(h_prime, "h_prime")
    eps_r, delta_r = V.positive("eps", eps), V.probability("delta", delta, allow_zero=True)
    with mpmath.mp.workprec(prec):
        P, Q = call_distribution(mech, hh, prec), call_distribution(mech, gg, prec)
        tol = mpmath.mpf(2) ** (40 - prec)  # rounding allowance of a prec-bit evaluation
        if delta_r == 0:
            pe, arg, direction = pure_eps(P, Q)
            if pe > _mp(eps_r) + tol:
                raise AssertionError(
                    f"{mech!r}: h={list(hh)} h'={list(gg)}: max |ln P/Q| = {mpmath.nstr(pe, 10)} > eps={eps} "
                    f"at outcome {arg} ({direction})"
                )
            return
        pp = pair_profile(P, Q, eps_r)
        if pp.delta > _mp(delta_r) + tol:
            raise AssertionError(
                f"{mech!r}: h={list(hh)} h'={list(gg)}: delta({eps}) = {mpmath.nstr(pp.delta, 10)} > {delta} "
                f"({pp.direction}, event {pp.event[:6]})"
            )


def _mp(x: Any) -> Any:
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


# ----------------------------------------------------------------- hypothesis strategies
def _st():
    try:
        from hypothesis import strategies as st
    except ImportError as exc:  # pragma: no cover - hypothesis is a test extra
        raise ImportError("dpverify.testing strategies need hypothesis (pip install hypothesis)") from exc
    return st


def histograms(d: int | None = None, *, min_d: int = 1, max_d: int = 5, max_count: int = 5):
    """Histograms (tuples of ints in ``0..max_count``) of length ``d`` or ``min_d..max_d``; shrink to short, zero."""
    st = _st()
    counts = st.integers(0, V.nonneg_int("max_count", max_count))
    if d is not None:
        d = V.pos_int("d", d)
        return st.lists(counts, min_size=d, max_size=d).map(tuple)
    return st.lists(counts, min_size=V.pos_int("min_d", min_d), max_size=V.pos_int("max_d", max_d)).map(tuple)


def neighbouring_pairs(relation: str = "add-remove", d: int | None = None, *, min_d: int = 1, max_d: int = 5, max_count: int = 5):
    """Pairs ``(h, h')`` neighbouring under ``relation`` (``dpverify.checker.neighbours``), in either order.

    Built as ``h`` (counts ``0..max_count``) and a move: a non-empty set of
    coordinates (at most N for ``delta:N``) raised by one (``h'`` may then
    reach ``max_count + 1``), or for ``linf`` a sign per moved coordinate.
    Shrinks towards small d, zero counts, a single moved coordinate and the
    orientation ``h' = h + e``.
    """
    st = _st()
    kind, cap = parse_relation(relation)

    @st.composite
    def build(draw):
        h = list(draw(histograms(d, min_d=min_d, max_d=max_d, max_count=max_count)))
        n = len(h)
        limit = n if kind != "delta" else min(cap, n)
        moved = sorted(draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=limit)))
        if kind == "linf":
            signs = [draw(st.sampled_from((1, -1))) for _ in moved]
            a = list(h)
            for i, s in zip(moved, signs, strict=True):
                if s < 0 and a[i] == 0:
                    a[i] = 1  # keep counts non-negative: lift the base instead of going below 0
            b = list(a)
            for i, s in zip(moved, signs, strict=True):
                b[i] += s
        else:
            a, b = list(h), list(h)
            for i in moved:
                b[i] += 1
        pair = (tuple(a), tuple(b))
        return pair[::-1] if draw(st.booleans()) else pair

    return build()


def mechanism_params(spec: MechanismSpec | str, **overrides: Any):
    """Parameter dicts of a registered mechanism: its ``valid`` dicts (shrinking to the first), with
    any key replaced by a draw from the strategy given for it, e.g.
    ``mechanism_params("peeling-em", eps=eps_values(), k=st.integers(1, 3))``."""
    st = _st()
    if isinstance(spec, str):
        spec = get_mechanism(spec)
    base = st.sampled_from([dict(p) for p in spec.valid])
    if not overrides:
        return base
    return st.tuples(base, st.fixed_dictionaries(overrides)).map(lambda t: {**t[0], **t[1]})


def eps_values(min_value: Any = Fraction(1, 10), max_value: Any = 3, max_denominator: int = 20):
    """Exact positive rationals in ``[min_value, max_value]`` (Fractions; shrink towards ``min_value``)."""
    st = _st()
    lo, hi = Fraction(V.positive("min_value", min_value)), Fraction(V.positive("max_value", max_value))
    return st.fractions(min_value=lo, max_value=hi, max_denominator=max_denominator)


def registered_mechanisms(*, mutants: bool = False, with_claim: bool = True):
    """``(spec, params)`` pairs over the registry (correct mechanisms, or mutants if ``mutants``)."""
    st = _st()
    specs = [s for s in all_mechanisms().values() if bool(s.mutant) == mutants and (s.claim is not None or not with_claim)]
    return st.sampled_from(specs).flatmap(lambda s: st.tuples(st.just(s), mechanism_params(s)))
