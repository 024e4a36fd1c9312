"""The command line: exit statuses, one-line errors naming the parameter, JSON shape."""

import json

import pytest

from dpverify.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["profile", "em", "--h", "3,-1", "--param", "eps=1"], "--h"),
        (["profile", "em", "--h", "3,x,1", "--param", "eps=1"], "--h='3,x,1'"),
        (["profile", "em", "--h", "3,1", "--param", "eps=-1"], "eps=-1 must be > 0"),
        (["profile", "em", "--h", "3,1", "--param", "eps=0"], "eps=0 must be > 0"),
        (["profile", "gumbel-topk", "--h", "3,1", "--param", "k=3", "--param", "eps=1"], "k=3 must be <= d=2"),
        (["profile", "em", "--h", "3,1", "--param", "eps=1", "--delta", "1.5"], "--delta='1.5' must be in [0, 1)"),
        (["profile", "em", "--h", "3,1", "--param", "eps"], "must look like name=value"),
        (["profile", "nosuch", "--h", "3,1"], "mechanism='nosuch' is not registered"),
        (["check", "DR19.Nope"], "claim='DR19.Nope' is not registered"),
        (["check", "DR19.Lem4.3", "--relation", "l2"], "relation='l2'"),
        (["check", "DR19.Lem4.3", "--d", "0"], "--d=0 must be >= 1"),
        (["check", "DR19.Lem4.3", "--d", "12", "--max-count", "9", "--budget", "5"], "budget"),
    ],
)
def test_user_errors_exit_2_with_one_line(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert needle in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_check_json_and_exit_status(capsys):
    code, out, _ = run(capsys, "check", "DR19.Lem4.1", "--quick", "--json")
    assert code == 0
    j = json.loads(out)
    assert j["verdict"] == "holds" and j["pairs_checked"] > 0
    code, out, _ = run(capsys, "check", "DR19.Lem4.3", "--d", "3", "--max-count", "2", "--relation", "linf")
    assert code == 1 and "violated" in out and "tightest instance" in out


def test_profile_reports_a_broken_em(capsys):
    code, out, _ = run(capsys, "profile", "em", "--h", "1,0", "--param", "eps=1", "--param", "sensitivity=0.5", "--eps", "1",
                       "--delta", "0")
    assert code == 1 and "VIOLATION" in out


def test_profile_table_rounds_numbers_and_never_cuts_them(capsys):
    """delta(0) here is 3 Pr[i wins on h'] ~ 7.33e-21; a table that cut the string at 34 characters printed 7.33...e-2."""
    code, out, _ = run(capsys, "profile", "laplace-rnm", "--h", "1,1,1,3", "--param", "eps=100", "--eps", "0", "--eps", "2",
                       "--delta", "1e-20")
    rows = [ln.split() for ln in out.splitlines() if ln.startswith("  0 ") or ln.startswith("  2 ")]
    assert [r[1] for r in rows] == ["7.33226309390033e-21"] * 2
    assert code == 0 and "VIOLATION" not in out  # 7.33e-21 <= 1e-20, compared on the exact values
    code, out, _ = run(capsys, "profile", "laplace-rnm", "--h", "1,1,1,3", "--param", "eps=100", "--eps", "2", "--delta", "7e-21")
    assert code == 1 and "VIOLATION" in out


def test_equal_shows_lemma_4_2(capsys):
    code, out, _ = run(capsys, "equal", "gumbel-topk", "peeling-em", "--d", "3", "--max-count", "2", "--param", "k=2", "--param",
                       "eps=1")
    assert code == 0 and "identical to 60 digits: true" in out


def test_internal_errors_exit_70(capsys, monkeypatch):
    import dpverify.cli.claims as claims_command

    def boom(args):
        raise ZeroDivisionError("bug")

    monkeypatch.setattr(claims_command, "run", boom)
    code, _, err = run(capsys, "claims")
    assert code == 70 and "internal error" in err and "Traceback" in err


def test_profile_divergences_of_the_opendp_pair(capsys):
    """``profile --zcdp --range --renyi --pld``: the numbers of the pair in OpenDP's GitHub issue opendp/opendp#2911
    (PF at scale 1, eps = 2)."""
    code, out, _ = run(capsys, "profile", "permute-and-flip", "--param", "eps=2", "--param", "factor2=true", "--h", "1,1",
                       "--h2", "2,0",
                       "--zcdp", "--range", "--renyi", "1,2", "--renyi", "inf", "--pld", "--json")
    import json

    j = json.loads(out)
    assert code == 0
    assert j["zcdp"]["rho"].startswith("0.72753033") and j["zcdp"]["direction"] == "h->h'"
    assert float(j["zcdp"]["rho_upper_certified"]) >= float(j["zcdp"]["rho"])
    assert j["br_range"]["eta"].startswith("2.62308126")
    assert [r["alpha"] for r in j["renyi"]] == ["1", "2", "inf"] and j["renyi"][1]["D_alpha"].startswith("1.37691873")
    assert [a["loss"][:6] for a in j["pld"]["atoms"]] == ["-0.623", "2.0"]
    code, out, _ = run(capsys, "profile", "em", "--param", "eps=1", "--h", "1,0,2", "--zcdp", "--range")
    assert code == 0 and "smallest zCDP rho" in out and "bounded range" in out


@pytest.mark.parametrize("argv,needle", [
    (["profile", "em", "--param", "eps=1", "--h", "1,0", "--renyi", "0"], "alpha=0 must be > 0"),
    (["profile", "em", "--param", "eps=1", "--h", "1,0", "--pld"], "--pld needs --h2"),
])
def test_profile_divergence_errors(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2 and needle in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [["check", "DR19.Lem4.3", "--certify"], ["verify", "--certify", "--no-write"]])
def test_certify_flag_is_gone_certification_is_the_default(capsys, argv):
    """``--certify`` did nothing (every check is certified unless ``--no-certify``): it is now the usual usage error."""
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2 and "unrecognized arguments: --certify" in capsys.readouterr().err
