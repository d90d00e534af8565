import os
import re

import pandas as pd
import pytest

import airtcp
from airtcp import _core
from conftest import run_cli

FLOW_COLUMNS = [
    "flow", "name", "src", "dst", "protocol", "variant", "app", "start_s", "end_s",
    "delivered_bytes", "goodput_bps", "throughput_bps", "segments_sent", "bytes_sent",
    "retransmitted_segments", "retransmitted_bytes", "duplicate_bytes_received", "duplicate_acks_sent",
    "timeouts", "spurious_timeouts", "spurious_timeouts_detected", "fast_retransmits", "ecn_reductions",
    "non_congestion_losses", "drops_queue", "drops_aqm", "drops_channel", "drops_ttl",
    "drops_agent", "drops_no_route", "ack_drops", "ecn_marks", "transfers_completed",
    "mean_rtt_s", "min_rtt_s", "mean_first_rto_s", "mean_cwnd_bytes", "final_cwnd_bytes", "final_ssthresh_bytes",
    "loss_congestion_as_congestion", "loss_congestion_as_wireless",
    "loss_wireless_as_congestion", "loss_wireless_as_wireless",
    "loss_other_as_congestion", "loss_other_as_wireless", "wireless_losses_halved",
    "wireless_losses_halved_by_dupacks", "wireless_losses_cut", "wireless_losses_cut_by_dupacks",
    "loss_cuts_blocked_once_per_rtt",
    "wireless_halvings_blocked_once_per_rtt",
    "kicks_sent", "kickbacks_received", "stale_kickbacks",
]
LINK_COLUMNS = [
    "link", "name", "from", "to", "rate_bps", "delay_s", "packets_sent", "bytes_sent",
    "utilization", "drops_queue", "drops_aqm", "drops_channel", "drops_ttl", "drops_agent",
    "drops_no_route", "ecn_marks", "mean_queue_pkts", "max_queue_pkts",
]
TRANSFER_COLUMNS = ["flow", "index", "start_s", "end_s", "bytes", "response_s"]
AGENT_COLUMNS = ["node", "agent", "counter", "value"]
SERIES_COLUMNS = ["time_s", "kind", "name", "metric", "value"]


def test_public_api():
    for name in ["load", "run", "run_many", "jain_fairness", "Scenario", "Result", "ScenarioError", "__version__"]:
        assert hasattr(airtcp, name), name
    assert airtcp.ScenarioError is _core.ScenarioError
    assert issubclass(airtcp.ScenarioError, ValueError)
    assert airtcp.__version__ == _core.__version__
    assert airtcp.__version__.count(".") == 2


def test_wireless_run(wireless):
    r = airtcp.run(wireless)
    assert r.seed == 1 and r.seeds == [1]
    assert r.duration_s == 60.0
    assert r.events > 0 and r.packet_hops > 0
    for df in (r.flows, r.links, r.transfers, r.agents, r.series):
        assert isinstance(df, pd.DataFrame)
    assert list(r.flows.columns) == FLOW_COLUMNS
    assert list(r.links.columns) == LINK_COLUMNS
    assert list(r.transfers.columns) == TRANSFER_COLUMNS
    assert list(r.agents.columns) == AGENT_COLUMNS
    assert list(r.series.columns) == SERIES_COLUMNS

    (flow,) = r.flows.itertuples(index=False)
    assert flow.src == "server" and flow.dst == "mobile" and flow.protocol == "tcp"
    assert flow.delivered_bytes > 0
    assert 0 < flow.goodput_bps <= 2e6
    assert flow.drops_channel > 0
    assert flow.retransmitted_segments >= flow.drops_channel
    assert 0.05 < flow.min_rtt_s <= flow.mean_rtt_s < 1

    assert len(r.links) == 4  # two links, both directions
    wl = r.links.set_index("name").loc["base_station->mobile"]
    assert wl.drops_channel > 0
    assert wl.rate_bps == 2_000_000
    assert wl.delay_s == pytest.approx(0.005)
    assert r.links.utilization.between(0, 1).all()
    assert r.links.set_index("name").loc["mobile->base_station"].drops_channel == 0  # ACKs cross unharmed

    # Integer counters are integers, names are strings; a count that may be
    # missing is a float whether or not it is.
    assert str(r.flows.delivered_bytes.dtype) == "uint64"
    assert r.flows.final_ssthresh_bytes.dtype == "float64" and 2000 <= flow.final_ssthresh_bytes < 1e6
    assert r.flows.goodput_bps.dtype == "float64"
    assert "summary" in dir(r)
    s = r.summary()
    assert "flow0" in s and "goodput" in s and "base_station->mobile" in s


