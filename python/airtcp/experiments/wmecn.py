"""WMECN: Figs. 4-6 and §4's error rates of Sridharan, Durresi, Liu, Jain,
"Wireless TCP Enhancements Using Multi-level ECN" (§5).

Dumbbell (Fig. 3): n FTP sources S1..Sn and one background UDP source reach
R1 over 10 Mb/s, 2 ms links; R1 -> R2 is the 1 Mb/s, 30 ms bottleneck with
the scheme's queue (RED, RED/ECN or WMECN marking, EWMA weight 0.002); R2
reaches the destinations over 10 Mb/s, 4 ms links. The n FTP destinations
are wireless: their links lose data packets with the packet error rate. The
UDP source is exponential on/off (mean 100 ms on, 100 ms off, 500 kb/s while
on). 1000-byte data packets, 40-byte ACKs, 100 simulated seconds. Schemes:
base TCP (Reno), ECN, TCP Westwood, Snoop, WMECN and WMECN with link-layer
retransmission (LRT, DDA-like).

Metrics (per run): goodput of the FTP flows as the document defines it
(packets received in order by the mobile hosts, so retransmissions and
duplicates are not counted), their time-averaged cwnd, and, for every
scheme, the loss classifier's confusion matrix against the ground truth:
type-1 errors (congestion loss called wireless) and type-2 errors (wireless
loss called congestion), and how many wireless losses had a congestion
response that cut the window to half or less (``wireless_losses_halved``,
split by detection with ``wireless_losses_halved_by_dupacks``; §4's claim
that this never happens to a misclassified wireless loss).

Every parameter the document leaves open is in ``PARAMS`` and listed with
the reason for its value in the report's choices. None was tuned to match.
The document publishes figures only, so the claims are checked against our
numbers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .base import Choice, Claim, ClaimResult, Experiment, Numbers, Scheme, Table, mean, std

SOURCE = (
    'M. Sridharan, A. Durresi, C. Liu, R. Jain, "Wireless TCP Enhancements Using Multi-level ECN", '
    "The Ohio State University, §2-§5, Figs. 3-6"
)

PERS = (0.0, 0.005, 0.01, 0.02, 0.05, 0.1)
SOURCES = (2, 5, 10)

PARAMS: dict[str, Any] = {
    # §5.1
    "access_rate_mbps": 10,
    "access_ms": 2,
    "bottleneck_rate_mbps": 1,
    "bottleneck_ms": 30,
    "dest_rate_mbps": 10,
    "dest_ms": 4,
    "weight": 0.002,
    "mss": 1000,
    "duration_s": 100,
    "udp_rate_kbps": 500,
    "udp_on_ms": 100,
    "udp_off_ms": 100,
    # open: bottleneck queue (ns-2 RED defaults), marking maximum
    "queue_pkts": 50,
    "min_th": 5.0,
    "mid_th": 10.0,
    "max_th": 15.0,
    "max_p": 0.1,
    "udp_sources": 1,
    # open: TCP timers (ns-2 Agent/TCP defaults of the time)
    "initial_rto_s": 6.0,
    "min_rto_s": 0.2,
    "clock_granularity_s": 0.1,
    "delayed_ack": False,
    "window_pkts": 1000,
    "stagger_ms": 100,
    # open: LRT
    "lrt_retries": 3,
    "cwnd_sample_ms": 100,
}

CELLS = [{"n": n, "per": per} for n in SOURCES for per in PERS]

SCHEMES = [
    Scheme("base", "Base TCP", "TCP Reno, RED (drops)"),
    Scheme("ecn", "ECN", "TCP Reno with RFC 3168 ECN, RED marking"),
    Scheme("westwood", "Westwood", "TCP Westwood (Casetti et al. 2002), RED (drops)"),
    Scheme("snoop", "Snoop", "TCP Reno, Snoop at R2, RED (drops)"),
    Scheme("wmecn", "WMECN", "WMECN marking at R1, WMECN filtering and graded response at the source"),
    Scheme("wmecn_lrt", "WMECN+LRT", "WMECN with link-layer ARQ at R2 and DDA at the mobile hosts"),
]


def _us(seconds: float) -> str:
    return f"{round(seconds * 1e6)}us"


def scenario(cell: Mapping[str, Any], scheme: str, p: Mapping[str, Any]) -> dict:
    n = int(cell["n"])
    per = float(cell["per"])
    n_udp = int(p["udp_sources"])
    red = {
        "limit": f"{p['queue_pkts']}pkt",
        "min_th": float(p["min_th"]),
        "max_th": float(p["max_th"]),
        "weight": float(p["weight"]),
    }
    if scheme in ("wmecn", "wmecn_lrt"):
        bq = {"kind": "wmecn", **red, "mid_th": float(p["mid_th"]), "max_p": float(p["max_p"])}
    else:
        bq = {"kind": "red", **red, "max_p": float(p["max_p"]), "ecn": scheme == "ecn"}
    big = {"kind": "droptail", "limit": "1000pkt"}

    def link(a, b, rate_mbps, delay_ms, queue=big, **extra):
        d = {"a": a, "b": b, "rate": f"{rate_mbps}Mbps", "delay": _us(delay_ms / 1e3), "queue": queue}
        d.update(extra)
        return d

    links = []
    for i in range(1, n + 1):
        links.append(link(f"S{i}", "R1", p["access_rate_mbps"], p["access_ms"]))
    for u in range(1, n_udp + 1):
        links.append(link(f"U{u}", "R1", p["access_rate_mbps"], p["access_ms"]))
    links.append(link("R1", "R2", p["bottleneck_rate_mbps"], p["bottleneck_ms"], a_to_b={"queue": bq}))
    for i in range(1, n + 1):
        extra = {}
        if per > 0:
            extra["a_to_b"] = {"error": {"kind": "bernoulli", "per": per, "applies_to": "data"}}
        links.append(link("R2", f"D{i}", p["dest_rate_mbps"], p["dest_ms"], **extra))
    for u in range(1, n_udp + 1):
        links.append(link("R2", f"W{u}", p["dest_rate_mbps"], p["dest_ms"]))
    m = int(p["mss"])
    tcp: dict[str, Any] = {
        "variant": "reno",
        "mss": f"{m}B",
        "rwnd": f"{p['window_pkts'] * m}B",
        "delayed_ack": bool(p["delayed_ack"]),
        "initial_rto": _us(p["initial_rto_s"]),
        "min_rto": _us(p["min_rto_s"]),
        "clock_granularity": _us(p["clock_granularity_s"]),
        # Limited Transmit (RFC 3042) on: the document (after Westwood, 2002) used ns-2; releases from 2002 on send a new
        # segment on the first two duplicate ACKs by default (Agent/TCP singledup_ 1).
        "limited_transmit": True,
        # ns-2's Reno with bug_fix_ (default true): one fast retransmit per window.
        "reno_one_fast_retransmit_per_window": True,
    }
    if scheme == "ecn":
        tcp["ecn"] = True
    elif scheme == "westwood":
        tcp["cc"] = {"kind": "westwood"}
    elif scheme in ("wmecn", "wmecn_lrt"):
        tcp["classifier"] = {"kind": "wmecn"}
        tcp["cc"] = {"kind": "wmecn"}
    flows: list[dict] = [
        {
            "name": f"ftp{i}",
            "from": f"S{i}",
            "to": f"D{i}",
            "start": _us(p["stagger_ms"] * (i - 1) / 1e3),
            "tcp": tcp,
            "app": {"kind": "bulk"},
        }
        for i in range(1, n + 1)
    ]
    for u in range(1, n_udp + 1):
        flows.append(
            {
                "name": f"udp{u}",
                "from": f"U{u}",
                "to": f"W{u}",
                "app": {
                    "kind": "onoff",
                    "rate": f"{p['udp_rate_kbps']}kbps",
                    "mean_on": _us(p["udp_on_ms"] / 1e3),
                    "mean_off": _us(p["udp_off_ms"] / 1e3),
                    "packet_size": f"{m + 40}B",
                },
            }
        )
    nodes: list[dict] = []
    if scheme == "snoop":
        nodes = [{"name": "R2", "agents": [{"kind": "snoop"}]}]
    elif scheme == "wmecn_lrt":
        nodes = [{"name": "R2", "agents": [{"kind": "arq", "peer": f"D{i}", "retries": int(p["lrt_retries"])} for i in range(1, n + 1)]}]
        nodes += [{"name": f"D{i}", "agents": [{"kind": "dda", "peer": "R2"}]} for i in range(1, n + 1)]
    elif scheme not in ("base", "ecn", "westwood", "wmecn"):
        raise ValueError(f"unknown scheme {scheme!r}")
    sc: dict[str, Any] = {"simulation": {"duration": f"{p['duration_s']}s", "seed": 1}}
    if nodes:
        sc["node"] = nodes
    sc["link"] = links
    sc["flow"] = flows
    sc["output"] = {"timeseries": {"interval": _us(p["cwnd_sample_ms"] / 1e3), "flows": True, "links": False}}
    return sc


# --------------------------------------------------------------------------
# Metrics

_CONFUSION = {
    "cc": "loss_congestion_as_congestion",
    "cw": "loss_congestion_as_wireless",
    "wc": "loss_wireless_as_congestion",
    "ww": "loss_wireless_as_wireless",
}


def _ratio(a: float, b: float) -> float:
    return a / b if b else math.nan


def metrics(res, cell, scheme, p) -> dict[str, float]:
    """Per run, over the n FTP flows: goodput in packets/s (in-order payload
    delivered to the mobile hosts / MSS / simulated time), time-averaged cwnd
    in packets (sampled every ``cwnd_sample_ms``), loss counters and the
    classifier's confusion matrix with type-1 and type-2 error rates."""
    n = int(cell["n"])
    cols = [
        "name", "delivered_bytes", "timeouts", "fast_retransmits", "drops_channel", "drops_queue", "drops_aqm",
        "wireless_losses_halved", "wireless_losses_halved_by_dupacks", *_CONFUSION.values(),
    ]
    f = res.tables["flows"].select(cols).to_pydict()
    ftp = [i for i, name in enumerate(f["name"]) if name.startswith("ftp")]
    dur, mss = float(p["duration_s"]), float(p["mss"])
    m: dict[str, float] = {
        "goodput_pps": sum(f["delivered_bytes"][i] for i in ftp) / mss / dur,
    }
    m["goodput_kbps"] = m["goodput_pps"] * mss * 8 / 1e3
    for k in ("timeouts", "fast_retransmits", "drops_channel", "drops_queue", "drops_aqm"):
        m[k] = float(sum(f[k][i] for i in ftp))
    c = {short: float(sum(f[col][i] for i in ftp)) for short, col in _CONFUSION.items()}
    m.update({f"loss_{k}": v for k, v in c.items()})
    m["type1_rate"] = _ratio(c["cw"], c["cc"] + c["cw"])
    m["type2_rate"] = _ratio(c["wc"], c["wc"] + c["ww"])
    # §4: wireless losses whose congestion response cut cwnd to half or
    # less (a timeout judged congestion, which collapses cwnd to 1 segment,
    # or a new ssthresh <= cwnd / 2 at a duplicate-ACK loss: WMECN's severe
    # grade). Only a congestion verdict reduces, so these are type-2 errors.
    # The core records how each was detected: `wireless_losses_halved_by_dupacks`
    # counts the duplicate-ACK losses, the rest were timeouts.
    h = float(sum(f["wireless_losses_halved"][i] for i in ftp))
    hd = float(sum(f["wireless_losses_halved_by_dupacks"][i] for i in ftp))
    m["wl_halved"] = h
    m["wl_halved_dupack"] = hd
    m["wl_halved_timeout"] = h - hd
    s = res.columns["series"]
    names = {f["name"][i] for i in ftp}
    cw = [v for metric, name, v in zip(s["metric"], s["name"], s["value"]) if metric == "cwnd_bytes" and name in names]
    m["mean_cwnd_pkts"] = (sum(cw) / len(cw) / mss) if cw else math.nan
    assert len(ftp) == n
    return m


