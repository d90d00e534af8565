"""The open parameters of the reproductions (`airtcp reproduce NAME --set
PARAM=VALUE`, ``Experiment.with_params``): every parameter of every
registered experiment has a declared domain, a value outside it (or
parameters that break one of the experiment's relations) is refused in one
line naming the experiment, the parameter, the value and what it may be
(CLI exit 2) before anything is planned, and every value at a bound of its
domain builds scenarios that the scenario loader accepts."""

import dataclasses
import math

import pytest

from airtcp import ScenarioError, experiments
from airtcp.experiments import runner
from conftest import run_cli

NAMES = sorted(experiments.available())


def _exp(name):
    return experiments.get(name)


@pytest.mark.parametrize("name", NAMES)
def test_every_parameter_has_a_domain_that_holds_its_default(name):
    exp = _exp(name)
    assert set(exp.domains) == set(exp.params), (set(exp.params) ^ set(exp.domains))
    for p, d in exp.domains.items():
        assert d.admits(exp.params[p]), (p, exp.params[p], d.describe())
        assert d.bounds, p
        # None is a setting exactly for the parameters the experiment says take it.
        assert (d.null is not None) == (p in exp.nullable), p
    for r in exp.relations:
        assert set(r.names) <= set(exp.params), r.names
        assert r.holds(exp.params), r.explain(exp.params)
    exp.check_params()


def _texts(exp):
    """Everything the report says that is a function of the parameters."""
    exp.setup_text()
    exp.choice_list()
    exp.caveat_list()
    exp.table_list()
    for c in exp.claims:
        exp.claim_definition(c)


def _covering_cells(exp):
    """Cells in which each value of each cell key appears at least once
    (every scheme is built in each): a third of the grid or less."""
    seen, out = set(), []
    for cell in exp.cells:
        new = {(k, repr(v)) for k, v in cell.items()} - seen
        if new:
            out.append(cell)
            seen |= new
    return out


def _load_all(exp):
    for cell in _covering_cells(exp):
        for sch in exp.schemes:
            if exp.applicable(cell, sch.name):
                runner.load_scenario(exp, cell, sch.name)
    runner.load_extra_scenarios(exp)


