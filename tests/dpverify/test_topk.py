"""`dpverify topk`: DuckDB access pattern, distinct-user counts, bad inputs, the SQLite budget (incl. kill-safety)."""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("duckdb")

from mechanisms.errors import BudgetExceeded, InvalidHistogram, InvalidParameter, UnknownName  # noqa: E402
from mechanisms.limited_domain import LimitDom, StrictLimitDom  # noqa: E402
from mechanisms.limited_domain.laplace import LimitDomLap  # noqa: E402
from mechanisms.stability.top_stable import TopStable  # noqa: E402

from dpverify.cli import main  # noqa: E402
from dpverify.topk import release as T  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _write(path: Path, rows: list[tuple], header: str = "user,item") -> str:
    path.write_text(header + "\n" + "".join(",".join("" if v is None else str(v) for v in r) + "\n" for r in rows))
    return str(path)


@pytest.fixture
def small(tmp_path: Path) -> str:
    # item 10: users a, b, c (a twice) -> 3; item 20: a, b -> 2; item 5: c, d -> 2 (tie with 20, label 5 first);
    # item 7: d -> 1; a row with an empty user is dropped.
    rows = [("a", 10), ("a", 10), ("b", 10), ("c", 10), ("a", 20), ("b", 20), ("c", 5), ("d", 5), ("d", 7), (None, 7)]
    return _write(tmp_path / "small.csv", rows)


@pytest.fixture
def wide(tmp_path: Path) -> str:
    # 300 items, item j has (j % 37) + 1 distinct users: many ties, far more items than kbar+1
    rows = [(f"u{u}", j) for j in range(300) for u in range(j % 37 + 1)]
    p = tmp_path / "wide.csv.gz"
    with gzip.open(p, "wt") as f:
        f.write("user,item\n" + "".join(f"{u},{i}\n" for u, i in rows))
    return str(p)


def test_distinct_user_counts_and_fixed_tie_order(small: str) -> None:
    assert T.top_rows(small, "user", "item", 3) == [(10, 3), (5, 2), (20, 2), (7, 1)]
    assert T.top_rows(small, "user", "item", 1) == [(10, 3), (5, 2)]  # LIMIT kbar+1
    assert T.top_rows(small, "user", "item", 9) == [(10, 3), (5, 2), (20, 2), (7, 1)]


def test_counts_match_python_on_wide_gz(wide: str) -> None:
    counts = {j: j % 37 + 1 for j in range(300)}
    expect = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:11]
    assert T.top_rows(wide, "user", "item", 10) == expect


def test_parquet(tmp_path: Path, small: str) -> None:
    import duckdb

    pq = tmp_path / "small.parquet"
    duckdb.connect().execute(f"COPY (SELECT * FROM read_csv('{small}', header=true)) TO '{pq}' (FORMAT parquet)")
    assert T.top_rows(str(pq), "user", "item", 3) == T.top_rows(small, "user", "item", 3)


def test_max_items_per_user_bounds_contributions(tmp_path: Path) -> None:
    rows = [(f"u{u}", j) for u in range(40) for j in range(12)]
    path = _write(tmp_path / "dense.csv", rows)
    top = T.top_rows(path, "user", "item", 11, max_items_per_user=2)
    assert sum(c for _, c in top) == 40 * 2  # every user keeps exactly 2 of its 12 items
    assert top == T.top_rows(path, "user", "item", 11, max_items_per_user=2)  # deterministic
    # the rule is per user: removing one user lowers at most 2 counts by 1 each
    path2 = _write(tmp_path / "dense2.csv", [r for r in rows if r[0] != "u7"])
    a, b = dict(top), dict(T.top_rows(path2, "user", "item", 11, max_items_per_user=2))
    diff = {i: a.get(i, 0) - b.get(i, 0) for i in set(a) | set(b)}
    assert sorted(v for v in diff.values() if v) == [1, 1]


@pytest.mark.parametrize("mech,extra", [("limit-dom", {}), ("strict-limit-dom", {}), ("limit-dom-lap", {"max_items_per_user": 2}),
                                        ("top-stable", {})])
