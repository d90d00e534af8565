"""Every reproduction's report says what was run.

A researcher cites a reproduction's `report.md` (its setup, the choices
the document left open, the differences from the document's simulator, the
claims' definitions) and `tables.txt`. Each line of it that states a
setting must follow the parameters the runs used (`--set NAME=VALUE`) and
the runs per cell (`--runs`), not the defaults; and a `--set` of a
parameter that would change nothing is refused with one line (exit 2), as
an unknown parameter is.

The report text here is what `report.md` and `tables.txt` print
(:func:`report.markdown_report`, :func:`report.all_text_tables`), built for
the changed parameters without simulating; one test runs a reproduction to
show that the report describes the runs it has. Every default report is
checked line by line against the pages by test_reproduction_docs.py."""

import dataclasses

import pytest

from airtcp import ScenarioError, experiments
from airtcp.experiments import Numbers, dclor, gsnoop, kick, threshold, wmecn
from airtcp.experiments.report import all_text_tables, check_claims, markdown_report
from airtcp.experiments.run import reproduce
from airtcp.experiments.runner import plan
from conftest import run_cli

META = {"runs": 1, "total_runs": 1, "executed": 1, "reused": 0, "wall_s": 0.0, "workers": "1 thread", "created": "-"}


def report(exp) -> str:
    """report.md and tables.txt of ``exp``, on no numbers (the text, not the results)."""
    none = Numbers({})
    return markdown_report(exp, none, check_claims(exp, none), [], META) + "\n" + all_text_tables(exp, none)


def row(text: str, name: str) -> str:
    """The value of report.md's choice row ``name``."""
    (line,) = [ln for ln in text.splitlines() if ln.startswith(f"| {name} | ")]
    return line.split(" | ")[1]


def setup(text: str) -> str:
    return text.split("## Setup\n\n", 1)[1].split("\n", 1)[0]


def why(text: str, name: str) -> str:
    """The reason report.md gives for its choice row ``name``."""
    (line,) = [ln for ln in text.splitlines() if ln.startswith(f"| {name} | ")]
    return line.split(" | ")[2].removesuffix(" |")


# --------------------------------------------------------------------------
# Kick TCP


def test_kick_setup_says_which_directions_fade_and_how_often_a_bad_channel_loses():
    default = setup(report(kick.EXPERIMENT))
    assert "The uplink MH->FH fades" in default
    assert "a packet is lost if the channel is bad when its transmission starts" in default
    both = setup(report(kick.EXPERIMENT.with_params(fading_direction="both")))
    assert "The uplink MH->FH fades" not in both and "Both directions fade" in both
    lossy = setup(report(kick.EXPERIMENT.with_params(loss_bad=0.5, loss_good=0.01)))
    assert "lost with probability 0.5 if the channel is bad when its transmission starts" in lossy
    assert "with probability 0.01 otherwise" in lossy


def test_kick_choices_follow_the_link_the_window_and_the_kick_interval():
    default = report(kick.EXPERIMENT)
    assert row(default, "Link rate on the wire") == "68776 b/s (64 kb/s x 576/536)"
    changed = report(kick.EXPERIMENT.with_params(rate_bps=128_000, mss=1000))
    assert row(changed, "Link rate on the wire") == "133120 b/s (128 kb/s x 1040/1000)"
    assert row(report(kick.EXPERIMENT.with_params(initial_cwnd=2)), "Receiver window, initial window") == (
        "20 segments, 2 segments"
    )
    base = report(kick.EXPERIMENT.with_params(kick_interval="base_rtt", delay_ms=20))
    assert "(2 x 20 ms + data and ACK transmission times)" in row(base, "Kick interval")


def test_kick_caveats_follow_the_run_length_and_the_timers():
    default = report(kick.EXPERIMENT)
    assert "A run lasts at most `duration_s` (3600 s)" in default
    assert "airtcp measures the RTT in the same ticks and caps the multiplier at 64 as ns-2 did" in default
    assert "(G = 100 ms, min 200 ms, initial 6 s)" in default
    text = report(kick.EXPERIMENT.with_params(duration_s=600, max_backoff=None, rtt_tick_s=None,
                                              clock_granularity_s=0.5, initial_rto_s=3.0))
    assert "A run lasts at most `duration_s` (600 s)" in text and "(3600 s)" not in text
    assert "airtcp measures the RTT exactly and does not cap the multiplier" in text
    assert "caps the multiplier at 64" not in text
    assert "(G = 500 ms, min 200 ms, initial 3 s)" in text


def test_kick_report_counts_the_runs_it_has(tmp_path):
    """`--runs 2`: the 95th percentile and the claims' comparisons are over
    2 runs, and the report says so (it said 100, the draft's count)."""
    exp = kick.EXPERIMENT.with_cells([{"fading": "slow", "size_kb": 10}])
    reproduce(exp, runs=2, out=tmp_path, workers=1, progress=False)
    text = (tmp_path / "report.md").read_text()
    assert "| 95th percentile | numpy's default (linear interpolation) over the 2 runs |" in text
    assert "Every comparison is a paired one over the same 2 seeds" in text
    assert "100 runs |" not in text and "same 100 seeds" not in text
    assert "same 200 seeds" not in text
    # The default is 200 runs, not the draft's 100.
    assert row(report(kick.EXPERIMENT), "95th percentile").endswith("over the 200 runs")


def test_kick_runs_per_cell_row_says_why_200_and_when_p95_comparisons_are_undecided():
    """The draft ran 100 runs per cell; a paired interval of two 95th
    percentiles needs 150 (stats.TAIL_COMPARISON_MIN_RUNS, docs/sweeps.md),
    so the default is 200 and a report with fewer says its p95 comparisons
    are undecided."""
    default = report(kick.EXPERIMENT)
    assert row(default, "Runs per cell") == "200 (the draft: 100)"
    assert "only from about 150 runs" in why(default, "Runs per cell")
    assert why(default, "Runs per cell").endswith("200 runs keep every p95 comparison judged.")
    for runs, undecided in [(100, True), (149, True), (150, False)]:
        text = why(report(dataclasses.replace(kick.EXPERIMENT, runs=runs)), "Runs per cell")
        assert text.endswith(f"With {runs} runs the p95 comparisons are undecided.") is undecided, (runs, text)


