"""Load a researcher's files before a command runs: ``dpverify --load FILE_OR_MODULE ...`` and ``DPVERIFY_LOAD``.

A file is executed once per process (under the same module name an audit target of that file gets, so
``dpverify --load f.py audit f.py:impl`` runs it once); a module name is imported.  What they register with
:func:`~dpverify.byo.register` / :func:`~dpverify.byo.register_lemma` is then known to every command, and to
the worker processes of a parallel run (:data:`dpverify.checker.parallel.WORKER_SETUP`: a worker started by
``spawn`` or on a Dask cluster loads the same files before its first task; a forked one has them already).

While a file runs, its folder is first on ``sys.path`` (as under ``python FILE``), so it can import the modules
beside it; the folder is taken off the path again afterwards (what was imported stays imported).

A file that fails -- a syntax error, an exception while it runs, a name registered twice -- is the user's
error: :class:`~mechanisms.errors.UserCodeError`, one line naming the file, the line and the exception
(``dpverify`` exits 2).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Sequence

from mechanisms.errors import InvalidParameter, UserCodeError

from dpverify.auditor.adapters import file_module_name
from dpverify.checker import parallel

from .guard import one_line, place, where

__all__ = ["ENV_VAR", "load", "load_from_env", "load_for_command", "loaded", "unload"]

#: the environment variable every command honours: a path list separated by ``os.pathsep``
ENV_VAR = "DPVERIFY_LOAD"

_LOADED: list[str] = []


def loaded() -> list[str]:
    """What this process has loaded, in order (absolute file paths or module names)."""
    return list(_LOADED)


def _is_file(what: str) -> bool:
    return what.endswith(".py") or "/" in what or os.sep in what


def _failed(source: str, what: str, loc: tuple[str, int] | None, exc: BaseException, path: str | None = None) -> str:
    """``--load f.py, line 3: SyntaxError: invalid syntax`` (or ``--load f.py: g.py, line 7: ...`` when the line is
    in another file); an error that already names its instance (a ``UserCodeError``) keeps its own words."""
    text = str(exc) if isinstance(exc, UserCodeError) else one_line(exc)
    if loc is not None and path is not None and str(Path(loc[0]).resolve()) == path:
        return f"{source} {what}, line {loc[1]}: {text}"
    return f"{source} {what}: {place(loc)}: {text}"


def load(what: str, *, source: str = "--load") -> str:
    """Execute the ``.py`` file or import the module ``what`` (once per process); returns what was loaded.

    ``source`` names where the request came from in error messages (``--load``, ``DPVERIFY_LOAD``).
    """
    if not isinstance(what, str) or not what.strip():
        raise InvalidParameter(f"{source}={what!r} must be a path to a .py file or a module name")
    what = what.strip()
    if _is_file(what):
        path = Path(what)
        key = str(path.resolve())
        modname = file_module_name(path)
        if modname not in sys.modules and not path.is_file():
            raise InvalidParameter(f"{source} {what}: no such file")
        if modname not in sys.modules:
            spec = importlib.util.spec_from_file_location(modname, path)
            if spec is None or spec.loader is None:
                raise InvalidParameter(f"{source} {what}: not a Python file")
            module = importlib.util.module_from_spec(spec)
            sys.modules[modname] = module
            folder = str(path.resolve().parent)
            added = folder not in sys.path
            if added:  # the file may import its neighbours (``import helpers`` beside it), as ``python f.py`` allows
                sys.path.insert(0, folder)
            try:
                spec.loader.exec_module(module)
            except (Exception, SystemExit) as exc:  # noqa: BLE001 - the user's file failed: say where and how
                sys.modules.pop(modname, None)
                raise UserCodeError(_failed(source, what, where(exc, prefer=key), exc, key)) from exc
            finally:
                if added and folder in sys.path:
                    sys.path.remove(folder)
    else:
        key = what
        if what not in sys.modules:
            try:
                importlib.import_module(what)
            except ModuleNotFoundError as exc:
                if exc.name and (what == exc.name or what.startswith(exc.name + ".")):
                    raise InvalidParameter(f"{source} {what}: no module named {exc.name!r} (give a path to a .py file, "
                                           "or a module importable from here)") from None
                raise UserCodeError(_failed(source, what, where(exc), exc)) from exc
            except (Exception, SystemExit) as exc:  # noqa: BLE001
                origin = _origin(what)
                raise UserCodeError(_failed(source, what, where(exc, prefer=origin), exc, origin)) from exc
    if key not in _LOADED:
        _LOADED.append(key)
        parallel.WORKER_SETUP.append((load, (key,)))
    return key


def _origin(module: str) -> str | None:
    """The resolved file of ``module`` (None if it has none)."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return str(Path(spec.origin).resolve()) if spec is not None and spec.origin and spec.origin != "built-in" else None


def load_from_env(var: str = ENV_VAR) -> list[str]:
    """:func:`load` every entry of ``$DPVERIFY_LOAD`` (separated by ``os.pathsep``); returns them."""
    items = [x.strip() for x in os.environ.get(var, "").split(os.pathsep) if x.strip()]
    return [load(x, source=var) for x in items]


def load_for_command(items: Sequence[str] | None) -> list[str]:
    """What a command loads before it runs: ``$DPVERIFY_LOAD`` first, then each ``--load`` in order."""
    out = load_from_env()
    for x in items or []:
        key = load(x, source="--load")
        if key not in out:
            out.append(key)
    return out


def unload(what: str) -> list[str]:
    """Forget a loaded file: unregister the mechanisms, claims and lemmas it registered and let a later
    :func:`load` execute it again (a notebook or a test suite reloading an edited file).  Returns the
    names and claim ids removed."""
    from mechanisms.registry import MECHANISM_REGISTRY

    from proofs.registry import CLAIM_REGISTRY

    from .mechanism import unregister

    key = str(Path(what).resolve()) if _is_file(what) else what
    target = key if _is_file(what) else getattr(sys.modules.get(what), "__file__", None)
    target = str(Path(target).resolve()) if target else None
    removed = []
    for name, loc in MECHANISM_REGISTRY.user_entries().items():
        if loc is not None and target and str(Path(loc[0]).resolve()) == target:
            unregister(name)
            removed.append(name)
    for cid, loc in CLAIM_REGISTRY.user_entries().items():  # the lemmas and the claims left (after their mechanisms')
        if loc is not None and target and str(Path(loc[0]).resolve()) == target:
            CLAIM_REGISTRY.unregister(cid)
            removed.append(cid)
    sys.modules.pop(file_module_name(key) if _is_file(what) else what, None)
    if key in _LOADED:
        _LOADED.remove(key)
    parallel.WORKER_SETUP[:] = [s for s in parallel.WORKER_SETUP if s != (load, (key,))]
    return removed
