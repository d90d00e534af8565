"""Kick TCP: Tables 1-3 of draft-bahk-pilc-tcp-wireless-00.

S. Bahk, J. Kim, H. Kim, "Spurring TCP retransmission upon wireless uplink
losses", Internet-Draft draft-bahk-pilc-tcp-wireless-00, 10 April 2001, §3.

One TCP Reno connection uploads a file from a mobile host MH to a wireline
host FH that is also the intermediate node, over one 64 kb/s, 10 ms
wireless link whose uplink fades (continuous-time two-state Markov chain).
Vanilla TCP (Reno) is compared with Kick TCP (Reno + kick timer at MH +
kick-aware FH) by the mean and 95th percentile of the response time over
100 runs, for file sizes 10-50 KB and three fading speeds.

Every parameter the draft leaves open is in ``PARAMS`` and listed, with the
reason for its value, in ``CHOICES``. None was tuned to match the draft.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from . import ns2
from .base import (
    Choice,
    Claim,
    ClaimResult,
    Experiment,
    Numbers,
    Scheme,
    Table,
    cell_key,
    mean,
    percentile,
    std,
)

SOURCE = (
    'S. Bahk, J. Kim, H. Kim, "Spurring TCP retransmission upon wireless uplink losses", '
    "Internet-Draft draft-bahk-pilc-tcp-wireless-00, 10 April 2001, §3, Tables 1-3"
)

# Mean good / bad sojourns in seconds (draft §3 and the table captions).
FADING = {
    "moderate": (0.8, 0.2),  # Table 1
    "fast": (0.08, 0.02),  # Table 2
    "slow": (8.0, 2.0),  # Table 3
}
TABLE_NUMBER = {"moderate": 1, "fast": 2, "slow": 3}
SIZES_KB = (10, 20, 30, 40, 50)

HEADER_BYTES = 40  # IPv4 + TCP without options, as airtcp puts on the wire
NS2_TCP_TICK_S = 0.1

PARAMS: dict[str, Any] = {
    # channel
    "loss_good": 0.0,
    "loss_bad": 1.0,
    "fading_direction": "uplink",  # or "both" (an independent fading process on FH->MH)
    "loss_rule": "during",  # or "start" (the state when the packet starts decides)
    "initial_state": "good",  # or "bad", or "stationary"
    # link
    "rate_bps": 64_000,
    "delay_ms": 10,
    "queue_pkts": 32,
    "match_ns2_packet_time": True,
    # TCP (ns-2 Agent/TCP/Reno + Agent/TCPSink defaults of early 2001)
    "mss": 536,
    "window_pkts": 20,
    "initial_cwnd": 1,
    "initial_rto_s": 6.0,
    "min_rto_s": 0.2,
    "max_rto_s": 100000.0,
    "clock_granularity_s": NS2_TCP_TICK_S,
    "rtt_tick_s": NS2_TCP_TICK_S,  # RTT measured in whole tcpTick_ ticks, as ns-2 without timestamps (None: exact)
    "max_backoff": 64,  # ns-2's cap on the RTO backoff multiplier (None: only max_rto_s)
    "restart_rto_on_fast_retransmit": True,  # ns-2 Reno's dupack_action: reset_rtx_timer(1,0)
    "delayed_ack": False,
    # application
    "kb_bytes": 1000,
    # Kick TCP
    "kick_interval": "srtt",  # or "base_rtt", or a duration such as "150ms"
    "kick_ttl": 1,
    # run length (the run ends when the file is acknowledged)
    "duration_s": 3600,
}


def link_rate_bps(p: Mapping[str, Any]) -> int:
    """The rate given to the link. With ``match_ns2_packet_time`` the rate is
    scaled so that a full data packet (MSS + the 40 header bytes airtcp puts
    on the wire) takes as long as ns-2's 536-byte packet at 64 kb/s (ns-2's
    one-way TCP of 2001 sent packetSize_ bytes, headers included)."""
    r = p["rate_bps"]
    if p["match_ns2_packet_time"]:
        r = r * (p["mss"] + HEADER_BYTES) / p["mss"]
    return round(r)


def base_rtt_s(p: Mapping[str, Any]) -> float:
    """The path's RTT without queueing: a full data packet's transmission up,
    a bare ACK's down, and the propagation delay both ways."""
    r = link_rate_bps(p)
    return 2 * p["delay_ms"] / 1e3 + (p["mss"] + HEADER_BYTES) * 8 / r + HEADER_BYTES * 8 / r


_us = ns2.duration_us