# Rationale text: each number a row or a caveat quotes is computed from the
# parameters the runs used (or the runs the report has); a finding of the
# default runs is stated only for them.


def test_kick_percentile_estimators_differ_little_only_with_many_runs():
    five = report(dataclasses.replace(kick.EXPERIMENT, runs=5))  # what `--runs 5` reports
    assert why(five, "95th percentile") == (
        "The draft does not say which estimator; with 5 runs they can differ markedly (with the draft's 100, little)."
    )
    assert why(report(kick.EXPERIMENT), "95th percentile").endswith("with 200 runs they differ little.")


def test_kick_base_rtt_in_ticks_follows_the_path_and_the_tick():
    assert "The path's 91.7 ms base RTT then reads 1 tick (100 ms), or 2 when queueing" in report(kick.EXPERIMENT)
    fine = why(report(kick.EXPERIMENT.with_params(rtt_tick_s=0.01)), "RTT measurement")
    assert ("The path's 91.7 ms base RTT then reads 9 ticks of 10 ms, or 10 when the send time falls late enough "
            "in a tick;") in fine
    far = why(report(kick.EXPERIMENT.with_params(delay_ms=100)), "RTT measurement")
    assert "The path's 271.7 ms base RTT then reads 2 ticks of 100 ms, or 3 when" in far and "1 tick" not in far


def test_kick_tick_phase_caveat_follows_the_path_and_the_rtt_clock():
    far = report(kick.EXPERIMENT.with_params(delay_ms=100))
    assert ("With 100 ms ticks and a 272 ms base RTT this decides whether a sample reads 2 or 3 ticks; send times "
            "spread over the tick either way, so it changes which samples read 3, not the rule.") in far
    exact = report(kick.EXPERIMENT.with_params(rtt_tick_s=None))
    assert "airtcp measures the RTT exactly here (`rtt_tick_s = null`), with no tick clock to phase." in exact
    assert "92 ms base RTT" not in exact


def test_kick_delayed_acks_row_gives_the_timer():
    assert row(report(kick.EXPERIMENT), "Delayed ACKs") == "off"
    assert row(report(kick.EXPERIMENT.with_params(delayed_ack=True)), "Delayed ACKs") == (
        "on: an ACK for every second full segment, or after 200 ms (airtcp's delayed-ACK timer; the reproduction "
        "has no parameter for it)"
    )


def test_the_delayed_ack_timer_the_reports_name_is_airtcps_default():
    """The 200 ms the reports name (ns2.AIRTCP_DELACK_TIMEOUT_MS) is what a
    scenario without `delack_timeout` runs: setting it explicitly changes
    nothing, and another value does change the run."""
    import airtcp
    from airtcp.experiments import ns2

    p = {**kick.PARAMS, "delayed_ack": True}
    cell = {"fading": "fast", "size_kb": 50}

    def flows(timeout: str | None):
        sc = kick.scenario(cell, "tcp", p)
        if timeout is not None:
            sc["flow"][0]["tcp"]["delack_timeout"] = timeout
        return airtcp.run(sc, seed=3).tables["flows"].to_pydict()

    default = flows(None)
    assert flows(f"{ns2.AIRTCP_DELACK_TIMEOUT_MS}ms") == default
    assert flows("50ms") != default


def test_kick_packet_times_follow_the_link_rate():
    fast = report(kick.EXPERIMENT.with_params(rate_bps=128_000))
    assert ("so the rate is scaled to keep a data packet's transmission time at 33.5 ms (a 40-byte ACK then takes "
            "2.3 ms instead of 2.5 ms).") in why(fast, "Link rate on the wire")
    raw = why(report(kick.EXPERIMENT.with_params(match_ns2_packet_time=False)), "Link rate on the wire")
    assert "the rate is not scaled, so a data packet takes 72 ms on the wire, not the 67 ms of ns-2's 536-byte" in raw
    assert "scaled to keep" not in raw


def test_kick_loss_rule_caveat_follows_the_packet_time_and_the_loss_probabilities():
    """The default's slow-fading share is 1 - 0.8 exp(-67/8000) = 20.7%, 21%
    (the caveat said 20%)."""
    assert "= 65% of packets under fast fading, 26% moderate, 21% slow;" in report(kick.EXPERIMENT)
    slow_link = report(kick.EXPERIMENT.with_params(rate_bps=32_000))
    assert ("during its 134 ms: 1 - 0.8 x exp(-134/80) = 85% of packets under fast fading, 32% moderate, "
            "21% slow;") in slow_link
    half = report(kick.EXPERIMENT.with_params(loss_bad=0.5))
    assert "With the default `loss_rule = \"start\"` 10% of packets are lost at every fading speed" in half
    assert "20% of packets" not in half and "= 65%" not in half
    # The loss rule's choice row states the run's loss share too (it said 0.2 whatever loss_bad was).
    half_why = why(half, "Packet loss rule")
    assert "with loss 0 when good and 0.5 when bad, 10% of packets are lost at every fading speed" in half_why
    assert "0.2 at every fading speed" not in half_why
    assert "the stationary bad probability, 0.2 at every fading speed" in why(report(kick.EXPERIMENT), "Packet loss rule")


def test_kick_loss_rule_exclusion_is_argued_on_the_drafts_path():
    """The draft's means exclude ns-2's rule on the draft's path (64 kb/s,
    536-byte packets); on a faster link the bound computed for that link
    (mean >= 1.21 s) would contradict the row's 'below what any sender could
    achieve', so the bound stays the draft path's."""
    fast = why(report(kick.EXPERIMENT.with_params(rate_bps=128_000)), "Packet loss rule")
    assert "fast fading, 10 KB (19 packets of 67 ms)" in fast and "the mean response time is at least 3.68 s" in fast
    assert "packets of 34 ms" not in fast


