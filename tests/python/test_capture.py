"""Captures (pcapng) read by Wireshark's tshark and by dpkt, checked against
airtcp's own counters and trace; observing never changes results.

scripts/test installs Debian's tshark when it is missing; the tshark tests
skip (saying why) only where it cannot be installed.
"""

import struct
import subprocess

import dpkt
import pytest

import airtcp
from airtcp.experiments import gsnoop

from conftest import EXAMPLES, TSHARK, needs_tshark, run_cli

# Loss on the wireless hop, ECN marking at a RED bottleneck, a handshake,
# SACK with timestamps and Kick TCP's kick bit: every header feature at once.
FEATURES = {
    "simulation": {"duration": "20s", "seed": 2},
    "link": [
        {"a": "S", "b": "R", "rate": "10Mbps", "delay": "5ms"},
        {
            "a": "R",
            "b": "D",
            "rate": "1Mbps",
            "delay": "40ms",
            "queue": {"kind": "red", "limit": "30pkt", "min_th": 3, "max_th": 10, "max_p": 0.2, "ecn": True},
            "a_to_b": {"error": {"kind": "bernoulli", "per": 0.005, "applies_to": "data"}},
        },
    ],
    "flow": [
        {
            "name": "bulk",
            "from": "S",
            "to": "D",
            "tcp": {
                "variant": "newreno",
                "sack": True,
                "timestamps": True,
                "ecn": True,
                "handshake": True,
                "mss": "1460B",
                "kick": {"interval": "rtt"},
            },
            "app": {"kind": "bulk"},
        }
    ],
    "capture": [{"node": "S", "file": "sender.pcapng"}, {"link": "R<->D", "file": "bottleneck.pcapng"}],
}


def tshark_fields(path, *fields, display_filter=None, prefs=()):
    """One list of field values per frame (tshark -T fields)."""
    args = [TSHARK, "-r", str(path), "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,"]
    for p in prefs:
        args += ["-o", p]
    if display_filter:
        args += ["-Y", display_filter]
    for f in fields:
        args += ["-e", f]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    # tshark warns about running as root; anything else on stderr is a problem.
    errors = [line for line in p.stderr.splitlines() if line and "Running as user" not in line]
    assert p.returncode == 0 and not errors, p.stderr
    return [line.split("\t") for line in p.stdout.splitlines()]


def count(path, display_filter):
    return len(tshark_fields(path, "frame.number", display_filter=display_filter))


@pytest.fixture(scope="module")
def wireless(tmp_path_factory):
    out = tmp_path_factory.mktemp("wireless")
    r = airtcp.run(EXAMPLES / "wireless.toml", pcap="base_station<->mobile", trace=True, out_dir=out)
    return r, out / "capture-base_station--mobile.pcapng"


@pytest.fixture(scope="module")
def features(tmp_path_factory):
    out = tmp_path_factory.mktemp("features")
    return airtcp.run(FEATURES, out_dir=out, trace=True), out


def test_outputs_are_listed_and_traced(wireless):
    r, path = wireless
    assert r.captures == [(str(path), r.captures[0][1])] and r.captures[0][1] > 0
    t = r.trace
    assert set(t.event.cat.categories) == {"send", "enqueue", "dequeue", "drop", "receive", "deliver"}
    assert t.time_s.is_monotonic_increasing
    drops = t[t.event == "drop"]
    assert len(drops) == r.flows.drops_channel[0] and set(drops.cause) == {"channel"}
    assert set(drops.link) == {"base_station->mobile"}


