//! Real IPv4 headers for airtcp's header-only packets, so that a capture
//! reads in Wireshark as a genuine trace (RFC 791 IPv4, RFC 9293 TCP,
//! RFC 768 UDP).
//!
//! airtcp's packets carry no payload bytes; a capture writes the headers it
//! synthesises here followed by `payload_len` zero bytes (or fewer, with a
//! snap length). Checksums are computed over that zero payload, which adds
//! nothing to a ones' complement sum, so they are correct whether or not the
//! payload is written.
//!
//! The mapping from airtcp's packet to the wire, documented in
//! `docs/capture.md`:
//!
//! * node `i` has the address 10.0.0.0 + i + 1 (10.0.0.1, 10.0.0.2, ...);
//! * a flow's data sender uses port 49152 + (connection - 1) mod 16384 (each
//!   repeated download opens a new connection, so a new port), its receiver
//!   port 1024 + flow index mod 48128;
//! * airtcp's sequence numbers are 64-bit byte offsets from 0 in which the
//!   SYN takes no number; on the wire the SYN carries the initial sequence
//!   number (ISN) and byte `s` of the stream is ISN + 1 + s (mod 2^32), as in
//!   a real connection. ISNs are a fixed function of (flow, connection,
//!   direction);
//! * the window field is min(window, 65535): airtcp does not model window
//!   scaling; the data sender, whose receive window is not modelled,
//!   advertises 65535;
//! * timestamps (RFC 7323) carry airtcp's nanosecond clock in microseconds,
//!   mod 2^32;
//! * option layouts are exactly the byte counts of [`Packet::wire_bytes`]:
//!   a SYN or SYN-ACK carries MSS and SACK-permitted (4 NOPs in its place
//!   when the flow does not use SACK), timestamps are NOP NOP TS, SACK
//!   blocks NOP NOP SACK;
//! * the reserved TCP bits airtcp uses are set where they are in the header
//!   ([`tcp_flags_field`]).

use crate::net::packet::{flags, Packet, PacketKind, IP_HEADER_BYTES};

/// IP protocol numbers (IANA).
const IPPROTO_TCP: u8 = 6;
const IPPROTO_UDP: u8 = 17;

/// What a capture needs to know about a flow that its packets do not say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowWire {
    /// Sender MSS, announced on the SYN and SYN-ACK.
    pub mss: u16,
    /// SACK-permitted on the SYN and SYN-ACK (RFC 2018 §2).
    pub sack_permitted: bool,
}

/// The IPv4 address of node `node`: 10.0.0.0 + node + 1. Valid for fewer
/// than 2^24 - 2 nodes (checked when a capture is set up).
pub fn node_ipv4(node: u32) -> [u8; 4] {
    (0x0A00_0000u32 + node + 1).to_be_bytes()
}

/// Largest node count [`node_ipv4`] maps into 10.0.0.0/8 without reaching
/// its broadcast address.
pub const MAX_CAPTURE_NODES: usize = (1 << 24) - 2;

/// The data sender's TCP port for connection `epoch` (1-based).
pub fn sender_port(epoch: u32) -> u16 {
    49152 + (epoch.saturating_sub(1) % 16384) as u16
}

/// The receiver's TCP (or UDP sink's) port of flow `flow`.
pub fn receiver_port(flow: u32) -> u16 {
    1024 + (flow % 48128) as u16
}

