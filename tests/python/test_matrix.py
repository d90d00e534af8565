"""Issue 16: the cross-scheme matrix (airtcp reproduce matrix): every
scheme on every environment of the five documents, with applicability and
its reason, goodput normalised to CUBIC+SACK with paired 95% CIs, the
outputs, determinism, common random numbers and Dask."""

import dataclasses
import math

import pandas as pd
import pytest

import airtcp
from airtcp.experiments import dclor, kick, matrix, threshold
from airtcp.experiments.run import reproduce
from airtcp.experiments.runner import load_scenario, plan
from conftest import run_cli

# The issue's list of schemes and environments (issue 16, "What to build").
ISSUE_SCHEMES = {
    "Reno", "NewReno", "SACK", "CUBIC+SACK", "CUBIC+RACK-TLP", "Westwood+", "Eifel", "F-RTO", "DCLOR", "Kick",
    "WMECN", "WMECN+LRT", "RTT threshold", "Snoop", "G-Snoop", "Link-layer ARQ",
}
ENVS = ["kick", "wmecn", "dclor", "threshold", "gsnoop"]

# What each mechanism needs, from its document (not from results): the
# cells where it cannot work. Everything else runs.
NOT_APPLICABLE = {
    ("kick", "wmecn"), ("kick", "wmecn_lrt"), ("kick", "snoop"), ("kick", "gsnoop"),
    ("wmecn", "kick"), ("wmecn", "gsnoop"),
    ("dclor", "kick"), ("dclor", "wmecn"), ("dclor", "wmecn_lrt"), ("dclor", "gsnoop"),
    ("threshold", "kick"), ("threshold", "wmecn"), ("threshold", "wmecn_lrt"), ("threshold", "gsnoop"),
    ("gsnoop", "kick"), ("gsnoop", "wmecn"), ("gsnoop", "wmecn_lrt"),
}


def test_the_matrix_has_every_scheme_of_the_issue_on_every_environment():
    assert {s.label for s in matrix.SCHEMES} == ISSUE_SCHEMES
    assert [e.name for e in matrix.ENVIRONMENTS] == ENVS
    exp = matrix.make_experiment()
    assert [c["env"] for c in exp.cells] == ENVS
    # A row whose option this airtcp lacks is left out; every other is there.
    listed = {s.name for s in exp.schemes}
    assert listed == {s.name for s in matrix.SCHEMES if matrix.scheme_available(s)}
    assert {"reno", "newreno", "sack", "kick", "wmecn", "snoop", "gsnoop", "arq", "dclor"} <= listed


def test_cubic_rows_are_listed_once_cubic_exists_and_then_they_are_the_baseline():
    cubic = matrix.option_available('{"cc": {"kind": "cubic"}, "variant": "sack"}')
    names = {s.name for s in matrix.make_experiment().schemes}
    assert ("cubic_sack" in names) == cubic
    assert matrix.baseline() == ("cubic_sack" if cubic else "sack")
    if not cubic:
        assert "TEMPORARY" in matrix.baseline_label()
    rack = matrix.option_available(
        '{"cc": {"kind": "cubic"}, "loss_detection": "rack_tlp", "variant": "sack"}'
    )
    assert ("cubic_rack" in names) == rack


def test_applicability_follows_what_each_mechanism_needs_and_says_why():
    exp = matrix.make_experiment()
    for env in ENVS:
        for s in matrix.SCHEMES:
            reason = matrix.not_applicable({"env": env}, s.name, exp.params)
            if (env, s.name) in NOT_APPLICABLE:
                assert reason and len(reason) > 40, (env, s.name)
            else:
                assert reason is None, (env, s.name, reason)
    r = lambda env, s: matrix.not_applicable({"env": env}, s, exp.params)  # noqa: E731
    assert "fading wireless uplink" in r("threshold", "kick") and "kick-aware" in r("threshold", "kick")
    assert "multi-level ECN" in r("gsnoop", "wmecn")
    assert "ends at the TCP receiver" in r("wmecn", "gsnoop")
    assert "sender itself" in r("kick", "snoop")
    # A not-applicable pair is never run, and asking for its scenario says why.
    jobs = {(exp.cells[j.cell_index]["env"], j.scheme) for j in plan(exp, 1).jobs}
    assert not jobs & NOT_APPLICABLE
    with pytest.raises(ValueError, match="kick does not apply to gsnoop: Kick needs"):
        matrix.scenario({"env": "gsnoop"}, "kick", exp.params)


