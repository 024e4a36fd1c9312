"""How wide the privacy claims' exhaustive domains are: default, quick and ``--wide`` levels."""

import pytest

from mechanisms.errors import InvalidParameter

from proofs.claims import COSTLY, Domain, PrivacyClaim, widened
from proofs.registry import all_claims

from dpverify.checker.ledger import run_all
from dpverify.cli import main
from dpverify.report.coverage import GOAL, _reach

#: privacy claims that hold and whose widest domain stays below d = 5, counts 0..6, with the reason. Adding a claim
#: here is a decision (the coverage page lists them); a claim dropping out of it fails the test until it is removed.
#: Empty since SVT's laws run on Arb balls (both SVT claims enumerate every pair of the goal box, no symmetry) and
#: pay-what-you-get sessions run by item-blind strategies inherit their rounds' symmetries (MultiLimitDom.symmetries;
#: strategies whose views name items run only where their views fit, e.g. d = 3).
#: Partition selection (DVGM22) is below the goal by design: the reason is in _PARTITION.
_PARTITION = ("partition selection: keys are released independently and a neighbour changes at most L keys, so unchanged keys "
              "factor out of the hockey-stick divergence (a product with a common factor) and d = L keys suffice; counts are a "
              "window around the threshold, and every count is covered by the for-all-n obligations (DVGM22.*#all-n)")
NARROW: dict[str, str] = {cid: _PARTITION for cid in ("DVGM22.Gaussian", "DVGM22.Laplace", "DVGM22.PreThreshold", "DVGM22.Split",
                                                       "DVGM22.Split#L3", "DVGM22.Thm1", "DVGM22.Thm1#closed")}
NARROW["DVGM22.OpenDP-GaussianThreshold#corrected"] = (
    "approximate zCDP of partition selection: keys are independent, so unchanged keys factor out of every Rényi divergence "
    "and of the mass off the other support (a product with a common factor): d = L keys suffice; counts are windows at 0 "
    "and around the threshold")


def _privacy_holds():
    return {cid: c for cid, c in all_claims().items() if isinstance(c, PrivacyClaim) and c.expected == "holds"}


def test_widened_grows_every_length_and_records_the_wide_level():
    base = Domain(d=3, max_count=2, params=({"eps": 1},))
    w = widened(base)
    assert (w.d, w.max_count, w.min_d, w.wide) == (5, 6, 1, None) and w.widest() is w
    c = widened(base, **COSTLY)
    assert (c.d, c.max_count, c.min_d, c.wide) == (4, 6, 1, (5, 6))
    assert (c.widest().d, c.widest().max_count, c.widest().min_d, c.widest().wide) == (5, 6, 1, None)
    assert widened(base, d=5, max_count=6, wide=(4, 4)).wide is None  # a "wide" level narrower than the default is no level
    assert widened(Domain(d=6, max_count=8)).d == 6 and widened(Domain(d=6, max_count=8)).max_count == 8  # never narrows


def test_every_privacy_claim_reaches_the_goal_on_its_wide_domain_or_says_why_not():
    short = {cid for cid, c in _privacy_holds().items()
             if not (c.wide_domain.d >= GOAL[0] and c.wide_domain.max_count >= GOAL[1])}
    missing, stale = short - set(NARROW), set(NARROW) - short
    assert not missing, f"below the goal without a reason: {sorted(missing)}"
    assert not stale, f"listed as narrow but reaches the goal (or gone): {sorted(stale)}"
    for cid, c in _privacy_holds().items():
        if cid not in NARROW:  # the narrow ones say why (partition selection: its length is the number of keys moved)
            assert c.wide_domain.min_d == 1, cid  # every length from 1, not only d


def test_costly_claims_are_the_refuted_zcdp_probes_and_every_claim_that_holds_reaches_the_goal_by_default():
    """widened(..., **COSTLY) is kept for the zCDP claims that are refuted (their failing pairs each need the per-pair
    certificate; the violation is found on d <= 4); since the zCDP pair screen, every zCDP and Rényi-DP claim that holds
    is checked to d = 5, counts 0..6 by default."""
    costly = [c for c in all_claims().values() if isinstance(c, PrivacyClaim) and c.domain.wide is not None]
    assert len(costly) >= 6
    for c in costly:
        assert c.notion == "zcdp" and c.expected == "violated", c.id
        assert c.domain.max_count >= COSTLY["max_count"] and c.domain.d >= COSTLY["d"] and c.domain.min_d == 1, c.id
        assert (c.wide_domain.d, c.wide_domain.max_count, c.wide_domain.min_d) == (5, 6, 1), c.id
    renyi = [c for c in _privacy_holds().values() if c.notion in ("zcdp", "rdp")]
    assert len(renyi) >= 9  # BS16 x4, CR21 BR-zCDP x4, CR21 RDP
    for c in renyi:
        assert (c.domain.d, c.domain.max_count, c.domain.min_d, c.domain.wide) == (5, 6, 1, None), c.id


def test_every_dp_claim_reaches_the_goal_by_default_or_says_why_not():
    """Claims checked beyond toy domains, in the default run: every privacy claim that holds -- (eps, delta),
    bounded-range, zCDP, Rényi-DP -- covers every length up to 5 with counts 0..6 (canonical pairs) unless it is
    listed in NARROW; none waits for --wide."""
    short = {cid for cid, c in _privacy_holds().items()
             if not (c.domain.d >= GOAL[0] and c.domain.max_count >= GOAL[1] and c.domain.min_d == 1)}
    assert short <= set(NARROW), f"below the goal by default without a reason: {sorted(short - set(NARROW))}"
    assert not [c.id for c in _privacy_holds().values() if c.domain.wide is not None]


def test_quick_and_wide_together_are_refused(capsys):
    with pytest.raises(InvalidParameter, match="quick=True and wide=True"):
        run_all(["DR19.Thm1"], quick=True, wide=True)
    with pytest.raises(SystemExit) as e:
        main(["verify", "--quick", "--wide", "--no-write"])
    assert e.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_coverage_page_groups_the_claims_by_reach():
    entries = [
        {"claim": "A", "kind": "privacy", "reach": {"d": 5, "max_count": 6, "wide": None}},
        {"claim": "B", "kind": "privacy", "reach": {"d": 4, "max_count": 6, "wide": [5, 6]}},
        {"claim": "C", "kind": "privacy", "reach": {"d": 3, "max_count": 4, "wide": None}},
        {"claim": "D", "kind": "privacy"},
        {"claim": "E", "kind": "obligation"},
    ]
    text = _reach(entries)
    lines = text.splitlines()
    assert any("reaches d = 5" in ln and "| 1 |" in ln and "`A`" in ln for ln in lines)
    assert any("--wide" in ln and "`B` (d <= 4, counts 0..6; --wide: d <= 5, counts 0..6)" in ln for ln in lines)
    assert any("no wider domain" in ln and "`C` (d <= 3, counts 0..4)" in ln for ln in lines)
    assert any("a domain of its own" in ln and "`D`" in ln for ln in lines)
    assert "`E`" not in text
