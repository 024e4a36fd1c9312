"""Pay-what-you-get composition (DR19 Algorithm 2 / Theorem 2, §7): sessions, analyst strategies, pMultiLEM."""

from .pmultilem import PMultiLEM
from .session import (
    MultiLimitDom,
    MultiLimitDomSession,
    Round,
    eq3_eps,
    sample_transcripts,
    theorem2_guarantee,
    transcript_distribution,
)
from .strategies import STRATEGIES, get_strategy
from .transcript import CHARGES, answer, charge_of

__all__ = [
    "MultiLimitDom", "MultiLimitDomSession", "Round", "eq3_eps", "theorem2_guarantee", "transcript_distribution",
    "sample_transcripts", "PMultiLEM", "STRATEGIES", "get_strategy", "CHARGES", "answer", "charge_of",
]
