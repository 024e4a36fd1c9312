"""The limited-domain family of Durfee & Rogers (DR19 §3, §5, §6, App. F).

- :mod:`~mechanisms.limited_domain.domain`: eq. (5) / (9) domains and the ⊥ multiplier (shared);
- :mod:`~mechanisms.limited_domain.gumbel`: LimitDom (Algorithm 1), StrictLimitDom (Algorithm 5);
- :mod:`~mechanisms.limited_domain.peeling`: LEM (Definition 5.1) and pLEM (Algorithm 3);
- :mod:`~mechanisms.limited_domain.laplace`: the Laplace limited domain (Algorithm 4, LapMax);
- :mod:`~mechanisms.limited_domain.optimal_threshold`: Algorithm 6 (private kbar);
- :mod:`~mechanisms.limited_domain.fixed_threshold`: App. F (tRR, fixed threshold);
- :mod:`~mechanisms.limited_domain.batch`: the batched float race (``sample_array``).
"""

from .domain import VARIANTS, as_counts, bot_multiplier, limited_domain, strict_domain, top_sorted
from .fixed_threshold import FixedThreshold, RestrictedFixedThreshold, TruncatedRR
from .gumbel import LimitDom, StrictLimitDom, race_array, race_distribution, race_sample
from .laplace import LapMax, LimitDomLap
from .optimal_threshold import OptimalThreshold
from .peeling import LEM, PLEM, lem_weights

__all__ = [
    "VARIANTS", "limited_domain", "strict_domain", "bot_multiplier", "top_sorted", "as_counts",
    "LimitDom", "StrictLimitDom", "race_distribution", "race_sample", "race_array",
    "LEM", "PLEM", "lem_weights", "LimitDomLap", "LapMax", "OptimalThreshold",
    "TruncatedRR", "FixedThreshold", "RestrictedFixedThreshold",
]