STATISTICS = {"avg": mean, "sd": std}


# --------------------------------------------------------------------------
# Claims (definitions fixed before the first full run)

E2E = ("base", "ecn", "westwood")


def _g(n: Numbers, nsrc: int, per: float, scheme: str, metric: str = "goodput_pps") -> float:
    return n.get({"n": nsrc, "per": per}, scheme, metric, "avg")


def _claim_beats_e2e(n: Numbers, p) -> ClaimResult:
    ok, total, worst = 0, 0, []
    for ns in SOURCES:
        for per in PERS[1:]:
            w = _g(n, ns, per, "wmecn")
            others = {s: _g(n, ns, per, s) for s in E2E}
            if math.isnan(w) or any(math.isnan(v) for v in others.values()):
                continue
            total += 1
            best = max(others, key=others.get)
            if w > others[best]:
                ok += 1
            else:
                worst.append(f"n={ns}, PER {per:g}: WMECN {w:.1f} vs {best} {others[best]:.1f} pkt/s")
    if total == 0:
        return ClaimResult(None, "no numbers")
    return ClaimResult(ok == total, f"WMECN ahead at {ok} of {total} (n, PER) points" + ("; behind: " + "; ".join(worst) if worst else ""))


def _retention(n: Numbers, ns: int, scheme: str) -> float:
    a, b = _g(n, ns, PERS[0], scheme), _g(n, ns, PERS[-1], scheme)
    return b / a if a else math.nan


