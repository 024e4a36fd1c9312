"""A researcher's own mechanism, claims and lemmas in every command and in CI.

* claim kinds: (eps, delta) points and curves, pure eps, the ``notion`` keyword (refused by name on a ledger
  without notions, passed through unchanged on one with them), lemma obligations (certified only where the
  function evaluates in intervals or exactly);
* the worst-case search on lemmas: pairs and single histograms, with and without a mechanism's hints; it
  refutes a lemma that holds on the enumerated domain but not at larger gaps (power) and raises no false
  alarm on a true one;
* loading: ``--load`` and ``DPVERIFY_LOAD`` for check / search / profile; a user's failure is one line naming
  the file, the line and the exception (or the instance), exit 2, also from worker processes -- forked or
  spawned (``WORKER_SETUP``);
* a researcher's report written into its own folder only; ``assert_claim``'s failure message says what the
  verdict covers.
"""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest

from mechanisms.errors import InvalidParameter, UserCodeError

from proofs.claims import Comparison
from proofs.registry import CLAIM_REGISTRY, all_claims

from dpverify.byo import load, register, register_lemma, unload, unregister
from dpverify.cli import main

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "examples" / "rnm_geometric" / "rnm_geometric.py"


@pytest.fixture
def rnm(tmp_path):
    """The tutorial's file, loaded (its mechanism and entries registered) and forgotten afterwards."""
    f = tmp_path / "rnm_geometric.py"
    f.write_text(TUTORIAL.read_text(encoding="utf-8"), encoding="utf-8")
    load(str(f))
    import sys

    from dpverify.auditor.adapters import file_module_name

    yield sys.modules[file_module_name(f)]
    unload(str(f))
    assert "rnm-geometric" not in __import__("mechanisms.registry", fromlist=["x"]).all_mechanisms()
    assert not any(c.startswith("BYO.rnm-geometric") for c in all_claims())


def _forget(claim_id: str) -> None:
    """Remove a claim or lemma the test registered (nothing if its registration failed)."""
    if CLAIM_REGISTRY.is_user(claim_id):
        CLAIM_REGISTRY.unregister(claim_id)


# ------------------------------------------------------------------------------------------- the tutorial's law


def _geometric_cdf(t, a):
    """``P(Z <= t)`` for the two-sided geometric noise ``P(Z = z) = (1 - a)/(1 + a) a^|z|``."""
    return 1 - a ** (t + 1) / (1 + a) if t >= 0 else a ** (-t) / (1 + a)


def test_tutorial_law_matches_brute_force_and_its_intervals_enclose_it(rnm):
    """The closed form against the direct sum over noise values (truncated at a^80, ~1e-18 at eps = 1/2)."""
    rng = random.Random(22)
    with mpmath.mp.workprec(200):
        for _ in range(12):
            d = rng.randint(1, 4)
            h = tuple(rng.randint(0, 5) for _ in range(d))
            eps = rng.choice([Fraction(1, 2), 1, 2])
            mech = rnm.RNMGeometric(eps)
            law, box = mech.distribution(h, prec=200), mech.distribution(h, prec=200, interval=True)
            a = mpmath.exp(-mpmath.mpf(Fraction(eps).numerator) / Fraction(eps).denominator)
            c = (1 - a) / (1 + a)
            for i in range(d):
                others = [h[j] + (j < i) for j in range(d) if j != i]
                brute = mpmath.fsum(c * a ** abs(v - h[i]) * mpmath.fprod(_geometric_cdf(v - o, a) for o in others)
                                    for v in range(min(h) - 80, max(h) + 80))
                assert abs(law[(i,)] - brute) < mpmath.mpf(10) ** -15
                assert law[(i,)] in box[(i,)]
            assert abs(mpmath.fsum(law.values()) - 1) < mpmath.mpf(10) ** -50


# ------------------------------------------------------------------------------------------- claim kinds