# A bound that a relation refuses with the other parameters at their
# defaults: (experiment, parameter, value) -> the other parameters' values
# with which it is accepted, so that the bound is tested to load too.
FAST = {"rate_bps": 10**13, "match_ns2_packet_time": False, "mss": 1, "delay_ms": 0}
COMPANIONS = {
    ("kick", "loss_good", 1): {"loss_bad": 0},
    ("kick", "loss_bad", 0): {"loss_good": 1},
    ("kick", "rate_bps", 1): {"duration_s": 10**7},
    ("kick", "rate_bps", 10**13): {"match_ns2_packet_time": False},
    ("kick", "delay_ms", 10**9): {"duration_s": 10**7},
    ("kick", "window_pkts", 2**30): {"mss": 1},
    ("kick", "initial_rto_s", 10**7): {"max_rto_s": 10**7},
    ("kick", "min_rto_s", 10**7): {"max_rto_s": 10**7},
    ("kick", "max_rto_s", 0.001): {"min_rto_s": 0.001, "initial_rto_s": 0.001, "max_backoff": None},
    ("kick", "max_backoff", 2**32 - 1): {"max_rto_s": 10**7, "min_rto_s": 0.001},
    ("kick", "kick_interval", "9999999s"): {"max_rto_s": 10**7},
    ("kick", "duration_s", 1e-9): {**FAST, "kick_interval": "1ms"},
    ("gsnoop", "wireless_rate_mbps", 1e-6): {"duration_s": 10**7},
    ("gsnoop", "bottleneck_rate_mbps", 1e-6): {"duration_s": 10**7},
    ("gsnoop", "access_rate_mbps", 1e-6): {"duration_s": 10**7},
    ("gsnoop", "access_ms", 30): {"upstream_ms": 30},
    ("gsnoop", "upstream_ms", 0): {"access_ms": 0},
    ("gsnoop", "upstream_ms", 10**9): {"duration_s": 10**7},
    ("gsnoop", "window_pkts", 2**30): {"packet_bytes": 41},
    ("gsnoop", "min_rto_s", 60): {"max_backoff": None},
    ("gsnoop", "max_backoff", 65535): {"min_rto_s": 0.001},
    ("gsnoop", "stagger_ms", 10**9): {"duration_s": 10**7},
    ("threshold", "sat_rate_bps", 1): {"duration_s": 10**5},
    ("threshold", "sat_delay_ms", 0): {"short_delay_ms": 0},
    ("threshold", "sat_delay_ms", 10**7): {"duration_s": 10**5},
    ("threshold", "short_delay_ms", 10**7): {"sat_delay_ms": 10**7, "duration_s": 10**5},
    ("threshold", "access_rate_bps", 1): {"duration_s": 10**5},
    ("threshold", "access_delay_ms", 10**7): {"duration_s": 10**5},
    ("threshold", "window_pkts", 2**30): {"mss": 1},
    ("threshold", "initial_rto_s", 10**7): {"max_rto_s": 10**7},
    ("threshold", "min_rto_s", 10**7): {"max_rto_s": 10**7},
    ("threshold", "max_rto_s", 0.001): {"min_rto_s": 0.001, "initial_rto_s": 0.001},
    ("threshold", "duration_s", 0.1): {
        "access_delay_ms": 0, "sat_delay_ms": 0, "short_delay_ms": 0, "access_rate_bps": 10**13,
        "sat_rate_bps": 10**13, "mss": 1,
    },
    **{("wmecn", f"{link}_rate_mbps", 1e-6): {"duration_s": 10**7, "cwnd_sample_ms": 10**7}
       for link in ("access", "bottleneck", "dest")},
    **{("wmecn", f"{link}_ms", 10**9): {"duration_s": 10**7, "cwnd_sample_ms": 10**7}
       for link in ("access", "bottleneck", "dest")},
    ("wmecn", "duration_s", 1e-6): {
        "stagger_ms": 0, "cwnd_sample_ms": 0.001, "access_ms": 0, "bottleneck_ms": 0, "dest_ms": 0,
        "access_rate_mbps": 10**7, "bottleneck_rate_mbps": 10**7, "dest_rate_mbps": 10**7, "mss": 1,
        "handshake": False,
    },
    ("wmecn", "duration_s", 10**7): {"cwnd_sample_ms": 10**7},
    ("wmecn", "queue_pkts", 1): {"min_th": 0},
    ("wmecn", "min_th", 999_998): {"mid_th": 999_999, "max_th": 10**6, "queue_pkts": 10**6},
    ("wmecn", "mid_th", 1e-9): {"min_th": 0},
    ("wmecn", "mid_th", 999_999): {"max_th": 10**6},
    ("wmecn", "max_th", 2e-9): {"min_th": 0, "mid_th": 1e-9},
    ("wmecn", "max_backoff", 65535): {"min_rto_s": 0.001},
    ("wmecn", "window_pkts", 2**30): {"mss": 1},
    ("wmecn", "stagger_ms", 10**9): {"duration_s": 10**7, "cwnd_sample_ms": 10**7},
    ("wmecn", "cwnd_sample_ms", 0.001): {"duration_s": 0.15, "stagger_ms": 0},
    ("wmecn", "cwnd_sample_ms", 10**10): {"duration_s": 10**7},
    ("dclor", "buffer", "53B"): {"mtu_bytes": 53},
    ("dclor", "delay_ms", 10**9): {"duration_s": 10**7},
    ("dclor", "access_delay_ms", 10**9): {"duration_s": 10**7},
    ("dclor", "p1", 1): {"p2": 0},
    ("dclor", "p2", 1): {"p1": 0},
    ("dclor", "initial_cwnd", 10**6): {"mtu_bytes": 1113},
    ("dclor", "rwnd_bytes", 13): {"mtu_bytes": 53},
    ("dclor", "initial_rto_s", 10**7): {"max_rto_s": 10**7},
    ("dclor", "min_rto_s", 10**7): {"max_rto_s": 10**7},
    ("dclor", "max_rto_s", 0.001): {"min_rto_s": 0.001, "initial_rto_s": 0.001},
    ("dclor", "duration_s", 1e-6): {
        "delay_ms": 0, "access_delay_ms": 0, "rate_bps": 10**13, "access_rate_bps": 10**13, "mtu_bytes": 53,
        "handshake": False,
    },
}


def _bound_cases(exp):
    """(parameter, value) for each bound of each domain (and null where it
    is a setting) that differs from the default. A whole number is also
    tried as a float (JSON's 2.0 is 2)."""
    for p, d in exp.domains.items():
        values = list(d.bounds) + ([None] if d.null is not None else [])
        values += [float(v) for v in d.bounds if type(v) is int and abs(v) < 2**53]
        for v in values:
            if v == exp.params[p] and type(v) is type(exp.params[p]):
                continue
            yield p, v