def _claim_degrades_slowest(n: Numbers, p) -> ClaimResult:
    ok, total, parts = 0, 0, []
    for ns in SOURCES:
        r = {s: _retention(n, ns, s) for s in E2E + ("wmecn",)}
        if any(math.isnan(v) for v in r.values()):
            continue
        total += 1
        ok += r["wmecn"] >= max(r[s] for s in E2E)
        parts.append(f"n={ns}: " + ", ".join(f"{s} {v:.2f}" for s, v in r.items()))
    if total == 0:
        return ClaimResult(None, "no numbers")
    return ClaimResult(ok == total, f"goodput at PER 10% / at 0 ({ok} of {total} n): " + "; ".join(parts))


def _claim_snoop_flat(n: Numbers, p) -> ClaimResult:
    rs = [(ns, _retention(n, ns, "snoop")) for ns in SOURCES]
    rs = [(ns, r) for ns, r in rs if not math.isnan(r)]
    if not rs:
        return ClaimResult(None, "no numbers")
    return ClaimResult(all(r >= 0.9 for _, r in rs), "Snoop goodput at PER 10% / at 0: " + ", ".join(f"n={ns} {r:.2f}" for ns, r in rs))


def _claim_lrt_beats_snoop(n: Numbers, p) -> ClaimResult:
    ok, total, behind = 0, 0, []
    for ns in SOURCES:
        for per in PERS[1:]:
            a, b = _g(n, ns, per, "wmecn_lrt"), _g(n, ns, per, "snoop")
            if math.isnan(a) or math.isnan(b):
                continue
            total += 1
            if a > b:
                ok += 1
            else:
                behind.append(f"n={ns}, PER {per:g}: {a:.1f} vs {b:.1f}")
    if total == 0:
        return ClaimResult(None, "no numbers")
    return ClaimResult(ok == total, f"WMECN+LRT ahead of Snoop at {ok} of {total} points" + ("; behind: " + "; ".join(behind) if behind else ""))