def test_mechanism_never_sees_more_than_kbar_plus_1_rows(monkeypatch: pytest.MonkeyPatch, wide: str, mech: str,
                                                         extra: dict) -> None:
    seen: list[int] = []

    def spy(cls: type, name: str) -> None:
        orig = getattr(cls, name)

        def wrapped(self, data, *a, **kw):  # type: ignore[no-untyped-def]
            seen.append(len(list(data)))
            return orig(self, data, *a, **kw)

        monkeypatch.setattr(cls, name, wrapped)

    spy(LimitDom, "release")
    for cls in (StrictLimitDom, LimitDomLap, TopStable):
        spy(cls, "sample")
    fetched: list[int] = []

    def fetch(*a, **kw):  # type: ignore[no-untyped-def]
        rows = T.top_rows(*a, **kw)
        fetched.append(len(rows))
        return rows

    for kbar in (3, 8):
        res = T.run_topk(wide, "user", "item", mech, k=3, kbar=kbar, eps=1, delta="1e-6", rng=np.random.default_rng(0),
                         fetch=fetch, **extra)
        assert res.rows_read == kbar + 1
    assert seen == [4, 9] and fetched == [4, 9]


def test_guard_refuses_an_engine_returning_too_many_rows(wide: str) -> None:
    with pytest.raises(RuntimeError, match="more than kbar"):
        T.run_topk(wide, "user", "item", "limit-dom", k=1, kbar=2, eps=1, delta="0.01", rng=np.random.default_rng(0),
                   fetch=lambda *a, **kw: [(i, 9) for i in range(4)])


@pytest.mark.parametrize("bad,exc,msg", [
    ([(1, -1)], InvalidParameter, "must be >= 0"),
    ([(1, 2.5)], Exception, "integer"),
    ([(1, 1), (2, 3)], InvalidHistogram, "not sorted"),
    ([(1, 3), (1, 3)], InvalidHistogram, "repeated"),
    ([], InvalidHistogram, "no items"),
])
def test_bad_counts_from_the_engine(small: str, bad: list, exc: type, msg: str) -> None:
    for mech in ("limit-dom", "top-stable"):
        with pytest.raises(exc, match=msg):
            T.run_topk(small, "user", "item", mech, k=1, kbar=2, eps=1, delta="0.01", rng=np.random.default_rng(0),
                       fetch=lambda *a, **kw: bad)


def test_small_run_outputs_and_pad(small: str) -> None:
    # huge eps: the true order, no ⊥ (kbar=3 uses all 4 items; h_bot = h_(4)+1+ln(3/delta)/eps ~ 2.0)
    res = T.run_topk(small, "user", "item", "limit-dom", k=1, kbar=3, eps=200, delta="0.5", rng=np.random.default_rng(1))
    assert res.selected == [10] and not res.stopped and res.output_size() == 1
    # kbar=6 > 4 items: padded with the fixed labels at count 0; tiny eps -> often ⊥ or pad labels, never a crash
    rows = T.top_rows(small, "user", "item", 6)
    outs = {tuple(T.run_topk(small, "user", "item", m, k=2, kbar=6, eps="0.01", delta="0.5", rng=np.random.default_rng(s),
                             fetch=lambda *a, **kw: rows).selected)
            for s in range(20) for m in ("limit-dom", "strict-limit-dom", "top-stable")}
    assert all(isinstance(x, (int, str)) for o in outs for x in o)


def test_privacy_statements() -> None:
    assert T.privacy_of("limit-dom", 3, 1, "1e-6")["eps"] == "3"
    p = T.privacy_of("limit-dom", 50, "0.1", "1e-6", delta_prime="1e-6")  # advanced composition wins: < k eps = 5
    assert 2.10 < float(p["eps"]) < 2.12 and p["delta"] == "1/500000"
    q = T.privacy_of("limit-dom-lap", 3, "1/2", "1e-6", Delta=2)
    assert q["eps"] == "1" and 0 < float(q["delta"]) < 1e-4 and "note" not in q
    assert "vacuous" in T.privacy_of("limit-dom-lap", 3, 1, "1e-6", Delta=20)["note"]
    with pytest.raises(UnknownName):
        T.privacy_of("nope", 1, 1, "0.1")