@needs_tshark
def test_wireshark_analysis_agrees_with_the_counters(wireless):
    """On the example's lossy hop, captured in both directions: Wireshark's
    retransmissions (it calls some "fast retransmission") and duplicate ACKs
    are airtcp's retransmitted_segments and duplicate_acks_sent, and the
    channel losses are the frames commented as drops."""
    r, path = wireless
    flow = r.flows.iloc[0]
    assert flow.retransmitted_segments > 20 and flow.duplicate_acks_sent > 100
    retransmissions = count(
        path,
        "tcp.analysis.retransmission || tcp.analysis.fast_retransmission || tcp.analysis.spurious_retransmission",
    )
    assert retransmissions == flow.retransmitted_segments
    assert count(path, "tcp.analysis.duplicate_ack") == flow.duplicate_acks_sent
    assert count(path, 'frame.comment contains "airtcp drop: channel"') == flow.drops_channel
    # A tap that sees every packet: Wireshark finds no gap, no unseen ACKed
    # segment, no zero window, no bad checksum.
    for suspicious in (
        "tcp.analysis.lost_segment",
        "tcp.analysis.ack_lost_segment",
        "tcp.analysis.zero_window",
        "tcp.analysis.out_of_order",
    ):
        assert count(path, suspicious) == 0, suspicious
    statuses = tshark_fields(
        path,
        "ip.checksum.status",
        "tcp.checksum.status",
        prefs=("ip.check_checksum:TRUE", "tcp.check_checksum:TRUE"),
    )
    assert statuses and all(s == ["1", "1"] for s in statuses), "1 = checksum good"


@needs_tshark
def test_header_features_as_wireshark_reads_them(features):
    r, out = features
    flow = r.flows.iloc[0]
    link = r.links.set_index("name").loc["R->D"]
    sender = out / "sender.pcapng"
    bottleneck = out / "bottleneck.pcapng"
    # The handshake: SYN with MSS and SACK-permitted, timestamps, ECN setup (RFC 3168 §6.1.1).
    syn = tshark_fields(
        sender,
        "tcp.options.mss_val",
        "tcp.options.sack_perm",
        "tcp.options.timestamp.tsval",
        "tcp.flags.ece",
        "tcp.flags.cwr",
        display_filter="tcp.flags.syn == 1 && tcp.flags.ack == 0",
    )
    assert len(syn) == 1
    mss, sack_perm, tsval, ece, cwr = syn[0]
    assert mss == "1460" and sack_perm and tsval and ece == "1" and cwr == "1"
    assert count(sender, "tcp.flags.syn == 1 && tcp.flags.ack == 1 && tcp.options.mss_val == 1460") == 1
    # SACK blocks on ACKs; every segment carries timestamps.
    assert count(sender, "tcp.options.sack_le") > 0
    assert count(sender, "tcp && !tcp.options.timestamp.tsval") == 0
    # CE marks as the queue admitted them; ECN-Echo on ACKs.
    assert link.ecn_marks > 0
    assert count(bottleneck, "ip.src == 10.0.0.1 && ip.dsfield.ecn == 3") == link.ecn_marks
    assert count(sender, "tcp.flags.ece == 1 && tcp.flags.syn == 0") > 0
    # Kick TCP's K bit: reserved header bit 4, tcp.flags 0x800.
    assert flow.kicks_sent > 0
    assert count(sender, "tcp.flags & 0x800") == flow.kicks_sent
    # Every segment the sender sent is at its node; Wireshark's count of
    # retransmissions there is airtcp's.
    assert count(sender, "ip.src == 10.0.0.1 && tcp.len > 0 && !(tcp.flags & 0x800)") == flow.segments_sent


# Kick TCP through a kick-aware node R over a lossy first hop, and MECN
# marking at the second: kicks and kickbacks carry the K bit, MECN's echoes
# and the sender's segments the two MECN bits, all in one capture.
KICK_AND_MECN = {
    "simulation": {"duration": "20s", "seed": 3},
    "node": [{"name": "R", "agents": [{"kind": "kick"}]}],
    "link": [
        {
            "a": "S",
            "b": "R",
            "rate": "2Mbps",
            "delay": "30ms",
            "a_to_b": {"error": {"kind": "bernoulli", "per": 0.05, "applies_to": "data"}},
        },
        {
            "a": "R",
            "b": "D",
            "rate": "1Mbps",
            "delay": "5ms",
            "queue": {"kind": "mecn", "limit": "60pkt", "min_th": 5, "mid_th": 10, "max_th": 20},
        },
    ],
    "flow": [
        {
            "from": "S",
            "to": "D",
            "tcp": {"variant": "newreno", "cc": "mecn", "kick": {"interval": "rtt", "ttl": 1}},
            "app": {"kind": "bulk"},
        }
    ],
    "capture": [{"node": "S", "file": "sender.pcapng"}],
}