class _Coin:
    """Item 0 with probability e^eps/(1+e^eps) when h0 > h1, else 1/(1+e^eps): eps-DP (exact laws in intervals)."""

    def __init__(self, eps=1):
        self.eps = eps

    def distribution(self, h, *, prec=256, interval=False):
        from mechanisms.core import exact_context, to_ctx

        with exact_context(prec, interval) as ctx:
            w = ctx.exp(to_ctx(ctx, self.eps))
            p = w / (1 + w) if h[0] > h[1] else 1 / (1 + w)
            return {(0,): p, (1,): 1 - p}


def test_claim_forms_points_curves_and_pure_eps():
    try:
        reg = register("byo-t-coin", _Coin, params={"eps": 1}, claim=[(2, 0), (Fraction(1, 2), Fraction(1, 4))],
                       examples=((1, 0),), domain=(2, 2))
        assert reg.claim.points({"eps": 1}) == [(2, 0), (Fraction(1, 2), Fraction(1, 4))]
        res = reg.check(certify=True)
        assert res.verdict == "violated"  # (1/2, 1/4) is false: delta(1/2) = (e-e^.5)/(1+e) = 0.288 > 1/4
        assert res.worst.eps == Fraction(1, 2) and res.certified
        reg = register("byo-t-coin", _Coin, params={"eps": 1}, claim=lambda p: (p["eps"], 0), examples=((1, 0),),
                       domain=(2, 2), replace=True)
        res = reg.check(certify=True)  # eps-DP attained exactly: holds, tight, so not certified (an equality)
        assert res.verdict == "holds" and res.tight and not res.certified and reg.spec.claim({"eps": 1}) == (1, 0)
        with pytest.raises(InvalidParameter, match=r"claim=\(1, 2, 3\) must be an \(eps, delta\) pair"):
            register("byo-t-coin2", _Coin, params={"eps": 1}, claim=(1, 2, 3), examples=((1, 0),))
        with pytest.raises(InvalidParameter, match=r"returned by the claim function at \{eps=1\}"):
            register("byo-t-coin2", _Coin, params={"eps": 1}, claim=lambda p: "one", examples=((1, 0),))
    finally:
        unregister("byo-t-coin")


def test_notion_keyword_reaches_the_ledger_and_is_checked():
    """notion= passes the values to the real PrivacyClaim (the ledger's claim notions), and the checker decides them: the coin
    is randomized response at eps = 1, whose KL limit eps tanh(eps/2) = 0.46 exceeds rho = 1/8 and stays below eps^2/2."""
    try:
        reg = register("byo-t-z", _Coin, params={"eps": 1}, claim=lambda p: Fraction(p["eps"]) ** 2 / 8, notion="zcdp",
                       examples=((1, 0),), domain=(2, 2))
        assert reg.claim.notion == "zcdp" and reg.claim.points({"eps": 1}) == [Fraction(1, 8)]
        assert reg.spec.claim is None  # no (eps, delta) point: audits then need --eps
        assert reg.check(certify=True).verdict == "violated"
        reg = register("byo-t-z", _Coin, params={"eps": 1}, claim=lambda p: Fraction(p["eps"]) ** 2 / 2, notion="zcdp",
                       examples=((1, 0),), domain=(2, 2), replace=True)
        assert reg.check(certify=True).verdict == "holds"
        reg = register("byo-t-z", _Coin, params={"eps": 1}, claim=[(2, Fraction(1, 4)), ("inf", 1)], notion="rdp",
                       examples=((1, 0),), domain=(2, 2), replace=True)
        assert reg.claim.notion == "rdp" and reg.claim.points({}) == [(2, Fraction(1, 4)), ("inf", 1)]
        with pytest.raises(InvalidParameter, match="notion='renyi' must be one of dp, br, zcdp, rdp"):
            register("byo-t-z2", _Coin, params={"eps": 1}, claim=1, notion="renyi", examples=((1, 0),))
        assert "byo-t-z2" not in __import__("mechanisms.registry", fromlist=["x"]).all_mechanisms()
    finally:
        unregister("byo-t-z")


