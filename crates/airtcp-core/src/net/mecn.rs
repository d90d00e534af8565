//! Multi-level ECN (MECN) at the IP level: the two-bit congestion level
//! carried in the IP ECN field. The one place that names these code points;
//! the routers (`net/queue/mecn.rs`, `wmecn.rs`) raise the level, and TCP
//! (`tcp/mecn.rs`, which echoes the level in reserved TCP bits) reads it.
//!
//! Source: Sridharan, Durresi, Liu, Jain, "Wireless TCP Enhancements Using
//! Multi-level ECN" (WMECN), §2.1 and Table 1, after Durresi et al.,
//! "Traffic management using multilevel explicit congestion notification"
//! (SCI 2001).
//!
//! **IP field (§2.1).** MECN uses the two ECN bits of RFC 3168 §5 (bits 6
//! and 7 of the TOS / Traffic Class octet), read as a level, written bit 6
//! first exactly as the document writes them:
//!
//! | bits 6 7 | MECN meaning (§2.1, Table 1) | our `Ecn` (same bits) | weight (§3.2) |
//! |---|---|---|---|
//! | `00` | not ECN-capable | `NotEct` | — |
//! | `01` | no congestion | `Ect1` | 0 |
//! | `10` | incipient ("mild") congestion | `Ect0` | 1 |
//! | `11` | moderate ("severe") congestion | `Ce` | 2 |
//!
//! So an MECN source sends its data as `01` (the bit pattern RFC 3168 calls
//! ECT(1)), an MECN router raises it to `10` or `11`, and never lowers it.
//! Two consequences, documented rather than hidden: an RFC 3168 sender's
//! ECT(0) (`10`) would read as "incipient" at an MECN receiver, so MECN and
//! plain ECN flows should not share a receiver configuration; and a plain
//! RFC 3168 RED router on an MECN path sets CE (`11`), which MECN reads as
//! moderate congestion — a safe (conservative) interpretation.

use crate::net::packet::{Ecn, Packet};

/// A congestion level (§2.1). Ordered: a router only ever raises it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum MecnLevel {
    /// `00`: not ECN-capable.
    NotCapable = 0b00,
    /// `01`: no congestion.
    NoCongestion = 0b01,
    /// `10`: incipient (mild) congestion.
    Incipient = 0b10,
    /// `11`: moderate (severe) congestion.
    Moderate = 0b11,
}

impl MecnLevel {
    pub fn from_bits(b: u8) -> Self {
        match b & 0b11 {
            0b00 => MecnLevel::NotCapable,
            0b01 => MecnLevel::NoCongestion,
            0b10 => MecnLevel::Incipient,
            _ => MecnLevel::Moderate,
        }
    }

    /// The level carried by a packet's IP ECN field.
    pub fn of_ip(ecn: Ecn) -> Self {
        Self::from_bits(ecn as u8)
    }

    /// The IP ECN field carrying this level.
    pub fn to_ip(self) -> Ecn {
        match self {
            MecnLevel::NotCapable => Ecn::NotEct,
            MecnLevel::NoCongestion => Ecn::Ect1,
            MecnLevel::Incipient => Ecn::Ect0,
            MecnLevel::Moderate => Ecn::Ce,
        }
    }

    /// WMECN §3.2, Table 1: weights 0, 1, 2 (None for `00`, no feedback).
    pub fn weight(self) -> Option<u8> {
        match self {
            MecnLevel::NotCapable => None,
            MecnLevel::NoCongestion => Some(0),
            MecnLevel::Incipient => Some(1),
            MecnLevel::Moderate => Some(2),
        }
    }
}

/// Raise the packet's IP level to at least `level` (§2.1: marks only add
/// congestion information). Returns the level it now carries.
pub fn raise_ip_level(pkt: &mut Packet, level: MecnLevel) -> MecnLevel {
    let now = MecnLevel::of_ip(pkt.ecn).max(level);
    pkt.ecn = now.to_ip();
    now
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ip_mapping_is_bit_for_bit() {
        for (bits, ecn) in [
            (0b00, Ecn::NotEct),
            (0b01, Ecn::Ect1),
            (0b10, Ecn::Ect0),
            (0b11, Ecn::Ce),
        ] {
            let l = MecnLevel::from_bits(bits);
            assert_eq!(l as u8, bits);
            assert_eq!(l.to_ip(), ecn);
            assert_eq!(MecnLevel::of_ip(ecn), l);
        }
    }

    #[test]
    fn raising_never_lowers() {
        let mut p = Packet {
            ecn: Ecn::Ce,
            ..Default::default()
        };
        assert_eq!(
            raise_ip_level(&mut p, MecnLevel::Incipient),
            MecnLevel::Moderate
        );
        p.ecn = Ecn::Ect1;
        assert_eq!(
            raise_ip_level(&mut p, MecnLevel::Incipient),
            MecnLevel::Incipient
        );
        assert_eq!(p.ecn, Ecn::Ect0);
    }
}
