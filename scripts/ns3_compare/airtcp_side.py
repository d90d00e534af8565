"""airtcp side of the differential audit: the same topology as ns3_side.py.

S --access-- R --bottleneck-- D; DropTail `qlimit` packets on R->D (waiting
packets, as ns-3's device queue: the packet in transmission is not queued).
"""
import os

import airtcp
import pandas as pd


def scenario(acc_rate=10e6, acc_delay=0.002, btl_rate=1.5e6, btl_delay=0.02, qlimit=20, mss=1000,
             iw=4, sack=False, ts=False, delack=2, variant="newreno", cc="reno", prr=False,
             duration=10.0, drops=(), per=0.0, seed=1, rwnd=1_000_000, handshake=True,
             limited_tx=True, extra_tcp=None):
    btl = {"a": "R", "b": "D", "rate": f"{int(btl_rate)}bps", "delay": f"{btl_delay}s",
           "queue": {"kind": "droptail", "limit": f"{qlimit}pkt"}}
    err = None
    if drops:
        err = {"kind": "drop_list", "packets": list(drops), "applies_to": "data"}
    elif per > 0:
        err = {"kind": "bernoulli", "per": per, "applies_to": "data"}
    if err:
        btl["a_to_b"] = {"error": err}
    tcp = {"variant": variant, "mss": f"{mss}B", "initial_cwnd": iw, "timestamps": ts,
           "handshake": handshake, "rwnd": f"{rwnd}B", "min_rto": "1s", "clock_granularity": "1ms",
           "limited_transmit": limited_tx, "cc": cc}
    if variant != "sack":
        tcp["sack"] = sack
    if delack:
        tcp["delayed_ack"] = True
        tcp["delack_segments"] = delack
        tcp["delack_timeout"] = "200ms"
    else:
        tcp["delayed_ack"] = False
    if prr:
        tcp["proportional_rate_reduction"] = True
    if extra_tcp:
        tcp.update(extra_tcp)
    return {
        "simulation": {"duration": f"{duration}s", "seed": seed},
        "link": [
            {"a": "S", "b": "R", "rate": f"{int(acc_rate)}bps", "delay": f"{acc_delay}s",
             "queue": {"kind": "droptail", "limit": "1000pkt"}},
            btl,
        ],
        "flow": [{"name": "f", "from": "S", "to": "D", "tcp": tcp, "app": {"kind": "bulk"}}],
    }


def run(outdir, trace=True, **kw):
    os.makedirs(outdir, exist_ok=True)
    sc = airtcp.load(scenario(**kw))
    res = airtcp.run(sc, trace=("trace.parquet" if trace else None), out_dir=outdir)
    flows = res.flows
    tr = pd.read_parquet(os.path.join(outdir, "trace.parquet")) if trace else None
    return flows, tr
