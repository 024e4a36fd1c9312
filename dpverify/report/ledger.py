"""Write ``reports/`` and ``proofs/INDEX.md`` from check results (generated, never hand-edited).

Pages: ``reports/README.md`` (the ledger: one table per paper), ``reports/errata.md``
(printed statements the checker refutes, with witnesses, and probes),
``reports/details.md`` (every claim's statement and tightest instance),
``reports/results.json`` (machine-readable).  Timings are kept out of these files
so that the same inputs give byte-identical output; they go to
``reports/verify_timings.json``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterable

from proofs.claims import RELATIONS_DOC, Claim, PrivacyClaim
from proofs.registry import OTHER_PAPERS, all_claims, required_ids

from dpverify.checker.core import CheckResult
from dpverify.checker.numbers import short_num

from .coverage import render_coverage
from .data import dumps, load, save
from .markdown import code, esc, table
from .provenance import REPO_ROOT, provenance_lines, snapshot

__all__ = ["write_reports", "write_index", "render_index", "render_verify_pages", "verify_data", "short_num", "PAPERS"]

PAPERS = {
    "DR19": "Durfee & Rogers, Practical DP Top-k Selection with Pay-what-you-get Composition (long version, May 2019; "
            "DR19-NeurIPS: the NeurIPS 2019 version)",
    "CWGM20": "Carvalho, Wang, Gondara & Miao, DP Top-k Selection via Stability on Unknown Domain",
    "GJMR21": "Gillenwater, Joseph, Muñoz Medina & Ribero, A Joint Exponential Mechanism for DP Top-k Set",
    **{k: v + " (beyond the three papers under test)" for k, v in OTHER_PAPERS.items()},
}


def _short(x: str, n: int = 12) -> str:
    return x if len(x) <= n else x[: n - 1] + "…"


def _witness_cell(e: dict) -> str:
    w = e["worst"]
    if w is None:
        return esc(e["reason"]) if e["reason"] else "-"
    where = []
    if w["h"] is not None:
        where.append(f"h={w['h']}")
    if w["h_prime"] is not None:
        where.append(f"h'={w['h_prime']}")
    if w["params"]:
        where.append(", ".join(f"{k}={short_num(v)}" for k, v in w["params"].items()))
    margin = short_num(w["margin"])
    label = f"{w['label']}: margin {margin}" if w["label"] else f"margin {margin}"
    d = w.get("details") or {}  # notion claims (BR, zCDP, RDP): the numbers that make the witness checkable
    shown = [f"{k}={short_num(d[k])}" for k in _DETAIL_KEYS if k in d]
    return esc("; ".join(where) + " — " + label + (" (" + ", ".join(shown) + ")" if shown else ""))


#: witness details shown in the ledger table (all of them are in details.md and verify.json)
_DETAIL_KEYS = ("direction", "alpha", "D_alpha", "D_alpha_other_direction", "rho_times_alpha", "outcome_max_loss", "loss_max",
                "outcome_min_loss", "loss_min")


def _ratio_cell(e: dict) -> str:
    r = e["ratio_claimed_over_exact"]
    return esc(short_num(r)) if r is not None else "-"


def _search_cell(e: dict) -> str:
    s = e.get("search")
    if not s:
        return "-"
    r = s.get("ratio_claimed_over_exact")
    if r is None and s.get("verdict") == "violated":  # a lemma's search: no ratio, the verdict once
        return "**violated**"
    flag = " **violated**" if s.get("verdict") == "violated" else ""
    return (esc(short_num(r)) if r is not None else esc(s.get("verdict", "-"))) + flag


def _universal_cell(e: dict) -> str:
    """The universal certificate's verdict (``dpverify certify``): for every count, and the lengths it covers."""
    u = e.get("universal")
    if not u:
        return "-"
    v = u["verdict"]
    if v == "holds-for-all-counts":
        return f"holds, all counts, lengths {esc(u['lengths'])}"
    if v == "violated":
        w = u.get("witness") or {}
        flag = "" if u.get("as_expected") else " ⚠"
        return f"**violated**{flag} at {esc(str(tuple(w.get('h', ()))))} vs {esc(str(tuple(w.get('h_prime', ()))))}"
    return esc(v)


