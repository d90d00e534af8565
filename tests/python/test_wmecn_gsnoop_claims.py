"""Issue 11 for the WMECN and G-Snoop reproductions: the scenarios carry the
ns-2 settings the reports say they use (W4, W1's reproduction default), the
WMECN metrics report the UDP background and each flow (W5), and the claims
are judged by paired comparisons with 95% intervals: a comparison whose
interval straddles its line is undecided."""

import numpy as np
import pytest

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


def test_wmecn_mark_min_cwnd_reaches_the_marking_sources_only():
    # --set mark_min_cwnd=1 (ns-2's slowdown floor, a sensitivity run on the page) is written for the sources a mark
    # reduces (ECN, WMECN, WMECN+LRT) and nowhere else; the default writes nothing, so the default scenarios (and the
    # cache keys made from them) are those of before the parameter.
    exp = wmecn.EXPERIMENT
    cell = {"n": 2, "per": 0.01}
    floor1 = {**exp.params, "mark_min_cwnd": 1}
    for scheme in [s.name for s in exp.schemes]:
        assert "mark_min_cwnd" not in airtcp.load(wmecn.scenario(cell, scheme, exp.params)).text, scheme
        text = airtcp.load(wmecn.scenario(cell, scheme, floor1)).text
        assert ("mark_min_cwnd = 1" in text) == (scheme in ("ecn", "wmecn", "wmecn_lrt")), scheme
    with pytest.raises(airtcp.ScenarioError, match=r"tcp\.mark_min_cwnd: must be 1"):
        airtcp.load(wmecn.scenario(cell, "ecn", {**exp.params, "mark_min_cwnd": 3}))


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


def test_type2_errors_whose_cut_was_made_are_the_opportunities_of_claim_7():
    """§3.2: "'cwnd' is decreased only if it had not been decreased once
    before in the same RTT, else, the packets are just retransmitted and the
    window is not reduced". A type-2 error whose cut that rule skipped could
    not halve cwnd, so claim 7 counts its halvings among the type-2 errors
    whose cut was made (flow columns wireless_losses_cut and
    wireless_losses_cut_by_dupacks); a timeout is never skipped and always
    collapses cwnd. A run with type-2 errors of both kinds (n = 10, PER 2%,
    30 s: some skipped)."""
    exp = wmecn.EXPERIMENT
    p = dict(exp.params, duration_s=30)
    cell = {"n": 10, "per": 0.02}
    m = exp.metrics(airtcp.run(exp.scenario(cell, "wmecn", p), seed=1), cell, "wmecn", p)
    skipped = m["loss_wc"] - m["wl_cut"]
    assert m["wl_cut"] > 0 and skipped > 0, "the run must have type-2 errors cut and skipped"
    assert m["wl_halved"] <= m["wl_cut"] and m["wl_halved_dupack"] <= m["wl_cut_dupack"] <= m["wl_cut"]
    # Every timeout judged congestion halves: the cuts by timeout are the halvings by timeout.
    assert m["wl_cut"] - m["wl_cut_dupack"] == m["wl_halved_timeout"]
    # The skipped type-2 cuts are among all skipped cuts, and include the skipped halvings.
    assert m["wl_halvings_blocked"] <= skipped <= m["cuts_blocked"]


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


def wmecn_counts(
    events: str, events_in_one_cell: list[float], opportunities: str, opportunities_per_cell: list[float],
    scheme: str = "wmecn", other_opportunities: tuple[str, ...] = (),
) -> Numbers:
    """Per-run counts in every WMECN cell: ``opportunities`` in each cell as
    given, ``events`` only in (n 2, PER 0.1), ``other_opportunities`` 0."""
    runs = {}
    zeros = [0.0] * len(events_in_one_cell)
    for ns in wmecn.SOURCES:
        for per in wmecn.PERS:
            c = {"n": ns, "per": per}
            one = (ns, per) == (2, 0.1)
            runs[key(c, scheme, events)] = events_in_one_cell if one else zeros
            runs[key(c, scheme, opportunities)] = opportunities_per_cell
            for m in other_opportunities:
                runs[key(c, scheme, m)] = zeros
    return numbers(runs)


CELLS = len(wmecn.SOURCES) * len(wmecn.PERS)


