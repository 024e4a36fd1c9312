"""One ``dpverify topk`` release, from the command line's values to what it prints (the command only parses and prints).

:func:`prepare` validates everything before any data is read (the seed, ``delta'``, the mechanism's parameters) and
chooses the generator: the operating system's secure source, unless a seed is given or the float sampler is asked
for (then numpy's PCG64, and the release is reported as not private, :func:`dpverify.topk.release.release_status`).
:meth:`PreparedRelease.run` reads the data and releases once -- with ``budget``, as one round of the persisted
pay-what-you-get session (DR19 Algorithm 2, :class:`dpverify.topk.session.BudgetFile`), charged atomically and
reported with the session's DR19 Theorem 2 guarantee under the tightest valid accountant
(:func:`dpverify.budget.theorem2_accountants`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mechanisms.errors import InvalidParameter

from .release import TopkResult, check_params, label_json, release_status, run_topk

__all__ = ["TopkRequest", "PreparedRelease", "TopkOutcome", "prepare"]


@dataclass(frozen=True)
class TopkRequest:
    """The values of one ``dpverify topk`` command line (strings as typed; validated by :func:`prepare`)."""

    data: str
    user: str
    item: str
    mechanism: str
    k: Any
    eps: Any
    delta: Any
    kbar: Any = None
    delta_prime: Any = "0"
    max_items_per_user: Any = None
    seed: Any = None
    float_sampler: bool = False
    budget: str | None = None
    k_star: Any = None
    l_star: Any = None


@dataclass(frozen=True)
class TopkOutcome:
    """A release and what is reported about it: the normalised parameters ``params``, the ``seed``, the generator
    (``randomness``) and, for a budget session, the session's state after the charge (``budget``)."""

    result: TopkResult
    params: dict[str, Any]
    seed: int | None
    randomness: str
    budget: dict[str, Any] | None = None

    def selected(self) -> list[Any]:
        """The selected labels as JSON values, ``"⊥"`` last if the mechanism stopped early."""
        return _render(self.result)

    def as_json(self) -> dict[str, Any]:
        """The document ``dpverify topk --json`` prints."""
        res = self.result
        out = {"mechanism": res.mechanism, "selected": self.selected(), "stopped_early": res.stopped, "ordered": res.ordered,
               "rows_read": res.rows_read, "privacy": res.privacy, "params": res.params, "seed": self.seed,
               "sampler": res.sampler, "private": res.private, "not_private_because": res.not_private,
               "randomness": self.randomness}
        if self.budget is not None:
            out["charged"] = res.charge
            out["budget"] = self.budget
        return out


@dataclass(frozen=True)
class PreparedRelease:
    """A validated request with its generator: nothing has been read yet."""

    request: TopkRequest
    params: dict[str, Any]
    seed: int | None
    delta_prime: Any
    sampler: str
    rng: Any
    private: bool
    not_private: list[str]

    def run(self) -> TopkOutcome:
        """Read the data and release once (a charged round of the session with ``budget``)."""
        from mechanisms.exact.sampling import SecureRandom

        req, p, seed = self.request, self.params, self.seed

        def release() -> TopkResult:
            return run_topk(req.data, req.user, req.item, req.mechanism, k=p["k"], kbar=p["kbar"], eps=p["eps"],
                            delta=p["delta"], max_items_per_user=p["Delta"], rng=self.rng, delta_prime=self.delta_prime,
                            sampler=self.sampler, seeded=seed is not None)

        budget = None
        if req.budget:
            res, budget = self._charged(release)
        else:
            res = release()
        rng = self.rng
        randomness = ("os.urandom "
                      "(SecureRandom)" if isinstance(rng, SecureRandom) else f"numpy {type(rng.bit_generator).__name__}"
                      + (f" seeded with {seed}" if seed is not None else " seeded from OS entropy"))
        return TopkOutcome(res, p, seed, randomness, budget)

    def _charged(self, release: Any) -> tuple[TopkResult, dict[str, Any]]:
        """One round of DR19 Algorithm 2 in the session file, and the session's state with its Theorem 2 guarantee."""
        import mpmath

        from dpverify.budget import theorem2_accountants

        from .session import BudgetFile

        req, p = self.request, self.params
        assert req.budget is not None
        if req.mechanism != "limit-dom":
            raise InvalidParameter(f"--budget runs DR19 Algorithm 2, whose rounds are LimitDom: --mechanism={req.mechanism!r} "
                                   "is not allowed with it")
        bf = BudgetFile(req.budget, k_star=req.k_star, l_star=req.l_star, eps=p["eps"], delta=p["delta"], Delta=p["Delta"])
        try:
            request = {"data": req.data, "user": req.user, "item": req.item, "k": p["k"], "kbar": p["kbar"], "seed": self.seed}
            res, state = bf.charge(p["k"], request, release, cost=lambda r: r.output_size(), describe=_render,
                                   private=self.private, not_private=self.not_private)
        finally:
            bf.close()
        g = theorem2_accountants(bf.meta["k_star"], bf.meta["l_star"], p["eps"], p["delta"], self.delta_prime)
        state["session_guarantee"] = {
            "eps": mpmath.nstr(g["eps"], 12), "delta": str(g["delta"]), "accountant": g["accountant"],
            "theorem": "DR19 Theorem 2, its composition step (Lemma 7.1) bounded by the tightest valid accountant",
            "candidates": {m: (None if v is None else mpmath.nstr(v, 12)) for m, v in g["candidates"].items()}}
        res.charge = res.output_size()
        return res, state


def prepare(req: TopkRequest) -> PreparedRelease:
    """Validate ``req`` (errors name the command line's option) and choose the generator; nothing is read."""
    import numpy as np

    from mechanisms.exact.sampling import SecureRandom
    from mechanisms.validation import nonneg_int, probability

    seed = nonneg_int("--seed", req.seed) if req.seed is not None else None
    dprime = probability("--delta-prime", req.delta_prime, allow_zero=True)
    p = check_params(req.mechanism, req.k, req.kbar, req.eps, req.delta, req.max_items_per_user)
    sampler = "float" if req.float_sampler else "exact"
    rng: Any
    if seed is not None:
        rng = np.random.default_rng(seed)
    elif sampler == "float":
        rng = np.random.default_rng()  # the float sampler needs numpy's float draws: PCG64, OS-seeded
    else:
        rng = SecureRandom()
    private, why = release_status(sampler, rng, seed is not None)
    return PreparedRelease(req, p, seed, dprime, sampler, rng, private, why)


def _render(res: TopkResult) -> list[Any]:
    return [label_json(x) for x in res.selected] + (["⊥"] if res.stopped else [])