def test_kick_response_time_offset_and_kick_cost_follow_the_path():
    far = report(kick.EXPERIMENT.with_params(delay_ms=50))
    assert "(ours is the ACK's arrival at MH, 55 ms later on this path)" in far and "15 ms later" not in far
    slow_link = report(kick.EXPERIMENT.with_params(rate_bps=32_000))
    assert "Kick, kicks FH already held the segment of (a 134 ms packet time spent)" in slow_link
    assert "67 ms packet time spent" not in slow_link


# --------------------------------------------------------------------------
# DCLOR


def test_dclor_setup_describes_the_endpoints_the_runs_have():
    assert "Linux-2.4/2.5-like endpoints (SACK, delayed ACKs, initial window 2, RTO >= SRTT + 200 ms, 64 KB receive " \
        "window)." in setup(report(dclor.EXPERIMENT))
    text = setup(report(dclor.EXPERIMENT.with_params(
        delayed_ack=False, initial_cwnd=4, clock_granularity_s=0.5, rwnd_bytes=131070, handshake=False)))
    assert ("Linux-2.4/2.5-like endpoints (SACK, an ACK for every segment, initial window 4, RTO >= SRTT + 500 ms, "
            "128 KB receive window, no handshake).") in text


def test_dclor_handshake_and_download_time_rows_follow_the_handshake():
    default = report(dclor.EXPERIMENT)
    assert row(default, "Handshake").startswith("on: every download opens a connection (SYN, SYN-ACK)")
    assert row(default, "Download time") == "from the SYN until the server has the ACK of the last byte"
    off = report(dclor.EXPERIMENT.with_params(handshake=False))
    assert row(off, "Handshake").startswith("off")
    assert "SYN" not in row(off, "Download time").replace("(no SYN)", "")


def test_dclor_refuses_a_delack_timer_without_delayed_acks(tmp_path):
    with pytest.raises(ValueError, match="delack_timeout_ms has no effect"):
        dclor.EXPERIMENT.with_params(delayed_ack=False, delack_timeout_ms=100)
    dclor.EXPERIMENT.with_params(delayed_ack=False)  # the default timer is not a setting of the user's
    r = run_cli("reproduce", "dclor", "--runs", "1", "--set", "scale=0.01", "--set", "delayed_ack=false",
                "--set", "delack_timeout_ms=100", "--out", tmp_path, "--quiet")
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().count("\n") == 0 and "delack_timeout_ms has no effect" in r.stderr


def test_dclor_variance_row_counts_the_downloads_of_the_mix_run():
    assert why(report(dclor.EXPERIMENT), "Variance").endswith(
        "with 500-12000 downloads per size the estimators agree to 0.2%.")
    assert why(report(dclor.EXPERIMENT.with_params(scale=0.1)), "Variance") == (
        "The draft does not say; with 50-1200 downloads per size the estimators agree to 2%."
    )


def test_dclor_run_length_is_stated_for_the_default_runs_only():
    """The default runs end after about 7,900 simulated seconds, with the
    5 KB clients (the row said the 10000 KB download ended last, ~0.5 h)."""
    default = why(report(dclor.EXPERIMENT), "Iterations")
    assert "(about 2.2 h simulated in the default runs, when the 5 KB clients finish their 2000 downloads;" in default
    assert "~0.5 h" not in default
    assert why(report(dclor.EXPERIMENT.with_params(scale=0.1)), "Iterations").endswith(
        "The run lasts until the last download ends.")


def test_dclor_segment_spacing_follows_the_stis_rate_and_the_reordering():
    fast = report(dclor.EXPERIMENT.with_params(rate_bps=100_000))
    assert ("a connection's segments leave the 100 kb/s queue 120 ms apart, so the 20 ms reordering never reorders "
            "them)") in why(fast, "DCLOR §6 rule")
    assert "(segments arrive every ~120 ms here, so it stays near 40 ms)" in why(fast, "Delayed ACKs")
    late = why(report(dclor.EXPERIMENT.with_params(reorder_delay_ms=300)), "DCLOR §6 rule")
    assert "a SACK block after one of its data segments was lost or, here, reordered" in late
    assert "the 300 ms reordering can reorder them" in late and "never reorders" not in late


def test_dclor_delay_figures_follow_the_stis_delay():
    near = report(dclor.EXPERIMENT.with_params(delay_ms=100))
    assert "(~0.1 s on every download, the same for every scheme)" in why(near, "Download time")
    assert "against RTTs above 200 ms it hardly matters" in why(near, "RTT clock")


def test_dclor_rtt_clock_row_on_a_path_without_propagation_delay():
    # --set delay_ms=0 (in its domain) ended the report in a ZeroDivisionError:
    # the tick was compared with a base RTT of 0 ms.
    text = why(report(dclor.EXPERIMENT.with_params(delay_ms=0)), "RTT clock")
    assert "these runs' 1 ms tick is large against RTTs without propagation delay." in text, text


def test_dclor_backoff_row_checks_the_stalls_against_tcp_retries2():
    assert why(report(dclor.EXPERIMENT), "RTO backoff").endswith(
        "tcp_retries2 = 15 expiries, which the 5-8 s stalls here never approach).")
    assert why(report(dclor.EXPERIMENT.with_params(d2_s=2000.0)), "RTO backoff").endswith(
        "tcp_retries2 = 15 expiries, which the 5-2000 s stalls here can reach).")


