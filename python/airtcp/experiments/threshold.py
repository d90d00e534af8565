"""RTT-threshold loss classifier: Figs. 2-9 of Teng & Chang.

S.-w. Teng, J.-F. Chang, "A Robust Wireless Transmission Control Protocol to
Cope with Channel Errors in a Long Round-Trip Delay Environment" (2002), §3.

One to three FTP (bulk) TCP Reno connections share a satellite path with a
round-trip propagation of about 500 ms (base RTT 51 ticks of 10 ms) whose
satellite link corrupts bits at a rate of 1e-5, 1e-6 or 1e-7. Each run lasts
100 s. The sender treats a loss as corruption (retransmit, keep the window)
when its latest RTT sample is below a threshold, the base RTT plus k ticks;
throughput is plotted against the threshold, k = 0..10, and with the scheme
off (Figs. 3, 5, 7); the same on a short-delay path (RTT 50 ms, base 6
ticks, Fig. 8) and on error-free ("wired") paths, where the scheme should
change nothing (Fig. 9). cwnd traces before and after (Figs. 2, 4, 6, 9).

Beyond the document: the classifier's type-1 (congestion loss called
corruption) and type-2 (corruption called congestion) error rates at each
threshold, and the fairness question its conclusion leaves open: one
long-delay and one short-delay connection sharing a lossy bottleneck.

The document gives no link rate, buffer or packet size and no numbers, only
figure trends. Every open parameter is in ``PARAMS`` and listed with the
reason for its value in the report's choices. None was tuned to match.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from . import ns2, stats
from .base import (
    MAX_DURATION_S,
    MAX_MSS_BYTES,
    MAX_QUEUE_PKTS,
    MAX_RATE_BPS,
    MAX_WINDOW_BYTES,
    MIN_PERIOD_S,
    Choice,
    Claim,
    ClaimResult,
    Domain,
    Experiment,
    Numbers,
    Relation,
    Scheme,
    Table,
    arrives_in,
    earliest_arrival_s,
    flag,
    mean,
    number,
    one_of,
    probability,
    seed,
    std,
    whole,
    whole_number,
)

SOURCE = (
    'S.-w. Teng, J.-F. Chang, "A Robust Wireless Transmission Control Protocol to Cope with Channel Errors '
    'in a Long Round-Trip Delay Environment" (2002), §2-§3, Figs. 2-9'
)

HEADER_BYTES = 40  # IPv4 + TCP without options, as airtcp (and ns-2's useHeaders_) put on the wire
BERS = (1e-7, 1e-6, 1e-5)
MAX_TICKS = 10  # thresholds at the base RTT + 0 .. MAX_TICKS ticks
RUNS = 20  # runs per (cell, scheme)

PARAMS: dict[str, Any] = {
    # path (ns-2 tcl/ex/sat-repeater.tcl: 2 Mb/s GSLs, DropTail, qlim 50)
    "sat_rate_bps": 2_000_000,
    "sat_delay_ms": 250.0,  # one way, GEO bent pipe (long-delay case)
    "short_delay_ms": 25.0,  # one way, the short-delay case (Fig. 8) and the terrestrial half of "fair"
    "access_rate_bps": 10_000_000,
    "access_delay_ms": 3.0,
    "queue_pkts": 50,
    "ack_errors": False,  # bit errors hit data segments only
    # The unit the error rate applies to: "bit" (the document's "BER (bit
    # error rate)") or "byte" (ns-2's ErrorModel with `unit byte`: a packet
    # of n bytes is lost with probability 1 - (1 - rate)^n).
    "ber_unit": "bit",
    # TCP: ns-2 Agent/TCP/Reno + Agent/TCPSink as of 2002
    "mss": 1000,
    "window_pkts": 1000,  # window_ (and, as in ns-2, the initial ssthresh)
    "initial_cwnd": 2,
    "initial_rto_s": 6.0,
    "min_rto_s": 0.02,
    "max_rto_s": 100000.0,
    "tick_s": 0.01,  # tcpTick_: the RTO clock granularity and the classifier's tick
    "rtt_tick_s": 0.01,  # RTT measured in whole ticks as ns-2 without timestamps (None: exact samples)
    # ns-2's boot_time_: each connection's tick clock has a random phase in [0, tick) ("zero": none)
    "rtt_tick_phase": "random",
    "restart_rto_on_fast_retransmit": True,  # ns-2 Reno's dupack_action: reset_rtx_timer(1,0)
    "delayed_ack": False,
    # the scheme
    "on_timeout": "congestion",  # or "classify"
    # a loss before the first RTT sample: "corruption" (ns-2's t_rtt_ is 0 until the first sample) or "congestion"
    "before_rtt_sample": "corruption",
    # run
    "duration_s": 100,
    # cwnd traces (Figs. 2, 4, 6, 9)
    "trace_ber": 1e-6,
    "trace_threshold_ms": 550,  # Fig. 2: "the threshold is set at 550 ms or 55 TCP ticks"
    "trace_seed": 1,
}


#: The cwnd traces (Figs. 2, 4, 6, 9) sample up to three flows every 100 ms
#: (six series each): a run of 100,000 s is 18 million points, the most the
#: memory budget takes at about 200 B a point.
MAX_RUN_S = 100_000
TRACE_INTERVAL_S = 0.1

#: What each parameter may be (Experiment.domains); RELATIONS ties some together.
DOMAINS: dict[str, Domain] = {
    "sat_rate_bps": number(1, MAX_RATE_BPS, "b/s"),
    "sat_delay_ms": number(0, MAX_RUN_S / 10 * 1e3, "ms"),
    "short_delay_ms": number(0, MAX_RUN_S / 10 * 1e3, "ms"),
    "access_rate_bps": number(1, MAX_RATE_BPS, "b/s"),
    "access_delay_ms": number(0, MAX_RUN_S / 10 * 1e3, "ms"),
    "queue_pkts": whole_number(1, MAX_QUEUE_PKTS, "packets"),
    "ack_errors": flag(),
    "ber_unit": one_of("bit", "byte"),
    "mss": whole_number(1, MAX_MSS_BYTES, "bytes"),
    "window_pkts": whole_number(2, MAX_WINDOW_BYTES, "segments; also the initial ssthresh, which RFC 5681 never "
                                "sets below 2"),
    "initial_cwnd": ns2.INITIAL_WINDOW,
    **ns2.timer_domains(PARAMS),
    "tick_s": number(MIN_PERIOD_S, MAX_DURATION_S, "seconds"),
    "on_timeout": one_of("congestion", "classify"),
    "before_rtt_sample": one_of("corruption", "congestion"),
    "duration_s": number(TRACE_INTERVAL_S, MAX_RUN_S, "seconds: the cwnd traces sample every 100 ms, and those of a "
                         "longer run would exceed the memory budget"),
    "trace_ber": probability("per bit, or per byte with ber_unit = 'byte'; 0: error-free"),
    "trace_threshold_ms": number(0, MAX_DURATION_S * 1e3, "ms"),
    "trace_seed": seed(),
}


def first_arrival_s(p: Mapping[str, Any]) -> float:
    """When a flow's first packet reaches D at the earliest, on the longest
    path (the satellite, or the fairness case's long-delay flow, whose
    access link carries the difference)."""
    return earliest_arrival_s(
        [(p["access_delay_ms"] / 1e3, p["access_rate_bps"]), (p["sat_delay_ms"] / 1e3, p["sat_rate_bps"])],
        whole(p, "mss") + HEADER_BYTES,
    )


RELATIONS: list[Relation] = [
    Relation(
        ("short_delay_ms", "sat_delay_ms"), lambda p: p["short_delay_ms"] <= p["sat_delay_ms"],
        "short_delay_ms must be at most sat_delay_ms: the fairness case's long-delay flow reaches the short-delay "
        "bottleneck over an access link sat_delay_ms - short_delay_ms longer",
    ),
    *ns2.window_relations("mss", lambda p: p["mss"], "window_pkts", "initial_cwnd"),
    *ns2.timer_relations(PARAMS),
    Relation(
        ("duration_s", "access_delay_ms", "sat_delay_ms", "access_rate_bps", "sat_rate_bps", "mss"),
        lambda p: arrives_in(first_arrival_s(p), p["duration_s"]),
        "the run (duration_s) must last until a flow's first packet can reach D (the links' delays and its "
        "transmission at their rates)",
        lambda p: f"here at {first_arrival_s(p):.6g} s at the earliest",
    ),
]


# --------------------------------------------------------------------------
# Paths


def _tx_s(nbytes: int, rate_bps: float) -> float:
    return nbytes * 8 / rate_bps


def base_rtt_s(p: Mapping[str, Any], bottleneck_delay_ms: float, extra_access_ms: float = 0.0) -> float:
    """RTT without queueing: propagation both ways plus a full data packet's
    transmission on the access link and the bottleneck, and a bare ACK's."""
    prop = 2 * (p["access_delay_ms"] + extra_access_ms + bottleneck_delay_ms) / 1e3
    data = _tx_s(p["mss"] + HEADER_BYTES, p["access_rate_bps"]) + _tx_s(p["mss"] + HEADER_BYTES, p["sat_rate_bps"])
    ack = _tx_s(HEADER_BYTES, p["access_rate_bps"]) + _tx_s(HEADER_BYTES, p["sat_rate_bps"])
    return prop + data + ack


