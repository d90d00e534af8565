import pandas.testing as pdt
import pytest

import airtcp
from airtcp.bench import same_columns

TABLES = ["flows", "links", "transfers", "agents", "series"]

# A scenario with randomness everywhere (RED, channel errors, think times)
# and a time series, so that every table has rows.
BUSY = {
    "simulation": {"duration": "8s", "seed": 1},
    "link": [
        {"a": "S", "b": "R", "rate": "10Mbps", "delay": "5ms"},
        {
            "a": "R", "b": "D", "rate": "2Mbps", "delay": "20ms",
            "queue": {"kind": "red", "limit": "60pkt", "min_th": 5, "max_th": 15, "gentle": True},
            "a_to_b": {"error": {"kind": "bernoulli", "per": 0.02, "applies_to": "data"}},
        },
    ],
    "flow": [
        {"name": "bulk", "from": "S", "to": "D", "app": {"kind": "bulk"}},
        {
            "name": "web", "from": "S", "to": "D", "tcp": {"variant": "sack"},
            "app": {"kind": "repeated", "size": "20KB", "think": "200ms"},
        },
    ],
    "output": {"timeseries": {"interval": "250ms"}},
}


# BUSY with a Snoop agent before the lossy hop and a short transfer, so
# that every table has rows (agents too) and final_ssthresh_bytes has
# missing values (the short transfer never loses a segment).
EVERY_TABLE = {
    **BUSY,
    "node": [{"name": "R", "agents": [{"kind": "snoop"}]}],
    "flow": [
        *BUSY["flow"],
        {"name": "short", "from": "S", "to": "D", "start": "1s", "app": {"kind": "file", "size": "1KB"}},
    ],
}


def assert_same(a, b):
    for t in TABLES:
        pdt.assert_frame_equal(getattr(a, t), getattr(b, t), obj=t)
    assert (a.events, a.packet_hops, a.duration_s) == (b.events, b.packet_hops, b.duration_s)


def test_same_seed_same_result(wireless):
    assert_same(airtcp.run(wireless, seed=7), airtcp.run(wireless, seed=7))
    a, b = airtcp.run(BUSY, seed=3), airtcp.run(BUSY, seed=3)
    assert not a.transfers.empty and not a.series.empty
    assert_same(a, b)


def test_different_seed_different_result():
    a, b = airtcp.run(BUSY, seed=1), airtcp.run(BUSY, seed=2)
    with pytest.raises(AssertionError):
        pdt.assert_frame_equal(a.flows, b.flows)


@pytest.mark.parametrize("scenario", ["wireless", "busy"])
def test_run_many_parallel_equals_serial(scenario, wireless):
    sc = wireless if scenario == "wireless" else BUSY
    serial = airtcp.run_many(sc, [1, 2, 3], workers=1, progress=False)
    parallel = airtcp.run_many(sc, [1, 2, 3], workers=2, progress=False)
    assert serial.seeds == parallel.seeds == [1, 2, 3]
    assert serial.seed is None
    assert_same(serial, parallel)
    assert list(serial.flows.columns)[0] == "seed"
    # Equal to the single runs, concatenated in seed order.
    for s in [1, 2, 3]:
        one = airtcp.run(sc, seed=s)
        for t in TABLES:
            part = getattr(serial, t)
            part = part[part.seed == s].drop(columns="seed").reset_index(drop=True)
            pdt.assert_frame_equal(part, getattr(one, t), obj=f"{t} seed {s}")


def test_run_many_keeps_order_of_seeds(wireless):
    r = airtcp.run_many(wireless, [3, 1, 2], workers=2, progress=False)
    assert r.seeds == [3, 1, 2]
    assert list(r.flows.seed) == [3, 1, 2]


def test_run_many_threads_equal_serial_on_every_table():
    """Threads hand their tables over as column buffers made without the
    GIL, turned into lists once for all seeds: the lists, their order and
    the DataFrames are those of a serial run and of the single runs
    concatenated in the order of the seeds (not sorted)."""
    seeds = [4, 2, 9, 3]
    serial = airtcp.run_many(EVERY_TABLE, seeds, workers=1, progress=False)
    threaded = airtcp.run_many(EVERY_TABLE, seeds, workers=2, progress=False)
    assert_same(serial, threaded)
    assert same_columns(serial.columns, threaded.columns)
    singles = [airtcp.run(EVERY_TABLE, seed=s) for s in seeds]
    for t in TABLES:
        names = list(singles[0].columns[t])
        assert list(serial.columns[t]) == list(threaded.columns[t]) == ["seed", *names]
        expected = {"seed": [s for s, r in zip(seeds, singles) for _ in r.columns[t][names[0]]]}
        expected.update({c: [v for r in singles for v in r.columns[t][c]] for c in names})
        assert expected["seed"], f"{t} has no rows"
        assert same_columns({t: expected}, {t: threaded.columns[t]}), t
    # A missing count is None in the lists and NaN in the DataFrame.
    ssthresh = threaded.columns["flows"]["final_ssthresh_bytes"]
    assert None in ssthresh and any(isinstance(v, float) for v in ssthresh)
    assert threaded.flows.final_ssthresh_bytes.isna().sum() == ssthresh.count(None)


def test_result_pickles_before_and_after_its_columns_are_made():
    import pickle

    a = airtcp.run_many(EVERY_TABLE, [1, 2], workers=2, progress=False)
    b = pickle.loads(pickle.dumps(a))  # columns not made yet
    assert same_columns(a.columns, b.columns)
    assert_same(a, pickle.loads(pickle.dumps(a)))
