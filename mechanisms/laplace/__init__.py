"""Report-noisy-max with Laplace noise: one selection and one-shot ordered top-k (DR19 eq. (1))."""

from .noisy_max import MAX_SPREAD, LaplaceTopK, ReportNoisyMaxLaplace, laplace_top_indices

__all__ = ["ReportNoisyMaxLaplace", "LaplaceTopK", "laplace_top_indices", "MAX_SPREAD"]
