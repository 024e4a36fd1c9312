"""One registry of every claim: discovered from the ``CLAIMS`` list of each ledger module.

A ledger module is any module ``proofs/<name>.py`` that defines ``CLAIMS``; adding a
paper item means adding an object to one such list -- nothing else to edit.  :data:`CLAIM_REGISTRY` (a
:class:`~mechanisms.discovery.Registry`) discovers them on first use and takes the claims and lemmas a
researcher registers (:mod:`dpverify.byo`).
``claims_index.txt`` is the project's copy of every id the toolkit must cover
(from the shared CLAIMS_INDEX); ids without a registered claim are reported as
"not yet covered", never omitted.  Entries of papers beyond the index's (DR19, DR19-NeurIPS, CWGM20,
GJMR21; keys of ``docs/references.md``) -- :data:`OTHER_PAPERS`: zCDP, bounded range, permute-and-flip,
optimal BR composition, partition selection -- have ids of their own scheme and are not in the index.
"""

from __future__ import annotations

from pathlib import Path

from mechanisms.discovery import Registry

from .claims import Claim

__all__ = ["CLAIM_REGISTRY", "all_claims", "get_claim", "required_ids", "uncovered_ids", "OTHER_PAPERS", "is_other_paper"]

#: Papers beyond the claims index whose items have ledger entries (ids ``<KEY>.*``; not in ``claims_index.txt``).
OTHER_PAPERS = {
    "BS16": "Bun & Steinke, Concentrated Differential Privacy: Simplifications, Extensions, and Lower Bounds (TCC 2016)",
    "CR21": "Cesar & Rogers, Bounding, Concentrating, and Truncating: Unifying Privacy Loss Composition (ALT 2021)",
    "DDR20": "Dong, Durfee & Rogers, Optimal DP Composition for Exponential Mechanisms and the Cost of Adaptivity (ICML 2020)",
    "DVGM22": "Desfontaines, Voss, Gipson & Mandayam, Differentially Private Partition Selection (PoPETs 2022)",
    "MS20": "McKenna & Sheldon, Permute-and-Flip: A new mechanism for DP selection (NeurIPS 2020)",
}


def is_other_paper(claim_id: str) -> bool:
    """Whether ``claim_id`` belongs to a paper of :data:`OTHER_PAPERS` (not an item of the claims index)."""
    return claim_id.split(".", 1)[0] in OTHER_PAPERS

_HERE = Path(__file__).parent


def _claim_id(claim: Claim) -> str:
    return claim.id


#: The claim registry: every ``CLAIMS`` list of the ledger modules (discovered on first use, in dotted-name then
#: list order) and the claims and lemmas a researcher registers (:mod:`dpverify.byo`), by id.
CLAIM_REGISTRY: Registry[Claim] = Registry("proofs", "CLAIMS", key=_claim_id, skip=("claims", "registry"),
                                           what="claim", lister="dpverify claims")


def all_claims() -> dict[str, Claim]:
    """Every registered claim by id, in ledger-module then list order (a copy of :data:`CLAIM_REGISTRY`'s table)."""
    return CLAIM_REGISTRY.entries()


def get_claim(claim_id: str) -> Claim:
    """The claim with this id; ``UnknownName`` (a KeyError) naming close matches otherwise."""
    return CLAIM_REGISTRY.get(claim_id)


def required_ids() -> list[str]:
    """Every paper item id the toolkit must cover, in the index's order."""
    return [line.strip() for line in (_HERE / "claims_index.txt").read_text().splitlines() if line.strip()]


def uncovered_ids() -> list[str]:
    """Required ids with no registered claim yet (reported as 'not yet covered')."""
    have = {c.paper_id for c in all_claims().values()}
    return [i for i in required_ids() if i not in have]