def test_never_is_judged_on_events_among_opportunities_not_on_zero_runs():
    """§4: "type 1 error, never happens in our scheme" (docs/sweeps.md, "Claims
    that something never happens"): zero in every run is not enough; the
    congestion losses the filter judged are the opportunities, and "never"
    agrees only if 0 of them were called wireless and the one-sided 97.5%
    upper bound on the rate (the level of every other verdict) is below 1%
    (§4's "less than 1.0%" for the error that does occur). Before session 18,
    0 in every run agreed whatever the opportunities (10 here), and one event
    in ten runs was undecided."""
    none = [0.0] * 10
    # One congestion loss per run in one cell: 0 of 10, a rate up to 31%.
    few = [1.0] * 10
    runs = {}
    for ns in wmecn.SOURCES:
        for per in wmecn.PERS:
            c = {"n": ns, "per": per}
            runs[key(c, "wmecn", "loss_cw")] = none
            runs[key(c, "wmecn", "loss_cc")] = few if (ns, per) == (2, 0.1) else none
    r = wmecn._claim_no_type1(numbers(runs), {})
    assert r.agree is None
    assert "0 of 10 congestion losses judged in 180 runs (18 cells x 10); 97.5% upper bound on the rate: 0.309" in r.detail
    # 3 per run in each of 18 cells: 0 of 540, bound 0.0068 < 0.01.
    r = wmecn._claim_no_type1(wmecn_counts("loss_cw", none, "loss_cc", [3.0] * 10), {})
    assert r.agree is True and f"0 of {3 * 10 * CELLS} congestion losses judged" in r.detail
    # 2 per run in each cell: 0 of 360, bound 0.0102 (0.0083 at one-sided
    # 95%, which agreed): undecided.
    r = wmecn._claim_no_type1(wmecn_counts("loss_cw", none, "loss_cc", [2.0] * 10), {})
    assert r.agree is None and "0 of 360 congestion losses judged" in r.detail
    # 1 per run in each cell: 0 of 180, bound 0.020: still undecided.
    assert wmecn._claim_no_type1(wmecn_counts("loss_cw", none, "loss_cc", [1.0] * 10), {}).agree is None
    # One event among thousands: it happened.
    r = wmecn._claim_no_type1(wmecn_counts("loss_cw", [1.0] + [0.0] * 9, "loss_cc", [100.0] * 10), {})
    assert r.agree is False
    assert f"1 of {100 * 10 * CELLS + 1} congestion losses judged in 180 runs (18 cells x 10) (in 1 of the runs)" in r.detail


def halving_counts(events: str, opportunities: str, per_cell: float, halved: list[float]) -> Numbers:
    """Both halving schemes: ``per_cell`` opportunities per run in every
    cell; WMECN's ``halved`` events in one cell, WMECN+LRT's none."""
    runs = {}
    for s, _ in wmecn.HALVING_SCHEMES:
        x = halved if s == "wmecn" else [0.0] * len(halved)
        for m, v in wmecn_counts(events, x, opportunities, [per_cell] * len(halved), s)._runs.items():
            runs[m] = v
        for ns in wmecn.SOURCES:
            for per in wmecn.PERS:
                for m in ("wl_halved_timeout", "wl_halvings_blocked", "loss_wc", "wl_cut"):
                    runs.setdefault(key({"n": ns, "per": per}, s, m), [0.0] * len(halved))
    return numbers(runs)


def test_claims_7a_and_7b_count_halvings_among_the_cuts_made():
    none = [0.0] * 10
    # 7b: no halving among 1 cut per run per cell (180 cuts): undecided.
    r = wmecn._claim_never_halved_dupack(halving_counts("wl_halved_dupack", "wl_cut_dupack", 1.0, none), {})
    assert r.agree is None
    assert (
        f"WMECN: halved cwnd at 0 of {10 * CELLS} duplicate-ACK wireless losses called congestion whose cut was "
        "made in 180 runs (18 cells x 10); 97.5% upper bound on the rate: 0.0203"
    ) in r.detail
    assert "(halving cuts among them: 0 in 0 of 180 runs)" in r.detail
    # 2 per run per cell (360 for each scheme): bound 0.0102, undecided; 3
    # (540): both agree.
    assert wmecn._claim_never_halved_dupack(halving_counts("wl_halved_dupack", "wl_cut_dupack", 2.0, none), {}).agree is None
    assert wmecn._claim_never_halved_dupack(halving_counts("wl_halved_dupack", "wl_cut_dupack", 3.0, none), {}).agree
    # 7a: one halving in one run of WMECN: disagrees.
    r = wmecn._claim_never_halved(halving_counts("wl_halved", "wl_cut", 50.0, [1.0] + [0.0] * 9), {})
    assert r.agree is False and "WMECN: halved cwnd at 1 of" in r.detail


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