def base_ticks(p: Mapping[str, Any], case: str) -> int:
    """The base RTT in whole ticks (the sender's view) of the case's path
    ("fair": of its long-delay flow)."""
    d = p["short_delay_ms"] if case == "short" else p["sat_delay_ms"]
    return int(base_rtt_s(p, d) / p["tick_s"] + 1e-9)


def _ms(x: float) -> str:
    return f"{round(x * 1000)}us"


def _tcp(p: Mapping[str, Any], scheme: str, threshold_ms: float | None = None) -> dict:
    w = p["window_pkts"] * p["mss"]
    tcp: dict[str, Any] = {
        "variant": "reno",
        "mss": f"{p['mss']}B",
        "initial_cwnd": whole(p, "initial_cwnd"),
        "initial_ssthresh": f"{w}B",
        "rwnd": f"{w}B",
        "delayed_ack": bool(p["delayed_ack"]),
        "initial_rto": _ms(p["initial_rto_s"] * 1e3),
        "min_rto": _ms(p["min_rto_s"] * 1e3),
        "max_rto": ns2.seconds_text(p["max_rto_s"]),
        "clock_granularity": _ms(p["tick_s"] * 1e3),
        # Limited Transmit (RFC 3042) on: the document is from 2002; ns-2 releases from 2002 on send a new
        # segment on the first two duplicate ACKs by default (Agent/TCP singledup_ 1).
        "limited_transmit": True,
        # ns-2's Reno with bug_fix_ (default true): one fast retransmit per window.
        "reno_one_fast_retransmit_per_window": True,
        **ns2.timer_tcp(p),
    }
    if threshold_ms is not None:
        tcp["classifier"] = {
            "kind": "rtt_threshold",
            "threshold": _ms(threshold_ms),
            "on_timeout": p["on_timeout"],
            "before_rtt_sample": p["before_rtt_sample"],
        }
    elif scheme != "off":
        if not scheme.startswith("k"):
            raise ValueError(f"unknown scheme {scheme!r}")
        tcp["classifier"] = {
            "kind": "rtt_threshold",
            "ticks_above_base": int(scheme[1:]),
            "tick": _ms(p["tick_s"] * 1e3),
            "on_timeout": p["on_timeout"],
            "before_rtt_sample": p["before_rtt_sample"],
        }
    return tcp


def bit_error_rate(rate: float, p: Mapping[str, Any]) -> float:
    """The per-bit error rate that loses an n-byte packet exactly as the
    document's rate does in the reading ``ber_unit``: per bit, the rate
    itself; per byte (ns-2's ``unit byte``: 1 - (1 - rate)^n), the bit rate b
    with (1 - b)^8 = 1 - rate."""
    unit = p["ber_unit"]
    if unit == "bit":
        return float(rate)
    if unit == "byte":
        return -math.expm1(math.log1p(-float(rate)) / 8)
    raise ValueError(f"ber_unit must be 'bit' or 'byte', not {unit!r}")


def packet_loss(rate: float, p: Mapping[str, Any]) -> float:
    """Probability that a full data packet (MSS + headers) is corrupted."""
    return -math.expm1((p["mss"] + HEADER_BYTES) * 8 * math.log1p(-bit_error_rate(rate, p)))


def _error(ber: float, p: Mapping[str, Any]) -> dict:
    return {"kind": "ber", "ber": bit_error_rate(ber, p), "applies_to": "all" if p["ack_errors"] else "data"}


def scenario(cell: Mapping[str, Any], scheme: str, p: Mapping[str, Any], threshold_ms: float | None = None,
             series: bool = False) -> dict:
    """The scenario of a cell: ``case`` "long" (satellite), "short" (50 ms
    RTT) or "fair" (one long-delay and one short-delay flow), ``flows`` bulk
    connections, ``ber`` on the bottleneck (0: an error-free, "wired" path).

    Senders S0.. reach the gateway GW over their own access links; GW -> D
    is the bottleneck (the satellite link) and the only lossy link."""
    case, n, ber = cell["case"], int(cell["flows"]), float(cell["ber"])
    if case == "long":
        bottleneck, extra = p["sat_delay_ms"], [0.0] * n
    elif case == "short":
        bottleneck, extra = p["short_delay_ms"], [0.0] * n
    elif case == "fair":
        if n != 2:
            raise ValueError("the fairness case has two flows")
        bottleneck = p["short_delay_ms"]
        extra = [p["sat_delay_ms"] - p["short_delay_ms"], 0.0]  # S0 is the long-delay flow
    else:
        raise ValueError(f"unknown case {case!r}")
    links: list[dict] = [
        {
            "a": f"S{i}",
            "b": "GW",
            "rate": f"{p['access_rate_bps']}bps",
            "delay": _ms(p["access_delay_ms"] + extra[i]),
            "queue": {"kind": "droptail", "limit": f"{p['queue_pkts']}pkt"},
        }
        for i in range(n)
    ]
    sat: dict[str, Any] = {
        "a": "GW",
        "b": "D",
        "rate": f"{p['sat_rate_bps']}bps",
        "delay": _ms(bottleneck),
        "queue": {"kind": "droptail", "limit": f"{p['queue_pkts']}pkt"},
    }
    if ber > 0:
        sat["a_to_b"] = {"error": _error(ber, p)}
        if p["ack_errors"]:
            sat["b_to_a"] = {"error": _error(ber, p)}
    links.append(sat)
    tcp = _tcp(p, scheme, threshold_ms)
    sc: dict[str, Any] = {
        "simulation": {"duration": f"{p['duration_s']}s", "seed": 1},
        "link": links,
        "flow": [{"name": f"ftp{i}", "from": f"S{i}", "to": "D", "tcp": tcp, "app": {"kind": "bulk"}} for i in range(n)],
    }
    if series:
        sc["output"] = {"timeseries": {"interval": f"{TRACE_INTERVAL_S * 1e3:g}ms", "flows": True, "links": False}}
    return sc


# --------------------------------------------------------------------------
# Metrics

_CONFUSION = {
    "cc": "loss_congestion_as_congestion",
    "cw": "loss_congestion_as_wireless",
    "wc": "loss_wireless_as_congestion",
    "ww": "loss_wireless_as_wireless",
    "oc": "loss_other_as_congestion",
    "ow": "loss_other_as_wireless",
}
_COUNTERS = ["timeouts", "spurious_timeouts", "fast_retransmits", "drops_channel", "drops_queue"]


def _ratio(a: float, b: float) -> float:
    return a / b if b else math.nan


def metrics(res, cell, scheme, p) -> dict[str, float]:
    """Per run: aggregate goodput (kb/s), per-flow goodputs and Jain's index,
    loss counters and the classifier's confusion matrix (summed over flows)
    with its error rates: type 1 = congestion losses called corruption /
    congestion losses judged; type 2 = corruption losses called congestion /
    corruption losses judged."""
    from .. import jain_fairness

    cols = ["goodput_bps", *_COUNTERS, *_CONFUSION.values()]
    f = res.tables["flows"].select(cols).to_pydict()
    good = [g / 1e3 for g in f["goodput_bps"]]
    m: dict[str, float] = {"goodput_kbps": sum(good), "jain": jain_fairness(good) if len(good) > 1 else 1.0}
    if cell["case"] == "fair":
        m["long_kbps"], m["short_kbps"] = good[0], good[1]
    for k in _COUNTERS:
        m[k] = float(sum(f[k]))
    c = {short: float(sum(f[col])) for short, col in _CONFUSION.items()}
    m.update({f"loss_{k}": v for k, v in c.items()})
    m["type1_rate"] = _ratio(c["cw"], c["cc"] + c["cw"])
    m["type2_rate"] = _ratio(c["wc"], c["wc"] + c["ww"])
    return m


STATISTICS = {"avg": mean, "sd": std}


# --------------------------------------------------------------------------
# Cells and schemes


