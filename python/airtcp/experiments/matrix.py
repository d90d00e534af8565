"""The cross-scheme matrix (issue 16): every scheme on every environment of
the five source documents, judged against today's baseline, CUBIC with SACK.

Each source document compared its scheme with the baselines of 2001-2003 on
its own path. Here every scheme runs on every document's environment:

* **environments** (the cells): Kick TCP's fading uplink, WMECN's wireless
  LAN behind a RED bottleneck, DCLOR's stalling cellular path, the RTT
  threshold paper's GEO satellite link and G-Snoop's mid-path wireless hop.
  Each is built by its reproduction's own scenario function (``scenario``
  of :mod:`.kick`, :mod:`.wmecn`, :mod:`.dclor`, :mod:`.threshold`,
  :mod:`.gsnoop`) with that reproduction's parameters, at one
  representative point of its grid (``PARAMS``), so a fix to an environment
  there is a fix here.
* **schemes** (the rows): a fixed TCP stack each (``SCHEMES``), the same in
  every environment; the environment's own TCP settings (timers, MSS,
  delayed ACKs, windows) stay as its reproduction has them. Where the
  environment's document ran the scheme itself, its own scenario is used.
* a (cell, scheme) where the mechanism cannot work is not run and carries
  the reason (:func:`not_applicable`).

Run *i* of every scheme in an environment uses seed *i* (common random
numbers: each channel, stall and arrival process draws from its own stream
keyed by the seed and the component, so the same seed gives every scheme the
same draws: the same fades, stalls and arrivals in time, the same sequence
of per-packet loss coins, which fall on different packets once two schemes
send differently; docs/architecture.md). Each environment keeps its document's metric (response
time, goodput, download time) and adds goodput normalised to CUBIC+SACK:
mean goodput of the scheme / mean goodput of CUBIC+SACK over the same runs,
with a 95% paired-bootstrap interval (:meth:`Numbers.ratio
<airtcp.experiments.base.Numbers.ratio>`).

``airtcp reproduce matrix`` runs it; docs/reproductions/matrix.md describes
it. The outputs (heatmap, table as Markdown, CSV and Parquet, report) are
written by :func:`write`.
"""

from __future__ import annotations

import copy
import functools
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from . import dclor, gsnoop, kick, threshold, wmecn
from .base import (
    MAX_SIZE_BYTES,
    Choice,
    Domain,
    Experiment,
    Numbers,
    Scheme,
    flag,
    mean,
    one_of,
    probability,
    whole,
    whole_number,
)

# --------------------------------------------------------------------------
# Schemes

BASELINE = "cubic_sack"
# Only while CUBIC is not in airtcp (development): SACK stands in, labelled
# as temporary wherever a number normalised to it is shown.
TEMPORARY_BASELINE = "sack"


@dataclass(frozen=True)
class SchemeSpec:
    """One row of the matrix.

    ``tcp``: the fields of each TCP flow's table that make the scheme (the
    environment's other TCP fields stay). ``agent``: the middlebox it needs
    ("kick", "snoop", "gsnoop", "arq", "wmecn" for MECN-marking routers) or
    None for an end-to-end scheme. ``own``: environment -> the scheme's
    name in that environment's reproduction, where its document ran it (its
    scenario is then used as it is).
    """

    name: str
    label: str
    description: str
    tcp: Mapping[str, Any] = field(default_factory=dict)
    agent: str | None = None
    own: Mapping[str, str] = field(default_factory=dict)


def _threshold_classifier(p: Mapping[str, Any]) -> dict:
    # The threshold reproduction's own classifier table (its tick and
    # on_timeout and before_rtt_sample), at the matrix's number of ticks
    # above the base RTT.
    tp = threshold.EXPERIMENT.params
    return {
        "kind": "rtt_threshold",
        "ticks_above_base": whole(p, "rtt_threshold_ticks"),
        "tick": threshold._ms(tp["tick_s"] * 1e3),
        "on_timeout": tp["on_timeout"],
        "before_rtt_sample": tp["before_rtt_sample"],
    }


SCHEMES: list[SchemeSpec] = [
    SchemeSpec("reno", "Reno", "TCP Reno (RFC 5681)", {"variant": "reno"}),
    SchemeSpec("newreno", "NewReno", "NewReno (RFC 6582)", {"variant": "newreno"}),
    SchemeSpec("sack", "SACK", "NewReno with SACK loss recovery (RFC 2018, RFC 6675)", {"variant": "sack"}),
    SchemeSpec(
        "cubic_sack", "CUBIC+SACK", "CUBIC (RFC 9438) with SACK loss recovery: today's baseline",
        {"variant": "sack", "cc": {"kind": "cubic"}},
    ),
    SchemeSpec(
        "cubic_rack", "CUBIC+RACK-TLP", "CUBIC with SACK and RACK-TLP loss detection (RFC 8985)",
        {"variant": "sack", "cc": {"kind": "cubic"}, "loss_detection": "rack_tlp"},
    ),
    SchemeSpec("westwood_plus", "Westwood+", "TCP Westwood+ (Grieco & Mascolo 2004) on Reno",
               {"variant": "reno", "cc": {"kind": "westwood_plus"}}),
    SchemeSpec(
        "eifel", "Eifel", "Eifel detection and response (RFC 3522, RFC 4015) with timestamps, on SACK",
        {"variant": "sack", "timestamps": True, "timeout_response": "eifel"}, own={"dclor": "eifel"},
    ),
    SchemeSpec(
        "frto", "F-RTO", "SACK-enhanced F-RTO (RFC 5682 §3), on SACK",
        {"variant": "sack", "timeout_response": "frto_sack"}, own={"dclor": "frto"},
    ),
    SchemeSpec(
        "dclor", "DCLOR", "DCLOR (draft-swami-tsvwg-tcp-dclor-00), on SACK",
        {"variant": "sack", "timeout_response": "dclor"}, own={"dclor": "dclor"},
    ),
    SchemeSpec("kick", "Kick", "Kick TCP: Reno with the kick timer and a kick-aware node", agent="kick",
               own={"kick": "kick"}),
    SchemeSpec("wmecn", "WMECN", "WMECN marking routers, filtering and graded response at the source",
               agent="wmecn", own={"wmecn": "wmecn"}),
    SchemeSpec("wmecn_lrt", "WMECN+LRT", "WMECN with link-layer retransmission and DDA at the mobile hosts",
               agent="wmecn", own={"wmecn": "wmecn_lrt"}),
    SchemeSpec("rtt_threshold", "RTT threshold", "Reno with Teng & Chang's RTT-threshold loss classifier",
               {"variant": "reno"}),
    SchemeSpec("snoop", "Snoop", "Reno with Snoop at the node before the wireless hop", {"variant": "reno"},
               agent="snoop", own={"wmecn": "snoop", "gsnoop": "snoop"}),
    SchemeSpec("gsnoop", "G-Snoop", "Reno with G-Snoop gateways at both ends of the wireless hop",
               {"variant": "reno"}, agent="gsnoop"),
    SchemeSpec("arq", "Link-layer ARQ", "Reno over link-layer retransmission (the WMECN paper's LRT) with DDA",
               {"variant": "reno"}, agent="arq"),
]
SCHEME_BY_NAME = {s.name: s for s in SCHEMES}