def test_dclor_rule_finding_is_the_sensitivity_runs_and_says_so_elsewhere():
    """With the rule on, DCLOR's 5 KB redundant bytes stayed at STD_TCP's
    level in the documented sensitivity run (the defaults with the rule on,
    10 runs); no run of other parameters showed it, so their report
    attributes it to that run and says it was not checked for them."""
    finding = "DCLOR answers almost none of the short downloads' timeouts: with the rule on, DCLOR's redundant"
    assert finding in why(report(dclor.EXPERIMENT), "DCLOR §6 rule")
    assert finding in why(report(dclor.EXPERIMENT.with_params(dclor_requires_sack_block=True)), "DCLOR §6 rule")
    for changes in ({"rate_bps": 100_000}, {"p1": 0.0, "p2": 0.0}, {"reorder_delay_ms": 300}):
        text = why(report(dclor.EXPERIMENT.with_params(**changes)), "DCLOR §6 rule")
        assert finding not in text
        assert ("In the sensitivity run in docs/reproductions/dclor.md (the default parameters with the rule on, "
                "10 runs) DCLOR answered almost none of the short downloads' timeouts") in text
        assert "These parameters differ from that run's, so this was not checked for them." in text
    on = why(report(dclor.EXPERIMENT.with_params(rate_bps=100_000, dclor_requires_sack_block=True)), "DCLOR §6 rule")
    assert "so this was not checked for them; claim 4 compares the two in these runs." in on


def test_dclor_think_time_and_rto_floor_follow_the_parameters():
    assert "1 s keeps the clients busy" in why(report(dclor.EXPERIMENT), "Random wait between downloads")
    slow = why(report(dclor.EXPERIMENT.with_params(think_s=10.0)), "Random wait between downloads")
    assert "1 s keeps" not in slow and "The default, 1 s, keeps the clients busy" in slow
    assert "these runs wait 10 s on average" in slow
    default = report(dclor.EXPERIMENT)
    assert why(default, "RTO").endswith("airtcp's RFC 6298 estimator with G = 200 ms gives the same floor.")
    assert "RFC 6298 RTO with the same 200 ms variance floor" in default
    coarse = report(dclor.EXPERIMENT.with_params(clock_granularity_s=0.5))
    assert why(coarse, "RTO").endswith("airtcp's RFC 6298 estimator with G = 500 ms gives a floor of SRTT + 500 ms "
                                       "instead.")
    assert "RFC 6298 RTO with a 500 ms variance floor (Linux's is 200 ms)" in coarse
    assert "same floor" not in coarse and "same 200 ms" not in coarse


def test_dclor_run_to_run_spread_is_the_default_runs():
    default = report(dclor.EXPERIMENT)
    assert "about the size of the run-to-run spread we see." in default
    for exp in (dclor.EXPERIMENT.with_params(rate_bps=100_000), dataclasses.replace(dclor.EXPERIMENT, runs=1)):
        text = report(exp)
        assert "spread we see" not in text
        assert "about the size of the run-to-run spread in the default runs (docs/reproductions/dclor.md)." in text


# --------------------------------------------------------------------------
# RTT threshold


def test_threshold_rows_follow_the_run_length_the_timer_cap_and_the_runs():
    default = report(threshold.EXPERIMENT)
    assert "/ 100 s, summed over the connections" in row(default, "Throughput")
    assert "No cap here (max RTO 100000 s)" in default and "One RTT of a 100 s run." in default
    text = report(threshold.EXPERIMENT.with_params(duration_s=10, max_rto_s=60.0))
    assert "/ 10 s, summed over the connections" in row(text, "Throughput")
    assert "No cap here (max RTO 60 s)" in text and "One RTT of a 10 s run." in text
    assert row(default, "Runs and seeds").startswith("20 runs per (cell, scheme)")
    five = report(dataclasses.replace(threshold.EXPERIMENT, runs=5))  # what `--runs 5` reports
    assert row(five, "Runs and seeds").startswith("5 runs per (cell, scheme)")


def test_threshold_setup_says_when_acks_suffer_bit_errors_too():
    assert "corrupt data packets on GW -> D. One" in setup(report(threshold.EXPERIMENT))
    text = setup(report(threshold.EXPERIMENT.with_params(ack_errors=True)))
    assert "corrupt data packets on GW -> D and ACKs on D -> GW." in text


def test_threshold_tables_are_labelled_for_the_path_and_the_error_unit():
    """The tables' base RTT in ticks follows the satellite delay (it was the
    default's 51 whatever the path), and a per-byte error rate is labelled
    per byte, not as a BER."""
    default = report(threshold.EXPERIMENT)
    assert "satellite path (base RTT 51 ticks)" in default and "51 ticks (= base)" in default
    longer = report(threshold.EXPERIMENT.with_params(sat_delay_ms=300.0))
    assert "satellite path (base RTT 61 ticks)" in longer and "61 ticks (= base)" in longer
    assert "base RTT 51 ticks" not in longer
    byte = report(threshold.EXPERIMENT.with_params(ber_unit="byte"))
    assert "1e-05 per byte" in byte and "BER 1e-05" not in byte.split("## Claims")[0]


def test_threshold_claim_details_name_a_per_byte_rate_per_byte():
    """The claims' verdict details name each error rate as the tables do: a
    per-byte rate is not a BER (claims 1-4 print one clause per rate)."""
    claims = report(threshold.EXPERIMENT.with_params(ber_unit="byte")).split("## Claims", 1)[1]
    for rate in ("1e-05", "1e-06", "1e-07"):
        assert f"{rate} per byte: off" in claims and f"{rate} per byte +" in claims
        assert f"BER {rate}" not in claims
    default = report(threshold.EXPERIMENT).split("## Claims", 1)[1]
    assert "BER 1e-05: off" in default and "per byte: off" not in default


def test_threshold_tick_phase_row_and_claim_5_follow_the_rtt_clock():
    default = report(threshold.EXPERIMENT)
    assert row(default, "Tick phase").startswith("random per connection")
    assert "Each connection's tick clock has ns-2's random phase (boot_time_)" in default
    exact = report(threshold.EXPERIMENT.with_params(rtt_tick_s=None))
    assert row(exact, "Tick phase").startswith("none: the RTT is measured exactly")
    assert "random phase (boot_time_), so the error-free runs differ" not in exact
    zero = report(threshold.EXPERIMENT.with_params(rtt_tick_phase="zero"))
    assert row(zero, "Tick phase").startswith("none: ticks at multiples")
    assert "the error-free runs are one deterministic run repeated" in zero


