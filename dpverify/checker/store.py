"""A resumable result store: checked chunks in SQLite, keyed by what computed them.

Key = (claim id, domain, chunk index, chunk size, precision, certify, *code hash*).
The code hash covers the source of the claim's own ledger module and of every
project module it imports, transitively (plus the checker's modules), so a code
change invalidates exactly the claims whose code it touched.  Each chunk is
written in its own transaction (SQLite journal, ``synchronous=FULL``): killing a
run at any moment loses at most the chunk in flight and never corrupts the file.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import pickle
import sqlite3
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["ResultStore", "code_hash", "DEFAULT_STORE"]

#: Where ``--resume`` keeps its store unless told otherwise.
DEFAULT_STORE = ".dpverify-cache/checks.sqlite"

_PROJECT = ("mechanisms", "proofs", "dpverify")
_CHECKER_MODULES = ("dpverify.checker.core", "dpverify.checker.numbers", "dpverify.checker.profile",
                    "dpverify.checker.neighbours", "mechanisms.exact.cache", "proofs.claims")


@lru_cache(maxsize=None)
def _source(module: str) -> tuple[str, tuple[str, ...]]:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return "", ()
    text = Path(spec.origin).read_text(encoding="utf-8")
    deps: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            deps.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import inside a project package
                pkg = module.rsplit(".", node.level)[0] if module.count(".") >= node.level - 1 else module
                base = f"{pkg}.{node.module}" if node.module else pkg
                deps.add(base)
                deps.update(f"{base}.{a.name}" for a in node.names)
            elif node.module:
                deps.add(node.module)
                deps.update(f"{node.module}.{a.name}" for a in node.names)
    return text, tuple(sorted(d for d in deps if d.split(".")[0] in _PROJECT and _find_spec_safe(d)))


def _find_spec_safe(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


@lru_cache(maxsize=None)
def code_hash(module: str) -> str:
    """sha256 over the sources of ``module``, its transitive project imports, and the checker."""
    seen: set[str] = set()
    todo = [module, *_CHECKER_MODULES]
    h = hashlib.sha256()
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        try:
            text, deps = _source(m)
        except (ImportError, ValueError, SyntaxError):
            continue
        todo.extend(deps)
    for m in sorted(seen):
        h.update(m.encode() + b"\0" + _source(m)[0].encode() + b"\0")
    return h.hexdigest()[:20]


class ResultStore:
    """Chunk results of checks, persisted in SQLite (see the module docstring)."""

    def __init__(self, path: str | Path = DEFAULT_STORE):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(self.path), timeout=60, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("CREATE TABLE IF NOT EXISTS chunks (key TEXT PRIMARY KEY, claim TEXT, value BLOB)")
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(claim_id: str, domain_repr: str, index: int, size: int, prec: int, certify: bool, code: str) -> str:
        raw = "\x1f".join(map(str, (claim_id, domain_repr, index, size, prec, certify, code)))
        return hashlib.sha256(raw.encode()).hexdigest()

    def get(self, key: str) -> Any | None:
        row = self.db.execute("SELECT value FROM chunks WHERE key = ?", (key,)).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return pickle.loads(row[0])

    def put(self, key: str, claim_id: str, value: Any) -> None:
        blob = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute("INSERT OR REPLACE INTO chunks (key, claim, value) VALUES (?, ?, ?)", (key, claim_id, blob))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]

    def close(self) -> None:
        self.db.close()
