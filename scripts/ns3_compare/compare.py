"""Parse both traces into common per-run summaries and event lists."""
import numpy as np
import pandas as pd

#: airtcp_side.scenario's keys that ns3_side.run does not take.
AIR_ONLY = ("variant", "prr", "extra_tcp", "handshake")


def sides(kw):
    """The command line's settings split per side: keys starting ``air_`` /
    ``ns3_`` go to that side only (prefix removed), the others to both
    (but ``AIR_ONLY``)."""
    air = {k[4:] if k.startswith("air_") else k: v for k, v in kw.items() if not k.startswith("ns3_")}
    ns3 = {k[4:] if k.startswith("ns3_") else k: v for k, v in kw.items() if k not in AIR_ONLY and not k.startswith("air_")}
    return air, ns3


def ns3_parse(path):
    tx, acks, drops, cw, ss, states, rto, srtt = [], [], [], [], [], [], [], []
    sink_end = 0
    end = None
    for line in open(path):
        p = line.split()
        k, t = p[0], int(p[1])
        if k == "tx":
            tx.append((t / 1e9, int(p[2]), int(p[3])))
        elif k == "ack":
            acks.append((t / 1e9, int(p[2]), " ".join(p[3:])))
        elif k in ("qdrop", "edrop"):
            drops.append((t / 1e9, int(p[2]), k))
        elif k == "cwnd":
            cw.append((t / 1e9, int(p[2])))
        elif k == "ssth":
            ss.append((t / 1e9, int(p[2])))
        elif k == "state":
            states.append((t / 1e9, p[2], p[3]))
        elif k == "rto":
            rto.append((t / 1e9, int(p[2]) / 1e9))
        elif k == "srtt":
            srtt.append((t / 1e9, int(p[2]) / 1e9))
        elif k == "sink":
            sink_end = int(p[2])
        elif k == "end":
            end = t / 1e9
    tx = pd.DataFrame(tx, columns=["t", "seq", "len"])
    hi = tx.seq.cummax().shift(fill_value=-1)
    tx["retx"] = tx.seq <= hi
    return dict(tx=tx, acks=pd.DataFrame(acks, columns=["t", "ack", "sack"]),
                drops=pd.DataFrame(drops, columns=["t", "seq", "kind"]),
                cwnd=pd.DataFrame(cw, columns=["t", "v"]), ssth=pd.DataFrame(ss, columns=["t", "v"]),
                states=pd.DataFrame(states, columns=["t", "old", "new"]),
                rto=pd.DataFrame(rto, columns=["t", "v"]), srtt=pd.DataFrame(srtt, columns=["t", "v"]),
                delivered=sink_end, end=end)


def ns3_summary(d, duration=10.0):
    st = d["states"]
    tx = d["tx"]
    ssth = d["ssth"]
    first_rec = st[st.new == "CA_RECOVERY"].t.min() if len(st) else np.nan
    after = ssth[(ssth.t >= first_rec)] if first_rec == first_rec else ssth.iloc[0:0]
    return dict(
        first_loss_s=d["drops"].t.min() if len(d["drops"]) else np.nan,
        first_loss_seg=d["drops"].seq.iloc[0] // 1000 if len(d["drops"]) else None,
        losses=len(d["drops"]),
        fast_retransmits=int((st.new == "CA_RECOVERY").sum()),
        timeouts=int((st.new == "CA_LOSS").sum()),
        retransmitted_segments=int(tx.retx.sum()),
        segments_sent=len(tx),
        goodput_bps=d["delivered"] * 8 / duration,
        ssthresh_after_first_recovery=int(after.v.iloc[0]) if len(after) else None,
        first_recovery_s=first_rec,
    )


def air_parse(flows, tr):
    f = flows.iloc[0]
    s = tr[(tr.event == "send") & (tr.node == "S") & (tr.packet == "data") & (tr.payload_bytes > 0)]
    tx = pd.DataFrame({"t": s.time_s.values, "seq": s.seq.values.astype(int),
                       "len": s.payload_bytes.values.astype(int), "retx": s.retransmission.values})
    a = tr[(tr.event == "deliver") & (tr.node == "S") & (tr.packet == "ack")]
    acks = pd.DataFrame({"t": a.time_s.values, "ack": a.ack.values.astype(int),
                         "sack": [" ".join(f"{b['start']}-{b['end']}" for b in x) for x in a.sack.values]})
    dr = tr[(tr.event == "drop") & (tr.packet == "data") & (tr.payload_bytes > 0)]
    drops = pd.DataFrame({"t": dr.time_s.values, "seq": dr.seq.values.astype(int),
                          "kind": dr.cause.astype(str).values})
    return dict(tx=tx, acks=acks, drops=drops, flows=f)


def air_summary(d):
    f = d["flows"]
    dr = d["drops"]
    return dict(
        first_loss_s=dr.t.min() if len(dr) else np.nan,
        first_loss_seg=dr.seq.iloc[0] // 1000 if len(dr) else None,
        losses=len(dr),
        fast_retransmits=int(f.fast_retransmits),
        timeouts=int(f.timeouts),
        retransmitted_segments=int(f.retransmitted_segments),
        segments_sent=int(f.segments_sent),
        goodput_bps=float(f.goodput_bps),
        final_ssthresh=f.final_ssthresh_bytes,
    )


def first_divergence(a_tx, n_tx, n=200, tol=2e-4):
    """First index among the first n data transmissions where seq or time differ."""
    m = min(n, len(a_tx), len(n_tx))
    for i in range(m):
        ra, rn = a_tx.iloc[i], n_tx.iloc[i]
        if ra.seq != rn.seq or abs(ra.t - rn.t) > tol:
            return i, ra.to_dict(), rn.to_dict()
    return None, None, None