def test_declared_symmetries_are_spot_checked(rnm):
    class Wrong(rnm.RNMGeometric):
        def symmetries(self, d):
            return frozenset({"shift", "permute-ties"})  # ties go to the smaller index: not permutation-invariant

    with pytest.raises(InvalidParameter, match=r"declares (symmetries \['permute-ties', 'shift'\] at d=\d, but its laws change"
                                               r"|a permutation symmetry, but its law on h=.* either the symmetry does not "
                                               r"hold)"):
        register("byo-t-wrong-sym", Wrong, params={"eps": 1}, claim=(1, 0))
    assert "BYO.byo-t-wrong-sym" not in all_claims()


def test_a_permutation_symmetry_needs_item_labelled_outcomes_or_a_relabel():
    """The checker computes a law once per sorted histogram and relabels the outcomes' item indices: a mechanism
    whose outcome is a count (here the largest count) passes the pair-signature check -- its laws are permutation
    invariant -- but would be mislabelled, so registration refuses it unless it brings relabel(outcome, items)."""
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class LargestCount:
        eps: int = 1

        def distribution(self, h, *, prec=64, interval=False):
            return {(max(h),): mpmath.mpf(1)}

        def sample(self, h, *, rng, size=1):
            return [(max(h),)] * size

        def symmetries(self, d):
            return frozenset({"permute"})

    with pytest.raises(InvalidParameter, match=r"declares a permutation symmetry, but its law on h=.* define relabel\(outcome, "
                                               r"items\)"):
        register("byo-t-count-out", LargestCount, params={"eps": 1}, claim=(1, 1))
    assert "BYO.byo-t-count-out" not in all_claims()

    @dataclass(frozen=True)
    class LargestCountRelabelled(LargestCount):
        def relabel(self, outcome, items):
            return outcome  # a count: no item to relabel

    try:
        reg = register("byo-t-count-out", LargestCountRelabelled, params={"eps": 1}, claim=(1, 1))
        assert reg.check(certify=True).verdict == "holds"
    finally:
        unregister("byo-t-count-out")


# ------------------------------------------------------------------------------------------- lemmas


def test_lemma_certified_only_with_interval_or_exact_values():
    def exact(inst):
        return Comparison(Fraction(sum(inst.h)), "<=", 3 * len(inst.h), label="sum <= 3d")

    def mp_only(inst):
        return [Comparison(mpmath.mpf(sum(inst.h)) / 3, "<=", len(inst.h), label="sum/3 <= d")]

    def interval(inst, *, prec, interval):
        from mechanisms.core import exact_context

        with exact_context(prec, interval) as ctx:
            return [Comparison(ctx.mpf(sum(inst.h)) / 3, "<=", len(inst.h), label="sum/3 <= d")]

    try:
        for name, fn, certified in (("exact", exact, True), ("mp", mp_only, False), ("iv", interval, True)):
            reg = register_lemma(f"t-lemma-{name}", fn, relation="none", domain=(2, 3))
            res = reg.check(certify=True)
            assert res.verdict == "holds" and res.certified is certified, (name, res)
            assert res.pairs_checked == 16 and res.coverage == "every histogram of the domain"
    finally:
        for name in ("exact", "mp", "iv"):
            _forget(f"BYO.t-lemma-{name}")


def test_lemma_failures_name_the_instance_and_the_line():
    def divides(inst):
        return Comparison(Fraction(inst.h[0], inst.h[1] - 2), "<=", 100)

    def returns_bool(inst):
        return inst.h[0] <= 3

    try:
        reg = register_lemma("t-raises", divides, relation="none", domain=(2, 3))
        with pytest.raises(UserCodeError) as e:
            reg.check()
        msg = str(e.value)
        assert "\n" not in msg and msg.startswith("lemma BYO.t-raises raised on instance h=(0, 2) params={}: ZeroDivisionError")
        assert "test_byo.py, line" in msg
        reg = register_lemma("t-bool", returns_bool, relation="none", domain=(2, 3))
        with pytest.raises(UserCodeError, match=r"lemma BYO.t-bool returned bool on instance h=\(0, 0\) params=\{\}: it must "
                                                r"return Comparison"):
            reg.check()
    finally:
        _forget("BYO.t-raises")
        _forget("BYO.t-bool")


