"""One run on each side (README.md: the topology and the settings), their figures side by side and the
first divergence among the first 200 transmissions; traces in out/."""
import json, os, sys
import airtcp_side, compare
from ns3_side import run as ns3_run
os.makedirs("out", exist_ok=True)
tag = sys.argv[1]; kw = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
air_kw, ns3_kw = compare.sides(kw)
fl, tr = airtcp_side.run(f"out/air_{tag}", **air_kw)
a = compare.air_parse(fl, tr)
ns3_run(f"out/ns3_{tag}.txt", **ns3_kw)
n = compare.ns3_parse(f"out/ns3_{tag}.txt")
sa, sn = compare.air_summary(a), compare.ns3_summary(n, kw.get("duration", 10.0))
for k in sorted(set(sa) | set(sn)):
    print(f"{k:32s} airtcp={sa.get(k)!s:24s} ns3={sn.get(k)!s}")
i, ra, rn = compare.first_divergence(a["tx"], n["tx"])
print("first divergence among first 200 tx:", i, ra, rn)
a["tx"].to_csv(f"out/air_{tag}_tx.csv", index=False); n["tx"].to_csv(f"out/ns3_{tag}_tx.csv", index=False)
a["acks"].to_csv(f"out/air_{tag}_acks.csv", index=False); n["acks"].to_csv(f"out/ns3_{tag}_acks.csv", index=False)
a["drops"].to_csv(f"out/air_{tag}_drops.csv", index=False); n["drops"].to_csv(f"out/ns3_{tag}_drops.csv", index=False)
