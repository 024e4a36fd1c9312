"""Evaluators of the permute-and-flip ledger (utility comparisons with the exponential mechanism)."""

from __future__ import annotations

from typing import Any

from mechanisms.core import exact_context, to_ctx
from mechanisms.exponential.em import em_weights
from mechanisms.exponential.permute_flip import pf_expected_error

from proofs.claims import Comparison, Instance
from proofs.instances import hist

__all__ = ["em_expected_error", "utility", "utility_factor2"]


def em_expected_error(ctx: Any, h: Any, eps_q: Any) -> Any:
    """``max h - E[h_EM]`` for EM with weights ``exp(eps_q h_i)``."""
    w = em_weights(ctx, h, eps_q)
    top = max(h)
    return sum((wi * (top - c) for wi, c in zip(w, h, strict=True)), ctx.mpf(0)) / sum(w)


def _errors(inst: Instance, prec: int, interval: bool) -> tuple[Any, Any]:
    with exact_context(prec, interval) as ctx:
        e = to_ctx(ctx, inst.params["eps"])
        return pf_expected_error(ctx, hist(inst), e), em_expected_error(ctx, hist(inst), e)


def utility(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Err(PF) <= Err(EM) on ``h`` at the same eps_q (MS20's utility theorem)."""
    pf, em = _errors(inst, prec, interval)
    return [Comparison(pf, "<=", em, label="E[max h - h_PF] <= E[max h - h_EM]")]


def utility_factor2(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Err(EM) <= 2 Err(PF): the improvement is at most a factor of two."""
    pf, em = _errors(inst, prec, interval)
    return [Comparison(em, "<=", 2 * pf, label="E[max h - h_EM] <= 2 E[max h - h_PF]")]
