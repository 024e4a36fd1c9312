"""Input search, learned and exact score events, continuous outputs and the power statement of dpverify.audit."""

import json
import math
from fractions import Fraction as F

import numpy as np
import pytest

from mechanisms.catalogue import LaplaceMechanism, LyuSVT, NoisyHistWrongScale, NoisyMax
from mechanisms.errors import AdapterError, InvalidParameter

from dpverify.auditor.core import audit
from dpverify.auditor.features import Encoder, FeatureMap
from dpverify.auditor.inputs import (
    candidate_pairs,
    derived_scales,
    exact_search,
    install_scales_hook,
    literature_pairs,
    scales_for,
)
from dpverify.auditor.ratio import fit_logistic, threshold_events
from dpverify.auditor.stats import cp_lower, cp_upper, detection_probability, exp_up
from dpverify.cli import main


# ----------------------------------------------------------------- candidate inputs
def test_literature_pairs_are_statdps_patterns():
    ones = (1,) * 10
    all_differ = literature_pairs(10, "linf")
    assert [(h, g) for h, g, _ in all_differ] == [
        (ones, (0,) + (1,) * 9), (ones, (2,) + (1,) * 9), (ones, (2,) + (0,) * 9), (ones, (0,) + (2,) * 9),
        (ones, (2,) * 5 + (0,) * 5), (ones, (2,) * 10), (ones, (0,) * 10), ((1,) * 5 + (0,) * 5, (0,) * 5 + (1,) * 5)]
    assert [t for _, _, t in literature_pairs(5, "delta:1")] == ["statdp:one-below", "statdp:one-above"]
    # add/remove keeps the one-signed ones only
    assert {t for _, _, t in literature_pairs(4, "add-remove")} == {
        "statdp:one-below", "statdp:one-above", "statdp:all-above", "statdp:all-below"}


def test_derived_scales_and_the_critical_scales_hook():
    s = derived_scales(1, F(1, 10**6), 3, {"k": 1, "kbar": 2, "eps": 1})
    assert 13 in s and 14 in s and 55 in s  # ln(1/delta)/eps and 4 ln(1/delta)/eps
    assert derived_scales(F(1, 10), 0, 10)[:2] == [5, 10] or 10 in derived_scales(F(1, 10), 0, 10)

    class WithScales:
        def critical_scales(self):
            return [7, 300]

    assert {7, 300} <= set(scales_for(WithScales(), eps=1, delta=0, d=3, grid=False))
    install_scales_hook(lambda mech, info: [42])
    try:
        assert scales_for(None, eps=1, delta=0, d=3, grid=False) == [42]
    finally:
        install_scales_hook(None)
    pairs = candidate_pairs(10, "linf", [20, 40])
    assert len(pairs) <= 32 and pairs[0][2].startswith("statdp:") and any(t.startswith("blocks:") for _, _, t in pairs)


def test_exact_search_climbs_to_a_narrow_large_gap_window():
    """A synthetic profile that is positive only for gaps near (47, 53) -- like the TS mutant -- is found from the coarse grid."""

    def score(h, g):
        g1, g2 = h[0] - h[1], h[1] - h[2]
        return -((g1 - 47) ** 2 + (g2 - 53) ** 2) / 100.0, 0.0

    scales = scales_for(None, eps=1, delta=F(1, 10**6), d=3)
    ranked, stats = exact_search(score, 3, "add-remove", scales, max_laws=4000, seconds=60)
    h = ranked[0][2]
    assert abs(h[0] - h[1] - 47) <= 2 and abs(h[1] - h[2] - 53) <= 2, (ranked[0], stats)
    assert stats["refinement_steps"] > 0


# ----------------------------------------------------------------- features, logistic regression, threshold events
def test_encoder_reads_numbers_vectors_mixed_and_variable_length_outputs():
    e = Encoder()
    X = e.encode([(1, 2.5), (0, None), (2, -1.0)])
    assert X.shape == (3, 2) and np.isnan(X[1, 1])
    v = Encoder().encode([[1, 2], [3], []])
    assert v.shape == (3, 3) and list(v[:, 2]) == [2, 1, 0]  # padded, with a length column
    assert Encoder().encode(np.array([0.5, 1.5])).shape == (2, 1)
    with pytest.raises(AdapterError, match="a str is not an output$"):
        Encoder().encode(["abc"])
    with pytest.raises(AdapterError, match=r"a dict is not an output \(a release of keys with values: audit its values with"):
        Encoder().encode([{0: 12.5}])
    with pytest.raises(AdapterError, match="element 'x' is a string"):
        Encoder().encode([(1, "x")])
    with pytest.raises(AdapterError, match="nested sequence"):
        Encoder().encode([((1, 2), 3)])