def test_threshold_k0_and_the_loss_before_the_first_sample_follow_before_rtt_sample():
    default = report(threshold.EXPERIMENT)
    assert row(default, "Loss before the first RTT sample") == "corruption (TCP table `before_rtt_sample`)"
    assert "a loss before the first RTT sample: corruption)" in setup(default)
    assert "T(0) is the scheme off but for a loss before the first RTT sample" in default
    assert "it differs only at a loss before the first sample" in default
    literal = report(threshold.EXPERIMENT.with_params(before_rtt_sample="congestion"))
    assert row(literal, "Loss before the first RTT sample") == "congestion (TCP table `before_rtt_sample`)"
    assert "a loss before the first RTT sample: congestion)" in setup(literal)
    assert "T(0) is the scheme off: no sample is below the base RTT, and a loss before" in literal
    assert "k = 0 is identical to the scheme off" in literal
    assert "but for a loss before the first RTT sample" not in literal


def test_threshold_error_unit_row_computes_the_packet_loss_at_the_mss():
    """Each reading's share of lost data packets at the MSS of the runs
    (1 - (1 - r)^1040 at 1e-5 is 1.0346%: the row said 1.04%)."""
    assert ("1.03%, 0.104% and 0.0104% of 1040-byte packets instead of 7.98%, 0.829% and 0.0832%."
            in why(report(threshold.EXPERIMENT), "Error-rate unit"))
    small = why(report(threshold.EXPERIMENT.with_params(mss=500)), "Error-rate unit")
    assert "0.539%, 0.054% and 0.0054% of 540-byte packets instead of 4.23%, 0.431% and 0.0432%." in small
    assert "1040-byte" not in small


def test_threshold_window_limit_binds_or_not_as_the_parameters_say():
    """'Never binds' is the default runs' finding (their largest cwnd is
    below the limit); elsewhere the row says what pipe + buffer tells."""
    row_name = "Window limit (window_) and initial ssthresh"
    default = why(report(threshold.EXPERIMENT), row_name)
    # Pipe + buffer does not make it so (cwnd passes 173 packets): the check of the default runs does.
    assert ("So the limit is set high enough never to bind in the default runs: their largest cwnd was 492 packets "
            "(checked with cwnd traces of every run), above pipe + buffer (173 packets) but below the limit; cwnd "
            "alone governs.") in default
    assert "(above pipe + buffer); cwnd alone governs" not in default
    tight = why(report(threshold.EXPERIMENT.with_params(window_pkts=100)), row_name)
    assert "Here the limit, 100 packets, is not above pipe + buffer (173 packets): it can bind" in tight
    assert "never to bind" not in tight
    loose = why(report(threshold.EXPERIMENT.with_params(window_pkts=300)), row_name)
    assert "The limit is set above pipe + buffer (173 packets), but cwnd can pass that" in loose
    assert "whether it reached the limit in these runs is not checked" in loose and "never to bind" not in loose
    more = why(report(dataclasses.replace(threshold.EXPERIMENT, runs=40)), row_name)  # `--runs 40`
    assert "never to bind" not in more


def test_threshold_ns2_window_argument_follows_the_path():
    row_name = "Window limit (window_) and initial ssthresh"
    assert "20 packets per 0.51 s = 313 kb/s, a sixth of the link: the window could never exceed the 123-packet pipe" \
        in why(report(threshold.EXPERIMENT), row_name)
    longer = why(report(threshold.EXPERIMENT.with_params(sat_delay_ms=300.0)), row_name)
    assert "20 packets per 0.61 s = 262 kb/s, an eighth of the link: the window could never exceed the 147-packet" \
        in longer
    short = why(report(threshold.EXPERIMENT.with_params(sat_delay_ms=25.0)), row_name)
    assert "ns-2's default window_ 20 is not below this path's 15-packet pipe" in short
    assert "could never exceed" not in short


def test_threshold_base_ticks_are_compared_with_the_documents():
    assert "= 51 ticks, as the document's 51; short-delay 61.2 ms = 6 ticks, as its 6" in why(
        report(threshold.EXPERIMENT), "Topology")
    longer = why(report(threshold.EXPERIMENT.with_params(sat_delay_ms=300.0)), "Topology")
    assert "611.2 ms = 61 ticks, not the document's 51;" in longer and "as the document's" not in longer


def test_threshold_backoff_caveat_rtos_follow_the_satellite_delay():
    assert "with RTOs of 0.5-0.6 s a cap of 64 binds" in report(threshold.EXPERIMENT)
    longer = report(threshold.EXPERIMENT.with_params(sat_delay_ms=300.0))
    assert "with RTOs of 0.6-0.7 s a cap of 64 binds" in longer and "0.5-0.6 s" not in longer


def test_threshold_rto_caveat_follows_the_floor_and_the_rtt_clock():
    default = report(threshold.EXPERIMENT)
    assert "airtcp applies RFC 6298 arithmetic (G = one tick, floor of two ticks) to the same tick-valued samples." \
        in default
    floor = report(threshold.EXPERIMENT.with_params(min_rto_s=0.2))
    assert "(G = one tick, floor 200 ms) to the same tick-valued samples." in floor and "floor of two" not in floor
    exact = report(threshold.EXPERIMENT.with_params(rtt_tick_s=None))
    assert "(G = one tick, floor of two ticks) to exact RTT samples (`rtt_tick_s = null`)." in exact
    assert "tick-valued samples" not in exact
    coarse = report(threshold.EXPERIMENT.with_params(rtt_tick_s=0.02))
    assert "to RTT samples in ticks of 20 ms." in coarse


def test_threshold_constant_rtt_reads_the_rtt_clocks_ticks():
    assert "A constant 511.2 ms RTT reads 51 ticks, or 52 when the send time" in why(
        report(threshold.EXPERIMENT), "RTT measurement")
    coarse = why(report(threshold.EXPERIMENT.with_params(rtt_tick_s=0.02)), "RTT measurement")
    assert "A constant 511.2 ms RTT reads 25 ticks of 20 ms, or 26 when the send time" in coarse