def _row(e: dict) -> list[str]:
    mark = "" if e["as_expected"] else " ⚠ expected " + esc(e["expected"])
    return [
        code(e["claim"]), esc(e["title"]), f"**{esc(e['verdict'])}**{mark}",
        "yes" if e["certified"] else "no", esc(e["relation"]), str(e["pairs_checked"]), _witness_cell(e), _ratio_cell(e),
            _search_cell(e),
        _universal_cell(e),
    ]


def _seed_paper(e: dict) -> bool:
    return any(e["claim"].startswith(key + ".") for key in PAPERS)


def _ledger(entries: list[dict]) -> str:
    out = []
    header = ["id", "item", "verdict", "certified", "relation", "instances", "tightest instance / reason", "claimed/exact",
              "claimed/exact, search", "for all counts"]
    others = [e for e in entries if not _seed_paper(e)]
    for key, title in PAPERS.items():
        rows = [_row(e) for e in entries if e["claim"].startswith(key + ".")]
        if not rows and others:  # a researcher's own report (dpverify --load ... verify --only ...): only its sections
            continue
        out.append(f"## {esc(title)}\n\n")
        out.append(table(header, rows) if rows else "_no claims registered yet_\n")
        out.append("\n")
    if others:
        out.append("## Entries registered by the user's own files (`dpverify --load`)\n\n")
        out.append(table(header, [_row(e) for e in others]))
        out.append("\n")
    return "".join(out)


def _summary(entries: list[dict]) -> str:
    counts: dict[str, int] = {}
    for e in entries:
        counts[e["verdict"]] = counts.get(e["verdict"], 0) + 1
    unexpected = [e["claim"] for e in entries if not e["as_expected"]]
    lines = [f"- {len(entries)} ledger entries: " + ", ".join(f"{v} {n}" for v, n in sorted(counts.items()))]
    lines.append(
        "- every verdict as pinned: "
        "**yes**" if not unexpected else "- verdicts differing from the pinned ones: " + ", ".join(code(u) for u in unexpected)
    )
    lines.append(f"- certified (interval or exact arithmetic for every instance): {sum(bool(e['certified']) for e in entries)} "
                 f"entries")
    return "\n".join(lines) + "\n"


def _witness_json(w: dict) -> str:
    return esc(json.dumps(w, sort_keys=True, ensure_ascii=False))


def _errata(entries: list[dict]) -> str:
    out = ["# Errata: printed statements the checker refutes\n\n", "Generated by `dpverify verify`; do not edit.\n\n"]
    found = [e for e in entries if e["verdict"] == "violated" and not e["meta"]["probe"]]
    if not found:
        out.append("No printed statement was refuted on the checked domains.\n\n")
    for e in found:
        m = e["meta"]
        out.append(f"## {code(e['claim'])} — {esc(e['title'])}\n\n")
        out.append(f"- source: {esc(m['source'])}\n- printed: {esc(m['statement'])}\n- checked on: {esc(e['domain'])}\n")
        if e["worst"]:
            out.append("- witness: " + _witness_json(e["worst"]) + "\n")
        for x in (x for x in entries if x["claim"].startswith(e["claim"].split("#")[0] + "#corrected")):
            out.append(f"- corrected statement {code(x['claim'])}: {esc(x['meta']['statement'])} — **{esc(x['verdict'])}**\n")
        if m["notes"]:
            out.append(f"- notes: {esc(m['notes'])}\n")
        out.append("\n")
    probes = [e for e in entries if e["meta"]["probe"]]
    if probes:
        out.append("## Boundary probes (not printed statements)\n\n")
        out.append("Each drops a hypothesis of a printed statement on purpose, to show it is needed.\n\n")
        out.append(table(["id", "probe", "verdict", "witness"],
                         [[code(e["claim"]), esc(e["meta"]["statement"]), esc(e["verdict"]), _witness_cell(e)] for e in probes]))
    return "".join(out)