def test_logistic_regression_recovers_a_known_log_ratio():
    """Two Gaussians with means 0 and 1 (unit variance): the log-ratio is x - 1/2, linear in the raw feature."""
    rng = np.random.default_rng(1)
    A, B = rng.normal(1, 1, (40_000, 1)), rng.normal(0, 1, (40_000, 1))
    fm = FeatureMap(np.vstack([A, B]))
    w, c = fit_logistic(fm.transform(A), fm.transform(B))
    xs = np.array([[-1.0], [0.0], [1.0], [2.0]])
    s = fm.transform(xs) @ w + c
    assert np.allclose(np.diff(s), 1.0, atol=0.15), s  # slope 1 per unit (bins + raw value together)


def test_threshold_events_prefer_a_large_event_with_the_same_ratio():
    """Laplace(1) vs Laplace(0): {x >= 1} and {x >= 5} have the same ratio e^eps; the large one certifies more."""
    rng = np.random.default_rng(2)
    a, b = 1 + rng.laplace(0, 2, 200_000), rng.laplace(0, 2, 200_000)
    s = lambda x: np.clip(x, 0, 1) - 0.5  # noqa: E731 -- the exact log-ratio up to a factor
    best = threshold_events(s(a), s(b), n_cert=1_000_000, level=0.01, delta=0)[0]
    assert best.side == 1 and best.p_tune > 0.3


# ----------------------------------------------------------------- the power statement
def test_detection_probability_against_simulation():
    """The binomial sum agrees with simulating the Clopper-Pearson test (its brute-force twin)."""
    rng = np.random.default_rng(3)
    n, a, eps, p, q = 2000, 0.01, 0.2, 0.3, 0.2
    x, y = rng.binomial(n, p, 4000), rng.binomial(n, q, 4000)
    hits = np.mean([cp_lower(int(i), n, a) - exp_up(eps) * cp_upper(int(j), n, a) > 0 for i, j in zip(x, y, strict=True)])
    assert abs(detection_probability(p, q, n, a, eps, 0) - hits) < 0.03


def _rr_target(eps_true):
    """A two-point mechanism: output 1 w.p. 0.01 e^eps_true on h = (1, 0), w.p. 0.01 on (0, 0): its violation sits on mass 0.01.

    (Two items, so that the released bit is a valid item index; with one item the adapter refuses index 1.)"""

    def f(h, rng, size):
        p = 0.01 * math.exp(eps_true) if h[0] == 1 else 0.01
        return (rng.random(size) < p).astype(np.int64)

    return f


@pytest.mark.slow
def test_the_power_statement_holds_on_mechanisms_with_known_eps():
    """At the stated detectable eps (mass 0.01) the audit detects in >= 90% of seeds; well below it, rarely."""
    claim, n = F(1, 2), 60_000
    r0 = audit(_rr_target(0.5), eps=claim, inputs=[(1, 0), (0, 0)], samples=n, seed=0)
    assert r0.verdict == "PASS" and r0.power is not None
    stated = r0.power["detectable_eps"]
    above = [audit(_rr_target(stated + 0.02), eps=claim, inputs=[(1, 0), (0, 0)], samples=n, seed=s).verdict for s in range(40)]
    below = [audit(_rr_target((0.5 + stated) / 2), eps=claim, inputs=[(1, 0), (0, 0)], samples=n, seed=s).verdict
             for s in range(40)]
    assert above.count("FAIL") >= 34, above.count("FAIL")  # 0.9 x 40 = 36, minus binomial slack
    assert below.count("FAIL") < 34