def test_claims_say_how_many_points_they_skipped_and_why():
    """A point without values (every run NaN) is left out of a claim's
    verdicts; the text says how many were and why, as an interval says
    which runs it dropped (before session 18 they went unsaid)."""
    rng = np.random.default_rng(7)
    runs = {}
    for ns in wmecn.SOURCES:
        for per in wmecn.PERS:
            c = {"n": ns, "per": per}
            for s in ("base", "ecn", "westwood", "wmecn", "wmecn_lrt", "snoop"):
                runs[key(c, s, "goodput_pps")] = 80 + rng.normal(0, 1, 10) + (5.0 if s == "wmecn_lrt" else 0.0)
                runs[key(c, s, "udp_pps")] = np.full(10, 25.0)
                runs[key(c, s, "total_pps")] = np.full(10, 105.0)
    lost = {"n": 5, "per": 0.02}
    runs[key(lost, "wmecn", "goodput_pps")] = np.full(10, np.nan)
    runs[key(lost, "wmecn_lrt", "goodput_pps")] = np.full(10, np.nan)
    n = numbers(runs)
    r = wmecn._claim_beats_e2e(n, {})
    assert "of 14 (n, PER) points (1 of 15 points skipped: no run with a value)" in r.detail
    assert "(1 of 15 points skipped: no run with a value)" in wmecn._claim_lrt_beats_snoop(n, {}).detail
    # gsnoop: a fairness point without values.
    g = {}
    for x in gsnoop.LOSSES:
        for s in [sc.name for sc in gsnoop.SCHEMES]:
            g[key(gsnoop._cell("fig4", x), s, "fairness")] = np.full(10, 0.95) + rng.normal(0, 0.01, 10)
    g[key(gsnoop._cell("fig4", gsnoop.LOSSES[0]), "reno", "fairness")] = np.full(10, np.nan)
    total = len(gsnoop.LOSSES) * len(gsnoop.SCHEMES)
    r = gsnoop._claim_fairness(numbers(g), {})
    assert f"of {total - 1} points (1 of {total} points skipped: no run with a value)" in r.detail


# --------------------------------------------------------------------------
# The claims as the document states them (claims audit of 2026-11-29).

LRT_OTHERS = ("base", "ecn", "westwood", "snoop", "wmecn")


def lrt_goodputs(behind: dict | None = None, spread: float = 0.5) -> Numbers:
    """Goodput, UDP and TCP + UDP per run in every WMECN cell: every other
    scheme on a common channel (80 pkt/s + the seed's noise), WMECN+LRT 5
    pkt/s ahead of all of them, except ``behind`` {(n, PER, scheme): lead of
    that scheme over WMECN+LRT} with a per-run ``spread`` that does not
    cancel in the pair."""
    rng = np.random.default_rng(11)
    behind = behind or {}
    runs = {}
    for ns in wmecn.SOURCES:
        for per in wmecn.PERS:
            c = {"n": ns, "per": per}
            shared = 80 + rng.normal(0, 5, 10)
            runs[key(c, "wmecn_lrt", "goodput_pps")] = shared + 5.0
            for s in LRT_OTHERS:
                lead = behind.get((ns, per, s))
                runs[key(c, s, "goodput_pps")] = shared if lead is None else shared + 5.0 + lead + spread * ALTERNATING
            for s in ("wmecn_lrt", *LRT_OTHERS):
                runs[key(c, s, "udp_pps")] = np.full(10, 30.0)
                runs[key(c, s, "total_pps")] = runs[key(c, s, "goodput_pps")] + 30.0
    return numbers(runs)