@pytest.mark.parametrize("name", NAMES)
def test_each_bound_of_each_domain_loads(name):
    """Each parameter at each bound of its domain, the others at their
    defaults: every scheme's scenario of each cell loads (cells covering
    every value of the grid) and the report's texts are
    written; or a relation refuses the combination, in one line naming the
    parameter and the others it ties, and with the companions above it
    loads. A value the domain accepts must never fail later in the loader."""
    exp = _exp(name)
    used = set()
    for p, v in _bound_cases(exp):
        changes = {p: v}
        try:
            exp.with_params(**changes)
        except ValueError as err:
            msg = str(err)
            assert "do not go together" in msg and msg.startswith(f"{name}: parameters {p}={v!r}"), msg
            assert "\n" not in msg, msg
            key = (name, p, v)  # 2.0 == 2: one entry serves both
            assert key in COMPANIONS, f"{msg}: give the test the values with which {p}={v!r} is accepted"
            used.add(key)
            changes.update(COMPANIONS[key])
        try:
            e = exp.with_params(**changes)
            _load_all(e)
            _texts(e)
        except Exception as err:  # noqa: BLE001 - name the values in the failure
            pytest.fail(f"{name}: {changes} are in their domains ({exp.domains[p].describe()}) but: "
                        f"{type(err).__name__}: {err}")
    assert used == {k for k in COMPANIONS if k[0] == name}, "a companion for a bound no relation refuses"


@pytest.mark.parametrize("name", NAMES)
def test_values_outside_a_domain_are_refused_in_one_line(name):
    exp = _exp(name)
    for p, d in exp.domains.items():
        assert d.outside, p
        for v in d.outside:
            with pytest.raises(ValueError) as ei:
                exp.with_params(**{p: v})
            msg = str(ei.value)
            assert "\n" not in msg and msg.startswith(f"{name}: parameter {p} "), msg
            assert repr(v) in msg, msg
            if d.null is None:
                assert "takes a" in msg or d.describe() in msg, msg
        if d.null is None:
            with pytest.raises(ValueError, match=f"parameter {p} takes"):
                exp.with_params(**{p: None})


# --------------------------------------------------------------------------
# The user audit's findings (on 6b80c0f): each value is refused in one line
# naming the experiment, the parameter, the value and what it may be, exit
# 2, before anything is planned: no output directory is made.

AUDIT = [
    # A ZeroDivisionError traceback in kick.link_rate_bps, exit 1.
    ("kick", "mss=0", "kick: parameter mss must be a whole number from 1 to 65,495 (bytes), got 0"),
    # Refused by the loader naming link[0].rate ("-2496000bps").
    ("kick", "mss=-1", "kick: parameter mss must be a whole number from 1 to 65,495 (bytes), got -1"),
    # Refused by the loader as a rate "10746268656716bps" too large.
    ("kick", "rate_bps=1e13", "kick: parameters rate_bps=10000000000000.0, mss=536 and match_ns2_packet_time=True "
     "do not go together: the link's rate, rate_bps (scaled by (mss + 40) / mss with match_ns2_packet_time), must "
     "be at most 10 Tb/s (here 10,746,268,656,716 b/s)"),
    # Accepted (gsnoop and dclor refused fractions).
    ("kick", "window_pkts=2.5", "kick: parameter window_pkts must be a whole number from 1 to 1,073,741,824 "
     "(segments), got 2.5"),
    # Ran its traces error-free while report.md said "BER -1", exit 0.
    ("threshold", "trace_ber=-1", "threshold: parameter trace_ber must be a probability from 0 to 1"),
    # Refused only after every run: "airtcp: seed must be in [0, 2**64), got -1".
    ("threshold", "trace_seed=-1", "threshold: parameter trace_seed must be a whole number from 0 to 2**64 - 1 "
     "(a simulation seed), got -1"),
    # Refused after every run, naming flow[0].tcp.classifier.threshold "-1000us".
    ("threshold", "trace_threshold_ms=-1", "threshold: parameter trace_threshold_ms must be a number from 0 to "
     "10,000,000,000 (ms), got -1"),
    # Ran without a UDP source while the report said "-1 UDP on/off source(s)".
    ("wmecn", "udp_sources=-1", "wmecn: parameter udp_sources must be a whole number from 0 to 1,000, got -1"),
    # Ran with exact RTT samples.
    ("dclor", "rtt_tick_ms=-1", "dclor: parameter rtt_tick_ms must be 0, or a number from 0.001 to 10,000,000,000 "
     "(ms; 0: RTT samples exact), got -1"),
    # Ran one download per size.
    ("dclor", "scale=-1", "dclor: parameter scale must be a number above 0, at most 1,000"),
]


@pytest.mark.parametrize("name, setting, says", AUDIT, ids=[f"{n}-{s}" for n, s, _ in AUDIT])
def test_the_audits_values_are_refused_before_anything_runs(name, setting, says, tmp_path):
    out = tmp_path / "out"
    r = run_cli("reproduce", name, "--runs", "1", "--quiet", "--out", out, "--set", setting, timeout=600)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith(f"airtcp: {says}") and r.stderr.count("\n") == 1, r.stderr
    assert not out.exists()


