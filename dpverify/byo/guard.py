"""A researcher's code seen by dpverify: its failures become one-line errors naming the file, the line and the instance.

* :func:`where` -- the place in the user's code an exception comes from (the deepest frame of its
  traceback outside dpverify's own packages and the import machinery);
* :func:`caller` -- the place in the user's code that called dpverify (a ``register`` call, for the
  "already registered at ..." message);
* :func:`one_line` -- ``Type: message`` on one line;
* :class:`Guarded` -- a registered mechanism as the checker sees it: ``distribution(h, *, prec, interval)``
  whatever the user's signature, its search hints (``symmetries(d)``, ``critical_scales()``) passed
  through, and an exception it raises turned into :class:`~mechanisms.errors.UserCodeError` naming the
  mechanism, its parameters and the histogram.

An error dpverify raises on purpose (:class:`~mechanisms.errors.DPVerifyError`, e.g. ``InvalidParameter`` for
a histogram length the mechanism does not take) passes through unchanged: the checker treats it as "not
defined here" where it can (the search, lengths a mechanism does not take) and the command line prints it.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from fractions import Fraction
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any, Callable, Mapping, Sequence

import mpmath

from mechanisms.core import DEFAULT_PREC, to_ctx
from mechanisms.errors import DPVerifyError, UserCodeError

__all__ = ["where", "caller", "one_line", "place", "show_params", "Guarded", "guarded_call"]

#: the folders of dpverify's three layers (installed side by side): frames there are never the user's
_OURS = tuple(str(Path(__file__).resolve().parents[2] / pkg) + os.sep for pkg in ("mechanisms", "proofs", "dpverify"))


#: the standard library's and the installed packages' folders
_LIBRARIES = tuple(sorted({str(Path(p).resolve()) + os.sep for k, p in sysconfig.get_paths().items()
                           if k in ("stdlib", "platstdlib", "purelib", "platlib") and p}))


def _ours(filename: str) -> bool:
    """Frames of dpverify itself, of the import machinery and of the interpreter's own modules are never the user's."""
    if filename.startswith("<"):
        return True
    try:
        full = str(Path(filename).resolve())
    except OSError:  # pragma: no cover - an unreadable path is not ours
        return False
    return full.startswith(_OURS) or "importlib" in Path(filename).parts or Path(filename).name == "runpy.py"


def _library(filename: str) -> bool:
    """The standard library and installed packages (numpy, mpmath, ...): the user's code calls into them."""
    try:
        full = str(Path(filename).resolve())
    except OSError:  # pragma: no cover
        return False
    return full.startswith(_LIBRARIES)


def where(exc: BaseException, prefer: str | None = None) -> tuple[str, int] | None:
    """``(file, line)`` of the deepest traceback frame in user code (in ``prefer`` if given and present); None if none.

    Frames of dpverify, of the import machinery, of the standard library and of installed packages are
    skipped (the last of them is used only when the traceback holds nothing else)."""
    if isinstance(exc, SyntaxError) and exc.filename and not _ours(exc.filename):
        return exc.filename, exc.lineno or 0
    tb: TracebackType | None = exc.__traceback__
    best = fallback = preferred = None
    want = str(Path(prefer).resolve()) if prefer else None
    while tb is not None:
        fn = tb.tb_frame.f_code.co_filename
        if not _ours(fn):
            fallback = (fn, tb.tb_lineno)
            if not _library(fn):
                best = fallback
            if want and str(Path(fn).resolve()) == want:
                preferred = fallback
        tb = tb.tb_next
    return preferred or best or fallback


def caller() -> tuple[str, int] | None:
    """``(file, line)`` of the innermost frame of the current call stack that is user code (None if none)."""
    f: FrameType | None = sys._getframe(1)
    while f is not None:
        if not _ours(f.f_code.co_filename):
            return f.f_code.co_filename, f.f_lineno
        f = f.f_back
    return None


def place(loc: tuple[str, int] | None) -> str:
    """``file.py, line 12`` (the path relative to the working directory when it is below it)."""
    if loc is None:
        return "unknown place"
    fn, line = loc
    try:
        rel = os.path.relpath(fn)
        fn = rel if not rel.startswith("..") else fn
    except ValueError:  # pragma: no cover - another drive on Windows
        pass
    return f"{fn}, line {line}"


def one_line(exc: BaseException) -> str:
    """``Type: message`` with the message's lines joined (the command line prints one line per error)."""
    msg = " / ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    if isinstance(exc, SyntaxError):
        msg = exc.msg or msg
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__


