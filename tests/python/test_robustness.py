"""Issue 13: no input kills the process, hangs it, or is accepted and then
silently ignored or wrapped. Each numbered case of the issue, from the API
(airtcp.ScenarioError) and the CLI (exit 2, one line on stderr); the Rust
side is crates/airtcp-core/tests/robustness.rs."""

import os
import warnings

import pytest

import airtcp
from conftest import run_cli

HEAD = """\
[simulation]
duration = "10s"
{sim}
[[link]]
a = "A"
b = "B"
rate = "10Mbps"
delay = "10ms"
{link}
[[flow]]
from = "A"
to = "B"
tcp = {{ {tcp} }}
app = {{ kind = "bulk" }}
{tail}"""


def one_link(sim="", link="", tcp="", tail=""):
    return HEAD.format(sim=sim, link=link, tcp=tcp, tail=tail)


def chain(n, sim=""):
    s = f'[simulation]\nduration = "5s"\n{sim}\n'
    for i in range(n - 1):
        s += f'[[link]]\na = "N{i}"\nb = "N{i + 1}"\nrate = "100Mbps"\ndelay = "100us"\n'
    return s + f'[[flow]]\nfrom = "N0"\nto = "N{n - 1}"\napp = {{ kind = "bulk" }}\n'


MANY_FLOWS = one_link(sim='memory_budget = "10MB"') + '[[flow]]\nfrom = "A"\nto = "B"\napp = { kind = "bulk" }\n' * 1000

# name: (scenario text, field, words expected in the message)
CASES = {
    "1_series_budget": (
        one_link(tail='[output]\ntimeseries = { interval = "1us" }\n'),
        "output.timeseries.interval",
        ["about 16.0 GB", "memory budget of 4.0 GB"],
    ),
    "1_series_1ns": (
        one_link(tail='[output]\ntimeseries = { interval = "1ns" }\n'),
        "output.timeseries.interval",
        ["at least 1us"],
    ),
    "1_flows_budget": (MANY_FLOWS, "flow", ["1001 flows", "memory budget of 10.0 MB"]),
    "2_initial_cwnd": (one_link(tcp="initial_cwnd = 10000000"), "flow[0].tcp.initial_cwnd", ["RFC 7323", "at most 1073741"]),
    "3_delay_overflow": (
        one_link().replace('delay = "10ms"', 'delay = "1.845e10s"'),
        "link[0].delay",
        ["too large"],
    ),
    "3_delay_1e300": (one_link().replace('delay = "10ms"', 'delay = "1e300s"'), "link[0].delay", ["too large"]),
    "3_rate_1e300": (one_link().replace('rate = "10Mbps"', 'rate = "1e300Gbps"'), "link[0].rate", ["too large"]),
    "3_min_rto_underflow": (one_link(tcp='min_rto = "1e-400ms"'), "flow[0].tcp.min_rto", ["below 1ns"]),
    "3_unit_case": (one_link().replace('rate = "10Mbps"', 'rate = "10mbps"'), "link[0].rate", ['did you mean "Mbps"']),
    "3_unit_case_slash": (one_link().replace('rate = "10Mbps"', 'rate = "10mb/s"'), "link[0].rate", ['did you mean "Mb/s"']),
    "6_ttl": (chain(100), "flow[0].to", ["99 hops", "TTL of 64"]),
    "6_ttl_range": (chain(3, "ttl = 256"), "simulation.ttl", ["1 to 255"]),
    "7_kick_1ns": (one_link(tcp='kick = { interval = "1ns" }'), "flow[0].tcp.kick.interval", ["at least 1ms"]),
    "7_rto_1ns": (one_link(tcp='min_rto = "1ns"'), "flow[0].tcp.min_rto", ["at least 1ms"]),
    "8_mss_queue": (
        one_link(link='queue = { kind = "droptail", limit = "1000B" }', tcp='mss = "1460B"'),
        "link[0].queue.limit",
        ["cannot hold one segment of flow[0]", "1500B"],
    ),
    "8_start_after_end": (
        one_link().replace("app = {", 'start = "11s"\napp = {'),
        "flow[0].start",
        ["11s is not before the end of the run (10s)"],
    ),
    "9_seed": (one_link(sim="seed = 9223372036854775808"), "simulation.seed", ["as a string"]),
    # A seed string is digits only (docs/scenario.md): " 123" is not trimmed.
    "9_seed_spaces": (one_link(sim='seed = " 123"'), "simulation.seed", ["decimal digits only", '" 123"']),
    # docs/scenario.md, "Units": a number, optionally one space, then the unit.
    "units_newline": (one_link().replace('rate = "10Mbps"', 'rate = "10\\nMbps"'), "link[0].rate", ["one space"]),
    "units_tab": (one_link().replace('delay = "10ms"', 'delay = "10\\tms"'), "link[0].delay", ["one space"]),
    "units_two_spaces": (one_link().replace('rate = "10Mbps"', 'rate = "10  Mbps"'), "link[0].rate", ["one space"]),
    # Found by the loader fuzzer: a key holding a newline stays one line.
    "key_with_newline": ('"a\\nb" = 0\n' + one_link(), "a\\nb", ["unknown field `a\\nb`"]),
}