def test_threshold_tick_phase_row_counts_the_runs():
    five = why(report(dataclasses.replace(threshold.EXPERIMENT, runs=5)), "Tick phase")
    assert "its 5 runs would be one run repeated" in five and "20 runs" not in five


# --------------------------------------------------------------------------
# G-Snoop and WMECN (and the tick phase of every ns-2 timer model)


@pytest.mark.parametrize("name", ["threshold", "gsnoop", "wmecn"])
def test_a_tick_phase_without_a_tick_clock_is_refused(name):
    exp = experiments.get(name)
    exp.with_params(rtt_tick_s=None)  # exact RTTs: the phase default is no setting of the user's
    with pytest.raises(ValueError, match="rtt_tick_phase has no effect"):
        exp.with_params(rtt_tick_s=None, rtt_tick_phase="random")


def test_gsnoop_caveats_and_packet_size_follow_the_parameters():
    default = report(gsnoop.EXPERIMENT)
    assert "airtcp measures the RTT in the same ticks, caps the multiplier at 64 as ns-2 did" in default
    assert "GA's wireless queue stays empty (5 Mb/s in, 10 Mb/s out)" in default
    assert "so the MSS is 472 B. Goodput in packets/s counts these 512-byte packets." in default
    text = report(gsnoop.EXPERIMENT.with_params(max_backoff=None, rtt_tick_s=0.01, bottleneck_rate_mbps=20,
                                                packet_bytes=1000))
    assert "airtcp measures the RTT in ticks of 0.01 s, does not cap the multiplier" in text
    assert "stays empty" not in text and "GA's wireless queue can fill (20 Mb/s in, 10 Mb/s out)" in text
    assert "so the MSS is 960 B. Goodput in packets/s counts these 1000-byte packets." in text


def test_gsnoop_receiver_window_is_called_no_limit_only_when_it_is_none():
    """1000 packets exceed the pipe and the bottleneck buffer of the longest
    path (5 Mb/s x 630 ms / 512 B + 140 = 909 packets); ns-2's window_ of 20
    does not, and the report must not call it 'no practical limit'."""
    assert row(report(gsnoop.EXPERIMENT), "Receiver window") == "1000 packets (no practical limit)"
    assert row(report(gsnoop.EXPERIMENT.with_params(window_pkts=20)), "Receiver window") == "20 packets"


def test_gsnoop_satellite_caveat_states_the_default_runs_findings_only_for_them():
    default = report(gsnoop.EXPERIMENT)
    assert "G-Snoop did not act in them, and every run's goodput equals Reno's in the same seed exactly" in default
    # The default runs' queue drops: none in G-Snoop's (or Reno's) runs, 22 and 10 in two of Snoop's at 3e-3
    # (seeds 8 and 10); "no queue drop at any P_s" holds for G-Snoop's runs only (audit of 2026-11-29).
    assert ("did not overflow in G-Snoop's runs (no ICN, no queue drop at any P_s; two of Snoop's runs at 3e-3 had "
            "queue drops)") in default
    faster = report(gsnoop.EXPERIMENT.with_params(wireless_rate_mbps=20))
    assert "Up to 2686 packets can cross the 20 Mb/s link in 550 ms, against a 25-75 packet cache" in faster
    assert "G-Snoop did not act" not in faster and "see the satellite diagnostics table" in faster
    more = report(dataclasses.replace(gsnoop.EXPERIMENT, runs=20))  # `--runs 20`: runs 11-20 were not seen
    assert "G-Snoop did not act" not in more


def test_gsnoop_rtt_ticks_follow_the_buffer_and_the_tick():
    assert ("(up to 115 ms in the 140-packet bottleneck buffer), so samples read 1-3, 1-3 and 6-8 ticks."
            in why(report(gsnoop.EXPERIMENT), "RTT measurement"))
    small = why(report(gsnoop.EXPERIMENT.with_params(buffer_pkts=50)), "RTT measurement")
    assert "(up to 41 ms in the 50-packet bottleneck buffer), so samples read 1-2, 1-2 and 6-7 ticks." in small
    fine = why(report(gsnoop.EXPERIMENT.with_params(rtt_tick_s=0.01)), "RTT measurement")
    assert "The tick here, 0.01 s, is not the RTO granularity above" in fine
    assert "samples read 9-21, 15-27 and 63-75 ticks of 0.01 s." in fine


def test_gsnoop_ns2_window_argument_follows_the_packet_size():
    big = why(report(gsnoop.EXPERIMENT.with_params(packet_bytes=1500)), "Receiver window")
    assert ("ns-2's default window_ of 20 would let the five flows fill the 5 Mb/s bottleneck here (20 x 1500 B per "
            "90 ms round-trip propagation = 2.7 Mb/s each)") in big
    assert "could not fill" not in big


def test_gsnoop_backoff_cap_row_follows_max_backoff():
    assert "from the seventh expiry in a row for one segment, i.e. after seven losses of that segment in a row " \
        "(1e-7 at P_s = 0.1" in why(report(gsnoop.EXPERIMENT), "RTO backoff cap")
    eight = why(report(gsnoop.EXPERIMENT.with_params(max_backoff=8)), "RTO backoff cap")
    assert "from the fourth expiry in a row for one segment, i.e. after four losses of that segment in a row " \
        "(1e-4 at P_s = 0.1" in eight
    none = why(report(gsnoop.EXPERIMENT.with_params(max_backoff=None)), "RTO backoff cap")
    assert "Here there is no cap (`max_backoff = null`" in none and "seventh" not in none


def test_wmecn_packet_sizes_follow_the_mss():
    default = report(wmecn.EXPERIMENT)
    assert row(default, "Packets") == "MSS 1000 B (1040 B on the wire), ACKs 40 B"
    assert "(1040 B, a TCP data packet's size)" in row(default, "UDP background and per-flow goodput")
    text = report(wmecn.EXPERIMENT.with_params(mss=500))
    assert row(text, "Packets") == "MSS 500 B (540 B on the wire), ACKs 40 B"
    assert "(540 B, a TCP data packet's size)" in row(text, "UDP background and per-flow goodput")


