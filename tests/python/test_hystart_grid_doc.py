"""docs/tcp-conformance.md's measured comparison of HyStart++ with RFC 5681
slow start ("HyStart++ beside RFC 5681 slow start"): the table and the
traced path's figures are what scripts/hystart_delack_grid.py gives with
this build (the runs are deterministic), so the page cannot drift from the
code."""

import importlib.util
import re

import pytest

import airtcp
from conftest import REPO

DOC = REPO / "docs" / "tcp-conformance.md"


@pytest.fixture(scope="module")
def grid():
    spec = importlib.util.spec_from_file_location("hystart_delack_grid", REPO / "scripts" / "hystart_delack_grid.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def section():
    text = DOC.read_text()
    start = text.index("### HyStart++ beside RFC 5681 slow start")
    return text[start : text.index("\n## ", start)]


def test_the_pages_table_is_what_the_grid_gives(grid):
    summary = grid.paired_summary(grid.run_grid())
    names = {"queue drops": "queue_drops", "timeouts": "timeouts", "completion time, s": "completion_s"}
    rows = [line for line in section().splitlines() if line.startswith("| on") or line.startswith("| off")]
    assert len(rows) == 6, rows
    for line in rows:
        cells = [c.strip() for c in line.strip("|").split("|")]
        delack = cells[0].startswith("on")
        got = summary[(summary.delayed_ack == delack) & (summary.metric == names[cells[1]])].iloc[0]
        decimals = len(cells[2].split(".")[1])
        assert cells[2] == f"{got.rfc5681:.{decimals}f}", line
        assert cells[3] == f"{got.hystart:.{decimals}f}", line
        diff = re.fullmatch(r"([+-][\d.]+) \[([+-][\d.]+), ([+-][\d.]+)\]", cells[4])
        assert diff, line
        places = len(diff.group(1).split(".")[1])
        for text, value in zip(diff.groups(), (got.difference, got.low, got.high)):
            assert text == f"{value:+.{places}f}", line
        assert cells[5] == f"{got.paths_more} / {got.paths_less}", line


def test_the_traced_paths_figures(grid):
    """50 Mb/s, 20 ms, a buffer of one bandwidth-delay product, delayed
    ACKs: when the queue is first full, the peak cwnd before the first
    loss is detected (ssthresh set), and the drops over the transfer."""
    text = section()
    figures = {}
    for ss in ("hystart++", "rfc5681"):
        limit, sc = grid.scenario(50, 20, 1.0, True, ss)
        assert limit == 252
        sc["output"] = {"timeseries": {"interval": "1ms"}}
        r = airtcp.run(sc)
        s = r.series
        queue = s[(s.name == "R->D") & (s.metric == "queue_pkts")]
        cwnd = s[(s.name == "flow0") & (s.metric == "cwnd_bytes")]
        loss_s = s[(s.name == "flow0") & (s.metric == "ssthresh_bytes")].dropna().time_s.iloc[0]
        full_s = queue[queue.value >= limit].time_s.iloc[0]
        figures[ss] = (
            full_s,
            cwnd[cwnd.time_s <= full_s].value.iloc[-1],
            cwnd[cwnd.time_s < loss_s].value.max(),
            loss_s,
            r.flows.iloc[0].drops_queue,
        )
    hy, std = figures["hystart++"], figures["rfc5681"]
    assert f"first full\n  at {hy[0]:.3f} s with cwnd {hy[1] / 1000:.0f} KB" in text, hy
    assert f"cwnd reaches {hy[2] / 1000:,.0f} KB before the first\n  loss is detected at {hy[3]:.3f} s" in text, hy
    assert f"RFC 5681's queue is first\n  full at {std[0]:.3f} s, with cwnd {std[1] / 1000:.0f} KB" in text, std
    assert f"its cwnd peaks at {std[2] / 1000:.0f} KB (loss\n  detected at {std[3]:.3f} s)" in text, std
    assert f"{hy[4]:,} packets are dropped\n  against {std[4]:,}" in text, (hy[4], std[4])
