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