def _ge(fading: str, p: Mapping[str, Any]) -> dict:
    good, bad = FADING[fading]
    return {
        "kind": "gilbert_elliott",
        "mean_good": _us(good),
        "mean_bad": _us(bad),
        "loss_good": float(p["loss_good"]),
        "loss_bad": float(p["loss_bad"]),
        "loss_rule": str(p["loss_rule"]),
        "initial_state": str(p["initial_state"]),
        "applies_to": "all",
    }


def _link(fading: str, p: Mapping[str, Any]) -> dict:
    link: dict[str, Any] = {
        "a": "MH",
        "b": "FH",
        "rate": f"{link_rate_bps(p)}bps",
        "delay": f"{p['delay_ms']}ms",
        "queue": {"kind": "droptail", "limit": f"{p['queue_pkts']}pkt"},
        "a_to_b": {"error": _ge(fading, p)},
    }
    if p["fading_direction"] == "both":
        link["b_to_a"] = {"error": _ge(fading, p)}
    elif p["fading_direction"] != "uplink":
        raise ValueError(f"fading_direction must be 'uplink' or 'both', not {p['fading_direction']!r}")
    return link


def _kick(p: Mapping[str, Any]) -> dict:
    iv = p["kick_interval"]
    if iv == "base_rtt":
        return {"interval": _us(base_rtt_s(p)), "ttl": p["kick_ttl"]}
    if iv == "srtt":
        return {"interval": "rtt", "before_sample": _us(base_rtt_s(p)), "ttl": p["kick_ttl"]}
    return {"interval": str(iv), "ttl": p["kick_ttl"]}


def scenario(cell: Mapping[str, Any], scheme: str, p: Mapping[str, Any]) -> dict:
    """The scenario of one (fading, size) cell for "tcp" or "kick"."""
    tcp: dict[str, Any] = {
        "variant": "reno",
        "mss": f"{p['mss']}B",
        "initial_cwnd": p["initial_cwnd"],
        "rwnd": f"{p['window_pkts'] * p['mss']}B",
        "delayed_ack": bool(p["delayed_ack"]),
        "initial_rto": _us(p["initial_rto_s"]),
        "min_rto": _us(p["min_rto_s"]),
        "max_rto": f"{p['max_rto_s']:g}s",
        "clock_granularity": _us(p["clock_granularity_s"]),
        # Limited Transmit (RFC 3042) off: ns-2's equivalent, Agent/TCP singledup_,
        # defaulted to 0 until late 2001 (its test suites pin it with "The default is
        # being changed to 1"); this 2001 document predates the change.
        "limited_transmit": False,
        # ns-2's Reno with bug_fix_ (default true): one fast retransmit per window.
        "reno_one_fast_retransmit_per_window": True,
        **ns2.timer_tcp(p),
    }
    sc: dict[str, Any] = {"simulation": {"duration": f"{p['duration_s']}s", "seed": 1}}
    if scheme == "kick":
        tcp["kick"] = _kick(p)
        sc["node"] = [{"name": "FH", "agents": [{"kind": "kick"}]}]
    elif scheme != "tcp":
        raise ValueError(f"unknown scheme {scheme!r}")
    sc["link"] = [_link(cell["fading"], p)]
    sc["flow"] = [
        {
            "name": "upload",
            "from": "MH",
            "to": "FH",
            "tcp": tcp,
            "app": {"kind": "file", "size": f"{cell['size_kb'] * p['kb_bytes']}B"},
        }
    ]
    return sc


# --------------------------------------------------------------------------
# Metrics


def metrics(res, cell, scheme, p) -> dict[str, float]:
    """Per run: the response time (NaN if the file was not acknowledged
    within the run), and counters that explain it."""
    tr = res.tables["transfers"].column("response_s").to_pylist()
    f = {k: v[0] for k, v in res.tables["flows"].select(
        [
            "timeouts",
            "spurious_timeouts",
            "retransmitted_segments",
            "drops_channel",
            "drops_queue",
            "kicks_sent",
            "kickbacks_received",
            "mean_first_rto_s",
        ]
    ).to_pydict().items()}
    return {
        "response_s": tr[0] if tr else math.nan,
        "completed": 1.0 if tr else 0.0,
        **{k: float(v) for k, v in f.items()},
    }


STATISTICS = {"avg": mean, "p95": percentile(95), "sd": std}


# --------------------------------------------------------------------------
# The draft's numbers (Tables 1-3, seconds), copied exactly.

