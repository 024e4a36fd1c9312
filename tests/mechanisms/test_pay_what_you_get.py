"""Pay-what-you-get sessions (DR19 Algorithm 2): accounting, refusal before reading data, exact
transcript laws against brute force and against simulated sessions (with power tests)."""

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from mechanisms.core import BOT
from mechanisms.errors import BudgetExceeded, InvalidParameter, InvalidParameterType
from mechanisms.limited_domain import LimitDom
from mechanisms.pay_what_you_get import (
    MultiLimitDom,
    MultiLimitDomSession,
    charge_of,
    eq3_eps,
    theorem2_guarantee,
)
from mechanisms.pay_what_you_get.pmultilem import PMultiLEM, common_domain, multilimitdom_side
from mechanisms.pay_what_you_get.strategies import STRATEGIES, Fixed, GreedyK, ReaskOnBot, Step, View

from dpverify.auditor.stats import goodness_of_fit

#: Sessions simulated per statistical test.
N_SESSIONS = 3000
#: Level of each goodness-of-fit test (four fit tests + four power tests in this file).
LEVEL = 0.001
SEED = 7031


class Poison:
    """A 'histogram' that fails the test if anything reads it (len, iteration, indexing, numpy)."""

    def _boom(self, *a, **k):
        raise AssertionError("the histogram was read")

    __len__ = __iter__ = __getitem__ = __array__ = _boom


def counts_of(draws):
    out = {}
    for t in draws:
        out[t] = out.get(t, 0) + 1
    return out


# ----------------------------------------------------------------------------- accounting


def test_charge_counts_bot_as_one_element():
    assert charge_of((2, 0)) == 2
    assert charge_of((2, BOT)) == 2
    assert charge_of((BOT,)) == 1
    assert charge_of((3, (1, BOT))) == 3  # an Algorithm 6 round pays |o_i| + 1 (footnote 6)
    assert charge_of((BOT,), "indices-only") == 0  # the mutant
    with pytest.raises(InvalidParameter, match="charge='x' must be one of"):
        charge_of((1,), "x")


def test_session_charges_what_algorithm_2_says():
    s = MultiLimitDomSession(5, 3, eps=1, delta="0.01")
    rng = np.random.default_rng(SEED)
    used = 0
    for _ in range(2):
        o = s.query([40, 30, 20, 1, 0], k=2, kbar=3, rng=rng)
        used += len(o)
        assert s.k_remaining == 5 - used and s.transcript[-1] == o
    assert s.spent() == {"k_used": used, "l_used": 2, "k_remaining": 5 - used, "l_remaining": 1}


def test_bot_answers_cost_one_and_close_the_session():
    # flat histogram: ⊥ first is (almost) certain; each ⊥ costs 1 of k*
    s = MultiLimitDomSession(2, 5, eps=1, delta=F(1, 10**6))
    rng = np.random.default_rng(SEED)
    assert s.query([1, 1, 1, 1], 1, 2, rng=rng) == (BOT,)
    assert s.query([1, 1, 1, 1], 1, 2, rng=rng) == (BOT,)
    assert s.closed and s.k_remaining == 0 and s.l_remaining == 3
    with pytest.raises(BudgetExceeded, match="session closed"):
        s.query([1, 1, 1, 1], 1, 2, rng=rng)


def test_refusal_happens_before_the_data_is_read():
    s = MultiLimitDomSession(3, 2, eps=1, delta="0.1")
    rng = np.random.default_rng(SEED)
    with pytest.raises(BudgetExceeded, match="k=4 exceeds the remaining index budget k\\*=3"):
        s.query(Poison(), k=4, kbar=4, rng=rng)
    with pytest.raises(InvalidParameter, match="k=3 must be <= kbar=2"):
        s.query(Poison(), k=3, kbar=2, rng=rng)
    with pytest.raises(InvalidParameterType, match="rng=1 must be a numpy.random.Generator"):
        s.query(Poison(), k=1, kbar=2, rng=1)
    assert s.transcript == () and (s.k_remaining, s.l_remaining) == (3, 2)  # nothing charged
    s.query([9, 0, 0], 1, 1, rng=rng)
    s.query([9, 0, 0], 1, 1, rng=rng)
    with pytest.raises(BudgetExceeded, match="session closed"):  # l* exhausted
        s.query(Poison(), k=1, kbar=1, rng=rng)


