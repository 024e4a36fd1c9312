"""``reports/partition_selection.md``: partition selection as deployed, rendered only from
``reports/data/partition_selection.json`` (computed by ``dpverify.partitions.table``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from .data import load, save
from .markdown import table

__all__ = ["SECTIONS", "render_partition_selection_page", "write_partition_selection"]


def _g(x: Any, digits: int = 6) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.{digits}g}"
    return str(x)


def _witness(w: Any) -> str:
    if not w:
        return "-"
    if "n" in w:
        return f"n = {w['n']} -> {w['n'] + 1}"
    return f"{tuple(w['h'])} -> {tuple(w['h_prime'])}"


def _black_box_cell(bb: dict) -> str:
    """A row's black-box figure: a delta lower bound, an eps lower bound (with the replicates' spread), or why there is none."""
    if bb.get("delta_lower_bound") is not None:
        return f"delta >= {_g(bb['delta_lower_bound'], 3)} ({bb['samples_per_input']:,} draws, absent key vs count 1)"
    if bb.get("eps_lower_bound") is None:
        return "- (delta too small to sample)"
    runs = ""
    if bb.get("replicates", 1) > 1 and bb.get("spread"):
        sp = bb["spread"]
        runs = f"; {bb['replicates']} runs: {_g(sp['min'], 3)} .. {_g(sp['max'], 3)}"
    if bb["eps_lower_bound"] <= 0:  # no evidence of any privacy loss at this level: no lower bound, not a negative one
        return f"none (> 0 not shown; {bb['samples_per_input']:,} x 2, n = {bb['pair'][0]}{runs})"
    return f"{_g(bb['eps_lower_bound'], 3)} ({bb['samples_per_input']:,} x 2, n = {bb['pair'][0]}{runs})"


def _size(r: dict) -> str:
    """The violation's size class (data written before the three classes: ``material`` + the double-rounding flag)."""
    size = r.get("size", "none")
    return size + (" (double rounding)" if r.get("double_rounding") and size == "material" else "")


def _strategy_row(r: dict) -> list[str]:
    """One strategy x L x eps x delta row: the exact verdict, the model's, the black box's."""
    c = r["claim"]
    strat = r["strategy"] + (f" (scale {_g(r['scale'])}, T = {r['threshold']})" if "threshold" in r else "")
    return [r["library"], strat, str(r["L"]), _g(c["eps"]), _g(c["delta"]),
            r["verdict"] + (" (certified)" if r.get("certified") else ""), _g(r.get("ratio"), 12), _size(r),
            _g(r.get("relative_excess"), 4), _g(r.get("absolute_excess"), 3), _witness(r.get("witness")),
            r["model"]["verdict"], _black_box_cell(r["black_box"])]


def _intro(data: dict) -> list[str]:
    lines = ["# Partition selection as deployed", "",
             "Each library strategy is checked **exactly** from its own `probability_of_keep(n)` (doubles at their exact "
             "binary value; the law of the released key set, keys independent, p(0) = 0) against the (eps, delta) the "
             "library object states for a user in at most L keys (relation `delta:L`): a one-key scan over every n up to a "
             "certified tail, and the certified checker on windows of L keys (0, the threshold, the scan's worst n). "
             "*Model* is the for-all-n proof of the same strategy in exact arithmetic (`proofs.dvgm22.universal`, one key "
             "at (eps/L, delta_L)). *Black box*: an eps lower bound from `should_keep` at the pair just below the "
             "threshold (L keys moved together), unseeded (the library owns its randomness), replicated: the largest "
             "bound at joint confidence 0.95 over all runs, and the runs' spread. *Size* of a violation: "
             "`floating-point resolution` (absolute excess within double rounding, 8 * 2^-52, and relative excess "
             f"below {_g(data.get('fp_resolution', 1e-6))}), `material (double rounding)` (within double rounding, "
             "relatively larger), `material`.", "",
             f"Command: `{data.get('command', '')}`", "",
             "Versions: " + ", ".join(f"{k} {v}" for k, v in sorted(data.get("versions", {}).items())), ""]
    if data.get("skipped"):
        lines += [f"**Skipped:** {data['skipped']} (never counted as a pass).", ""]
    return lines