def _details(entries: list[dict]) -> str:
    out = ["# Every ledger entry in detail\n\nGenerated by `dpverify verify`; do not edit.\n\n"]
    for e in entries:
        m = e["meta"]
        out.append(f"## {code(e['claim'])} — {esc(e['title'])}\n\n")
        out.append(f"- source: {esc(m['source'])}\n- statement: {esc(m['statement'])}\n- code: {esc(m['code'])}\n- kind: "
                   f"{esc(e['kind'])}\n")
        out.append(f"- domain: {esc(e['domain'])}\n- verdict: **{esc(e['verdict'])}** (expected {esc(e['expected'])}), "
                   f"certified: {'yes' if e['certified'] else 'no'}, instances: {e['pairs_checked']}\n")
        if e["worst"]:
            out.append("- tightest instance: " + _witness_json(e["worst"]) + "\n")
        if e["reason"]:
            out.append(f"- reason: {esc(e['reason'])}\n")
        if m["notes"]:
            out.append(f"- notes: {esc(m['notes'])}\n")
        out.append("\n")
    return "".join(out)


def _figures_section(figures: list) -> str:
    """``## Figures``: images as ``![caption](file)``, other files (tables) as links; file names must be plain."""
    out = ["## Figures\n\n"]
    for name, caption in figures:
        if not re.fullmatch(r"[A-Za-z0-9_.\-]+", name):
            raise ValueError(f"figure file name {name!r} must be a plain file name")
        bang = "!" if name.endswith((".png", ".svg")) else ""
        out.append(f"- {bang}[{esc(caption)}]({name})\n" if not bang else f"{bang}[{esc(caption)}]({name})\n\n{esc(caption)}\n\n")
    return "".join(out) + "\n"


def _entry(r: CheckResult, claims: dict[str, Claim], search: dict | None = None, universal: dict | None = None) -> dict:
    """One result as stored in ``data/verify.json``: the result's JSON (no timing), the claim's texts, its search
    and its universal certificate (:mod:`dpverify.universal.ledger`)."""
    e = {k: v for k, v in r.as_json().items() if k != "seconds"}
    if search is not None:
        e["search"] = {k: v for k, v in search.items() if k != "seconds"}
    if universal is not None:
        e["universal"] = dict(universal)
    c = claims.get(r.claim)
    reach = _reach(r, c)
    if reach is not None:
        e["reach"] = reach
    e["meta"] = {
        "source": getattr(c, "source", ""), "statement": getattr(c, "statement", ""), "code": getattr(c, "code", ""),
        "notes": getattr(c, "notes", ""), "probe": bool(getattr(c, "probe", False)), "reason": getattr(c, "reason", "") or "",
    }
    return e


def _reach(r: CheckResult, c: Claim | None) -> dict | None:
    """How far a privacy claim's checked domain reaches: its largest length and count, and the wider
    ``(d, max_count)`` of ``verify --wide`` if any (None: not a privacy claim, or a domain of its own)."""
    if not isinstance(c, PrivacyClaim):
        return None
    for dom in (c.domain, c.quick_domain, c.wide_domain):
        if dom.describe() == r.domain:
            return {"d": dom.d, "max_count": dom.max_count, "wide": list(c.domain.wide) if c.domain.wide else None}
    return None


def verify_data(results: list[CheckResult], *, mode: str = "default", figures: list | None = None,
                searches: dict | None = None, searched_mutants: list | None = None, universals: dict | None = None) -> dict:
    """The data of the verification pages and ``proofs/INDEX.md`` (with this run's provenance snapshot)."""
    claims = all_claims()
    searches = searches or {}
    universals = universals or {}
    return {"provenance": snapshot(), "mode": mode, "figures": [list(f) for f in figures or []],
            "required_ids": list(required_ids()),
            "entries": [_entry(r, claims, searches.get(r.claim), universals.get(r.claim)) for r in results],
            "searched_mutants": list(searched_mutants or [])}


