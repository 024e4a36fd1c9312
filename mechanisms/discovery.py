"""Registry plumbing shared by ``mechanisms.registry`` and ``proofs.registry``.

:class:`Registry` is the one object behind each of the two registries (mechanisms by name, claims by id): it
discovers the built-in entries lazily (the ``REGISTRY`` / ``CLAIMS`` list of every public module of its
package, :func:`discover`), takes the entries a researcher registers (:meth:`Registry.register`, with where
they were registered), removes them again (:meth:`Registry.unregister`, :meth:`Registry.clear_user`) and
looks names up with the close-match :class:`~mechanisms.errors.UnknownName` error (:func:`lookup`).
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
from typing import Any, Callable, Generic, Iterable, Iterator, Mapping, TypeVar

from .errors import UnknownName

__all__ = ["discover", "lookup", "Registry", "Origin"]

T = TypeVar("T")

#: where a user's entry was registered: ``(file, line)``, or None when no frame of the user's code was found
Origin = tuple[str, int] | None


def discover(package: str, attr: str, key: Callable[[Any], str], skip: Iterable[str] = ()) -> dict[str, Any]:
    """Every object in the ``attr`` list of each public module under ``package``, keyed by ``key``.

    Subpackages are walked recursively; at every level entries are taken in name order
    (modules and subpackages alike), so the order is the sorted order of the dotted names
    relative to ``package``.  Names starting with ``_`` and the names in ``skip`` (relative
    dotted names, e.g. ``"registry"``) are not imported here.
    """
    skipped = set(skip)
    out: dict[str, Any] = {}

    def walk(pkg_name: str, prefix: str) -> None:
        pkg = importlib.import_module(pkg_name)
        for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
            rel = prefix + info.name
            if info.name.startswith("_") or rel in skipped:
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


def lookup(table: Mapping[str, T], name: str, what: str, lister: str) -> T:
    """``table[name]``, or ``UnknownName`` naming the parameter and close matches."""
    if name in table:
        return table[name]
    close = difflib.get_close_matches(str(name), list(table), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else f"; `{lister}` lists them"
    raise UnknownName(f"{what}={name!r} is not registered{hint}")


class Registry(Generic[T]):
    """The entries of one registry, by key: the built-in ones (discovered on first use) and the user's.

    ``package`` / ``attr`` / ``skip``: what :func:`discover` walks; ``key(entry)``: an entry's name;
    ``what`` / ``lister``: the words of the :class:`~mechanisms.errors.UnknownName` error (``mechanism``,
    ``dpverify mechanisms``).  Iteration and :meth:`entries` give the built-in entries in discovery order,
    then the user's in registration order (an entry replacing another keeps its place).
    """

    def __init__(self, package: str, attr: str, key: Callable[[T], str], *, skip: Iterable[str] = (),
                 what: str = "name", lister: str = "") -> None:
        self.package, self.attr, self.key = package, attr, key
        self.skip, self.what, self.lister = tuple(skip), what, lister
        self._table: dict[str, T] | None = None
        #: key -> where it was registered, for every entry a user registered (its keys are the user's entries)
        self._origins: dict[str, Origin] = {}
        #: built-in entries a user's entry replaced (put back when the user's entry is removed)
        self._shadowed: dict[str, T] = {}

    def _entries(self) -> dict[str, T]:
        if self._table is None:
            self._table = discover(self.package, self.attr, key=self.key, skip=self.skip)
        return self._table

    # -- reading ---------------------------------------------------------------------------------------------
    def entries(self) -> dict[str, T]:
        """Every entry by key (a new dict: changing it does not change the registry)."""
        return dict(self._entries())

    def get(self, key: str) -> T:
        """The entry ``key``; :class:`~mechanisms.errors.UnknownName` listing close matches otherwise."""
        return lookup(self._entries(), key, self.what, self.lister)

    def __contains__(self, key: object) -> bool:
        return key in self._entries()

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._entries()))

    def __len__(self) -> int:
        return len(self._entries())

    def is_user(self, key: str) -> bool:
        """Whether ``key`` is an entry a user registered (not a built-in one)."""
        return key in self._origins

    def origin(self, key: str) -> Origin:
        """Where the user's entry ``key`` was registered (None for a built-in entry or an unknown place)."""
        return self._origins.get(key)

    def user_entries(self) -> dict[str, Origin]:
        """The user's entries, in registration order, with where each was registered."""
        return dict(self._origins)

    # -- changing --------------------------------------------------------------------------------------------
    def register(self, entry: T, origin: Origin = None, *, replace: bool = False) -> T:
        """Add ``entry`` (a user's) under ``key(entry)``, registered at ``origin``.

        An existing key raises ``KeyError`` unless ``replace`` (the new entry then takes the old one's place;
        a replaced built-in entry comes back when the user's is removed).
        """
        table = self._entries()
        k = self.key(entry)
        if k in table:
            if not replace:
                raise KeyError(f"{self.what}={k!r} is already registered")
            if k not in self._origins:
                self._shadowed[k] = table[k]
        table[k] = entry
        self._origins[k] = origin
        return entry

    def unregister(self, key: str) -> T:
        """Remove the user's entry ``key`` and return it (a built-in one it replaced comes back in its place).

        ``KeyError`` if ``key`` is not an entry a user registered.
        """
        if key not in self._origins:
            raise KeyError(f"{self.what}={key!r} is not a user-registered entry")
        table = self._entries()
        del self._origins[key]
        entry = table[key]
        if key in self._shadowed:
            table[key] = self._shadowed.pop(key)
        else:
            del table[key]
        return entry

    def clear_user(self) -> list[str]:
        """Remove every entry a user registered; returns their keys."""
        keys = list(self._origins)
        for k in keys:
            self.unregister(k)
        return keys

    def clear(self) -> None:
        """Forget everything: the user's entries and the discovered ones (discovered again on the next use)."""
        self._table = None
        self._origins.clear()
        self._shadowed.clear()