def test_environments_are_built_by_their_reproductions():
    exp = matrix.make_experiment()
    p = exp.params
    # The document's plain TCP is its reproduction's scenario unchanged ...
    kc = {"fading": p["kick_fading"], "size_kb": p["kick_size_kb"]}
    assert matrix.scenario({"env": "kick"}, "kick", p) == kick.scenario(kc, "kick", kick.EXPERIMENT.params)
    assert matrix.scenario({"env": "dclor"}, "eifel", p) == dclor.scenario(
        dclor.CELL, "eifel", {**dclor.EXPERIMENT.params, "scale": p["dclor_scale"]}
    )
    # ... and another scheme changes only the fields that make it.
    tc = {"case": "long", "flows": 1, "ber": p["threshold_ber"]}
    base = threshold.scenario(tc, "off", threshold.EXPERIMENT.params)
    sc = matrix.scenario({"env": "threshold"}, "sack", p)
    tcp, tcp0 = sc["flow"][0]["tcp"], base["flow"][0]["tcp"]
    assert tcp["variant"] == "sack" and tcp0["variant"] == "reno"
    assert "reno_one_fast_retransmit_per_window" not in tcp  # an ns-2 Reno rule
    same = {k: v for k, v in tcp0.items() if k not in ("variant", "reno_one_fast_retransmit_per_window")}
    assert {k: tcp[k] for k in same} == same
    assert sc["link"] == base["link"]
    # The slow start is the sender's algorithm, so the scheme's: HyStart++ set by an
    # environment does not reach a scheme that does not ask for it.
    env_tcp = {**tcp0, "slow_start": "hystart++"}
    matrix._set_scheme_tcp(env_tcp, matrix.SCHEME_BY_NAME["cubic_sack"].tcp)
    assert "slow_start" not in env_tcp and env_tcp["cc"] == {"kind": "cubic"}
    # Link-layer ARQ: arq before each wireless hop, dda after it.
    arq = matrix.scenario({"env": "wmecn"}, "arq", p)
    agents = {n["name"]: [a["kind"] for a in n["agents"]] for n in arq["node"]}
    assert agents["R2"] == ["arq"] * p["wmecn_n"] and agents["D1"] == ["dda"]


# Each environment's description against a change of the figures it names
# (the reproduction's parameter, the value, the text before and after).
DESCRIBED_FIGURES = {
    "kick": [("rate_bps", 128000, "64 kb/s", "128 kb/s"), ("delay_ms", 20, "10 ms link", "20 ms link")],
    "wmecn": [("bottleneck_rate_mbps", 2, "1 Mb/s", "2 Mb/s"), ("bottleneck_ms", 40, "30 ms RED", "40 ms RED"),
              ("duration_s", 50, "; 100 s", "; 50 s")],
    "dclor": [("rate_bps", 100000, "50 kb/s", "100 kb/s"), ("delay_ms", 300, "200 ms link", "300 ms link"),
              ("p1", 0.1, "5% of seconds", "10% of seconds"), ("d2_s", 9.0, "stall 8 s", "stall 9 s")],
    "threshold": [("sat_rate_bps", 1000000, "2 Mb/s", "1 Mb/s"), ("sat_delay_ms", 300.0, "250 ms", "300 ms"),
                  ("duration_s", 50, "; 100 s", "; 50 s"), ("ber_unit", "byte", "a bit error rate", "a per-byte error rate")],
    "gsnoop": [("bottleneck_rate_mbps", 2, "5 Mb/s bottleneck", "2 Mb/s bottleneck"),
               ("wireless_rate_mbps", 2, "10 Mb/s wireless", "2 Mb/s wireless"), ("duration_s", 30, "; 60 s", "; 30 s")],
}


@pytest.mark.parametrize("env", ENVS)
def test_environment_descriptions_name_the_reproductions_figures(env):
    """The report's environment lines are built from the reproduction's
    parameters, not from a copy of today's defaults, so a changed default
    cannot leave the matrix describing a path it no longer runs."""
    e = matrix.ENV_BY_NAME[env]
    p = matrix.PARAMS
    ep = e.params(p)
    default = e.describe(p, ep)
    for name, value, before, after in DESCRIBED_FIGURES[env]:
        assert name in ep, name
        assert before in default, (name, default)
        changed = e.describe(p, {**ep, name: value})
        assert after in changed and before not in changed, (name, changed)