def _cells() -> list[dict]:
    cells = [{"case": "long", "flows": n, "ber": b} for n in (1, 2, 3) for b in BERS]
    cells += [{"case": "short", "flows": 1, "ber": b} for b in BERS]
    cells += [{"case": "long", "flows": 1, "ber": 0.0}, {"case": "short", "flows": 1, "ber": 0.0}]
    cells += [{"case": "fair", "flows": 2, "ber": b} for b in (0.0, *BERS)]
    return cells


def _schemes(max_ticks: int) -> list[Scheme]:
    out = [Scheme("off", "off", "TCP Reno: every loss is congestion")]
    for k in range(max_ticks + 1):
        out.append(Scheme(f"k{k}", f"base+{k}", f"Reno with the RTT threshold at the base RTT + {k} ticks"))
    return out


K_SCHEMES = [f"k{k}" for k in range(MAX_TICKS + 1)]


# --------------------------------------------------------------------------
# Claims. Issue 11's definitions (written before its runs): the claims'
# words and thresholds are those fixed before the first full run, each now
# judged by 95% confidence intervals over the runs, paired by seed (run i of
# every scheme and cell uses seed i). A linear condition on the mean goodputs
# (T(2) >= 1.05 T(0), ...) is a linear contrast of the per-run goodputs
# (stats.contrast: the t interval of the per-run contrast); the gain order of
# claim 2, a comparison of ratios, uses per-run relative gains.

GOODPUT = "goodput_kbps"
PLATEAU = K_SCHEMES[2:]  # base+2 .. base+10


def _T(n: Numbers, cell: dict, scheme: str, metric: str = GOODPUT) -> float:
    return n.get(cell, scheme, metric, "avg")


def _c(n: Numbers, cell: dict, terms: list[tuple[str, float]]):
    """sum of w * T(scheme) over ``terms`` in one cell, paired by run, 95% CI."""
    return n.contrast([(cell, sch, w) for sch, w in terms], GOODPUT, "avg")


def _all(verdicts: list[bool | None]) -> bool | None:
    return stats.at_least(verdicts, len(verdicts))


def _word(v: bool | None) -> str:
    return {True: "holds", False: "fails", None: "undecided"}[v]


def _curve_text(n: Numbers, cell: dict) -> str:
    t = [_T(n, cell, s) for s in K_SCHEMES]
    return f"off {_T(n, cell, 'off'):.0f}, base+0..+{MAX_TICKS}: " + ", ".join(f"{x:.0f}" for x in t) + " kb/s"


def _rise_level(n: Numbers, cell: dict, p: Mapping[str, Any]) -> tuple[bool | None, str]:
    """Rises: T(2) - 1.05 T(0) > 0. Levels off: for every k >= 3,
    T(k) - T(2) - 0.5 (T(2) - T(0)) = T(k) - 1.5 T(2) + 0.5 T(0) < 0."""
    rise = _c(n, cell, [("k2", 1.0), ("k0", -1.05)])
    level = {k: _c(n, cell, [(f"k{k}", 1.0), ("k2", -1.5), ("k0", 0.5)]) for k in range(3, MAX_TICKS + 1)}
    v_rise = rise.above(0.0)
    v_level = _all([iv.below(0.0) for iv in level.values()])
    worst_k = max(level, key=lambda k: level[k].estimate)
    text = (
        f"{_ber_label(cell['ber'], p)}: {_curve_text(n, cell)}; T(2) - 1.05 T(0) = {rise.text(1)} kb/s ({_word(v_rise)}); "
        f"largest T(k) - 1.5 T(2) + 0.5 T(0), k = {worst_k}: {level[worst_k].text(1)} kb/s (level-off "
        f"{_word(v_level)})"
    )
    return _all([v_rise, v_level]), text


def _claim_rises(flows: int, case: str = "long"):
    def check(n: Numbers, p) -> ClaimResult:
        res = [_rise_level(n, {"case": case, "flows": flows, "ber": b}, p) for b in BERS]
        verdicts = [v for v, _ in res]
        return ClaimResult(_all(verdicts), f"{stats.summary_counts(verdicts)} of {len(BERS)} BERs. "
                           + " | ".join(t for _, t in res))

    return check


def _gains(n: Numbers, cell: dict):
    """Per-run relative gains mean(T(2..10)) / T(off) - 1 (None without runs)."""
    off = n.runs(cell, "off", GOODPUT)
    ks = [n.runs(cell, s, GOODPUT) for s in PLATEAU]
    if off is None or any(k is None for k in ks):
        return None
    with np.errstate(all="ignore"):
        return np.mean(ks, axis=0) / off - 1


def _gain_point(n: Numbers, cell: dict) -> float:
    off = _T(n, cell, "off")
    return float(np.mean([_T(n, cell, s) for s in PLATEAU])) / off - 1 if off else math.nan


def _mean_gain(n: Numbers, cell: dict) -> float:
    """The mean of the per-run gains (runs with a NaN gain left out, as the
    paired differences leave them out); the ratio of means without runs."""
    g = _gains(n, cell)
    if g is None:
        return _gain_point(n, cell)
    g = g[~np.isnan(g)]
    return float(np.mean(g)) if len(g) else math.nan


def _gain_diff(n: Numbers, a: dict, b: dict):
    """gain(a) - gain(b): the mean of the per-run differences of relative
    gains (paired t: run i of both cells uses seed i); a point without runs."""
    ga, gb = _gains(n, a), _gains(n, b)
    if ga is None or gb is None:
        return stats.point(_gain_point(n, a) - _gain_point(n, b))
    return stats.difference(ga, gb, mean)


def _order(n: Numbers, flows: int, p: Mapping[str, Any], case: str = "long") -> tuple[bool | None, str]:
    cells = {b: {"case": case, "flows": flows, "ber": b} for b in BERS}
    d1 = _gain_diff(n, cells[1e-5], cells[1e-6])
    d2 = _gain_diff(n, cells[1e-6], cells[1e-7])
    v = _all([d1.above(0.0), d2.above(0.0)])
    order = sorted(BERS, reverse=True)
    tested = "; ".join(f"{_ber_label(b, p)} {100 * _mean_gain(n, cells[b]):+.1f}%" for b in order)
    gains = "; ".join(f"{_ber_label(b, p)} {100 * _gain_point(n, cells[b]):+.1f}%" for b in order)
    text = (
        f"{flows} connection(s), plateau gain over off, mean of the per-run gains (what is tested): {tested}; "
        f"as a ratio of means: {gains}; per-run gain differences: "
        f"1e-5 minus 1e-6 {d1.text(3)} ({_word(d1.above(0.0))}), 1e-6 minus 1e-7 {d2.text(3)} "
        f"({_word(d2.above(0.0))})"
    )
    return v, text


def _claim_order(n: Numbers, p) -> ClaimResult:
    v, text = _order(n, 1, p)
    return ClaimResult(v, text)


def _claim_plural(n: Numbers, p) -> ClaimResult:
    parts, verdicts = [], []
    for flows in (2, 3):
        r = _claim_rises(flows)(n, p)
        o, s = _order(n, flows, p)
        verdicts += [r.agree, o]
        parts.append(f"{flows} connections: rise/level-off {_word(r.agree)}: {r.detail}; ordering {_word(o)}: {s}")
    return ClaimResult(_all(verdicts), " || ".join(parts))


def _claim_short(n: Numbers, p) -> ClaimResult:
    parts, verdicts = [], []
    for b in BERS:
        cell = {"case": "short", "flows": 1, "ber": b}
        # mean(T(2..10)) >= 1.05 T(off), i.e. the plateau gain of claim 2 >= 5%.
        iv = _c(n, cell, [*((s, 1.0 / len(PLATEAU)) for s in PLATEAU), ("off", -1.05)])
        verdicts.append(iv.above(0.0))
        parts.append(
            f"{_ber_label(b, p)}: plateau vs off {100 * _gain_point(n, cell):+.1f}%; mean T(2..10) - 1.05 T(off) = "
            f"{iv.text(1)} kb/s ({_word(verdicts[-1])})"
        )
    return ClaimResult(_all(verdicts), f"{stats.summary_counts(verdicts)} of {len(BERS)} BERs: " + "; ".join(parts))