_DRAFT = {
    "moderate": {
        ("tcp", "avg"): (1.524, 3.940, 6.421, 8.911, 12.100),
        ("tcp", "p95"): (3.000, 8.331, 12.689, 29.660, 30.916),
        ("kick", "avg"): (1.634, 3.934, 5.712, 8.618, 10.995),
        ("kick", "p95"): (2.959, 8.097, 10.904, 17.225, 19.410),
    },
    "fast": {
        ("tcp", "avg"): (2.867, 7.014, 13.353, 20.609, 29.694),
        ("tcp", "p95"): (33.916, 54.756, 129.551, 75.567, 168.706),
        ("kick", "avg"): (2.525, 5.889, 8.986, 12.649, 16.395),
        ("kick", "p95"): (6.505, 17.239, 19.760, 31.705, 40.047),
    },
    "slow": {
        ("tcp", "avg"): (1.309, 2.582, 3.788, 8.811, 10.688),
        ("tcp", "p95"): (2.859, 7.131, 16.438, 24.035, 31.561),
        ("kick", "avg"): (1.309, 2.582, 3.788, 8.911, 10.688),
        ("kick", "p95"): (2.159, 6.206, 8.337, 14.611, 21.545),
    },
}

CELLS = [{"fading": f, "size_kb": s} for f in ("moderate", "fast", "slow") for s in SIZES_KB]

PUBLISHED = {
    (cell_key({"fading": f, "size_kb": s}), scheme, "response_s", stat): v
    for f, rows in _DRAFT.items()
    for (scheme, stat), values in rows.items()
    for s, v in zip(SIZES_KB, values)
}


# --------------------------------------------------------------------------
# Claims (definitions fixed before the first full run)


def _c(f: str, s: int) -> dict:
    return {"fading": f, "size_kb": s}


def _g(n: Numbers, f: str, s: int, scheme: str, stat: str) -> float:
    return n.get(_c(f, s), scheme, "response_s", stat)


def _claim_lower_and_stable(n: Numbers, p) -> ClaimResult:
    # The definition counts all 10 cells: a cell whose statistics are undefined
    # (no run of a scheme finished) cannot support the claim.
    lower = stable = defined = 0
    total = 2 * len(SIZES_KB)
    parts = []
    for f in ("fast", "moderate"):
        seg = []
        for s in SIZES_KB:
            tp, kp = _g(n, f, s, "tcp", "p95"), _g(n, f, s, "kick", "p95")
            ta, ka = _g(n, f, s, "tcp", "avg"), _g(n, f, s, "kick", "avg")
            if any(math.isnan(x) for x in (tp, kp, ta, ka)):
                seg.append(f"{s}KB undefined")
                continue
            defined += 1
            lower += kp < tp
            stable += (kp / ka) < (tp / ta)
            seg.append(f"{s}KB {kp:.2f} vs {tp:.2f} (tail {kp / ka:.2f} vs {tp / ta:.2f})")
        parts.append(f"{f}: Kick vs TCP p95 " + "; ".join(seg))
    if defined == 0:
        return ClaimResult(None, "no numbers")
    agree = lower >= total - 1 and stable >= total - 1
    undefined = f" ({total - defined} cells undefined)" if defined < total else ""
    return ClaimResult(
        agree,
        f"Kick's p95 lower in {lower} of {total} cells, tail ratio p95/avg smaller in {stable} of {total}{undefined}. "
        + " | ".join(parts),
    )


def _claim_slow_avg_identical(n: Numbers, p) -> ClaimResult:
    diffs = []
    for s in SIZES_KB:
        ta, ka = _g(n, "slow", s, "tcp", "avg"), _g(n, "slow", s, "kick", "avg")
        if math.isnan(ta) or math.isnan(ka):
            continue
        diffs.append((s, ta, ka, (ka - ta) / ta))
    if not diffs:
        return ClaimResult(None, "no numbers")
    agree = len(diffs) == len(SIZES_KB) and all(abs(d) <= 0.05 for *_, d in diffs)
    return ClaimResult(
        agree,
        "slow fading, Kick vs TCP mean: "
        + "; ".join(f"{s}KB {ka:.3f} vs {ta:.3f} ({d * 100:+.1f}%)" for s, ta, ka, d in diffs),
    )


def _grows(gains: list[float]) -> bool:
    steps = sum(b > a for a, b in zip(gains, gains[1:]))
    return gains[-1] > gains[0] and steps >= len(gains) - 2


def _claim_gains_grow(n: Numbers, p) -> ClaimResult:
    # All 4 series count: one with an undefined gain (no run of a scheme
    # finished at some size) does not grow.
    ok = defined = 0
    total = 4
    parts = []
    for f in ("fast", "moderate"):
        for stat in ("avg", "p95"):
            gains = [_g(n, f, s, "tcp", stat) - _g(n, f, s, "kick", stat) for s in SIZES_KB]
            shown = ", ".join("undefined" if math.isnan(x) else f"{x:.2f}" for x in gains)
            if any(math.isnan(g) for g in gains):
                parts.append(f"{f} {stat} gain (s) {shown}: undefined")
                continue
            defined += 1
            g = _grows(gains)
            ok += g
            parts.append(f"{f} {stat} gain (s) {shown}" + (" grows" if g else " does not grow"))
    if defined == 0:
        return ClaimResult(None, "no numbers")
    return ClaimResult(ok >= total - 1, f"{ok} of {total} series grow. " + "; ".join(parts))