def _pooled(n: Numbers, scheme: str, num: str, den: tuple[str, ...], pers=PERS) -> tuple[float, float]:
    a = b = 0.0
    for ns in SOURCES:
        for per in pers:
            x = n.get({"n": ns, "per": per}, scheme, f"loss_{num}", "avg")
            if math.isnan(x):
                continue
            a += x
            b += sum(n.get({"n": ns, "per": per}, scheme, f"loss_{d}", "avg") for d in den)
    return a, b


def _claim_no_type1(n: Numbers, p) -> ClaimResult:
    cw, total = _pooled(n, "wmecn", "cw", ("cc", "cw"))
    if total == 0:
        return ClaimResult(None, "no congestion losses judged")
    return ClaimResult(cw == 0, f"WMECN: {cw:.2f} of {total:.1f} congestion losses per run (summed over cells) called wireless ({cw / total:.2%})")


def _claim_type2(n: Numbers, p) -> ClaimResult:
    rates = []
    for per in PERS[1:]:
        wc, tot = _pooled(n, "wmecn", "wc", ("wc", "ww"), pers=(per,))
        if tot:
            rates.append((per, wc / tot))
    if len(rates) < 2:
        return ClaimResult(None, "no numbers")
    below = all(r < 0.01 for _, r in rates)
    falling = rates[-1][1] <= rates[0][1]
    return ClaimResult(below and falling, "WMECN type-2 rate by PER (pooled over n): " + ", ".join(f"{x:g}: {r:.2%}" for x, r in rates))