def _claim_wired(n: Numbers, p) -> ClaimResult:
    parts, verdicts = [], []
    for case in ("long", "short"):
        cell = {"case": case, "flows": 1, "ber": 0.0}
        per_k = []
        worst = None
        for s in K_SCHEMES[1:]:
            # |T(k) / T(off) - 1| <= 2%: T(k) - 1.02 T(off) <= 0 and T(k) - 0.98 T(off) >= 0.
            hi = _c(n, cell, [(s, 1.0), ("off", -1.02)])
            lo = _c(n, cell, [(s, 1.0), ("off", -0.98)])
            v = _all([hi.below(0.0), lo.above(0.0)])
            per_k.append(v)
            dev = _T(n, cell, s) / _T(n, cell, "off") - 1 if _T(n, cell, "off") else math.nan
            if worst is None or abs(dev) > abs(worst[1]):
                worst = (s, dev, hi, lo)
        verdicts += per_k
        t1 = [n.get(cell, s, "loss_cw", "avg") for s in K_SCHEMES[1:]]
        s, dev, hi, lo = worst
        parts.append(
            f"{case}-delay path without errors: {_curve_text(n, cell)}; within 2% at {stats.summary_counts(per_k)} "
            f"of {len(per_k)} thresholds; largest deviation at base+{s[1:]} ({100 * dev:+.1f}%: T - 1.02 T(off) "
            f"{hi.text(1)}, T - 0.98 T(off) {lo.text(1)} kb/s{_identical_to_off(n, cell, s)}); congestion losses "
            "called corruption per run "
            + ", ".join(f"{x:.1f}" for x in t1)
        )
    return ClaimResult(_all(verdicts), " | ".join(parts))


def _identical_to_off(n: Numbers, cell: dict, worst: str) -> str:
    """In how many runs the goodput with the threshold equals the scheme
    off (stats.identical_text): what a zero-width interval leaves unsaid.
    ``""`` without runs."""
    off = n.runs(cell, "off", GOODPUT)
    if off is None:
        return ""
    ks = [n.runs(cell, s, GOODPUT) for s in K_SCHEMES[1:]]
    tied = [stats.identical_runs(k, off) for k in ks if k is not None]
    if len(tied) == len(ks) and all(same == pairs for same, pairs in tied):
        return f"; T(k) at every k and T(off) {stats.identical_text(ks[0], off)}"
    return f"; T(base+{worst[1:]}) and T(off) {stats.identical_text(n.runs(cell, worst, GOODPUT), off)}"


_PAIRED = (
    " Judged by 95% confidence intervals over the runs, paired by seed: each condition is a linear contrast of "
    "the mean goodputs, and holds if its whole interval is on the claimed side, fails if it is wholly on the "
    "other side, and is undecided otherwise; a conjunction holds if every part holds and fails if any fails."
)

def _k0_sentence(p: Mapping[str, Any]) -> str:
    """What T(0), the threshold at the base RTT, is (claim 1's definition, the Threshold choice)."""
    if p["before_rtt_sample"] == "corruption":
        return "T(0) is the scheme off but for a loss before the first RTT sample: no sample is below the base RTT"
    return "T(0) is the scheme off: no sample is below the base RTT, and a loss before the first one is congestion"


def _phase_sentence(p: Mapping[str, Any]) -> str:
    """What makes the error-free runs differ, for claim 5's definition."""
    if p["rtt_tick_s"] and p["rtt_tick_phase"] == "random":
        return (
            "Each connection's tick clock has ns-2's random phase (boot_time_), so the error-free runs differ by "
            "seed (issue 11: they were one deterministic run repeated)."
        )
    return (
        "Here no connection's tick clock has a random phase (`--set "
        + ("rtt_tick_s=null`" if not p["rtt_tick_s"] else "rtt_tick_phase=zero`")
        + "), so the error-free runs are one deterministic run repeated and their intervals have no width."
    )


CLAIMS = [
    Claim(
        "1",
        "Single connection (Fig. 3): in each BER, throughput improves as the threshold is pushed up; it already improves "
        "significantly at 53 ticks (base + 2) and starts to level off when the threshold is pushed further.",
        lambda p: (
            "T(k) = mean aggregate goodput with the threshold at base + k ticks. For each BER: *rises* = T(2) >= "
            f"1.05 T(0) ({_k0_sentence(p)}); *levels off* = max over k >= 2 of T(k) - T(2) <= "
            "half of T(2) - T(0) (less than half of the gain of the first two ticks is added by ten more), i.e. "
            "T(k) - 1.5 T(2) + 0.5 T(0) <= 0 for every k = 3..10. The claim holds if both hold at all three BERs."
            + _PAIRED
        ),
        _claim_rises(1),
    ),
    Claim(
        "2",
        "The improvement is most profound at BER 1e-5, then 1e-6, then 1e-7.",
        "Gain = mean of T(2..10) (the plateau) / T(off) - 1, the relative improvement, taken per run (issue 11: "
        "a ratio of means has no paired interval; the ratio of means is printed too). The claim holds if "
        "gain(1e-5) - gain(1e-6) > 0 and gain(1e-6) - gain(1e-7) > 0, single connection, each by the paired t "
        "interval of the per-run differences (run i of every BER uses seed i).",
        _claim_order,
    ),
    Claim(
        "3",
        "Two and three connections (Figs. 4-7): similar trends.",
        "Claims 1 and 2, with the aggregate goodput of the connections, hold for 2 and for 3 connections.",
        _claim_plural,
    ),
    Claim(
        "4",
        "Short-delay environment (RTT 50 ms, base RTT 6 ticks, Fig. 8): the threshold scheme again improves throughput.",
        "Plateau gain (as in claim 2, but as a ratio of means) >= 5% at each of the three BERs: mean of "
        "T(2..10) - 1.05 T(off) > 0." + _PAIRED,
        _claim_short,
    ),
    Claim(
        "5",
        "The threshold scheme causes no disruption to a wired connection (Fig. 9).",
        lambda p: (
            "On each error-free path (long and short delay, one connection), |T(k) / T(off) - 1| <= 2% for every "
            "k = 1..10, an equivalence test: T(k) - 1.02 T(off) <= 0 and T(k) - 0.98 T(off) >= 0. The number of "
            "congestion losses the scheme calls corruption (type-1 errors) is printed beside it. "
            + _phase_sentence(p)
            + _PAIRED
        ),
        _claim_wired,
    ),
]


# --------------------------------------------------------------------------
# Tables


def _ber_label(b: float, p: Mapping[str, Any] | None = None) -> str:
    """"BER 1e-05"; "1e-05 per byte" when the rate is read per byte."""
    if b == 0:
        return "no errors"
    return f"{b:g} per byte" if p is not None and p["ber_unit"] == "byte" else f"BER {b:g}"


def _rows(p: Mapping[str, Any], case: str, metric: str, stat: str = "avg") -> list[tuple[str, str, str, str]]:
    b = base_ticks(p, case)
    rows = [("off", metric, stat, "scheme off")]
    for k in range(MAX_TICKS + 1):
        note = " (= base)" if k == 0 else ""
        rows.append((f"k{k}", metric, stat, f"{b + k} ticks{note}"))
    return rows


def _tables(p: Mapping[str, Any]) -> list[Table]:
    """The tables, labelled for ``p`` (base RTTs in ticks, the error-rate unit)."""
    def ber_label(b: float) -> str:
        return _ber_label(b, p)

    t: list[Table] = []
    figs = {1: "Fig. 3", 2: "Fig. 5", 3: "Fig. 7"}
    for n in (1, 2, 3):
        t.append(
            Table(
                f"{figs[n]}. Throughput vs threshold, {n} connection{'s' if n > 1 else ''}, satellite path "
                f"(base RTT {base_ticks(p, 'long')} ticks){', aggregate' if n > 1 else ''}",
                where={"case": "long", "flows": n},
                column="ber",
                column_label=ber_label,
                rows=_rows(p, "long", "goodput_kbps"),
                unit="kb/s, mean goodput",
            )
        )
    t.append(
        Table(
            f"Fig. 8. Throughput vs threshold, short-delay path (base RTT {base_ticks(p, 'short')} ticks)",
            where={"case": "short", "flows": 1},
            column="ber",
            column_label=ber_label,
            rows=_rows(p, "short", "goodput_kbps"),
            unit="kb/s, mean goodput",
        )
    )
    for case, name in (("long", "satellite path"), ("short", "short-delay path")):
        for metric, what in (("type1_rate", "type-1 error rate (congestion losses called corruption)"),
                             ("type2_rate", "type-2 error rate (corruption losses called congestion)")):
            t.append(
                Table(
                    f"Beyond the document: {what}, 1 connection, {name}",
                    where={"case": case, "flows": 1},
                    column="ber",
                    column_label=ber_label,
                    rows=_rows(p, case, metric),
                    unit="mean over runs with such losses",
                    in_terminal=case == "long",
                )
            )
    for metric, what in (("jain", "Jain's index"), ("long_kbps", "long-delay flow goodput"),
                         ("short_kbps", "short-delay flow goodput")):
        t.append(
            Table(
                f"Beyond the document: fairness, one long-delay (base {base_ticks(p, 'long')} ticks) and one short-delay "
                f"(base {base_ticks(p, 'short')} ticks) flow on one bottleneck: {what}",
                where={"case": "fair"},
                column="ber",
                column_label=ber_label,
                rows=[("off", metric, "avg", "scheme off")]
                + [(f"k{k}", metric, "avg", f"base + {k} ticks") for k in (0, 1, 2, 4, MAX_TICKS)],
                unit="" if metric == "jain" else "kb/s",
                in_terminal=metric == "jain",
            )
        )
    for case, flows in (("long", 1), ("long", 3), ("short", 1)):
        t.append(
            Table(
                f"Diagnostics, {case}-delay path, {flows} connection(s): means per run (off / base+2 / base+10)",
                where={"case": case, "flows": flows},
                column="ber",
                column_label=ber_label,
                rows=[
                    (s, m, "avg", f"{lab}, {m}")
                    for s, lab in (("off", "off"), ("k2", "base+2"), ("k10", "base+10"))
                    for m in ("timeouts", "spurious_timeouts", "fast_retransmits", "drops_channel", "drops_queue",
                              "loss_cw", "loss_wc", "loss_ww", "loss_oc")
                ],
                in_terminal=False,
            )
        )
    return t