# ----------------------------------------------------------------- audits without inputs, continuous outputs
def test_correct_laplace_passes_spec_less_with_a_stated_power():
    r = audit(LaplaceMechanism(F(1, 2)), eps=F(1, 2), delta=0, relation="delta:1", d=2, samples=40_000)
    assert r.verdict == "PASS" and r.finding == "no violation found"
    assert r.power["detectable_eps"] > 0.5 and len(r.power["curve"]) == 4
    j = r.as_json()
    assert j["power"]["detectable_eps"] == r.power["detectable_eps"] and "eps_lower_bound" in j and j["verdict"] == "PASS"
    assert "no violation found" in r.summary() and "not a proof of privacy" in r.summary() and "power:" in r.summary()


@pytest.mark.parametrize("mech,rel", [
    (NoisyMax(F(1, 2), "laplace", "value"), "linf"),   # noisy max releasing its value: n eps / 2 = 0.75 > 1/2
    (NoisyHistWrongScale(F(1, 2)), "delta:1"),         # noisy histogram with scale eps: 1/eps = 2 > 1/2
], ids=["noisy-max-value", "noisy-histogram-2"])
def test_continuous_output_violations_are_refuted_without_inputs(mech, rel):
    r = audit(mech, eps=F(1, 2), delta=0, relation=rel, d=3, samples=100_000)
    assert r.verdict == "FAIL" and r.witness is not None and r.eps_lower_bound > 0.5, r.summary()
    assert r.witness.event.description.startswith("{score")


@pytest.mark.slow
def test_sparse_vector_releasing_noisy_answers_is_refuted_without_inputs():
    """Lyu et al. Alg. 3 at eps = 1/2, d = 10: spec-less it needs 1e6 samples per input (its learned ratio needs the
    1e5 screening rows); with its exact density (log_density) as the reference 1e5 suffice."""
    svt3 = LyuSVT(3, F(1, 2), 1, 1)
    r = audit(svt3, eps=F(1, 2), delta=0, relation="linf", d=10, samples=1_000_000)
    assert r.verdict == "FAIL" and r.eps_lower_bound > 0.5, r.summary()
    r = audit(svt3, spec=svt3, eps=F(1, 2), delta=0, relation="linf", d=10, samples=100_000)
    assert r.verdict == "FAIL" and r.eps_lower_bound > 0.5 and "exact likelihood ratio" in r.witness.event.description


def test_unrounded_exact_scores_certify_a_floating_point_leak():
    """Why ExactScore rounds: on the float Laplace sampler the tail ratio is exactly e^eps, and a threshold inside the ulp
    scatter of ``la - lb`` picks outputs by their last bits -- certifying eps > 0.1 for a 0.1-DP mechanism's *floats*."""
    from dpverify.auditor.ratio import ExactScore

    m = LaplaceMechanism(F(1, 10))
    rng = np.random.default_rng(7)
    A, B = m.sample_array((40,), rng=rng, size=200_000), m.sample_array((39,), rng=rng, size=200_000)
    C, D = m.sample_array((40,), rng=rng, size=400_000), m.sample_array((39,), rng=rng, size=400_000)
    for digits, leaks in ((None, True), (9, False)):
        s = ExactScore(m.log_density, (40,), (39,), digits=digits)
        ch = threshold_events(s(A), s(B), n_cert=400_000, level=0.005, delta=0)[0]
        xa, xb = int(ch.member(s(C if ch.side > 0 else D)).sum()), int(ch.member(s(D if ch.side > 0 else C)).sum())
        lcb = math.log(cp_lower(xa, 400_000, 0.005) / cp_upper(xb, 400_000, 0.005))
        assert (lcb > 0.1) is leaks, (digits, lcb, ch)


def test_spec_less_without_inputs_domain_or_d_is_a_named_error():
    with pytest.raises(InvalidParameter, match="spec-less audit needs inputs"):
        audit(LaplaceMechanism(1), eps=1)
    with pytest.raises(InvalidParameter, match="d=3 asks for the input search"):
        audit(LaplaceMechanism(1), eps=1, d=3, inputs=[(1,), (2,)])


SVT6_FILE = """
import numpy as np

def svt6(h, rng, size):
    '''Lyu et al. Alg. 6 at eps = 1/2, T = 1: query noise, no cutoff (not DP).'''
    a = np.asarray(h, dtype=float)
    rho = rng.laplace(0, 4, size=(size, 1))
    nu = rng.laplace(0, 4, size=(size, a.size))
    return (a + nu >= 1 + rho).astype(int)
"""


