"""Issue 11 for the WMECN and G-Snoop reproductions: the scenarios carry the
ns-2 settings the reports say they use (W4, W1's reproduction default), the
WMECN metrics report the UDP background and each flow (W5), and the claims
are judged by paired comparisons with 95% intervals: a comparison whose
interval straddles its line is undecided."""

import numpy as np

import airtcp
from airtcp.experiments import gsnoop, wmecn
from airtcp.experiments.base import Numbers, cell_key, mean, std


def test_wmecn_scenarios_carry_ns2_of_2002():
    # ns-default.tcl of 2002: syn_ true (2001/5/17), windowInit_ 2 (2001/5/26), minrto_ 1 (2001/05/14),
    # tcpTick_ 0.01 (2002/03/07), rfc2988_ true (no backoff cap), rtxcur_init_ 6;
    # RenoTcpAgent::dupack_action restarts the timer; TcpAgent::output sends
    # retransmissions ECT when ecn_ is on.
    exp = wmecn.EXPERIMENT
    cell = {"n": 2, "per": 0.01}
    for scheme in [s.name for s in exp.schemes]:
        text = airtcp.load(wmecn.scenario(cell, scheme, exp.params)).text
        assert "initial_cwnd = 2" in text and "handshake = true" in text, scheme
        assert 'min_rto = "1000000us"' in text and 'initial_rto = "6000000us"' in text, scheme
        assert 'rtt_tick = "10000us"' in text and 'clock_granularity = "10000us"' in text, scheme
        assert "max_backoff" not in text, scheme
        assert "restart_rto_on_fast_retransmit = true" in text, scheme
        ect = "ecn_capable_retransmissions = true" in text
        assert ect == (scheme in ("ecn", "wmecn", "wmecn_lrt")), scheme
    rfc = {**exp.params, "ecn_capable_retransmissions": False, "initial_window_pkts": 1, "handshake": False}
    text = airtcp.load(wmecn.scenario(cell, "wmecn", rfc)).text
    assert "ecn_capable_retransmissions = false" in text and "initial_cwnd = 1" in text
    assert "handshake = false" in text
    assert exp.version >= 5


def test_gsnoop_starts_with_ns2_2_1b7a_initial_window_of_one():
    exp = gsnoop.EXPERIMENT
    for scheme in [s.name for s in exp.schemes]:
        text = airtcp.load(gsnoop.scenario(gsnoop.CELLS[0], scheme, exp.params)).text
        assert "initial_cwnd = 1" in text, scheme
        assert "reno_one_fast_retransmit_per_window = true" in text, scheme  # Agent/TCP bugFix_ true
        assert 'rtt_tick_phase = "random"' in text, scheme  # TcpAgent::reset: boot_time_ uniform in [0, tcpTick_)
    off = {**exp.params, "reno_one_fast_retransmit_per_window": False}
    text = airtcp.load(gsnoop.scenario(gsnoop.CELLS[0], "gsnoop25", off)).text
    assert "reno_one_fast_retransmit_per_window = false" in text
    assert exp.version >= 5


def test_wmecn_metrics_report_udp_and_every_flow():
    exp = wmecn.EXPERIMENT
    p = dict(exp.params, duration_s=10)
    cell = {"n": 2, "per": 0.02}
    m = exp.metrics(airtcp.run(exp.scenario(cell, "wmecn", p), seed=1), cell, "wmecn", p)
    assert m["goodput_ftp1_pps"] > 0 and m["goodput_ftp2_pps"] > 0
    assert abs(m["goodput_ftp1_pps"] + m["goodput_ftp2_pps"] - m["goodput_pps"]) < 1e-9
    assert m["flow_goodput_min_pps"] <= m["flow_goodput_max_pps"]
    assert 0.5 <= m["fairness"] <= 1.0
    # 500 kb/s half of the time: about 30 datagrams of 1040 B per second offered.
    assert 10 < m["udp_offered_pps"] < 60
    assert 0 < m["udp_pps"] <= m["udp_offered_pps"]
    assert m["total_pps"] == m["goodput_pps"] + m["udp_pps"]
    assert m["wl_halvings_blocked"] <= m["cuts_blocked"]