# The TCP-table fields a scheme decides; anything else is the environment's.
# `slow_start` is the sender's algorithm (HyStart++ or RFC 5681), so a
# scheme decides it even though no scheme here sets it yet.
SCHEME_FIELDS = (
    "variant", "sack", "cc", "slow_start", "loss_detection", "timeout_response", "classifier", "kick", "ecn",
    "dclor_requires_sack_block",
)


@functools.lru_cache(maxsize=None)
def option_available(fields_json: str) -> bool:
    """Does this airtcp accept a TCP table with these fields (JSON)? Used to
    switch on the rows whose options (CUBIC, RACK-TLP) arrive later."""
    import json

    from ..api import ScenarioError, load

    sc = {
        "simulation": {"duration": "1s"},
        "link": [{"a": "A", "b": "B", "rate": "1Mbps", "delay": "1ms"}],
        "flow": [{"from": "A", "to": "B", "tcp": json.loads(fields_json), "app": {"kind": "bulk"}}],
    }
    try:
        load(sc)
    except ScenarioError:
        return False
    return True


def scheme_available(s: SchemeSpec) -> bool:
    import json

    return option_available(json.dumps(dict(s.tcp), sort_keys=True))


def schemes() -> list[SchemeSpec]:
    """The rows this airtcp can run (CUBIC's rows appear once CUBIC does)."""
    return [s for s in SCHEMES if scheme_available(s)]


def baseline() -> str:
    """CUBIC+SACK; SACK as a temporary stand-in while CUBIC is missing."""
    return BASELINE if scheme_available(SCHEME_BY_NAME[BASELINE]) else TEMPORARY_BASELINE


def baseline_label() -> str:
    b = baseline()
    if b == BASELINE:
        return SCHEME_BY_NAME[b].label
    return f"{SCHEME_BY_NAME[b].label} (TEMPORARY baseline: CUBIC is not in this airtcp yet)"


# --------------------------------------------------------------------------
# Environments


@dataclass(frozen=True)
class Metric:
    """The document's metric of an environment: the per-run value ``name``
    (from the environment's reproduction), its mean over runs."""

    name: str
    label: str
    unit: str
    lower_is_better: bool


@dataclass(frozen=True)
class Environment:
    """One column: a reproduction's path at one point of its grid.

    ``base``: the reproduction's scheme whose scenario is the environment
    with the document's plain TCP (the schemes' fields replace its TCP
    fields). ``cell(p)`` and ``params(p)``: the reproduction's cell and
    parameters for the matrix parameters ``p``. ``hops(p)``: the wireless
    (lossy, fading or stalling) links as (node before, node after) in the
    data's direction. ``sender``/``receiver``: the TCP data's end nodes of
    a hop's flow (to tell a first or last hop from a mid-path one).
    ``marking``: the bottleneck marks multi-level ECN (WMECN's router);
    ``bottleneck`` says what its queue is.
    """

    name: str
    label: str
    module: ModuleType
    base: str
    cell: Callable[[Mapping[str, Any]], dict]
    hops: Callable[[Mapping[str, Any]], list[tuple[str, str]]]
    senders: Callable[[Mapping[str, Any]], set[str]]
    receivers: Callable[[Mapping[str, Any]], set[str]]
    metric: Metric
    goodput: Callable[[Mapping[str, float], Mapping[str, Any], Mapping[str, Any]], float]
    keep: tuple[str, ...]
    # What the environment is, for the report: a function of the matrix's
    # parameters and the reproduction's (``params``), so that its figures
    # follow the runs, not a copy of today's defaults.
    describe: Callable[[Mapping[str, Any], Mapping[str, Any]], str]
    bottleneck: str
    marking: bool = False
    param_overrides: Callable[[Mapping[str, Any]], dict] = lambda p: {}

    def params(self, p: Mapping[str, Any]) -> dict:
        """The reproduction's parameters as they are now, with the matrix's overrides."""
        return {**self.module.EXPERIMENT.params, **self.param_overrides(p)}


def _known(p: Mapping[str, Any], name: str, known: Mapping[str, Any]) -> str:
    """Parameter ``name`` of ``p``, one of ``known``'s keys (a ValueError
    naming them otherwise: `--set` then fails with one line, exit 2)."""
    v = p[name]
    if v not in known:
        raise ValueError(f"matrix: parameter {name} must be one of {', '.join(map(repr, known))}, got {v!r}")
    return v


def _kick_goodput(m, cell, p) -> float:
    size_bits = cell["size_kb"] * p["kb_bytes"] * 8
    r = m["response_s"]
    return size_bits / r / 1e3 if r > 0 else math.nan


def _dclor_goodput(m, cell, p) -> float:
    """Payload of every finished download / the time spent downloading
    (kb/s): the rate a user sees while waiting, over the whole mix."""
    bits = sum(m[f"downloads_{s}"] * s * 1000 * 8 for s in dclor.SIZES_KB)
    secs = sum(m[f"downloads_{s}"] * m[f"mean_{s}"] for s in dclor.SIZES_KB if m[f"downloads_{s}"] > 0)
    return bits / secs / 1e3 if secs > 0 else math.nan