def test_initial_window_of_airtcps_default_follows_the_mss():
    """RFC 5681 §3.1: IW = 4 segments up to an SMSS of 1095 bytes, 3 up to
    2190, 2 above (the default airtcp's scenarios get without a setting)."""
    assert "airtcp's default (RFC 5681: 4 segments at this MSS)" in why(report(wmecn.EXPERIMENT), "Connection start")
    big = why(report(wmecn.EXPERIMENT.with_params(mss=1460)), "Connection start")
    assert "airtcp's default (RFC 5681: 3 segments at this MSS)" in big and "4 segments" not in big
    assert why(report(gsnoop.EXPERIMENT), "Initial window").endswith("RFC 5681's 4 segments at this MSS.")
    jumbo = why(report(gsnoop.EXPERIMENT.with_params(packet_bytes=3000)), "Initial window")
    assert jumbo.endswith("RFC 5681's 2 segments at this MSS.")


@pytest.mark.parametrize("mss", [536, 1095, 1096, 2190, 2191])
def test_the_initial_window_the_reports_name_is_airtcps_default(mss):
    """The window ns2.rfc5681_initial_window names is what a scenario
    without `initial_cwnd` runs: setting it explicitly changes nothing, one
    segment more or less does change the run."""
    import airtcp
    from airtcp.experiments import ns2

    p = {**kick.PARAMS, "mss": mss}
    cell = {"fading": "fast", "size_kb": 50}

    def flows(initial_cwnd: int | None):
        sc = kick.scenario(cell, "tcp", p)
        tcp = sc["flow"][0]["tcp"]
        del tcp["initial_cwnd"]
        if initial_cwnd is not None:
            tcp["initial_cwnd"] = initial_cwnd
        return airtcp.run(sc, seed=3).tables["flows"].to_pydict()

    default, named = flows(None), ns2.rfc5681_initial_window(mss)
    assert flows(named) == default
    assert flows(named + 1) != default and flows(named - 1) != default


def test_gsnoop_satellite_caveat_title_is_a_finding_of_the_default_runs_only():
    assert "**The satellite link (275 ms): G-Snoop equals Reno.**" in report(gsnoop.EXPERIMENT)
    faster = report(gsnoop.EXPERIMENT.with_params(wireless_rate_mbps=20))
    assert "G-Snoop equals Reno" not in faster
    assert "**The satellite link (275 ms): G-Snoop does not stop the sender's halving.**" in faster


def test_wmecn_refuses_udp_settings_without_udp_sources():
    wmecn.EXPERIMENT.with_params(udp_sources=0)
    with pytest.raises(ValueError, match="udp_rate_kbps has no effect"):
        wmecn.EXPERIMENT.with_params(udp_sources=0, udp_rate_kbps=250)


def test_wmecn_red_thresholds_and_udp_share_follow_the_bottleneck():
    default = report(wmecn.EXPERIMENT)
    assert "also 5 and 15 at this 1 Mb/s bottleneck" in why(default, "Bottleneck queue")
    assert why(default, "Background traffic").endswith("One source takes a quarter of the bottleneck on average.")
    fast = report(wmecn.EXPERIMENT.with_params(bottleneck_rate_mbps=20))
    assert "three times that, 12.5 and 37.5 at this 20 Mb/s bottleneck" in why(fast, "Bottleneck queue")
    assert why(fast, "Background traffic").endswith("One source takes 1.25% of the bottleneck on average.")
    slow_udp = report(wmecn.EXPERIMENT.with_params(udp_rate_kbps=250))
    assert why(slow_udp, "Background traffic").endswith("One source takes 12.5% of the bottleneck on average.")


# --------------------------------------------------------------------------
# The matrix


def test_matrix_tcp_settings_row_says_which_sack_recovery_options_are_on():
    """The report names each SACK recovery option in force (RFC 6675 §6's
    timer restart, RFC 9937's PRR), alone or together, and neither at the
    defaults."""
    matrix_exp = experiments.get("matrix")
    default = report(matrix_exp)
    assert row(default, "Environment TCP settings") == "as the environment's reproduction has them"
    restart = "restarts its timer at each retransmission in recovery"
    prr = "reduces its window in recovery by Proportional Rate Reduction"
    on = row(report(matrix_exp.with_params(sack_restart_rto_in_recovery=True)), "Environment TCP settings")
    assert restart in on and prr not in on
    on = row(report(matrix_exp.with_params(sack_proportional_rate_reduction=True)), "Environment TCP settings")
    assert prr in on and "`--set sack_proportional_rate_reduction=true`, RFC 9937" in on and restart not in on
    both = row(report(matrix_exp.with_params(sack_restart_rto_in_recovery=True, sack_proportional_rate_reduction=True)),
               "Environment TCP settings")
    assert restart in both and prr in both


def test_matrix_point_row_names_the_default_points_only_for_them():
    """'Kick's Table 1 at the largest file, ... G-Snoop's Fig. 4 at 1% loss'
    describes the default points; under --set kick_size_kb=10 it is not
    the largest file."""
    text = "Kick's Table 1 at the largest file, WMECN's middle source count and error rate"
    default = why(report(experiments.get("matrix")), "One point per environment")
    assert f"one representative point of its grid (`--set` moves it): {text}" in default
    moved = why(report(experiments.get("matrix").with_params(kick_size_kb=10, gsnoop_loss=0.05)),
                "One point per environment")
    assert f"one representative point of its grid. The default points are {text}" in moved
    assert moved.endswith("these runs move kick_size_kb and gsnoop_loss (see this row's value).")


