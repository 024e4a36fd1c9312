"""Partition selection (key selection, tau-thresholding): a key with n distinct users is released independently
with probability p(n), p(0) = 0 (Desfontaines, Voss, Gipson & Mandayam, PoPETs 2022, arXiv:2006.03684).

``keep`` holds the exact keep probabilities (the truncated-geometric optimum as a tight recursion and as
Google's floored closed form, Laplace and Gaussian thresholding at Google's thresholds, the L-key split, the
pre-threshold wrapper); ``selection`` the mechanism (exact law of the released key set + float sampler) and its
``REGISTRY`` lines; ``values`` thresholding that releases each kept key with its noisy count (the value law and one
key's exact privacy profile).
"""

from mechanisms.partition_selection.selection import STRATEGIES, PartitionSelection
from mechanisms.partition_selection.values import ThresholdValues

__all__ = ["PartitionSelection", "STRATEGIES", "ThresholdValues"]