ENVIRONMENTS: list[Environment] = [
    Environment(
        name="kick",
        bottleneck="a DropTail queue",
        label="Kick: fading uplink",
        module=kick,
        base="tcp",
        cell=lambda p: {"fading": _known(p, "kick_fading", kick.FADING), "size_kb": whole(p, "kick_size_kb")},
        hops=lambda p: [("MH", "FH")],
        senders=lambda p: {"MH"},
        receivers=lambda p: {"FH"},
        metric=Metric("response_s", "response time", "s", True),
        goodput=_kick_goodput,
        keep=("response_s", "completed", "timeouts", "spurious_timeouts", "drops_channel"),
        describe=lambda p, ep: (
            f"Kick TCP draft §3 (Table {kick.TABLE_NUMBER[p['kick_fading']]}): MH uploads a {p['kick_size_kb']} KB "
            f"file to FH over one {ep['rate_bps'] / 1e3:g} kb/s, {ep['delay_ms']:g} ms link whose uplink fades ({p['kick_fading']}: mean good/bad "
            f"{kick.FADING[p['kick_fading']][0]:g}/{kick.FADING[p['kick_fading']][1]:g} s)"
        ),
    ),
    Environment(
        name="wmecn",
        bottleneck="RED",
        label="WMECN: wireless LAN, RED",
        module=wmecn,
        base="base",
        cell=lambda p: {"n": whole(p, "wmecn_n"), "per": float(p["wmecn_per"])},
        hops=lambda p: [("R2", f"D{i}") for i in range(1, whole(p, "wmecn_n") + 1)],
        senders=lambda p: {f"S{i}" for i in range(1, whole(p, "wmecn_n") + 1)},
        receivers=lambda p: {f"D{i}" for i in range(1, whole(p, "wmecn_n") + 1)},
        metric=Metric("goodput_pps", "goodput", "pkt/s", False),
        goodput=lambda m, cell, p: m["goodput_kbps"],
        keep=("goodput_pps", "timeouts", "drops_channel", "drops_queue", "drops_aqm"),
        marking=True,
        describe=lambda p, ep: (
            f"WMECN §5 (Fig. 3): {p['wmecn_n']} FTP sources and an on/off UDP source share a "
            f"{ep['bottleneck_rate_mbps']:g} Mb/s, {ep['bottleneck_ms']:g} ms RED "
            f"bottleneck; each destination's last (wireless) hop loses data packets with probability "
            f"{p['wmecn_per']:g}; {ep['duration_s']:g} s"
        ),
    ),
    Environment(
        name="dclor",
        bottleneck="a per-connection buffer (STIS)",
        label="DCLOR: stalling cellular path",
        module=dclor,
        base="standard",
        cell=lambda p: dict(dclor.CELL),
        hops=lambda p: [("X", "C")],
        senders=lambda p: {"S"},
        receivers=lambda p: {"C"},
        metric=Metric("mean_100", "download time, 100 KB", "s", True),
        goodput=_dclor_goodput,
        keep=("mean_5", "mean_10", "mean_100", "completed_5", "completed_10", "completed_100",
              "timeouts_100", "spurious_timeouts_100"),
        param_overrides=lambda p: {"scale": float(p["dclor_scale"])},
        describe=lambda p, ep: (
            "DCLOR draft Appendix 1 (Table 2's mix, iterations x "
            f"{p['dclor_scale']:g}): downloads of 5 KB-10 MB through a {ep['rate_bps'] / 1e3:g} kb/s, "
            f"{ep['delay_ms']:g} ms link with per-connection stalls ({100 * ep['p1']:g}% of seconds stall "
            f"{ep['d1_s']:g} s, {100 * ep['p2']:g}% stall {ep['d2_s']:g} s) and route-change reordering"
        ),
    ),
    Environment(
        name="threshold",
        bottleneck="a DropTail queue",
        label="Threshold: GEO satellite",
        module=threshold,
        base="off",
        cell=lambda p: {"case": "long", "flows": whole(p, "threshold_flows"), "ber": float(p["threshold_ber"])},
        hops=lambda p: [("GW", "D")],
        senders=lambda p: {f"S{i}" for i in range(whole(p, "threshold_flows"))},
        receivers=lambda p: {"D"},
        metric=Metric("goodput_kbps", "goodput", "kb/s", False),
        goodput=lambda m, cell, p: m["goodput_kbps"],
        keep=("goodput_kbps", "timeouts", "fast_retransmits", "drops_channel", "drops_queue"),
        describe=lambda p, ep: (
            f"Teng & Chang §3 (Figs. 3-5): {p['threshold_flows']} FTP connection(s) over a "
            f"{ep['sat_rate_bps'] / 1e6:g} Mb/s GEO link ({ep['sat_delay_ms']:g} ms one way) that corrupts data at "
            f"a {'bit' if ep['ber_unit'] == 'bit' else 'per-byte'} error rate of {p['threshold_ber']:g}; {ep['duration_s']:g} s"
        ),
    ),
    Environment(
        name="gsnoop",
        bottleneck="a DropTail queue",
        label="G-Snoop: mid-path wireless hop",
        module=gsnoop,
        base="reno",
        cell=lambda p: {
            "wireless_ms": gsnoop.GROUPS[_known(p, "gsnoop_group", gsnoop.GROUPS)][0],
            "downstream_ms": gsnoop.GROUPS[p["gsnoop_group"]][1],
            "loss": float(p["gsnoop_loss"]),
        },
        hops=lambda p: [("GA", "GB")],
        senders=lambda p: {f"S{i}" for i in range(1, gsnoop.N_FLOWS + 1)},
        receivers=lambda p: {f"D{i}" for i in range(1, gsnoop.N_FLOWS + 1)},
        metric=Metric("goodput_mbps", "goodput", "Mb/s", False),
        goodput=lambda m, cell, p: m["goodput_mbps"] * 1e3,
        keep=("goodput_mbps", "fairness", "timeouts", "drops_channel", "drops_queue"),
        describe=lambda p, ep: (
            f"G-Snoop §5 (Fig. 3, {p['gsnoop_group']}): {gsnoop.N_FLOWS} FTP flows cross a "
            f"{ep['bottleneck_rate_mbps']:g} Mb/s bottleneck, "
            f"then a {ep['wireless_rate_mbps']:g} Mb/s wireless hop between gateways A and B ("
            f"{gsnoop.GROUPS[p['gsnoop_group']][0]} ms) that loses data packets with probability "
            f"{p['gsnoop_loss']:g}, then {gsnoop.GROUPS[p['gsnoop_group']][1]} ms more to the receivers; "
            f"{ep['duration_s']:g} s"
        ),
    ),
]
ENV_BY_NAME = {e.name: e for e in ENVIRONMENTS}