# The matrix's SACK recovery parameters and the scenario option each
# promises (docs/scenario.md): RFC 6675 §6's timer restart, RFC 9937's PRR.
SACK_RECOVERY_PARAMS = {
    "sack_restart_rto_in_recovery": "restart_rto_on_recovery_retransmission",
    "sack_proportional_rate_reduction": "proportional_rate_reduction",
}


@pytest.mark.parametrize(
    "params",
    [["sack_restart_rto_in_recovery"], ["sack_proportional_rate_reduction"],
     ["sack_restart_rto_in_recovery", "sack_proportional_rate_reduction"]],
    ids=["rfc6675_s6", "prr", "both"],
)
def test_sack_recovery_parameters_set_their_option_on_every_sack_connection_and_only_there(params):
    """`--set sack_restart_rto_in_recovery=true` turns on RFC 6675 §6's MAY
    (restart the timer at each retransmission in SACK recovery) and `--set
    sack_proportional_rate_reduction=true` RFC 9937's PRR, alone or
    together, on every connection that recovers with SACK, in generic and
    own-scenario cells alike, the CUBIC+SACK baseline included, and on no
    other (the core refuses the first without SACK; PRR it would accept for
    Reno and NewReno too, but these are SACK parameters); off, every
    scenario is the one the matrix always ran."""
    exp = matrix.make_experiment()
    on = exp.with_params(**{name: True for name in params}).params
    options = {SACK_RECOVERY_PARAMS[name] for name in params}
    seen = set()
    for env in ENVS:
        for scheme in [s.name for s in matrix.schemes()]:
            if (env, scheme) in NOT_APPLICABLE:
                continue
            off_sc = matrix.scenario({"env": env}, scheme, exp.params)
            on_sc = matrix.scenario({"env": env}, scheme, on)
            for f_off, f_on in zip(off_sc["flow"], on_sc["flow"], strict=True):
                tcp_off, tcp_on = f_off.get("tcp"), f_on.get("tcp")
                if tcp_off is None:
                    assert tcp_on is None
                    continue
                assert not set(SACK_RECOVERY_PARAMS.values()) & set(tcp_off)
                sack = tcp_off.get("variant") == "sack" or tcp_off.get("sack") is True
                for option in SACK_RECOVERY_PARAMS.values():
                    assert tcp_on.get(option, False) is (sack and option in options), (env, scheme, option)
                assert {k: v for k, v in tcp_on.items() if k not in options} == tcp_off
                seen.add((scheme, sack))
            # The core accepts it (a scenario it refuses would raise).
            airtcp.load(on_sc)
    assert {sack for _, sack in seen} == {True, False}
    assert (matrix.baseline(), True) in seen


def test_same_seed_same_channel_draws_for_every_scheme():
    # Common random numbers: in WMECN's environment the on/off UDP source
    # draws from its own stream, so run i sends the same datagrams whatever
    # the TCP scheme; another seed sends others.
    exp = matrix.make_experiment()
    cell = {"env": "wmecn"}

    def udp_sent(scheme, seed):
        f = airtcp.run(load_scenario(exp, cell, scheme), seed=seed).flows
        return int(f[f.name == "udp1"].segments_sent.iloc[0])

    schemes = [s.name for s in exp.schemes if exp.applicable(cell, s.name)]
    assert len({udp_sent(s, 1) for s in schemes}) == 1
    assert udp_sent("reno", 2) != udp_sent("reno", 1)
    seeds = {}
    for j in plan(exp, 3).jobs:
        seeds.setdefault((j.cell_index, j.run), set()).add(j.seed)
    assert all(len(s) == 1 for s in seeds.values())


def _tiny(out, **kw):
    # The two cheapest environments, 3 runs: a second or two of simulation.
    exp = matrix.make_experiment().with_cells([{"env": "kick"}, {"env": "threshold"}])
    return reproduce(exp, runs=3, out=out, progress=False, **kw)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("matrix") / "a"
    return _tiny(out, workers=2), out


