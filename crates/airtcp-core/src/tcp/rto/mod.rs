//! Timeout response: *what to do after a retransmission timeout*. Standard
//! TCP here; Eifel (RFC 3522/4015), F-RTO (RFC 5682) and DCLOR plug into the
//! same slot.

pub mod dclor;
pub mod eifel;
pub mod frto;
pub mod standard;

use crate::net::packet::Packet;
use crate::sim::TimeNs;
use crate::tcp::core::SenderCore;
use crate::tcp::recovery::LossRecovery;

pub use dclor::DclorTimeout;
pub use eifel::EifelTimeout;
pub use frto::FrtoTimeout;
pub use standard::StandardTimeout;

pub trait TimeoutResponse: Send {
    fn name(&self) -> &'static str;

    /// The retransmission timer expired with data outstanding.
    fn on_timeout(
        &mut self,
        core: &mut SenderCore,
        recovery: &mut dyn LossRecovery,
        now_ns: TimeNs,
        out: &mut Vec<Packet>,
    );

    /// Called after the standard processing of an ACK that was not
    /// consumed, before sending; `acked` is the newly acknowledged bytes.
    fn after_ack(&mut self, _core: &mut SenderCore, _ack: &Packet, _acked: u64, _now_ns: TimeNs) {}

    /// Offered every ACK before the standard processing; return true when
    /// the response consumed it (e.g. while probing after a timeout).
    fn on_ack(
        &mut self,
        _core: &mut SenderCore,
        _recovery: &mut dyn LossRecovery,
        _ack: &Packet,
        _now_ns: TimeNs,
        _out: &mut Vec<Packet>,
    ) -> bool {
        false
    }
}