def test_cli_spec_less_alg6_is_refuted_at_d_10_without_inputs(tmp_path, capsys):
    f = tmp_path / "svt6.py"
    f.write_text(SVT6_FILE)
    code = main(["audit", f"{f}:svt6", "--eps", "1/2", "--delta", "0", "--relation", "linf", "--d", "10", "--json"])
    j = json.loads(capsys.readouterr().out)
    assert code == 1 and j["verdict"] == "FAIL" and j["eps_lower_bound"] > 0.5 and j["witness"]["event"]
    assert j["search"]["candidates"] >= 8


def test_cli_catalogue_writes_its_section_and_report_rerenders_it(tmp_path, capsys):
    """A one-member, small-budget run: data/catalogue.json, the audits.md section, byte-identical re-rendering."""
    import shutil
    from pathlib import Path

    from dpverify.report.audits import render_audits_page
    from dpverify.report.data import load

    (tmp_path / "data").mkdir()
    shutil.copy(Path(__file__).resolve().parents[3] / "reports" / "data" / "audits.json", tmp_path / "data" / "audits.json")
    code = main(["audit", "--catalogue", "TruncatedGeometric", "--budget", "200000", "--false-alarm-seeds", "0",
                 "--modes", "black box", "--write-report", str(tmp_path / "audits.md")])
    out = capsys.readouterr()
    assert code == 0 and "TruncatedGeometric" in out.out
    page = (tmp_path / "audits.md").read_text()
    assert "## The StatDP / DP-Sniper benchmark" in page and "| TruncatedGeometric |" in page and "0.1156" in page
    data = load(tmp_path, "catalogue")
    assert data["rows"][0]["samples_total"] <= 200_000 and data["rows"][0]["within_budget"]
    render_audits_page(load(tmp_path, "audits"), tmp_path)
    assert (tmp_path / "audits.md").read_text() == page
    code = main(["audit", "--catalogue", "--modes", "white box"])
    assert code == 2 and "--modes" in capsys.readouterr().err


def test_noisy_max_value_ceiling_grows_with_samples_below_the_truth():
    """ReportNoisyMax3's closed-form ceiling: below the truth d/scale = 0.25, increasing in n, near it at 2e8 samples;
    at the catalogue's target budget (7.5e6 per input) below DP-Sniper's published 0.2478 -- a bound that needs more samples."""
    import math

    from dpverify.auditor.catalogue import PUBLISHED, noisy_max_value_ceiling, plan
    from dpverify.auditor.ratio import predicted_eps_lower

    c = [noisy_max_value_ceiling(5, 20.0, n, 0.05) for n in (10**5, 750_000, plan()["n_cert"], 10**7, 10**8, 2 * 10**8)]
    assert all(a < b for a, b in zip(c, c[1:], strict=False)) and c[-1] < 0.25 and c[-2] > 0.247
    assert c[2] < c[3] < min(PUBLISHED["ReportNoisyMax3"][:2])  # even with the whole 2e7 certifying (1e7 per input)
    assert abs(c[-1] - PUBLISHED["ReportNoisyMax3"][1]) < 0.0005  # at DP-Sniper's 2e8: its published 0.2488 (ours 0.2486)
    # the event {max <= 0} on the all-shift pair: P = 2^-5, Q = (e^-0.05 / 2)^5, ratio e^0.25 exactly
    p, q = np.array([2.0 ** -5]), np.array([(math.exp(-0.05) / 2) ** 5])
    at0 = float(predicted_eps_lower(p, q, plan()["n_cert"], 0.05, 0.0)[0])
    assert at0 <= c[2] < at0 + 0.002


def test_exact_search_reports_its_ceiling_at_the_target_budget():
    from dpverify.auditor.catalogue import ALPHA, _exact_pairs, plan
    from mechanisms.catalogue import member

    m = member("TruncatedGeometric")
    pairs, st = _exact_pairs(m, m.mechanism(), plan(200_000)["n_cert"], ALPHA / 2, n_target=plan()["n_cert"])
    assert pairs and st["best_at_target"] > st["best_predicted"]  # more certification samples, a higher ceiling
    _, st = _exact_pairs(m, m.mechanism(), plan(200_000)["n_cert"], ALPHA / 2)
    assert st["best_at_target"] is None