# --------------------------------------------------------------------------
# Choices

#: The base RTTs in ticks the document states: 51 on the satellite path (§3),
#: 6 on the short-delay path (Fig. 8).
DOCUMENT_BASE_TICKS = {"long": 51, "short": 6}

#: ns-2's default Agent/TCP window_ (packets), the limit the Window row argues against.
NS2_WINDOW_PKTS = 20

#: The largest cwnd (packets, with fast recovery's inflation: cwnd_bytes
#: sampled every 10 ms) over every run of the default report: all 18 cells,
#: all 12 schemes, runs 1..RUNS, the default parameters (checked 2026-11-27 by
#: running each default scenario with a flow time series; the largest was
#: long-delay, 2 flows, BER 1e-6, base+1, seed 15). The runs' metrics keep no
#: cwnd, so the Window row's "never binds" rests on this check and says so
#: only for those runs.
DEFAULT_RUNS_MAX_CWND_PKTS = 492

_FRACTIONS = {2: "half", 3: "a third", 4: "a quarter", 5: "a fifth", 6: "a sixth", 7: "a seventh", 8: "an eighth",
              9: "a ninth", 10: "a tenth"}


def _as_document(ours: int, document: int, whose: str) -> str:
    """"as the document's 51" when our base RTT in ticks is the document's,
    else says that it is not."""
    return f"as {whose} {document}" if ours == document else f"not {whose} {document}"


def _share_words(x: float) -> str:
    """A share of the link in words: "a sixth" (1/N to the nearest N, N <= 10), else a percentage."""
    n = round(1 / x) if x > 0 else 0
    return _FRACTIONS[n] if n in _FRACTIONS else f"{100 * x:.0f}%"


def _unit_comparison(p: Mapping[str, Any]) -> str:
    """The share of full data packets each reading of the error rate loses,
    per byte and per bit, at the MSS the runs use."""
    rates = sorted(BERS, reverse=True)
    per_byte = [packet_loss(b, {**p, "ber_unit": "byte"}) for b in rates]
    per_bit = [packet_loss(b, {**p, "ber_unit": "bit"}) for b in rates]

    def listed(xs: list[float]) -> str:
        return ", ".join(f"{100 * x:.3g}%" for x in xs[:-1]) + f" and {100 * xs[-1]:.3g}%"

    return f"{listed(per_byte)} of {p['mss'] + HEADER_BYTES}-byte packets instead of {listed(per_bit)}"


def _ns2_window_sentence(p: Mapping[str, Any], base_rtt: float, bdp: float) -> str:
    """Why not ns-2's default window_ of 20: on this path, can 20 packets fill the pipe?"""
    cap_bps = NS2_WINDOW_PKTS * p["mss"] * 8 / base_rtt
    if NS2_WINDOW_PKTS < bdp:
        return (
            f"ns-2's default window_ {NS2_WINDOW_PKTS} would cap one connection at {NS2_WINDOW_PKTS} packets per "
            f"{base_rtt:.2f} s = {cap_bps / 1e3:.0f} kb/s, {_share_words(cap_bps / p['sat_rate_bps'])} of the link: the "
            f"window could never exceed the {bdp:.0f}-packet pipe, no queue would form, every RTT sample would equal "
            "the base RTT, and every threshold above the base would be trivially right."
        )
    return (
        f"ns-2's default window_ {NS2_WINDOW_PKTS} is not below this path's {bdp:.0f}-packet pipe, so the argument "
        "against it on the document's path (a window that can never fill the pipe, no queue, every RTT sample at the "
        "base RTT) does not apply here."
    )


def _window_binds_sentence(p: Mapping[str, Any], bdp: float, runs: int) -> str:
    """Whether the window limit binds: checked on the default report's runs
    (DEFAULT_RUNS_MAX_CWND_PKTS); elsewhere only what pipe + buffer says."""
    fill = bdp + p["queue_pkts"]
    # The cwnd traces' parameters (trace_*) change no run of the report.
    runs_params = {k: v for k, v in p.items() if not k.startswith("trace_")}
    if runs <= RUNS and runs_params == {k: v for k, v in PARAMS.items() if not k.startswith("trace_")}:
        return (
            "So the limit is set high enough never to bind in the default runs: their largest cwnd was "
            f"{DEFAULT_RUNS_MAX_CWND_PKTS} packets (checked with cwnd traces of every run), above pipe + buffer "
            f"({fill:.0f} packets) but below the limit; cwnd alone governs."
        )
    if p["window_pkts"] <= fill:
        return (
            f"Here the limit, {p['window_pkts']} packets, is not above pipe + buffer ({fill:.0f} packets): it can "
            "bind, and then it, not cwnd alone, governs."
        )
    return (
        f"The limit is set above pipe + buffer ({fill:.0f} packets), but cwnd can pass that (in a slow start, or "
        f"through losses the classifier calls corruption: {DEFAULT_RUNS_MAX_CWND_PKTS} packets at most in the default "
        "runs), and whether it reached the limit in these runs is not checked."
    )


def _constant_rtt_ticks(p: Mapping[str, Any], rtt: float) -> str:
    """What a constant RTT reads in the RTT clock's ticks (``rtt_tick_s``;
    the classifier's ``tick_s`` when the run measures exactly): "51 ticks,
    or 52"."""
    tick = p["rtt_tick_s"] or p["tick_s"]
    whole_ticks = max(1, int(rtt / tick + 1e-9))
    unit = "" if tick == p["tick_s"] else f" of {tick * 1e3:g} ms"
    return f"{whole_ticks} ticks{unit}, or {whole_ticks + 1}"


def _satellite_rto_range(p: Mapping[str, Any]) -> str:
    """The RTOs on the satellite path, about its base RTT: "0.5-0.6" (s)."""
    low = math.floor(base_rtt_s(p, p["sat_delay_ms"]) * 10) / 10
    return f"{low:.1f}-{low + 0.1:.1f}"


