"""The Kick TCP reproduction (experiments/kick.py): what the draft's own
numbers say about the channel and about its "avg" cells, and that Kick TCP
with issue 11's fixes finishes every fast-fading upload."""

import math

import numpy as np
import pytest

from airtcp.experiments import kick
from airtcp.experiments.run import reproduce


def test_the_drafts_fast_fading_numbers_exclude_the_during_rule_in_wall_time():
    # Draft §3: 536-byte packets at 64 kb/s take 0.067 s; fast fading has mean
    # good/bad sojourns of 0.08/0.02 s; 10 KB is ceil(10000 / 536) = 19
    # packets. Under the "during" rule a packet survives only if the channel is
    # good at its start (stationary probability 0.8) and stays good for
    # 0.067 s (exp(-0.067 / 0.08)): at least 19 x 0.067 / (0.8 exp(-0.8375))
    # = 3.68 s on average for a sender that never idles, 19 x 0.067 /
    # exp(-0.8375) = 2.94 s for one that sends only into a good channel.
    during = kick.channel_bound({**kick.PARAMS, "loss_rule": "during"})
    assert during["packets"] == 19
    assert during["mean_never_idle_s"] == pytest.approx(19 * 0.067 / (0.8 * math.exp(-0.067 / 0.08)), rel=1e-9)
    assert during["mean_never_idle_s"] == pytest.approx(3.68, abs=0.01)
    assert during["mean_aware_s"] == pytest.approx(2.94, abs=0.01)
    # Both above the draft's TCP mean (2.867 s) and Kick mean (2.525 s) at 10 KB.
    assert during["mean_aware_s"] > 2.867 > 2.525
    # As medians too: the state-aware sender's successes in 42 attempts
    # (2.867 s) are Binomial(42, 0.433); 19 or more with probability < 1/2.
    assert during["p_aware_done_by_draft_tcp"] < 0.5 and during["p_aware_done_by_draft_kick"] < 0.5
    # The reading the reproduction uses is not excluded: 20% loss, 19 x
    # 0.067 / 0.8 = 1.59 s for a sender that never idles.
    start = kick.channel_bound({**kick.PARAMS, "loss_rule": "start"})
    assert start["mean_never_idle_s"] == pytest.approx(19 * 0.067 / 0.8, rel=1e-9)
    assert start["mean_never_idle_s"] < 2.525
    assert kick.PARAMS["loss_rule"] == "start"


def test_table_3_avg_cells_at_10_to_30_kb_are_the_loss_free_time_and_cannot_be_means():
    # Without loss, Reno from one segment with an ACK per segment: the first
    # packet (67 ms) is acknowledged at 0.067 + 0.010 + 0.005 + 0.010 = 0.092 s;
    # from then on slow start keeps the 64 kb/s link busy, so packet k >= 1
    # (counting from 0) reaches FH at 0.092 + k x 0.067 + 0.010 s: 1.308 s
    # for the 19th (10 KB), 2.581 s for the 38th (20 KB), 3.787 s for the
    # 56th (30 KB). The draft's Table 3 prints 1.309, 2.582, 3.788 for both
    # schemes: the loss-free time to within 1 ms.
    for size, n, avg in ((10, 19, 1.309), (20, 38, 2.582), (30, 56, 3.788)):
        arrival, ack = kick.loss_free_s(size, kick.PARAMS)
        assert kick.packets(size, kick.PARAMS) == n
        assert arrival == pytest.approx(0.092 + (n - 1) * 0.067 + 0.010, abs=1e-9)
        assert abs(arrival - avg) <= 0.001 + 1e-9, size
        assert ack == pytest.approx(arrival + 0.005 + 0.010)
    rows = {(f, s, sch): (avg, lb) for f, s, sch, avg, t0, p95, lb in kick.avg_vs_loss_free(kick.PARAMS)}
    # Slow 10 KB TCP: p95 2.859, so a mean of 100 runs is at least
    # 1.308 + 0.05 x (2.859 - 1.308) = 1.386 > 1.309.
    assert rows[("slow", 10, "tcp")][1] == pytest.approx(1.308 + 0.05 * (2.859 - 1.308), abs=1e-3)
    for s in (10, 20, 30):
        for sch in ("tcp", "kick"):
            avg, least_mean = rows[("slow", s, sch)]
            assert avg < least_mean, (s, sch)
    # Where the avg is well above the loss-free time, it may be a mean.
    assert rows[("slow", 50, "tcp")][0] > rows[("slow", 50, "tcp")][1]


def test_the_reproduction_follows_the_drafts_simulated_node_and_keeps_the_other_readings():
    exp = kick.EXPERIMENT
    assert exp.params["node_knowledge"] == "exact"
    cell = {"fading": "fast", "size_kb": 10}
    sc = kick.scenario(cell, "kick", exp.params)
    assert sc["node"][0]["agents"] == [{"kind": "kick", "knowledge": "exact"}]
    sc = kick.scenario(cell, "kick", {**exp.params, "node_knowledge": "highest_forwarded", "loss_rule": "during"})
    assert sc["node"][0]["agents"][0]["knowledge"] == "highest_forwarded"
    assert sc["link"][0]["a_to_b"]["error"]["loss_rule"] == "during"


@pytest.mark.parametrize("loss_rule", ["start", "during"])
def test_fast_fading_kick_finishes_every_run_within_the_run_length(tmp_path, loss_rule):
    # Issue 11: with Karn's rule for kicks, kickbacks matched to their kick
    # and the node of the draft's simulation (which knows exactly what it
    # holds), a segment lost behind a hole is repaired by a kick, and no
    # fast-fading upload is left unfinished: on the default channel and on
    # the excluded "during" one (65% of packets lost), where before the fixes
    # Kick finished 22 of 100 uploads of 50 KB. The largest file, 20 runs
    # (the reproduction runs 200 of each size).
    exp = kick.EXPERIMENT.with_cells([{"fading": "fast", "size_kb": 50}]).with_params(loss_rule=loss_rule)
    rep = reproduce(exp, runs=20, out=tmp_path, workers=1, progress=False, write=False)
    k = rep.runs[rep.runs.scheme == "kick"]
    assert len(k) == 20
    assert (k.completed == 1.0).all()
    assert np.isfinite(k.response_s).all() and (k.response_s < exp.params["duration_s"]).all()
    assert (k.kicks_forwarded > 0).any(), "no kick repaired anything"