def test_empty_tables_keep_typed_columns(wireless):
    r = airtcp.run(wireless)
    assert r.transfers.empty and list(r.transfers.columns) == TRANSFER_COLUMNS
    assert r.transfers.response_s.dtype == "float64"
    assert r.series.empty and list(r.series.columns) == SERIES_COLUMNS


def test_load_dict_and_scenario_object(wireless):
    sc = airtcp.load(wireless)
    assert (sc.nodes, sc.links, sc.flows, sc.seed, sc.duration_s) == (3, 2, 1, 1, 60.0)
    assert sc.source_name == str(wireless)
    assert airtcp.load(sc) is sc
    d = {
        "simulation": {"duration": "5s", "seed": 9},
        "link": [{"a": "A", "b": "B", "rate": "1Mbps", "delay": "10ms"}],
        "flow": [{"from": "A", "to": "B", "app": {"kind": "bulk"}}],
    }
    sc2 = airtcp.load(d)
    assert sc2.source_name == "<dict>" and sc2.seed == 9
    r = airtcp.run(d)
    assert r.seed == 9 and r.flows.goodput_bps[0] > 0.5e6
    # A seed argument overrides the file's.
    assert airtcp.run(d, seed=4).seed == 4


def test_timeseries(dumbbell):
    """Series keyed by name with a kind, units in the metric names, no
    sentinel; goodput over time adds up to the delivered bytes; the wide
    form has NaN where a sample has no value."""
    import tomllib

    d = tomllib.loads(dumbbell.read_text())
    d["simulation"]["duration"] = "5s"
    d["output"] = {"timeseries": {"interval": "100ms"}}
    r = airtcp.run(d)
    s = r.series
    assert list(s.columns) == SERIES_COLUMNS
    assert set(s.metric) == {
        "cwnd_bytes", "cwnd_without_inflation_bytes", "ssthresh_bytes", "srtt_s", "rtt_s", "goodput_bps",
        "throughput_bps", "queue_pkts", "red_avg_pkts",
    }
    assert set(s[s.kind == "flow"].name) == {"ecn", "plain"}
    assert set(s[s.kind == "link"].name) == set(r.links.name)
    assert s.value.notna().all()
    assert s[s.metric == "ssthresh_bytes"].value.max() < 1e7, "never the 'arbitrarily high' sentinel"
    g = s[s.metric == "goodput_bps"]
    for name, delivered in zip(r.flows.name, r.flows.delivered_bytes):
        assert g[g.name == name].value.sum() * 0.1 / 8 == pytest.approx(delivered, rel=1e-9)
    w = r.series_wide()
    assert w.index.name == "time_s" and ("ecn", "cwnd_bytes") in w.columns
    cw = r.series_wide("cwnd_bytes")
    assert list(cw.columns) == ["ecn", "plain"]
    assert cw.loc[:0.9, "plain"].isna().all() and cw.loc[1.1:, "plain"].notna().all(), "plain starts at 1 s"
    assert list(r.series_wide("queue_pkts", kind="link").columns) == list(r.links.name)
    with pytest.raises(ValueError, match="no 'cwnd' series"):
        r.series_wide("cwnd")
    html = r._repr_html_()
    assert html.count("<table>") == 2 and "ecn" in html and "R1-&gt;R2" in html


def test_progress_callback_and_stop(wireless):
    seen = []
    airtcp.run(wireless, progress=seen.append)
    assert len(seen) >= 55 and seen == sorted(seen) and 1.0 <= seen[0] < 2.0

    def stop(t):
        if t >= 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        airtcp.run(wireless, progress=stop)

    def boom(t):
        raise ZeroDivisionError("from callback")

    with pytest.raises(ZeroDivisionError, match="from callback"):
        airtcp.run(wireless, progress=boom)


def test_progress_bar(wireless, capsys):
    r = airtcp.run(wireless, progress=True)
    assert r.flows.delivered_bytes[0] > 0