def _claim_slow_p95(n: Numbers, p) -> ClaimResult:
    parts = []
    ratios = []
    for s in SIZES_KB:
        tp, kp = _g(n, "slow", s, "tcp", "p95"), _g(n, "slow", s, "kick", "p95")
        if math.isnan(tp) or math.isnan(kp) or kp == 0:
            continue
        parts.append(f"{s}KB {tp / kp:.2f}")
        if s >= 30:
            ratios.append(tp / kp)
    if len(ratios) < 3:
        return ClaimResult(None, "no numbers")
    return ClaimResult(all(r >= 1.4 for r in ratios), "slow fading, TCP p95 / Kick p95: " + ", ".join(parts))


CLAIMS = [
    Claim(
        "1",
        "Under fast and moderate fading, Kick TCP's 95th percentile response time is lower, and more stable, than vanilla TCP's.",
        "For each of the 10 (fading in {fast, moderate}, file size) cells: *lower* = Kick's p95 < TCP's p95; "
        "*more stable* = Kick's tail ratio p95/mean < TCP's (a lighter tail relative to the typical transfer; "
        "computable from the draft's published numbers too). The claim holds if both hold in at least 9 of the 10 cells "
        "(one exception allowed for the sampling noise of a 95th percentile of 100 runs).",
        _claim_lower_and_stable,
    ),
    Claim(
        "2",
        "Under slow fading the average response times of TCP and Kick TCP are nearly identical.",
        "*Nearly identical* = |mean(Kick) - mean(TCP)| <= 5% of mean(TCP) at every file size.",
        _claim_slow_avg_identical,
    ),
    Claim(
        "3",
        "The gain of Kick TCP grows with the file size.",
        "Gain = TCP - Kick in seconds, for the mean and for the p95, under fast and under moderate fading (4 series). "
        "A series *grows* if the gain at 50 KB exceeds the gain at 10 KB and at least 3 of the 4 steps between "
        "consecutive sizes increase. The claim holds if at least 3 of the 4 series grow.",
        _claim_gains_grow,
    ),
    Claim(
        "4",
        "Under slow fading, Kick TCP's 95th percentile is 1.5 to 2 times better as the data size gets larger.",
        "TCP p95 / Kick p95 >= 1.4 (the draft's 1.5 less 0.1 for sampling noise) at each of 30, 40 and 50 KB.",
        _claim_slow_p95,
    ),
]


# --------------------------------------------------------------------------
# Choices the draft left open