@pytest.fixture(params=sorted(CASES))
def bad(request, tmp_path):
    text, field, words = CASES[request.param]
    path = tmp_path / f"case{request.param}.toml"
    path.write_text(text)
    return path, field, words


def test_api_raises_scenario_error(bad):
    path, field, words = bad
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.load(path)
    e = ei.value
    assert "\n" not in str(e)
    assert e.field == field, str(e)
    for w in words:
        assert w in e.message, str(e)


def test_cli_exits_2_with_one_line(bad):
    path, field, words = bad
    for cmd in ("validate", "run"):
        p = run_cli(cmd, path)
        assert p.returncode == 2, p.stderr
        lines = p.stderr.splitlines()
        assert len(lines) == 1 and f": {field}: " in lines[0], p.stderr
        assert all(w in lines[0] for w in words), p.stderr


def test_seed_from_python_above_2_63():
    """Case 9 from a dict: tomli_w writes 2**63 as an integer TOML cannot
    hold; the error names the field. As a string it is accepted."""
    d = {"simulation": {"duration": "1s", "seed": 2**63}, "link": [{"a": "A", "b": "B", "rate": "1Mbps", "delay": "1ms"}],
         "flow": [{"from": "A", "to": "B", "app": {"kind": "bulk"}}]}
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.load(d)
    assert ei.value.field == "simulation.seed"
    d["simulation"]["seed"] = str(2**64 - 1)
    assert airtcp.load(d).seed == 2**64 - 1


def test_integers_given_as_strings_are_never_fixed_up(tmp_path):
    """The bar: bad input gets a clear error, never a silent fix. An
    integer option or seed given as text is decimal digits only: int()
    would trim " 3", read "+3", "1_0" and a fullwidth "\uff13", and run."""
    path = tmp_path / "s.toml"
    path.write_text(one_link(tail='[[flow]]\nfrom = "A"\nto = "B"\napp = { kind = "repeated", size = "10KB", think = "1s" }\n'))
    for option, value in [("--seed", " 3"), ("--seed", "3 "), ("--seed", "+3"), ("--seed", "1_0"), ("--seed", "\uff13"),
                          ("--runs", " 2"), ("--runs", "+2"), ("--workers", "1_0")]:
        args = ("run", path, option, value) if option != "--seed" else ("run", path, option, value, "--runs", "1")
        p = run_cli(*args)
        assert p.returncode == 2, (option, value, p.stderr)
        assert "decimal digits only" in p.stderr and repr(value) in p.stderr, p.stderr
    d = {"simulation": {"duration": "1s", "seed": "7 "}, "link": [{"a": "A", "b": "B", "rate": "1Mbps", "delay": "1ms"}]}
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.load(d)
    assert ei.value.field == "simulation.seed" and "decimal digits only" in ei.value.message
    with pytest.raises(TypeError):
        airtcp.run(airtcp.Scenario(one_link(), "s.toml"), seed="3")