def _cli(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


BASE = ("--user", "user", "--item", "item", "--k", "2", "--kbar", "3", "--eps", "1", "--delta", "0.01", "--seed", "3")
#: Without a seed: the secure source (a release the budget ledger may charge).
UNSEEDED = BASE[:-2]


def test_cli_json(capsys: pytest.CaptureFixture, small: str) -> None:
    rc, out, _ = _cli(capsys, "topk", small, "--mechanism", "limit-dom", *BASE, "--json")
    j = json.loads(out)
    assert rc == 0 and j["rows_read"] == 4 and j["privacy"]["theorem"].startswith("DR19 Theorem 1")
    assert 1 <= len(j["selected"]) <= 2 and all(x in (10, 5, 20, "⊥") for x in j["selected"])


def test_cli_bad_inputs(capsys: pytest.CaptureFixture, tmp_path: Path, small: str) -> None:
    garbage = tmp_path / "g.parquet"
    garbage.write_bytes(b"\x00\x01not parquet at all")
    empty = _write(tmp_path / "empty.csv", [])
    nulls = _write(tmp_path / "nulls.csv", [(None, 1), ("a", None)])
    cases = [
        ((str(tmp_path / "missing.csv"), "--mechanism", "limit-dom", *BASE), "not a readable file"),
        ((str(garbage), "--mechanism", "limit-dom", *BASE), "cannot be read as Parquet"),
        ((small, "--mechanism", "limit-dom", *BASE[:1], "userX", *BASE[2:]), "--user='userX' is not a column"),
        ((empty, "--mechanism", "limit-dom", *BASE), "no (user, item) rows"),
        ((nulls, "--mechanism", "limit-dom", *BASE), "no (user, item) rows"),
        ((small, "--mechanism", "limit-dom-lap", *BASE), "needs --max-items-per-user"),
        ((small, "--mechanism", "nope", *BASE), "must be one of"),
        ((small, "--mechanism", "limit-dom", *BASE, "--kbar", "1"), "k=2 must be <= kbar=1"),
        ((small, "--mechanism", "limit-dom", *BASE, "--eps", "-1"), "eps='-1' must be > 0"),
        ((small, "--mechanism", "limit-dom", *BASE, "--k", "1.5"), "must be an integer"),
    ]
    for argv, msg in cases:
        rc, out, err = _cli(capsys, "topk", *argv)
        assert rc == 2 and out == "" and msg in err and err.count("\n") == 1, (argv, err)


def _rounds(path: str) -> list[tuple]:
    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT output, charge FROM rounds ORDER BY id").fetchall()
    finally:
        con.close()


def test_budget_charges_and_refuses(capsys: pytest.CaptureFixture, tmp_path: Path, small: str) -> None:
    db = str(tmp_path / "b.sqlite")
    rc, _, err = _cli(capsys, "topk", small, "--mechanism", "limit-dom", *UNSEEDED, "--budget", db)
    assert rc == 2 and "--k-star and --l-star" in err and not _has_tables(db)  # nothing created
    rc, out, _ = _cli(capsys, "topk", small, "--mechanism", "limit-dom", *UNSEEDED, "--budget", db, "--k-star", "3", "--l-star",
                      "5", "--json")
    j = json.loads(out)
    assert rc == 0 and j["charged"] == len(j["selected"]) and j["budget"]["k_used"] == j["charged"]
    assert [c for _, c in _rounds(db)] == [j["charged"]]
    g = j["budget"]["session_guarantee"]  # the tightest valid accountant, named, with every candidate
    cands = {m: float(v) for m, v in g["candidates"].items() if v is not None}
    assert g["accountant"] in cands and float(g["eps"]) == min(cands.values()) and "lemma4.4" in cands
    used = j["charged"]
    # errors inside the round (missing column) roll back: nothing charged
    rc, _, err = _cli(capsys, "topk", small, "--mechanism", "limit-dom", "--user", "nope", *UNSEEDED[2:], "--budget", db)
    assert rc == 2 and "is not a column" in err and len(_rounds(db)) == 1
    # different per-round parameters than the session's: refused
    rc, _, err = _cli(capsys, "topk", small, "--mechanism", "limit-dom", *UNSEEDED, "--eps", "2", "--budget", db)
    assert rc == 2 and "differs from the session" in err
    # other mechanisms are not Algorithm 2 rounds
    rc, _, err = _cli(capsys, "topk", small, "--mechanism", "top-stable", *UNSEEDED, "--budget", db)
    assert rc == 2 and "not allowed" in err
    # over budget: refused before any data is read (the DATA path does not even exist)
    rc, _, err = _cli(capsys, "topk", str(tmp_path / "absent.csv"), "--mechanism", "limit-dom", *UNSEEDED, "--k",
                      str(3 - used + 1), "--kbar", "3", "--budget", db)
    assert rc == 2 and "exceeds the remaining index budget" in err and len(_rounds(db)) == 1
    with pytest.raises(BudgetExceeded):
        from dpverify.topk.session import BudgetFile

        bf = BudgetFile(db, eps=1, delta="0.01", Delta=None)
        try:
            bf.charge(3 - used + 1, {}, run=lambda: pytest.fail("data read"), cost=lambda r: 1, describe=str)
        finally:
            bf.close()


def _has_tables(db: str) -> bool:
    con = sqlite3.connect(db)
    try:
        return bool(con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0])
    finally:
        con.close()


