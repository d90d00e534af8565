"""The plotting helpers draw the common figures from a result."""

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

import airtcp  # noqa: E402
from airtcp import plots  # noqa: E402

from conftest import EXAMPLES  # noqa: E402


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    import tomllib

    d = tomllib.loads((EXAMPLES / "wireless.toml").read_text())
    d["simulation"]["duration"] = "10s"
    d["output"] = {"timeseries": {"interval": "100ms"}}
    return airtcp.run(d, trace=True, out_dir=tmp_path_factory.mktemp("plots"))


def test_each_figure_draws_its_data(result):
    ax = plots.cwnd(result)
    labels = [l.get_label() for l in ax.get_lines()]
    assert labels == ["flow0 cwnd", "flow0 ssthresh"]
    assert plots.goodput(result).get_lines()[0].get_label() == "flow0"
    queued = [l.get_label() for l in plots.queue(result).get_lines()]
    assert "base_station->mobile" in queued and "mobile->base_station" not in queued, "idle queues left out"
    ax = plots.time_sequence(result, until_s=3.0)
    lines = {l.get_label(): l for l in ax.get_lines()}
    assert set(lines) == {"sent", "retransmitted", "dropped (channel)", "ACK at sender"}
    t = result.trace
    lost = t[(t.event == "drop") & (t.time_s <= 3.0)]
    assert len(lines["dropped (channel)"].get_xdata()) == len(lost) > 0


def test_missing_series_or_trace_says_what_to_add(wireless):
    r = airtcp.run(wireless)
    with pytest.raises(ValueError, match=r"add \[output.timeseries\]"):
        plots.cwnd(r)
    with pytest.raises(ValueError, match="trace=True"):
        plots.time_sequence(r)


def test_a_name_or_seed_the_result_lacks_is_an_error_naming_it(result):
    """A misspelt flow or link, or a seed the result does not hold, drew an
    empty figure (time_sequence) or said "add [output.timeseries]" to a
    result that has it (cwnd, goodput, queue): each is a ValueError naming
    what is missing and what there is."""
    with pytest.raises(ValueError, match=r"no flow named 'nope' in this result \(flows: flow0\)"):
        plots.cwnd(result, flows="nope")
    with pytest.raises(ValueError, match=r"no flow named 'nope'"):
        plots.goodput(result, flows=["flow0", "nope"])
    with pytest.raises(ValueError, match=r"no link named 'x->y' in this result \(links: .*base_station->mobile"):
        plots.queue(result, links="x->y")
    with pytest.raises(ValueError, match=r"no flow named 'nope' in this result \(flows: flow0\)"):
        plots.time_sequence(result, flow="nope")
    other = result.seed + 1
    with pytest.raises(ValueError, match=rf"seed {other} is not in this result: it is a run of seed {result.seed}"):
        plots.cwnd(result, seed=other)
    with pytest.raises(ValueError, match=rf"seed {other} is not in this trace"):
        plots.time_sequence(result, seed=other)
    assert plots.cwnd(result, seed=result.seed).get_lines()
    with pytest.raises(ValueError, match=r"need 0 <= since_s <= until_s"):
        plots.time_sequence(result, since_s=2.0, until_s=1.0)


def test_a_seed_outside_several_seeds_is_an_error():
    import tomllib

    d = tomllib.loads((EXAMPLES / "wireless.toml").read_text())
    d["simulation"]["duration"] = "1s"
    d["output"] = {"timeseries": {"interval": "100ms"}}
    r = airtcp.run_many(d, seeds=[1, 2], progress=False)
    with pytest.raises(ValueError, match=r"seed 3 is not in this result \(its seeds: 1, 2\)"):
        plots.goodput(r, seed=3)
    assert plots.goodput(r, seed=2).get_lines()


# A repeated download (5 transfers of 50 KB, 0.5 s apart) sharing a RED
# bottleneck with a bulk flow, then over a lossy hop: some of its
# connections set ssthresh, and one (the second) ends still in slow start.
REPEATED = {
    "simulation": {"duration": "8s", "seed": 3},
    "link": [
        {"a": "S1", "b": "R1", "rate": "100Mbps", "delay": "2ms"},
        {
            "a": "R1",
            "b": "R2",
            "rate": "10Mbps",
            "delay": "20ms",
            "queue": {"kind": "red", "limit": "40pkt", "min_th": 5, "max_th": 15, "max_p": 0.1, "gentle": True, "ecn": True},
        },
        {"a": "R2", "b": "D1", "rate": "100Mbps", "delay": "2ms"},
        {
            "a": "R2",
            "b": "D2",
            "rate": "5Mbps",
            "delay": "3ms",
            "a_to_b": {"error": {"kind": "bernoulli", "per": 0.02, "applies_to": "data"}},
        },
    ],
    "flow": [
        {"name": "bulk", "from": "S1", "to": "D1", "tcp": {"variant": "sack", "ecn": True}, "app": {"kind": "bulk"}},
        {
            "name": "web",
            "from": "S1",
            "to": "D2",
            "start": "1s",
            "tcp": {"variant": "reno", "handshake": True, "timestamps": True},
            "app": {"kind": "repeated", "size": "50KB", "think": "0.5s", "count": 5},
        },
    ],
    "output": {"timeseries": {"interval": "100ms"}},
}


def test_cwnd_and_time_sequence_draw_each_connection_apart():
    """A repeated flow opens a connection per transfer (transfers table:
    `start_s` "when the transfer's connection opened", `end_s` when its
    last byte was acknowledged). Between them there is no cwnd (the series
    has no row), and a new connection's ssthresh is the initial "arbitrarily
    high" value (RFC 5681 §3.1; results.md, `ssthresh_bytes`: "no row while
    it is still the initial value"). So every line the cwnd figure draws
    lies within one connection, no ssthresh is drawn during a connection
    that has none, and the time-sequence diagram's ACK line never joins one
    connection's byte offsets to the next's."""
    r = airtcp.run(REPEATED, trace=True)
    web = r.flows.set_index("name").loc["web"]
    transfers = r.transfers[r.transfers.flow == web.flow]
    assert web.transfers_completed == len(transfers) == 5
    spans = list(zip(transfers.start_s, transfers.end_s))

    def connection_of(line):
        x = line.get_xdata()
        inside = [i for i, (a, b) in enumerate(spans) if a <= min(x) and max(x) <= b]
        assert inside, f"{line.get_label()} drawn over {min(x)}..{max(x)}, outside every connection {spans}"
        return inside[0]

    ax = plots.cwnd(r, flows="web")
    drawn = [(connection_of(line), line.get_linestyle()) for line in ax.get_lines()]
    assert {k for k, style in drawn if style == "-"} == set(range(5)), "each connection's cwnd is drawn"
    s = r.series[(r.series.name == "web") & (r.series.metric == "ssthresh_bytes")]
    without = [k for k, (a, b) in enumerate(spans) if not s.time_s.between(a, b).any()]
    assert without, "a connection that never left slow start"
    assert not [k for k, style in drawn if style == "--" and k in without]

    ax = plots.time_sequence(r, flow="web")
    green = [line for line in ax.get_lines() if line.get_color() == "tab:green"]
    assert sorted(connection_of(line) for line in green) == list(range(5))
    assert all((line.get_ydata()[1:] >= line.get_ydata()[:-1]).all() for line in green), "cumulative ACKs only rise"
