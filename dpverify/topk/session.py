"""A pay-what-you-get session persisted in SQLite: DR19 Algorithm 2 / Theorem 2 across invocations.

The accounting is :class:`mechanisms.pay_what_you_get.MultiLimitDomSession`'s
(DR19 §3, Algorithm 2): a session is created with ``k*``, ``l*`` and the
per-round ``(eps, delta, Delta)``; each round runs ``LimitDom^{k_i, kbar_i}`` with
those parameters, is refused if the session is closed (``k* <= 0`` or ``l* <= 0``
left) or ``k_i > k*`` left, and is charged ``|o_i|`` -- ⊥ counted as one element --
against k* and 1 against l*.  The whole session's guarantee is Theorem 2:
``(eps*, 2 l* delta + delta')``, whatever is used, where ``eps*`` bounds the adaptive
composition of at most k* eps-bounded-range exponential-mechanism calls at ``delta'``
(Lemma 7.1; printed as eq. (3) = Lemma 4.4).  ``dpverify topk --budget`` reports it with
the tightest valid accountant for that step and names it
(:func:`dpverify.budget.theorem2_accountants`: Lemma 4.4, the zCDP route, DDR20's adaptive
bound or KOV; never the optimal *non-adaptive* value, which the adaptive rounds do not have).

Only private releases are charged: a seeded run or a float-sampler run is refused
(``NotAPrivateRelease``) before the budget is checked or any data read -- its noise is
reproducible or exposed, so recording it as a round would misstate what was released.

Atomicity.  :meth:`BudgetFile.charge` runs one round inside ONE SQLite write
transaction (``BEGIN IMMEDIATE``; the rollback journal with ``synchronous=FULL``):

1. check the budget -- an over-budget request raises ``BudgetExceeded`` before
   ``run`` is called, so no data is read;
2. reserve: the worst case ``|o_i| <= k_i`` is what the check admits;
3. ``run()`` reads the data and draws the output;
4. record the round (output and charge) and COMMIT.

The caller prints the output only after the commit returns.  A crash (kill -9)
before COMMIT leaves the file as it was: no output was released and nothing is
charged; a crash after COMMIT leaves the charge recorded (charged, perhaps
unseen: the safe direction).  Never both, never twice.  An exception in ``run``
(bad file, missing column ...) rolls back: nothing charged.

Test hook: if ``DPVERIFY_TOPK_TEST_SLEEP`` is set, the process writes
``charging`` to stderr and sleeps that many seconds between the INSERT and the
COMMIT (so a test can kill it mid-charge).
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from fractions import Fraction
from typing import Any, Callable

from mechanisms import validation as V
from mechanisms.errors import BudgetExceeded, InvalidParameter, NotAPrivateRelease

__all__ = ["BudgetFile", "TEST_SLEEP_ENV"]

TEST_SLEEP_ENV = "DPVERIFY_TOPK_TEST_SLEEP"
_SCHEMA_VERSION = "1"


class BudgetFile:
    """The SQLite-backed session at ``path`` (created on first use with ``k_star``, ``l_star``)."""

    def __init__(self, path: str, *, k_star: int | None = None, l_star: int | None = None,
                 eps: Any, delta: Any, Delta: int | None):
        self.path = path
        k_star = None if k_star is None else V.pos_int("k_star", k_star)
        l_star = None if l_star is None else V.pos_int("l_star", l_star)
        eps, delta = V.positive("eps", eps), V.probability("delta", delta)
        cfg = {"eps": str(Fraction(eps)), "delta": str(Fraction(delta)), "Delta": Delta}
        try:
            self._con = sqlite3.connect(path, isolation_level=None, timeout=30)
            self._con.execute("PRAGMA synchronous=FULL")
            self._con.execute("BEGIN IMMEDIATE")
            tables = {r[0] for r in self._con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as exc:
            raise InvalidParameter(f"--budget={path!r} is not a dpverify budget file: {exc}") from None
        try:
            if not tables:
                if k_star is None or l_star is None:
                    raise InvalidParameter(f"--budget={path!r} does not exist yet: give --k-star and --l-star to create it")
                cfg.update(k_star=V.pos_int("k_star", k_star), l_star=V.pos_int("l_star", l_star), schema=_SCHEMA_VERSION)
                self._con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
                self._con.execute("CREATE TABLE rounds (id INTEGER PRIMARY KEY, at REAL NOT NULL, request TEXT NOT NULL,"
                                  " output TEXT NOT NULL, charge INTEGER NOT NULL CHECK (charge >= 1))")
                self._con.executemany("INSERT INTO meta VALUES (?, ?)", [(k, json.dumps(v)) for k, v in cfg.items()])
            elif tables != {"meta", "rounds"}:
                raise InvalidParameter(f"--budget={path!r} is not a dpverify budget file (tables: {sorted(tables)})")
            meta = {k: json.loads(v) for k, v in self._con.execute("SELECT key, value FROM meta")}
            for key, given in (("k_star", k_star), ("l_star", l_star)):
                if given is not None and given != meta[key]:
                    raise InvalidParameter(f"--{key.replace('_', '-')}={given} differs from the session's {meta[key]} in "
                                           f"{path!r}")
            for key in ("eps", "delta", "Delta"):
                if cfg[key] != meta[key]:
                    raise InvalidParameter(
                        f"{key}={cfg[key]} differs from the session's {key}={meta[key]} (Algorithm 2 runs every round with the "
                        f"same parameters)")
            self._con.execute("COMMIT")
        except BaseException:
            self._con.execute("ROLLBACK")
            self._con.close()
            raise
        self.meta = meta

    def close(self) -> None:
        self._con.close()

    def _used(self) -> tuple[int, int]:
        k_used, l_used = self._con.execute("SELECT coalesce(sum(charge), 0), count(*) FROM rounds").fetchone()
        return int(k_used), int(l_used)

    def state(self) -> dict:
        k_used, l_used = self._used()
        return {"k_star": self.meta["k_star"], "l_star": self.meta["l_star"], "k_used": k_used, "l_used": l_used,
                "k_remaining": self.meta["k_star"] - k_used, "l_remaining": self.meta["l_star"] - l_used}

    def charge(self, k: int, request: dict, run: Callable[[], Any], cost: Callable[[Any], int], describe: Callable[[Any], Any],
               *, private: bool = False, not_private: Any = ()) -> tuple[Any, dict]:
        """One round of Algorithm 2, atomically (module docstring).  Returns ``(result, state after)``.

        ``private`` must be true (an unseeded exact release from the secure source,
        :func:`dpverify.topk.release.release_status`): a seeded or float run is refused with
        ``NotAPrivateRelease`` before anything is read or charged -- its output is not
        private, so charging it would count a reproducible draw as a real release.
        """
        k = V.pos_int("k", k)
        if not private:
            why = "; ".join(not_private) or "not marked private"
            raise NotAPrivateRelease(f"budget session {self.path!r} charges only private releases; this run is not private "
                                     f"({why})")
        self._con.execute("BEGIN IMMEDIATE")  # exclusive writer from the check to the commit
        try:
            st = self.state()
            if st["k_remaining"] <= 0 or st["l_remaining"] <= 0:
                raise BudgetExceeded(f"budget session {self.path!r} is closed: k* left={st['k_remaining']}, l* "
                                     f"left={st['l_remaining']}")
            if k > st["k_remaining"]:
                raise BudgetExceeded(f"k={k} exceeds the remaining index budget k*={st['k_remaining']} of {self.path!r}")
            result = run()  # the only read of the data
            c = cost(result)
            if not 1 <= c <= k:  # |o_i| <= k_i: the reservation admitted at most k
                raise RuntimeError(f"round cost {c} outside [1, k={k}]")
            self._con.execute("INSERT INTO rounds (at, request, output, charge) VALUES (?, ?, ?, ?)",
                              (time.time(), json.dumps(request, sort_keys=True),
                               json.dumps(describe(result), ensure_ascii=False), c))
            hook = os.environ.get(TEST_SLEEP_ENV)
            if hook:
                sys.stderr.write("charging\n")
                sys.stderr.flush()
                time.sleep(float(hook))
            after = self.state()
            self._con.execute("COMMIT")
        except BaseException:
            self._con.execute("ROLLBACK")
            raise
        return result, after
