"""The exponential-mechanism family (DR19 §4.1): EM, peeling EM, one-shot Gumbel top-k."""

from .em import ExponentialMechanism, OneShotGumbel, PeelingEM, em_weights, peeling_probability

__all__ = ["ExponentialMechanism", "PeelingEM", "OneShotGumbel", "em_weights", "peeling_probability"]
