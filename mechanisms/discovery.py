"""Registry plumbing shared by ``mechanisms.registry`` and ``proofs.registry``."""

from __future__ import annotations

import difflib
import importlib
import pkgutil
from typing import Any, Callable, Iterable

from .errors import UnknownName

__all__ = ["discover", "lookup"]


def discover(package: str, attr: str, key: Callable[[Any], str], skip: Iterable[str] = ()) -> dict[str, Any]:
    """Every object in the ``attr`` list of each public module under ``package``, keyed by ``key``.

    Subpackages are walked recursively; at every level entries are taken in name order
    (modules and subpackages alike), so the order is the sorted order of the dotted names
    relative to ``package``.  Names starting with ``_`` and the names in ``skip`` (relative
    dotted names, e.g. ``"registry"``) are not imported here.
    """
    skip = set(skip)
    out: dict[str, Any] = {}

    def walk(pkg_name: str, prefix: str) -> None:
        pkg = importlib.import_module(pkg_name)
        for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
            rel = prefix + info.name
            if info.name.startswith("_") or rel in skip:
                continue
            name = f"{pkg_name}.{info.name}"
            if info.ispkg:
                walk(name, rel + ".")
                continue
            mod = importlib.import_module(name)
            for obj in getattr(mod, attr, ()):
                k = key(obj)
                if k in out:
                    raise RuntimeError(f"{k!r} registered twice (second in {name})")
                out[k] = obj

    walk(package, "")
    return out


def lookup(table: dict[str, Any], name: str, what: str, lister: str) -> Any:
    """``table[name]``, or ``UnknownName`` naming the parameter and close matches."""
    if name in table:
        return table[name]
    close = difflib.get_close_matches(str(name), list(table), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else f"; `{lister}` lists them"
    raise UnknownName(f"{what}={name!r} is not registered{hint}")
