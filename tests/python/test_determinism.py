import pandas.testing as pdt
import pytest

import airtcp

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