def _choices(p: Mapping[str, Any], runs: int = RUNS) -> list[Choice]:
    lb, sb = base_rtt_s(p, p["sat_delay_ms"]), base_rtt_s(p, p["short_delay_ms"])
    bdp = p["sat_rate_bps"] * lb / 8 / (p["mss"] + HEADER_BYTES)
    per = {b: packet_loss(b, p) for b in BERS}
    unit = p["ber_unit"]
    return [
        Choice(
            "Topology",
            f"senders S_i --{p['access_rate_bps'] / 1e6:g} Mb/s, {p['access_delay_ms']:g} ms-- GW --"
            f"{p['sat_rate_bps'] / 1e6:g} Mb/s, {p['sat_delay_ms']:g} ms (satellite) or {p['short_delay_ms']:g} ms "
            "(short delay)-- D",
            "The document says only 'a satellite link' with a round-trip propagation 'in the order of 500 ms' and a base "
            "RTT of 51 ticks. A gateway before the satellite hop lets several senders share it (Figs. 4-7). "
            f"Base RTT (propagation + one data and one ACK transmission per hop) {lb * 1e3:.1f} ms = "
            f"{base_ticks(p, 'long')} ticks, "
            + _as_document(base_ticks(p, "long"), DOCUMENT_BASE_TICKS["long"], "the document's")
            + f"; short-delay {sb * 1e3:.1f} ms = {base_ticks(p, 'short')} ticks, "
            + _as_document(base_ticks(p, "short"), DOCUMENT_BASE_TICKS["short"], "its")
            + " (its 'RTT 50 ms' plus access and transmission).",
        ),
        Choice(
            "Satellite link rate",
            f"{p['sat_rate_bps'] / 1e6:g} Mb/s each way",
            "ns-2's satellite examples (tcl/ex/sat-repeater.tcl, sat-aloha.tcl by T. Henderson, 1999: "
            "opt(bw_up) = opt(bw_down) = 2Mb for the GEO links). The bandwidth-delay product is then "
            f"{bdp:.0f} packets.",
        ),
        Choice(
            "Buffer",
            f"DropTail, {p['queue_pkts']} packets, every queue",
            "ns-2's satellite examples (opt(ifq) Queue/DropTail, opt(qlim) 50) and ns-2's default queue limit.",
        ),
        Choice(
            "Packet size",
            f"{p['mss']} B payload + {HEADER_BYTES} B headers",
            "ns-2 Agent/TCP packetSize_ 1000 with useHeaders_ true (since 2001/11/28) adding 40 bytes. Loss per data "
            f"packet 1 - (1 - rate)^{unit}s: " + ", ".join(f"{100 * v:.3g}% at {b:g}" for b, v in sorted(per.items()))
            + ".",
        ),
        Choice(
            "Error-rate unit",
            f"per {unit}: an error rate r loses a packet of n {unit}s with probability 1 - (1 - r)^n"
            + (" (as a bit error rate 1 - (1 - r)^(1/8))" if unit == "byte" else ""),
            "The document says 'BER (bit error rate)'. ns-2's ErrorModel of 2002 applies its rate_ per packet, per "
            "byte (1 - (1 - rate_)^bytes, the uniform model) or per unit of time; a bit unit existed only as the "
            "'experimental bit-error model' of ns-2.1b8 (June 2001) for wireless nodes' protocol stacks, which needs "
            "the packet sizes set by hand (errmodel.cc: EU_BIT, datapktsize/cntrlpktsize). A study that set rate_ "
            "to the BER with `unit byte` ran about 8 times fewer errors than the document's words say: "
            + _unit_comparison(p)
            + ". Nothing in "
            "the document (figures only) tells the two apart, and the reading decides claim 2, so both are "
            "reported: per bit (the document's words) by default, `--set ber_unit=byte` for ns-2's byte unit.",
        ),
        Choice(
            "Which packets suffer bit errors",
            "data segments on the satellite link, GW -> D" + (" and ACKs on D -> GW" if p["ack_errors"] else " only"),
            "sat-repeater.tcl puts its error model on the receiving terminal's interface, so only packets arriving "
            "at the receiver (data) are corrupted; the document speaks of channel errors on the satellite link. "
            "`--set ack_errors=true` corrupts ACKs too.",
        ),
        Choice(
            "TCP",
            "Reno (RFC 5681 fast retransmit / fast recovery), one-way, no handshake, "
            + ("delayed ACKs (`--set delayed_ack=true`)" if p["delayed_ack"] else "ACK every segment"),
            "The document uses ns-2 TCP Reno; Agent/TCPSink ACKs every segment (delayed ACKs need "
            "Agent/TCPSink/DelAck).",
        ),
        Choice(
            "Window limit (window_) and initial ssthresh",
            f"{p['window_pkts']} packets for both",
            _ns2_window_sentence(p, lb, bdp)
            + " The document's "
            "Fig. 1 shows the RTT rising with cwnd, which needs a window beyond the pipe, and satellite TCP studies "
            "of the time (RFC 2488 §3.2, window scaling) size the window to the bandwidth-delay product or more. "
            + _window_binds_sentence(p, bdp, runs)
            + " As in ns-2 (TcpAgent::reset: ssthresh_ = window_), the initial ssthresh equals it.",
        ),
        Choice(
            "Initial window",
            f"{p['initial_cwnd']} segments",
            "ns-2 windowInit_ 2 (default since 2001/5/26).",
        ),
        Choice(
            "Tick, RTO timer",
            f"tick {p['tick_s'] * 1e3:g} ms: RTO granularity G and the classifier's unit; initial RTO "
            f"{p['initial_rto_s']:g} s, min {p['min_rto_s'] * 1e3:g} ms, max {p['max_rto_s']:g} s",
            "ns-2 tcpTick_ 0.01 (since 2002/03/07; the document states 0.01 s), rtxcur_init_ 6.0 (3.0 only from "
            "2006), minrto_ 0 before 2004/10/14 with rtt_timeout() never below 2 ticks, maxrto_ 100000 (60 only "
            "from 2007). Sources: ns-2.35 tcl/lib/ns-default.tcl (dated comments) and tcp.cc.",
        ),
        Choice(
            "RTT measurement",
            (
                f"in whole ticks of {p['rtt_tick_s'] * 1e3:g} ms, as ns-2: a segment sent at time t and acknowledged "
                "tao later reads int((tao + (t + phase) mod tick) / tick) ticks, at least 1 (TCP table `rtt_tick`; "
                "the phase is ns-2's boot_time_, see 'Tick phase')"
                if p["rtt_tick_s"]
                else "exact (nanoseconds)"
            ),
            "ns-2 without timestamps (timestamps_ false, its default) counts an RTT in ticks of tcpTick_: "
            "TcpAgent::rtt_update, `sendtime = now - tao + boot_time_; tickoff = fmod(sendtime, tcp_tick_); "
            "t_rtt_ = int((tao + tickoff) / tcp_tick_); if (t_rtt_ < 1) t_rtt_ = 1`, unchanged from tcp.cc rev. 1.59 "
            "(1998) to ns-2.35 (tcp/tcp.cc). The document gives RTTs and thresholds in these ticks (base RTT 51, "
            "'53 ticks', '550 ms or 55 TCP ticks'), so its classifier compared such tick counts. A constant "
            f"{lb * 1e3:.1f} ms RTT reads {_constant_rtt_ticks(p, lb)} when the send "
            "time falls late enough in a tick. The samples feed the RTO estimator too, as in ns-2. "
            "`--set rtt_tick_s=null` measures exactly (the first run's model; see the sensitivity section of "
            "docs/reproductions/threshold.md).",
        ),
        Choice(
            "Retransmission timer at a fast retransmit",
            "restarted (TCP table `restart_rto_on_fast_retransmit = true`)"
            if p["restart_rto_on_fast_retransmit"]
            else "left running (RFC 6298 (5.1))",
            "ns-2's Reno restarts it: tcp-reno.cc, RenoTcpAgent::dupack_action, at reno_action "
            "`slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF); reset_rtx_timer(1,0); output(last_ack_ + 1, "
            "TCP_REASON_DUPACK)`, and TcpAgent::reset_rtx_timer reschedules the timer at the current RTO "
            "(set_rtx_timer). Set explicitly, so that the experiment does not follow a change of airtcp's default "
            "silently. `--set restart_rto_on_fast_retransmit=false` leaves the timer running (RFC 6298 (5.1); the "
            "first run's model, when it spuriously expired just before the fast retransmission's ACK).",
        ),
        Choice(
            "Threshold",
            f"base RTT + k ticks, k = 0..{MAX_TICKS}; RTT samples and the base compared in whole ticks",
            "Fig. 3's x axis runs from the base RTT (51) upwards in ticks. "
            + (
                "k = 0 is the scheme off once the sender has an RTT sample (no sample is below the base), kept as "
                "the curve's first point; it differs only at a loss before the first sample (next row). "
                if p["before_rtt_sample"] == "corruption"
                else "k = 0 is identical to the scheme off (no sample is below the base, and a loss before the first "
                "sample is congestion: next row), kept as the curve's first point. "
            )
            + "The latest RTT sample is the sender's one "
            "timed segment per RTT (Karn's rule), as ns-2's t_rtt_. The base is the smallest sample so far (§2: "
            "'a minimal rtt value known as the base rtt', stored 'at the sending end').",
        ),
        Choice(
            "Loss before the first RTT sample",
            f"{p['before_rtt_sample']} (TCP table `before_rtt_sample`)",
            "The document is silent: §2 compares 'the sampled rtt' with the threshold ('If rtt appears to be "
            "smaller than this threshold then losses are interpreted as corruption and otherwise') and never "
            "speaks of the time before a first sample. Its classifier is 'a simple comparison with the threshold' "
            "in ns-2, where the sampled RTT is TcpAgent's t_rtt_ in ticks (the quantity Fig. 1 plots), set to 0 by "
            "TcpAgent::rtt_init and changed only by rtt_update at a sample; 0 is below every threshold, so the "
            "comparison as ns-2 holds it calls such a loss corruption. "
            "`--set before_rtt_sample=congestion` reads §2's 'and otherwise' literally instead (no rtt appears "
            "smaller; this reproduction's reading until 2026-11-27). Here the case arises only when the first segment is lost (Limited "
            "Transmit then brings three duplicate ACKs before any sample), in the same runs for every scheme; in "
            "ns-2, whose one-way TCP opens with a timed SYN-sized first packet (syn_, see 'Handshake'), it needs "
            "that packet lost too, so it was rarer there.",
        ),
        Choice(
            "Loss detected by a timeout",
            p["on_timeout"],
            "The document speaks of losses in general; its Reno modification is described for losses TCP detects. "
            "'congestion' (default): a retransmission timeout always collapses the window, since the ACK clock has "
            "stopped and the latest RTT sample predates the stall; only losses found by three duplicate ACKs are "
            "classified. `--set on_timeout=classify` classifies timeouts too (see the sensitivity run in "
            "docs/reproductions/threshold.md).",
        ),
        Choice(
            "Throughput",
            f"goodput: bytes delivered in order to the receiving application / {p['duration_s']:g} s, summed over "
            "the connections",
            "The document plots 'throughput' without saying how it is measured.",
        ),
        Choice(
            "cwnd traces",
            f"seed {p['trace_seed']}, {_ber_label(p['trace_ber'], p)}; after = threshold {p['trace_threshold_ms']} ms "
            "(satellite), base + 4 ticks (wired)",
            "Fig. 2 uses 550 ms = 55 ticks; the document does not give the BER of the traces nor the threshold of "
            "Figs. 4, 6 and 9.",
        ),
        Choice(
            "Fairness case",
            f"two flows on the {p['short_delay_ms']:g} ms bottleneck with the bit errors; the long-delay flow's access "
            f"link adds {p['sat_delay_ms'] - p['short_delay_ms']:g} ms each way (base RTTs "
            f"{base_ticks(p, 'long')} and {base_ticks(p, 'short')} ticks)",
            "The document's conclusion leaves 'long and short delay TCP connections' sharing a network open. Each "
            "sender's threshold is its own base RTT + k ticks.",
        ),
        Choice(
            "Runs and seeds",
            f"{runs} runs per (cell, scheme); run i of every scheme and cell uses seed i",
            "Common random numbers: the bit-error stream of the satellite link, and each connection's tick phase, "
            "are the same for every threshold in run i (the bit errors are drawn per packet, so they diverge once "
            "the schemes send differently).",
        ),
        Choice(
            "Tick phase",
            (
                "none: the RTT is measured exactly (`rtt_tick_s = null`), with no tick clock"
                if not p["rtt_tick_s"]
                else "random per connection, uniform in [0, tick) (TCP table `rtt_tick_phase = \"random\"`)"
                if p["rtt_tick_phase"] == "random"
                else "none: ticks at multiples of the tick from time 0"
            ),
            "ns-2's TcpAgent::reset draws `boot_time_ = Random::uniform(tcp_tick_)` per connection and "
            "rtt_update adds it to the send time before taking its offset within the tick, so which samples read "
            "one tick more differs from run to run. Without it a run on an error-free path has no randomness: "
            + (f"its {runs} runs would be one run repeated. " if runs > 1 else "its runs would be one run repeated. ")
            + "`--set rtt_tick_phase=zero` for the first runs' clock.",
        ),
    ]


