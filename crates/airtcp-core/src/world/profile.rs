//! Time spent per kind of event, to tell what makes an event dearer as the
//! number of flows grows: built only with `--features event-profile`
//! (reading the clock around every event costs more than some events), and
//! printed by `examples/event_cost.rs`.
//!
//! ```sh
//! cargo run --release --features event-profile --example event_cost -- 100000 10
//! ```

use crate::sim::events::EventKind;

/// What an event was, for the profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventClass {
    /// A packet reached its destination (an endpoint handles it).
    Delivery,
    /// A packet reached a node on its way (agents, routing, next link).
    Forward,
    /// A sender's timer wake-up that expired no retransmission timer (a
    /// deadline moved later since it was scheduled, or another timer).
    SenderTimer,
    /// A sender's retransmission timer expired (RFC 6298 (5.4)-(5.6):
    /// retransmit, back off, restart the timer): the same events as
    /// `SenderTimer`, told apart after they ran, as a run with many flows
    /// on one bottleneck is mostly these and one with few has almost none.
    RetransmissionTimeout,
    ReceiverTimer,
    /// An application event (a connection opens, UDP on/off).
    App,
    /// Agent timers, samples, packets released by a stall.
    Other,
}

impl EventClass {
    pub const ALL: [EventClass; 7] = [
        EventClass::Delivery,
        EventClass::Forward,
        EventClass::SenderTimer,
        EventClass::RetransmissionTimeout,
        EventClass::ReceiverTimer,
        EventClass::App,
        EventClass::Other,
    ];

    pub fn name(self) -> &'static str {
        match self {
            EventClass::Delivery => "delivery",
            EventClass::Forward => "forward",
            EventClass::SenderTimer => "sender timer",
            EventClass::RetransmissionTimeout => "RTO expiry",
            EventClass::ReceiverTimer => "receiver timer",
            EventClass::App => "application",
            EventClass::Other => "other",
        }
    }
}

/// Events and clock ticks per class (ticks: the CPU's time-stamp counter
/// where there is one, else nanoseconds; compare shares, or scale by the
/// loop's measured time).
#[derive(Clone, Debug, Default)]
pub struct EventProfile {
    pub events: [u64; EventClass::ALL.len()],
    pub ticks: [u64; EventClass::ALL.len()],
}

impl EventProfile {
    /// Adds another run's counts (`examples/event_cost.rs` sums the runs
    /// of one dumbbell over several seeds).
    pub fn merge(&mut self, other: &EventProfile) {
        for (mine, theirs) in self.events.iter_mut().zip(&other.events) {
            *mine += theirs;
        }
        for (mine, theirs) in self.ticks.iter_mut().zip(&other.ticks) {
            *mine += theirs;
        }
    }

    pub(super) fn add(&mut self, class: EventClass, ticks: u64) {
        self.events[class as usize] += 1;
        self.ticks[class as usize] += ticks;
    }
}

/// The class of `ev`; `packet_dst` gives an arriving packet's destination.
pub(super) fn classify(ev: &EventKind, packet_dst: impl Fn(u32) -> Option<u32>) -> EventClass {
    match *ev {
        EventKind::Arrive { node, slot } if packet_dst(slot) == Some(node) => EventClass::Delivery,
        EventKind::Arrive { .. } => EventClass::Forward,
        EventKind::SenderTimer { .. } => EventClass::SenderTimer,
        EventKind::ReceiverTimer { .. } => EventClass::ReceiverTimer,
        EventKind::App { .. } => EventClass::App,
        EventKind::AgentTimer { .. } | EventKind::Sample | EventKind::Offer { .. } => {
            EventClass::Other
        }
    }
}

/// A cheap clock: the time-stamp counter on x86-64 (a few ns to read, where
/// `Instant::now` costs about 25).
#[inline(always)]
pub(super) fn now_ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: RDTSC reads a counter; it has no preconditions on x86-64.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        use std::sync::OnceLock;
        static START: OnceLock<std::time::Instant> = OnceLock::new();
        START
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_nanos() as u64
    }
}
