"""The universal verdict beside the box verdict: one entry per privacy claim, over all its parameter sets,
stored without timing and rendered on the ledger and coverage pages (``dpverify verify``)."""

from __future__ import annotations

import json
from fractions import Fraction

from proofs.registry import get_claim

from dpverify.checker.ledger import run_all
from dpverify.cli import main
from dpverify.report.ledger import write_reports
from dpverify.universal import certify
from dpverify.universal.api import universal_eps
from dpverify.universal.ledger import run_universal, universal_entry


def test_a_claim_that_holds_holds_at_every_parameter_set():
    u = universal_entry(get_claim("DR19.Lem4.1"))
    assert u["verdict"] == "holds-for-all-counts" and u["sets_holding"] == u["parameter_sets"] == 2
    assert u["as_expected"] is True and u["lengths"] == "all" and "seconds" not in u


def test_an_erratum_is_violated_with_its_witness():
    u = universal_entry(get_claim("DR19.Thm1#delta-threshold-unrestricted"))
    assert u["verdict"] == "violated" and u["as_expected"] is True
    assert len(u["witness"]["h"]) == len(u["witness"]["h_prime"]) and u["witness_params"]


def test_out_of_scope_says_why_and_decides_nothing():
    u = universal_entry(get_claim("DR19.Thm1#linf"))
    assert u["verdict"] == "out-of-scope" and "linf" in u["reason"] and u["as_expected"] is None


def test_run_universal_skips_what_is_not_a_privacy_claim():
    out = run_universal(["DR19.Lem4.1", "DR19.Lem4.3"])
    assert list(out) == ["DR19.Lem4.1"]


def test_bounded_range_claims_of_the_em_family_reach_the_exact_proofs():
    assert certify("CR21.BR#em").verdict == "holds-for-all-counts"
    assert certify("CR21.BR#topk-k-eps").verdict == "violated"


def test_one_length_is_passed_through_and_named():
    assert certify("DR19.Lem4.1", d=4).lengths == "4"


def test_universal_eps_of_the_em_family_is_the_exact_supremum():
    hi, lo, wit = universal_eps("gumbel-topk", {"k": 2, "eps": 1}, 0)
    assert hi == 2 and Fraction(199, 100) < lo < 2 and wit is not None
    hi, lo, wit = universal_eps("em", {"eps": 1}, Fraction(1, 10**6))  # delta > 0: closed form above, a witness below
    assert Fraction(9984, 10**4) < lo < hi < Fraction(9985, 10**4) and wit is not None and Fraction(wit.eps) == lo


def test_the_pages_show_the_universal_verdict_beside_the_box(tmp_path):
    ids = ["DR19.Lem4.1", "DR19.Lem4.1#monotone-dropped"]
    results = run_all(ids, quick=True)
    write_reports(results, tmp_path, universals=run_universal(ids))
    readme = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "for all counts" in readme and "holds, all counts, lengths all" in readme
    cov = (tmp_path / "coverage.md").read_text(encoding="utf-8")
    assert "Certified for all counts" in cov and "`DR19.Lem4.1#monotone-dropped` | **violated** | **violated**" in cov
    assert "| structures | boxes | witness |" in cov and "`universal_seconds`" in cov
    data = json.loads((tmp_path / "data" / "verify.json").read_text(encoding="utf-8"))
    assert {e["claim"]: e["universal"]["verdict"] for e in data["entries"]} == {
        "DR19.Lem4.1": "holds-for-all-counts", "DR19.Lem4.1#monotone-dropped": "violated"}


def test_certify_on_a_bounded_range_claim_prints_its_point(capsys):
    assert main(["certify", "CR21.BR#em"]) == 0
    out = capsys.readouterr().out
    assert "holds-for-all-counts" in out and "points (eps-BR): (1)" in out


def test_certify_param_means_what_it_means_for_check_every_set_gets_it(capsys):
    """`certify DR19.Thm1 --param delta=1e-6` certifies each of the claim's parameter sets at delta = 1e-6 (as
    `check` and `search` read --param), not only the first set."""
    import json as _json

    assert main(["certify", "DR19.Thm1", "--param", "delta=1e-6", "--json"]) == 0
    doc = _json.loads(capsys.readouterr().out)
    sets = doc["parameter_sets"]
    assert len(sets) == len(get_claim("DR19.Thm1").domain.params) > 1
    assert all(s["params"]["delta"] == "1/1000000" and s["verdict"] == "holds-for-all-counts" for s in sets)
    assert doc["verdict"] == "holds-for-all-counts" and doc["structures"] > 0


def test_verify_times_each_universal_certificate_outside_the_pages_data():
    """The universal phase records each claim's seconds for ``verify_timings.json``; the stored entry has none."""
    from dpverify.verify import _universal_phase

    seconds: dict[str, float] = {}
    said: list[str] = []
    out = _universal_phase(["DR19.Lem4.1", "DR19.Lem4.3"], said.append, seconds)
    assert list(out) == list(seconds) == ["DR19.Lem4.1"] and seconds["DR19.Lem4.1"] >= 0
    assert "seconds" not in out["DR19.Lem4.1"] and said and "1 of 1 privacy claims decided" in said[0]


def test_run_universal_gives_the_same_entries_on_a_process_pool_in_the_order_asked():
    from dpverify.checker.parallel import make_executor
    from dpverify.universal.ledger import BUDGETS

    ids = ["DR19.Lem4.1#monotone-dropped", "DR19.Lem4.3", "DR19.Lem4.1"]
    serial = run_universal(ids)
    ex = make_executor("local", 2)
    try:
        seen: list[str] = []
        pooled = run_universal(ids, executor=ex, on_result=lambda cid, e, s: seen.append(cid))
    finally:
        ex.close()
    assert pooled == serial and list(pooled) == seen == ["DR19.Lem4.1#monotone-dropped", "DR19.Lem4.1"]
    assert BUDGETS and all(get_claim(cid) is not None for cid in BUDGETS)  # every budget names a ledger claim


def test_partition_claims_point_to_the_ledgers_own_proofs_for_every_count():
    u = universal_entry(get_claim("DVGM22.Thm1"))
    assert u["verdict"] == "out-of-scope" and "DVGM22.*#all-n obligations" in u["reason"]
    assert "no universal certifier" not in u["reason"]