def _choices(p: Mapping[str, Any]) -> list[Choice]:
    rtt = base_rtt_s(p)
    return [
        Choice(
            "Loss in the good / bad state",
            f"{p['loss_good']} / {p['loss_bad']}",
            "The draft's channel is an on/off two-state Markov chain [2STATE]; the natural reading, and ns-2's "
            "ErrorModel/TwoState (state 0 error-free, state 1 errored), is no loss when good and every packet lost when bad.",
        ),
        Choice(
            "Which direction fades",
            "the uplink MH->FH only (data and kicks)" if p["fading_direction"] == "uplink" else "both directions (independent processes)",
            "The draft evaluates uplink losses (§1: 'we narrow our focus on uplink losses'); ACKs and kickbacks on the "
            "downlink are error-free. `--set fading_direction=both` adds an independent process on FH->MH.",
        ),
        Choice(
            "Packet loss rule",
            {
                "during": "lost if the channel is bad at any time while the packet is sent (`loss_rule = \"during\"`)",
                "start": "the state when the packet starts being sent decides (`loss_rule = \"start\"`)",
            }.get(p["loss_rule"], str(p["loss_rule"])),
            "The draft's simulator is ns-2 with a two-state Markov channel [2STATE]; ns-2's ErrorModel/TwoState "
            "(queue/errmodel.cc, TwoStateErrorModel::corrupt) computes `error = state_ && remainLen_ > 0`, subtracts "
            "the packet's length (its transmission time with `unit time`) from the time left in the current state, "
            "and for every state change needed to cover the packet sets `error |= state_`: a packet is errored if the "
            "bad state holds at its start or begins at any time during its transmission. The function is the same in "
            "rev. 1.39 and 1.46 (1998) and, renamed corruptPkt, in rev. 1.84 (2010, ns-2.35), so also in the 2001 ns-2 "
            "the draft used. `--set loss_rule=start` decides by the state at the start (see the sensitivity section "
            "of docs/reproductions/kick.md).",
        ),
        Choice(
            "Channel state at t = 0",
            {
                "good": "good (`initial_state = \"good\"`)",
                "bad": "bad (`initial_state = \"bad\"`)",
                "stationary": "stationary: bad with probability mean_bad / (mean_good + mean_bad)",
            }.get(p["initial_state"], str(p["initial_state"])),
            "ns-2's TwoStateErrorModel sets state_ = 0 (error-free) on the first packet it sees (`if (firstTime_) "
            "{ state_ = 0; remainLen_ = ranvar_[0]->value(); }`, same revisions as above). "
            "`--set initial_state=stationary` starts the chain in its stationary distribution.",
        ),
        Choice(
            "Link rate on the wire",
            f"{link_rate_bps(p)} b/s" + (" (64 kb/s x 576/536)" if p["match_ns2_packet_time"] else ""),
            "The draft gives a packet time for a 536-byte segment (536 x 8 / 64 kb/s = 67 ms; printed as 0.0067 s): "
            "ns-2's one-way TCP of 2001 (useHeaders_ false until 2001/11/28) sent packetSize_ bytes on the wire. airtcp "
            "adds 40 header bytes, so the rate is scaled to keep a data packet's transmission time at 67 ms (a 40-byte "
            "ACK then takes 4.7 ms instead of 5 ms).",
        ),
        Choice(
            "Buffer",
            f"DropTail, {p['queue_pkts']} packets, both directions",
            "The draft's 'router buffer of 32 slots'; the only queue that fills is MH's uplink.",
        ),
        Choice(
            "Receiver window, initial window",
            f"{p['window_pkts']} segments, {p['initial_cwnd']} segment",
            "ns-2 Agent/TCP window_ 20 and windowInit_ 1 (windowInit_ became 2 on 2001/5/26, after the draft).",
        ),
        Choice(
            "Handshake",
            "none (the connection starts established)",
            "ns-2 Agent/TCP syn_ false until 2001/5/17.",
        ),
        Choice(
            "RTO timer",
            f"initial {p['initial_rto_s']:g} s, min {p['min_rto_s']:g} s, max {p['max_rto_s']:g} s, granularity {p['clock_granularity_s']:g} s",
            "ns-2 Agent/TCP of early 2001 (tcl/lib/ns-default.tcl and tcp.cc before 2001/05/10): tcpTick_ 0.1 "
            "(0.01 from 2002/03/07), rtxcur_init_ 6.0 (the RTO before the first sample; 3.0 from 2006/01/21), no minrto_ "
            "(added 2001/05/10) but rtt_timeout() never below 2 x tcpTick_ = 0.2 s, maxrto_ 100000 (the backoff multiplier "
            "itself stops at 64: see the backoff cap). Sources: ns-default.tcl and tcp.cc of that period, and the dated "
            "comments in ns-2.35's ns-default.tcl.",
        ),
        Choice(
            "RTT measurement",
            (
                f"in whole ticks of {p['rtt_tick_s']:g} s, as ns-2: a segment sent at time t and acknowledged tao "
                "later reads int((tao + t mod tick) / tick) ticks, at least 1 (TCP table `rtt_tick`)"
                if p["rtt_tick_s"]
                else "exact (nanoseconds)"
            ),
            "ns-2 without timestamps (timestamps_ false, its default) counts an RTT in ticks of tcpTick_, 0.1 s "
            "until 2002/03/07: TcpAgent::rtt_update, `sendtime = now - tao + boot_time_; tickoff = fmod(sendtime, "
            "tcp_tick_); t_rtt_ = int((tao + tickoff) / tcp_tick_); if (t_rtt_ < 1) t_rtt_ = 1`, unchanged from "
            f"tcp.cc rev. 1.59 (1998) to ns-2.35 (tcp/tcp.cc). The path's {rtt * 1e3:.1f} ms base RTT then reads 1 "
            "tick (100 ms), or 2 when queueing and the send phase add up; the smoothed RTT, the RTO and Kick's "
            "interval (the smoothed RTT) are built from these samples, as ns-2's t_srtt_ was. `--set "
            "rtt_tick_s=null` measures exactly (the previous run's model; see the sensitivity section of "
            "docs/reproductions/kick.md).",
        ),
        Choice(
            "RTO backoff cap",
            f"multiplier at most {p['max_backoff']} (TCP table `max_backoff`)" if p["max_backoff"] else "none",
            "ns-2's TcpAgent::rtt_backoff doubles t_backoff_ only while it is below 64: `if (t_backoff_ < 64) "
            "t_backoff_ <<= 1` in tcp.cc rev. 1.59 (1998), the same test in ns-2.35 (tcp/tcp.cc), where the "
            "rfc2988_ variable (added 2002/03/07, after the draft) also lets it grow while the RTO is below maxrto_. "
            "With maxrto_ 100000 s the cap of 64 is what limits a backed-off RTO in the draft's ns-2. "
            "`--set max_backoff=null` removes it.",
        ),
        Choice(
            "Retransmission timer at a fast retransmit",
            "restarted (TCP table `restart_rto_on_fast_retransmit = true`)"
            if p["restart_rto_on_fast_retransmit"]
            else "left running (RFC 6298 (5.1))",
            "ns-2's Reno restarts it: tcp-reno.cc, RenoTcpAgent::dupack_action, at reno_action "
            "`slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF); reset_rtx_timer(1,0); output(last_ack_ + 1, "
            "TCP_REASON_DUPACK)`; TcpAgent::reset_rtx_timer reschedules the timer at the current RTO. Set "
            "explicitly, so that the experiment does not follow a change of airtcp's default silently; "
            "`--set restart_rto_on_fast_retransmit=false` leaves the timer running (RFC 6298 (5.1), the previous "
            "run's model).",
        ),
        Choice(
            "Delayed ACKs",
            "off" if not p["delayed_ack"] else "on",
            "ns-2's default sink, Agent/TCPSink, ACKs every segment (delayed ACKs need Agent/TCPSink/DelAck).",
        ),
        Choice(
            "1 KB",
            f"{p['kb_bytes']} bytes",
            "airtcp's KB; ns-2 has no file abstraction and the draft does not say. `--set kb_bytes=1024` for KiB.",
        ),
        Choice(
            "Response time",
            "from the moment the file is handed to TCP (t = 0, no handshake) until the ACK of its last byte reaches MH",
            "The time the uploading application waits for the transfer to be confirmed.",
        ),
        Choice(
            "Kick interval",
            (
                f"fixed, the path's base RTT = {rtt * 1e3:.1f} ms (2 x 10 ms + data and ACK transmission times)"
                if p["kick_interval"] == "base_rtt"
                else ("the sender's smoothed RTT" if p["kick_interval"] == "srtt" else str(p["kick_interval"]))
            ),
            "§3: 'The kick timer interval is set to the connection RTT, which upper bounds the airlink RTT. (In this "
            "simulation the two RTTs are equivalent)'. The connection RTT is what MH's TCP measures (its smoothed RTT, "
            "queueing included); the draft uses it because it bounds the airlink RTT, which MH cannot measure. Before "
            "the first RTT sample the interval is the path's base RTT "
            f"({rtt * 1e3:.1f} ms). `--set kick_interval=base_rtt` uses that fixed base RTT throughout instead "
            "(our first full run did, with the start-of-packet loss rule; its tables are in the git history of "
            "docs/reproductions/kick.md).",
        ),
        Choice(
            "Kick TTL",
            str(p["kick_ttl"]),
            "§2: a small TTL so that kicks do not go beyond the wireless network; FH is the next hop, so 1.",
        ),
        Choice(
            "95th percentile",
            "numpy's default (linear interpolation) over the 100 runs",
            "The draft does not say which estimator; with 100 runs they differ little.",
        ),
        Choice(
            "Seeds",
            "run i uses seed i (i = 1..N), the same for both schemes",
            "Common random numbers: the fading is drawn from its own random stream (keyed by the seed and the link "
            "direction), so its realisation in time is the same for TCP and Kick TCP in run i.",
        ),
    ]


