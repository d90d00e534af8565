//! Packets: small `Copy` structs carrying only what the mechanisms read.
//! There are no payload bytes; `payload_len` stands for them.

use crate::sim::TimeNs;

/// IP header bytes (IPv4, no options).
pub const IP_HEADER_BYTES: u32 = 20;
/// TCP header bytes without options.
pub const TCP_HEADER_BYTES: u32 = 20;
/// UDP header bytes.
pub const UDP_HEADER_BYTES: u32 = 8;
/// Timestamps option (RFC 7323 §3): 10 bytes, padded with two NOPs to 12.
pub const TS_OPTION_BYTES: u32 = 12;
/// Default IP TTL.
pub const DEFAULT_TTL: u8 = 64;
/// RFC 2018 §3: at most 4 SACK blocks fit in the 40-byte option space, 3 when
/// the timestamps option is present.
pub const MAX_SACK_BLOCKS: usize = 4;

/// IP ECN field (RFC 3168 §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum Ecn {
    #[default]
    NotEct = 0b00,
    Ect1 = 0b01,
    Ect0 = 0b10,
    Ce = 0b11,
}

impl Ecn {
    pub fn is_ect(self) -> bool {
        matches!(self, Ecn::Ect0 | Ecn::Ect1)
    }
}

/// TCP flags, including the reserved header bits that later mechanisms use
/// (Kick TCP's K bit, multi-level ECN's bits 8 and 9).
pub mod flags {
    pub const FIN: u16 = 1 << 0;
    pub const SYN: u16 = 1 << 1;
    pub const RST: u16 = 1 << 2;
    pub const PSH: u16 = 1 << 3;
    pub const ACK: u16 = 1 << 4;
    pub const URG: u16 = 1 << 5;
    /// RFC 3168 §6.1: ECN-Echo.
    pub const ECE: u16 = 1 << 6;
    /// RFC 3168 §6.1: Congestion Window Reduced.
    pub const CWR: u16 = 1 << 7;
    /// The three reserved bits of the TCP header (RFC 9293 §3.1 "Rsrvd"),
    /// numbered from the most significant (header bit 4) to bit 6, plus NS
    /// (former RFC 3540 bit 7). Mechanisms name their own aliases.
    pub const RESERVED_4: u16 = 1 << 8;
    pub const RESERVED_5: u16 = 1 << 9;
    pub const RESERVED_6: u16 = 1 << 10;
    pub const RESERVED_7: u16 = 1 << 11;
}

/// What a packet is, for dispatch at its destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PacketKind {
    /// A TCP segment from the data sender to the receiver (data or SYN).
    #[default]
    TcpData,
    /// A TCP segment from the receiver back to the data sender (ACK, SYN-ACK).
    TcpAck,
    /// A UDP datagram of an on/off source.
    Udp,
    /// A control packet between middlebox agents (e.g. a G-Snoop NACK).
    Control,
}

/// Why a packet died: the ground truth that loss classifiers are scored on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeathCause {
    /// Tail drop: the queue was full.
    QueueOverflow,
    /// Active queue management chose to drop it (RED early drop).
    AqmDrop,
    /// Lost or corrupted on the channel (wireless error, fading).
    ChannelError,
    /// IP TTL reached zero.
    TtlExpired,
    /// Dropped by a middlebox agent (e.g. a kick answered by a kick-aware node).
    AgentDrop,
    /// No route from the node it reached to its destination.
    NoRoute,
}

impl DeathCause {
    pub const ALL: [DeathCause; 6] = [
        DeathCause::QueueOverflow,
        DeathCause::AqmDrop,
        DeathCause::ChannelError,
        DeathCause::TtlExpired,
        DeathCause::AgentDrop,
        DeathCause::NoRoute,
    ];

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            DeathCause::QueueOverflow => "queue",
            DeathCause::AqmDrop => "aqm",
            DeathCause::ChannelError => "channel",
            DeathCause::TtlExpired => "ttl",
            DeathCause::AgentDrop => "agent",
            DeathCause::NoRoute => "no_route",
        }
    }

    /// What happened, as a clause ("... died because <describe>").
    pub fn describe(self) -> &'static str {
        match self {
            DeathCause::QueueOverflow => "the queue was full (tail drop)",
            DeathCause::AqmDrop => "active queue management dropped it (RED early drop)",
            DeathCause::ChannelError => "the channel lost or corrupted it (wireless error, fading)",
            DeathCause::TtlExpired => "its IP TTL reached zero",
            DeathCause::AgentDrop => {
                "a middlebox agent dropped it (e.g. a kick answered by a kick-aware node)"
            }
            DeathCause::NoRoute => "no route led from the node it reached to its destination",
        }
    }
}