HALVING_SCHEMES = (("wmecn", "WMECN"), ("wmecn_lrt", "WMECN+LRT"))


def _summed(n: Numbers, scheme: str, metric: str) -> float:
    """Per-run mean of ``metric`` summed over all cells (NaN cells skipped)."""
    vals = [n.get({"n": ns, "per": per}, scheme, metric, "avg") for ns in SOURCES for per in PERS]
    vals = [v for v in vals if not math.isnan(v)]
    return sum(vals) if vals else math.nan


def _halving(n: Numbers, scheme: str) -> dict[str, float]:
    return {
        k: _summed(n, scheme, m)
        for k, m in (
            ("wc", "loss_wc"),
            ("halved", "wl_halved"),
            ("dupack", "wl_halved_dupack"),
            ("timeout", "wl_halved_timeout"),
        )
    }


def _halving_detail(label: str, h: dict[str, float]) -> str:
    return (
        f"{label}: {h['halved']:.2f} of {h['wc']:.2f} wireless-as-congestion losses per run (summed over cells) halved cwnd "
        f"({_ratio(h['halved'], h['wc']):.1%}); of these {h['dupack']:.2f} detected by duplicate ACKs, "
        f"{h['timeout']:.2f} by timeouts"
    )


def _claim_never_halved(n: Numbers, p) -> ClaimResult:
    hs = {s: _halving(n, s) for s, _ in HALVING_SCHEMES}
    if any(math.isnan(h["halved"]) for h in hs.values()):
        return ClaimResult(None, "no numbers")
    ok = all(h["halved"] == 0 for h in hs.values())
    return ClaimResult(ok, "; ".join(_halving_detail(lab, hs[s]) for s, lab in HALVING_SCHEMES))


def _claim_never_halved_dupack(n: Numbers, p) -> ClaimResult:
    hs = {s: _halving(n, s) for s, _ in HALVING_SCHEMES}
    if any(math.isnan(h["dupack"]) for h in hs.values()):
        return ClaimResult(None, "no numbers")
    parts = "; ".join(
        f"{lab}: {hs[s]['dupack']:.2f} duplicate-ACK-detected wireless losses per run (summed over cells) halved cwnd "
        f"(all halved: {hs[s]['halved']:.2f}, of which {hs[s]['timeout']:.2f} timeouts)"
        for s, lab in HALVING_SCHEMES
    )
    return ClaimResult(all(h["dupack"] == 0 for h in hs.values()), parts)