def _rto_arithmetic(p: Mapping[str, Any]) -> str:
    """The RTO caveat: G is the tick; the floor (min_rto_s) and the RTT
    samples' clock (rtt_tick_s) are parameters."""
    floor_ticks = p["min_rto_s"] / p["tick_s"]
    floor = "floor of two ticks" if abs(floor_ticks - 2) < 1e-9 else f"floor {p['min_rto_s'] * 1e3:g} ms"
    if p["rtt_tick_s"] is None:
        samples = "exact RTT samples (`rtt_tick_s = null`)"
    elif p["rtt_tick_s"] == p["tick_s"]:
        samples = "the same tick-valued samples"
    else:
        samples = f"RTT samples in ticks of {p['rtt_tick_s'] * 1e3:g} ms"
    return (
        "**RTO arithmetic.** ns-2 keeps srtt and rttvar in ticks with integer shifts and discards srtt once the "
        f"backoff multiplier exceeds 8 (TcpAgent::rtt_backoff); airtcp applies RFC 6298 arithmetic (G = one tick, "
        f"{floor}) to {samples}. The RTOs are close but not identical."
    )


CAVEATS = [
    _rto_arithmetic,
    lambda p: "**Backoff cap.** ns-2's TcpAgent::rtt_backoff doubles the multiplier only while it is below 64; "
    "ns-2.35's version also doubles past 64 while the RTO is below maxrto_ when rfc2988_ is set (default since "
    f"2002/03/07), and which form the document's ns-2 had is not known. No cap here (max RTO {p['max_rto_s']:g} s); "
    f"with RTOs of {_satellite_rto_range(p)} s a cap of 64 binds only after seven expiries in a row.",
    lambda p: "**Handshake.** ns-2 (syn_ true since 2001) opens with a SYN-like first packet; airtcp's connections "
    f"start established. One RTT of a {p['duration_s']:g} s run.",
]


# --------------------------------------------------------------------------
# Plots


CWND_SERIES = "cwnd_without_inflation_bytes"  # ns-2's traced cwnd_ (no fast-recovery inflation)


def _trace_cases(p: Mapping[str, Any]) -> list[tuple[str, dict, float | None, str | None]]:
    """The cwnd traces the plots draw: (figure, cell, absolute threshold
    in ms or None, scheme "kK" or None); each is drawn before (scheme off)
    and after."""
    return [
        ("fig2", {"case": "long", "flows": 1, "ber": p["trace_ber"]}, p["trace_threshold_ms"], None),
        ("fig4", {"case": "long", "flows": 2, "ber": p["trace_ber"]}, p["trace_threshold_ms"], None),
        ("fig6", {"case": "long", "flows": 3, "ber": p["trace_ber"]}, p["trace_threshold_ms"], None),
        ("fig9", {"case": "short", "flows": 1, "ber": 0.0}, None, "k4"),
        ("fig9", {"case": "long", "flows": 1, "ber": 0.0}, None, "k4"),
    ]


def _trace_scenarios(p: Mapping[str, Any]) -> list[tuple[str, dict]]:
    """The traces' scenarios (Experiment.extra_scenarios: loaded before
    the runs, so that a trace parameter that cannot be run is refused
    then, not after every run has finished)."""
    out = []
    for fig_name, cell, thr_ms, k in _trace_cases(p):
        for scheme, t_ms in (("off", None), (k or "off", thr_ms)):
            what = f"{fig_name} {cell['case']} {cell['flows']} {scheme}" + ("" if t_ms is None else f" {t_ms} ms")
            out.append((what, scenario(cell, scheme, p, threshold_ms=t_ms, series=True)))
    return out


def _trace(cell: dict, scheme: str, p: Mapping[str, Any], threshold_ms: float | None):
    from .. import run

    sc = scenario(cell, scheme, p, threshold_ms=threshold_ms, series=True)
    res = run(sc, seed=whole(p, "trace_seed"))
    s = res.series
    return s[s.metric == CWND_SERIES], res.flows


def _errorbar(ax, summary, where: dict, metric: str, schemes, xs, **kw) -> None:
    """Mean over the runs with its 95% t interval (summary.csv's ci_low/ci_high)."""
    sub = summary[(summary.metric == metric) & (summary.statistic == "avg")]
    for k, v in where.items():
        sub = sub[sub[k] == v]
    sub = sub.set_index("scheme")
    rows = [sub.loc[sch] for sch in schemes]
    y = np.array([r.ours for r in rows], dtype=float)
    lo = np.array([r.ci_low for r in rows], dtype=float)
    hi = np.array([r.ci_high for r in rows], dtype=float)
    err = [np.nan_to_num(y - lo), np.nan_to_num(hi - y)]
    ax.errorbar(xs, y, yerr=err, fmt="-o", ms=4, capsize=2, **kw)