def test_run_many_serial_interrupt_keeps_finished(wireless, monkeypatch):
    from airtcp import api

    real = _core.run
    calls = []

    def fake(scenario, seed, progress, *observe):
        calls.append(seed)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(scenario, seed, progress, *observe)

    monkeypatch.setattr(api._core, "run", fake)
    with pytest.warns(RuntimeWarning, match="2 of 5 runs finished"):
        r = airtcp.run_many(wireless, seeds=[5, 6, 7, 8, 9], workers=1, progress=False)
    assert r.seeds == [5, 6] and r.seed is None
    assert list(r.flows.seed) == [5, 6]


def test_run_many_nothing_finished_keeps_columns(wireless, monkeypatch):
    from airtcp import api

    def fake(*a):
        raise KeyboardInterrupt

    monkeypatch.setattr(api._core, "run", fake)
    with pytest.warns(RuntimeWarning, match="0 of 2"):
        r = airtcp.run_many(wireless, seeds=[1, 2], workers=1, progress=False)
    assert r.flows.empty and list(r.flows.columns) == ["seed"] + FLOW_COLUMNS


def test_bad_arguments(wireless):
    with pytest.raises(TypeError):
        airtcp.load(42)
    with pytest.raises(ValueError):
        airtcp.run(wireless, seed=-1)
    with pytest.raises(ValueError):
        airtcp.run_many(wireless, [1], workers=0)


def test_jain_fairness():
    assert airtcp.jain_fairness([1, 1, 1]) == 1.0
    assert airtcp.jain_fairness([3.0, 1.0]) == pytest.approx(0.8)
    assert airtcp.jain_fairness([1.0, 0.0]) == pytest.approx(0.5)
    assert airtcp.jain_fairness(x for x in [2.0, 2.0]) == 1.0


def test_jain_fairness_takes_any_finite_scale_and_refuses_what_is_not_a_share():
    """The index is scale-free (Jain, Chiu and Hawe 1984, property 2): two
    equal shares of 1e308 are as fair as two of 1, though their squares
    overflow (it was NaN). Shares are amounts: a negative one gave numbers
    that look like indices ([1, -1] is 0.0, [3, -1] is 0.4) and an infinite
    one NaN without a word; both raise ValueError naming the share."""
    import math

    assert airtcp.jain_fairness([1e308, 1e308]) == 1.0
    assert airtcp.jain_fairness([3e300, 1e300]) == pytest.approx(0.8)
    for bad in ([1.0, -1.0], [3.0, -1.0], [1.0, math.inf]):
        with pytest.raises(ValueError, match=r"share 1 is .*finite shares >= 0"):
            airtcp.jain_fairness(bad)
    assert math.isnan(airtcp.jain_fairness([1.0, math.nan]))


def test_jain_fairness_of_nothing_is_nan_for_every_caller():
    """Nothing to share (no flows, or every flow at zero goodput): the
    index is 0/0, NaN, never 1.0 ("perfectly fair"), and the G-Snoop
    reproduction, which had its own copy of the formula, uses this one."""
    import math

    import pyarrow as pa

    from airtcp.experiments import gsnoop

    assert math.isnan(airtcp.jain_fairness([]))
    assert math.isnan(airtcp.jain_fairness([0.0, 0.0, 0.0]))

    class Res:
        def __init__(self, delivered):
            n = len(delivered)
            zeros = [0] * n
            self.tables = {
                "flows": pa.table(
                    {"delivered_bytes": delivered, "timeouts": zeros, "fast_retransmits": zeros,
                     "drops_channel": zeros, "drops_queue": zeros}
                ),
                "agents": pa.table({"agent": pa.array([], pa.string()), "counter": pa.array([], pa.string()),
                                    "value": pa.array([], pa.uint64())}),
            }

    p = {"duration_s": 10.0, "packet_bytes": 1000}
    assert math.isnan(gsnoop.metrics(Res([0, 0]), {}, "tcp", p)["fairness"])
    assert gsnoop.metrics(Res([3000, 1000]), {}, "tcp", p)["fairness"] == pytest.approx(0.8)


def test_docstring_examples(monkeypatch):
    import doctest

    from conftest import REPO

    import airtcp.api
    import airtcp.bench

    monkeypatch.chdir(REPO)
    for mod in (airtcp, airtcp.api, airtcp.bench):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert res.failed == 0, mod.__name__
        assert res.attempted > 0 or mod is airtcp.bench


