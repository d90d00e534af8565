"""`airtcp reproduce threshold` (Teng & Chang's RTT-threshold classifier)."""

import math

import pytest

import airtcp
from airtcp import experiments
from airtcp.experiments import threshold as thr
from airtcp.experiments.base import Numbers, cell_key
from airtcp.experiments.run import reproduce
from airtcp.experiments.runner import plan

from conftest import run_cli

EXP = thr.EXPERIMENT
P = EXP.params


def test_every_scenario_validates_and_the_paths_have_the_documents_base_rtts():
    assert "threshold" in experiments.available()
    p = plan(EXP, 1)  # builds and validates every (cell, scheme) scenario
    assert len(p.texts) == len(EXP.cells) * len(EXP.schemes) == 18 * 12
    # The trace scenarios (absolute 550 ms threshold, time series) validate too.
    sc = airtcp.load(thr.scenario({"case": "long", "flows": 3, "ber": 1e-6}, "off", P, threshold_ms=550, series=True))
    assert (sc.links, sc.flows) == (4, 3) and 'threshold = "550000us"' in sc.text
    # Base RTT 51 ticks (satellite) and 6 ticks (short delay), as in the document.
    assert (thr.base_ticks(P, "long"), thr.base_ticks(P, "short")) == (51, 6)
    for case, ticks in (("long", 51), ("short", 6)):
        cell = {"case": case, "flows": 1, "ber": 0.0}
        # Exact samples: the path's base RTT.
        sc = thr.scenario(cell, "off", {**P, "duration_s": 5, "rtt_tick_s": None})
        min_rtt = airtcp.run(sc, seed=1).flows.min_rtt_s[0]
        assert int(min_rtt / P["tick_s"]) == ticks
        assert math.isclose(min_rtt, thr.base_rtt_s(P, P["sat_delay_ms"] if case == "long" else P["short_delay_ms"]),
                            rel_tol=1e-6)
        # ns-2 tick measurement (the default): the same RTT counted in whole ticks.
        sc = thr.scenario(cell, "off", {**P, "duration_s": 5})
        assert 'rtt_tick = "10000us"' in airtcp.load(sc).text
        assert 'restart_rto_on_fast_retransmit = true' in airtcp.load(sc).text
        min_rtt = airtcp.run(sc, seed=1).flows.min_rtt_s[0]
        assert round(min_rtt / P["tick_s"], 9) == ticks


def test_a_tiny_cell_runs(tmp_path):
    exp = EXP.with_cells([{"case": "long", "flows": 2, "ber": 1e-5}]).with_params(duration_s=10)
    rep = reproduce(exp, runs=2, out=tmp_path, workers=1, progress=False, write=False)
    df = rep.runs
    assert len(df) == 12 * 2 and (df.goodput_kbps > 0).all()
    assert ((df.jain > 0) & (df.jain <= 1)).all()
    # base + 0 ticks: no sample is below the base RTT, so a run in which k0
    # judged no loss corruption (only a loss before the first RTT sample
    # can be, `before_rtt_sample`) is Reno's run exactly.
    off = df[df.scheme == "off"].set_index("run")
    k0 = df[df.scheme == "k0"].set_index("run")
    plain = k0.loss_cw + k0.loss_ww + k0.loss_ow == 0
    assert plain.any() and off.goodput_kbps[plain].equals(k0.goodput_kbps[plain])
    assert (off.loss_cw + off.loss_ww + off.loss_ow == 0).all()
    # The scheme calls some corruption losses corruption.
    assert df[df.scheme == "k4"].loss_ww.sum() > 0
    assert "Fig. 5" in rep.tables_text()


def test_the_error_rate_applies_per_bit_or_per_byte():
    # Per bit (the document's "BER (bit error rate)"): a 1040-byte packet is
    # lost with probability 1 - (1 - BER)^8320. Per byte (ns-2's ErrorModel
    # with `unit byte`, errmodel.cc CorruptByte: per = 1 - pow(1 - rate_,
    # bytes)): 1 - (1 - rate)^1040.
    bit, byte = {**P, "ber_unit": "bit"}, {**P, "ber_unit": "byte"}
    for rate in thr.BERS:
        assert math.isclose(thr.packet_loss(rate, bit), 1 - (1 - rate) ** 8320, rel_tol=1e-9)
        assert math.isclose(thr.packet_loss(rate, byte), 1 - (1 - rate) ** 1040, rel_tol=1e-9)
        # The scenario carries the per-bit rate that loses packets that way.
        b = thr.bit_error_rate(rate, byte)
        assert math.isclose((1 - b) ** 8, 1 - rate, rel_tol=1e-12)
    sc = airtcp.load(thr.scenario({"case": "long", "flows": 1, "ber": 1e-5}, "off", byte))
    assert f"ber = {thr.bit_error_rate(1e-5, byte)!r}" in sc.text
    with pytest.raises(ValueError, match="ber_unit"):
        thr.bit_error_rate(1e-5, {**P, "ber_unit": "packet"})