def test_refusal_test_can_fail():
    """Power of the Poison probe: a query that is paid for does read the histogram."""
    with pytest.raises(AssertionError, match="histogram was read"):
        MultiLimitDomSession(3, 2, eps=1, delta="0.1").query(Poison(), k=1, kbar=1, rng=np.random.default_rng(0))


def test_algorithm_6_rounds_pay_one_more():
    s = MultiLimitDomSession(3, 2, eps=1, delta="0.01")
    kbar, o = s.query_optimal([30, 20, 2, 1], k=2, dbar=3, rng=np.random.default_rng(SEED))
    assert 2 <= kbar <= 3 and s.k_remaining == 3 - (len(o) + 1)
    with pytest.raises(BudgetExceeded):
        s.query_optimal(Poison(), k=4, dbar=4, rng=np.random.default_rng(0))


def test_guarantee_is_theorem_2():
    s = MultiLimitDomSession(3, 2, eps=1, delta=F(1, 100))
    eps0, d0 = s.guarantee(0)
    assert eps0 == 3 and d0 == F(4, 100)
    e, d = s.guarantee(F(1, 10))
    with mpmath.workprec(256):
        L = mpmath.log(10)
        want = min(3, 3 * (mpmath.e - 1) / (mpmath.e + 1) + mpmath.sqrt(6 * L), mpmath.mpf(3) / 2 + mpmath.sqrt(1.5 * L))
        assert abs(e - want) < mpmath.mpf(10) ** -60
    assert d == F(4, 100) + F(1, 10)
    iv = eq3_eps(3, 1, F(1, 10), interval=True)
    assert iv.a <= e <= iv.b
    assert theorem2_guarantee(3, 2, 1, F(1, 100))[1] == F(4, 100)


@pytest.mark.parametrize("kw,exc,msg", [
    ({"k_star": 0}, InvalidParameter, "k_star=0 must be >= 1"),
    ({"l_star": -1}, InvalidParameter, "l_star=-1 must be >= 1"),
    ({"eps": 0}, InvalidParameter, "eps=0 must be > 0"),
    ({"delta": 1}, InvalidParameter, "delta=1 must be in (0, 1)"),
    ({"Delta": 0}, InvalidParameter, "Delta=0 must be >= 1"),
    ({"charge": "free"}, InvalidParameter, "charge='free' must be one of"),
])
def test_bad_session_parameters(kw, exc, msg):
    base = {"k_star": 2, "l_star": 2, "eps": 1, "delta": "0.1"}
    base.update(kw)
    k, ls, e, d = (base.pop(x) for x in ("k_star", "l_star", "eps", "delta"))
    with pytest.raises(exc, match=msg.replace("(", "\\(").replace(")", "\\)")):
        MultiLimitDomSession(k, ls, e, d, **base)


def test_session_budgets_are_normalised_to_python_ints():
    """k_star / l_star given as numpy integers are stored as Python ints (as the ledger's parameter dicts give them)."""
    m = MultiLimitDom(np.int64(2), np.int64(3), 1, "0.1")
    assert type(m.k_star) is int and m.k_star == 2
    assert type(m.l_star) is int and m.l_star == 3


def test_run_stops_on_refusal_and_on_strategy():
    s = MultiLimitDomSession(3, 5, eps=1, delta="0.1")
    t = s.run(Fixed(2, 2), [9, 5, 0], rng=np.random.default_rng(SEED))
    assert 1 <= len(t) <= 3 and sum(map(len, t)) <= 3
    assert not s.can_pay(2) or s.closed or len(t) == 5


# ----------------------------------------------------------------------------- exact laws


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_transcript_law_sums_to_one_and_respects_budgets(name):
    if name.startswith("alg6"):
        m = MultiLimitDom(4, 2, 1, F(1, 10), name, algorithm="alg6")
    else:
        m = MultiLimitDom(3, 3, 1, F(1, 10), name)
    for h in ((2, 1, 0), (0, 0, 0), (2, 2, 1)):
        D = m.distribution(h)
        with mpmath.workprec(256):
            assert abs(sum(D.values()) - 1) < mpmath.mpf(10) ** -60
        assert all(p > 0 for p in D.values())
        assert all(sum(charge_of(o) for o in t) <= m.k_star and len(t) <= m.l_star for t in D)