def test_catalogue_page_names_targets_out_of_reach():
    from dpverify.report.audits import catalogue_section

    row = {"member": "ReportNoisyMax3", "mode": "exact law", "d": 5, "relation": "linf", "claim_eps": "1/10", "truth": "0.25",
           "eps_lower_bound": 0.2, "dpsniper_lr": 0.2478, "dpsniper_mlp": 0.2488, "statdp_1": 0.19, "statdp_2": 0.19,
           "meets_dpsniper": False, "samples_total": 2e6, "seconds": 3, "within_budget": True, "verdict": "FAIL",
           "closed_form_ceiling_at_target": 0.2429, "closed_form_ceiling_whole_budget": 0.2438,
           "closed_form_ceiling_at_dpsniper": 0.2486}
    ok = {**row, "member": "Laplace", "closed_form_ceiling_at_target": None, "closed_form_ceiling_whole_budget": None,
          "exact_ceiling_at_target": 0.099, "dpsniper_lr": 0.0968,
          "dpsniper_mlp": 0.0976}
    cat = {"settings": {"budget": 2e6, "alpha": 0.1, "seed": 1, "plan": {"n_cert": 750000}, "false_alarm_seeds": 0},
           "command": "x", "published_source": "y", "provenance": {"git_commit": "abc", "versions": {}, "exact_prec_bits": 256},
           "wall_seconds": 1, "rows": [row, ok], "false_alarm": [], "targets": []}
    text = "".join(catalogue_section(cat))
    assert "Out of reach at the target budget" in text and "ReportNoisyMax3 (ceiling 0.2429 < 0.2488, over every pair)" in text
    assert "Laplace (ceiling" not in text and "| 0.2429 |" in text
    assert ("ReportNoisyMax3's closed-form ceiling (every pair, every event) with the whole 2e7 certifying one event (1e7 per "
            "input, "
            "no screening): 0.2438; at DP-Sniper's 2e8 per input: 0.2486, beside its published 0.2488." in text)
    assert text.count("closed-form ceiling (every pair") == 1
    assert "a false alarm that level allows" not in text  # no correct member FAILs here
    wrong = {**ok, "correct": True, "verdict": "FAIL", "eps_lower_bound": 0.100011, "claim_eps": "1/10",
             "eps_lower_bound_99": 0.0991, "verdict_99": "PASS", "mode": "black box"}
    text = "".join(catalogue_section({**cat, "rows": [row, wrong]}))
    fa = {"member": "NoisyHist1", "mode": "black box", "claim_eps": "1/10", "runs": 20, "false_fails": 0, "false_fails_99": 0,
          "max_eps_lower_bound": 0.04, "max_samples_total": 203_000, "seconds": 40}
    settings = {**cat["settings"], "false_alarm_seeds": 20, "false_alarm_budget": 200_000}
    fa_text = "".join(catalogue_section({**cat, "settings": settings,
                                         "false_alarm": [fa, {**fa, "member": "SVT1", "max_samples_total": 195_000}]}))
    assert "(20 seeds, a budget of 2e+05 samples each)" in fa_text
    assert "Over that budget in some run" in fa_text and "NoisyHist1 black box (2.03e+05)" in fa_text
    assert "SVT1 black box (" not in fa_text
    assert ("A correct member's own row FAILs at 90% (a false alarm that level allows in up to 10% of runs on a tight claim; "
            "`dpverify audit` decides at 99%): Laplace black box: 0.1000 > 1/10, at 99% 0.0991 (PASS)." in text)


# ----------------------------------------------------------------- mutation testing of ratio.py
def test_table_score_is_the_smoothed_log_ratio_of_seen_outputs_and_0_elsewhere():
    from dpverify.auditor.ratio import TableScore

    A = np.array([[1.0], [1.0], [1.0], [2.0]])
    B = np.array([[2.0], [2.0], [3.0], [3.0]])
    s = TableScore(A, B)(np.array([[1.0], [2.0], [3.0], [7.0], [0.0]]))
    want = [math.log(3.5 / 4) - math.log(0.5 / 4), math.log(1.5 / 4) - math.log(2.5 / 4),
            math.log(0.5 / 4) - math.log(2.5 / 4), 0.0, 0.0]
    assert s.tolist() == pytest.approx(want, rel=1e-15)