CAVEATS = [
    "**Packet loss rule.** With the default `loss_rule = \"during\"` a packet is lost, as in ns-2's "
    "TwoStateErrorModel, if the bad state occurs at any time during its transmission: with 67 ms packets about "
    "1 - 0.8 x exp(-67/80) = 65% of the packets sent are lost under fast fading (mean good 80 ms), 26% under moderate "
    "fading and 20% under slow fading, against 20% for all three with `loss_rule = \"start\"` (the reproduction's "
    "previous default, before the core had the option).",
    "**Channel clock.** ns-2's TwoStateErrorModel of that period advances its state only by the transmission "
    "time of the packets it sees (the fade does not progress while the link is idle, e.g. while TCP waits for a "
    "backed-off RTO); a timer-driven variant (`unit time`, state at the packet's arrival) came later (it is in "
    "rev. 1.84, not in 1.46). We follow the draft's words, a continuous-time chain in wall-clock time; airtcp has "
    "no busy-time clock, so this difference remains.",
    "**Unfinished runs.** A run lasts at most `duration_s` (3600 s); a file not acknowledged by then has no "
    "response time and is left out of the mean and the 95th percentile (the diagnostics give the fraction of runs "
    "finished). Where few runs finish, those statistics describe the fastest runs only; where none does, they are "
    "undefined (shown as -) and the claims count the cell against the document.",
    "**A possible reason why the draft's fast fading is milder than ours (a hypothesis; not used).** ns-2's "
    "ErrorModel has `bandwidth_ 2Mb` by default (tcl/lib/ns-default.tcl) and, with `unit time`, counts a packet as "
    "8 x size / bandwidth_ seconds of channel time (ErrorModel::PktLength). Unless the draft's script set "
    "bandwidth_ to the link's 64 kb/s, each 536-byte packet advanced the fading chain by 2.1 ms instead of 67 ms: "
    "about 0.2 + 0.8 x (1 - exp(-2.1/80)) = 22% of packets lost under fast fading instead of 65%, in bursts of "
    "several packets. The draft does not show its script and states the 67 ms packet time, so we keep 67 ms.",
    "**RTO arithmetic.** ns-2 (2001) kept srtt and rttvar in 100 ms ticks with integer shift arithmetic "
    "(RTO = srtt + 4 rttvar in ticks, at least 2 ticks) and discarded srtt once the backoff multiplier exceeded 8 "
    "(TcpAgent::rtt_backoff). airtcp measures the RTT in the same ticks and caps the multiplier at 64 as ns-2 did, "
    "but applies RFC 6298 arithmetic (G = 100 ms, min 200 ms, initial 6 s) and keeps srtt across backoffs; the RTOs "
    "are close but not identical.",
    "**Tick phase.** ns-2 adds boot_time_, drawn uniformly in [0, tcpTick_) per connection (TcpAgent::reset: "
    "`boot_time_ = Random::uniform(tcp_tick_)`), to the send time before taking its phase within the tick; airtcp's "
    "tick clock starts with the simulation (boot_time_ = 0). With 100 ms ticks and a 92 ms base RTT this decides "
    "whether a sample reads 1 or 2 ticks; send times spread over the tick either way, so it changes which samples "
    "read 2, not the rule.",
    "**Segment sizes.** ns-2's one-way TCP sends every segment full-sized; airtcp's last segment carries the "
    "remainder of the file.",
]


