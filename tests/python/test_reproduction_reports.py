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

from airtcp import experiments
from airtcp.experiments import Numbers, dclor, gsnoop, kick, threshold, wmecn
from airtcp.experiments.report import all_text_tables, check_claims, markdown_report
from airtcp.experiments.run import reproduce
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
    # The defaults say the draft's 100.
    assert row(report(kick.EXPERIMENT), "95th percentile").endswith("over the 100 runs")


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


def test_wmecn_packet_sizes_follow_the_mss():
    default = report(wmecn.EXPERIMENT)
    assert row(default, "Packets") == "MSS 1000 B (1040 B on the wire), ACKs 40 B"
    assert "(1040 B, a TCP data packet's size)" in row(default, "UDP background and per-flow goodput")
    text = report(wmecn.EXPERIMENT.with_params(mss=500))
    assert row(text, "Packets") == "MSS 500 B (540 B on the wire), ACKs 40 B"
    assert "(540 B, a TCP data packet's size)" in row(text, "UDP background and per-flow goodput")


def test_wmecn_refuses_udp_settings_without_udp_sources():
    wmecn.EXPERIMENT.with_params(udp_sources=0)
    with pytest.raises(ValueError, match="udp_rate_kbps has no effect"):
        wmecn.EXPERIMENT.with_params(udp_sources=0, udp_rate_kbps=250)


# --------------------------------------------------------------------------
# The matrix


def test_matrix_tcp_settings_row_says_when_sack_recovery_restarts_the_timer():
    default = report(experiments.get("matrix"))
    assert row(default, "Environment TCP settings") == "as the environment's reproduction has them"
    on = report(experiments.get("matrix").with_params(sack_restart_rto_in_recovery=True))
    assert "restarts its timer at each retransmission in recovery" in row(on, "Environment TCP settings")


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
    line naming the file, the field and the problem; exit 2)."""
    r = run_cli("reproduce", "kick", "--runs", "1", "--set", "loss_rule=bogus", "--out", tmp_path, "--quiet")
    assert r.returncode == 2, r.stderr
    line = r.stderr.strip()
    assert line.count("\n") == 0, line
    assert line.startswith('airtcp: kick[{"fading":'), line
    assert ":tcp:" in line and "loss_rule: unknown variant `bogus`" in line, line
    assert line.endswith("(a scenario made from the parameters; set: loss_rule='bogus')"), line
    assert "<dict>" not in line