def test_transcript_law_is_the_product_of_round_laws():
    """Brute force: two rounds of LimitDom^{1,2} with a histogram switch after item 0."""
    strat = STRATEGIES["switch"]
    h = (2, 1, 0)
    D = MultiLimitDom(2, 2, 1, F(1, 10), strat).distribution(h)
    first = LimitDom(1, 1, 1, F(1, 10)).distribution(strat(()).view(h))
    want = {}
    with mpmath.workprec(256):
        for o1, p1 in first.items():
            step = strat((o1,))
            for o2, p2 in LimitDom(step.k, step.kbar, 1, F(1, 10)).distribution(step.view(h)).items():
                want[(o1, o2)] = p1 * p2
        assert set(D) == set(want)
        assert all(abs(D[t] - want[t]) < mpmath.mpf(10) ** -60 for t in D)


def test_refused_request_ends_the_transcript():
    # k*=3, every round asks k=2: after a 2-element answer only 1 is left -> the next request is refused
    D = MultiLimitDom(3, 3, 1, F(1, 10), Fixed(2, 2)).distribution((5, 4, 0))
    for t in D:
        assert len(t) == 1 or charge_of(t[0]) == 1


def test_pmultilem_equals_multilimitdom_on_equal_histograms():
    # with h0 = h1 the common domain is each side's domain: Algorithm 7 is Algorithm 2 (Lemma 5.4 per round)
    dev = PMultiLEM(3, 2, 1, F(1, 10), "peel-off", b=0)
    h = (2, 1, 1)
    A, B = dev.distribution_on(h, h), multilimitdom_side(dev, h, h)
    assert set(A) == set(B) and all(abs(A[o] - B[o]) < mpmath.mpf(10) ** -60 for o in A)
    assert common_domain((2, 1, 0), (2, 0, 1), 2) == (0,)


def test_views_preserve_neighbours():
    from dpverify.checker.neighbours import is_neighbour, pairs

    views = [View(), View(select=(2, 0)), View(zero=(1,)), View(reflect=3), View(shift=(4, 0, 1)),
             View(select=(1, 2, 0), reflect=2, shift=(0, 1, 0))]
    for rel in ("add-remove", "delta:1", "linf"):
        for h, g in pairs(3, 2, rel):
            for v in views:
                a, b = v(h), v(g)
                assert a == b or is_neighbour(a, b, rel), (rel, h, g, v)


# ----------------------------------------------------------------------------- statistics


def _sessions(h, strategy, *, charge="alg2", eps=1, delta=F(1, 10), k_star=2, l_star=3, n=N_SESSIONS, seed=SEED):
    rng = np.random.default_rng(seed)
    return [MultiLimitDomSession(k_star, l_star, eps, delta, charge=charge).run(strategy, h, rng=rng) for _ in range(n)]


CASE = dict(h=(4, 1, 0), strategy=ReaskOnBot(1, 2))


def _law(**kw):
    law = MultiLimitDom(2, 3, kw.get("eps", 1), F(1, 10), CASE["strategy"]).distribution(CASE["h"])
    return {t: float(p) for t, p in law.items()}


def test_simulated_sessions_fit_the_exact_transcript_law():
    fit = goodness_of_fit(counts_of(_sessions(**CASE)), _law())
    assert fit.p_value >= LEVEL, fit.as_json()


def test_power_against_a_bot_free_accountant():
    fit = goodness_of_fit(counts_of(_sessions(**CASE, charge="indices-only")), _law())
    assert fit.p_value < LEVEL


def test_power_against_a_wrong_noise_scale():
    """Same support, different probabilities: sessions run with eps=1/2 against the eps=1 law."""
    fit = goodness_of_fit(counts_of(_sessions(**CASE, eps=F(1, 2))), _law())
    assert not fit.impossible and fit.p_value < LEVEL