PARAMS: dict[str, Any] = {
    # Kick: Table 1 (moderate fading), the draft's largest file
    "kick_fading": "moderate",
    "kick_size_kb": 50,
    # WMECN: the middle of Figs. 4-6 (5 sources, 2% packet error rate)
    "wmecn_n": 5,
    "wmecn_per": 0.02,
    # DCLOR: Table 2's mix with its iterations scaled (the full mix is hours of simulated time)
    "dclor_scale": 0.05,
    # Threshold: one connection at BER 1e-6, the middle of Figs. 3-5
    "threshold_flows": 1,
    "threshold_ber": 1e-6,
    # G-Snoop: Fig. 4's path at 1% loss
    "gsnoop_group": "fig4",
    "gsnoop_loss": 0.01,
    "gsnoop_cache": 50,
    # RTT threshold: base RTT + 4 ticks of 10 ms (the document's Fig. 2: 550 ms on a 511 ms path)
    "rtt_threshold_ticks": 4,
    # RFC 6675 §6's MAY for every connection with SACK loss recovery, in
    # every row (`restart_rto_on_recovery_retransmission`): off, as the
    # schemes' documents and RFC 6298 (5.3) have it; on as a sensitivity run
    "sack_restart_rto_in_recovery": False,
    # RFC 9937's Proportional Rate Reduction for every connection with SACK
    # loss recovery, in every row (`proportional_rate_reduction`): off, as
    # the schemes' documents have it (RFC 6675's recovery); RFC 9438 (CUBIC)
    # and RFC 8985 (RACK-TLP) recommend it, so on as a sensitivity run
    "sack_proportional_rate_reduction": False,
}


