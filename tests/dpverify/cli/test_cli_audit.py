"""``dpverify audit`` on the command line: exit statuses 0 / 1 / 3 / 2, JSON, black-box targets, files."""

import json

from dpverify.cli import main


def run(capsys, *argv):
    code = main(["audit", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_pass_fail_inconclusive_exit_statuses(capsys, tmp_path):
    code, out, _ = run(capsys, "--spec", "em", "--param", "eps=1", "--samples", "4000", "--json")
    j = json.loads(out)
    assert code == 0 and j["verdict"] == "PASS" and j["exit_status"] == 0 and j["samples"]["max_per_input"] == 4000
    code, out, _ = run(capsys, "--spec", "mutant-em-half-scale", "--samples", "20000")
    assert code == 1 and "verdict: FAIL" in out and "witness: h=" in out and "certified: eps >=" in out
    f = tmp_path / "cycling.py"  # deterministic frequencies: P{0} = 1/2 on (0,0), 3/10 on (0,1)
    f.write_text(
        "import itertools\n"
        "CYC = {(0, 0): itertools.cycle([0] * 5 + [1] * 5), (0, 1): itertools.cycle([0] * 3 + [1] * 7)}\n"
        "def target(h, rng):\n"
        "    return next(CYC[tuple(h)])\n"
    )
    code, out, _ = run(capsys, f"{f}:target", "--eps", "0.2", "--inputs", "0,0;0,1", "--samples", "800", "--selection", "0.5")
    assert code == 3 and "INCONCLUSIVE" in out and "samples per input would settle it" in out


def test_black_box_target_module_and_file(capsys, tmp_path):
    code, out, _ = run(capsys, "mechanisms.exponential:PeelingEM", "--spec", "peeling-em", "--param", "k=2",
                       "--param", "eps=1", "--samples", "4000")
    assert code == 0 and "audit of mechanisms.exponential:PeelingEM against peeling-em" in out
    f = tmp_path / "impl.py"
    f.write_text(
        "import numpy as np\n"
        "def noisy_max(h, rng):\n"
        "    return 1 + int(np.argmax(np.asarray(h, float) + rng.gumbel(0, 1, len(h))))  # 1-based\n"
    )
    code, out, _ = run(capsys, f"{f}:noisy_max", "--spec", "em", "--param", "eps=1", "--index-base", "1", "--samples", "4000")
    assert code == 0, out
    code, _, err = run(capsys, f"{f}:noisy_max", "--spec", "em", "--param", "eps=1", "--samples", "4000")
    assert code == 2 and "index_base=1" in err and len(err.strip().splitlines()) == 1


def test_usage_errors_exit_2(capsys):
    for argv, needle in [
        ((), "give a TARGET, --spec, or both"),
        (("--spec", "nosuch"), "mechanism='nosuch' is not registered"),
        (("--spec", "em", "--domain", "3"), "--domain='3' must look like d,max_count"),
        (("--spec", "em", "--inputs", "1,x"), "--inputs='1,x'"),
        (("mechanisms.core:nope", "--spec", "em"), "has no attribute 'nope'"),
    ]:
        code, _, err = run(capsys, *argv)
        assert code == 2 and needle in err, (argv, err)


def test_registry_table_and_report(capsys, tmp_path):
    out_md = tmp_path / "audits.md"
    code, out, _ = run(capsys, "--registry", "em", "mutant-em-half-scale", "--samples", "5000", "--write-report", str(out_md),
                       "--json")
    j = json.loads(out)
    assert code == 0 and j["all_as_expected"]
    assert {r["id"] for r in j["audits"]} == {"em", "mutant-em-half-scale", "mutant-em-half-scale->em"}
    text = out_md.read_text()
    assert "| mutant-em-half-scale | privacy mutant | FAIL | FAIL |" in text and "| em | correct | PASS | PASS |" in text


def test_load_registers_a_users_mechanism(capsys, tmp_path):
    from proofs.registry import all_claims

    from dpverify.byo import unregister

    f = tmp_path / "plugin.py"
    f.write_text(
        "from mechanisms.exponential import ExponentialMechanism\n"
        "from dpverify.byo import register\n"
        "register('cli-byo-em', ExponentialMechanism, params={'eps': 1}, claim=(1, 0), replace=True)\n"
    )
    try:
        code, out, _ = run(capsys, "--load", str(f), "--spec", "cli-byo-em", "--samples", "3000")
        assert code == 0 and "against cli-byo-em" in out
        assert "BYO.cli-byo-em" in all_claims()
        assert main(["check", "BYO.cli-byo-em", "--quick"]) == 0  # the lead's `check` sees the claim too
    finally:
        unregister("cli-byo-em")
    assert "BYO.cli-byo-em" not in all_claims()


def test_an_audit_reports_its_draws_to_a_progress_callback_and_draws_the_same():
    """`audit --samples` shows progress on a terminal: the target tells a progress callback the running total of
    outputs drawn after each batch; the outputs are the same with and without it (same seed)."""
    from dpverify import audit

    seen = []
    a = audit(spec="em", params={"eps": 1}, inputs=[(2, 1), (1, 1)], samples=3000, seed=7, fit=False,
              progress=lambda n, total, label: seen.append((n, label)))
    b = audit(spec="em", params={"eps": 1}, inputs=[(2, 1), (1, 1)], samples=3000, seed=7, fit=False)
    assert seen and seen[-1][1] == "outputs drawn" and all(x[0] < y[0] for x, y in zip(seen, seen[1:], strict=False))
    drop_time = lambda r: [ln for ln in r.summary().splitlines() if not ln.strip().startswith("samples:")]  # noqa: E731
    assert seen[-1][0] >= 2 * 3000 and a.verdict == b.verdict and drop_time(a) == drop_time(b)