def test_matrix_cache_and_threshold_reasons_are_the_defaults_reasons():
    default = report(experiments.get("matrix"))
    assert why(default, "G-Snoop cache") == "The middle of the document's 25/50/75."
    assert why(default, "RTT threshold") == (
        "The threshold paper's Fig. 2 sets 550 ms on a 511 ms path (51 ticks): 4 ticks above the base.")
    moved = report(experiments.get("matrix").with_params(gsnoop_cache=75, rtt_threshold_ticks=8))
    assert why(moved, "G-Snoop cache") == "The default, 50, is the middle of the document's 25/50/75."
    assert why(moved, "RTT threshold") == (
        "The default, 4 ticks: the threshold paper's Fig. 2 sets 550 ms on a 511 ms path (51 ticks), 4 ticks above "
        "the base.")


def test_dclor_rtt_tick_is_called_negligible_only_when_it_is():
    assert "so 1 ms; against RTTs above 400 ms it hardly matters." in why(report(dclor.EXPERIMENT), "RTT clock")
    coarse = why(report(dclor.EXPERIMENT.with_params(rtt_tick_ms=100.0)), "RTT clock")
    assert "it hardly matters" not in coarse
    assert "so 1 ms, which against RTTs above 400 ms hardly matters; these runs' 100 ms tick is 25% of the base RTT." \
        in coarse


@pytest.mark.parametrize("setting", ["kick_fading=bogus", "gsnoop_group=fig5"])
def test_matrix_refuses_an_unknown_environment_point_in_one_line(tmp_path, setting):
    r = run_cli("reproduce", "matrix", "--runs", "1", "--set", setting, "--out", tmp_path, "--quiet")
    assert r.returncode == 2, r.stderr
    name = setting.split("=")[0]
    assert r.stderr.strip().count("\n") == 0 and f"parameter {name} must be one of" in r.stderr


# --------------------------------------------------------------------------
# A --set value the scenario refuses


def test_a_bad_set_value_names_the_cell_the_scheme_and_the_parameter(tmp_path):
    """The scenario a reproduction builds is not a file the user wrote: its
    error names the (cell, scheme) it was made for and the parameters that
    were set, so that the user can tell which --set to fix (the bar: one
    line naming the file, the field and the problem; exit 2). A value
    outside the parameter's domain is refused before any scenario is made
    (test_reproduce_params.py); what the domains cannot see, the loader
    still reports this way (here an experiment without domains)."""
    r = run_cli("reproduce", "kick", "--runs", "1", "--set", "loss_rule=bogus", "--out", tmp_path, "--quiet")
    assert r.returncode == 2, r.stderr
    assert r.stderr == "airtcp: kick: parameter loss_rule must be one of 'start', 'during', got 'bogus'\n", r.stderr
    bare = dataclasses.replace(kick.EXPERIMENT, domains={}, relations=())
    with pytest.raises(ScenarioError) as ei:
        plan(bare.with_params(loss_rule="bogus"), 1)
    line = str(ei.value)
    assert line.count("\n") == 0, line
    assert line.startswith('kick[{"fading":'), line
    assert ":tcp:" in line and "loss_rule: unknown variant `bogus`" in line, line
    assert line.endswith("(a scenario made from the parameters; set: loss_rule='bogus')"), line
    assert "<dict>" not in line


def test_a_bad_set_value_leaves_no_output_directory(tmp_path):
    """A --set that makes a scenario the core refuses is refused before
    anything is written (the bar: a clear error, no partial output): the
    output directory and its run cache are not made, from the CLI or the
    API. loss_bad = loss_good = 0 is refused by the experiment's relations
    (the core refuses it when the world is built), also when the
    parameters were set without with_params."""
    out = tmp_path / "cli"
    r = run_cli("reproduce", "kick", "--runs", "1", "--set", "loss_bad=0", "--out", out, "--quiet")
    assert r.returncode == 2, r.stderr
    assert "parameters loss_bad=0 and loss_good=0.0 do not go together" in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr
    assert not out.exists()
    out = tmp_path / "api"
    with pytest.raises(ValueError, match="loss_good and loss_bad must differ"):
        kick.EXPERIMENT.with_params(loss_bad=0)
    replaced = dataclasses.replace(kick.EXPERIMENT, params={**kick.EXPERIMENT.params, "loss_bad": 0})
    with pytest.raises(ValueError, match="loss_good and loss_bad must differ"):
        reproduce(replaced, runs=1, out=out, progress=False)
    assert not out.exists()


# --------------------------------------------------------------------------
# Every reproduction


@pytest.mark.parametrize("name", ["kick", "gsnoop", "threshold", "wmecn", "dclor", "matrix"])
def test_a_definition_written_with_results_known_says_so_and_no_other_does(name):
    """report.py's header of a claim's definition, "fixed before looking at
    results", is a statement about when it was written: a definition
    revised after its results were seen (the audit of 2026-11-29 rewrote
    some) says when and why instead, and every other keeps the header."""
    exp = experiments.get(name)
    text = report(exp)
    for claim in exp.claims:
        (line,) = [
            ln for ln in text.splitlines() if ln.startswith("*Definition (") and _heading_before(text, ln).startswith(f"\n**({claim.id}) ")
        ]
        if claim.revised:
            assert line.startswith(f"*Definition (revised with results known: {claim.revised}):* "), line
        else:
            assert line.startswith("*Definition (fixed before looking at results):* "), line
    # The claims the audit rewrote say so.
    revised = {c.id for c in exp.claims if c.revised}
    assert revised == {"kick": {"4", "5", "6"}, "wmecn": {"4a", "6"}, "gsnoop": {"2"}}.get(exp.name, set())


def test_the_report_says_no_correction_for_multiple_comparisons_is_made():
    """docs/sweeps.md, "Many comparisons at once": every report says that no
    correction is made and what a verdict over k comparisons is worth."""
    text = report(experiments.get("dclor"))
    assert "No correction for multiple comparisons is made" in text
    assert "probability 1 - 0.95^k (23% for k = 5, 37% for k = 9)" in text
    assert f"{1 - 0.95**5:.0%}" == "23%" and f"{1 - 0.95**9:.0%}" == "37%"


def _heading_before(text: str, line: str) -> str:
    """The claim heading (``**(ID) ...**``) above ``line`` in ``text``."""
    above = text[: text.index(line)]
    return above[above.rindex("\n**(") :]
