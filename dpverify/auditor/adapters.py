"""Black-box targets: loading someone else's sampler and normalising what it returns.

A *target* is anything that draws outputs of a mechanism on a histogram:

``"mechanism"``
    an object with ``sample(h, *, rng, size)`` (the dpverify protocol).
``"batch"``
    a callable ``f(h, rng, size) -> batch`` returning ``size`` outputs (a list,
    or an array with one output per row).
``"single"``
    a callable ``f(h, rng) -> output``, called once per sample.
``"unseeded"``
    a callable ``f(h) -> output`` that owns its randomness: it is called once
    per sample and the audit **cannot be seeded** (results are not reproducible;
    the audit result says so).

The shape is detected from the signature (a ``sample`` method; a parameter
named ``size`` or three positional parameters; two; one) or given explicitly.
Targets are named ``package.module:attr`` or ``path/to/file.py:attr`` (``attr``
may be dotted); a class found there is instantiated with the audit parameters.

Output conventions (:class:`OutcomeAdapter`), applied to every raw output:

* an output that *equals* an outcome of the reference (any hashable value,
  e.g. ``(2, 0)``, ``frozenset({1, 3})`` or a mechanism's own outcome objects)
  is taken as it is;
* ⊥ ("stopped"): ``None``, ``mechanisms.core.BOT``, ``-1``, ``NaN``, ``"⊥"``,
  ``"bot"``/``"BOT"``/``"stop"``.  Alone, it is the outcome ``(BOT,)``; inside a
  sequence it ends the output -- ``[2, -1, -1]`` is ``(2, BOT)`` (padding after
  the first ⊥ must be ⊥ too); an empty sequence is ``(BOT,)``.
* an integer (Python, numpy, or an integral float) is an item index; a scalar
  ``i`` is the outcome ``(i,)``.  Indices are 0-based unless ``index_base=1``
  and must lie in ``0..d-1``.
* a list / tuple / 1-D array is an ordered outcome (a tuple); a set /
  frozenset is an unordered outcome (a frozenset).
* against a reference whose outcomes are frozensets, an ordered output is
  read as a set; against ordered outcomes, a 1-element set is a 1-tuple (a
  larger set cannot be ordered: error); against outcomes ending in ⊥, an
  ordered output shorter than the reference's ``k`` without ⊥ means "stopped
  early" and gets ⊥ appended.

Anything else (strings, dicts, non-integral floats such as a released noisy
value, out-of-range indices) raises :class:`mechanisms.errors.AdapterError`
naming the output and the conventions: an audit never guesses.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import math
import numbers
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Hashable, Iterable, Mapping, Sequence

import numpy as np

from mechanisms.core import BOT
from mechanisms.errors import AdapterError, InvalidParameter

from .defaults import CALLING_CONVENTION, H_FORMATS, SHAPES

__all__ = ["SHAPES", "H_FORMATS", "BOT_TOKENS", "load_target", "file_module_name", "Target", "OutcomeAdapter", "reference_kind"]


#: String spellings of ⊥ accepted in outputs (besides None, BOT, -1 and NaN).
BOT_TOKENS = frozenset({"⊥", "bot", "BOT", "Bot", "stop", "STOP"})

#: Draws per call of a batch target (bounds memory of very large audits).
BATCH_CHUNK = 50_000


def file_module_name(path: Path | str) -> str:
    """The module name a ``.py`` file is executed under (once per process, whoever loads it: an audit target,
    ``dpverify --load``): derived from its resolved path."""
    return "_dpverify_target_" + hashlib.sha1(str(Path(path).resolve()).encode()).hexdigest()[:16]


def _describe(obj: Any) -> str:
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    mod = getattr(obj, "__module__", None)
    if name and mod:
        return f"{mod}:{name}"
    return repr(obj)


def load_target(spec: str, params: Mapping[str, Any] | None = None) -> Any:
    """Resolve ``"package.module:attr"`` or ``"path/to/file.py:attr"`` to the object it names.

    A class is instantiated with ``params`` (so a mechanism class can be audited
    directly).  Errors name the target string.
    """
    if not isinstance(spec, str) or ":" not in spec:
        raise InvalidParameter(f"target={spec!r} must look like package.module:name or path/to/file.py:name")
    where, attr = spec.rsplit(":", 1)
    if not where or not attr:
        raise InvalidParameter(f"target={spec!r} must look like package.module:name or path/to/file.py:name")
    module = _module_of(spec, where)
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise InvalidParameter(f"target={spec!r}: {where} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if inspect.isclass(obj):
        try:
            obj = obj(**dict(params or {}))
        except TypeError as exc:
            raise InvalidParameter(f"target={spec!r} is a class; "
                                   f"constructing it with {dict(params or {})} failed: {exc}") from exc
    return obj


def _module_of(spec: str, where: str) -> Any:
    """The module ``where`` names: a file (executed once per process) or an importable module."""
    if not (where.endswith(".py") or "/" in where or "\\" in where):
        try:
            return importlib.import_module(where)
        except ImportError as exc:
            raise InvalidParameter(f"target={spec!r}: cannot import {where}: {exc}") from exc
    path = Path(where)
    if not path.is_file():
        raise InvalidParameter(f"target={spec!r}: no file {where}")
    modname = file_module_name(path)
    module = sys.modules.get(modname)  # a file is executed once per process
    if module is not None:
        return module
    loader = importlib.util.spec_from_file_location(modname, path)
    if loader is None or loader.loader is None:
        raise InvalidParameter(f"target={spec!r}: {where} cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(loader)
    sys.modules[modname] = module
    try:
        loader.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - the user's file failed to import: say which
        del sys.modules[modname]
        raise InvalidParameter(f"target={spec!r}: importing {where} failed: {exc!r}") from exc
    return module



#: second parameters that say the target expects a mechanism parameter where the audit passes its generator
_NOT_AN_RNG = frozenset({"eps", "epsilon", "delta", "k", "kbar", "rho", "sensitivity", "params", "beta", "alpha", "scale",
                         "t", "T"})


def detect_shape(obj: Any) -> str:
    """The target shape of ``obj`` (module docstring), from its methods / signature."""
    if not callable(obj) or (hasattr(obj, "sample") and callable(obj.sample)):
        if hasattr(obj, "sample") and callable(obj.sample):
            return "mechanism"
        raise AdapterError(f"target {obj!r} is neither callable nor has a sample(h, *, rng, size) method")
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        raise AdapterError(f"cannot read the signature of {obj!r}; pass shape= one of {SHAPES}") from None
    params = [p for p in sig.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if any(p.name == "size" for p in params):
        return "batch"
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    n = len(required) if required else len(positional)
    if n >= 2 and positional[1].name in _NOT_AN_RNG:
        raise AdapterError(f"target {_describe(obj)} takes {positional[1].name!r} where the audit passes its random generator: "
                           + CALLING_CONVENTION)
    if n >= 3:
        return "batch"
    if n == 2:
        return "single"
    if n == 1:
        return "unseeded"
    raise AdapterError(f"target {_describe(obj)} takes no histogram argument; expected f(h, rng[, size]) or f(h)")


class Target:
    """A sampler under audit, of one of :data:`SHAPES` (see the module docstring).

    ``draw(h, n, rng)`` returns the list of ``n`` raw outputs; ``seeded`` is
    False for ``"unseeded"`` targets (``rng`` is then ignored).  ``h_format``
    is how histograms are handed over: a fresh ``list`` (default), ``tuple`` or
    int64 numpy ``array``.
    """

    def __init__(self, obj: Any, *, shape: str | None = None, h_format: str = "list", name: str | None = None):
        if shape is not None and shape not in SHAPES:
            raise InvalidParameter(f"shape={shape!r} must be one of {', '.join(SHAPES)}")
        if h_format not in H_FORMATS:
            raise InvalidParameter(f"h_format={h_format!r} must be one of {', '.join(H_FORMATS)}")
        self.obj = obj
        self.shape = shape or detect_shape(obj)
        self.h_format = h_format
        self.name = name or (repr(obj) if self.shape == "mechanism" else _describe(obj))
        #: ``progress(n, total, label)`` (``dpverify.cli.common.progress``) or None: told the running total of
        #: outputs drawn after each batch (every 10,000 single calls); it never changes what is drawn
        self.progress: Any = None
        self.drawn_total = 0

    def _tick(self, m: int) -> None:
        self.drawn_total += m
        if self.progress is not None:
            self.progress(self.drawn_total, None, "outputs drawn")

    @property
    def seeded(self) -> bool:
        """Whether the injected ``rng`` determines the outputs (False for ``f(h)`` targets)."""
        return self.shape != "unseeded"

    def _h(self, h: Sequence[int]) -> Any:
        if self.h_format == "tuple":
            return tuple(h)
        if self.h_format == "array":
            return np.asarray(h, dtype=np.int64)
        return list(h)

    def draw(self, h: Sequence[int], n: int, rng: np.random.Generator) -> list:
        """``n`` raw outputs on ``h`` (not yet normalised)."""
        out: list = []
        if self.shape == "mechanism":
            while len(out) < n:
                m = min(BATCH_CHUNK, n - len(out))
                out.extend(self._batch(self.obj.sample(self._h(h), rng=rng, size=m), m))
                self._tick(m)
        elif self.shape == "batch":
            while len(out) < n:
                m = min(BATCH_CHUNK, n - len(out))
                try:
                    batch = self.obj(self._h(h), rng, size=m)
                except TypeError:
                    batch = self.obj(self._h(h), rng, m)
                out.extend(self._batch(batch, m))
                self._tick(m)
        else:  # one call per output, in the same order as before; the tick only every 10,000 calls
            single = self.shape == "single"
            for i in range(n):
                out.append(self.obj(self._h(h), rng) if single else self.obj(self._h(h)))
                if (i + 1) % 10_000 == 0:
                    self._tick(10_000)
            self._tick(n % 10_000)
        return out

    def _batch(self, batch: Any, m: int) -> list:
        if isinstance(batch, np.ndarray):
            # rows as Python tuples/scalars: hashable, so counting a batch is one Counter pass
            if batch.ndim == 2:
                rows = [tuple(r) for r in batch.tolist()]
            elif batch.ndim == 1:
                rows = batch.tolist()
            else:
                raise AdapterError(f"target {self.name} returned an array of shape {batch.shape}; expected one output per row")
        elif isinstance(batch, (list, tuple)):
            rows = list(batch)
        else:
            try:
                rows = list(batch)
            except TypeError:
                raise AdapterError(f"target {self.name} returned {type(batch).__name__} for a batch of {m}; expected a list or "
                                   f"array of {m} outputs") from None
        if len(rows) != m:
            raise AdapterError(f"target {self.name} returned {len(rows)} outputs for size={m}")
        return rows


def reference_kind(outcomes: Iterable[Hashable]) -> dict:
    """What the reference's outcomes look like: ``{"set": bool, "bot": bool, "k": max length}``."""
    kinds = {"set": False, "bot": False, "k": 0}
    any_tuple = False
    for o in outcomes:
        if isinstance(o, frozenset):
            kinds["set"] = True
            kinds["k"] = max(kinds["k"], len(o))
        elif isinstance(o, tuple):
            any_tuple = True
            if o and o[-1] is BOT:
                kinds["bot"] = True
                kinds["k"] = max(kinds["k"], len(o) - 1)
            else:
                kinds["k"] = max(kinds["k"], len(o))
    if kinds["set"] and any_tuple:
        kinds["set"] = False  # mixed: keep whatever the target says
    return kinds