def test_scenario_error_pickles():
    import pickle

    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.load({"simulation": {"duration": "1s"}, "link": []})
    e2 = pickle.loads(pickle.dumps(ei.value))
    assert type(e2) is airtcp.ScenarioError
    assert str(e2) == str(ei.value) and e2.field == "link" and e2.file == "<dict>"


def test_summary_caps_long_tables():
    from airtcp.bench import dumbbell

    r = airtcp.run_many(dumbbell(30, "100Mbps", 0.5), [1, 2], workers=1, progress=False)
    s = r.summary(max_rows=5)
    assert "2 seeds" in s and "means over seeds" in s
    assert "... 25 more flows" in s
    assert "(the 5 busiest of 122 link directions)" in s
    assert "R1->R2" in s  # the bottleneck is among the busiest
    assert len(r.summary(max_rows=None).splitlines()) > 60
    assert re.search(r"\.\.\. 1 more flow(?!s)", r.summary(max_rows=29))


@pytest.mark.parametrize("seeds", [None, list(range(1, 8))], ids=["one-run", "seven-seeds"])
def test_tables_from_the_core_buffers_are_pyarrows_own_of_the_columns(awkward, seeds):
    """Result.tables (built from the core's Arrow buffers) hold exactly
    what pyarrow makes of the plain columns: the same schema, the same
    nulls (missing counts, past a byte of the validity bitmap with seven
    seeds), NaN where the columns have NaN, names in order; and an
    unpickled Result, which has only the columns, gives the same
    DataFrames."""
    import pickle

    from airtcp.api import TABLES, _arrow_table

    r = airtcp.run(awkward) if seeds is None else airtcp.run_many(awkward, seeds, workers=2, progress=False)
    nulls = 0
    for t in TABLES:
        ours, theirs = r.tables[t], _arrow_table(r.columns[t], r._schema[t])
        assert ours.schema == theirs.schema, t
        assert [c.null_count for c in ours.columns] == [c.null_count for c in theirs.columns], t
        pd.testing.assert_frame_equal(ours.to_pandas(), theirs.to_pandas())
        nulls += sum(c.null_count for c in ours.columns)
    assert nulls > (8 if seeds else 0)
    assert r.flows.mean_rtt_s.isna().any() and len(r.series) > 0
    again = pickle.loads(pickle.dumps(r))
    for t in TABLES:
        pd.testing.assert_frame_equal(getattr(again, t), getattr(r, t))


@pytest.mark.parametrize("fmt", ["csv", "parquet", "json"])
def test_what_does_not_apply_to_a_udp_flow_is_missing_in_every_format(awkward, tmp_path, fmt):
    """docs/results.md: "A value that does not exist (an RTT without
    samples, a UDP flow's TCP variant or congestion window) is missing (NaN
    or null), never a sentinel number or an empty name": in the DataFrame
    and read back from each format the UDP flow's variant, mean and final
    cwnd are missing (an empty variant read back from CSV could not be told
    from a missing one; a cwnd of 0 would pass for a measured one), the
    TCP flows' are there."""
    out = tmp_path / fmt
    p = run_cli("run", awkward, "--out", out, "--format", fmt, "--quiet")
    assert p.returncode == 0, p.stderr
    read = {"csv": pd.read_csv, "parquet": pd.read_parquet, "json": pd.read_json}[fmt]
    for flows in (airtcp.run(awkward).flows, read(out / f"flows.{fmt}")):
        udp = flows.protocol == "udp"
        assert udp.sum() == 1 and (~udp).sum() == 2
        for column in ("variant", "mean_cwnd_bytes", "final_cwnd_bytes"):
            assert flows[column][udp].isna().all(), column
        assert flows.variant[~udp].notna().all() and flows.mean_cwnd_bytes[~udp].gt(0).all()


