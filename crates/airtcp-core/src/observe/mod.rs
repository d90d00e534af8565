//! Observers: packet captures (pcapng for Wireshark) and the per-packet
//! event trace. They only watch: they take packets by shared reference and
//! draw no random numbers, so a run with observers gives bit-identical
//! results to a run without; a run without pays one never-taken branch per
//! hook (`World::observers` is `None`).

pub mod capture;
pub mod pcapng;
pub mod trace;
pub mod wire;

use std::io;
use std::path::PathBuf;

use crate::net::packet::{DeathCause, Packet};
use crate::sim::TimeNs;
use crate::world::{FlowKind, World};
use capture::Captures;
use trace::{PacketEvent, Tracer};

/// What a run observes. The world calls the hooks below as packets move;
/// they are cold and never inlined, so that a run without observers keeps
/// its hot path as it was (one branch per hook site).
#[derive(Default)]
pub struct Observers {
    pub captures: Option<Captures>,
    pub tracer: Option<Tracer>,
}

/// What the observers wrote.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Observed {
    /// (capture file, packets written).
    pub captures: Vec<(PathBuf, u64)>,
    /// Trace records written.
    pub trace_records: Option<u64>,
}

impl Observers {
    /// An endpoint or agent on `node` sent `pkt`.
    #[cold]
    #[inline(never)]
    pub fn sent(&mut self, now_ns: TimeNs, node: u32, pkt: &Packet) {
        if let Some(t) = self.tracer.as_mut() {
            t.record(now_ns, PacketEvent::Send, node, None, None, pkt);
        }
        if let Some(c) = self.captures.as_mut() {
            if c.taps_node(node) {
                c.at_node(node, now_ns, pkt, false);
            }
        }
    }

    /// `pkt` was offered to link direction `link` (from `node`): refused by
    /// the queue (`death` a queue cause, `tx_start_ns` None), or admitted and
    /// transmitted from `tx_start_ns`, then delivered or lost on the channel.
    #[cold]
    #[inline(never)]
    pub fn offered(
        &mut self,
        now_ns: TimeNs,
        node: u32,
        link: u32,
        pkt: &Packet,
        tx_start_ns: Option<TimeNs>,
        death: Option<DeathCause>,
    ) {
        if let Some(t) = self.tracer.as_mut() {
            let l = Some(link);
            match tx_start_ns {
                Some(start) => {
                    t.record(now_ns, PacketEvent::Enqueue, node, l, None, pkt);
                    t.record(start, PacketEvent::Dequeue, node, l, None, pkt);
                    if death.is_some() {
                        t.record(start, PacketEvent::Drop, node, l, death, pkt);
                    }
                }
                None => t.record(now_ns, PacketEvent::Drop, node, l, death, pkt),
            }
        }
        if let Some(c) = self.captures.as_mut() {
            if c.taps_link(link) {
                c.at_link(link, now_ns, pkt, death);
            }
        }
    }

    /// `pkt` arrived at `node` over `link`.
    #[cold]
    #[inline(never)]
    pub fn arrived(&mut self, now_ns: TimeNs, node: u32, link: u32, pkt: &Packet) {
        if let Some(t) = self.tracer.as_mut() {
            t.record(now_ns, PacketEvent::Receive, node, Some(link), None, pkt);
        }
        if let Some(c) = self.captures.as_mut() {
            if c.taps_node(node) {
                c.at_node(node, now_ns, pkt, true);
            }
        }
    }

    /// `pkt` reached its destination endpoint on `node`.
    #[cold]
    #[inline(never)]
    pub fn delivered(&mut self, now_ns: TimeNs, node: u32, pkt: &Packet) {
        if let Some(t) = self.tracer.as_mut() {
            t.record(now_ns, PacketEvent::Deliver, node, None, None, pkt);
        }
    }

    /// `pkt` died at `node` (TTL, agent, no route).
    #[cold]
    #[inline(never)]
    pub fn died_at_node(&mut self, now_ns: TimeNs, node: u32, pkt: &Packet, cause: DeathCause) {
        if let Some(t) = self.tracer.as_mut() {
            t.record(now_ns, PacketEvent::Drop, node, None, Some(cause), pkt);
        }
    }

    /// Flush and close every output.
    pub fn finish(&mut self) -> io::Result<Observed> {
        let mut out = Observed::default();
        if let Some(c) = self.captures.as_mut() {
            out.captures = c.finish()?;
        }
        if let Some(t) = self.tracer.as_mut() {
            out.trace_records = Some(t.finish()?);
        }
        Ok(out)
    }
}

impl World {
    /// Observe this run (before running it).
    pub fn set_observers(&mut self, observers: Observers) {
        self.observers = Some(Box::new(observers));
    }

    /// Flush and close the observers' outputs (after the run); what they
    /// wrote. Without observers, nothing.
    pub fn finish_observers(&mut self) -> io::Result<Observed> {
        match self.observers.take() {
            Some(mut o) => o.finish(),
            None => Ok(Observed::default()),
        }
    }

    /// Keep every TCP sender's in-memory event log (`SenderCore::trace`:
    /// sends, window changes, timeouts) for tests and Rust tools. It grows
    /// with the run; users get the per-packet trace instead. Call before
    /// running.
    pub fn record_sender_events(&mut self) {
        for f in &mut self.flows {
            if let FlowKind::Tcp(t) = &mut f.kind {
                t.spec.trace = true;
            }
        }
    }
}
