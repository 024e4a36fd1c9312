"""``reports/coverage.md``: what each verdict covers -- the exhaustive domain and the worst-case search side by side.

Rendered from ``data/verify.json`` alone (the entries' ``coverage`` and ``search`` fields and the
``searched_mutants`` rows), like the other verification pages.
"""

from __future__ import annotations

from pathlib import Path

from dpverify.checker.numbers import short_num

from .markdown import code, esc, table
from .provenance import provenance_lines

__all__ = ["render_coverage", "FAR", "GOAL"]

#: a claimed/exact ratio at or above this is "never approached" on what was tried
FAR = 10
#: the goal for the exhaustive domains (the worst-case search requirement): every length up to 5 and counts up to 6
GOAL = (5, 6)


def _ratio(x) -> float | None:
    if x is None:
        return None
    s = str(x)
    if s in ("+inf", "inf"):
        return float("inf")
    try:
        return float(s.strip("[]").split(",")[0])
    except ValueError:
        return None


def _cell(x) -> str:
    return esc(short_num(x)) if x is not None else "-"


def _privacy_rows(entries: list[dict]) -> list[dict]:
    return [e for e in entries if e["kind"] == "privacy"]


def _table(entries: list[dict]) -> str:
    rows = []
    for e in _privacy_rows(entries):
        s = e.get("search") or {}
        re_, rs = _ratio(e["ratio_claimed_over_exact"]), _ratio(s.get("ratio_claimed_over_exact"))
        note = []
        if rs is not None and re_ is not None and rs < re_:
            note.append("search tighter")
        if (re_ is None or re_ >= FAR) and (rs is None or rs >= FAR):
            note.append("never approached")
        if s.get("verdict") == "violated" and e["expected"] == "holds":
            note.append("**search refutes it**")
        rows.append([code(e["claim"]), f"{esc(e['verdict'])}{' (certified)' if e['certified'] else ''}",
                     esc(e["domain"]) + "; " + esc(e.get("coverage", "")), str(e["pairs_checked"]),
                     _cell(e["ratio_claimed_over_exact"]),
                     esc(s.get("space", "not searched")), str(s.get("evaluations", "-")),
                     _cell(s.get("ratio_claimed_over_exact")),
                     esc(s.get("verdict", "-")), ", ".join(note)])
    return table(["claim", "enumeration "
                           "verdict", "exhaustive domain (pairs enumerated)", "instances", "claimed/exact (enumeration)",
                  "searched space", "evaluations", "claimed/exact (search)", "search verdict", "note"], rows)


def _tighter(entries: list[dict]) -> str:
    out = []
    for e in _privacy_rows(entries):
        s = e.get("search") or {}
        re_, rs = _ratio(e["ratio_claimed_over_exact"]), _ratio(s.get("ratio_claimed_over_exact"))
        if rs is not None and re_ is not None and rs < re_ and s.get("best"):
            b = s["best"]
            out.append(f"- {code(e['claim'])}: search {esc(short_num(s['ratio_claimed_over_exact']))} vs enumeration "
                       f"{esc(short_num(e['ratio_claimed_over_exact']))} at h={esc(b['h'])}, h'={esc(b['h_prime'])}, "
                       f"params {esc(', '.join(f'{k}={short_num(v)}' for k, v in b['params'].items()))}\n")
    return "".join(out) or "None: on every privacy claim the enumerated domain already held the tightest instance found.\n"


def _never(entries: list[dict]) -> str:
    out = []
    for e in _privacy_rows(entries):
        s = e.get("search") or {}
        re_, rs = _ratio(e["ratio_claimed_over_exact"]), _ratio(s.get("ratio_claimed_over_exact"))
        if (re_ is None or re_ >= FAR) and (rs is None or rs >= FAR):
            why = ("the exact delta is 0 at every claimed point tried (+inf): the claimed eps already covers the whole "
                   "privacy loss there, so the delta part of the claim is never used"
                   if (re_ == float("inf") or rs == float("inf"))
                   else f"the exact delta stays at most 1/{FAR} of the claim")
            out.append(f"- {code(e['claim'])}: {why}. The claim holds with room to spare on what was tried; it is not shown "
                       "tight, and a slack this large says the bound (or the parameters it is checked at) does not bind here.\n")
    return "".join(out) or "None.\n"