def test_summary_numbers_are_the_means_over_seeds_of_the_tables():
    """Result.summary's documented contents, checked against the
    DataFrames (pandas, not the summary's own code): with several seeds,
    each flow's goodput and drops (the sum of its drops_* columns) are
    means over the seeds; a capped table lists the first flows of the full
    one, and the busiest link directions by mean utilization, in order."""
    from airtcp.bench import dumbbell

    r = airtcp.run_many(dumbbell(12, "10Mbps", 1.0), [1, 2, 3], workers=1, progress=False)
    flows = r.flows.assign(drops=r.flows.filter(like="drops_").sum(axis=1))
    means = flows.groupby("name", sort=False)[["goodput_bps", "drops"]].mean()

    def table_rows(text, header):
        lines = text.splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith(header)) + 2
        end = next((i for i in range(start, len(lines)) if not lines[i]), len(lines))
        return [line.split() for line in lines[start:end]]

    full = table_rows(r.summary(max_rows=None), "flow ")
    assert [row[0] for row in full] == [f"f{i}" for i in range(12)]
    for name, _path, _tcp, goodput_mbps, _retx, _timeouts, drops, _rtt in full:
        assert goodput_mbps == f"{means.goodput_bps[name] / 1e6:.3f}"
        assert float(drops.replace(",", "")) == pytest.approx(means.drops[name], abs=0.05)
    capped = table_rows(r.summary(max_rows=4), "flow ")
    assert capped[:4] == full[:4] and capped[4] == ["...", "8", "more", "flows"]

    util = r.links.groupby("name", sort=False).utilization.mean()
    busiest = set(util[util > 0].nlargest(4).index)
    summary = r.summary(max_rows=4)
    assert f"(the 4 busiest of {len(util)} link directions)" in summary
    listed = [row[0] for row in table_rows(summary, "link ") if not row[0].startswith("(the")]
    assert set(listed) == busiest
    in_table_order = [n for n in util.index if n in busiest]
    assert listed == in_table_order


def test_error_without_line_and_empty_run_many(wireless):
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.load({"simulation": {"duration": "1s"}, "link": []})
    assert ei.value.line is None and ei.value.field == "link"
    assert str(ei.value) == "<dict>: link: a scenario needs at least one [[link]]"
    # Without a flow nothing is simulated: the run said "0 events ... no flows", exit 0.
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.load({"simulation": {"duration": "1s"}, "link": [{"a": "A", "b": "B", "rate": "1Mbps", "delay": "1ms"}]})
    assert ei.value.line is None and ei.value.field == "flow"
    assert str(ei.value) == "<dict>: flow: a scenario needs at least one [[flow]]"
    # No seed is no result: refused, as the CLI refuses --runs 0 and a sweep
    # seeds = [] (it returned an empty Result without a word).
    for seeds in ([], iter([]), range(5, 5)):
        with pytest.raises(ValueError, match=r"^seeds: empty: run_many needs at least one seed$"):
            airtcp.run_many(wireless, seeds, progress=False)



def test_run_many_keeps_a_run_finished_but_not_handed_over_at_ctrl_c(wireless, monkeypatch):
    """Issue 12, "Ctrl-C still keeps what finished", on threads: when
    Ctrl-C comes, two runs (or more) have finished and one of them is not
    yet handed over (the main thread is busy with the other's). All are
    returned, in the order of the seeds, identical to a serial run; the
    warning counts them (the documented contract: what finished, with a
    RuntimeWarning)."""
    import sys

    if sys.platform == "win32":
        pytest.skip("POSIX signals")
    from airtcp import api
    from ctrl_c_after_two_runs import watch

    w = watch(api, monkeypatch.setattr)
    seeds = [5, 6, 7, 8, 9, 10]
    with pytest.warns(RuntimeWarning, match=r"interrupted: \d of 6 runs finished") as warned:
        r = airtcp.run_many(wireless, seeds=seeds, workers=2, progress=False)
    assert len(w.at_sigint) >= 2 and set(w.at_sigint) <= set(r.seeds)
    assert r.seeds == [s for s in seeds if s in w.finished] and len(r.seeds) < len(seeds)
    assert f"{len(r.seeds)} of 6 runs finished" in str(warned[0].message)
    monkeypatch.undo()
    serial = airtcp.run_many(wireless, seeds=r.seeds, workers=1, progress=False)
    pd.testing.assert_frame_equal(r.flows, serial.flows)


