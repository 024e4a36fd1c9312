"""The auditor's defaults and vocabularies as plain constants: importing this module imports nothing else, so
``dpverify audit --help`` can show them without loading numpy or scipy.  ``core``, ``stats`` and ``adapters`` use
(and re-export) these names."""

from __future__ import annotations

__all__ = ["DEFAULT_SAMPLES", "DEFAULT_SELECTION_FRACTION", "DEFAULT_MAX_PAIRS", "DEFAULT_ALPHA", "DEFAULT_SEED",
           "SHAPES", "H_FORMATS", "CALLING_CONVENTION"]

#: Samples per input histogram an audit may draw (selection + estimation); the design target: detect a
#: delta-violation of 0.05 with at most 1e5 per input.
DEFAULT_SAMPLES = 100_000

#: Share of the per-input budget spent on the selection sample (events chosen
#: there are estimated on the rest, independently).
DEFAULT_SELECTION_FRACTION = 0.1

#: Number of neighbouring pairs tested (the most critical ones).
DEFAULT_MAX_PAIRS = 3

#: Family-wise error rate of one audit (1 - confidence): the probability that a
#: correct implementation gets a FAIL is at most this, whatever the number of
#: tests inside the audit (Bonferroni).  0.01 (99% confidence) rather than 0.05
#: because a false alarm on a correct mechanism is as serious as a miss; the
#: power benchmark also reports the 95% setting of its target (``alpha=0.05``, :mod:`dpverify.auditor.power`).
DEFAULT_ALPHA = 0.01

#: Seed of every audit unless the caller gives one (audits are deterministic).
DEFAULT_SEED = 20240601

SHAPES = ("mechanism", "batch", "single", "unseeded")
H_FORMATS = ("list", "tuple", "array")

#: how a black-box target is called (``dpverify audit --help``, README.md and the tutorial say the same)
CALLING_CONVENTION = (
    "TARGET is called as f(h, rng) -> one output, or f(h, rng, size) -> a sequence of size outputs (the faster "
    "form), or f(h) -> one output (unseeded: not reproducible), or is an object with a sample(h, *, rng, size) "
    "method; h is the histogram (a list of counts, see --h-format), rng a numpy.random.Generator the audit seeds "
    "(draw every random number from it); an output is a tuple (or list) of item indices, 0-based unless "
    "--index-base 1. --param is NOT passed to a function TARGET: it parameterises the --spec reference; bind "
    "the target's own parameters yourself (functools.partial, a closure), or give a class, which is "
    "instantiated with the --param values.")
