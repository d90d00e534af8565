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

from .base import whole

#: The parameters above whose None is a setting (exact RTTs, no backoff cap):
#: an experiment that uses them passes ``nullable=ns2.NULLABLE``.
NULLABLE = frozenset({"rtt_tick_s", "max_backoff"})


def duration_us(seconds: float) -> str:
    """A scenario duration string in whole microseconds."""
    return f"{round(seconds * 1e6)}us"


def seconds_text(seconds: float) -> str:
    """A duration in seconds as a scenario string: "100000s" where six
    digits say it exactly (as the scenarios have always written max_rto),
    else whole microseconds, so that 123456.7 s is not written as 123457 s."""
    short = f"{seconds:g}"
    return f"{short}s" if float(short) == seconds else duration_us(seconds)


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