def test_reproduction_parameters_keep_their_kind():
    """A reproduction's number stays a number (float(" 2") would read the
    string) and a whole number stays whole (int(2.5) would truncate)."""
    from airtcp.experiments import dclor, kick

    for bad in (" 2", "2", True):
        with pytest.raises(ValueError, match="parameter scale takes a number"):
            dclor.EXPERIMENT.with_params(scale=bad)
    with pytest.raises(ValueError, match="parameter sack takes a bool"):
        dclor.EXPERIMENT.with_params(sack=1)
    # A fraction is refused by the parameter's domain, before any scenario is
    # made (it was: when the scenario was built, by base.whole).
    with pytest.raises(ValueError, match="parameter initial_cwnd must be a whole number from 1 to .*, got 2.5"):
        dclor.EXPERIMENT.with_params(initial_cwnd=2.5)
    assert dclor.EXPERIMENT.with_params(initial_cwnd=3.0).params["initial_cwnd"] == 3.0
    p = run_cli("reproduce", "kick", "--set", 'queue_pkts=" 16"')
    assert p.returncode == 2 and "parameter queue_pkts takes a number" in p.stderr, p.stderr
    assert len(p.stderr.splitlines()) == 1, p.stderr
    assert kick.EXPERIMENT.params["queue_pkts"] == 32


def test_documented_null_settings_are_accepted_and_no_others():
    """ns2.py: rtt_tick_s None measures RTTs exactly and max_backoff None
    removes the cap; docs/reproductions/kick.md and gsnoop.md run
    `--set rtt_tick_s=null` and `--set max_backoff=null`. Those two take
    null in every ns-2 reproduction and leave the TCP table without the
    entry; a number that has no None setting still refuses it."""
    from airtcp.experiments import gsnoop, kick, threshold, wmecn

    for mod in (kick, gsnoop, threshold, wmecn):
        exp = mod.EXPERIMENT
        off = {n: None for n in ("rtt_tick_s", "max_backoff") if n in exp.params}
        assert "rtt_tick_s" in off, mod.__name__
        e = exp.with_params(**off)
        tcp = [f["tcp"] for f in e.scenario(e.cells[0], e.schemes[0].name, e.params)["flow"] if "tcp" in f]
        assert tcp and all("rtt_tick" not in t and "max_backoff" not in t for t in tcp), mod.__name__
    with pytest.raises(ValueError, match="parameter queue_pkts takes a number"):
        kick.EXPERIMENT.with_params(queue_pkts=None)
    p = run_cli("reproduce", "kick", "--set", "queue_pkts=null")
    assert p.returncode == 2 and "parameter queue_pkts takes a number" in p.stderr, p.stderr


def test_case5_per_flow_queue_statistics():
    """Case 5: a UDP source at twice the rate keeps a 20-packet per-flow
    (STIS) buffer full: its mean occupancy and queue series are ~20."""
    text = """\
[simulation]
duration = "10s"
[[link]]
a = "S"
b = "R"
rate = "100Mbps"
delay = "1ms"
[[link]]
a = "R"
b = "D"
rate = "1Mbps"
delay = "10ms"
queue = { kind = "per_flow", limit = "20pkt" }
[[flow]]
from = "S"
to = "D"
app = { kind = "onoff", rate = "2Mbps", mean_on = "1000000s", mean_off = "1us" }
[output]
timeseries = { interval = "100ms", flows = false }
"""
    r = airtcp.run(airtcp.Scenario(text, "stis.toml"))
    row = r.links.set_index("name").loc["R->D"]
    assert 19.0 < row.mean_queue_pkts <= 20.0
    assert row.max_queue_pkts == 20
    s = r.series
    q = s[(s.metric == "queue_pkts") & (s.name == "R->D") & (s.time_s >= 0.2)]
    assert len(q) > 90 and (q.value >= 19).all()


def test_case8_seeds_on_a_deterministic_scenario_warn(tmp_path):
    """Case 8: 100 seeds of a scenario with no random element would be
    100 identical runs: Python warns with DeterministicScenarioWarning,
    the CLI prints one warning line on stderr; a random scenario is silent."""
    det = one_link().replace('"10s"', '"1s"')
    with pytest.warns(airtcp.DeterministicScenarioWarning, match="all 3 seeds give the same run"):
        r = airtcp.run_many(airtcp.Scenario(det, "det.toml"), seeds=[1, 2, 3], workers=1, progress=False)
    assert len(r.seeds) == 3
    lossy = det.replace('delay = "10ms"\n', 'delay = "10ms"\nerror = { kind = "bernoulli", per = 0.01 }\n', 1)
    assert airtcp.Scenario(lossy, "lossy.toml").random
    with warnings.catch_warnings():
        warnings.simplefilter("error", airtcp.DeterministicScenarioWarning)
        airtcp.run_many(airtcp.Scenario(lossy, "lossy.toml"), seeds=[1, 2], workers=1, progress=False)
        airtcp.run_many(airtcp.Scenario(det, "det.toml"), seeds=[5], workers=1, progress=False)
    path = tmp_path / "det.toml"
    path.write_text(det)
    p = run_cli("run", path, "--runs", "2", "--workers", "1", "--quiet")
    assert p.returncode == 0, p.stderr
    warning = [line for line in p.stderr.splitlines() if "warning" in line]
    assert warning == [f"airtcp: warning: {path}: no component draws random numbers (no lossy channel, "
                       "RED-family queue, stall, repeated or on/off app), so all 2 seeds give the same run"]