def test_a_repeated_set_is_refused_in_one_line(tmp_path):
    # --set loss_rule=during --set loss_rule=start ran "start", silently.
    out = tmp_path / "out"
    r = run_cli("reproduce", "kick", "--runs", "1", "--quiet", "--out", out,
                "--set", "loss_rule=during", "--set", "loss_rule=start")
    assert r.returncode == 2
    assert r.stderr == "airtcp: --set loss_rule is given twice ('during', then 'start'): set each parameter once\n"
    assert not out.exists()
    # Two different parameters are two settings.
    r = run_cli("reproduce", "kick", "--params", "--set", "loss_rule=during", "--set", "initial_state=stationary")
    assert r.returncode == 0, r.stderr


def test_a_relation_names_every_parameter_it_ties_the_changed_one_first():
    from airtcp.experiments import kick

    with pytest.raises(ValueError) as ei:
        kick.EXPERIMENT.with_params(max_rto_s=0.1)
    assert str(ei.value) == (
        "kick: parameters max_rto_s=0.1 and min_rto_s=0.2 do not go together: min_rto_s must be at most max_rto_s"
    )
    # Changed together, they are accepted.
    changed = kick.EXPERIMENT.with_params(max_rto_s=0.1, min_rto_s=0.1, initial_rto_s=0.1, max_backoff=None)
    assert changed.params["max_rto_s"] == 0.1


def test_parameters_set_without_with_params_are_checked_before_planning(tmp_path):
    """dataclasses.replace skips with_params: runner.plan (every entry
    point: the CLI, reproduce(), plan()) checks the parameters first."""
    from airtcp.experiments import dclor, reproduce

    bad = dataclasses.replace(dclor.EXPERIMENT, params={**dclor.EXPERIMENT.params, "scale": -1.0})
    with pytest.raises(ValueError, match=r"^dclor: parameter scale must be a number above 0, at most 1,000 .*, got -1.0$"):
        runner.plan(bad, 1)
    with pytest.raises(ValueError, match="parameter scale must be"):
        reproduce(bad, runs=1, out=tmp_path / "out", progress=False)
    assert not (tmp_path / "out").exists()


def test_the_threshold_traces_are_loaded_before_the_runs():
    """The cwnd traces are drawn after every run; their scenarios are loaded
    when the runs are planned (Experiment.extra_scenarios)."""
    from airtcp.experiments import threshold

    names = [what for what, _ in threshold.EXPERIMENT.extra_scenarios(threshold.EXPERIMENT.params)]
    assert len(names) == 10 and "fig2 long 1 off 550 ms" in names
    bare = dataclasses.replace(threshold.EXPERIMENT, domains={}, relations=(),
                               params={**threshold.EXPERIMENT.params, "trace_threshold_ms": -1})
    with pytest.raises(ScenarioError,
                       match=r"threshold\[fig2 long 1 off -1 ms\].*classifier.threshold.*set: trace_threshold_ms=-1"):
        runner.plan(bare, 1)


@pytest.mark.parametrize("name", NAMES)
def test_the_domains_are_listed_where_the_parameters_are(name):
    """`airtcp reproduce NAME --params` and report.md's parameter table
    say what each parameter may be, and the rules that tie them."""
    from airtcp.experiments.report import parameters_markdown

    exp = _exp(name)
    r = run_cli("reproduce", name, "--params")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    table = "\n".join(parameters_markdown(exp))
    assert "| name | value | allowed |" in table
    for p, d in exp.domains.items():
        line = next(line for line in r.stdout.splitlines() if line.split()[:1] == [p])
        assert line.split(None, 2)[2].endswith(d.describe()), line
        assert f"| `{p}` | `{exp.params[p]!r}` | {d.describe()} |" in table
    for rel in exp.relations:
        assert f"  {rel.text}\n" in r.stdout + "\n" and f"* {rel.text}" in table


def test_the_pages_list_the_parameters_as_the_report_does():
    """docs/reproductions/*.md: each page shows `airtcp reproduce NAME
    --params`, and a page that copies the report's parameter table copies
    it as the report writes it now (values, domains, rules)."""
    from airtcp.experiments.report import parameters_markdown
    from conftest import REPO

    for name in NAMES:
        text = (REPO / "docs" / "reproductions" / f"{name}.md").read_text()
        assert f"airtcp reproduce {name} --params " in text, name
        if "Experiment parameters (change with" in text:
            assert "\n".join(parameters_markdown(_exp(name))) + "\n" in text, name