def test_budget_survives_kill_mid_charge(capsys: pytest.CaptureFixture, tmp_path: Path, small: str) -> None:
    db = str(tmp_path / "k.sqlite")
    args = ["topk", small, "--mechanism", "limit-dom", *UNSEEDED, "--budget", db, "--json"]
    cmd = [sys.executable, "-m", "dpverify", *args]
    assert _cli(capsys, *args, "--k-star", "20", "--l-star", "20")[0] == 0
    before = _rounds(db)
    env = {**os.environ, "DPVERIFY_TOPK_TEST_SLEEP": "60"}
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    try:
        line = proc.stderr.readline()  # blocks until the round is inside its transaction, row inserted
        assert line.strip() == "charging"
        proc.kill()  # SIGKILL mid-charge
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.stdout.read() == ""  # nothing was released
    proc.stdout.close()
    proc.stderr.close()
    assert _rounds(db) == before  # nothing lost, nothing charged for the killed round
    again = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert again.returncode == 0, again.stderr
    j = json.loads(again.stdout)
    after = _rounds(db)
    assert after[:-1] == before and len(after) == len(before) + 1 and after[-1][1] == j["charged"]
    assert j["budget"]["l_used"] == 2 and j["budget"]["k_used"] == sum(c for _, c in after)


def test_seeded_and_float_releases_are_marked_not_private_and_refused_by_the_ledger(capsys: pytest.CaptureFixture, tmp_path: Path,
                                                                                    small: str) -> None:
    rc, out, _ = _cli(capsys, "topk", small, "--mechanism", "limit-dom", *BASE, "--json")
    j = json.loads(out)
    assert rc == 0 and j["private"] is False and j["sampler"] == "exact" and j["seed"] == 3
    assert any("seeded" in w for w in j["not_private_because"]) and "seeded with 3" in j["randomness"]
    rc, out, _ = _cli(capsys, "topk", small, "--mechanism", "limit-dom", *BASE)
    assert rc == 0 and "private: false -- NOT a private release: seeded" in out
    rc, out, err = _cli(capsys, "topk", small, "--mechanism", "top-stable", *UNSEEDED, "--float", "--json")
    j = json.loads(out)
    assert rc == 0 and j["private"] is False and j["sampler"] == "float" and err.startswith("warning: --float")
    db = str(tmp_path / "s.sqlite")
    assert _cli(capsys, "topk", small, "--mechanism", "limit-dom", *UNSEEDED, "--budget", db, "--k-star", "9", "--l-star",
                "9")[0] == 0
    before = _rounds(db)
    for extra in (("--seed", "3"), ("--float",)):
        # the DATA path does not exist: refused before any read, nothing charged
        rc, out, err = _cli(capsys, "topk", str(tmp_path / "absent.csv"), "--mechanism", "limit-dom", *UNSEEDED, *extra,
                            "--budget", db)
        assert rc == 2 and out == "" and "charges only private releases" in err.splitlines()[-1], err
    assert _rounds(db) == before
    from dpverify.errors import NotAPrivateRelease
    from dpverify.topk.session import BudgetFile

    bf = BudgetFile(db, eps=1, delta="0.01", Delta=None)
    try:
        with pytest.raises(NotAPrivateRelease, match="seeded"):
            bf.charge(1, {}, run=lambda: pytest.fail("data read"), cost=lambda r: 1, describe=str,
                      private=False, not_private=["seeded: anyone who knows the seed can reproduce the noise"])
    finally:
        bf.close()
    assert _rounds(db) == before


