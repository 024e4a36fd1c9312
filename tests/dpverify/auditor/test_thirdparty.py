"""Guarded audits of third-party libraries (skipped when the optional extra is not installed)."""

import pytest

from dpverify.auditor import audit


def test_diffprivlib_exponential_matches_em_and_a_mismatch_is_caught():
    pytest.importorskip("diffprivlib.mechanisms", exc_type=ImportError)
    from dpverify.auditor.thirdparty import diffprivlib_exponential

    ok = audit(diffprivlib_exponential(1.0, monotonic=True), spec="em", params={"eps": 1}, samples=5000)
    assert ok.verdict == "PASS" and ok.seeded, ok.summary()
    # power: the non-monotonic variant (weights exp(eps u / 2)) is not EM(eps) with exp(eps u)
    bad = audit(diffprivlib_exponential(1.0, monotonic=False), spec="em", params={"eps": 1}, samples=5000)
    assert bad.verdict == "FAIL" and bad.fit_verdict == "FAIL"


@pytest.mark.slow
def test_opendp_noisy_max_and_top_k():
    pytest.importorskip("opendp")
    from dpverify.auditor.thirdparty import opendp_noisy_top_k, opendp_privacy_map

    assert opendp_privacy_map(1, 1.0, "pure") == 1.0
    r = audit(opendp_noisy_top_k(2, 1.0, "zCDP"), spec="gumbel-topk", params={"k": 2, "eps": 1}, samples=5000)
    assert r.verdict == "PASS" and not r.seeded and any("cannot be seeded" in n for n in r.notes)
    wrong = audit(opendp_noisy_top_k(1, 1.0, "pure"), eps="0.5", inputs=[(0, 0, 0), (0, 0, 1)], samples=20_000)
    assert wrong.verdict == "FAIL"


def test_missing_package_message(monkeypatch):
    import builtins

    from dpverify.auditor import thirdparty

    real_import = builtins.__import__

    def fake(name, *a, **k):
        if name.startswith("opendp"):
            raise ImportError("no opendp")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(ImportError, match="pip install opendp"):
        thirdparty.opendp_noisy_top_k()
