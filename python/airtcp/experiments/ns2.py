"""ns-2's TCP timer rules, shared by the reproductions of ns-2 studies.

Each such experiment has the open parameters ``rtt_tick_s`` (RTT measured in
whole ticks, ``TcpAgent::rtt_update`` without timestamps; None: exact),
optionally ``rtt_tick_phase`` ("random": each connection's tick clock has
ns-2's random ``boot_time_`` phase; "zero" or absent: none), optionally
``max_backoff`` (``TcpAgent::rtt_backoff`` stops doubling at 64;
None: no cap) and ``restart_rto_on_fast_retransmit`` (``RenoTcpAgent::
dupack_action`` calls ``reset_rtx_timer``). These helpers turn them into
scenario TCP-table entries and into the sentence the setup text uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import (
    AIRTCP_MAX_RTO_S,
    MAX_DURATION_S,
    MAX_INITIAL_WINDOW,
    MAX_WINDOW_BYTES,
    MIN_PERIOD_S,
    MIN_TIMER_S,
    Domain,
    Relation,
    flag,
    number,
    one_of,
    whole,
    whole_number,
    zero_or,
)

#: The parameters above whose None is a setting (exact RTTs, no backoff cap):
#: an experiment that uses them passes ``nullable=ns2.NULLABLE``.
NULLABLE = frozenset({"rtt_tick_s", "max_backoff"})


def duration_us(seconds: float) -> str:
    """A scenario duration string in whole microseconds."""
    return f"{round(seconds * 1e6)}us"


def timer_tcp(p: Mapping[str, Any]) -> dict[str, Any]:
    """The TCP-table entries for the ns-2 timer parameters in ``p``."""
    tcp: dict[str, Any] = {"restart_rto_on_fast_retransmit": bool(p["restart_rto_on_fast_retransmit"])}
    if p.get("rtt_tick_s"):
        tcp["rtt_tick"] = duration_us(p["rtt_tick_s"])
        if p.get("rtt_tick_phase"):
            tcp["rtt_tick_phase"] = p["rtt_tick_phase"]
    if p.get("max_backoff"):
        tcp["max_backoff"] = whole(p, "max_backoff")
    return tcp


def unused(p: Mapping[str, Any]) -> dict[str, str]:
    """The timer parameters in ``p`` without effect given the others (for
    ``Experiment.unused``): a tick phase needs a tick clock, as the core's
    ``rtt_tick_phase`` needs ``rtt_tick``."""
    if "rtt_tick_phase" in p and not p.get("rtt_tick_s"):
        return {"rtt_tick_phase": "with rtt_tick_s = null the RTT is measured exactly, with no tick clock to phase"}
    return {}


def rtt_clause(p: Mapping[str, Any], ns2_tick_s: float) -> str:
    """How airtcp measures the RTT, against ns-2's ticks of ``ns2_tick_s``
    (for a caveat: "airtcp measures the RTT in the same ticks")."""
    if not p.get("rtt_tick_s"):
        return "measures the RTT exactly"
    if p["rtt_tick_s"] == ns2_tick_s:
        return "measures the RTT in the same ticks"
    return f"measures the RTT in ticks of {p['rtt_tick_s']:g} s"


def backoff_clause(p: Mapping[str, Any]) -> str:
    """airtcp's cap on the RTO backoff multiplier, against ns-2's 64."""
    if p.get("max_backoff") == 64:
        return "caps the multiplier at 64 as ns-2 did"
    if p.get("max_backoff"):
        return f"caps the multiplier at {p['max_backoff']} (ns-2: 64)"
    return "does not cap the multiplier (ns-2 capped it at 64)"


def timer_text(p: Mapping[str, Any]) -> str:
    """One clause describing the ns-2 timer parameters in ``p``."""
    tick = f"RTT measured in {p['rtt_tick_s']:g} s ticks" if p.get("rtt_tick_s") else "RTT measured exactly"
    if p.get("rtt_tick_s") and p.get("rtt_tick_phase") == "random":
        tick += " (each connection's tick clock with a random phase, ns-2's boot_time_)"
    parts = [tick]
    if "max_backoff" in p:
        parts.append(
            f"RTO backoff multiplier at most {p['max_backoff']}" if p["max_backoff"] else "no cap on the RTO backoff"
        )
    parts.append(
        "retransmission timer restarted at a fast retransmit"
        if p["restart_rto_on_fast_retransmit"]
        else "retransmission timer left running at a fast retransmit"
    )
    return ", ".join(parts)


#: airtcp's delayed-ACK rule when a scenario sets ``delayed_ack = true`` and
#: neither ``delack_segments`` nor ``delack_timeout`` (crates/airtcp-core/src/
#: scenario/build.rs): an ACK for every second full segment, or when the
#: timer expires. The reproductions of ns-2 studies have no parameter for
#: the timer, so their reports name this one.
AIRTCP_DELACK_SEGMENTS = 2
AIRTCP_DELACK_TIMEOUT_MS = 200


def rfc5681_initial_window(mss_bytes: int) -> int:
    """The initial window (segments) airtcp gives a scenario that sets
    none: RFC 5681 §3.1, 4 segments up to an SMSS of 1095 bytes, 3 up to
    2190, 2 above (SenderConfig::rfc5681_initial_window in the core)."""
    if mss_bytes > 2190:
        return 2
    if mss_bytes > 1095:
        return 3
    return 4


def delayed_ack_text() -> str:
    """What "delayed ACKs on" means in a run that sets no timer of its own."""
    return (
        f"an ACK for every {'second' if AIRTCP_DELACK_SEGMENTS == 2 else f'{AIRTCP_DELACK_SEGMENTS}th'} full "
        f"segment, or after {AIRTCP_DELACK_TIMEOUT_MS} ms (airtcp's delayed-ACK timer; the reproduction has no "
        "parameter for it)"
    )


# --------------------------------------------------------------------------
# Domains and relations of the TCP parameters these experiments share


def timer_domains(params: Mapping[str, Any]) -> dict[str, Domain]:
    """The domains of the TCP timer and ACK parameters of ``params`` (those
    it has): RTO timers of at least 1 ms (and, without a ``max_rto_s``, at
    most airtcp's max RTO of 60 s), an RTT tick of at least 1 us (it is
    written in whole microseconds) or null, a backoff cap from 1 to 2^32 - 1
    or null, and the flags."""
    top = MAX_DURATION_S if "max_rto_s" in params else AIRTCP_MAX_RTO_S
    why = "seconds" if "max_rto_s" in params else "seconds, at most airtcp's max RTO"
    why_cap = "" if "max_rto_s" in params else "with airtcp's max RTO a larger one never acts"
    d = {
        "initial_rto_s": number(MIN_TIMER_S, top, why),
        "min_rto_s": number(MIN_TIMER_S, top, why),
        "max_rto_s": number(MIN_TIMER_S, MAX_DURATION_S, "seconds"),
        "clock_granularity_s": zero_or(MIN_PERIOD_S, MAX_DURATION_S, "seconds"),
        "rtt_tick_s": number(MIN_PERIOD_S, MAX_DURATION_S, "seconds").or_null("RTT samples exact"),
        "rtt_tick_phase": one_of("random", "zero"),
        "max_backoff": whole_number(1, _largest_cap(top), why_cap).or_null("no cap: only the max RTO"),
        "restart_rto_on_fast_retransmit": flag(),
        "delayed_ack": flag(),
    }
    return {k: v for k, v in d.items() if k in params}


def _largest_cap(max_rto_s: float) -> int:
    """The largest backoff cap that can act with some timers: doubled from
    the shortest RTO (1 ms) the RTO reaches ``max_rto_s`` at a multiplier
    ``reach``, and a cap acts only below it (and fits in 32 bits)."""
    reach = 1
    while MIN_TIMER_S * reach < max_rto_s:
        reach *= 2
    return min(reach - 1, 2**32 - 1)


def _ns(seconds: float) -> int:
    """A duration as the scenarios write the RTO timers: whole microseconds."""
    return round(seconds * 1e6) * 1000


def seconds_text(seconds: float) -> str:
    """A duration in seconds as a scenario string: "100000s" where six
    digits say it exactly (as the scenarios have always written max_rto),
    else whole microseconds, so that 123456.7 s is not written as 123457 s."""
    short = f"{seconds:g}"
    return f"{short}s" if float(short) == seconds else duration_us(seconds)


def max_rto_ns(p: Mapping[str, Any]) -> int:
    if "max_rto_s" not in p:
        return AIRTCP_MAX_RTO_S * 10**9
    text = seconds_text(p["max_rto_s"])
    return round(float(text[:-2]) * 1e3) if text.endswith("us") else round(float(text[:-1]) * 1e9)


def _backoff_reach(p: Mapping[str, Any]) -> int:
    """The multiplier at which the RTO, doubled from min(initial_rto_s,
    min_rto_s), reaches the max RTO: a cap that stops the doubling at or
    above it never acts (build.rs, check_max_backoff_binds)."""
    base, top = min(_ns(p["initial_rto_s"]), _ns(p["min_rto_s"])), max_rto_ns(p)
    reach = 1
    while base * reach < top:
        reach *= 2
    return reach


def _backoff_acts(p: Mapping[str, Any]) -> bool:
    cap = p.get("max_backoff")
    if not cap:
        return True
    stops_at = 1 << (int(cap).bit_length() - 1)
    return stops_at < _backoff_reach(p)


def _backoff_detail(p: Mapping[str, Any]) -> str:
    reach = _backoff_reach(p)
    if reach == 1:
        return "here the RTO starts at the max RTO and never doubles, so no cap acts: use null"
    return f"here it reaches it at multiplier {reach}: max_backoff at most {reach - 1}, or null"


def timer_relations(params: Mapping[str, Any]) -> list[Relation]:
    """The rules that tie the RTO timers of ``params`` together, as the
    scenario loader has them (build.rs, tcp_spec)."""
    rel = []
    if "max_rto_s" in params:
        rel += [
            Relation(("min_rto_s", "max_rto_s"), lambda p: _ns(p["min_rto_s"]) <= max_rto_ns(p),
                     "min_rto_s must be at most max_rto_s"),
            Relation(("initial_rto_s", "max_rto_s"), lambda p: _ns(p["initial_rto_s"]) <= max_rto_ns(p),
                     "initial_rto_s must be at most max_rto_s (RFC 6298 (2.5))"),
        ]
    if "max_backoff" in params:
        names = ("max_backoff", "initial_rto_s", "min_rto_s") + (("max_rto_s",) if "max_rto_s" in params else ())
        top = "max_rto_s" if "max_rto_s" in params else f"airtcp's max RTO ({AIRTCP_MAX_RTO_S} s)"
        rel.append(Relation(
            names, _backoff_acts,
            f"a max_backoff acts only below the multiplier at which the RTO, doubled from min(initial_rto_s, "
            f"min_rto_s), reaches {top}",
            _backoff_detail,
        ))
    return rel


def window_relations(mss: str, mss_of, *counts: str) -> list[Relation]:
    """Each window parameter in ``counts`` (in segments of ``mss_of(p)``
    bytes, the MSS the parameter ``mss`` sets) times the MSS at most 2^30
    bytes, the largest window TCP can use (RFC 7323 §2.3)."""
    return [
        Relation(
            (c, mss),
            lambda p, c=c: p[c] * mss_of(p) <= MAX_WINDOW_BYTES,
            f"{c} x the MSS must be at most 2^30 bytes, the largest window TCP can use (RFC 7323 §2.3)",
            lambda p, c=c: f"with an MSS of {mss_of(p)} B, {c} at most {MAX_WINDOW_BYTES // mss_of(p):,}",
        )
        for c in counts
    ]


#: An initial window in segments (its bytes are checked by window_relations).
INITIAL_WINDOW = whole_number(1, MAX_INITIAL_WINDOW, "segments")