OTHER_PAGES = (("coverage.md", "what each verdict covers: exhaustive domains and the worst-case search side by side"),
               ("errata.md", "errata and boundary probes"), ("details.md", "every entry in detail"),
               ("performance.md", "benchmarks (`dpverify bench`)"), ("audits.md", "black-box audits"),
               ("experiments.md", "utility experiments on real data"),
               ("composition.md", "composition of bounded-range mechanisms: every accountant, certified optimum, dp-accounting "
                                  "cross-checks"),
               ("universal.md", "universal eps(delta): the smallest eps that holds for every histogram, certified bracket and "
                                "witness"),
               ("partition_selection.md", "partition selection as deployed (python-dp, PipelineDP, OpenDP): exact and "
                                          "black-box findings"))


def render_verify_pages(data: dict, outdir: Path | str = "reports") -> list[Path]:
    """Write README.md, errata.md, details.md and results.json of ``outdir`` from ``data`` (see :func:`verify_data`)."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    entries = data["entries"]
    readme = _readme(data, outdir)
    written = [render_coverage(data, outdir)]
    for name, text in (("README.md", "".join(readme)), ("errata.md", _errata(entries)), ("details.md", _details(entries))):
        p = outdir / name
        p.write_text(text, encoding="utf-8")
        written.append(p)
    p = outdir / "results.json"
    p.write_text(json.dumps([{k: v for k, v in e.items() if k != "meta"} for e in entries], indent=1, sort_keys=True,
                            ensure_ascii=False) + "\n",
                 encoding="utf-8")
    written.append(p)
    return written


def _intro(entries: list[dict]) -> list[str]:
    """What the report holds: the papers' claims, or also the entries of a researcher's own files."""
    intro = [
        "Generated by `dpverify verify` (re-rendered by `dpverify report`); do not edit by hand. Every claim of the seed papers "
        "registered in\n",
        "`proofs/` was checked on its domain; see [errata.md](errata.md) for refuted printed statements,\n",
        "[details.md](details.md) for every entry, [../proofs/INDEX.md](../proofs/INDEX.md) for the paper-to-code map,\n",
        "and the other pages listed at the end.\n\n",
    ]
    if any(not _seed_paper(e) for e in entries):  # a researcher's own report: say what it holds
        intro = [
            "Generated by `dpverify verify` (re-rendered by `dpverify report`); do not edit by hand. Every entry selected for "
            "this\n",
            "run was checked on its domain, including entries registered by the user's own files (`dpverify --load FILE`,\n",
            "`dpverify.byo`); see [errata.md](errata.md) for statements the checker refutes, [details.md](details.md) for "
            "every\n",
            "entry, [coverage.md](coverage.md) for what each verdict covers, and the other pages listed at the end.\n\n",
        ]
    return intro


def _readme(data: dict, outdir: Path) -> list[str]:
    """README.md: the intro, provenance, summary, relations, how to read a verdict, the ledger, figures, other pages
    (``outdir`` tells which of them exist)."""
    entries = data["entries"]
    intro = _intro(entries)
    readme = [
        "# dpverify — verification report\n\n",
        *intro,
        "\n".join(provenance_lines({"mode": data["mode"],
                                    "randomness": "none (exact checks); statistical pages state their seeds"},
                                  data["provenance"])) + "\n\n",
        "## Summary\n\n", _summary(entries), "\n",
        "## Neighbour relations\n\n",
        table(["relation", "meaning"], [[code(k), esc(v)] for k, v in RELATIONS_DOC.items()]), "\n",
        "Verdicts: **holds** (no instance fails), **violated** (a witness fails it), **inconclusive** (an interval straddles "
        "the bound),\n",
        "**implemented** (a definition), **not-checkable** (reason given), **error** (the check crashed — a bug).\n",
        "*certified* = every instance evaluated in interval (or exact rational) arithmetic. *claimed/exact* = claimed delta (or "
        "eps) over\n",
        "the exact worst value: how loose the claim is; *search* = the same at the tightest instance the worst-case search "
        "found at\n",
        "realistic parameters (see [coverage.md](coverage.md) for what each covers).\n\n",
        _ledger(entries),
        _figures_section(data["figures"]) if data["figures"] else "",
        "## Other pages\n\n",
    ]
    for page, what in OTHER_PAGES:
        readme.append(f"- [{page}]({page}): "
                      f"{what}" + ("" if (outdir / page).exists() or page in ("errata.md", "details.md", "coverage.md")
                                                      else " — not generated yet") + "\n")
    return readme


def write_reports(results: list[CheckResult], outdir: Path | str = "reports", *, mode: str = "default",
                  timings: dict | None = None,
                  figures: list[tuple[str, str]] | None = None, searches: dict | None = None,
                  searched_mutants: list | None = None, universals: dict | None = None) -> list[Path]:
    """Store ``data/verify.json`` and render the verification pages from it; return the paths written.

    ``figures``: ``[(file relative to outdir, caption), ...]`` as returned by
    ``dpverify.report.figures.write_figures``; listed in a "Figures" section of README.md when given.
    Timings go to ``verify_timings.json`` only (pages stay byte-identical for the same results)."""
    written = [save(outdir, "verify", verify_data(results, mode=mode, figures=figures, searches=searches,
                                                  searched_mutants=searched_mutants,
                                                  universals=universals))]
    data = load(outdir, "verify")  # render from what was stored (key order, number forms): `dpverify report` gives the same bytes
    written += render_verify_pages(data, outdir)
    if timings is not None:
        p = Path(outdir) / "verify_timings.json"
        p.write_text(json.dumps(timings, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        written.append(p)
    return written


def _index_row(e: dict) -> list[str]:
    m = e["meta"]
    how = {"privacy": "exact profile over neighbours", "obligation": "exact obligation", "symbolic": "sympy proof",
           "definition": "implemented", "not-checkable": "not checkable", "experiment": "experiment"}.get(e["kind"], e["kind"])
    check_cell = f"{how}; {e['domain']}" if e["kind"] in ("privacy", "obligation", "symbolic") else f"{how}: {m['reason']}"
    verdict = e["verdict"] + ("" if e["as_expected"] else f" (expected "
                                                          f"{e['expected']})") + (", certified" if e["certified"] else "")
    return [code(e["claim"]), esc(e["title"]), esc(m["code"]), esc(check_cell),
            f"**{esc(verdict)}**" + (f"; {esc(m['notes'])}" if m["notes"] else "")]


def render_index(data: dict, path: Path | str | None = None) -> Path:
    """``proofs/INDEX.md`` from verify data: every required paper id -> code -> check (domain) -> verdict."""
    path = Path(path) if path else REPO_ROOT / "proofs" / "INDEX.md"
    by_id: dict[str, list[dict]] = {}
    for e in data["entries"]:
        by_id.setdefault(e["claim"].split("#")[0], []).append(e)
    rows = []
    uncovered = []
    required = data["required_ids"]
    for pid in required:
        es = by_id.get(pid, [])
        if not es:
            uncovered.append(pid)
            rows.append([code(pid), "-", "-", "-", "**not yet covered**"])
            continue
        for e in es:
            rows.append(_index_row(e))
    others = [e for e in data["entries"] if e["claim"].split(".", 1)[0] in OTHER_PAPERS]
    text = [
        "# Paper-to-code map\n\n",
        "Generated by `dpverify verify` from the claim registry and the latest results; do not edit by hand.\n",
        "Each id of the claims index maps to its code, how it is checked (with the domain the verdict covers) and the verdict.\n",
        "Sub-entries `ID#...` are the same item under another relation, a corrected statement, or a probe.\n\n",
        f"- git commit of the run: `{data['provenance']['git_commit']}`\n\n",
        f"Covered: {len(required) - len(uncovered)} of {len(required)} ids; not yet covered: {len(uncovered)}.\n\n",
        table(["id", "item", "code", "check (domain)", "verdict"], rows),
    ]
    if others:
        text += ["\n## Papers beyond the seeds (ids not in the claims index)\n\n",
                 "".join(f"- `{k}`: {esc(v)}\n" for k, v in OTHER_PAPERS.items()), "\n",
                 table(["id", "item", "code", "check (domain)", "verdict"], [_index_row(e) for e in others])]
    path.write_text("".join(text), encoding="utf-8")
    return path


def write_index(results: Iterable[CheckResult], path: Path | str | None = None) -> Path:
    """Generate ``proofs/INDEX.md`` from check results (see :func:`render_index`), via the stored JSON form."""
    return render_index(json.loads(dumps(verify_data(list(results)))), path)