def _strategy_section(data: dict) -> list[str]:
    rows = [_strategy_row(r) for r in data.get("rows", [])]
    if not rows:
        return []
    return ["## Strategy x L x eps x delta", "",
            table(["library", "strategy", "L", "eps", "delta", "exact verdict", "claimed/exact", "size", "relative excess",
                   "absolute excess", "witness", "model (all n)", "black-box eps lower bound (samples)"], rows), ""]


def _power_section(data: dict) -> list[str]:
    prow = []
    for r in data.get("power", []):
        bb = r["black_box"]
        prow.append([r["strategy"], r["mutant"], r["verdict"], _g(r["ratio"], 6), _witness(r["witness"]),
                     f"delta >= {_g(bb['delta_lower_bound'], 3)} > {_g(bb['claimed_delta'])}: "
                     f"{'refuted' if bb['refutes'] else 'not refuted'} "
                     f"({bb['hits']} of {bb['samples']:,})"])
    if not prow:
        return []
    return ["## Power checks (deliberately wrong strategies)", "",
            table(["strategy", "wrong how", "exact verdict", "claimed/exact", "witness",
                   "black box (absent key vs one user)"], prow), ""]


def _pairs(ps: list) -> str:
    return "; ".join(f"{tuple(h)} -> {tuple(g)}" for h, g in ps)


def _search_section(data: dict) -> list[str]:
    rows = data.get("search", [])
    if not rows:
        return []
    out = []
    for r in rows:
        sp = r["spread"]
        best = "none (> 0 not shown" if r["eps_lower_bound"] <= 0 else _g(r["eps_lower_bound"], 3) + " ("
        out.append([r["library"], r["strategy"], str(r["L"]), str(r["d"]), r["search"],
                    ", ".join(map(str, r["critical_points"])) or "-", str(r["candidates"]), _pairs(r["pairs"]),
                    f"{best}{'; ' if best.startswith('none') else ''}{r['replicates']} runs: {_g(sp['min'], 3)} .. "
                    f"{_g(sp['max'], 3)})", f"{r['samples_per_input']:,}"])
    return ["## Input search at the threshold (spec-less audit of the key set)", "",
            "`dpverify.auditor.core.audit(target, eps, delta, relation=delta:L, d=L)` on python-dp's strategy as a key-set "
            "target: once as a plain `f(h)` (the search sees no threshold: scales derived from eps and delta), once as "
            "`KeySetTarget` (the library's threshold is a critical point: inputs at T-2 .. T+1 and 0, L keys moved "
            "together). Our part is seeded (seed " + str(rows[0].get("seed")) + "); python-dp's draws are not: each audit "
            "is replicated, the bound is the largest over the runs at joint confidence 0.95, with the runs' spread.", "",
            table(["library", "strategy", "L", "d", "input search", "critical points", "candidate pairs",
                   "pairs certified (first run)", "eps lower bound (spread)", "samples per input"], out), ""]