def test_error_free_runs_differ_by_seed_through_ns2s_tick_phase():
    # ns-2 draws each connection's boot_time_ in [0, tcpTick_): the wired
    # path's runs are no longer one deterministic run repeated.
    cell = {"case": "long", "flows": 1, "ber": 0.0}
    sc = thr.scenario(cell, "off", P)
    assert 'rtt_tick_phase = "random"' in airtcp.load(sc).text
    rtts = {round(airtcp.run(sc, seed=seed).flows.mean_rtt_s[0], 9) for seed in range(1, 6)}
    assert len(rtts) > 1, rtts
    zero = thr.scenario(cell, "off", {**P, "rtt_tick_phase": "zero"})
    assert len({round(airtcp.run(zero, seed=seed).flows.mean_rtt_s[0], 9) for seed in range(1, 4)}) == 1


def test_the_cwnd_traces_show_ns2s_cwnd_without_the_fast_recovery_inflation():
    cell = {"case": "long", "flows": 1, "ber": P["trace_ber"]}
    cw, _ = thr._trace(cell, "off", P, None)
    assert set(cw.metric) == {"cwnd_without_inflation_bytes"}
    sc = thr.scenario(cell, "off", P, series=True)
    s = airtcp.run(sc, seed=P["trace_seed"]).series
    inflated = s[s.metric == "cwnd_bytes"].value.to_numpy()
    plain = cw.value.to_numpy()
    # Same samples; never above the inflated window, and below it while Reno
    # is in fast recovery (the spikes of the previous plots).
    assert len(plain) == len(inflated) and (plain <= inflated).all() and (plain < inflated).any()


def _flows(case: str, scheme: str, seed: int):
    sc = thr.scenario({"case": case, "flows": 1, "ber": 0.0}, scheme, P)
    return airtcp.run(sc, seed=seed).flows


def test_wired_paths_the_scheme_changes_nothing_unless_it_misjudges_a_congestion_loss():
    cols = ["goodput_bps", "segments_sent", "timeouts", "fast_retransmits", "drops_queue"]
    # Short-delay wired path: identical to Reno, seed for seed, at every threshold.
    for seed in (1, 2):
        off = _flows("short", "off", seed)
        for k in (1, 2, 10):
            f = _flows("short", f"k{k}", seed)
            assert f[cols].equals(off[cols]), (seed, k)
            assert f.loss_congestion_as_wireless[0] == 0
    # Long-delay wired path: the queue can overflow while the latest RTT
    # sample (up to one RTT old) is still below the threshold (slow start);
    # such a congestion loss is taken for corruption and the run differs.
    # Wherever it differs, a type-1 error is the reason.
    differ = 0
    for seed in (1, 2, 3):
        off = _flows("long", "off", seed)
        assert off.drops_channel[0] == 0 and off.drops_queue[0] > 0
        for k in (0, 2, 6):
            f = _flows("long", f"k{k}", seed)
            same = f[cols].equals(off[cols])
            if k == 0:
                assert same
            if not same:
                differ += 1
                assert f.loss_congestion_as_wireless[0] > 0, (seed, k)
            elif f.loss_congestion_as_wireless[0] == 0:
                assert f.non_congestion_losses[0] == 0
    assert differ > 0  # what we found (docs/reproductions/threshold.md)


def _synthetic(trend) -> Numbers:
    """Numbers that follow a given throughput curve trend(cell, k) (k = None: off)."""
    v = {}
    for cell in EXP.cells:
        for s in EXP.schemes:
            k = None if s.name == "off" else int(s.name[1:])
            v[(cell_key(cell), s.name, "goodput_kbps", "avg")] = trend(cell, k)
            v[(cell_key(cell), s.name, "loss_cw", "avg")] = 0.0
    return Numbers(v)


def test_claims_hold_on_the_documents_trends_and_fail_otherwise():
    gain = {1e-5: 1.0, 1e-6: 0.5, 1e-7: 0.2, 0.0: 0.0}

    def paper(cell, k):
        # Fig. 3: a large step by base + 2, then a slow climb.
        frac = 0.0 if not k else {1: 0.5, 2: 0.9}.get(k, 0.9 + 0.01 * (k - 2))
        return 1000.0 * (1 + gain[cell["ber"]] * frac)

    for c in EXP.claims:
        assert c.check(_synthetic(paper), P).agree is True, c.id

    def flat(cell, k):
        return 1000.0

    verdicts = {c.id: c.check(_synthetic(flat), P).agree for c in EXP.claims}
    assert verdicts == {"1": False, "2": False, "3": False, "4": False, "5": True}


def _synthetic_runs(trend, noise) -> Numbers:
    """Numbers with 20 runs per (cell, scheme): trend(cell, k) x (1 + noise(run, scheme))."""
    import numpy as np

    from airtcp.experiments.base import mean

    v, runs = {}, {}
    for cell in EXP.cells:
        for j, s in enumerate(EXP.schemes):
            k = None if s.name == "off" else int(s.name[1:])
            x = np.array([trend(cell, k) * (1 + noise(i, j)) for i in range(20)])
            runs[(cell_key(cell), s.name, "goodput_kbps")] = x
            runs[(cell_key(cell), s.name, "loss_cw")] = np.zeros(20)
            v[(cell_key(cell), s.name, "goodput_kbps", "avg")] = float(x.mean())
            v[(cell_key(cell), s.name, "loss_cw", "avg")] = 0.0
    return Numbers(v, runs, {"avg": mean})