def test_wmecn_claim_4a_needs_every_other_scheme_at_every_point():
    """§5.2: "As we can clearly see here WMECN+LRT performs better than all
    other schemes". Every other scheme the evaluation runs (base TCP, ECN,
    Westwood, Snoop, WMECN) at every (n, PER > 0). Before the audit of
    2026-11-29 claim 4 printed this sentence but compared Snoop only, and
    agreed while ECN was ahead at 4 of 15 points."""
    assert wmecn.LRT_RIVALS == LRT_OTHERS
    r = wmecn._claim_lrt_beats_all(lrt_goodputs(), {})
    assert r.agree is True
    assert "at 15 yes, 0 undecided, 0 no of 15 (n, PER) points" in r.detail
    # ECN 2 pkt/s ahead at one point (clearly): the claim fails there, and Snoop-only would have agreed.
    ahead = lrt_goodputs({(5, 0.005, "ecn"): 2.0})
    r = wmecn._claim_lrt_beats_all(ahead, {})
    assert r.agree is False
    assert "at 14 yes, 0 undecided, 1 no of 15 (n, PER) points" in r.detail
    assert "ECN 14/0/1" in r.detail and "Snoop 15/0/0" in r.detail and "WMECN 15/0/0" in r.detail
    assert "n=5, PER 0.005: no, WMECN+LRT - ECN -2.0 [" in r.detail
    assert wmecn._claim_lrt_beats_snoop(ahead, {}).agree is True
    # The same for plain WMECN (a rival claim 1 does not cover) and for base TCP.
    assert wmecn._claim_lrt_beats_all(lrt_goodputs({(10, 0.1, "wmecn"): 2.0}), {}).agree is False
    assert wmecn._claim_lrt_beats_all(lrt_goodputs({(2, 0.02, "base"): 2.0}), {}).agree is False
    # Level with a rival within the noise at one point: undecided.
    r = wmecn._claim_lrt_beats_all(lrt_goodputs({(10, 0.01, "westwood"): 0.0}, spread=3.0), {})
    assert r.agree is None and "Westwood 14/1/0" in r.detail
    # PER 0 is not judged: a rival ahead there changes nothing.
    assert wmecn._claim_lrt_beats_all(lrt_goodputs({(5, 0.0, "ecn"): 2.0}), {}).agree is True


def test_wmecn_claim_4b_is_snoop_only_as_the_conclusion_says():
    """§6: "WMECN along with link layer retransmissions, performs
    significantly better than snoop": Snoop alone, every (n, PER > 0)."""
    assert wmecn._claim_lrt_beats_snoop(lrt_goodputs({(2, 0.1, "ecn"): 2.0}), {}).agree is True
    r = wmecn._claim_lrt_beats_snoop(lrt_goodputs({(2, 0.1, "snoop"): 2.0}), {})
    assert r.agree is False and "n=2, PER 0.1: no, -2.0 [" in r.detail
    ids = [c.id for c in wmecn.CLAIMS]
    assert "4" not in ids and ids.index("4a") + 1 == ids.index("4b")
    assert "§5.2" in wmecn.CLAIMS[ids.index("4a")].text and "§6" in wmecn.CLAIMS[ids.index("4b")].text


def type2_counts(rate_by_per: dict, jitter: float = 0.0) -> Numbers:
    """WMECN's wireless losses judged: 1000 per run in every cell, of which
    rate x 1000 called congestion, with per-run noise of sd ``jitter`` x 1000
    (its own in every PER, so it does not cancel in a step)."""
    rng = np.random.default_rng(17)
    runs = {}
    for ns in wmecn.SOURCES:
        for per in wmecn.PERS:
            c = {"n": ns, "per": per}
            rate = rate_by_per.get(per, 0.0)
            wc = 1000 * (rate + jitter * rng.normal(0, 1, 10))
            runs[key(c, "wmecn", "loss_wc")] = wc
            runs[key(c, "wmecn", "loss_ww")] = 1000 - wc
    return numbers(runs)


