"""The exponential-mechanism family: EM, peeling EM, one-shot Gumbel (DR19 §4.1), and permute-and-flip (MS20) with
its peeled top-k."""

from .em import ExponentialMechanism, OneShotGumbel, PeelingEM, em_weights, peeling_probability
from .permute_flip import PeelingPF, PermuteAndFlip, pf_expected_error, pf_probabilities

__all__ = ["ExponentialMechanism", "PeelingEM", "OneShotGumbel", "em_weights", "peeling_probability",
           "PermuteAndFlip", "PeelingPF", "pf_probabilities", "pf_expected_error"]
