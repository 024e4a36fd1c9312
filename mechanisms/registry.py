"""One registry of every mechanism, driving one contract-test battery (STYLE.md §4).

Each mechanism module defines ``REGISTRY = [MechanismSpec(...), ...]``; this module
discovers them.  Adding a mechanism = one module + its registry entries.  The
contract battery (``tests/test_contract.py``) checks for every entry: the exact
distribution sums to 1, sampled outputs lie in the support, the sampler fits the
exact distribution (seeded), and every invalid parameter set raises the stated
error naming the parameter.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Mapping, Sequence

from .errors import UnknownName

__all__ = ["MechanismSpec", "all_mechanisms", "get_mechanism", "build"]


@dataclass(frozen=True)
class MechanismSpec:
    """A registry line.

    ``name``: CLI name (e.g. ``"gumbel-topk"``).  ``factory(**params)`` builds the
    mechanism.  ``valid``: parameter dicts that must construct.  ``invalid``:
    ``(params, exception type, substring of the message)`` triples.  ``examples``:
    small histograms for the contract battery.  ``mutant``: what is wrong, for the
    mutant zoo ("" for a correct mechanism).  ``claim``: function of params giving
    the (eps, delta) the mechanism is claimed to satisfy (for audits), or None.
    """

    name: str
    factory: Callable[..., Any]
    valid: Sequence[Mapping[str, Any]]
    invalid: Sequence[tuple[Mapping[str, Any], type, str]] = ()
    examples: Sequence[Sequence[int]] = ((3, 1, 1, 0),)
    paper: str = ""
    mutant: str = ""
    relation: str = "add-remove"
    claim: Callable[[Mapping[str, Any]], tuple[Any, Any]] | None = None
    tags: frozenset[str] = field(default_factory=frozenset)


@lru_cache(maxsize=1)
def all_mechanisms() -> dict[str, MechanismSpec]:
    """Every registered mechanism (correct ones and mutants) by name."""
    import mechanisms

    out: dict[str, MechanismSpec] = {}
    for info in sorted(pkgutil.iter_modules(mechanisms.__path__), key=lambda m: m.name):
        if info.name.startswith("_") or info.name in ("registry",):
            continue
        mod = importlib.import_module(f"mechanisms.{info.name}")
        for spec in getattr(mod, "REGISTRY", ()):
            if spec.name in out:
                raise RuntimeError(f"mechanism name {spec.name!r} registered twice")
            out[spec.name] = spec
    return out


def get_mechanism(name: str) -> MechanismSpec:
    """The registry entry of ``name``; ``UnknownName`` listing close matches otherwise."""
    regs = all_mechanisms()
    if name in regs:
        return regs[name]
    import difflib

    close = difflib.get_close_matches(name, list(regs), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `dpverify mechanisms` lists them"
    raise UnknownName(f"mechanism={name!r} is not registered{hint}")


def build(name: str, **params: Any) -> Any:
    """Construct the mechanism registered as ``name`` with ``params``."""
    return get_mechanism(name).factory(**params)