def test_search_refutes_a_lemma_the_enumerated_domain_cannot(rnm):
    """The tutorial's draft bound 'P(M(h) = j) <= a^g_j' at eps = 1/4: for two items P(M(h) = j) / a^g is
    (0.221 g + 1.682) / 3.164 (j before the top), below 1 up to gap 6 and above from gap 7.  Every histogram with
    counts 0..4 passes; the search, building gaps around the noise scale 1/eps = 4, finds the violation (certified)."""
    from dpverify.search import search

    try:
        reg = register_lemma("t-draft-quarter", rnm.tail_bound_draft, mechanism="rnm-geometric", params={"eps": Fraction(1, 4)},
                             relation="none", domain=(3, 4))
        assert reg.check(certify=True).verdict == "holds"
        res = reg.search(evals=60, grid=None)
        assert res.verdict == "violated" and res.certified, res.as_json()
        w = res.best
        assert w.h_prime is None and max(w.h) - min(w.h) >= 7 and w.margin.b < 0
        res = search(all_claims()["BYO.rnm-geometric.tail"], evals=40, grid=None)  # the corrected bound: no false alarm
        assert res.verdict == "holds" and res.certified
    finally:
        _forget("BYO.t-draft-quarter")


def test_search_works_without_hints_on_pairs_and_histograms(rnm):
    """A mechanism declaring neither symmetries nor critical scales, and a pair lemma with no mechanism: both searched."""

    class Plain(rnm.RNMGeometric):
        symmetries = None
        critical_scales = None

    def monotone(inst, *, prec, interval):
        """Every outcome's probability moves by at most a factor e^eps from h to h' (the privacy claim, as a lemma)."""
        m = rnm.RNMGeometric(**inst.params)
        P, Q = m.distribution(inst.h, prec=prec, interval=interval), m.distribution(inst.h_prime, prec=prec, interval=interval)
        from mechanisms.core import exact_context, to_ctx

        with exact_context(prec, interval) as ctx:
            f = ctx.exp(to_ctx(ctx, inst.params["eps"]))
            return [Comparison(P[o], "<=", f * Q[o]) for o in P]

    from dpverify.search import search

    try:
        reg = register("byo-t-plain", Plain, params={"eps": 1}, claim=(1, 0), examples=((2, 1, 0),), domain=(2, 3))
        assert reg.check().coverage == "every pair (no reduction)"
        from mechanisms.core import critical_scales_of

        assert critical_scales_of(reg.build()) == ()
        hinted = register("byo-t-plain", Plain, params={"eps": 1}, claim=(1, 0), examples=((2, 1, 0),), domain=(2, 3),
                          critical_scales=lambda p: [5 / p["eps"]], replace=True)
        assert critical_scales_of(hinted.build()) == (5,) and critical_scales_of(hinted.build(eps=5)) == (1,)
        res = search(reg.claim, evals=30, grid=None, max_d=4)
        assert res.verdict == "holds" and res.evaluations >= 20 and "lengths up to 4" in res.space
        lem = register_lemma("t-pairs", monotone, params={"eps": 1}, domain=(2, 2))
        res = search(lem.claim, evals=30, max_d=4)
        assert res.verdict == "holds" and res.best.h_prime is not None and res.evaluations >= 20
        assert "pairs (no symmetry reduction) of lengths 2..4" in res.space and "eps in {1/10, 1}" in res.space
    finally:
        unregister("byo-t-plain")
        _forget("BYO.t-pairs")


