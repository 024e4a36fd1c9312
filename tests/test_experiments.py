"""dpverify.experiments: metrics on hand-computed cases, quick page, determinism, escaping (< 60 s)."""

from __future__ import annotations

import numpy as np
import pytest

from mechanisms.core import BOT
from dpverify.experiments import (
    lemma_8_1_bound, linf_error, mean_ci, precision, relative_sum, returned_items, write_experiments,
)
from dpverify.experiments_plots import top_items_table

H = np.array([10, 50, 30, 0, 40], dtype=np.int64)  # sorted: 1 (50), 4 (40), 2 (30), 0 (10), 3 (0)
TOP3 = [1, 4, 2]


def test_returned_items_handles_bot_and_ts_transcript():
    assert returned_items((4, 1, BOT)) == [4, 1]
    assert returned_items((BOT, BOT, frozenset({2, 1}))) == [1, 2]
    assert returned_items((BOT, BOT)) == []
    assert returned_items(frozenset({3})) == [3]


def test_precision_hand_computed():
    assert precision([1, 4, 2], TOP3, 3) == 1
    assert precision([1, 0], TOP3, 3) == pytest.approx(1 / 3)  # ⊥-terminated: counts what it returns
    assert precision([], TOP3, 3) == 0
    assert precision([3, 0, 4], TOP3, 3) == pytest.approx(1 / 3)


def test_relative_sum_hand_computed():
    assert relative_sum(H, [1, 4, 2], TOP3) == 1
    assert relative_sum(H, [0, 3, 2], TOP3) == pytest.approx(40 / 120)
    assert relative_sum(H, [4], TOP3) == pytest.approx(40 / 120)


def test_linf_hand_computed():
    assert linf_error(H, [2, 4, 1], 3) == 0  # order ignored
    # returned counts sorted (50, 30, 10) vs true (50, 40, 30): max(0, 10, 20) = 20
    assert linf_error(H, [0, 1, 2], 3) == 20
    # (40, 10, 0) vs (50, 40, 30): 30
    assert linf_error(H, [3, 4, 0], 3) == 30
    with pytest.raises(ValueError):
        linf_error(H, [1, 2], 3)


def test_mean_ci_normal():
    m, hw = mean_ci([0, 1, 0, 1])
    assert m == 0.5 and hw == pytest.approx(1.959963984540054 * np.std([0, 1, 0, 1], ddof=1) / 2)


def test_lemma_8_1_bound_is_monotone_in_gap_and_clipped():
    h = np.array([100, 100, 0, 0, 0], dtype=np.int64)
    b = lemma_8_1_bound(h, 2, 2, 1, 0.01)
    assert b == pytest.approx(1 - 2 * 2 / 0.01 * np.exp(-99))
    assert lemma_8_1_bound(np.array([1, 1, 0], dtype=np.int64), 1, 1, 1, 0.01) == 0.0


def test_malicious_label_is_escaped():
    evil = "<img src=x onerror=alert(1)>|[x](http://e)`"
    out = top_items_table([evil, "ok"], np.array([5, 3], dtype=np.int64), 2)
    import re
    assert not re.search(r"(?<!\\)[<>\[\]()`]", out.splitlines()[2].split("|", 2)[2])  # no unescaped metacharacter
    assert "\\<img" in out
    row = out.splitlines()[2]
    assert row.count("|") - row.count("\\|") == 4  # the label's pipe is escaped: still 3 cells


@pytest.fixture(scope="module")
def two_quick_runs(tmp_path_factory):
    a, b = tmp_path_factory.mktemp("a"), tmp_path_factory.mktemp("b")
    return write_experiments(a, quick=True), write_experiments(b, quick=True)


def test_quick_mode_writes_page_and_figures(two_quick_runs):
    page = two_quick_runs[0]
    text = page.read_text(encoding="utf-8")
    for needle in ("CWGM20 §6", "GJMR21 §4", "DR19 §8", "Metric P", "Metric S", "seed: 20201220", "JOINT", "LAPLACE"):
        assert needle in text
    for png in ("experiments_cwgm20_ksweep.png", "experiments_gj_movielens.png", "experiments_gj_uniform.png", "experiments_dr19_kbar.png"):
        assert f"]({png})" in text and (page.parent / png).stat().st_size > 1000


def test_same_seed_same_bytes(two_quick_runs):
    a, b = two_quick_runs
    assert a.read_bytes() == b.read_bytes()
    for png in ("experiments_cwgm20_ksweep.png", "experiments_dr19_kbar.png"):
        assert (a.parent / png).read_bytes() == (b.parent / png).read_bytes()