CLAIMS = [
    Claim(
        "1",
        "WMECN performs better than all other proposals of its type (base TCP, ECN, Westwood) (§5.2, Fig. 4).",
        "At every n and every PER > 0, WMECN's mean goodput exceeds that of base TCP, ECN and Westwood.",
        _claim_beats_e2e,
    ),
    Claim(
        "2",
        "WMECN's rate of degradation is much slower than the other schemes' (§5.2, Fig. 4).",
        "For every n, goodput(PER 10%) / goodput(PER 0) of WMECN is at least that of base TCP, ECN and Westwood.",
        _claim_degrades_slowest,
    ),
    Claim(
        "3",
        "Snoop's performance is stable throughout (§5.2, Fig. 4).",
        "For every n, Snoop's goodput at PER 10% is at least 90% of its goodput at PER 0.",
        _claim_snoop_flat,
    ),
    Claim(
        "4",
        "WMECN+LRT performs better than all other schemes, Snoop included (§5.2, Fig. 5).",
        "At every n and every PER > 0, WMECN+LRT's mean goodput exceeds Snoop's (Snoop is the best other scheme "
        "under wireless loss; the others are checked by claim 1).",
        _claim_lrt_beats_snoop,
    ),
    Claim(
        "5",
        "Type-1 errors (congestion loss identified as wireless) never happen (§4).",
        "Summed over all cells and runs, no WMECN loss whose ground truth is congestion (queue overflow or AQM "
        "drop) is classified as wireless.",
        _claim_no_type1,
    ),
    Claim(
        "6",
        "Type-2 errors occur with probability below 1.0%, and less often as the packet error rate grows (§4).",
        "For each PER > 0, WMECN's wireless losses classified as congestion / wireless losses judged (pooled over "
        "n and runs) is below 1%, and the rate at PER 10% is at most the rate at PER 0.5%.",
        _claim_type2,
    ),
    Claim(
        "7a",
        "cwnd is never decreased by half when a wireless loss is wrongly identified as a congestion loss (§4).",
        "For WMECN and for WMECN+LRT, summed over all cells and runs, no loss whose ground truth is wireless "
        "(channel error) and which the filter called congestion got a response that cut the window to half or less "
        "(flow column wireless_losses_halved = 0). Timeouts are included: §3 filters losses 'detected either by "
        "dupacks or timeout', §4 makes no exception, and a timeout judged congestion collapses cwnd to one "
        "segment (the standard timeout response), so it counts as halved.",
        _claim_never_halved,
    ),
    Claim(
        "7b",
        "The same, read narrowly: the graded response to a duplicate-ACK loss never halves cwnd for a misclassified "
        "wireless loss (§3.2, §4).",
        "For WMECN and for WMECN+LRT, no duplicate-ACK-detected wireless loss called congestion got a new ssthresh "
        "<= cwnd / 2 (the severe grade, SWF >= 17), summed over all cells and runs (flow column "
        "wireless_losses_halved_by_dupacks = 0). Agrees if that count is 0 for both schemes, disagrees otherwise.",
        _claim_never_halved_dupack,
    ),
]


# --------------------------------------------------------------------------
# Choices


