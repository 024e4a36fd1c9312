"""Private top-k over user-level event data: the mechanisms of DR19 and CWGM20 on top of an analytics engine.

Access pattern (DR19 §1, §6.2; CWGM20 §3).  The data system
(DuckDB, in-process) answers one query -- the true top-(kbar+1) items by the
number of DISTINCT users per item -- and only those rows ever reach Python:

* the histogram ``h_item = |{user : (user, item) in DATA}|`` is computed in SQL
  (rows with a NULL user or item are dropped: a per-row, data-independent rule);
* items are ranked by count (larger first) and ties are broken by the item label
  in ascending order of its SQL type (numbers numerically, text by byte order) --
  a fixed order that does not depend on the data, as DR19 §6.2 requires; the
  mechanisms' own tie rule (``mechanisms.core.sorted_items``: smaller index first)
  then agrees, because index ``r`` is the r-th row returned;
* ``LIMIT kbar + 1``: :func:`top_rows` returns at most kbar+1 ``(label, count)`` pairs.

If fewer than kbar+1 items have a user, the missing places are filled at count 0
with the fixed labels :data:`PAD_LABELS` (``"<pad 1>"``, ``"<pad 2>"``, ...: DR19
§6.2's "fixed list of indices"); a pad label can be selected like any item of
count 0 and is reported as such.

Contribution bounding (``max_items_per_user=Delta``).  Each user keeps the Delta
distinct items with the smallest ``md5(SALT || user || 0x1f || item)`` (labels as
text; ties -- md5 collisions -- by item).  Which items a user keeps depends only on
that user's own items and the fixed :data:`SALT`, so adding or removing one user
changes at most Delta counts, each by 1: the Delta-restricted neighbour relation of
DR19 §3 / §6.1 under which ``limit-dom`` with Delta and ``limit-dom-lap`` are analysed.

Mechanisms (:data:`MECHANISMS`) and the privacy each theorem claims (upper bounds
on eps at the stated delta, as printed -- the checker tests the prints elsewhere):

* ``limit-dom`` -- DR19 Algorithm 1 via :meth:`mechanisms.limited_domain.LimitDom.release`;
  Theorem 1: ``(eq. (2) eps', delta + delta')`` (``proofs.composition.eq2_eps``).
* ``strict-limit-dom`` -- DR19 Algorithm 5 (:class:`~mechanisms.limited_domain.StrictLimitDom`,
  printed threshold ``ln(kbar/delta)/eps``, never a Delta one) on the kbar+1 returned counts;
  Lemma 6.6: Theorem 1's guarantee.
* ``limit-dom-lap`` -- DR19 Algorithm 4 (:class:`~mechanisms.limited_domain.laplace.LimitDomLap`,
  corrected threshold ``ln(Delta/delta)/eps``), needs ``max_items_per_user``; Lemma 6.1:
  ``(Delta eps, (e^{Delta eps} + 1) delta_bar)``, ``delta_bar = (delta/4)(3 + ln(Delta/delta))``.
* ``top-stable`` -- CWGM20 Algorithm 3 (:class:`~mechanisms.stability.top_stable.TopStable`,
  ``eps_EM = 0``, set output): it reads only ``h_(1..kbar+1)`` and the top-i items,
  so it runs on the returned rows exactly; Theorem 3.2: ``(eps, delta)``.

StrictLimitDom, LimitDomLap and TopStable have no ``release`` entry: they are run
by ``sample`` on the (padded) vector of the kbar+1 returned counts, and output
indices are mapped back to the returned labels -- no further row is read.

Samplers (``sampler=``, :data:`SAMPLERS`).  ``"exact"`` (the default) releases through
the integer-only samplers on their data-independent schedule (``exact=True,
balanced=True``; :mod:`mechanisms.exact.noisy_race`): exact lazy Gumbel noise for
limit-dom / strict-limit-dom, exact lazy Laplace noise for limit-dom-lap / top-stable --
the same output laws as the float samplers, so the theorems above cover them, with no
floating-point noise (Mir12) and work that does not depend on the counts.
``"float"`` is the numpy float sampler (reference implementation; not for releases).

Randomness.  :func:`release_status` says whether a release is private: only an exact
sampler fed by :class:`mechanisms.exact.sampling.SecureRandom` (the operating system's
CSPRNG, never seeded) is; a seeded generator (reproducible by anyone who knows the
seed) or the float sampler is not, and says why.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Hashable, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.core import BOT, DEFAULT_PREC, exact_context, to_ctx
from mechanisms.errors import InvalidHistogram, InvalidParameter, UnknownName
from mechanisms.limited_domain.gumbel import LimitDom, StrictLimitDom
from mechanisms.limited_domain.laplace import LimitDomLap
from mechanisms.stability.top_stable import TopStable

__all__ = ["MECHANISMS", "SAMPLERS", "SALT", "PAD_LABELS", "top_rows", "TopkResult", "run_topk", "privacy_of", "label_json",
           "release_status"]

#: Fixed salt of the contribution-bounding hash (data-independent; never change it
#: silently: results with and without the change are different mechanisms' inputs).
SALT = "dpverify-topk-v1"
#: Fixed filler labels (DR19 §6.2) used when fewer than kbar+1 items have a user.
PAD_LABELS = tuple(f"<pad {i}>" for i in range(1, 10_001))
MECHANISMS = ("limit-dom", "strict-limit-dom", "limit-dom-lap", "top-stable")
SAMPLERS = ("exact", "float")
_PARQUET = (".parquet", ".pq", ".parquet.gz")


def _quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _connect() -> Any:
    try:
        import duckdb
    except ImportError:  # pragma: no cover - depends on the environment
        raise InvalidParameter("dpverify topk needs DuckDB: pip install 'dpverify[topk]' (duckdb>=1.0)") from None
    return duckdb, duckdb.connect(database=":memory:")


def _source(path: str) -> str:
    low = path.lower()
    lit = "'" + path.replace("'", "''") + "'"
    if low.endswith(_PARQUET):
        return f"read_parquet({lit})"
    return f"read_csv({lit}, header = true)"


def top_rows(path: str, user: str, item: str, kbar: int, *, max_items_per_user: int | None = None) -> list[tuple[Hashable, int]]:
    """The true top-(kbar+1) items of DATA by number of distinct users: ``[(label, count), ...]``.

    Sorted by count descending, ties by label ascending (module docstring); at most
    ``kbar + 1`` rows (fewer if fewer items have a user).  Raises ``InvalidParameter``
    for a missing/unreadable file or column and ``InvalidHistogram`` for empty data.
    """
    kbar = V.pos_int("kbar", kbar)
    if max_items_per_user is not None:
        max_items_per_user = V.pos_int("max_items_per_user", max_items_per_user)
    if not isinstance(path, str) or not os.path.isfile(path):
        raise InvalidParameter(f"DATA={path!r} is not a readable file")
    duckdb, con = _connect()
    src = _source(path)
    try:
        try:
            cols = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {src}").fetchall()]
        except duckdb.Error as exc:
            raise InvalidParameter(f"DATA={path!r} cannot be read as {'Parquet' if 'parquet' in src else 'CSV'}: "
                                   f"{_first_line(exc)}") from None
        for flag, col in (("--user", user), ("--item", item)):
            if col not in cols:
                raise InvalidParameter(f"{flag}={col!r} is not a column of {path!r} (columns: {', '.join(cols)})")
        u, i = _quote_ident(user), _quote_ident(item)
        pairs = f"SELECT DISTINCT {u} AS u, {i} AS i FROM {src} WHERE {u} IS NOT NULL AND {i} IS NOT NULL"
        if max_items_per_user is not None:
            # data-independent per-user rule: the Delta items with the smallest salted md5
            pairs = (
                f"SELECT u, i FROM ({pairs}) QUALIFY row_number() OVER (PARTITION BY u ORDER BY "
                f"md5(? || CAST(u AS VARCHAR) || chr(31) || CAST(i AS VARCHAR)), i) <= ?"
            )
            params: list = [SALT, max_items_per_user]
        else:
            params = []
        sql = f"SELECT i, count(*) AS c FROM ({pairs}) GROUP BY i ORDER BY c DESC, i ASC LIMIT ?"
        try:
            rows = con.execute(sql, params + [kbar + 1]).fetchall()
        except duckdb.Error as exc:
            raise InvalidParameter(f"DATA={path!r}: query failed: {_first_line(exc)}") from None
    finally:
        con.close()
    if not rows:
        raise InvalidHistogram(f"DATA={path!r} has no (user, item) rows with both columns non-NULL")
    out = []
    for lab, c in rows:
        if lab in PAD_LABELS:
            raise InvalidParameter(f"item label {lab!r} collides with a reserved pad label")
        out.append((lab, V.nonneg_int(f"count of item {lab!r}", c)))
    return out


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _validate_top(top: Sequence[tuple[Hashable, int]], kbar: int) -> list[tuple[Hashable, int]]:
    """What the data system returned: at most kbar+1 distinct labels, counts integers >= 0, sorted descending."""
    top = list(top)
    if len(top) > kbar + 1:  # a guard on the access pattern, not a data-dependent choice
        raise RuntimeError(f"data system returned {len(top)} rows, more than kbar+1={kbar + 1}")
    if not top:
        raise InvalidHistogram("the data system returned no items")
    out = [(lab, V.nonneg_int(f"count of item {lab!r}", c)) for lab, c in top]
    if any(out[r][1] < out[r + 1][1] for r in range(len(out) - 1)):
        raise InvalidHistogram("the data system's rows are not sorted by count, largest first")
    if len({lab for lab, _ in out}) != len(out):
        raise InvalidHistogram("the data system returned a repeated item label")
    return out


def _padded(top: Sequence[tuple[Hashable, int]], kbar: int) -> tuple[list, list[int]]:
    labels = [lab for lab, _ in top][: kbar + 1]
    counts = [c for _, c in top][: kbar + 1]
    need = kbar + 1 - len(labels)
    labels += list(PAD_LABELS[:need])
    counts += [0] * need
    return labels, counts


def privacy_of(mechanism: str, k: int, eps: Any, delta: Any, *, Delta: int | None = None,
               delta_prime: Any = 0, prec: int = DEFAULT_PREC) -> dict:
    """The guarantee the mechanism's theorem claims: ``{"eps", "delta", "theorem", "neighbours"}``.

    ``eps`` and ``delta`` are the claimed *upper* bounds as printed, as strings: exact
    rationals where they are rational, else the mpmath value at ``prec`` bits shown to
    12 significant digits (display only; not rounded in the safe direction).
    """
    from proofs.composition.bounds import eq2_eps

    nb = "add/remove one user" if Delta is None else f"add/remove one user contributing to <= {Delta} items"
    if mechanism in ("limit-dom", "strict-limit-dom"):
        e = eq2_eps(k, eps, delta_prime, prec=prec)
        name = "DR19 Theorem 1, eq. (2)" if mechanism == "limit-dom" else "DR19 Lemma 6.6 (Theorem 1's guarantee, eq. (2))"
        return {"eps": _num(e, k * Fraction(eps) if delta_prime == 0 else None),
                "delta": str(Fraction(delta) + Fraction(delta_prime)), "theorem": name, "neighbours": nb}
    if mechanism == "limit-dom-lap":
        from proofs.dr19 import delta_bar

        if Delta is None:
            raise InvalidParameter("mechanism limit-dom-lap needs --max-items-per-user (Lemma 6.1 is for Delta-restricted data)")

        De = Delta * Fraction(eps)
        with exact_context(prec, False) as ctx:
            d = (ctx.exp(to_ctx(ctx, De)) + 1) * delta_bar(ctx, delta, Delta)
        out = {"eps": str(De), "delta": _num(d, None), "theorem": "DR19 Lemma 6.1 (corrected threshold ln(Delta/delta)/eps)",
               "neighbours": nb}
        if d >= 1:  # (e^{Delta eps} + 1) delta_bar grows like e^{Delta eps}: say so rather than print a meaningless pair
            out["note"] = "vacuous: the claimed delta is >= 1 (reduce Delta*eps)"
        return out
    if mechanism == "top-stable":
        return {"eps": str(Fraction(eps)), "delta": str(Fraction(delta)), "theorem": "CWGM20 Theorem 3.2 (eps_EM = 0)",
                "neighbours": nb}
    raise UnknownName(f"mechanism={mechanism!r} must be one of {', '.join(MECHANISMS)}")


def _num(x: Any, exact: Any) -> str:
    if exact is not None:
        return str(exact)
    import mpmath

    return mpmath.nstr(x, 12)


@dataclass
class TopkResult:
    """One release: ``selected`` labels (ordered; a set for top-stable), ``stopped`` (⊥ output)."""

    mechanism: str
    selected: list
    stopped: bool
    ordered: bool
    rows_read: int
    privacy: dict
    charge: int = 0
    params: dict = field(default_factory=dict)
    sampler: str = "exact"
    private: bool = False
    not_private: list = field(default_factory=list)

    def output_size(self) -> int:
        """``|o|`` as DR19 Algorithm 2 charges it: indices plus one for a ⊥."""
        return len(self.selected) + (1 if self.stopped else 0)


def label_json(x: Any) -> Any:
    if x is BOT:
        return "⊥"
    if isinstance(x, (bool, np.bool_)):
        return str(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    return str(x)


def check_params(mechanism: str, k: int, kbar: int | None, eps: Any, delta: Any, Delta: int | None) -> dict:
    """Validate everything before any data is read; returns the normalised parameters."""
    if mechanism not in MECHANISMS:
        raise UnknownName(f"mechanism={mechanism!r} must be one of {', '.join(MECHANISMS)}")
    k = V.pos_int("k", k)
    kbar = k if kbar is None else V.pos_int("kbar", kbar)
    eps = V.positive("eps", eps)
    delta = V.probability("delta", delta)
    if Delta is not None:
        Delta = V.pos_int("max_items_per_user", Delta)
    if mechanism == "limit-dom-lap" and Delta is None:
        raise InvalidParameter("mechanism limit-dom-lap needs --max-items-per-user (Lemma 6.1 is for Delta-restricted data)")
    p = {"k": k, "kbar": kbar, "eps": eps, "delta": delta, "Delta": Delta}
    _build(mechanism, p)  # the mechanisms' own validation (k <= kbar, Delta <= kbar, ...)
    return p


def _build(mechanism: str, p: dict, sampler: str = "exact") -> Any:
    k, kbar, eps, delta, Delta = p["k"], p["kbar"], p["eps"], p["delta"], p["Delta"]
    if sampler not in SAMPLERS:
        raise InvalidParameter(f"sampler={sampler!r} must be one of {', '.join(SAMPLERS)}")
    ex: dict[str, Any] = {"exact": True, "balanced": True} if sampler == "exact" else {}
    if mechanism == "limit-dom":
        return LimitDom(k, kbar, eps, delta, Delta, **ex)
    if mechanism == "strict-limit-dom":
        # Algorithm 5 as printed has no Delta threshold (its Delta field is an unprinted probe):
        # SQL bounding, if asked for, only shrinks the neighbour relation; the threshold stays ln(kbar/delta)/eps.
        return StrictLimitDom(k, kbar, eps, delta, **ex)
    if mechanism == "limit-dom-lap":
        return LimitDomLap(k, kbar, eps, delta, Delta, **ex)
    return TopStable(k, kbar, eps, delta, transcript=False, **ex)


def release_status(sampler: str, rng: Any, seeded: bool) -> tuple[bool, list[str]]:
    """``(private, reasons it is not)``: private only for the exact sampler on the secure source, unseeded."""
    from mechanisms.exact.sampling import SecureRandom

    why = []
    if sampler != "exact":
        why.append("float sampler: floating-point noise is open to Mironov's (2012) attacks")
    if seeded:
        why.append("seeded: anyone who knows the seed can reproduce the noise")
    if not isinstance(rng, SecureRandom):
        why.append("randomness not from the operating system's secure source")
    return not why, why


def run_topk(path: str, user: str, item: str, mechanism: str, *, k: int, kbar: int | None = None, eps: Any, delta: Any,
             max_items_per_user: int | None = None, rng: Any, delta_prime: Any = 0,
             fetch: Callable[..., list] | None = None, sampler: str = "exact", seeded: bool = False) -> TopkResult:
    """Validate, read the true top-(kbar+1) with DuckDB, run the mechanism once, return the release.

    ``rng``: a :class:`mechanisms.exact.sampling.SecureRandom` (a private release) or a numpy
    ``Generator`` (tests, experiments; the float sampler needs one); ``seeded`` records
    whether it was seeded (:func:`release_status`).
    """
    p = check_params(mechanism, k, kbar, eps, delta, max_items_per_user)
    mech = _build(mechanism, p, sampler)
    private, why = release_status(sampler, rng, seeded)
    top = (fetch or top_rows)(path, user, item, p["kbar"], max_items_per_user=p["Delta"])
    top = _validate_top(top, p["kbar"])
    priv = privacy_of(mechanism, p["k"], p["eps"], p["delta"], Delta=p["Delta"], delta_prime=delta_prime)
    if mechanism == "limit-dom":
        o = mech.release(top, rng=rng, pad=PAD_LABELS)[0]
        sel, ordered = list(o), True
    else:
        labels, counts = _padded(top, p["kbar"])
        o = mech.sample(counts, rng=rng, size=1)[0]
        if mechanism == "top-stable":
            # a set (CWGM20 §3); listed in label order, which carries no information
            sel = [BOT] if o == (BOT,) else sorted((labels[i] for i in o), key=lambda x: (str(type(x)), x))
            ordered = False
        else:
            sel = [x if x is BOT else labels[x] for x in o]
            ordered = True
    stopped = bool(sel) and sel[-1] is BOT
    if stopped:
        sel = sel[:-1]
    return TopkResult(mechanism, sel, stopped, ordered, len(top), priv, sampler=sampler, private=private, not_private=why,
                      params={"k": p["k"], "kbar": p["kbar"], "eps": str(p["eps"]), "delta": str(p["delta"]),
                              "max_items_per_user": p["Delta"], "delta_prime": str(delta_prime)})
