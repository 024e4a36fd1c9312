"""Registry plumbing shared by ``mechanisms.registry`` and ``proofs.registry``."""

from __future__ import annotations

import difflib
import importlib
import pkgutil
from typing import Any, Callable, Iterable

from .errors import UnknownName

__all__ = ["discover", "lookup"]


def discover(package: str, attr: str, key: Callable[[Any], str], skip: Iterable[str] = ()) -> dict[str, Any]:
    """Every object in the ``attr`` list of each public module of ``package``, keyed by ``key``, in module order."""
    pkg = importlib.import_module(package)
    skip = set(skip)
    out: dict[str, Any] = {}
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if info.name.startswith("_") or info.name in skip:
            continue
        mod = importlib.import_module(f"{package}.{info.name}")
        for obj in getattr(mod, attr, ()):
            k = key(obj)
            if k in out:
                raise RuntimeError(f"{k!r} registered twice (second in {package}.{info.name})")
            out[k] = obj
    return out


def lookup(table: dict[str, Any], name: str, what: str, lister: str) -> Any:
    """``table[name]``, or ``UnknownName`` naming the parameter and close matches."""
    if name in table:
        return table[name]
    close = difflib.get_close_matches(str(name), list(table), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else f"; `{lister}` lists them"
    raise UnknownName(f"{what}={name!r} is not registered{hint}")