# Per-run deviations of mean 0 and standard deviation about 1: a scheme's own
# noise that does not cancel in the paired difference.
ALTERNATING = np.array([1.0, -1.0] * 5)


def key(cell: dict, scheme: str, metric: str) -> tuple:
    return cell_key(cell), scheme, metric


def numbers(runs: dict) -> Numbers:
    """A Numbers view of per-run values {key(cell, scheme, metric): array}."""
    per_run = {k: np.asarray(x, dtype=float) for k, x in runs.items()}
    values = {(k[0], k[1], k[2], "avg"): mean(x) for k, x in per_run.items()}
    return Numbers(values, per_run, {"avg": mean, "sd": std})


def wmecn_counts(metric: str, per_run_in_one_cell: list[float], scheme: str = "wmecn") -> Numbers:
    """Every WMECN cell with zero counts except (n 2, PER 0.1)."""
    runs = {}
    for ns in wmecn.SOURCES:
        for per in wmecn.PERS:
            x = per_run_in_one_cell if (ns, per) == (2, 0.1) else [0.0] * len(per_run_in_one_cell)
            for m in ("loss_cw", "loss_cc"):
                runs[key({"n": ns, "per": per}, scheme, m)] = x if m == metric else [5.0] * len(x)
    return numbers(runs)


def test_never_agrees_only_when_no_run_has_one_and_disagrees_when_the_interval_excludes_zero():
    assert wmecn._claim_no_type1(wmecn_counts("loss_cw", [0.0] * 10), {}).agree is True
    # One stray event in ten runs: mean 0.1, t interval [-0.13, 0.33] straddles 0.
    assert wmecn._claim_no_type1(wmecn_counts("loss_cw", [1.0] + [0.0] * 9), {}).agree is None
    # Every run has some: the interval is above 0.
    assert wmecn._claim_no_type1(wmecn_counts("loss_cw", [2.0, 3.0, 1.0, 2.0, 4.0]), {}).agree is False


def test_wmecn_claim_1_needs_every_rival_and_every_point():
    rng = np.random.default_rng(3)
    noise = {c: rng.normal(0, 5, 10) for c in range(len(wmecn.PERS))}

    def build(lead: float, spread: float) -> Numbers:
        runs = {}
        for ns in wmecn.SOURCES:
            for k, per in enumerate(wmecn.PERS):
                c = {"n": ns, "per": per}
                shared = 80 + noise[k]  # the same channel in every scheme (common random numbers)
                for s in ("base", "ecn", "westwood"):
                    runs[key(c, s, "goodput_pps")] = shared
                    runs[key(c, s, "udp_pps")] = np.full(10, 25.0)
                runs[key(c, "wmecn", "goodput_pps")] = shared + lead + spread * ALTERNATING
                runs[key(c, "wmecn", "udp_pps")] = np.full(10, 20.0)
        return numbers(runs)

    assert wmecn._claim_beats_e2e(build(3.0, 0.5), {}).agree is True
    assert wmecn._claim_beats_e2e(build(-3.0, 0.5), {}).agree is False
    # A lead of 0.1 pkt/s under a per-run spread of 5: every point straddles.
    r = wmecn._claim_beats_e2e(build(0.1, 5.0), {})
    assert r.agree is None
    assert "UDP -5.0" in r.detail


def test_gsnoop_gain_is_judged_on_the_paired_contrast_against_1_10_reno():
    rng = np.random.default_rng(5)

    def build(factor: float, spread: float) -> Numbers:
        runs = {}
        for group in gsnoop.GROUPS:
            for x in gsnoop.LOSSES:
                c = gsnoop._cell(group, x)
                reno = 2.0 + rng.normal(0, 0.5, 10)
                runs[key(c, "reno", "goodput_mbps")] = reno
                for s in gsnoop.GS:
                    runs[key(c, s, "goodput_mbps")] = factor * reno + spread * ALTERNATING
        return numbers(runs)

    assert gsnoop._claim_gain(build(1.5, 0.01), {}).agree is True
    assert gsnoop._claim_gain(build(1.0, 0.01), {}).agree is False
    # Ratio of the means near 1.10 with noisy pairs: undecided.
    assert gsnoop._claim_gain(build(1.10, 0.3), {}).agree is None