def _is_bot(x: Any) -> bool:
    if x is None or x is BOT:
        return True
    if isinstance(x, str):
        return x in BOT_TOKENS
    if isinstance(x, (bool, np.bool_)):
        return False
    if isinstance(x, numbers.Integral):
        return int(x) == -1
    if isinstance(x, numbers.Real):
        f = float(x)
        return math.isnan(f) or f == -1.0
    return False


class OutcomeAdapter:
    """Maps raw outputs to dpverify outcomes for histograms of length ``d`` (module docstring).

    ``kind`` is :func:`reference_kind` of the reference support (``None``:
    no reference, keep the target's own form).  ``index_base`` is 0 or 1.
    Results are memoised per hashable raw output, so counting a large sample
    normalises each distinct output once.
    """

    def __init__(
        self, d: int, kind: Mapping[str, Any] | None = None, index_base: int = 0, target: str = "target",
        support: frozenset | None = None,
    ):
        if index_base not in (0, 1):
            raise InvalidParameter(f"index_base={index_base!r} must be 0 or 1")
        self.d, self.kind, self.base, self.target = d, dict(kind) if kind else None, index_base, target
        self.support = support or frozenset()
        self._memo: dict = {}

    def _fail(self, raw: Any, why: str) -> AdapterError:
        return AdapterError(
            f"cannot map output {raw!r} of {self.target} to an outcome: {why}. "
            "Conventions: item indices (int), sequences of indices (ordered), sets (unordered), "
            "None/-1/NaN/'⊥' for ⊥ (see dpverify.auditor.adapters)"
        )

    def _index(self, raw: Any, x: Any) -> int:
        if isinstance(x, (bool, np.bool_)):
            raise self._fail(raw, f"element {x!r} is a bool, not an item index")
        if isinstance(x, numbers.Integral):
            i = int(x)
        elif isinstance(x, numbers.Real) and float(x).is_integer():
            i = int(float(x))
        elif isinstance(x, numbers.Real):
            raise self._fail(raw, f"element {x!r} is not an integer item index (a released noisy value?)")
        else:
            raise self._fail(raw, f"element {x!r} of type {type(x).__name__} is not an item index")
        i -= self.base
        if not 0 <= i < self.d:
            hint = " (1-based indices? pass index_base=1)" if self.base == 0 and i == self.d else ""
            raise self._fail(raw, f"index {i + self.base} is out of range for d={self.d}{hint}")
        return i

    def _raw(self, raw: Any) -> Any:
        if _is_bot(raw):
            return (BOT,)
        if isinstance(raw, (set, frozenset)):
            if any(_is_bot(x) for x in raw):
                raise self._fail(raw, "a set output cannot contain ⊥")
            return frozenset(self._index(raw, x) for x in raw)
        if isinstance(raw, (str, bytes, Mapping)):
            raise self._fail(raw, f"a {type(raw).__name__} is not an outcome")
        if isinstance(raw, (numbers.Number, np.generic)) and not isinstance(raw, (bool, np.bool_)):
            return (self._index(raw, raw),)
        if isinstance(raw, np.ndarray) and raw.ndim == 0:
            return self._raw(raw.item())
        if isinstance(raw, np.ndarray) and raw.ndim != 1:
            raise self._fail(raw, f"array of shape {raw.shape} is not a 1-D sequence of indices")
        try:
            seq = list(raw)
        except TypeError:
            raise self._fail(raw, f"a {type(raw).__name__} is not an outcome") from None
        return self._sequence(raw, seq)

    def _sequence(self, raw: Any, seq: list) -> tuple:
        """A sequence of item indices, possibly ending in ⊥ (and nothing but ⊥ after it); empty means ⊥."""
        out: list = []
        for j, x in enumerate(seq):
            if _is_bot(x):
                if not all(_is_bot(y) for y in seq[j:]):
                    raise self._fail(raw, "an index follows ⊥")
                return tuple(out) + (BOT,)
            out.append(self._index(raw, x))
        return tuple(out) if out else (BOT,)

    def _reconcile(self, raw: Any, o: Any) -> Any:
        kind = self.kind
        if not kind:
            return o
        if kind["set"]:
            if isinstance(o, tuple):
                if o and o[-1] is BOT:
                    raise self._fail(raw, "⊥ in the output of a set-valued mechanism")
                return frozenset(o)
            return o
        if isinstance(o, frozenset):
            if len(o) == 1:
                return (next(iter(o)),)
            raise self._fail(raw, "the target returns unordered sets but the reference releases ordered tuples")
        if kind["bot"] and (not o or o[-1] is not BOT) and len(o) < kind["k"]:
            return o + (BOT,)
        return o

    def __call__(self, raw: Any) -> Any:
        """The outcome of one raw output (raises AdapterError if it cannot be mapped)."""
        key = _hashable(raw)
        if key is not _UNHASHABLE and key in self._memo:
            return self._memo[key]
        if key is raw and self.base == 0 and raw in self.support:  # (key is raw: raw itself is hashable)
            o = raw  # already an outcome of the reference
        else:
            o = self._reconcile(raw, self._raw(raw))
        if key is not _UNHASHABLE:
            self._memo[key] = o
        return o

    def count(self, raws: Sequence[Any]) -> Counter:
        """Counts of the outcomes of ``raws`` (each distinct raw output normalised once)."""
        try:
            items = list(Counter(raws).items())
        except TypeError:  # unhashable outputs (lists, arrays): group by a hashable key
            reps: dict = {}
            c: Counter = Counter()
            for r in raws:
                k = _hashable(r)
                if k is _UNHASHABLE:
                    k = ("__repr__", repr(r))
                c[k] += 1
                reps.setdefault(k, r)
            items = [(reps[k], n) for k, n in c.items()]
        out: Counter = Counter()
        for raw, n in items:
            out[self(raw)] += n
        return out


_UNHASHABLE = object()


def _hashable(raw: Any) -> Any:
    """A hashable key standing for ``raw`` in the memo (``_UNHASHABLE`` if there is none)."""
    if isinstance(raw, np.ndarray):
        return ("__array__", raw.dtype.str, tuple(raw.tolist())) if raw.ndim == 1 else _UNHASHABLE
    if isinstance(raw, list):
        try:
            t = ("__list__", tuple(raw))
            hash(t)
            return t
        except TypeError:
            return _UNHASHABLE
    if isinstance(raw, set):
        return ("__set__", frozenset(raw))
    try:
        hash(raw)
    except TypeError:
        return _UNHASHABLE
    return raw


def target_from(obj: Any, *, params: Mapping[str, Any] | None = None, shape: str | None = None, h_format: str = "list") -> Target:
    """A :class:`Target` from a target string, a mechanism object or a callable."""
    if isinstance(obj, Target):
        return obj
    name = obj if isinstance(obj, str) else None
    if isinstance(obj, str):
        obj = load_target(obj, params)
    return Target(obj, shape=shape, h_format=h_format, name=name)