def test_tiny_run_writes_the_matrix_normalised_to_the_baseline(tiny):
    rep, out = tiny
    df = pd.read_parquet(out / "matrix.parquet")
    csv = pd.read_csv(out / "matrix.csv").fillna({"reason": ""})
    pd.testing.assert_frame_equal(csv, df, check_dtype=False, rtol=1e-12)
    exp = rep.experiment
    assert len(df) == 2 * len(exp.schemes)
    base = df[df.scheme == matrix.baseline()]
    # The baseline row is itself: exactly 1.
    assert (base.goodput_norm == 1.0).all() and (base.verdict == "baseline").all()
    # Not-applicable cells carry their reason and have no runs.
    na = df[~df.applicable]
    assert set(zip(na.environment, na.scheme)) == {
        (e, s) for e, s in NOT_APPLICABLE if e in ("kick", "threshold") and s in set(df.scheme)
    }
    assert (na.reason.str.len() > 40).all() and (na.verdict == "not applicable").all() and na.goodput_norm.isna().all()
    ran = set(zip(rep.runs.env, rep.runs.scheme))
    assert not ran & set(zip(na.environment, na.scheme))
    ok = df[df.applicable]
    assert (ok.runs == 3).all() and ok.goodput_norm.notna().all()
    assert set(ok.verdict) <= {"better", "worse", "undecided", "baseline"}
    # A verdict follows its interval.
    for _, r in ok[ok.verdict == "better"].iterrows():
        assert r.norm_ci_low > 1
    for _, r in ok[ok.verdict == "worse"].iterrows():
        assert r.norm_ci_high < 1
    # The document's metric, judged by its paired difference from the
    # baseline, in its own direction (a response time is better lower).
    assert (base.metric_diff == 0).all() and (base.metric_verdict == "baseline").all()
    for _, r in ok[ok.metric_verdict.isin(["better", "worse"])].iterrows():
        lower = r.metric == "response_s"
        below = r.metric_diff_ci_high < 0
        assert below or r.metric_diff_ci_low > 0
        assert (r.metric_verdict == "better") == (below == lower)
    # The document's metric is kept: Kick's response time, the threshold paper's goodput.
    assert set(df.metric) == {"response_s", "goodput_kbps"}
    assert (out / "matrix_heatmap.png").stat().st_size > 5000
    report = (out / "report.md").read_text()
    assert "## Findings per environment" in report and "Not applicable, and why" in report
    assert "Kick needs a fading wireless uplink" in report
    assert "| Kick |" in (out / "matrix.md").read_text()
    assert "goodput /" in rep.tables_text() and "n/a" in rep.tables_text()


def test_same_seed_same_table(tiny, tmp_path):
    a, out = tiny
    b = _tiny(tmp_path / "b", workers=1)
    fa = pd.read_csv(out / "matrix.csv")
    fb = pd.read_csv(tmp_path / "b" / "matrix.csv")
    pd.testing.assert_frame_equal(fa, fb)
    assert a.runs.drop(columns="wall_s").equals(b.runs.drop(columns="wall_s"))


def test_cli_matrix_on_a_local_dask_cluster(tmp_path):
    r = run_cli(
        "reproduce", "matrix", "--runs", "1", "--out", tmp_path, "--dask", "local", "--workers", "2",
        "--set", "dclor_scale=0.01", timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert "goodput / " in r.stdout and "matrix_heatmap.png" in r.stdout
    df = pd.read_csv(tmp_path / "matrix.csv")
    exp = matrix.make_experiment()
    assert len(df) == len(ENVS) * len(exp.schemes)
    assert df[df.applicable].runs.eq(1).all()
    assert "on a Dask LocalCluster of 2 workers" in (tmp_path / "report.md").read_text()
    assert not math.isnan(df[df.scheme == matrix.baseline()].goodput_norm.iloc[0])


def test_a_verdict_needs_the_deciding_end_beyond_its_monte_carlo_margin():
    """matrix.py: a scheme beats the baseline when the whole 95% CI of its
    goodput ratio is above 1, and an end within the Monte Carlo margin of
    its bootstrap (stats.Interval.low_mc) from 1 does not decide: another
    seed of the resampling generator could put it on the other side (the
    F-RTO cell of the WMECN LAN, 0.996 [0.993, 1.000], high end 0.99982 at
    4,000 resamples).
    Catches: the verdict read from the ends alone (low > 1, high < 1)."""
    from airtcp.experiments import stats

    iv = stats.Interval(0.996, 0.9928, 0.99985, 50, "paired bootstrap (BCa)", low_mc=0.0004, high_mc=0.0003)
    assert matrix.verdict(iv) == matrix.VERDICT_UNDECIDED
    assert matrix.verdict(dataclasses.replace(iv, high_mc=0.0001)) == matrix.VERDICT_WORSE
    up = stats.Interval(1.05, 1.0002, 1.1, 50, "paired bootstrap (BCa)", low_mc=0.0003, high_mc=0.0)
    assert matrix.verdict(up) == matrix.VERDICT_UNDECIDED
    assert matrix.verdict(dataclasses.replace(up, low_mc=0.0001)) == matrix.VERDICT_BETTER
