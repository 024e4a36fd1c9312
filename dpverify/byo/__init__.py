"""Bring your own: a researcher's mechanism, its privacy claim and lemmas, checked like the ledger's own entries.

::

    from dpverify.byo import register, register_lemma

    reg = register("my-rnm", MyMechanism, params={"eps": 1}, claim=lambda p: (p["eps"], 0))
    reg.check()                      # exact, every neighbouring pair of a small domain
    reg.search(evals=200)            # the worst-case search (dpverify search)
    reg.profile((3, 1, 0))           # exact delta(eps) against the worst neighbour
    reg.audit()                      # statistical audit of its own sampler
    lem = register_lemma("my-rnm.top-wins", my_lemma, mechanism="my-rnm", relation="none")
    lem.check(); lem.search()

A mechanism needs ``distribution(h)`` (a dict outcome -> probability; if it takes ``prec`` and ``interval``
keywords and returns ``mpmath.iv`` intervals, verdicts are certified) and, to be audited,
``sample(h, *, rng, size)``; it may declare ``symmetries(d)`` and ``critical_scales()`` (hints for the
checker's reductions and the search; declared symmetries are spot-checked at registration).

After registration the names work everywhere built-in ones do: the mechanism in ``dpverify profile``,
``equal``, ``audit --spec``, ``search``, :func:`dpverify.testing.assert_dp`; the claim (``BYO.<name>``) and
lemmas in ``dpverify check``, ``search``, ``verify --only``, :func:`dpverify.testing.assert_claim` and the
pytest fixture ``dp_claim``.  On the command line ``dpverify --load my_file.py COMMAND ...`` or
``DPVERIFY_LOAD=my_file.py`` loads the file first (:mod:`~dpverify.byo.load`), for every command.

Rooms: :mod:`~dpverify.byo.mechanism` (``register``: mechanisms and privacy claims, their notions and
hints), :mod:`~dpverify.byo.lemma` (``register_lemma``), :mod:`~dpverify.byo.load` (``--load`` and
``DPVERIFY_LOAD``), :mod:`~dpverify.byo.guard` (a user's failures as one-line errors naming the file, the
line and the instance).  ``examples/rnm_geometric/`` is a complete, tested walk-through.
"""

from dpverify.checker.spec_claims import spec_claim

from .lemma import Lemma, RegisteredLemma, register_lemma, unregister_lemma
from .load import load, load_for_command, load_from_env, loaded, unload
from .mechanism import DEFAULT_BYO_DOMAIN, Registered, claim_of, notions_supported, register, unregister, user_claims

__all__ = ["DEFAULT_BYO_DOMAIN", "Registered", "RegisteredLemma", "Lemma", "register", "register_lemma", "unregister",
           "unregister_lemma",
           "spec_claim", "load", "load_from_env", "load_for_command", "loaded", "unload", "user_claims", "notions_supported",
           "claim_of"]
