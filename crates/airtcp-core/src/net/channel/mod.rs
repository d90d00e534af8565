//! Channel impairments of one link direction. A channel is consulted when a
//! packet starts its transmission and says whether it arrives (possibly
//! later, for impairments that delay) or is lost. Add a model by adding a
//! file and a variant of [`ChannelModel`]; the link calls only
//! [`Channel::transmit`].

pub mod ber;
pub mod bernoulli;
pub mod drop_list;
pub mod gilbert_elliott;
pub mod route_change;

use crate::net::packet::{flags, Packet, PacketKind};
use crate::sim::rng::RandomStream;
use crate::sim::TimeNs;

pub use ber::BitErrorRate;
pub use bernoulli::Bernoulli;
pub use drop_list::DropList;
pub use gilbert_elliott::GilbertElliott;
pub use route_change::RouteChange;

/// What a channel does to one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelVerdict {
    /// Arrives after the link's propagation delay plus `extra_delay_ns`.
    Deliver { extra_delay_ns: TimeNs },
    /// Corrupted or lost on the channel.
    Lost,
}

/// Which packets a channel's errors apply to (the others cross unharmed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PacketFilter {
    #[default]
    All,
    /// TCP segments carrying payload and UDP datagrams.
    Data,
    /// Pure TCP ACKs (no payload).
    Acks,
}

impl PacketFilter {
    #[inline]
    pub fn matches(self, pkt: &Packet) -> bool {
        match self {
            PacketFilter::All => true,
            PacketFilter::Data => pkt.payload_len > 0 || pkt.kind == PacketKind::Udp,
            PacketFilter::Acks => {
                pkt.kind == PacketKind::TcpAck && pkt.payload_len == 0 && pkt.has_flag(flags::ACK)
            }
        }
    }
}

/// The error process itself. One per link direction, never copied per
/// packet, so variant sizes do not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum ChannelModel {
    Perfect,
    Bernoulli(Bernoulli),
    BitErrorRate(BitErrorRate),
    GilbertElliott(GilbertElliott),
    DropList(DropList),
    RouteChange(RouteChange),
}

/// A link direction's channel: a model, the packets it applies to, and its
/// own random stream. `repr(C)`: the model (a perfect channel is decided
/// by its tag alone) comes first.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Channel {
    pub model: ChannelModel,
    pub applies_to: PacketFilter,
    rng: RandomStream,
    /// Opt-in record of every decision on a matching packet (true = lost),
    /// for checking common random numbers across runs.
    pub fates: Option<Vec<bool>>,
}

impl Channel {
    pub fn new(model: ChannelModel, applies_to: PacketFilter, rng: RandomStream) -> Self {
        Self {
            model,
            applies_to,
            rng,
            fates: None,
        }
    }

    pub fn perfect() -> Self {
        Self::new(
            ChannelModel::Perfect,
            PacketFilter::All,
            RandomStream::new(0, "perfect"),
        )
    }

    pub fn is_perfect(&self) -> bool {
        matches!(self.model, ChannelModel::Perfect)
    }

    /// Decide the fate of `pkt`, whose transmission starts at `start_ns`.
    /// Calls come in non-decreasing `start_ns` order per link direction.
    #[inline]
    /// `tx_ns` is the packet's transmission time on the link.
    pub fn transmit(&mut self, start_ns: TimeNs, tx_ns: TimeNs, pkt: &Packet) -> ChannelVerdict {
        if matches!(self.model, ChannelModel::Perfect) || !self.applies_to.matches(pkt) {
            return ChannelVerdict::Deliver { extra_delay_ns: 0 };
        }
        if let ChannelModel::RouteChange(m) = &mut self.model {
            let extra_delay_ns = m.delay_for(pkt.flow, &mut self.rng);
            return ChannelVerdict::Deliver { extra_delay_ns };
        }
        let lost = match &mut self.model {
            ChannelModel::Perfect | ChannelModel::RouteChange(_) => false,
            ChannelModel::Bernoulli(m) => m.is_lost(&mut self.rng),
            ChannelModel::BitErrorRate(m) => m.is_lost(pkt.wire_bytes(), &mut self.rng),
            ChannelModel::GilbertElliott(m) => m.is_lost(start_ns, start_ns + tx_ns, &mut self.rng),
            ChannelModel::DropList(m) => m.is_lost(),
        };
        if let Some(f) = self.fates.as_mut() {
            f.push(lost);
        }
        if lost {
            ChannelVerdict::Lost
        } else {
            ChannelVerdict::Deliver { extra_delay_ns: 0 }
        }
    }
}