@needs_tshark
def test_capture_md_filters_tell_kicks_from_mecn_bits(tmp_path):
    """docs/capture.md: `tcp.flags & 0x800` for Kick TCP's K bit,
    `tcp.flags & 0x200` and `tcp.flags & 0x100` for MECN's bits 8 and 9,
    `!(tcp.flags & 0x800)` to leave kicks out of Wireshark's
    retransmissions. On a capture holding both kinds of reserved bits,
    the sender's payload-carrying K-bit segments are its kicks_sent, and
    Wireshark's retransmissions without them its retransmitted_segments
    (`tcp.flags.res == 4`, one boolean over the three bits, matches MECN
    echoes too)."""
    r = airtcp.run(KICK_AND_MECN, out_dir=tmp_path)
    flow = r.flows.iloc[0]
    sender = tmp_path / "sender.pcapng"
    assert flow.kicks_sent > 0 and flow.kickbacks_received > 0 and flow.retransmitted_segments > 0
    assert count(sender, "tcp.flags & 0x200") > 0 and count(sender, "tcp.flags & 0x100") > 0
    # Kicks carry the segment; kickbacks (ACK and K) are pure ACKs from R,
    # each answering the latest kick or stale, none lost on R->S.
    assert count(sender, "tcp.flags & 0x800 && tcp.len > 0") == flow.kicks_sent
    kickbacks = flow.kickbacks_received + flow.stale_kickbacks
    assert count(sender, "tcp.flags == 0x810 && tcp.len == 0 && ip.src == 10.0.0.1") == kickbacks
    retransmissions = "(tcp.analysis.retransmission || tcp.analysis.fast_retransmission || tcp.analysis.spurious_retransmission)"
    assert count(sender, f"{retransmissions} && !(tcp.flags & 0x800)") == flow.retransmitted_segments
    assert count(sender, "tcp.len > 0 && !(tcp.flags & 0x800)") == flow.segments_sent