def _equalities(entries: list[dict]) -> str:
    out = []
    for e in entries:
        w = e.get("worst") or {}
        if e["kind"] in ("privacy", "obligation", "symbolic") and e["verdict"] == "holds" and not e["certified"]:
            if w.get("op") == "==":
                why = "an equality: intervals can show it consistent (both sides enclose a common value), never certify it"
            elif e.get("tight"):
                why = ("the bound is attained (margin 0 up to the working precision): the interval straddles it by rounding "
                       "only -- consistent, not certifiable by intervals")
            else:
                why = "some instance was compared in mp or sympy arithmetic without an interval enclosure"
            out.append(f"- {code(e['claim'])}: {why}.\n")
    return "".join(out) or "None.\n"


def _reach(entries: list[dict]) -> str:
    groups: dict[str, list[str]] = {"goal": [], "wide": [], "narrow": [], "unknown": []}
    for e in _privacy_rows(entries):
        r = e.get("reach")
        if r is None:
            groups["unknown"].append(code(e["claim"]))
        elif r["d"] >= GOAL[0] and r["max_count"] >= GOAL[1]:
            groups["goal"].append(code(e["claim"]))
        elif r.get("wide"):
            groups["wide"].append(f"{code(e['claim'])} (d <= {r['d']}, counts 0..{r['max_count']}; --wide: d <= {r['wide'][0]}, "
                                  f"counts 0..{r['wide'][1]})")
        else:
            groups["narrow"].append(f"{code(e['claim'])} (d <= {r['d']}, counts 0..{r['max_count']})")
    rows = [[f"reaches d = {GOAL[0]}, counts 0..{GOAL[1]}", str(len(groups["goal"])), ", ".join(groups["goal"]) or "-"],
            ["narrower in this run; `dpverify verify --wide` checks it to the goal (zCDP claims refuted on the smaller "
             "domain: every pair that fails needs the per-pair certificate, a search over alpha)", str(len(groups["wide"])),
             "; ".join(groups["wide"]) or "-"],
            ["narrower, no wider domain (a mechanism without symmetries to reduce by, or a session of rounds: the pair count "
             "grows too fast)", str(len(groups["narrow"])), "; ".join(groups["narrow"]) or "-"]]
    if groups["unknown"]:
        rows.append(["a domain of its own (not a registered level)", str(len(groups["unknown"])), ", ".join(groups["unknown"])])
    return table(["exhaustive domain", "privacy claims", "which"], rows)


def _lemmas(entries: list[dict]) -> str:
    """Lemmas that were searched (a researcher's, ``dpverify.byo.register_lemma``): both checks side by side."""
    rows = []
    for e in entries:
        s = e.get("search") or {}
        if e["kind"] != "obligation" or not s:
            continue
        b = s.get("best") or {}
        rows.append([code(e["claim"]), f"{esc(e['verdict'])}{' (certified)' if e['certified'] else ''}",
                     esc(e["domain"]) + "; " + esc(e.get("coverage", "")), str(e["pairs_checked"]), esc(s.get("space", "-")),
                     str(s.get("evaluations", "-")),
                     f"{esc(s.get('verdict', '-'))}{' (certified)' if s.get('certified') else ''}",
                     esc(f"h={b.get('h')}" + (f" h'={b['h_prime']}" if b.get("h_prime") is not None else "")
                         + f"; {b.get('label')}: margin {short_num(b.get('margin'))}") if b else "-"])
    if not rows:
        return ""
    return ("## Searched lemmas\n\n"
            "Lemmas registered with the search switched on: enumerated on their domain (every instance, no reduction) and\n"
            "searched over candidate instances at larger counts and lengths (closeness lhs/rhs of their comparisons).\n\n"
            + table(["lemma", "enumeration verdict", "exhaustive domain (instances enumerated)", "instances", "searched space",
                     "evaluations", "search verdict", "tightest instance found by the search"], rows) + "\n")


def _mutants(rows: list[dict]) -> str:
    if not rows:
        return "_not run_\n"
    return table(["mutant", "what is wrong", "enumeration (default domain)", "search verdict", "evaluations",
                  "witness found by the search"],
                 [[code(r["name"]), esc(r["mutant"]), esc(r["enumeration"]), f"**{esc(r['search_verdict'])}**",
                   str(r["evaluations"]),
                   esc(r["witness"])] for r in rows])


