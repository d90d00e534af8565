"""Scenario c: random 1% data loss on the bottleneck, 20 seeds each side (not paired:
different random numbers). Prints mean goodput / timeouts / fast retransmits with 95%
t-intervals and Welch's interval for the difference."""
import json, os, sys
import airtcp
import numpy as np
import airtcp_side, compare
from ns3_side import run as ns3_run
from scipy import stats
os.makedirs("out", exist_ok=True)
tag = sys.argv[1]; kw = json.loads(sys.argv[2]); seeds = range(1, 21)
air_kw, ns3_kw = compare.sides(kw)
rows = {"air": [], "ns3": []}
for s in seeds:
    sc = airtcp.load(airtcp_side.scenario(seed=s, **air_kw))
    f = airtcp.run(sc, seed=s).flows.iloc[0]
    rows["air"].append((f.goodput_bps, f.timeouts, f.fast_retransmits, f.retransmitted_segments))
    p = f"out/c_{tag}_ns3_{s}.txt"
    ns3_run(p, seed=s, **ns3_kw)
    d = compare.ns3_parse(p); sm = compare.ns3_summary(d, kw.get("duration", 10.0))
    rows["ns3"].append((sm["goodput_bps"], sm["timeouts"], sm["fast_retransmits"], sm["retransmitted_segments"]))
    os.remove(p)
A, N = np.array(rows["air"], float), np.array(rows["ns3"], float)
json.dump({"air": rows["air"], "ns3": rows["ns3"]}, open(f"out/c_{tag}.json", "w"), default=float)
for j, name in enumerate(["goodput_bps", "timeouts", "fast_retransmits", "retransmitted_segments"]):
    a, n = A[:, j], N[:, j]
    def ci(x):
        h = stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x)); return x.mean(), h
    (ma, ha), (mn, hn) = ci(a), ci(n)
    va, vn = a.var(ddof=1) / len(a), n.var(ddof=1) / len(n)
    se = np.sqrt(va + vn); dfw = (va + vn) ** 2 / (va ** 2 / (len(a) - 1) + vn ** 2 / (len(n) - 1)) if se > 0 else 1
    hd = stats.t.ppf(0.975, dfw) * se
    print(f"{name:24s} airtcp {ma:12.1f} ± {ha:9.1f}   ns3 {mn:12.1f} ± {hn:9.1f}   diff {ma-mn:11.1f} ± {hd:9.1f}  {'agree' if abs(ma-mn) <= hd else 'DIFFER'}")