/// One SACK block [start, end) in byte sequence space (RFC 2018 §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SackBlock {
    pub start: u64,
    pub end: u64,
}

/// A packet. Sequence numbers are 64-bit byte offsets from the start of the
/// connection and never wrap (a simplification of RFC 9293's 32-bit space
/// that changes no behaviour the simulator models).
#[derive(Clone, Copy, Debug, Default)]
pub struct Packet {
    /// Unique id within a run (ground truth bookkeeping).
    pub uid: u64,
    pub kind: PacketKind,
    /// Flow index in the world.
    pub flow: u32,
    /// Connection epoch within the flow (repeated downloads open a new
    /// connection per transfer; stale packets of an old one are ignored).
    pub epoch: u32,
    /// Source and destination node indices.
    pub src: u32,
    pub dst: u32,
    pub ecn: Ecn,
    pub ttl: u8,
    pub flags: u16,
    pub seq: u64,
    pub ack: u64,
    pub payload_len: u32,
    /// Advertised receive window in bytes (no window scaling arithmetic).
    pub wnd: u64,
    /// RFC 7323 timestamps option, if present. Values are the sender's clock
    /// in nanoseconds.
    pub has_ts: bool,
    pub ts_val: u64,
    pub ts_ecr: u64,
    pub sack_count: u8,
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
    /// Ground truth: this data segment re-sends bytes already sent once.
    pub is_retransmission: bool,
    /// Ground truth: time the packet left its source.
    pub sent_ns: TimeNs,
    /// Bytes on the wire for a UDP or control packet (TCP size is derived).
    pub raw_size: u32,
}

impl Packet {
    #[inline]
    pub fn has_flag(&self, f: u16) -> bool {
        self.flags & f != 0
    }

    #[inline]
    pub fn set_flag(&mut self, f: u16, on: bool) {
        if on {
            self.flags |= f;
        } else {
            self.flags &= !f;
        }
    }

    pub fn sack_blocks(&self) -> &[SackBlock] {
        &self.sack[..self.sack_count as usize]
    }

    /// Sequence number one past the last payload byte.
    #[inline]
    pub fn end_seq(&self) -> u64 {
        self.seq + self.payload_len as u64
    }

    /// Bytes on the wire: IP and TCP headers and options, plus payload.
    #[inline]
    pub fn wire_bytes(&self) -> u32 {
        match self.kind {
            PacketKind::TcpData | PacketKind::TcpAck => {
                let mut opts = 0;
                if self.has_ts {
                    opts += TS_OPTION_BYTES;
                }
                if self.sack_count > 0 {
                    // kind + length (2 bytes) + 8 per block, padded by 2 NOPs.
                    opts += 4 + 8 * self.sack_count as u32;
                }
                if self.has_flag(flags::SYN) {
                    // MSS (4) + SACK-permitted (2) + padding (2).
                    opts += 8;
                }
                IP_HEADER_BYTES + TCP_HEADER_BYTES + opts + self.payload_len
            }
            PacketKind::Udp | PacketKind::Control => self.raw_size,
        }
    }
}

/// Packets for unit tests of agents and endpoints: flow 0, epoch 1, a data
/// sender on node 0 and its receiver on node 2.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// A data segment [seq, seq + len).
    pub fn data(seq: u64, len: u32) -> Packet {
        Packet {
            kind: PacketKind::TcpData,
            flow: 0,
            epoch: 1,
            src: 0,
            dst: 2,
            seq,
            payload_len: len,
            ttl: DEFAULT_TTL,
            flags: flags::ACK,
            ..Default::default()
        }
    }

    /// A pure cumulative ACK of `ack` from the receiver.
    pub fn ack(ack: u64) -> Packet {
        Packet {
            kind: PacketKind::TcpAck,
            flow: 0,
            epoch: 1,
            src: 2,
            dst: 0,
            ack,
            ttl: DEFAULT_TTL,
            flags: flags::ACK,
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_is_small_and_copy() {
        assert!(
            std::mem::size_of::<Packet>() <= 160,
            "{}",
            std::mem::size_of::<Packet>()
        );
    }

    #[test]
    fn wire_size_counts_headers_and_options() {
        let mut p = Packet {
            kind: PacketKind::TcpData,
            payload_len: 1000,
            ..Default::default()
        };
        assert_eq!(p.wire_bytes(), 1040);
        p.has_ts = true;
        assert_eq!(p.wire_bytes(), 1052);
        let mut a = Packet {
            kind: PacketKind::TcpAck,
            ..Default::default()
        };
        assert_eq!(a.wire_bytes(), 40);
        a.sack_count = 3;
        a.has_ts = true;
        assert_eq!(a.wire_bytes(), 40 + 12 + 28);
    }
}