def _universal(entries: list[dict]) -> str:
    """Which privacy claims are decided for every count (``dpverify certify``), and why the others are not."""
    rows: list[list[str]] = []
    reasons: dict[str, list[str]] = {}
    for e in _privacy_rows(entries):
        u = e.get("universal")
        if not u:
            continue
        if u["verdict"] in ("holds-for-all-counts", "violated"):
            w = u.get("witness")
            wit = f"{tuple(w['h'])} vs {tuple(w['h_prime'])}" if w else "-"
            mark = "" if u.get("as_expected") else " ⚠ not as expected"
            rows.append([code(e["claim"]), f"**{esc(e['verdict'])}**", f"**{esc(u['verdict'])}**{mark}", esc(u["lengths"]),
                         f"{u['sets_holding']}/{u['parameter_sets']}", str(u["structures"]), str(u.get("boxes", "-")),
                         esc(wit)])
        else:
            reasons.setdefault(f"{u['verdict']}: {u.get('reason', '')}", []).append(e["claim"])
    if not any(e.get("universal") for e in entries):
        return "_not run (dpverify verify computes it for every privacy claim)_\n"
    out = [f"{len(rows)} privacy claims are decided for every count (and the lengths named), all parameter sets of the box;\n"
           "the box verdict beside it is the enumeration's. A certificate over structures covers counts the box never\n"
           "reaches (the Limited Domain family's worst pairs sit at gaps near ln(kbar/delta)/eps). *boxes*: the boxes of\n"
           "gaps the branch and bound examined, or for the exact proofs of the exponential-mechanism family the\n"
           "(structure, outcome) numerators decided (nothing is subdivided there); each claim's seconds are in\n"
           "`verify_timings.json` (`universal_seconds`).\n\n",
           table(["claim", "box verdict", "for all counts", "lengths", "parameter sets holding", "structures", "boxes",
                  "witness"], rows),
           "\n### Not decided for all counts, and why\n\n"]
    for why, ids in sorted(reasons.items()):
        out.append(f"- {esc(why)} ({len(ids)}): {', '.join(code(i) for i in ids)}\n")
    return "".join(out)


def render_coverage(data: dict, outdir: Path | str = "reports") -> Path:
    """Write ``outdir/coverage.md`` from verify data."""
    entries = data["entries"]
    text = [
        "# What each verdict covers\n\n",
        "Generated by `dpverify verify` (re-rendered by `dpverify report`); do not edit.\n\n",
        "\n".join(provenance_lines({"mode": data["mode"]}, data["provenance"])) + "\n\n",
        "Every privacy claim is checked twice: **exhaustively** on its domain -- one pair per symmetry class of its mechanism\n",
        "(`dpverify/checker/reductions.py`: the symmetries are declared by each mechanism and checked by brute force in\n",
        "`tests/dpverify/checker/test_reductions.py`; with *shift* a domain of counts 0..M covers every pair whose counts span "
        "at most M, at any\n",
        "count level) -- and by the **worst-case search** (`dpverify search`), which evaluates candidates built around the\n",
        "mechanism's critical scales at realistic parameters (eps 0.1 and 1, delta 1e-6, larger k and kbar; `--grid full` for "
        "the whole\n",
        "grid), counts up to 10^4 and up to 8 items, and re-evaluates its best instance in interval arithmetic. *claimed/exact* "
        "is\n",
        "the claimed delta (or eps) over the exact value at the tightest instance: 1 is tight, below 1 a violation.\n",
        "A search that finds nothing says *no violation in the searched space*, not that the claim holds everywhere.\n\n",
        f"## How far the exhaustive domains reach (goal: every length up to {GOAL[0]}, counts up to {GOAL[1]})\n\n",
        "Every length from 1 up to d is enumerated, counts 0..M (with *shift*: any pair whose counts span at most M).\n\n",
        _reach(entries), "\n",
        "## Privacy claims: enumeration and search side by side\n\n", _table(entries), "\n",
        "## Certified for all counts (universal certificates)\n\n", _universal(entries), "\n",
        _lemmas(entries),
        "## Where the search found a tighter instance than the enumeration\n\n", _tighter(entries), "\n",
        "## Claims whose bound is never approached\n\n",
        f"Claimed/exact at least {FAR} (or +inf) in the enumeration and in the search.\n\n", _never(entries), "\n",
        "## Entries that hold but are not certified, and why\n\n", _equalities(entries), "\n",
        "## Searched mutants: violations only the search finds\n\n",
        "Deliberately broken mechanisms (`mechanisms/mutants/searched.py`) whose violation needs a gap near a threshold or "
        "more\n",
        "items than the enumerated domains hold, searched with no domain given at their registered delta = 1e-6.\n\n",
        _mutants(data.get("searched_mutants", [])),
    ]
    p = Path(outdir) / "coverage.md"
    p.write_text("".join(text), encoding="utf-8")
    return p