def test_wmecn_claim_6_falls_at_every_per_step_not_only_between_the_ends():
    """§4: "As the packet error rate on the wireless link increases, the
    probability of making a wrong decision decreases". Until the audit of
    2026-11-29 only rate(10%) - rate(0.5%) was tested, so a rise in the
    middle went unseen."""
    falling = {0.005: 0.009, 0.01: 0.008, 0.02: 0.006, 0.05: 0.004, 0.1: 0.002}
    r = wmecn._claim_type2(type2_counts(falling, jitter=0.0002), {})
    assert r.agree is True
    assert "falls at 4 yes, 0 undecided, 0 no of 4 PER steps" in r.detail
    assert "per seed, summed over the 3 cells n = 2, 5, 10" in r.detail
    # The ends fall, but the rate rises from 1% to 2%: disagrees.
    rising = {**falling, 0.02: 0.0095}
    r = wmecn._claim_type2(type2_counts(rising, jitter=0.0002), {})
    assert r.agree is False and "below 0.01 at 5 yes, 0 undecided, 0 no of 5 PERs" in r.detail
    assert "falls at 3 yes, 0 undecided, 1 no of 4 PER steps" in r.detail
    # A step within the noise: undecided.
    flat = {**falling, 0.02: 0.008}
    r = wmecn._claim_type2(type2_counts(flat, jitter=0.0002), {})
    assert r.agree is None and "falls at 3 yes, 1 undecided, 0 no of 4 PER steps" in r.detail
    # Falling at every step but above 1%: disagrees.
    assert wmecn._claim_type2(type2_counts({k: 10 * v for k, v in falling.items()}, jitter=0.0002), {}).agree is False


def test_wmecn_claim_5_share_is_per_seed_summed_over_the_cells():
    """The share's t interval is over the 10 seeds, each seed's counts summed
    over the 18 cells (run i of every cell uses seed i), and says so: the
    mean of per-run shares would differ. Seed i: in one cell 10 congestion
    losses, i of them called wireless; in the 17 others 1, called wireless."""
    runs = {}
    seeds = np.arange(1, 11, dtype=float)
    for ns in wmecn.SOURCES:
        for per in wmecn.PERS:
            c = {"n": ns, "per": per}
            one = (ns, per) == (2, 0.0)
            runs[key(c, "wmecn", "loss_cw")] = seeds if one else np.ones(10)
            runs[key(c, "wmecn", "loss_cc")] = 10 - seeds if one else np.zeros(10)
    r = wmecn._claim_no_type1(numbers(runs), {})
    per_seed = (seeds + 17) / 27
    expected = f"{per_seed.mean():.3f}"
    share = "share of congestion losses called wireless per seed (summed over the 18 cells), mean over the seeds"
    assert f"{share} {expected} [" in r.detail
    per_run = np.mean([(seeds / 10).mean()] + [1.0] * 17)
    assert f"{per_run:.3f}" != expected


def test_wmecn_claim_2_says_it_tests_slower_not_much_slower():
    """§5.2: "its rate of degradation is much slower": the document gives
    'much' no size, so the test is of 'slower' and the line says so."""
    runs = {}
    for ns in wmecn.SOURCES:
        for per in wmecn.PERS:
            c = {"n": ns, "per": per}
            for s in ("wmecn", *wmecn.E2E):
                base = 80.0 if per == 0 else (60.0 if s == "wmecn" else 40.0)
                runs[key(c, s, "goodput_pps")] = base + ALTERNATING
    r = wmecn._claim_degrades_slowest(numbers(runs), {})
    assert r.agree is True and r.detail.startswith("tests 'slower' only ('much' has no size in the document)")
    assert "'much' no size" in wmecn.CLAIMS[1].definition


def gsnoop_low_loss(factor: dict, icns: dict | None = None, off: dict | None = None) -> Numbers:
    """Fig. 4's cells: Reno about 4.5 Mb/s, G-Snoop 25 ``factor[P_s]`` x
    Reno's (tight), ``icns[P_s]`` ICNs per run (default 50), G-Snoop 25 with
    ICN off ``off[P_s]`` x Reno's (default 1.0; None at a P_s: not run)."""
    rng = np.random.default_rng(13)
    icns = icns or {}
    off = off if off is not None else {}
    runs = {}
    for x in gsnoop.LOSSES:
        c = gsnoop._cell("fig4", x)
        reno = 4.5 + rng.normal(0, 0.02, 10)
        runs[key(c, "reno", "goodput_mbps")] = reno
        runs[key(c, "gsnoop25", "goodput_mbps")] = factor.get(x, 1.0) * reno + 0.002 * ALTERNATING
        runs[key(c, "gsnoop25", "icns")] = icns.get(x, 50.0) + ALTERNATING
        if off.get(x, 1.0) is not None:
            runs[key(c, gsnoop.ICN_OFF.name, "goodput_mbps")] = off.get(x, 1.0) * reno - 0.001 * ALTERNATING
    return numbers(runs)