def _zcdp_section(data: dict) -> list[str]:
    rows = data.get("zcdp", [])
    if not rows:
        return []
    out = []
    for r in rows:
        if r.get("verdict") == "not installed":
            out.append([r["library"], r["measurement"], "-", "-", "-", "not installed", "-", "-", "-", "-"])
            continue
        bb = r.get("black_box")
        bbc = "-" if not bb else (f"delta >= {_g(bb['delta_lower_bound'], 3)} ({bb['hits']:,} of {bb['samples']:,}; "
                                  f"{'refutes' if bb['refutes'] else 'does not refute'}; unseeded)")
        out.append([f"{r['library']} {r.get('version') or ''}".strip(), r["measurement"], str(r["L"]), r["kind"], r["claim"],
                    r["verdict"] + (" (certified)" if r.get("certified") else ""), _g(r.get("ratio"), 6),
                    str(r.get("size", "none")), _witness(r.get("witness")), bbc])
    return ["## Approximate zCDP: OpenDP's Gaussian threshold", "",
            "The claim is read from `make_gaussian_threshold`'s own privacy map at (L, L, 1): (rho, delta)-approximate "
            "zCDP (notion `approx-zcdp`, OpenDP's reading: events per ordered pair). Checked exactly on the key set's law "
            "(discrete Gaussian, keep iff n + X >= T): *holds* only through a certificate (the outputs impossible under the "
            "other input removed, their mass <= delta, the conditional laws rho-zCDP both ways), *violated* only through a "
            "necessary condition (mass off the neighbour's support > delta, or a two-point divergence above rho alpha after "
            "moving delta of mass). Black box: a Clopper-Pearson lower bound on delta from the event impossible under the "
            "neighbour (a key absent from the input released), where delta is large enough to sample.", "",
            table(["library", "measurement", "L", "row", "claim", "exact verdict", "claimed/exact delta", "size", "witness",
                   "black box"], out), ""]


def _values_section(data: dict) -> list[str]:
    rows = data.get("values", [])
    if not rows:
        return []
    out = []
    for r in rows:
        if r.get("verdict") == "not installed":
            out.append([r["target"], "-", "-", "not installed", "-", "-", "-", "-"])
            continue
        c, ks, rel = r["claim"], r.get("keyset_exact") or {}, r.get("release_exact") or {}
        kcell = "-" if not ks else (ks["verdict"] + (" (certified)" if ks.get("certified") else " (tight: not certified)"
                                                     if ks.get("ratio") == 1 else "") + f", claimed/exact {_g(ks['ratio'], 6)}")
        rcell = "-" if not rel else (rel["verdict"] + (f": delta(eps) = {_g(rel['delta_at_claimed_eps'], 4)} at "
                                                      f"{tuple(rel['pair'])}" if "pair" in rel else ""))
        bound = r["value_eps_lower_bound"]
        miss = r.get("detectable_eps") or {}
        vcell = (f"{_g(bound, 3)} (exact eps of the event {_g(r.get('exact_event_eps'), 4)}): {r['value_verdict']}"
                 + (f"; could miss eps up to {_g(miss['at_event_mass'], 3)} on an event of mass {_g(miss['event_mass'], 3)}"
                    if miss.get("at_event_mass") else ""))
        out.append([r["target"], f"({_g(c['eps'])}, {_g(c['delta'])}), L = {c['L']}", r.get("claim_source", "-"), kcell, rcell,
                    vcell, f"{r['samples_per_input']:,}", "unseeded" if not r.get("seeded") else str(r.get("seed"))])
    return ["## Released values (a kept key with its noisy count)", "",
            "Thresholding that releases the noisy count of every kept key (OpenDP's `make_laplace_threshold` returns them). "
            "*Key set*: the exact (certified) check of the released keys alone. *Whole release*: the exact privacy profile "
            "of one key's output (dropped, or its value) in closed form (continuous Laplace / Gaussian for ours, discrete "
            "Laplace as OpenDP documents it) evaluated at 200 bits -- a value, not an interval enclosure, so not certified; "
            "'holds (attained)' means equal to the claim within 2^-190 relative -- worst pair on a window of counts, at "
            "L = 1. *Value check*: a black-box eps "
            "lower bound from the released values (events 'every moved key released with value <= c / > c' and 'none', "
            "cuts at T, n, n + 1 and around n + 1/2; half the draws choose the event, half certify it, Clopper-Pearson), "
            "with the eps it could have missed when it finds nothing. The deliberately broken row pays for the key set "
            "but draws the value with half the noise: its key set is exact, only the values can catch it.", "",
            table(["target", "claim", "claim from", "key set (exact)", "whole release (closed form, 200 bits, L = 1)",
                   "value check: eps lower bound", "samples per input", "seed"], out), ""]