/// The initial sequence number of one direction of a connection: a fixed
/// mix of (flow, connection, direction), so that connections are told apart
/// and 32-bit wrap-around is exercised without randomness.
pub fn isn(flow: u32, epoch: u32, from_receiver: bool) -> u32 {
    let mut h: u32 = 0x811C_9DC5;
    for b in flow
        .to_le_bytes()
        .into_iter()
        .chain(epoch.to_le_bytes())
        .chain([from_receiver as u8])
    {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// The TCP header's 12 flag bits as a number (Wireshark's `tcp.flags`):
/// FIN..CWR in bits 0-7, then the bit RFC 3540 called NS (RFC 9293's last
/// reserved bit) in bit 8 and the three reserved bits in 9-11. airtcp names
/// the reserved bits by their header position 4..7 (`flags::RESERVED_4` is
/// the most significant), so bit 4 maps to 0x800 and bit 7 to 0x100.
pub fn tcp_flags_field(f: u16) -> u16 {
    let mut v = f & 0xFF;
    for (airtcp, wire) in [
        (flags::RESERVED_4, 0x800),
        (flags::RESERVED_5, 0x400),
        (flags::RESERVED_6, 0x200),
        (flags::RESERVED_7, 0x100),
    ] {
        if f & airtcp != 0 {
            v |= wire;
        }
    }
    v
}

/// RFC 1071 ones' complement sum of `data` (big-endian 16-bit words, an odd
/// last byte padded with zero), added to `sum` without folding.
fn ones_sum(mut sum: u32, data: &[u8]) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for w in &mut chunks {
        sum += u16::from_be_bytes([w[0], w[1]]) as u32;
    }
    if let [last] = chunks.remainder() {
        sum += (*last as u32) << 8;
    }
    sum
}

/// Fold a 32-bit ones' complement sum and complement it (RFC 1071).
fn checksum_of(mut sum: u32) -> u16 {
    while sum >> 16 != 0 {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    !(sum as u16)
}

/// The RFC 1071 Internet checksum of `data`.
pub fn internet_checksum(data: &[u8]) -> u16 {
    checksum_of(ones_sum(0, data))
}

/// Append the headers of `pkt` to `buf` (cleared first). Returns the total
/// length on the wire (`pkt.wire_bytes()`), of which `buf.len()` bytes are
/// headers; the rest is zero payload. `None` for a packet that is not IP
/// (an agent's link-layer control message).
pub fn write_headers(pkt: &Packet, flow: Option<&FlowWire>, buf: &mut Vec<u8>) -> Option<u32> {
    buf.clear();
    let total = pkt.wire_bytes();
    let proto = match pkt.kind {
        PacketKind::TcpData | PacketKind::TcpAck => IPPROTO_TCP,
        PacketKind::Udp => IPPROTO_UDP,
        PacketKind::Control => return None,
    };
    let (src, dst) = (node_ipv4(pkt.src), node_ipv4(pkt.dst));
    // RFC 791 header; DF set, no options.
    buf.extend_from_slice(&[0x45, pkt.ecn as u8]);
    buf.extend_from_slice(&(total.min(u16::MAX as u32) as u16).to_be_bytes());
    buf.extend_from_slice(&(pkt.uid as u16).to_be_bytes());
    buf.extend_from_slice(&[0x40, 0x00, pkt.ttl, proto, 0, 0]);
    buf.extend_from_slice(&src);
    buf.extend_from_slice(&dst);
    let ip_sum = internet_checksum(&buf[..IP_HEADER_BYTES as usize]);
    buf[10..12].copy_from_slice(&ip_sum.to_be_bytes());

    let l4_len = total - IP_HEADER_BYTES;
    if proto == IPPROTO_UDP {
        buf.extend_from_slice(&sender_port(1).to_be_bytes());
        buf.extend_from_slice(&receiver_port(pkt.flow).to_be_bytes());
        buf.extend_from_slice(&(l4_len as u16).to_be_bytes());
        buf.extend_from_slice(&[0, 0]);
    } else {
        write_tcp_header(pkt, flow, buf);
    }
    // Pseudo-header (RFC 9293 §3.1, RFC 768) plus the header; the zero
    // payload adds nothing.
    let l4 = IP_HEADER_BYTES as usize;
    let mut sum = ones_sum(0, &src);
    sum = ones_sum(sum, &dst);
    sum += proto as u32 + l4_len;
    sum = ones_sum(sum, &buf[l4..]);
    let mut l4_sum = checksum_of(sum);
    let at = if proto == IPPROTO_UDP {
        // RFC 768: a computed zero is sent as all ones.
        if l4_sum == 0 {
            l4_sum = 0xFFFF;
        }
        l4 + 6
    } else {
        l4 + 16
    };
    buf[at..at + 2].copy_from_slice(&l4_sum.to_be_bytes());
    debug_assert!(buf.len() as u32 <= total);
    Some(total)
}

fn write_tcp_header(pkt: &Packet, flow: Option<&FlowWire>, buf: &mut Vec<u8>) {
    let from_receiver = pkt.kind == PacketKind::TcpAck;
    let own_isn = isn(pkt.flow, pkt.epoch, from_receiver);
    let peer_isn = isn(pkt.flow, pkt.epoch, !from_receiver);
    let syn = pkt.has_flag(flags::SYN);
    let seq = if syn {
        own_isn
    } else {
        own_isn.wrapping_add(1).wrapping_add(pkt.seq as u32)
    };
    let ack = if pkt.has_flag(flags::ACK) {
        peer_isn.wrapping_add(1).wrapping_add(pkt.ack as u32)
    } else {
        0
    };
    let (sport, dport) = if from_receiver {
        (receiver_port(pkt.flow), sender_port(pkt.epoch))
    } else {
        (sender_port(pkt.epoch), receiver_port(pkt.flow))
    };
    let header_len = pkt.wire_bytes() - IP_HEADER_BYTES - pkt.payload_len;
    let start = buf.len();
    buf.extend_from_slice(&sport.to_be_bytes());
    buf.extend_from_slice(&dport.to_be_bytes());
    buf.extend_from_slice(&seq.to_be_bytes());
    buf.extend_from_slice(&ack.to_be_bytes());
    let field = tcp_flags_field(pkt.flags);
    let data_offset = (header_len / 4) as u16;
    buf.extend_from_slice(&((data_offset << 12) | field).to_be_bytes());
    // The data sender's own receive window is not modelled: it advertises
    // the largest unscaled window, never a zero window.
    let window = if from_receiver {
        pkt.wnd.min(u16::MAX as u64) as u16
    } else {
        u16::MAX
    };
    buf.extend_from_slice(&window.to_be_bytes());
    buf.extend_from_slice(&[0, 0, 0, 0]); // checksum (filled in later), urgent pointer
    if syn {
        // MSS (RFC 9293 §3.2) and SACK-permitted (RFC 2018 §2).
        let mss = flow.map_or(0, |f| f.mss);
        buf.extend_from_slice(&[2, 4]);
        buf.extend_from_slice(&mss.to_be_bytes());
        if flow.is_some_and(|f| f.sack_permitted) {
            buf.extend_from_slice(&[1, 1, 4, 2]);
        } else {
            buf.extend_from_slice(&[1, 1, 1, 1]);
        }
    }
    if pkt.has_ts {
        // RFC 7323 §3 with the recommended NOP NOP alignment (Appendix A).
        buf.extend_from_slice(&[1, 1, 8, 10]);
        buf.extend_from_slice(&((pkt.ts_val / 1000) as u32).to_be_bytes());
        buf.extend_from_slice(&((pkt.ts_ecr / 1000) as u32).to_be_bytes());
    }
    if pkt.sack_count > 0 {
        // RFC 2018 §3: kind 5, length 2 + 8n, left and right edges.
        let blocks = pkt.sack_blocks();
        buf.extend_from_slice(&[1, 1, 5, 2 + 8 * blocks.len() as u8]);
        for b in blocks {
            buf.extend_from_slice(&own_seq(peer_isn, b.start).to_be_bytes());
            buf.extend_from_slice(&own_seq(peer_isn, b.end).to_be_bytes());
        }
    }
    debug_assert_eq!(buf.len() - start, header_len as usize);
}

/// Byte offset `s` of the stream whose ISN is `isn`, on the wire.
fn own_seq(isn: u32, s: u64) -> u32 {
    isn.wrapping_add(1).wrapping_add(s as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::testing::{ack, data};
    use crate::net::packet::{Ecn, SackBlock, UDP_HEADER_BYTES};

    /// RFC 1071 §3's worked example: the sum of 00 01 f2 03 f4 f5 f6 f7 is
    /// ddf2, so the checksum is its complement.
    #[test]
    fn checksum_matches_rfc1071_example() {
        let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(internet_checksum(&data), !0xddf2);
    }

    /// A header whose checksum field holds its checksum sums to zero
    /// (RFC 1071 §1, the receiver's check).
    #[test]
    fn ip_header_verifies() {
        let mut buf = Vec::new();
        let mut p = data(5000, 1000);
        p.ecn = Ecn::Ce;
        p.uid = 0x1_2345;
        write_headers(&p, None, &mut buf).unwrap();
        assert_eq!(internet_checksum(&buf[..20]), 0);
        assert_eq!(buf[1], 0b11, "ECN CE in the low two bits of the TOS byte");
        assert_eq!(&buf[4..6], &[0x23, 0x45], "IP id = low 16 bits of the uid");
        assert_eq!(u16::from_be_bytes([buf[2], buf[3]]), 1040);
        assert_eq!(&buf[12..16], &[10, 0, 0, 1]);
        assert_eq!(&buf[16..20], &[10, 0, 0, 3]);
    }

    /// TCP checksum over pseudo-header, header and a zero payload: an
    /// independent sum over the whole segment (payload written out) is zero.
    #[test]
    fn tcp_checksum_covers_pseudo_header_and_zero_payload() {
        let mut buf = Vec::new();
        let mut p = data(7, 999); // odd length
        p.has_ts = true;
        p.ts_val = 123_456_789;
        let total = write_headers(&p, None, &mut buf).unwrap() as usize;
        let mut segment = buf[20..].to_vec();
        segment.resize(total - 20, 0);
        let mut pseudo = Vec::new();
        pseudo.extend_from_slice(&buf[12..20]);
        pseudo.extend_from_slice(&[0, 6]);
        pseudo.extend_from_slice(&(segment.len() as u16).to_be_bytes());
        pseudo.extend_from_slice(&segment);
        assert_eq!(internet_checksum(&pseudo), 0);
    }

    #[test]
    fn sequence_numbers_follow_the_isn_and_sack_blocks_the_peers() {
        let mut buf = Vec::new();
        let p = data(1000, 1000);
        write_headers(&p, None, &mut buf).unwrap();
        let seq = u32::from_be_bytes(buf[24..28].try_into().unwrap());
        assert_eq!(seq, isn(0, 1, false).wrapping_add(1001));
        let mut a = ack(1000);
        a.sack_count = 1;
        a.sack[0] = SackBlock {
            start: 2000,
            end: 3000,
        };
        write_headers(&a, None, &mut buf).unwrap();
        let ackno = u32::from_be_bytes(buf[28..32].try_into().unwrap());
        assert_eq!(ackno, isn(0, 1, false).wrapping_add(1001));
        // Header: 20 + NOP NOP SACK(2 + 8) = 32 bytes, data offset 8.
        assert_eq!(buf[32] >> 4, 8);
        assert_eq!(&buf[40..44], &[1, 1, 5, 10]);
        let left = u32::from_be_bytes(buf[44..48].try_into().unwrap());
        assert_eq!(left, isn(0, 1, false).wrapping_add(2001));
    }

    #[test]
    fn reserved_bits_sit_where_the_header_has_them() {
        assert_eq!(tcp_flags_field(flags::ACK | flags::ECE), 0x050);
        assert_eq!(tcp_flags_field(flags::RESERVED_4), 0x800);
        assert_eq!(tcp_flags_field(flags::RESERVED_7), 0x100);
        let mut buf = Vec::new();
        let mut p = data(0, 10);
        p.flags |= flags::RESERVED_4 | flags::RESERVED_7;
        write_headers(&p, None, &mut buf).unwrap();
        assert_eq!(buf[32] & 0x0F, 0b1001, "bit 4 and bit 7 of byte 12");
    }

    #[test]
    fn syn_options_are_mss_and_sack_permitted() {
        let mut buf = Vec::new();
        let mut p = data(0, 0);
        p.flags = flags::SYN;
        let wire = FlowWire {
            mss: 1460,
            sack_permitted: true,
        };
        assert_eq!(write_headers(&p, Some(&wire), &mut buf), Some(48));
        assert_eq!(&buf[40..48], &[2, 4, 0x05, 0xB4, 1, 1, 4, 2]);
        let seq = u32::from_be_bytes(buf[24..28].try_into().unwrap());
        assert_eq!(seq, isn(0, 1, false));
        let plain = FlowWire {
            sack_permitted: false,
            ..wire
        };
        write_headers(&p, Some(&plain), &mut buf).unwrap();
        assert_eq!(&buf[44..48], &[1, 1, 1, 1]);
    }

    #[test]
    fn udp_length_and_nonzero_checksum() {
        let mut buf = Vec::new();
        let p = Packet {
            kind: PacketKind::Udp,
            src: 0,
            dst: 1,
            raw_size: 1000,
            ttl: 64,
            ..Default::default()
        };
        assert_eq!(write_headers(&p, None, &mut buf), Some(1000));
        assert_eq!(buf.len(), 28);
        assert_eq!(u16::from_be_bytes([buf[24], buf[25]]), 980);
        assert_ne!(u16::from_be_bytes([buf[26], buf[27]]), 0);
        assert_eq!(UDP_HEADER_BYTES, 8);
    }

    #[test]
    fn control_packets_are_not_ip() {
        let p = Packet {
            kind: PacketKind::Control,
            raw_size: 14,
            ..Default::default()
        };
        assert_eq!(write_headers(&p, None, &mut Vec::new()), None);
    }
}