def test_claims_are_judged_on_paired_intervals():
    import numpy as np

    gain = {1e-5: 1.0, 1e-6: 0.5, 1e-7: 0.2, 0.0: 0.0}

    def paper(cell, k):
        frac = 0.0 if not k else {1: 0.5, 2: 0.9}.get(k, 0.9 + 0.01 * (k - 2))
        return 1000.0 * (1 + gain[cell["ber"]] * frac)

    # Common random numbers: a run's noise is shared by every scheme, so the
    # paired contrasts are exact and the document's trends are confirmed.
    shared = np.random.default_rng(1).normal(0, 0.3, 20)
    n = _synthetic_runs(paper, lambda i, j: shared[i])
    for c in EXP.claims:
        r = c.check(n, P)
        assert r.agree is True, (c.id, r.detail)
        assert "[" in r.detail
    # Independent noise as large as the effects: nothing can be decided
    # either way (claims 1-4); claim 5's 2% equivalence cannot be shown.
    rng = np.random.default_rng(2)
    own = rng.normal(0, 0.5, (20, len(EXP.schemes)))
    n = _synthetic_runs(paper, lambda i, j: own[i, j])
    verdicts = {c.id: c.check(n, P).agree for c in EXP.claims}
    assert verdicts["5"] is None and None in verdicts.values(), verdicts


def _paper(cell, k):
    gain = {1e-5: 1.0, 1e-6: 0.5, 1e-7: 0.2, 0.0: 0.0}
    frac = 0.0 if not k else {1: 0.5, 2: 0.9}.get(k, 0.9 + 0.01 * (k - 2))
    return 1000.0 * (1 + gain[cell["ber"]] * frac)


def test_claim_5_says_in_how_many_runs_the_threshold_changed_nothing():
    import numpy as np

    # Common random numbers and a scheme that never acts on an error-free path: T(k) = T(off) in every run,
    # so the equivalence intervals have (almost) no width; the line says why.
    shared = np.random.default_rng(1).normal(0, 0.3, 20)
    r = EXP.claims[4].check(_synthetic_runs(_paper, lambda i, j: shared[i]), P)
    assert r.agree is True
    assert r.detail.count("T(k) at every k and T(off) identical in all 20 runs") == 2, r.detail
    own = np.random.default_rng(2).normal(0, 0.01, (20, len(EXP.schemes)))
    r = EXP.claims[4].check(_synthetic_runs(_paper, lambda i, j: own[i, j]), P)
    assert "and T(off) identical in none of 20 runs" in r.detail and "at every k" not in r.detail
    assert "identical" not in EXP.claims[4].check(_synthetic(_paper), P).detail  # no runs, nothing to count


def test_claim_2_prints_the_per_run_gains_it_tests_beside_the_ratio_of_means():
    import numpy as np

    # The scheme off varies from run to run, the threshold's plateau does not: the mean of the per-run gains
    # differs from the ratio of the means, and the line must give the one the test uses.
    off_noise = np.random.default_rng(4).uniform(-0.4, 0.4, 20)
    off_index = [s.name for s in EXP.schemes].index("off")
    n = _synthetic_runs(_paper, lambda i, j: off_noise[i] if j == off_index else 0.0)
    detail = EXP.claims[1].check(n, P).detail
    cell = {"case": "long", "flows": 1, "ber": 1e-5}
    per_run = np.mean([n.runs(cell, s, "goodput_kbps") for s in thr.PLATEAU], axis=0) / n.runs(cell, "off", "goodput_kbps") - 1
    of_means = np.mean([n.get(cell, s, "goodput_kbps", "avg") for s in thr.PLATEAU]) / n.get(cell, "off", "goodput_kbps", "avg") - 1
    assert f"{100 * per_run.mean():+.1f}%" != f"{100 * of_means:+.1f}%"
    tested, ratio = detail.split("(what is tested): ")[1].split("; as a ratio of means: ")
    assert tested.startswith(f"BER 1e-05 {100 * per_run.mean():+.1f}%"), detail
    assert ratio.startswith(f"BER 1e-05 {100 * of_means:+.1f}%"), detail


def test_cli_lists_threshold():
    r = run_cli("reproduce")
    assert r.returncode == 0 and "threshold" in r.stdout


def test_the_reported_tcp_choice_follows_delayed_ack():
    """The report's TCP row says what the receivers do: ns-2's TCPSink ACKs
    every segment by default; `--set delayed_ack=true` is reported as such."""
    def tcp_row(delayed_ack):
        p = {**thr.EXPERIMENT.params, "delayed_ack": delayed_ack}
        (choice,) = [c for c in thr._choices(p) if c.name == "TCP"]
        return choice.value

    assert tcp_row(False).endswith("ACK every segment")
    assert "delayed ACKs" in tcp_row(True) and "ACK every segment" not in tcp_row(True)