def _positive(x: Any) -> str:
    """An eps lower bound as shown: none when it is not above 0 (no evidence of privacy loss at that level)."""
    return "none (> 0 not shown)" if x is None or x <= 0 else _g(x, 3)


PRIMED = "released_D'"  # the neighbour's count of released absent keys (a key of the SmartNoise rows)


def _smartnoise_section(data: dict) -> list[str]:
    rows = data.get("smartnoise", [])
    if not rows:
        return []
    if not rows[0].get("installed"):
        return ["## SmartNoise SQL (tau-thresholding, end to end)", "",
                f"**Not installed** (never counted as a pass): {rows[0].get('reason', '')}. Create its own environment "
                "with `dpverify partitions --smartnoise-env` (smartnoise-sql 1.0.10 needs opendp < 0.15).", ""]
    out = []
    for r in rows:
        absent: dict[str, Any] = next((b for b in r["black_box"] if b["pair"] == "absent"), {})
        thr: dict[str, Any] = next((b for b in r["black_box"] if b["pair"] == "threshold"), {})
        m = r["model"]
        out.append([r["strategy"] + (f" ({r['mutant']}: deliberately wrong)" if r.get("mutant") else ""), str(r["L"]),
                    f"({_g(r['claim']['eps'])}, {_g(r['claim']['delta'])})", f"{absent.get('released_D', '-')} / "
                    f"{absent.get(PRIMED, '-')}", _g(absent.get("delta_lower_bound"), 3),
                    _positive(thr.get("eps_lower_bound")), m["verdict"] + (f" (relative excess {_g(m['relative_excess'], 3)})"
                                                                      if m.get("relative_excess") else ""),
                    r["verdict"], f"{absent.get('samples_per_table', '-'):,}" if absent else "-"])
    v = rows[0].get("versions", {})
    return ["## SmartNoise SQL (tau-thresholding, end to end)", "",
            "A `SELECT key, COUNT(*) ... GROUP BY key` over in-memory tables in SmartNoise's own environment ("
            + ", ".join(f"{k} {val}" for k, val in sorted(v.items())) + "), each user in at most L keys; neighbouring "
            "tables differ by one user (absent key vs one user; L keys at the threshold). The claim is SmartNoise's own "
            "cost of the key count. Many disjoint copies of the pair in one table are independent samples (each group-by "
            "row is noised independently); OpenDP's randomness cannot be seeded. *Model*: the exact law with SmartNoise's "
            "scale and tau as continuous Laplace noise (the noise as specified, not OpenDP's sampler).", "",
            table(["strategy", "L", "claim (eps, delta)", "absent keys released (D / D')", "delta lower bound",
                   "eps lower bound at the threshold", "model (all n)", "verdict", "samples per table"], out), ""]


def _notes_section(data: dict) -> list[str]:
    return [f"- {note}" for note in data.get("notes", [])]


#: the page's sections in order, each ``data -> lines`` (an empty list: the section is left out); a new section is one
#: more entry here
SECTIONS: list[Callable[[dict], list[str]]] = [_intro, _strategy_section, _power_section, _search_section, _zcdp_section,
                                               _values_section, _smartnoise_section, _notes_section]


def render_partition_selection_page(data: dict, outdir: Path | str = "reports") -> Path:
    """Write ``partition_selection.md`` from the page data (:data:`SECTIONS` in order)."""
    lines: list[str] = []
    for section in SECTIONS:
        lines += section(data)
    path = Path(outdir) / "partition_selection.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def write_partition_selection(data: dict, outdir: Path | str = "reports") -> Path:
    """Store ``data/partition_selection.json`` and render the page from it."""
    save(outdir, "partition_selection", data)
    return render_partition_selection_page(load(outdir, "partition_selection"), outdir)