def _choices(p: Mapping[str, Any]) -> list[Choice]:
    return [
        Choice("Packets", f"MSS {p['mss']} B (1040 B on the wire), ACKs 40 B", "§5.1: 'packet size is 1000 bytes and the acknowledgment size is 40 bytes'; airtcp adds the 40 header bytes."),
        Choice(
            "Bottleneck queue",
            f"{p['queue_pkts']} packets; min_th {p['min_th']:g}, mid_th {p['mid_th']:g}, max_th {p['max_th']:g} packets of the average; "
            f"max_p / P_max {p['max_p']:g}; weight {p['weight']:g}",
            "§5.1 gives only the weight 0.002. ns-2's RED defaults (thresh_ 5, maxthresh_ 15, linterm_ 10, limit 50); mid_th half-way. "
            "Base TCP, Westwood and Snoop use RED without ECN (drops) so that the marking is the only difference.",
        ),
        Choice(
            "Background traffic",
            f"{p['udp_sources']} UDP on/off source(s), exponential {p['udp_on_ms']} ms on / {p['udp_off_ms']} ms off, {p['udp_rate_kbps']} kb/s, to a wired destination",
            "§5.1: 'UDP flows ... on other sources'; the number is not given. One source takes a quarter of the bottleneck on average.",
        ),
        Choice("Wireless destinations", "all n FTP destinations; errors on data packets R2 -> D_i only (Bernoulli per packet)", "§5.1: FTP sources equal in number to the wireless destinations."),
        Choice(
            "TCP",
            f"Reno; RTO initial {p['initial_rto_s']:g} s, min {p['min_rto_s']:g} s, granularity {p['clock_granularity_s']:g} s; delayed ACKs "
            f"{'on' if p['delayed_ack'] else 'off'}; receiver window {p['window_pkts']} packets; flow i starts at (i-1) x {p['stagger_ms']} ms",
            "§5.1: 'Reno TCP is used'. ns-2 Agent/TCP defaults of the time, as in the other reproductions.",
        ),
        Choice(
            "WMECN source",
            "marks: cwnd x 0.8 on '10', x 0.6 on '11'; losses: x 0.8 / 0.6 / 0.5 by SWF; at most once per SRTT; timeouts classified",
            "§3.1/§3.2; the open points (beta1, beta2, the mild case's context entry, timeouts) are documented in tcp/cc/mecn.rs and tcp/classify/wmecn.rs.",
        ),
        Choice("Westwood", "Casetti et al. 2002 per-ACK filter, tau 0.5 s, ssthresh = BWE x RTTmin", "The document's reference 7."),
        Choice("Snoop", "Snoop agent at R2 (the base station)", "The document gives no Snoop parameters; ns-2-like defaults (agents/snoop.rs)."),
        Choice(
            "LRT",
            f"link-layer ARQ at R2 for each wireless link, {p['lrt_retries']} retries, timeout 1.5 link round trips; DDA at each mobile host delaying the third and later duplicate ACKs for two link round trips",
            "§5.2: 'a link layer retransmission (LRT) protocol similar to DDA'; no parameters given.",
        ),
        Choice("Goodput", "packets delivered in order to the mobile hosts (duplicates and retransmissions counted once) per second, summed over the FTP flows", "§5.2's definition."),
        Choice("Mean cwnd", f"time average of cwnd sampled every {p['cwnd_sample_ms']} ms over the FTP flows, in packets", "Fig. 6 does not define it."),
    ]


CAVEATS = [
    "**Ground truth.** A loss is 'congestion' when the segment's latest transmission died in a queue (overflow or "
    "RED/WMECN early drop) and 'wireless' when it died on the channel; decisions on segments that had not died "
    "(spurious) are counted as 'other' and left out of both rates.",
    "**Misclassified wireless losses and halving (claims 7a/7b).** The flows' `wireless_losses_halved` counts "
    "wireless losses whose congestion response cut the window to half or less: a timeout judged congestion "
    "(cwnd = 1 segment) or a duplicate-ACK loss whose new ssthresh is <= cwnd / 2 (WMECN's severe grade; the "
    "2-segment floor keeps it above half at cwnd < 4 segments). A type-2 duplicate-ACK loss within one SRTT "
    "of the previous reduction is not reduced at all (§3.2's once-per-RTT rule) and is not counted. "
    "`wireless_losses_halved_by_dupacks` counts the halved losses detected by duplicate ACKs; the rest "
    "were timeouts.",
    "**The document's figures are not in its text**, so no published numbers are compared.",
]


def _tables() -> list[Table]:
    lab = lambda x: f"{x:g}"  # noqa: E731
    out = []
    for ns in SOURCES:
        out.append(Table(f"Figs. 4/5. Goodput (packets/s) vs PER, n = {ns}", {"n": ns}, "per", [(s.name, "goodput_pps", "avg", s.label) for s in SCHEMES], lab, "pkt/s"))
        out.append(Table(f"Fig. 6. Mean cwnd (packets) vs PER, n = {ns}", {"n": ns}, "per", [(s.name, "mean_cwnd_pkts", "avg", s.label) for s in SCHEMES], lab, "pkts", in_terminal=ns == SOURCES[1]))
        out.append(
            Table(
                f"Misclassification, n = {ns}: losses per run by ground truth and verdict",
                {"n": ns},
                "per",
                [row for s in ("base", "wmecn", "wmecn_lrt") for row in (
                    (s, "loss_cc", "avg", f"{s}: congestion as congestion"),
                    (s, "loss_cw", "avg", f"{s}: congestion as wireless (type 1)"),
                    (s, "loss_wc", "avg", f"{s}: wireless as congestion (type 2)"),
                    (s, "loss_ww", "avg", f"{s}: wireless as wireless"),
                )],
                lab,
                in_terminal=ns == SOURCES[1],
            )
        )
        out.append(
            Table(
                f"Misclassified wireless losses that halved cwnd, n = {ns}: losses per run",
                {"n": ns},
                "per",
                [("base", "wl_halved", "avg", "base: wireless losses halved (reference)")]
                + [row for s in ("wmecn", "wmecn_lrt") for row in (
                    (s, "loss_wc", "avg", f"{s}: wireless as congestion (type 2)"),
                    (s, "wl_halved", "avg", f"{s}: of which halved cwnd"),
                    (s, "wl_halved_dupack", "avg", f"{s}: halved, by dupacks"),
                    (s, "wl_halved_timeout", "avg", f"{s}: halved, by timeout"),
                )],
                lab,
                in_terminal=ns == SOURCES[1],
            )
        )
    return out