def _plots(summary, runs, published: Numbers, out: str, exp: Experiment, p) -> list[str]:
    import os

    import matplotlib.pyplot as plt

    files = []
    colors = {"tcp": "tab:red", "kick": "tab:blue"}
    labels = {s.name: s.label for s in exp.schemes}
    fadings = [f for f in ("moderate", "fast", "slow") if any(c["fading"] == f for c in exp.cells)]
    for f in fadings:
        sizes = sorted({c["size_kb"] for c in exp.cells if c["fading"] == f})
        fig, axes = plt.subplots(1, 2, figsize=(10, 4))
        for ax, stat, name in zip(axes, ("avg", "p95"), ("mean", "95th percentile")):
            for scheme in ("tcp", "kick"):
                sub = summary[(summary.fading == f) & (summary.scheme == scheme) & (summary.metric == "response_s") & (summary.statistic == stat)]
                sub = sub.sort_values("size_kb")
                ax.plot(sub.size_kb, sub.ours, "-o", color=colors[scheme], label=f"{labels[scheme]} (airtcp)")
                pub = [published.get({"fading": f, "size_kb": s}, scheme, "response_s", stat) for s in sizes]
                if not all(math.isnan(x) for x in pub):
                    ax.plot(sizes, pub, "--s", color=colors[scheme], alpha=0.6, label=f"{labels[scheme]} (draft)")
            ax.set_xlabel("file size (KB)")
            ax.set_ylabel("response time (s)")
            ax.set_title(f"{name}, {f} fading")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
        fig.suptitle(f"Table {TABLE_NUMBER[f]}: {f} fading (good/bad {FADING[f][0]:g}/{FADING[f][1]:g} s)")
        fig.tight_layout()
        name = f"kick_table{TABLE_NUMBER[f]}_{f}.png"
        fig.savefig(os.path.join(out, name), dpi=110)
        plt.close(fig)
        files.append(name)
    # CDFs at the largest size
    big = max(c["size_kb"] for c in exp.cells)
    fig, axes = plt.subplots(1, len(fadings), figsize=(4 * len(fadings), 3.6), squeeze=False)
    for ax, f in zip(axes[0], fadings):
        for scheme in ("tcp", "kick"):
            x = runs[(runs.fading == f) & (runs.size_kb == big) & (runs.scheme == scheme)].response_s.dropna().sort_values()
            if len(x):
                ax.step(x, [(i + 1) / len(x) for i in range(len(x))], where="post", color=colors[scheme], label=labels[scheme])
        ax.set_xscale("log")
        ax.set_xlabel("response time (s)")
        ax.set_title(f"{f} fading, {big} KB")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    axes[0][0].set_ylabel("fraction of runs")
    fig.tight_layout()
    name = f"kick_cdf_{big}KB.png"
    fig.savefig(os.path.join(out, name), dpi=110)
    plt.close(fig)
    files.append(name)
    return files


