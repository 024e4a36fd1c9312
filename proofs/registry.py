"""One registry of every claim: discovered from the ``CLAIMS`` list of each ledger module.

A ledger module is any module ``proofs/<name>.py`` that defines ``CLAIMS``; adding a
paper item means adding an object to one such list -- nothing else to edit.
``claims_index.txt`` is the project's copy of every id the toolkit must cover
(from the shared CLAIMS_INDEX); ids without a registered claim are reported as
"not yet covered", never omitted.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from pathlib import Path

from mechanisms.errors import UnknownName

from .claims import Claim

__all__ = ["all_claims", "get_claim", "required_ids", "uncovered_ids"]

_HERE = Path(__file__).parent


@lru_cache(maxsize=1)
def all_claims() -> dict[str, Claim]:
    """Every registered claim by id, in ledger-module then list order."""
    import proofs

    out: dict[str, Claim] = {}
    for info in sorted(pkgutil.iter_modules(proofs.__path__), key=lambda m: m.name):
        if info.name.startswith("_") or info.name in ("claims", "registry"):
            continue
        mod = importlib.import_module(f"proofs.{info.name}")
        for claim in getattr(mod, "CLAIMS", ()):
            if claim.id in out:
                raise RuntimeError(f"claim id {claim.id!r} registered twice (second in proofs.{info.name})")
            out[claim.id] = claim
    return out


def get_claim(claim_id: str) -> Claim:
    """The claim with this id; ``UnknownName`` (a KeyError) naming close matches otherwise."""
    claims = all_claims()
    if claim_id in claims:
        return claims[claim_id]
    import difflib

    close = difflib.get_close_matches(claim_id, list(claims), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `dpverify claims` lists them"
    raise UnknownName(f"claim={claim_id!r} is not registered{hint}")


def required_ids() -> list[str]:
    """Every paper item id the toolkit must cover, in the index's order."""
    return [line.strip() for line in (_HERE / "claims_index.txt").read_text().splitlines() if line.strip()]


def uncovered_ids() -> list[str]:
    """Required ids with no registered claim yet (reported as 'not yet covered')."""
    have = {c.paper_id for c in all_claims().values()}
    return [i for i in required_ids() if i not in have]