def test_run_many_removes_the_files_of_the_runs_ctrl_c_stopped_midway(wireless, tmp_path, monkeypatch):
    """run_many with captures and traces, Ctrl-C once two runs have
    finished and another is midway (held there, its files open, until the
    SIGINT is sent): the finished runs keep their files; every run that
    had started and did not finish leaves none (docs/capture.md, "Ctrl-C"),
    and the warning and Result.removed_files say which."""
    import sys

    if sys.platform == "win32":
        pytest.skip("POSIX signals")
    from airtcp import api
    from ctrl_c_after_two_runs import watch

    w = watch(api, monkeypatch.setattr)
    seeds = [5, 6, 7, 8, 9, 10]
    with pytest.warns(RuntimeWarning) as warned:
        r = airtcp.run_many(
            wireless, seeds=seeds, workers=2, progress=False,
            pcap="base_station<->mobile", trace=True, out_dir=tmp_path,
        )
    stopped = sorted(s for s in w.started if s not in r.seeds)
    assert set(w.midway) - set(r.seeds) and r.seeds == sorted(w.finished)
    files = lambda ss: sorted(  # noqa: E731
        [f"capture-base_station--mobile-seed{s}.pcapng" for s in ss] + [f"trace-seed{s}.parquet" for s in ss]
    )
    assert sorted(os.listdir(tmp_path)) == files(r.seeds)
    assert sorted(os.path.basename(f) for _, f in r.removed_files) == files(stopped)
    assert [s for s, _ in r.removed_files] == sorted(stopped + stopped)
    n = len(stopped)
    assert str(warned[0].message) == (
        f"interrupted: {len(r.seeds)} of 6 runs finished; returning those (the partial capture and trace "
        f"files of {n} run{'s' if n != 1 else ''} stopped midway were removed)"
    )


@pytest.mark.parametrize("stop", [KeyboardInterrupt, ZeroDivisionError])
def test_a_run_that_does_not_reach_its_end_leaves_no_capture_or_trace(wireless, tmp_path, stop):
    """airtcp.run stopped at 5 simulated seconds (Ctrl-C, or an exception
    raised by progress): the exception is raised, and the capture and the
    trace, created before the run, are gone."""

    def progress(t):
        if t >= 5:
            raise stop

    with pytest.raises(stop):
        airtcp.run(wireless, progress=progress, pcap="base_station<->mobile", trace=True, out_dir=tmp_path)
    assert os.listdir(tmp_path) == []
    r = airtcp.run(wireless, pcap="base_station<->mobile", trace=True, out_dir=tmp_path)
    assert sorted(os.listdir(tmp_path)) == ["capture-base_station--mobile.pcapng", "trace.parquet"]
    assert r.captures[0][1] > 0


def test_a_stopped_run_leaves_a_fifo_it_wrote_to(wireless, tmp_path):
    """Only regular files are removed: a FIFO given as the capture (read
    live by Wireshark) stays, as does a device (never tried here)."""
    import sys
    import threading

    if sys.platform == "win32":
        pytest.skip("POSIX FIFOs")
    fifo = tmp_path / "live.pcapng"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))  # noqa: SIM115
    reader.start()

    def progress(t):
        if t >= 5:
            raise KeyboardInterrupt

    try:
        with pytest.raises(KeyboardInterrupt):
            airtcp.run(wireless, progress=progress, pcap={"base_station<->mobile": fifo})
    finally:
        reader.join(60)
    assert fifo.is_fifo() and got[0][:4] == b"\x0a\x0d\x0d\x0a"  # a pcapng section header came through


@pytest.mark.parametrize("workers", [1, 2])
def test_run_many_ctrl_c_once_every_run_has_finished_stops_nothing(wireless, monkeypatch, workers):
    """A real SIGINT while the last run is handed over (every run has
    finished): nothing was stopped, so the whole result is returned, with
    no warning, as if Ctrl-C had come a moment later (README, "Exit
    status": what is interrupted is what did not finish)."""
    import sys
    import warnings

    if sys.platform == "win32":
        pytest.skip("POSIX signals")
    from airtcp import api
    from ctrl_c_at_the_end import SigintAtTheEnd

    monkeypatch.setattr(api, "_bar", lambda disable=False, **kw: SigintAtTheEnd(**kw))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        r = airtcp.run_many(wireless, seeds=[5, 6, 7], workers=workers, progress=False)
    assert r.seeds == [5, 6, 7] and r.removed_files == []