def test_ledger_lemmas_are_searched_at_their_own_parameters_or_skipped_with_the_reason():
    from dpverify.search import search

    claims = all_claims()
    own = next(c for c in claims.values() if c.kind == "obligation" and c.instances is None and c.relation == "add-remove")
    res = search(own, evals=6, max_d=min(own.domain.d + 1, 4), max_count=20)
    assert res.verdict in ("holds", own.expected) and "(the lemma's own)" in res.space and "eps in" not in res.space
    custom = next(c for c in claims.values() if c.kind == "obligation" and c.instances is not None)
    res = search(custom, evals=6)
    assert res.verdict == "skipped" and "enumerates its own instances" in res.reason


# ------------------------------------------------------------------------------------------- loading


@pytest.mark.parametrize("body, expected", [
    ("from dpverify.byo import register\n\ndef broken(:\n    pass\n", r"--load {f}, line 3: SyntaxError: invalid syntax"),
    ("x = 1\ny = {{'eps': 1}}['delta']\n", r"--load {f}, line 2: KeyError: 'delta'"),
    ("from dpverify.byo import register\nfrom mechanisms.exponential import ExponentialMechanism\n"
     "register('em', ExponentialMechanism, params={{'eps': 1}}, claim=(1, 0))\n",
     r"--load {f}, line 3: InvalidParameter: name='em' is already registered \(a built-in\); pass replace=True"),
])
def test_a_broken_file_is_one_line_naming_file_line_and_exception(user_file, capsys, body, expected):
    f = user_file("bad.py", body.format())
    assert main(["--load", str(f), "claims"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dpverify: error: ")
    import re

    assert re.search(expected.format(f=re.escape(str(f))), err), err


def test_a_name_registered_twice_names_both_places(user_file, capsys):
    f = user_file("twice.py", """\
        from fractions import Fraction
        from dpverify.byo import register

        class Coin:
            def distribution(self, h):
                return {(0,): Fraction(1, 2), (1,): Fraction(1, 2)}

        register("byo-t-twice", Coin, claim=(1, 0), examples=((1, 0),), domain=(2, 1))
        register("byo-t-twice", Coin, claim=(1, 0), examples=((1, 0),), domain=(2, 1))
    """)
    assert main(["--load", str(f), "claims"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"--load {f}, line 9: InvalidParameter: name='byo-t-twice' is already registered (at " in err
    assert "twice.py, line 8)" in err


def test_missing_file_and_module(capsys):
    assert main(["--load", "no/such/file.py", "claims"]) == 2
    assert main(["--load", "no_such_module_22", "claims"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == ["dpverify: error: --load no/such/file.py: no such file",
                   "dpverify: error: --load no_such_module_22: no module named 'no_such_module_22' (give a path to a .py file, "
                   "or a module importable from here)"]


def test_check_search_profile_through_load_and_the_environment(rnm, tmp_path, capsys, monkeypatch):
    path = rnm.__file__
    runs = [["check", "BYO.rnm-geometric", "--d", "2", "--max-count", "3"],
            ["search", "BYO.rnm-geometric", "--evals", "8", "--d", "3", "--grid", "none"],
            ["search", "rnm-geometric", "--evals", "8", "--d", "3"],
            ["profile", "rnm-geometric", "--param", "eps=1", "--h", "2,1,0"],
            ["equal", "rnm-geometric", "rnm-geometric", "--param", "eps=1", "--d", "2", "--max-count", "2"]]
    for argv in runs:
        assert main(["--load", path, *argv]) == 0, capsys.readouterr()
    out = capsys.readouterr().out
    assert "BYO.rnm-geometric: holds (expected holds), certified=true" in out and "RNMGeometric(eps=1) on h=[2, 1, 0]" in out
    assert "rnm-geometric (its registered claim BYO.rnm-geometric): holds" in out
    monkeypatch.setenv("DPVERIFY_LOAD", path + ":" + path)  # os.pathsep-separated; a file is loaded once
    for argv in runs[:2] + runs[3:4]:
        assert main(argv) == 0
    assert "BYO.rnm-geometric: holds" in capsys.readouterr().out


def test_a_lemma_raising_on_one_instance_exits_2_also_from_worker_processes(user_file, capsys):
    f = user_file("lemma_raises.py", """\
        from dpverify import Comparison
        from dpverify.byo import register_lemma

        def ratio(inst):
            return Comparison(inst.h[0] / (inst.h[1] - 2), "<=", 100)

        register_lemma("t-ratio", ratio, relation="none", domain=(2, 3))
    """)
    for extra in ([], ["--workers", "2"]):
        assert main(["--load", str(f), "check", "BYO.t-ratio", *extra]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert "lemma BYO.t-ratio raised on instance h=(0, 2) params={}: ZeroDivisionError: division by zero (" in err
        assert "lemma_raises.py, line 5)" in err


def test_spawned_workers_load_the_users_files(rnm):
    """A worker that does not inherit this process (spawn, Dask) runs WORKER_SETUP first: the claim is known there."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from proofs.claims import Instance

    from dpverify.checker import parallel

    task = ("BYO.rnm-geometric.tail", [Instance((2, 0, 1), None, {"eps": 1})], 128, True)
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        bare = list(pool.map(parallel._scan_task, [task]))[0]  # the setup not run yet: the worker does not know the claim
        part = list(pool.map(parallel.in_worker(parallel._scan_task), [task]))[0]
    assert "UnknownName" in bare.error and "BYO.rnm-geometric.tail" in bare.error
    assert part.n == 1 and not part.error and part.worst.label.startswith("P(M(h)=")


# ------------------------------------------------------------------------------------------- reports and CI


def test_a_users_report_goes_to_its_own_folder_only(rnm, tmp_path, capsys):
    index = (ROOT / "proofs" / "INDEX.md").read_bytes()
    repo_readme = (ROOT / "reports" / "README.md").read_bytes()
    out = tmp_path / "mine"
    assert main(["verify", "--only", "BYO.rnm-geometric", "--out", str(out), "--workers", "1", "--search-evals", "6"]) == 0
    text = (out / "README.md").read_text(encoding="utf-8")
    assert "## Entries registered by the user's own files" in text and "_no claims registered yet_" not in text
    assert "`BYO.rnm-geometric.tail-draft`" in (out / "errata.md").read_text(encoding="utf-8")
    assert (out / "data" / "verify.json").exists() and not (out / "audits.md").exists()
    assert (ROOT / "proofs" / "INDEX.md").read_bytes() == index and (ROOT / "reports" / "README.md").read_bytes() == repo_readme
    assert main(["verify", "--only", "BYO.rnm-geometric", "--out", str(ROOT / "reports"), "--no-search"]) == 2
    assert "is the repository's ledger" in capsys.readouterr().err
    assert (ROOT / "reports" / "README.md").read_bytes() == repo_readme


def test_assert_claim_failure_says_what_the_verdict_covers(rnm):
    from dpverify.testing import assert_claim

    res = assert_claim("BYO.rnm-geometric", (2, 3))
    assert res.check.verdict == "holds" and res.search is None
    with pytest.raises(AssertionError) as e:
        assert_claim("BYO.rnm-geometric.tail-draft", (3, 3), expected="holds", search=True, evals=30, grid=None, max_d=4)
    msg = str(e.value)
    for part in ("BYO.rnm-geometric.tail-draft: a verdict is not the expected one (holds)",
                 "BYO.rnm-geometric.tail-draft: violated (expected holds); certified: yes",
                 "domain: d=3, counts 0..3, relation none", "pairs enumerated: every histogram of the domain; 64 instances",
                 "tightest instance: h=[", "search: violated; certified: yes; 30 evaluations",
                 "searched space: single histograms of lengths 3..4, counts 0..10000, 1 parameter point(s) (the lemma's own)"):
        assert part in msg, (part, msg)
    with pytest.raises(AssertionError, match="search: skipped"):  # nothing passes silently: a search asked for and not run fails
        assert_claim(next(c for c in all_claims().values() if c.kind == "definition").id, search=True, evals=2)
