"""The worst-case search: a claim checked where it binds -- realistic parameters, large counts, longer histograms.

- :mod:`~dpverify.search.grid`: the realistic parameter points (eps 0.01-4, delta 1e-3-1e-10, k and kbar up to 10/20);
- :mod:`~dpverify.search.candidates`: candidate pairs around a mechanism's critical scales, and local moves;
- :mod:`~dpverify.search.run`: screening, successive halving with hill-climbing, hypothesis-targeted search, and the
  interval re-evaluation of the best instance.
"""

from .run import DEFAULT_EVALS, SearchResult, search

__all__ = ["search", "SearchResult", "DEFAULT_EVALS"]