@pytest.mark.parametrize("mech,extra", [("limit-dom", {}), ("strict-limit-dom", {}), ("limit-dom-lap", {"max_items_per_user": 2}),
                                        ("top-stable", {})])
def test_default_release_is_exact_balanced_on_the_secure_source(small: str, mech: str, extra: dict) -> None:
    from mechanisms.exact.sampling import SecureRandom

    # SecureRandom has only `integers`: a float draw anywhere on the path would raise AttributeError
    res = T.run_topk(small, "user", "item", mech, k=2, kbar=3, eps=1, delta="0.01", rng=SecureRandom(), **extra)
    assert res.sampler == "exact" and res.private and res.not_private == []
    m = T._build(mech, T.check_params(mech, 2, 3, 1, "0.01", extra.get("max_items_per_user")))
    assert m.exact and m.balanced


def test_budget_is_not_double_spent_by_concurrent_processes(capsys: pytest.CaptureFixture, tmp_path: Path, small: str) -> None:
    """Process A holds the write transaction (test hook: sleeps between INSERT and COMMIT); process B asks for the
    whole budget meanwhile.  B must wait for A's commit and then be refused: one round recorded, never two."""
    db = str(tmp_path / "c.sqlite")
    assert _cli(capsys, "topk", small, "--mechanism", "limit-dom", *UNSEEDED, "--k", "1", "--budget", db, "--k-star", "3",
                "--l-star", "5")[0] == 0  # create the session (charges 1)
    base = [sys.executable, "-m", "dpverify", "topk", small, "--mechanism", "limit-dom", *UNSEEDED, "--budget", db, "--json"]
    a = subprocess.Popen([*base[:-1], "--k", "1", "--json"], stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT,
                         env={**os.environ, "DPVERIFY_TOPK_TEST_SLEEP": "3"})
    try:
        assert a.stderr.readline().strip() == "charging"  # A is inside its transaction
        b = subprocess.run([*base, "--k", "2"], capture_output=True, text=True, cwd=ROOT, timeout=60)
        a_out, _ = a.communicate(timeout=60)
    finally:
        if a.poll() is None:
            a.kill()
    assert a.returncode == 0 and json.loads(a_out)["budget"]["k_used"] == 2
    assert b.returncode == 2 and "exceeds the remaining index budget" in b.stderr
    assert [c for _, c in _rounds(db)] == [1, 1]


def test_the_command_prints_what_the_job_returns(capsys: pytest.CaptureFixture, small: str) -> None:
    """``dpverify topk`` only parses and prints: its JSON is :meth:`TopkOutcome.as_json` of the same request."""
    from dpverify.topk.job import TopkRequest, prepare

    rc, out, _ = _cli(capsys, "topk", small, "--mechanism", "limit-dom", *BASE, "--json")
    req = TopkRequest(small, "user", "item", "limit-dom", k="2", eps="1", delta="0.01", kbar="3", seed="3")
    assert rc == 0 and json.loads(out) == json.loads(json.dumps(prepare(req).run().as_json(), ensure_ascii=False))


def test_prepare_validates_before_any_data_is_read(tmp_path: Path) -> None:
    from dpverify.topk.job import TopkRequest, prepare

    absent = str(tmp_path / "absent.csv")
    with pytest.raises(InvalidParameter, match="--seed"):
        prepare(TopkRequest(absent, "user", "item", "limit-dom", k="2", eps="1", delta="1/10", seed="-1"))
    with pytest.raises(InvalidParameter, match="--delta-prime"):
        prepare(TopkRequest(absent, "user", "item", "limit-dom", k="2", eps="1", delta="1/10", delta_prime="2"))
    job = prepare(TopkRequest(absent, "user", "item", "limit-dom", k="2", eps="1", delta="1/10"))
    assert job.private and job.sampler == "exact" and not job.not_private  # nothing read yet: the file is absent