def _control_free(*parts):
    return all(ch.isprintable() for p in parts for ch in p)


def test_error_attributes_hold_the_escapes_the_line_shows(tmp_path):
    """An error's attributes read as its one line does (6b4d58f escaped only
    the string): a node name holding a newline is ``B\\nC`` in ``message``
    too, and ``file:line: field: message`` rebuilt from the attributes is
    ``str(err)``. The same for an error made on the Python side (an unknown
    key of the [sweep] table, named in the field), which was two lines."""
    cases = [
        (one_link().replace('to = "B"', 'to = "B\\nC"'), "flow[0].to", '"B\\nC"', airtcp.load),
        (one_link().replace('rate = "10Mbps"', 'rate = "10\\nMbps"'), "link[0].rate", "10\\nMbps", airtcp.load),
        (one_link(tail='[sweep]\n"a\\nb" = 1\n'), "sweep.a\\nb", "unknown key", airtcp.sweep),
    ]
    for k, (text, field, words, call) in enumerate(cases):
        path = tmp_path / f"bad{k}\t.toml"
        path.write_text(text)
        with pytest.raises(airtcp.ScenarioError) as ei:
            call(path)
        e = ei.value
        assert e.file == str(path).replace("\t", "\\t")
        assert e.field == field and words in e.message, str(e)
        assert _control_free(e.file, e.field, e.message), repr((e.file, e.field, e.message))
        at = "" if e.line is None else f":{e.line}"
        assert str(e) == f"{e.file}{at}: {e.field}: {e.message}"
        if call is airtcp.sweep:
            p = run_cli("sweep", path, "--out", tmp_path / "out")
            assert p.returncode == 2 and len(p.stderr.splitlines()) == 1, p.stderr


def _flood(budget):
    """20 UDP floods, each ten times faster than its 1 Mb/s link with a
    1,000-packet queue: 20,000 packets queued at once, beyond the static
    estimate (which counts the largest queue only)."""
    text = f'[simulation]\nduration = "20s"\nseed = 1\n{budget}\n'
    for i in range(20):
        text += (
            f'[[link]]\na = "s{i}"\nb = "d{i}"\nrate = "1Mbps"\ndelay = "1ms"\n'
            'queue = { kind = "droptail", limit = "1000pkt" }\n'
            f'[[flow]]\nname = "u{i}"\nfrom = "s{i}"\nto = "d{i}"\n'
            'app = { kind = "onoff", rate = "10Mbps", packet_size = "1000B", '
            'mean_on = "1000s", mean_off = "1ms" }\n'
        )
    return text


def test_a_run_that_outgrows_the_memory_budget_is_a_scenario_error(tmp_path):
    """The budget holds while the run goes: the API raises ScenarioError
    naming simulation.memory_budget, the CLI exits 2 with that one line,
    and the capture and trace of the run it stopped are removed."""
    path = tmp_path / "flood.toml"
    path.write_text(_flood('memory_budget = "3MB"'))
    sc = airtcp.load(path)  # the static estimate passes
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.run(sc)
    e = ei.value
    assert e.field == "simulation.memory_budget", str(e)
    assert e.message.startswith("the run outgrew the memory budget of 3.0 MB"), str(e)
    assert "\n" not in str(e)
    # Stopped midway, the run leaves no capture or trace (docs/capture.md).
    p = run_cli("run", path, "--out", tmp_path / "out", "--pcap", "s0->d0", "--trace")
    assert p.returncode == 2, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and ": simulation.memory_budget: the run outgrew" in lines[0], p.stderr
    assert os.listdir(tmp_path / "out") == []
    ok = tmp_path / "ok.toml"
    ok.write_text(_flood(""))
    assert len(airtcp.run(airtcp.load(ok)).flows) == 20