def test_logistic_regression_minimises_its_documented_objective():
    """A strong penalty (l2 = 0.5) pulls the weights far from the unpenalised fit: the fit's gradient of the documented
    objective (mean log-loss + l2/2 |w|^2) is zero, and its value is below that of nearby points."""
    from scipy import special

    rng = np.random.default_rng(4)
    Fa, Fb = rng.normal(1, 1, (300, 2)), rng.normal(0, 1, (300, 2))
    from scipy import sparse

    w, c = fit_logistic(sparse.csr_matrix(Fa), sparse.csr_matrix(Fb), l2=0.5)

    def obj(w, c):
        la = np.logaddexp(0.0, -(Fa @ w + c)).mean()
        lb = np.logaddexp(0.0, Fb @ w + c).mean()
        return 0.5 * la + 0.5 * lb + 0.25 * float(w @ w)

    ga = -special.expit(-(Fa @ w + c))
    gb = special.expit(Fb @ w + c)
    grad_w = 0.5 * (Fa.T @ ga) / 300 + 0.5 * (Fb.T @ gb) / 300 + 0.5 * w
    assert np.abs(grad_w).max() < 1e-5 and 0.2 < w.min() and w.max() < 0.6
    for dw in ([1e-3, 0], [0, -1e-3], [-1e-3, 1e-3]):
        assert obj(w, c) < obj(w + np.array(dw), c)


def test_threshold_choices_carry_their_tuning_frequencies():
    """Every a-score is 1 and half the b-scores are: {s >= 1} holds all of a's outputs but only half of b's -- a useful
    event (only one holding *every* output of both is dropped); the lower side ({s <= 0}) has no hit under b's reversal."""
    sa = np.ones(100)
    sb = np.concatenate([np.ones(50), np.zeros(50)])
    choices = threshold_events(sa, sb, n_cert=10_000, level=0.01, delta=0)
    up = [ch for ch in choices if ch.side == 1]
    assert len(up) == 1 and (up[0].t, up[0].p_tune, up[0].q_tune, up[0].n_tune) == (1.0, 1.0, 0.5, 100)
    assert up[0].predicted_eps_lower > 0 and up[0].plugin_eps_lower == pytest.approx(math.log(2), abs=0.1)
    assert threshold_events(np.ones(100), np.ones(100), n_cert=10_000, level=0.01, delta=0) == []
    # mirrored: a's scores are all 0, half of b's are 1 -- the lower side {s <= 0} is the event, with side exactly -1
    down = threshold_events(np.zeros(100), 1 - sb, n_cert=10_000, level=0.01, delta=0)
    assert {ch.side for ch in down} <= {1, -1} and [(ch.side, ch.t) for ch in down if ch.side < 0] == [(-1, 0.0)]


def test_candidate_thresholds_stay_in_the_sample_and_nan_predictions_are_minus_inf():
    from dpverify.auditor.ratio import THRESHOLDS, _candidates, is_discrete, predicted_eps_lower

    sa = np.arange(200.0)
    ts = _candidates(sa, 10)
    assert ts.size <= THRESHOLDS and ts.max() == 190.0 and ts.min() == 0.0  # the 10th largest .. the smallest
    assert _candidates(sa, 500).tolist() == [0.0]  # more hits asked for than rows: the smallest score only
    # a count beyond n (p = 2) has no Clopper-Pearson bound (nan): its prediction is -inf, not nan
    pred = predicted_eps_lower(np.array([2.0, 0.5]), np.array([0.1, 0.1]), 1000, 0.01, 0.0)
    assert pred[0] == -np.inf and 1.0 < pred[1] < math.log(5)
    # few distinct rows relative to n: counted, not learned (the share applies above the floor)
    X = np.tile(np.arange(80.0), 125).reshape(-1, 1)  # 10,000 rows, 80 distinct: 80 <= 1 % of 10,000 (5,000: > 64)
    assert is_discrete(X) and not is_discrete(X[:5000])