def ones_complement_checksum(data: bytes) -> int:
    """RFC 1071, written independently of the Rust code."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def test_dpkt_reads_headers_that_match_the_trace(features):
    """Each frame of the bottleneck capture, parsed by dpkt, is the packet
    the trace recorded entering R->D: same lengths, sequence numbers (ISN +
    1 + airtcp's offset), flags, ECN, SACK blocks; checksums verify."""
    r, out = features
    t = r.trace
    # Offered to R->D: admitted (enqueue) or refused by the queue (a drop
    # without enqueue); a channel loss is an enqueue followed by a drop.
    at_link = t[t.link == "R->D"]
    offered = at_link[(at_link.event == "enqueue") | ((at_link.event == "drop") & (at_link.cause != "channel"))]
    with open(out / "bottleneck.pcapng", "rb") as f:
        frames = [buf for _, buf in dpkt.pcapng.Reader(f)]
    ip_frames = []
    for buf in frames:
        ip = dpkt.ip.IP(buf)
        assert ip.v == 4 and ip.hl == 5 and ip.len == len(buf)
        assert ones_complement_checksum(bytes(buf[:20])) == 0
        pseudo = ip.src + ip.dst + struct.pack("!BBH", 0, ip.p, len(buf) - 20)
        assert ones_complement_checksum(pseudo + bytes(buf[20:])) == 0
        ip_frames.append(ip)
    # The R->D interface's frames in order (R<->D: both directions, one file).
    # Nodes S, R, D are 10.0.0.1-3: the R->D interface carries what S sends.
    down = [ip for ip in ip_frames if ip.src == bytes([10, 0, 0, 1])]
    assert len(down) == len(offered)
    isn = None
    for ip, (_, row) in zip(down, offered.iterrows()):
        tcp = ip.data
        assert ip.len == row.wire_bytes and ip.ttl == row.ttl
        assert ip.tos & 3 == row.ecn
        assert (tcp.off * 4) + row.payload_bytes == ip.len - 20
        # tcp_flags is Wireshark's 12-bit field: dpkt's 8 flag bits plus the
        # four reserved bits of byte 12.
        assert tcp.flags | ((bytes(ip)[32] & 0x0F) << 8) == row.tcp_flags
        if tcp.flags & dpkt.tcp.TH_SYN:
            isn = tcp.seq
            continue
        assert (tcp.seq - isn - 1) % 2**32 == row.seq % 2**32
        opts = dict(dpkt.tcp.parse_opts(tcp.opts))
        assert dpkt.tcp.TCP_OPT_TIMESTAMP in opts


def test_observing_a_reproduction_cell_changes_nothing(tmp_path):
    """A G-Snoop reproduction cell (agents, control packets) with every link
    captured and every packet traced gives the same tables, exactly."""
    exp = gsnoop.EXPERIMENT
    cell, scheme = exp.cells[0], exp.schemes[-1].name
    sc = airtcp.load(exp.scenario(cell, scheme, dict(exp.params)))
    plain = airtcp.run(sc, seed=3)
    links = list(plain.links.name)
    observed = airtcp.run(sc, seed=3, pcap=links, trace=True, out_dir=tmp_path)
    assert len(observed.captures) == len(links)
    assert len(observed.trace) > 0
    for table in ("flows", "links", "transfers", "agents", "series"):
        assert plain.tables[table].equals(observed.tables[table]), table
    assert (plain.events, plain.packet_hops) == (observed.events, observed.packet_hops)


def test_cli_pcap_and_trace(tmp_path):
    p = run_cli("run", EXAMPLES / "wireless.toml", "--pcap", "base_station->mobile=bs.pcapng", "--trace",
                "--trace-flow", "flow0", "--out", tmp_path)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "bs.pcapng").stat().st_size > 0
    assert (tmp_path / "trace.parquet").stat().st_size > 0
    assert "wrote" in p.stdout and "bs.pcapng" in p.stdout
    bad = run_cli("run", EXAMPLES / "wireless.toml", "--pcap", "R->D")
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and 'pcap: unknown link or node "R->D"' in bad.stderr


def test_several_seeds_write_one_file_each(tmp_path):
    r = airtcp.run_many(EXAMPLES / "wireless.toml", seeds=[1, 2], workers=1, progress=False,
                        pcap={"mobile": "m.pcapng"}, trace="t.parquet", out_dir=tmp_path)
    assert sorted(p for p, _ in r.captures) == [str(tmp_path / "m-seed1.pcapng"), str(tmp_path / "m-seed2.pcapng")]
    assert list(r.trace.seed.unique()) == [1, 2]
    # The trace's seed column has the tables' type (a seed may exceed 2**63).
    assert r.trace.seed.dtype == r.flows.seed.dtype == "uint64"
    assert r.capture_files == [(s, str(tmp_path / f"m-seed{s}.pcapng"), n) for s, (_, n) in zip([1, 2], r.captures)]


def test_wrong_observe_arguments():
    with pytest.raises(airtcp.ScenarioError, match='trace: unknown flow "x"'):
        airtcp.run(EXAMPLES / "wireless.toml", trace={"flows": ["x"]})
    with pytest.raises(TypeError, match="trace takes the keys"):
        airtcp.run(EXAMPLES / "wireless.toml", trace={"flow": ["x"]})


def test_tcp_trace_writes_that_flows_packets(tmp_path):
    """Issue 13 case 10: `tcp.trace = true` is no longer accepted and
    ignored: the flow's packets go to trace.parquet in the output directory."""
    import tomllib

    sc = tomllib.loads((EXAMPLES / "dumbbell.toml").read_text())
    sc["simulation"]["duration"] = "3s"
    sc["flow"][1]["tcp"]["trace"] = True
    r = airtcp.run(sc, out_dir=tmp_path)
    assert r.trace_files == [(1, str(tmp_path / "trace.parquet"))]
    t = r.trace
    assert set(t.flow) == {"plain"} and len(t) > 1000
    sent = t[(t.event == "send") & (t.packet == "data") & (t.payload_bytes > 0)]
    assert len(sent) == r.flows.set_index("name").loc["plain"].segments_sent
