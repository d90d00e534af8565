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