def show_params(params: Mapping[str, Any]) -> str:
    """``{eps=1/2, k=2}``: parameter values as their plain strings."""
    return "{" + ", ".join(f"{k}={v}" for k, v in params.items()) + "}"


def guarded_call(fn: Callable[..., Any], what: str, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``; an exception that is not a ``DPVerifyError`` becomes a ``UserCodeError``:
    ``{what}: Type: message (file.py, line N)``."""
    try:
        return fn(*args, **kwargs)
    except DPVerifyError:
        raise
    except Exception as exc:  # noqa: BLE001 - the user's code failed: say where, on what
        raise UserCodeError(f"{what}: {one_line(exc)} ({place(where(exc))})") from exc


def _accepts_prec(fn: Callable[..., Any]) -> bool:
    import inspect

    try:
        ps = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return "prec" in ps and "interval" in ps or any(p.kind is p.VAR_KEYWORD for p in ps.values())


class Guarded:
    """A registered mechanism through the dpverify protocol (module docstring).

    Equal to another ``Guarded`` exactly when the wrapped objects are equal (and hashed by them when they are
    hashable, by identity otherwise), so equal mechanisms share memoised laws.  A ``distribution`` without
    ``prec``/``interval`` keywords is evaluated under ``mpmath.mp.workprec(prec)``; its values are then
    certifiable only when they are exact (ints or Fractions: enclosed exactly in interval mode) -- floats and
    mp numbers are taken as they are and a verdict resting on them is never "certified".
    """

    #: a researcher's code (:mod:`dpverify.checker.laws`: a law that is not a distribution is the user's error, exit 2)
    user_code = True

    def __init__(self, inner: Any, name: str, params: Mapping[str, Any]):
        self.inner, self.name, self.params = inner, name, dict(params)
        self._kw = _accepts_prec(inner.distribution) if hasattr(inner, "distribution") else False
        self._hash: int | None
        try:
            self._hash = hash(inner)
        except TypeError:
            self._hash = None

    def __repr__(self) -> str:
        return repr(self.inner)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Guarded):
            return NotImplemented
        if self._hash is None or other._hash is None:
            return self is other
        return type(self.inner) is type(other.inner) and self.inner == other.inner

    def __hash__(self) -> int:
        return self._hash if self._hash is not None else id(self)

    def __getattr__(self, attr: str) -> Any:  # every other attribute (parameters, hints) is the user's object's
        if attr.startswith("__") or attr in ("inner", "name", "params", "_kw", "_hash"):
            raise AttributeError(attr)
        return getattr(self.inner, attr)

    def _what(self, h: Sequence[int]) -> str:
        return f"mechanism {self.name!r} {show_params(self.params)} raised on h={tuple(h)}"

    def distribution(self, h: Sequence[int], *, prec: int = DEFAULT_PREC, interval: bool = False) -> Mapping[Any, Any]:
        if not hasattr(self.inner, "distribution"):
            raise UserCodeError(f"mechanism {self.name!r}: {type(self.inner).__name__} has no distribution(h) method")
        h = tuple(h)
        if self._kw:
            law = guarded_call(self.inner.distribution, self._what(h), h, prec=prec, interval=interval)
        else:
            with mpmath.mp.workprec(prec):
                law = guarded_call(self.inner.distribution, self._what(h), h)
        if not isinstance(law, Mapping):
            raise UserCodeError(f"mechanism {self.name!r} {show_params(self.params)}: distribution(h={h}) returned "
                                f"{type(law).__name__}, not a dict outcome -> probability")
        from dpverify.checker.laws import validate_law  # every law of a user's mechanism is a distribution, or exit 2

        if self._kw:
            return validate_law(self, h, law)
        exact = all(isinstance(p, (int, Fraction)) and not isinstance(p, bool) for p in law.values())
        if interval and exact:
            from mechanisms.core import exact_context

            with exact_context(prec, interval=True) as iv:
                return validate_law(self, h, {o: to_ctx(iv, p) for o, p in law.items()})
        with mpmath.mp.workprec(prec):
            return validate_law(self, h, {o: p if isinstance(p, (mpmath.mpf, mpmath.iv.mpf)) else to_ctx(mpmath.mp, p)
                                          for o, p in law.items()})

    def sample(self, h: Sequence[int], *, rng: Any, size: int = 1) -> list:
        if not hasattr(self.inner, "sample"):
            raise UserCodeError(f"mechanism {self.name!r}: {type(self.inner).__name__} has no sample(h, *, rng, size) method")
        return guarded_call(self.inner.sample, f"mechanism {self.name!r} {show_params(self.params)}: sample(h={tuple(h)})",
                            h, rng=rng, size=size)