def _tables() -> list[Table]:
    rows = [
        ("tcp", "response_s", "avg", "TCP, avg"),
        ("tcp", "response_s", "p95", "TCP, 95%"),
        ("kick", "response_s", "avg", "Kick, avg"),
        ("kick", "response_s", "p95", "Kick, 95%"),
    ]
    return [
        Table(
            title=f"Table {TABLE_NUMBER[f]}. Average and 95 percentile response times, {f} fading "
            f"(good/bad {FADING[f][0]:g}/{FADING[f][1]:g} s)",
            where={"fading": f},
            column="size_kb",
            column_label=lambda s: f"{s}KB",
            rows=rows,
            unit="s",
        )
        for f in ("moderate", "fast", "slow")
    ] + [
        Table(
            title=f"Diagnostics, {f} fading: means per run",
            where={"fading": f},
            column="size_kb",
            column_label=lambda s: f"{s}KB",
            rows=[
                ("tcp", "completed", "avg", "TCP, fraction of runs finished within the run length"),
                ("kick", "completed", "avg", "Kick, fraction of runs finished within the run length"),
                ("tcp", "drops_channel", "avg", "TCP, packets lost on the channel"),
                ("tcp", "timeouts", "avg", "TCP, timeouts"),
                ("tcp", "spurious_timeouts", "avg", "TCP, spurious timeouts"),
                ("tcp", "retransmitted_segments", "avg", "TCP, retransmitted segments"),
                ("kick", "drops_channel", "avg", "Kick, packets lost on the channel"),
                ("kick", "timeouts", "avg", "Kick, timeouts"),
                ("kick", "spurious_timeouts", "avg", "Kick, spurious timeouts"),
                ("kick", "retransmitted_segments", "avg", "Kick, retransmitted segments"),
                ("kick", "kicks_sent", "avg", "Kick, kicks sent"),
                ("kick", "kickbacks_received", "avg", "Kick, kickbacks received"),
            ],
            in_terminal=False,
        )
        for f in ("moderate", "fast", "slow")
    ]


def _setup(p: Mapping[str, Any]) -> str:
    return (
        f"Two nodes: the mobile host MH and the wireline host FH, which is also the intermediate node (kick-aware "
        f"in the Kick TCP runs), joined by one wireless link of {p['rate_bps'] / 1e3:g} kb/s "
        f"(on the wire {link_rate_bps(p)} b/s, see the choices) and {p['delay_ms']} ms each way, DropTail "
        f"{p['queue_pkts']} packets. One TCP Reno connection uploads a file of 10-50 KB from MH to FH (MSS "
        f"{p['mss']} B; " + ns2.timer_text(p) + "). The uplink MH->FH fades: a continuous-time two-state "
        f"Markov chain with exponential sojourns, mean good/bad 0.8/0.2 s (moderate, Table 1), 0.08/0.02 s "
        f"(fast, Table 2), 8/2 s (slow, Table 3), starting {p['initial_state']}; "
        + (
            "a packet is lost if the channel is bad at any time during its transmission (ns-2's rule). "
            if p["loss_rule"] == "during"
            else "a packet is lost if the channel is bad when its transmission starts. "
        )
        + f"Schemes: vanilla TCP (Reno) and Kick TCP (Reno + kick timer at MH + kick-aware FH). "
        f"Metric: the response time of the upload; mean and 95th percentile over the runs."
    )


EXPERIMENT = Experiment(
    name="kick",
    title="Kick TCP (draft-bahk-pilc-tcp-wireless-00), Tables 1-3",
    source=SOURCE,
    cells=CELLS,
    schemes=[
        Scheme("tcp", "TCP", "TCP Reno"),
        Scheme("kick", "Kick", "TCP Reno with the kick timer, and a kick-aware FH"),
    ],
    scenario=scenario,
    metrics=metrics,
    statistics=STATISTICS,
    params=PARAMS,
    runs=100,
    version=2,
    setup=_setup,
    published=PUBLISHED,
    published_note="For each row: our number, the draft's (Tables 1-3, seconds) and the ratio ours/draft.",
    tables=_tables(),
    claims=CLAIMS,
    choices=_choices,
    caveats=CAVEATS,
    plots=_plots,
)