def _setup(p: Mapping[str, Any]) -> str:
    return (
        f"Fig. 3 dumbbell: n FTP sources (n in {', '.join(map(str, SOURCES))}) and {p['udp_sources']} UDP on/off source(s) -> R1 "
        f"({p['access_rate_mbps']} Mb/s, {p['access_ms']} ms); R1 -> R2 {p['bottleneck_rate_mbps']} Mb/s, {p['bottleneck_ms']} ms "
        f"(the scheme's queue, weight {p['weight']}); R2 -> destinations {p['dest_rate_mbps']} Mb/s, {p['dest_ms']} ms, the FTP "
        f"destinations wireless with packet error rate PER in {', '.join(f'{x:g}' for x in PERS)}. Reno-based TCP, MSS {p['mss']} B, "
        f"{p['duration_s']} s per run. Schemes: base TCP, ECN, Westwood, Snoop, WMECN, WMECN+LRT."
    )


def _plots(summary, runs, published: Numbers, out: str, exp: Experiment, p) -> list[str]:
    import os

    import matplotlib.pyplot as plt

    files = []
    for metric, fname, ylabel, schemes in (
        ("goodput_pps", "wmecn_fig4_goodput_n{n}.png", "goodput (packets/s)", ["base", "ecn", "westwood", "snoop", "wmecn"]),
        ("goodput_pps", "wmecn_fig5_goodput_n{n}.png", "goodput (packets/s)", [s.name for s in SCHEMES]),
        ("mean_cwnd_pkts", "wmecn_fig6_cwnd_n{n}.png", "mean cwnd (packets)", [s.name for s in SCHEMES]),
    ):
        for ns in SOURCES:
            sub = summary[(summary.n == ns) & (summary.metric == metric) & (summary.statistic == "avg")]
            if sub.empty:
                continue
            fig, ax = plt.subplots(figsize=(6.4, 4.2))
            for s in SCHEMES:
                if s.name not in schemes:
                    continue
                ss = sub[sub.scheme == s.name].sort_values("per")
                ax.plot(ss.per * 100, ss.ours, "-o", label=s.label, markersize=4)
            ax.set_xlabel("packet error rate (%)")
            ax.set_ylabel(ylabel)
            ax.set_title(f"{ylabel} vs PER, n = {ns}", fontsize=10)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
            fig.tight_layout()
            name = fname.format(n=ns)
            fig.savefig(os.path.join(out, name), dpi=110)
            plt.close(fig)
            files.append(name)
    return files


EXPERIMENT = Experiment(
    name="wmecn",
    title="WMECN (Sridharan, Durresi, Liu, Jain), Figs. 4-6 and §4",
    source=SOURCE,
    cells=CELLS,
    schemes=SCHEMES,
    scenario=scenario,
    metrics=metrics,
    statistics=STATISTICS,
    params=PARAMS,
    runs=10,
    version=4,
    setup=_setup,
    published={},
    published_note="The document publishes figures only; there are no numbers to compare.",
    tables=_tables(),
    claims=CLAIMS,
    choices=_choices,
    caveats=CAVEATS,
    plots=_plots,
)
