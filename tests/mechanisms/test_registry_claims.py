"""Every registry entry's claimed (eps, delta) is a pair of numbers, whatever form its parameters take.

A registry entry's ``claim(params)`` once multiplied k by eps as given: with ``eps="0.7"`` (a string, which
every mechanism accepts) ``gumbel-topk``'s claim at k = 3 was the string ``'0.70.70.7'``.  The claim must be
the same number whether eps comes as an int, a string or a Fraction.
"""

from __future__ import annotations

from fractions import Fraction
from numbers import Real

import pytest

from mechanisms.registry import all_mechanisms

_SPECS = [s for s in all_mechanisms().values() if s.claim is not None]


def _numbers(c):
    if isinstance(c, (tuple, list)):
        return all(_numbers(x) for x in c)
    return isinstance(c, Real) and not isinstance(c, bool) or hasattr(c, "__float__") and not isinstance(c, str)


@pytest.mark.parametrize("spec", _SPECS, ids=[s.name for s in _SPECS])
def test_every_valid_parameter_set_claims_numbers(spec):
    for p in spec.valid:
        assert _numbers(spec.claim(dict(p))), (spec.name, p, spec.claim(dict(p)))


@pytest.mark.parametrize("name", ["gumbel-topk", "peeling-em", "peeling-pf", "em", "joint", "laplace-rnm"])
def test_a_string_eps_claims_the_same_number_as_a_fraction(name):
    spec = all_mechanisms()[name]
    p = dict(spec.valid[0])
    p_str, p_frac = {**p, "eps": "7/10"}, {**p, "eps": Fraction(7, 10)}
    assert spec.claim(p_str) == spec.claim(p_frac)
    k = p.get("k", 1)
    assert Fraction(spec.claim(p_str)[0]) in (k * Fraction(7, 10), Fraction(7, 10))


def test_registry_object_register_unregister_clear():
    """The registry object: a user's entry comes after the built-in ones, knows where it was registered, replaces a
    built-in one in its place only when asked (and gives it back when removed); lookups name close matches."""
    from dataclasses import replace

    from mechanisms.discovery import Registry
    from mechanisms.errors import UnknownName
    from mechanisms.registry import MechanismSpec

    reg: Registry[MechanismSpec] = Registry("mechanisms", "REGISTRY", key=lambda s: s.name, skip=("registry", "discovery"),
                                            what="mechanism", lister="dpverify mechanisms")
    builtin = list(all_mechanisms())
    assert list(reg) == builtin and reg.entries() == all_mechanisms()
    first = reg.get(builtin[0])
    mine = replace(first, name="t-mine", tags=frozenset({"byo"}))
    reg.register(mine, ("f.py", 3))
    assert list(reg)[-1] == "t-mine" and reg.is_user("t-mine") and reg.origin("t-mine") == ("f.py", 3)
    with pytest.raises(KeyError):
        reg.register(mine)
    shadow = replace(first, mutant="replaced")
    with pytest.raises(KeyError):
        reg.register(shadow)
    reg.register(shadow, None, replace=True)
    assert list(reg)[0] == builtin[0] and reg.get(builtin[0]).mutant == "replaced" and reg.is_user(builtin[0])
    assert reg.user_entries() == {"t-mine": ("f.py", 3), builtin[0]: None}
    with pytest.raises(UnknownName, match="did you mean t-mine"):
        reg.get("t-mne")
    with pytest.raises(KeyError):
        reg.unregister(builtin[1])
    assert sorted(reg.clear_user()) == sorted(["t-mine", builtin[0]])
    assert reg.entries() == all_mechanisms() and reg.user_entries() == {}
    reg.register(mine)
    reg.clear()
    assert list(reg) == builtin
