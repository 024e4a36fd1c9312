"""The exact engine every family uses: exact laws, certified enclosures and integer-only sampling.

- :mod:`~mechanisms.exact.exppoly` (with :mod:`~mechanisms.exact._points`): piecewise
  exponential-polynomials, the closed-form integrals behind every Laplace-noise law;
- :mod:`~mechanisms.exact.laplace_order`, :mod:`~mechanisms.exact.threshold_runs`: order
  probabilities of shifted Laplace variables, and runs of noisy queries against one noisy threshold;
- :mod:`~mechanisms.exact.gumbel_order`: order probabilities of Gumbel-perturbed scores (the one-shot race);
- :mod:`~mechanisms.exact.sampling`, :mod:`~mechanisms.exact.race`: randomness with integers and
  rationals only (exact Bernoulli, exact weights, ``SecureRandom`` over ``os.urandom``) and the exact
  samplers of the Gumbel / EM families;
- :mod:`~mechanisms.exact.lazy_noise`, :mod:`~mechanisms.exact.noisy_race`: exact continuous noise
  (Laplace, Gumbel) revealed digit by digit, and races / threshold runs decided by integer
  enclosures -- lazily, or on the balanced schedule whose work depends on public sizes only;
- :mod:`~mechanisms.exact.cache`: memoised exact laws (a histogram appears in many pairs).

Imports only the foundation (:mod:`mechanisms.core`, ``errors``, ``validation``), never a family.
"""