def test_grouped_sampler_fits_and_pmultilem_sampler_fits():
    m = MultiLimitDom(3, 3, 1, F(1, 10), "greedy-k")
    h = (3, 1, 0)
    law = {t: float(p) for t, p in m.distribution(h).items()}
    assert goodness_of_fit(counts_of(m.sample(h, rng=np.random.default_rng(SEED), size=N_SESSIONS)), law).p_value >= LEVEL
    dev = PMultiLEM(3, 2, 1, F(1, 10), "peel-off", b=1)
    h0, h1 = (2, 1, 0), (2, 1, 1)
    law = {t: float(p) for t, p in dev.distribution_on(h0, h1).items()}
    draws = dev.sample_on(h0, h1, rng=np.random.default_rng(SEED), size=N_SESSIONS)
    assert goodness_of_fit(counts_of(draws), law).p_value >= LEVEL
    wrong = PMultiLEM(3, 2, 1, F(1, 10), "peel-off", b=0).sample_on(h0, h1, rng=np.random.default_rng(SEED), size=N_SESSIONS)
    assert goodness_of_fit(counts_of(wrong), law).p_value < LEVEL  # power: the other side's law is told apart


def test_doc_example_runs():
    import doctest

    import mechanisms.pay_what_you_get.session as M

    assert doctest.testmod(M).failed == 0


def test_step_and_greedy_strategy():
    g = GreedyK(2, 3)
    assert g(()) == Step(View(), 2, 2)
    assert g(((0, 1),)) == Step(View(), 1, 2)
    assert g(((0, 1), (BOT,))) is None


# ---- mutation testing: mechanisms/pay_what_you_get/session.py -----------------------------------------------


def test_session_registry_rebuilt_at_test_time_keeps_its_contract():
    """``_registry`` runs at import (REGISTRY); rebuilt here so that its cases are checked as written."""
    from mechanisms.pay_what_you_get.session import MultiLimitDom, _registry

    specs = {s.name: s for s in _registry()}
    assert set(specs) == {"multi-limit-dom", "multi-limit-dom-bot-free"}
    main = specs["multi-limit-dom"]
    assert main.factory is MultiLimitDom
    base = {"k_star": 2, "l_star": 2, "eps": 1, "delta": "0.1"}
    assert [p["strategy"] for p in main.valid] == ["fixed-k1", "reask-on-bot", "peel-off", "switch", "greedy-k", "adaptive-kbar"]
    assert all({k: v for k, v in p.items() if k != "strategy"} == base for p in main.valid[:5])
    assert main.valid[5] == {**base, "k_star": 3, "l_star": 3, "strategy": "adaptive-kbar"}
    assert len(main.invalid) == 7
    for params, exc, needle in main.invalid:
        assert set(params) - set(base) <= {"Delta", "strategy", "charge"}
        with pytest.raises(exc) as info:
            main.factory(**params)
        assert needle in str(info.value), (params, str(info.value))
    free = specs["multi-limit-dom-bot-free"]
    assert free.examples == ((0, 0, 0), (0, 0, 1), (1, 0, 0))
    assert free.valid[1] == {**base, "k_star": 1, "l_star": 3, "strategy": "reask-on-bot"}
    for spec in specs.values():
        for p in spec.valid:
            spec.factory(**p)
            eps, delta = spec.claim(p)
            assert delta == 2 * p["l_star"] * F(p["delta"]) and eps > 0


def test_session_guarantee_helpers_and_round_mechanisms():
    from mechanisms.pay_what_you_get.session import MultiLimitDom, eq3_eps, theorem2_guarantee

    with pytest.raises(InvalidParameter, match=r"^delta_prime=2 must be in \[0, 1\)"):
        eq3_eps(2, 1, 2)
    eps, _ = theorem2_guarantee(2, 2, 1, "0.1", "0.01", interval=True)
    assert isinstance(eps, mpmath.iv.mpf) and eps.a <= eq3_eps(2, 1, "0.01") <= eps.b
    assert MultiLimitDom(2, 2, 1, "0.1", algorithm="alg6-literal").round_mechanism(2, 3).literal is True
    assert MultiLimitDom(2, 2, 1, "0.1", algorithm="alg6").round_mechanism(2, 3).literal is False
    s = MultiLimitDomSession(3, 5, eps=1, delta="0.1")
    t = s.run("fixed-k1", [9, 5, 0], rng=np.random.default_rng(SEED))  # a strategy given by its name
    assert len(t) >= 1


def test_pmultilem_names_each_side_and_draws_one_transcript_by_default():
    from mechanisms.errors import InvalidHistogram

    dev = PMultiLEM(3, 2, 1, F(1, 10), "peel-off", b=0)
    with pytest.raises(InvalidHistogram, match=r"^h0="):
        dev.distribution_on("bad", (1, 0))
    with pytest.raises(InvalidHistogram, match=r"^h1="):
        dev.distribution_on((1, 0), "bad")
    assert len(dev.sample_on((3, 1, 0), (3, 1, 1), rng=np.random.default_rng(SEED))) == 1


