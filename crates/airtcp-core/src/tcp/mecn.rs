//! Multi-level ECN (MECN) at the TCP level: the echo of the IP congestion
//! level (`net/mecn.rs`) in two reserved TCP header bits, and the source's
//! "window reduced" signal. The one place that names these bits; the
//! receiver, the sender and the WMECN classifier go through it.
//!
//! Source: Sridharan, Durresi, Liu, Jain, "Wireless TCP Enhancements Using
//! Multi-level ECN" (WMECN), §2.1–§2.2 and Table 1, after Durresi et al.,
//! "Traffic management using multilevel explicit congestion notification"
//! (SCI 2001).
//!
//! **TCP echo (§2.2).** The receiver reflects the level in "the 2 bits 8, 9
//! in the reserved field of the TCP header". In RFC 793's layout those are
//! the positions RFC 3168 later gave to CWR and ECE. Our packet keeps
//! RFC 3168's CWR/ECE as their own flags, so MECN's bits 8 and 9 are carried
//! in the reserved flag bits [`flags::RESERVED_6`] and [`flags::RESERVED_7`]
//! (Kick TCP uses `RESERVED_4`): an MECN echo can never be mistaken for an
//! RFC 3168 ECE. On an ACK, bits 8 9 hold the level code of `net/mecn.rs`'s table
//! (`01`, `10`, `11`; `00` = nothing to report, e.g. the acknowledged
//! segments were retransmissions, which are sent not ECN-capable as in
//! RFC 3168 §6.1.5 unless the sender's `ecn_capable_retransmissions`
//! option, ns-2's behaviour, makes them `01`). The document leaves "the other combination used by the
//! source" to indicate that the window was reduced; since levels travel only
//! on ACKs and CWR only on data segments, we let the source set both bits
//! (`11`) on the first new data segment after a reduction.

pub use crate::net::mecn::MecnLevel;
use crate::net::packet::{flags, Packet};

/// MECN's "bit 8" of the TCP header (the high bit of the two-bit code).
pub const MECN_BIT8: u16 = flags::RESERVED_6;
/// MECN's "bit 9" of the TCP header (the low bit).
pub const MECN_BIT9: u16 = flags::RESERVED_7;
/// Both bits.
pub const MECN_BITS: u16 = MECN_BIT8 | MECN_BIT9;

/// Put the echo of `level` in an ACK's bits 8 and 9 (§2.2).
pub fn set_echo(ack: &mut Packet, level: MecnLevel) {
    let b = level as u8;
    ack.set_flag(MECN_BIT8, b & 0b10 != 0);
    ack.set_flag(MECN_BIT9, b & 0b01 != 0);
}

/// The level echoed on an ACK; None when the ACK reports nothing (`00`).
pub fn echoed_level(ack: &Packet) -> Option<MecnLevel> {
    let b = (ack.has_flag(MECN_BIT8) as u8) << 1 | ack.has_flag(MECN_BIT9) as u8;
    match MecnLevel::from_bits(b) {
        MecnLevel::NotCapable => None,
        l => Some(l),
    }
}

/// The source's "congestion window reduced" signal on a data segment.
pub fn set_cwr(data: &mut Packet) {
    data.flags |= MECN_BITS;
}

pub fn has_cwr(data: &Packet) -> bool {
    data.flags & MECN_BITS == MECN_BITS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echo_round_trips_and_does_not_touch_rfc3168_or_kick_bits() {
        for l in [
            MecnLevel::NoCongestion,
            MecnLevel::Incipient,
            MecnLevel::Moderate,
        ] {
            let mut a = Packet::default();
            set_echo(&mut a, l);
            assert_eq!(echoed_level(&a), Some(l));
            assert!(!a.has_flag(flags::ECE) && !a.has_flag(flags::CWR));
            assert!(!a.has_flag(crate::tcp::kick::KICK));
        }
        let mut a = Packet::default();
        set_echo(&mut a, MecnLevel::Moderate);
        set_echo(&mut a, MecnLevel::NotCapable);
        assert_eq!(echoed_level(&a), None);
    }
}