def _plots(summary, runs, published: Numbers, out: str, exp: Experiment, p) -> list[str]:
    import os

    import matplotlib.pyplot as plt

    files: list[str] = []
    colors = {1e-5: "tab:red", 1e-6: "tab:orange", 1e-7: "tab:blue", 0.0: "black"}
    have = {(c["case"], c["flows"]) for c in exp.cells}
    bars = "error bars: 95% CI of the mean over the runs"
    # Throughput vs threshold (Figs. 3, 5, 7, 8); the BERs' goodputs span
    # more than a decade: log axis.
    for case, n, fig_name in (("long", 1, "fig3"), ("long", 2, "fig5"), ("long", 3, "fig7"), ("short", 1, "fig8")):
        if (case, n) not in have:
            continue
        b0 = base_ticks(p, case)
        fig, ax = plt.subplots(figsize=(6, 4.2))
        for ber in sorted({c["ber"] for c in exp.cells if c["case"] == case and c["flows"] == n}, reverse=True):
            where = {"case": case, "flows": n, "ber": ber}
            _errorbar(ax, summary, where, GOODPUT, K_SCHEMES, [b0 + k for k in range(MAX_TICKS + 1)],
                      color=colors.get(ber, "gray"), label=_ber_label(ber, p))
            off = summary[(summary.case == case) & (summary.flows == n) & (summary.ber == ber)
                          & (summary.metric == GOODPUT) & (summary.statistic == "avg") & (summary.scheme == "off")]
            if len(off):
                ax.axhline(float(off.ours.iloc[0]), color=colors.get(ber, "gray"), ls=":", lw=1)
        ax.set_yscale("log")
        ax.set_xlabel("threshold (ticks of 10 ms)")
        ax.set_ylabel("goodput (kb/s)" + (", aggregate" if n > 1 else ""))
        ax.set_title(f"{fig_name.replace('fig', 'Fig. ')}: {case}-delay path, {n} connection(s); dotted: scheme off\n"
                     f"{bars}", fontsize=9)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
        fig.tight_layout()
        name = f"threshold_{fig_name}_{case}_{n}.png"
        fig.savefig(os.path.join(out, name), dpi=110)
        plt.close(fig)
        files.append(name)
    # Classifier errors
    if ("long", 1) in have:
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
        b0 = base_ticks(p, "long")
        for ax, metric, title in zip(axes, ("type1_rate", "type2_rate"),
                                     ("type 1: congestion loss called corruption", "type 2: corruption called congestion")):
            for ber in sorted({c["ber"] for c in exp.cells if c["case"] == "long" and c["flows"] == 1}, reverse=True):
                _errorbar(ax, summary, {"case": "long", "flows": 1, "ber": ber}, metric, K_SCHEMES,
                          [b0 + k for k in range(MAX_TICKS + 1)], color=colors.get(ber, "gray"),
                          label=_ber_label(ber, p))
            ax.set_xlabel("threshold (ticks)")
            ax.set_ylabel("fraction of such losses")
            ax.set_title(title, fontsize=10)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
        fig.suptitle(f"Classifier error rates, satellite path, 1 connection (mean over runs with such losses; {bars})",
                     fontsize=9)
        fig.tight_layout()
        name = "threshold_classifier_errors.png"
        fig.savefig(os.path.join(out, name), dpi=110)
        plt.close(fig)
        files.append(name)
    # Fairness
    if ("fair", 2) in have:
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
        ks = list(range(MAX_TICKS + 1))
        for ber in sorted({c["ber"] for c in exp.cells if c["case"] == "fair"}, reverse=True):
            color = colors.get(ber, "gray")
            _errorbar(axes[0], summary, {"case": "fair", "ber": ber}, "jain", K_SCHEMES, ks, color=color,
                      label=_ber_label(ber, p))
            # long / short goodput: a ratio of means with its paired-bootstrap CI.
            sub = runs[(runs.case == "fair") & (runs.ber == ber)]
            ivs = []
            for sch in K_SCHEMES:
                r = sub[sub.scheme == sch].sort_values("run")
                ivs.append(stats.ratio(r.long_kbps.to_numpy(float), r.short_kbps.to_numpy(float), mean))
            y = np.array([iv.estimate for iv in ivs])
            err = [np.nan_to_num(y - [iv.low for iv in ivs]), np.nan_to_num(np.array([iv.high for iv in ivs]) - y)]
            axes[1].errorbar(ks, y, yerr=err, fmt="-o", ms=4, capsize=2, color=color, label=_ber_label(ber, p))
        axes[0].set_ylabel("Jain's index (mean over runs)")
        axes[1].set_ylabel("goodput long / short (ratio of means)")
        axes[1].set_yscale("log")
        for ax in axes:
            ax.set_xlabel("threshold: ticks above each flow's base RTT")
            ax.grid(alpha=0.3, which="both")
            ax.legend(fontsize=8)
        fig.suptitle("Fairness: one long-delay and one short-delay flow on a lossy bottleneck (95% CIs)", fontsize=10)
        fig.tight_layout()
        name = "threshold_fairness.png"
        fig.savefig(os.path.join(out, name), dpi=110)
        plt.close(fig)
        files.append(name)
    # cwnd traces (Figs. 2, 4, 6, 9): ns-2's cwnd_, i.e. without Reno's
    # fast-recovery inflation (one run each: a trace, not a statistic).
    for fig_name, cell, thr_ms, k in _trace_cases(p):
        fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), sharey=True)
        for ax, (label, scheme, t_ms) in zip(axes, (("(a) before: scheme off", "off", None),
                                                   ("(b) after", k or "off", thr_ms))):
            cw, flows = _trace(cell, scheme, p, t_ms)
            goodput = dict(zip(flows.name, flows.goodput_bps))
            for name, g in cw.groupby("name", sort=False):
                ax.plot(g.time_s, g.value / p["mss"], lw=0.8,
                        label=f"{name}: {goodput[name] / 1e3:.0f} kb/s")
            thr = f"threshold {t_ms} ms" if t_ms is not None else (f"base + {k[1:]} ticks" if scheme != "off" else "")
            ax.set_title(f"{label} {thr}".strip(), fontsize=10)
            ax.set_xlabel("time (s)")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
        axes[0].set_ylabel("cwnd (segments), as ns-2's cwnd_:\nwithout fast recovery's inflation")
        what = "no channel errors (wired)" if cell["ber"] == 0 else _ber_label(cell["ber"], p)
        fig.suptitle(f"{fig_name.replace('fig', 'Fig. ')}: cwnd, {cell['case']}-delay path, {cell['flows']} "
                     f"connection(s), {what}, seed {p['trace_seed']} (one run)", fontsize=10)
        fig.tight_layout()
        name = f"threshold_{fig_name}_cwnd_{cell['case']}_{cell['flows']}.png"
        fig.savefig(os.path.join(out, name), dpi=110)
        plt.close(fig)
        files.append(name)
    return files


def _setup(p: Mapping[str, Any]) -> str:
    return (
        f"Senders S0..S2 reach a gateway GW over {p['access_rate_bps'] / 1e6:g} Mb/s, {p['access_delay_ms']:g} ms "
        f"links; GW -> D is the bottleneck, {p['sat_rate_bps'] / 1e6:g} Mb/s, one way {p['sat_delay_ms']:g} ms "
        f"(satellite: base RTT {base_rtt_s(p, p['sat_delay_ms']) * 1e3:.1f} ms = {base_ticks(p, 'long')} ticks) or "
        f"{p['short_delay_ms']:g} ms (short delay: {base_rtt_s(p, p['short_delay_ms']) * 1e3:.1f} ms = "
        f"{base_ticks(p, 'short')} ticks); DropTail {p['queue_pkts']} packets. Bit errors (BER 1e-5, 1e-6, 1e-7 per "
        f"{p['ber_unit']}, or none: the 'wired' path) corrupt data packets on GW -> D"
        + (" and ACKs on D -> GW" if p["ack_errors"] else "")
        + ". One to three FTP (bulk) TCP Reno connections, "
        f"MSS {p['mss']} B, window limit {p['window_pkts']} packets, "
        + ns2.timer_text(p)
        + f", {p['duration_s']} s. Schemes: Reno ('off') and "
        f"Reno with the RTT-threshold classifier at the base RTT + k ticks of {p['tick_s'] * 1e3:g} ms, k = "
        f"0..{MAX_TICKS} (a loss found by three duplicate ACKs while the latest RTT sample is below the "
        f"threshold is retransmitted without reducing the window; timeouts: {p['on_timeout']}; a loss before the "
        f"first RTT sample: {p['before_rtt_sample']}). Metric: goodput, "
        f"summed over the connections. The fairness case puts one long-delay (base {base_ticks(p, 'long')} ticks) "
        f"and one short-delay (base {base_ticks(p, 'short')} ticks) flow on the short-delay bottleneck."
    )


EXPERIMENT = Experiment(
    name="threshold",
    title="RTT-threshold TCP (Teng & Chang), Figs. 2-9",
    source=SOURCE,
    nullable=ns2.NULLABLE,
    cells=_cells(),
    schemes=_schemes(MAX_TICKS),
    scenario=scenario,
    metrics=metrics,
    statistics=STATISTICS,
    params=PARAMS,
    runs=RUNS,
    # 3: issue 11: ns-2's random tick phase (boot_time_), claims on paired CIs.
    version=3,
    setup=_setup,
    published={},
    published_note="The document publishes figures only, no numbers: each table shows ours (mean over the runs).",
    tables=_tables,
    claims=CLAIMS,
    choices=_choices,
    caveats=CAVEATS,
    unused=ns2.unused,
    plots=_plots,
    domains=DOMAINS,
    relations=RELATIONS,
    extra_scenarios=_trace_scenarios,
)
