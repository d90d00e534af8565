"""`airtcp reproduce wmecn`: every scheme's scenario is valid and one tiny
run of each yields the metrics the tables and claims read."""

import math

import pytest

import airtcp
from airtcp.experiments import wmecn
from airtcp.experiments.run import reproduce


def test_every_scheme_builds_and_reports_its_metrics():
    exp = wmecn.EXPERIMENT
    p = dict(exp.params, duration_s=5)
    cell = {"n": 2, "per": 0.05}
    for s in exp.schemes:
        res = airtcp.run(exp.scenario(cell, s.name, p), seed=1)
        m = exp.metrics(res, cell, s.name, p)
        assert m["goodput_pps"] > 0, s.name
        assert m["mean_cwnd_pkts"] > 0, s.name
        for k in ("loss_cc", "loss_cw", "loss_wc", "loss_ww", "type1_rate", "type2_rate"):
            assert k in m
        if s.name == "base":
            # Always-congestion: no wireless verdicts.
            assert m["loss_cw"] == 0 and m["loss_ww"] == 0
        # Only a congestion verdict reduces the window; the halved losses
        # split exactly into duplicate-ACK-detected and timeout-detected.
        assert 0 <= m["wl_halved"] <= m["loss_wc"], s.name
        assert m["wl_halved_dupack"] >= 0 and m["wl_halved_timeout"] >= 0, s.name
        assert m["wl_halved_dupack"] + m["wl_halved_timeout"] == m["wl_halved"], s.name
        assert m["wl_halved_timeout"] <= m["timeouts"], s.name


def test_lrt_hides_wireless_losses_from_tcp():
    exp = wmecn.EXPERIMENT
    p = dict(exp.params)
    cell = {"n": 2, "per": 0.05}
    plain = exp.metrics(airtcp.run(exp.scenario(cell, "wmecn", p), seed=2), cell, "wmecn", p)
    lrt = exp.metrics(airtcp.run(exp.scenario(cell, "wmecn_lrt", p), seed=2), cell, "wmecn_lrt", p)
    assert lrt["loss_wc"] + lrt["loss_ww"] < 0.2 * (plain["loss_wc"] + plain["loss_ww"])
    assert lrt["goodput_pps"] > plain["goodput_pps"]


def test_tiny_reproduction_checks_every_claim(tmp_path):
    exp = wmecn.EXPERIMENT.with_params(duration_s=5).with_cells([{"n": 2, "per": 0.0}, {"n": 2, "per": 0.1}])
    rep = reproduce(exp, runs=1, out=tmp_path, workers=1, progress=False)
    assert not rep.interrupted
    assert (tmp_path / "report.md").exists()
    text = (tmp_path / "report.md").read_text()
    for c in wmecn.CLAIMS:
        assert c.text in text
    assert not math.isnan(rep.numbers.get({"n": 2, "per": 0.1}, "wmecn", "goodput_pps", "avg"))


def test_queue_parameters_reach_the_bottleneck_only_when_set():
    """`wmecn_not_ect` (WMECN's routers, not-ECT packets) and `red_wait` /
    `red_gentle` (ns-2's RED) change the bottleneck queue of their schemes;
    at their defaults the scenarios carry none of them."""
    cell = {"n": 2, "per": 0.0}

    def bottleneck(scheme, **changes):
        p = {**wmecn.PARAMS, **changes}
        (link,) = [lk for lk in wmecn.scenario(cell, scheme, p)["link"] if (lk["a"], lk["b"]) == ("R1", "R2")]
        return link["a_to_b"]["queue"]

    for scheme in ("wmecn", "wmecn_lrt", "ecn", "base"):
        assert not {"not_ect", "wait", "gentle"} & set(bottleneck(scheme))
    assert bottleneck("wmecn", wmecn_not_ect="every_mark")["not_ect"] == "every_mark"
    assert "not_ect" not in bottleneck("ecn", wmecn_not_ect="every_mark")
    q = bottleneck("ecn", red_wait=True, red_gentle=True)
    assert (q["wait"], q["gentle"], q["ecn"]) == (True, True, True)
    assert "wait" not in bottleneck("wmecn", red_wait=True)
    with pytest.raises(ValueError, match="wmecn_not_ect"):
        bottleneck("wmecn", wmecn_not_ect="sometimes")
