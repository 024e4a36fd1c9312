"""Neighbour relations and the enumeration of bounded domains, as the checker uses them.

The relations, their parsing and the pair enumeration live one layer down, in :mod:`mechanisms.neighbours`
(so that the proofs use the same definitions); this module re-exports them under their old names.
"""

from __future__ import annotations

from mechanisms.neighbours import (
    Relation,
    RelationKind,
    Symmetry,
    count_pairs,
    histograms,
    is_neighbour,
    moves,
    neighbours,
    pairs,
    parse_relation,
    parse_symmetries,
    relation_for,
    resolve_relation,
)

__all__ = [
    "Relation",
    "RelationKind",
    "Symmetry",
    "parse_relation",
    "parse_symmetries",
    "is_neighbour",
    "moves",
    "neighbours",
    "histograms",
    "pairs",
    "count_pairs",
    "resolve_relation",
    "relation_for",
]