#: What each parameter may be (Experiment.domains). The environments'
#: counts stop at a thousand flows: each is a flow (and WMECN's, its
#: samples) in every run of every row.
DOMAINS: dict[str, Domain] = {
    "kick_fading": one_of(*kick.FADING),
    "kick_size_kb": whole_number(1, MAX_SIZE_BYTES // kick.PARAMS["kb_bytes"], "KB: a file of at most 1 PB"),
    "wmecn_n": whole_number(1, 1000, "FTP sources"),
    "wmecn_per": probability("of losing a data packet on each destination's wireless hop"),
    "dclor_scale": dclor.DOMAINS["scale"],
    "threshold_flows": whole_number(1, 1000, "connections"),
    "threshold_ber": probability("per bit (or per byte: the threshold reproduction's ber_unit)"),
    "gsnoop_group": one_of(*gsnoop.GROUPS),
    "gsnoop_loss": probability("of losing a data packet on the wireless hop"),
    "gsnoop_cache": whole_number(1, 2**20, "packets: gateway A's cache"),
    "rtt_threshold_ticks": whole_number(0, 2**32 - 1, "ticks of 10 ms above the base RTT"),
    "sack_restart_rto_in_recovery": flag(),
    "sack_proportional_rate_reduction": flag(),
}


# --------------------------------------------------------------------------
# Applicability


def not_applicable(cell: Mapping[str, Any], scheme: str, p: Mapping[str, Any]) -> str | None:
    """Why ``scheme`` cannot run in the environment of ``cell`` (None if it can).

    Decided from what the mechanism needs, not from results:

    * Kick needs a fading wireless uplink as the sender's own first hop and a
      kick-aware node at its far end (draft §2): only Kick's environment.
    * WMECN (+LRT) needs routers that mark multi-level ECN (§3.1): only
      WMECN's environment has one; putting one in another path would make a
      different environment.
    * Snoop runs on a base station that forwards the TCP data onto the
      wireless hop; where the sender itself transmits onto the wireless
      link there is none (Snoop's mobile-sender case, ELN, is not modelled).
    * G-Snoop needs gateways at both ends of a wireless hop that is in the
      middle of the path: its gateway B is a router after the hop; where the
      hop ends at the TCP receiver (or starts at the sender) there is none.
    * Link-layer ARQ needs only the two ends of the wireless link: it applies
      everywhere.
    * End-to-end schemes (TCP variants, CUBIC, RACK-TLP, Westwood+, Eifel,
      F-RTO, DCLOR, RTT threshold) apply everywhere.
    """
    env = ENV_BY_NAME[cell["env"]]
    s = SCHEME_BY_NAME[scheme]
    if env.name in s.own:
        return None
    hops = env.hops(p)
    senders, receivers = env.senders(p), env.receivers(p)
    if s.agent == "kick":
        return (
            "Kick needs a fading wireless uplink as the sender's own first hop and a kick-aware node at its far "
            f"end (draft §2); here the wireless hop ({_hop_text(hops)}) is not the sender's first hop"
        )
    if s.agent == "wmecn" and not env.marking:
        return (
            "WMECN needs routers that mark multi-level ECN (§3.1); this path's bottleneck "
            f"({env.bottleneck}) does not, and replacing it would make another environment"
        )
    if s.agent == "snoop" and all(a in senders for a, _ in hops):
        return (
            "Snoop runs on the base station that forwards the data onto the wireless hop; here the sender "
            f"itself transmits onto it ({_hop_text(hops)}; Snoop's mobile-sender case, ELN, is not modelled)"
        )
    if s.agent == "gsnoop" and any(a in senders or b in receivers for a, b in hops):
        return (
            "G-Snoop needs gateways at both ends of a mid-path wireless hop (its gateway B is a router after "
            f"the hop); here the hop ({_hop_text(hops)}) "
            + ("ends at the TCP receiver" if any(b in receivers for _, b in hops) else "starts at the sender")
            + " (Snoop is the last-hop scheme)"
        )
    return None


def _hop_text(hops: Sequence[tuple[str, str]]) -> str:
    if len(hops) == 1:
        return f"{hops[0][0]} -> {hops[0][1]}"
    return f"{hops[0][0]} -> {hops[0][1]} ... {hops[-1][0]} -> {hops[-1][1]}"


# --------------------------------------------------------------------------
# Scenarios


def _node(sc: dict, name: str) -> dict:
    nodes = sc.setdefault("node", [])
    for n in nodes:
        if n["name"] == name:
            n.setdefault("agents", [])
            return n
    n = {"name": name, "agents": []}
    nodes.append(n)
    return n


def _set_scheme_tcp(tcp: dict, fields: Mapping[str, Any]) -> None:
    for k in SCHEME_FIELDS:
        tcp.pop(k, None)
    tcp.update(copy.deepcopy(dict(fields)))
    if tcp.get("variant") != "reno":
        # ns-2's Reno rule (bug_fix_): it acts on Reno only, so other variants go without it.
        tcp.pop("reno_one_fast_retransmit_per_window", None)


def scenario(cell: Mapping[str, Any], scheme: str, p: Mapping[str, Any]) -> dict:
    """The environment's scenario (its reproduction's builder) with ``scheme``."""
    reason = not_applicable(cell, scheme, p)
    if reason is not None:
        raise ValueError(f"{scheme} does not apply to {cell['env']}: {reason}")
    env = ENV_BY_NAME[cell["env"]]
    s = SCHEME_BY_NAME[scheme]
    ec, ep = env.cell(p), env.params(p)
    own = s.own.get(env.name)
    if scheme == "rtt_threshold" and env.name == "threshold":
        own = f"k{whole(p, 'rtt_threshold_ticks')}"
    if scheme == "gsnoop" and env.name == "gsnoop":
        own = f"gsnoop{whole(p, 'gsnoop_cache')}"
    if own is not None:
        return _sack_options(env.module.scenario(ec, own, ep), p)
    sc = copy.deepcopy(env.module.scenario(ec, env.base, ep))
    fields = dict(s.tcp)
    if scheme == "rtt_threshold":
        fields["classifier"] = _threshold_classifier(p)
    for f in sc["flow"]:
        if "tcp" in f:
            _set_scheme_tcp(f["tcp"], fields)
    hops = env.hops(p)
    if s.agent == "snoop":
        for before in dict.fromkeys(a for a, _ in hops):
            _node(sc, before)["agents"].append({"kind": "snoop"})
    elif s.agent == "arq":
        for before, after in hops:
            _node(sc, before)["agents"].append({"kind": "arq", "peer": after})
            _node(sc, after)["agents"].append({"kind": "dda", "peer": before})
    elif s.agent is not None:
        raise AssertionError(f"{scheme}: agent {s.agent} has no generic placement")
    return _sack_options(sc, p)


#: The matrix's parameters for SACK loss recovery -> (the TCP option each
#: sets on every connection that recovers with SACK, and only there: the
#: core refuses RFC 6675 §6's restart without SACK, and accepts PRR for
#: Reno and NewReno too, but this parameter is the SACK rows' sensitivity
#: run; what that option makes the connection do, for the report).
SACK_RECOVERY_OPTIONS = {
    "sack_restart_rto_in_recovery": (
        "restart_rto_on_recovery_retransmission",
        "restarts its timer at each retransmission in recovery "
        "(`--set sack_restart_rto_in_recovery=true`, RFC 6675 §6)",
    ),
    "sack_proportional_rate_reduction": (
        "proportional_rate_reduction",
        "reduces its window in recovery by Proportional Rate Reduction "
        "(`--set sack_proportional_rate_reduction=true`, RFC 9937)",
    ),
}


def _sack_options(sc: dict, p: Mapping[str, Any]) -> dict:
    """``sc`` with the SACK recovery options that ``p`` asks for
    (:data:`SACK_RECOVERY_OPTIONS`: RFC 6675 §6's timer restart, RFC 9937's
    PRR) on every connection that recovers with SACK (the core's own test
    of SACK recovery; connections without SACK are left as they are)."""
    options = [option for param, (option, _) in SACK_RECOVERY_OPTIONS.items() if p[param]]
    if not options:
        return sc
    sc = copy.deepcopy(sc)
    for f in sc["flow"]:
        tcp = f.get("tcp")
        if tcp is not None and (tcp.get("variant") == "sack" or tcp.get("sack") is True):
            for option in options:
                tcp[option] = True
    return sc


def scenario_toml(env: str, scheme: str, **params: Any) -> str:
    """The validated TOML of one cell of the matrix, to follow one of its
    runs with ``airtcp run FILE --seed N --trace`` or ``--pcap``."""
    from .runner import scenario_text

    exp = make_experiment()
    return scenario_text(exp.with_params(**params) if params else exp, {"env": env}, scheme)


# --------------------------------------------------------------------------
# Metrics


def _reproduction_scheme(env: Environment, scheme: str) -> str:
    """The reproduction's scheme whose packets have the same size (DCLOR's
    metrics count cwnd in segments of the scheme's MSS)."""
    return SCHEME_BY_NAME[scheme].own.get(env.name, env.base)


def metrics(res, cell, scheme, p) -> dict[str, float]:
    """Per run: the environment's document metric and diagnostics (from its
    reproduction's ``metrics``) and ``goodput_kbps``. An upload that does
    not finish within the run has response time inf and goodput 0 (so that
    the pairs with it are compared, not dropped)."""
    env = ENV_BY_NAME[cell["env"]]
    ec, ep = env.cell(p), env.params(p)
    m = env.module.metrics(res, ec, _reproduction_scheme(env, scheme), ep)
    if env.name == "kick" and not m["completed"]:
        m["response_s"] = math.inf
    out = {k: float(m[k]) for k in env.keep}
    out["goodput_kbps"] = 0.0 if env.name == "kick" and not m["completed"] else float(env.goodput(m, ec, ep))
    return out


STATISTICS = {"avg": mean}


def version() -> str:
    """Part of every run's cache key: the matrix's own and each
    reproduction's version (a changed metric there redoes the runs here)."""
    return "1;" + ";".join(f"{e.name}{e.module.EXPERIMENT.version}" for e in ENVIRONMENTS)


# --------------------------------------------------------------------------
# The matrix of results


VERDICT_BETTER, VERDICT_WORSE, VERDICT_UNDECIDED = "better", "worse", "undecided"
# Not "n/a": pandas reads that back from the CSV as a missing value.
VERDICT_NOT_APPLICABLE = "not applicable"


def verdict(iv) -> str:
    """better / worse than the baseline beyond the 95% CI, or undecided
    (also when the end that would decide lies within the Monte Carlo error
    of the bootstrap from 1: stats.Interval.above)."""
    if not iv.defined or not iv.has_ci:
        return VERDICT_UNDECIDED
    if iv.above(1.0):
        return VERDICT_BETTER
    if iv.below(1.0):
        return VERDICT_WORSE
    return VERDICT_UNDECIDED


def metric_verdict(iv, lower_is_better: bool) -> str:
    """better / worse than the baseline by the document's metric: the paired
    difference (scheme - baseline) with its whole 95% CI on one side of 0."""
    if not iv.defined or not iv.has_ci:
        return VERDICT_UNDECIDED
    if iv.below(0.0):
        return VERDICT_BETTER if lower_is_better else VERDICT_WORSE
    if iv.above(0.0):
        return VERDICT_WORSE if lower_is_better else VERDICT_BETTER
    return VERDICT_UNDECIDED


def matrix_frame(exp: Experiment, numbers: Numbers):
    """One row per (environment, scheme): applicability and reason, the
    document's metric (mean and 95% CI; paired difference from the baseline
    with its CI and verdict), goodput (kb/s, mean and CI), and goodput
    normalised to the baseline with its paired 95% CI and verdict."""
    import pandas as pd

    base = baseline()
    rows = []
    for cell in exp.cells:
        env = ENV_BY_NAME[cell["env"]]
        for sch in exp.schemes:
            reason = exp.not_applicable(cell, sch.name, exp.params)
            row: dict[str, Any] = {
                "environment": env.name,
                "environment_label": env.label,
                "scheme": sch.name,
                "scheme_label": sch.label,
                "applicable": reason is None,
                "reason": reason or "",
                "metric": env.metric.name,
                "metric_label": env.metric.label,
                "metric_unit": env.metric.unit,
            }
            nan = math.nan
            vals = dict.fromkeys(
                ["runs", "metric_mean", "metric_ci_low", "metric_ci_high", "goodput_kbps", "goodput_ci_low",
                 "goodput_ci_high", "goodput_norm", "norm_ci_low", "norm_ci_high", "metric_diff",
                 "metric_diff_ci_low", "metric_diff_ci_high"], nan)
            vals["verdict"] = vals["metric_verdict"] = VERDICT_NOT_APPLICABLE
            if reason is None:
                g = numbers.interval(cell, sch.name, "goodput_kbps", "avg")
                dm = numbers.interval(cell, sch.name, env.metric.name, "avg")
                x = numbers.runs(cell, sch.name, "goodput_kbps")
                vals.update(
                    runs=int((~pd.isna(x)).sum()) if x is not None else 0,
                    metric_mean=dm.estimate, metric_ci_low=dm.low, metric_ci_high=dm.high,
                    goodput_kbps=g.estimate, goodput_ci_low=g.low, goodput_ci_high=g.high,
                )
                r = numbers.ratio(cell, sch.name, base, "goodput_kbps", "avg")
                vals.update(goodput_norm=r.estimate, norm_ci_low=r.low, norm_ci_high=r.high)
                vals["verdict"] = "baseline" if sch.name == base else verdict(r)
                d = numbers.diff(cell, sch.name, base, env.metric.name, "avg")
                vals.update(metric_diff=d.estimate, metric_diff_ci_low=d.low, metric_diff_ci_high=d.high)
                vals["metric_verdict"] = (
                    "baseline" if sch.name == base else metric_verdict(d, env.metric.lower_is_better)
                )
            row.update(vals)
            rows.append(row)
    return pd.DataFrame(rows)


def _num(x: float, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if math.isinf(x):
        return "inf"
    return f"{x:.{digits}f}"


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{(x - 1) * 100:+.1f}%"


def markdown_table(df) -> str:
    """The matrix as Markdown, one table per environment."""
    L: list[str] = []
    for env_name, sub in df.groupby("environment", sort=False):
        first = sub.iloc[0]
        unit = first["metric_unit"]
        L += [f"### {first['environment_label']}", ""]
        L += [
            f"| scheme | {first['metric_label']} ({unit}) [95% CI] | - {SCHEME_BY_NAME[baseline()].label}, paired "
            f"[95% CI] | by it | goodput (kb/s) | goodput / {SCHEME_BY_NAME[baseline()].label} [95% CI] | by it |",
            "|---|---:|---:|---|---:|---:|---|",
        ]
        for _, r in sub.iterrows():
            if not r["applicable"]:
                L.append(f"| {r['scheme_label']} | n/a | n/a | | n/a | n/a | not applicable: {r['reason']} |")
                continue
            dm = f"{_num(r['metric_mean'])} [{_num(r['metric_ci_low'])}, {_num(r['metric_ci_high'])}]"
            dd = f"{_num(r['metric_diff'])} [{_num(r['metric_diff_ci_low'])}, {_num(r['metric_diff_ci_high'])}]"
            nm = f"{_num(r['goodput_norm'])} [{_num(r['norm_ci_low'])}, {_num(r['norm_ci_high'])}]"
            L.append(
                f"| {r['scheme_label']} | {dm} | {dd} | {r['metric_verdict']} | {_num(r['goodput_kbps'], 1)} | {nm} "
                f"| {r['verdict']} |"
            )
        L.append("")
    return "\n".join(L)


def findings(df) -> list[str]:
    """Per environment, which schemes beat the baseline beyond the CI and
    by how much, which lose, which are undecided."""
    out = []
    for env_name, sub in df.groupby("environment", sort=False):
        label = sub.iloc[0]["environment_label"]

        def fmt(rows) -> str:
            return ", ".join(
                f"{r['scheme_label']} {_pct(r['goodput_norm'])} [{_pct(r['norm_ci_low'])}, {_pct(r['norm_ci_high'])}]"
                for _, r in rows.sort_values("goodput_norm", ascending=False).iterrows()
            ) or "none"

        better = sub[sub.verdict == VERDICT_BETTER]
        worse = sub[sub.verdict == VERDICT_WORSE]
        und = sub[sub.verdict == VERDICT_UNDECIDED]
        na = sub[sub.verdict == VERDICT_NOT_APPLICABLE]
        first = sub.iloc[0]
        by_metric = {
            v: ", ".join(sub[sub.metric_verdict == v].scheme_label) or "none"
            for v in (VERDICT_BETTER, VERDICT_WORSE)
        }
        out.append(
            f"**{label}.** Goodput: beat {SCHEME_BY_NAME[baseline()].label} beyond the 95% CI: {fmt(better)}. "
            f"Lose beyond the CI: {fmt(worse)}. Undecided: {fmt(und)}. "
            f"Not applicable: {', '.join(na.scheme_label) or 'none'}. "
            f"By the document's metric ({first['metric_label']}, paired difference): better {by_metric[VERDICT_BETTER]}; "
            f"worse {by_metric[VERDICT_WORSE]}; the rest undecided."
        )
    return out


def text_summary(df) -> str:
    """The terminal view: normalised goodput per scheme and environment."""
    envs = list(dict.fromkeys(df.environment))
    labels = {e: ENV_BY_NAME[e].name for e in envs}
    width = max(len(s) for s in df.scheme_label) + 2
    head = "".ljust(width) + "".join(labels[e].rjust(12) for e in envs)
    lines = [f"goodput / {baseline_label()} (mean over runs; * beyond the 95% CI)", head]
    for sch in dict.fromkeys(df.scheme):
        sub = df[df.scheme == sch].set_index("environment")
        cells = []
        for e in envs:
            r = sub.loc[e]
            if not r["applicable"]:
                cells.append("n/a")
            else:
                mark = "*" if r["verdict"] in (VERDICT_BETTER, VERDICT_WORSE) else " "
                cells.append(f"{_num(r['goodput_norm'], 2)}{mark}")
        lines.append(sub.iloc[0]["scheme_label"].ljust(width) + "".join(c.rjust(12) for c in cells))
    return "\n".join(lines)


def heatmap(df, path: str) -> None:
    """goodput / baseline per (scheme, environment), log colour scale from
    0.5x to 2x; not-applicable cells hatched and labelled."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.patches import Rectangle

    envs = list(dict.fromkeys(df.environment))
    schemes_ = list(dict.fromkeys(df.scheme))
    z = np.full((len(schemes_), len(envs)), np.nan)
    for _, r in df.iterrows():
        if r["applicable"] and r["goodput_norm"] > 0:
            z[schemes_.index(r["scheme"]), envs.index(r["environment"])] = math.log2(r["goodput_norm"])
    fig, ax = plt.subplots(figsize=(8.2, 0.42 * len(schemes_) + 1.6))
    cmap = plt.get_cmap("RdBu").with_extremes(bad="white")
    im = ax.imshow(np.clip(z, -1, 1), cmap=cmap, norm=TwoSlopeNorm(0, -1, 1), aspect="auto")
    for _, r in df.iterrows():
        i, j = schemes_.index(r["scheme"]), envs.index(r["environment"])
        if not r["applicable"]:
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="0.92", hatch="///", edgecolor="0.6", lw=0))
            ax.text(j, i, "n/a", ha="center", va="center", fontsize=8, color="0.35")
            continue
        v = r["goodput_norm"]
        strong = r["verdict"] in (VERDICT_BETTER, VERDICT_WORSE)
        txt = _num(v, 2) + ("" if strong or r["verdict"] == "baseline" else " ?")
        dark = not math.isnan(z[i, j]) and abs(z[i, j]) > 0.6
        ax.text(j, i, txt, ha="center", va="center", fontsize=8, fontweight="bold" if strong else "normal",
                color="white" if dark else "black")
    ax.set_xticks(range(len(envs)), [ENV_BY_NAME[e].label.replace(": ", ":\n") for e in envs], fontsize=8)
    ax.set_yticks(range(len(schemes_)), [SCHEME_BY_NAME[s].label for s in schemes_], fontsize=8)
    ax.xaxis.tick_top()
    cb = fig.colorbar(im, ax=ax, ticks=[-1, -0.5, 0, 0.5, 1], fraction=0.04, pad=0.02)
    cb.ax.set_yticklabels(["0.5x", "0.71x", "1x", "1.41x", "2x"], fontsize=7)
    ax.set_xlabel(
        f"goodput / {baseline_label()}; bold: beyond the paired 95% CI, '?': undecided; hatched: not applicable",
        fontsize=7,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


# --------------------------------------------------------------------------
# Outputs


def write(exp: Experiment, outcome, runs_df, summary_df, numbers: Numbers, meta: Mapping[str, Any]) -> dict:
    """runs.csv/.parquet, summary.csv, matrix.md/.csv/.parquet,
    matrix_heatmap.png and report.md into the outcome's directory."""
    import datetime

    from .. import __version__
    from .report import parameters_markdown, write_run_tables

    out = outcome.out
    files = write_run_tables(out, runs_df, summary_df)
    df = matrix_frame(exp, numbers)
    df.to_csv(os.path.join(out, "matrix.csv"), index=False)
    df.to_parquet(os.path.join(out, "matrix.parquet"), index=False)
    table = markdown_table(df)
    with open(os.path.join(out, "matrix.md"), "w") as f:
        f.write(f"# Cross-scheme matrix: goodput normalised to {baseline_label()}\n\n{table}")
    heatmap(df, os.path.join(out, "matrix_heatmap.png"))
    files.update(matrix="matrix.md", matrix_csv="matrix.csv", matrix_parquet="matrix.parquet",
                 plots=["matrix_heatmap.png"])
    created = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    L = [f"# {exp.title}", ""]
    L += [
        f"Command: `{meta.get('command', 'airtcp reproduce matrix')}`; {meta['runs']} runs per "
        f"(environment, scheme), {meta['total_runs']} runs in all ({meta['executed']} simulated now, "
        f"{meta['reused']} from the cache); wall time {meta['wall_s']:.1f} s on {meta['workers']}; "
        f"airtcp {__version__}; {created}.",
        "",
        f"Baseline: **{baseline_label()}**. Normalised goodput = mean goodput of the scheme / mean goodput of the "
        "baseline over the same runs (run i of every scheme uses seed i: the same fades, stalls and arrivals "
        "in time and the same per-packet loss coins, which fall on different packets once schemes send "
        "differently); its 95% interval is a paired bootstrap over the runs. A scheme *beats* the baseline when "
        "the whole interval is above 1, *loses* when it is below 1, and is *undecided* otherwise.",
        "",
        "![heatmap](matrix_heatmap.png)",
        "",
        "## Findings per environment",
        "",
    ]
    for line in findings(df):
        L += [f"* {line}", ""]
    L += ["## Environments", ""]
    for e in ENVIRONMENTS:
        if any(c["env"] == e.name for c in exp.cells):
            L += [f"* **{e.label}.** {e.describe(exp.params, e.params(exp.params))}. Document metric: {e.metric.label} "
                  f"({e.metric.unit}, {'lower' if e.metric.lower_is_better else 'higher'} is better)."]
    L += ["", "## Schemes", ""]
    for sch in exp.schemes:
        L += [f"* **{sch.label}**: {sch.description}."]
    L += ["", "## The matrix", "", table, "## Not applicable, and why", ""]
    for _, r in df[~df.applicable].iterrows():
        L += [f"* {r['scheme_label']} on {r['environment_label']}: {r['reason']}."]
    caveats = exp.caveat_list()
    if caveats:
        L += ["", "## Caveats", ""]
        L += [f"* {c}" for c in caveats]
    L += ["", "## Choices", "", "| choice | value | why |", "|---|---|---|"]
    for ch in exp.choice_list():
        L.append(f"| {ch.name} | {ch.value} | {ch.why} |")
    L += [""] + parameters_markdown(exp, "Parameters")
    L += [
        "## Files",
        "",
        "* `matrix.md`, `matrix.csv`, `matrix.parquet`: the table above (one row per environment and scheme).",
        "* `matrix_heatmap.png`: the heatmap.",
        "* `runs.csv`, `runs.parquet`: every run; `summary.csv`: every metric's mean and 95% CI per cell and scheme.",
        "* `cache/`: every finished run, stored once (delete it to start afresh).",
        "",
    ]
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(L))
    files["report"] = "report.md"
    files["text"] = text_summary(df)
    files["written"] = "report.md, matrix.md, matrix.csv, matrix.parquet, matrix_heatmap.png, runs.csv, runs.parquet"
    return files


# --------------------------------------------------------------------------
# Choices


#: The parameters that move the points the "One point per environment" row
#: describes in words (a cache size or a scale it does not name).
_POINT_PARAMS = ("kick_fading", "kick_size_kb", "wmecn_n", "wmecn_per", "threshold_flows", "threshold_ber",
                 "gsnoop_group", "gsnoop_loss")


def _points_sentence(p: Mapping[str, Any]) -> str:
    """The default points in words; under --set, said to be the defaults'."""
    points = (
        "Kick's Table 1 at the largest file, WMECN's middle source count and error rate, DCLOR's whole mix with its "
        "iterations scaled, the threshold paper's one satellite connection at the middle BER, G-Snoop's Fig. 4 at "
        "1% loss"
    )
    moved = [k for k in _POINT_PARAMS if p[k] != PARAMS[k]]
    if not moved:
        return f" (`--set` moves it): {points}."
    names = ", ".join(moved[:-1]) + " and " + moved[-1] if len(moved) > 1 else moved[0]
    return f". The default points are {points}; these runs move {names} (see this row's value)."


def _sack_options_text(p: Mapping[str, Any]) -> str:
    """The clause of "Environment TCP settings" naming the SACK recovery
    options in force (:data:`SACK_RECOVERY_OPTIONS`; "" at the defaults)."""
    on = [text for param, (_, text) in SACK_RECOVERY_OPTIONS.items() if p[param]]
    if not on:
        return ""
    return "; every connection with SACK loss recovery also " + " and ".join(on)


def _choices(p: Mapping[str, Any]) -> list[Choice]:
    return [
        Choice(
            "One point per environment",
            ", ".join(f"{e.name}: {e.cell(p)}" for e in ENVIRONMENTS),
            "The matrix asks where each idea helps against today's baseline, so each document's path is taken at "
            "one representative point of its grid" + _points_sentence(p),
        ),
        Choice(
            "The TCP each mechanism runs on",
            "Reno for Kick, Westwood+, RTT threshold, Snoop, G-Snoop, link-layer ARQ and WMECN; SACK for Eifel, "
            "F-RTO and DCLOR",
            "The TCP each mechanism's own document ran it on (DCLOR's draft ran all its timeout responses on "
            "Linux with SACK; the others on ns-2's Reno). Westwood+ replaces Reno's congestion control.",
        ),
        Choice(
            "Environment TCP settings",
            "as the environment's reproduction has them" + _sack_options_text(p),
            "Timers, MSS, delayed ACKs, windows and ns-2 timer rules belong to the environment; a scheme changes "
            "only the fields that make it (variant, cc, slow start, loss detection, timeout response, classifier, kick, ECN, "
            "timestamps for Eifel). Eifel's timestamps add 12 bytes to each segment (in DCLOR's environment the "
            "MSS shrinks by 12 bytes instead, as the draft's Table 6 has it).",
        ),
        Choice(
            "RTT threshold",
            f"base RTT + {p['rtt_threshold_ticks']} ticks of 10 ms, a timeout always reduces the window",
            "The threshold paper's Fig. 2 sets 550 ms on a 511 ms path (51 ticks): 4 ticks above the base."
            if p["rtt_threshold_ticks"] == PARAMS["rtt_threshold_ticks"]
            else f"The default, {PARAMS['rtt_threshold_ticks']} ticks: the threshold paper's Fig. 2 sets 550 ms on a "
            f"511 ms path (51 ticks), {PARAMS['rtt_threshold_ticks']} ticks above the base.",
        ),
        Choice(
            "G-Snoop cache",
            f"{p['gsnoop_cache']} packets",
            "The middle of the document's 25/50/75."
            if p["gsnoop_cache"] == PARAMS["gsnoop_cache"]
            else f"The default, {PARAMS['gsnoop_cache']}, is the middle of the document's 25/50/75.",
        ),
        Choice(
            "Link-layer ARQ",
            "`arq` at the node before each wireless hop, `dda` after it, the agents' defaults (3 retries, timeout "
            "1.5 link round trips, DDA delay two link round trips)",
            "The WMECN paper's LRT without WMECN. DDA's duplicate-ACK delay acts only where the far end is the "
            "TCP receiver (in G-Snoop's mid-path hop it only sends link ACKs).",
        ),
        Choice(
            "Goodput",
            "kb/s of payload delivered in order",
            "Kick: the file's bits / the response time (0 if the upload does not finish within the run, response "
            "time inf); DCLOR: the payload of every finished download / the total time spent downloading; the "
            "others: the document's goodput in kb/s.",
        ),
        Choice(
            "Normalisation",
            f"goodput / {baseline_label()}, ratio of means with a paired bootstrap 95% CI",
            "A ratio of means over the same runs; the bootstrap resamples runs and keeps the pairs (stats.ratio).",
        ),
    ]


CAVEATS = [
    "**Rows are whole stacks.** A middlebox or classifier row (Kick, WMECN, RTT threshold, Snoop, G-Snoop, "
    "link-layer ARQ, Westwood+) runs over the Reno its document used, so its distance to CUBIC+SACK includes "
    "Reno's own distance (the Reno row shows it); compare with the Reno row to see the mechanism alone.",
]


def _setup(p: Mapping[str, Any]) -> str:
    return "; ".join(e.describe(p, e.params(p)) for e in ENVIRONMENTS)


CELLS = [{"env": e.name} for e in ENVIRONMENTS]


def make_experiment() -> Experiment:
    """The matrix with the rows this airtcp can run."""
    return Experiment(
        name="matrix",
        title="Cross-scheme matrix: every scheme on every environment of the five documents",
        source="the five source documents (docs/reproductions/matrix.md)",
        cells=CELLS,
        schemes=[Scheme(s.name, s.label, s.description) for s in schemes()],
        scenario=scenario,
        metrics=metrics,
        statistics=STATISTICS,
        params=PARAMS,
        runs=50,
        version=version(),
        setup=_setup,
        choices=_choices,
        caveats=CAVEATS,
        not_applicable=not_applicable,
        write=write,
        domains=DOMAINS,
    )


def __getattr__(name: str):
    # EXPERIMENT is built on first use: which rows exist depends on the
    # loaded airtcp (a probe scenario per optional row).
    if name == "EXPERIMENT":
        return make_experiment()
    raise AttributeError(name)