# ---- mutation testing: mechanisms/pay_what_you_get/strategies.py --------------------------------------------


def test_strategy_catalogue_rebuilt_at_test_time_asks_what_its_comments_say():
    """``_catalogue`` runs at import (STRATEGIES); rebuilt here and replayed on h = (1, 2, 3) and short transcripts."""
    from mechanisms.pay_what_you_get.strategies import _catalogue

    cat = _catalogue()
    assert cat == STRATEGIES and all(s.name == key for key, s in cat.items())
    h, b = (1, 2, 3), (BOT,)

    def ask(name, t=()):
        step = cat[name](t)
        return None if step is None else (step.view(h), step.k, step.kbar)

    want = {  # name: [(transcript, (view(h), k, kbar) or None), ...]
        "fixed-k1": [((), (h, 1, 1))],
        "fixed-k2": [((), (h, 2, 2))],
        "fixed-k2-kbar3": [((), (h, 2, 3))],
        "alg6-fixed": [((), (h, 2, 3))],                                    # Algorithm 6 rounds: k = 2, dbar = 3
        "alg6-greedy": [((), (h, 3, 3)), (((0,),), (h, 3, 3)), (((3, (0, 1)),), None)],  # k* = 4, stops below 2
        "reask-on-bot": [((), (h, 1, 2)), ((b,), (h, 1, 2)), (((0,),), None)],
        "reask-shifted": [((), ((4, 2, 3), 2, 2)), ((b,), ((4, 2, 3), 2, 2))],
        "reask-far": [((), ((9, 2, 3), 1, 1)), ((b,), ((9, 2, 3), 1, 1)), (((0,),), None)],
        "far-k1": [((), ((8, 2, 3), 1, 1))],
        "peel-off": [((), (h, 1, 2)), (((2,), (0, BOT)), ((0, 2, 0), 1, 2))],
        "adaptive-kbar": [((), (h, 1, 1)), ((b,), (h, 1, 2)), ((b, (0,), b), (h, 1, 1))],
        "switch": [((), (h, 1, 1)), (((0,),), ((2, 3, 1), 1, 1)), (((1,),), ((5, 1, 2), 1, 1)),
                   (((2,),), ((2, 3, 1), 1, 1)), ((b,), ((2, 1, 0), 1, 1))],
        "greedy-k": [((), (h, 2, 2)), (((0, 1),), (h, 1, 2)), (((0, 1), b), None)],
        "project": [((), ((3, 1), 1, 1))],
    }
    assert set(want) == set(cat)
    for name, rows in want.items():
        for t, expected in rows:
            assert ask(name, t) == expected, (name, t)


def test_fixed_strategy_stops_after_its_rounds_and_views_name_bad_parameters():
    f = Fixed(1, 1, rounds=2)
    assert f(((0,),)) == Step(View(), 1, 1) and f(((0,), (1,))) is None
    assert Fixed(1, 1)(((0,),) * 50) == Step(View(), 1, 1)
    with pytest.raises(InvalidParameter, match=r"^zero=-1 must be >= 0"):
        View(zero=(-1,))
    with pytest.raises(InvalidParameter, match=r"^reflect=-2 must be >= 0"):
        View(reflect=-2)
    assert View(zero=(1,), reflect=5)((1, 2, 3)) == (4, 5, 2)


# ---- mutation testing: mechanisms/pay_what_you_get/transcript.py --------------------------------------------


def test_every_accountant_on_plain_and_algorithm_6_rounds():
    from mechanisms.pay_what_you_get.transcript import CHARGES

    rounds = [(2, 0), (2, BOT), (BOT,), (3, (1, BOT)), (3, (0, 1)), (3, (BOT,))]
    want = {"alg2": [2, 2, 1, 3, 3, 2],
            "no-footnote6": [2, 2, 1, 2, 2, 1],       # Algorithm 6 rounds pay only |o_i|
            "indices-only": [2, 1, 0, 2, 3, 1]}       # ⊥ is free (footnote 6's +1 kept)
    assert set(want) == set(CHARGES)
    for rule, charges in want.items():
        assert [charge_of(o, rule) for o in rounds] == charges, rule
