"""The audit battery, generic over the registry: mutants are caught (exactly AND by the audit), correct
mechanisms PASS (a false alarm is as serious as a miss).

Default (fast) subset: the zoo of ``mechanisms/mutants.py`` with a 20 000-sample budget, and a few correct
mechanisms with 5 000 samples.  ``slow``: every registry entry (other modules' mechanisms and mutants
included) at the default audit settings (1e5 samples per input, 99% confidence).
"""

import pytest

from mechanisms import mutants
from mechanisms.registry import all_mechanisms

from dpverify.auditor.zoo import SEARCHED, SLOW_SAMPLERS, exact_catch, implements, run_case, zoo_plan

MINE = [s.name for s in mutants.REGISTRY]

#: Registry mutants the battery knows it does not catch with their *registered* parameters, and why
#: (strict xfail: if one becomes caught the test fails and the entry must be removed from here).
KNOWN_UNCAUGHT: dict[str, str] = {}

QUICK_CORRECT = ["em", "laplace-rnm", "limit-dom", "gumbel-topk", "permute-and-flip-zcdp"]


def _all_mutants() -> list[str]:
    return [n for n, s in all_mechanisms().items() if s.mutant]


def _known(name: str):
    if name in KNOWN_UNCAUGHT:
        return pytest.param(name, marks=pytest.mark.xfail(reason=KNOWN_UNCAUGHT[name], strict=True))
    return name


def test_zoo_covers_the_requested_kinds_of_mistake():
    labels = " | ".join(all_mechanisms()[n].mutant for n in MINE)
    for kind in ("wrong noise scale", "releases the noisy", "missing threshold term", "off-by-one in order statistics",
                 "sensitivity mistake", "peeling with replacement"):
        assert kind in labels


# ----------------------------------------------------------------- fast subset
@pytest.mark.parametrize("name", MINE)
def test_exact_checker_catches_each_zoo_mutant(name):
    caught, why = exact_catch(name)
    assert caught, why


def _case(c):
    """Mutants whose violation needs the input search are audited at the default budget (slow: about a minute each)."""
    return pytest.param(c, marks=pytest.mark.slow) if c.kind.endswith(SEARCHED) else c


@pytest.mark.parametrize("case", [_case(c) for c in zoo_plan(MINE)], ids=lambda c: c.id)
def test_audit_catches_each_zoo_mutant(case):
    r = run_case(case, samples=100_000 if case.kind.endswith(SEARCHED) else 20_000)
    assert r.verdict == "FAIL", r.summary()
    if case.kind.startswith("privacy mutant"):
        # caught for the right reason: a certified violation, with a complete witness
        assert r.privacy_verdict == "FAIL" and r.fit_verdict == "PASS"
        w = r.witness
        assert w.violated and w.delta_lower > float(r.delta) and w.eps_lower > float(r.eps)
        assert w.event.outcomes and w.n_a == w.n_b <= (100_000 if case.kind.endswith(SEARCHED) else 20_000)


@pytest.mark.parametrize("name", QUICK_CORRECT)
def test_correct_mechanisms_pass_a_quick_audit(name):
    (case,) = zoo_plan([name])
    assert case.expected == "PASS"
    r = run_case(case, samples=5_000)
    assert r.verdict == "PASS", r.summary()


# ----------------------------------------------------------------- whole registry, default settings
@pytest.mark.slow
@pytest.mark.parametrize("name", [_known(n) for n in _all_mutants()])
def test_exact_checker_catches_every_registered_mutant(name):
    caught, why = exact_catch(name)
    assert caught, why


@pytest.mark.slow
@pytest.mark.parametrize("name", [_known(n) for n in all_mechanisms()])
def test_registry_audit_at_default_settings(name):
    """Correct: PASS (unless the exact checker refutes the claim itself); mutant: FAIL; defaults otherwise."""
    for case in zoo_plan([name]):
        r = run_case(case)
        assert r.verdict == case.expected, f"{case.id} ({case.kind}): expected {case.expected}\n{r.summary()}"


def test_slow_samplers_are_registered_names():
    assert SLOW_SAMPLERS <= set(all_mechanisms())
    assert implements(all_mechanisms()["mutant-peeling-with-replacement"]) == "peeling-em"
