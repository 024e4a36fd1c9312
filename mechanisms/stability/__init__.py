"""Stability-based selection of Carvalho et al. (CWGM20): A_stab, SVT, TS, FS, A_OQR-v2, and their calibration."""

from .astab import AStab, StableTopSet, distance_to_instability, gap_query, top_set
from .calibration import delta_max, solve_delta_q
from .first_stable import AOQRv2, FirstStable, StabQuery
from .svt import SVT
from .top_stable import TopStable

__all__ = ["AStab", "StableTopSet", "top_set", "gap_query", "distance_to_instability", "SVT", "TopStable",
           "FirstStable", "AOQRv2", "StabQuery", "delta_max", "solve_delta_q"]