def test_gsnoop_claim_2_judges_every_point_below_1e_3_and_the_cause_by_the_icn_off_runs():
    """§5: "When the packet loss rate is less than 10^-3 ... the goodput is in
    fact a little bit less than the case without the scheme. This is caused
    by the incipient congestion notification (ICN) function". Every grid
    point below 1e-3 (3e-4 was left out before the audit of 2026-11-29);
    "caused by" read as: with the ICN off (paired runs), G-Snoop's goodput
    rises (G_off - G above 0) and is Reno's again (G_off - 0.99 R above 0)."""
    assert gsnoop.LOW == (3e-4, 1e-4, 1e-5)
    little = {3e-4: 0.95, 1e-4: 0.95, 1e-5: 0.95}
    r = gsnoop._claim_low_loss_penalty(gsnoop_low_loss(little), {})
    assert r.agree is True
    assert r.detail.startswith("G-Snoop 25 (G), and with ICN off (G_off), against Reno (R): 0.0003: ratio 0.950")
    assert "; ICN off: ratio 1.000, G_off - G " in r.detail and "G_off - 0.99 R " in r.detail
    # 20% below Reno at 3e-4 only: not "a little"; the claim over 1e-4 and 1e-5 alone would agree.
    r = gsnoop._claim_low_loss_penalty(gsnoop_low_loss({**little, 3e-4: 0.80}), {})
    assert r.agree is False
    # Above Reno at 3e-4: not lower.
    assert gsnoop._claim_low_loss_penalty(gsnoop_low_loss({**little, 3e-4: 1.05}), {}).agree is False
    # No ICN at 3e-4 (none in any run): fails too.
    runs = gsnoop_low_loss(little)
    runs._runs[key(gsnoop._cell("fig4", 3e-4), "gsnoop25", "icns")] = np.zeros(10)
    assert gsnoop._claim_low_loss_penalty(runs, {}).agree is False
    # The cause. ICN off no better than on at 1e-4: the shortfall is not the ICN's.
    assert gsnoop._claim_low_loss_penalty(gsnoop_low_loss(little, off={1e-4: 0.95}), {}).agree is False
    # ICN off better, but still 3% below Reno at 1e-5: the ICN explains part of it only.
    assert gsnoop._claim_low_loss_penalty(gsnoop_low_loss(little, off={1e-5: 0.97}), {}).agree is False
    # A shortfall within the 1% margin that ICN off does not raise (G_off - G straddles 0): Reno's again
    # (G_off - 0.99 R above 0), but not shown to be because of the ICN: undecided.
    near = {**little, 1e-5: 0.995}
    assert gsnoop._claim_low_loss_penalty(gsnoop_low_loss(near, off={1e-5: 0.995}), {}).agree is None
    # No ICN-off runs at a point: it is skipped, and the line says so.
    r = gsnoop._claim_low_loss_penalty(gsnoop_low_loss(little, off={1e-5: None}), {})
    assert "1 of 3 loss rates" in r.detail and "1e-05:" not in r.detail
    definition = gsnoop.CLAIMS[1].definition
    assert "3e-4, 1e-4, 1e-5" in definition and "icn = false" in definition
    assert "G_off - G above 0" in definition and "G_off - 0.99 R above 0" in definition
    assert "before any ICN-off goodput was seen" in gsnoop.CLAIMS[1].revised


def test_gsnoop_icn_off_runs_only_where_claim_2_needs_it_and_turns_the_icn_off():
    exp = gsnoop.EXPERIMENT
    off = gsnoop.ICN_OFF.name
    where = [c for c in exp.cells if exp.applicable(c, off)]
    assert where == [gsnoop._cell("fig4", x) for x in gsnoop.LOW]
    assert all(exp.applicable(c, s.name) for c in exp.cells for s in gsnoop.SCHEMES)
    cell = gsnoop._cell("fig4", 1e-5)
    text = airtcp.load(gsnoop.scenario(cell, off, exp.params)).text
    assert "icn = false" in text and "cache = 25" in text
    # The document's G-Snoop 25 is written as before the switch (its runs and cache keys unchanged).
    assert "icn" not in airtcp.load(gsnoop.scenario(cell, "gsnoop25", exp.params)).text
