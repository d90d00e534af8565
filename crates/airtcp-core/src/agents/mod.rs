//! Middlebox agents on a node (Snoop, G-Snoop, the kick-aware node,
//! link-layer ARQ). An agent sees every packet that arrives at its node,
//! from a link or from the node's own endpoints, before routing. It may let
//! it pass (possibly modified), drop it, or take it (to hold it and release
//! it later from its timer), and it may inject packets of its own. Agents are
//! sans-I/O like the TCP endpoints.

pub mod arq;
pub mod gsnoop;
pub mod kick_node;
pub mod snoop;

use std::collections::BTreeSet;

use crate::metrics::Column;
use crate::net::packet::{DeathCause, Packet};
use crate::sim::TimeNs;

/// What happens to a packet an agent has looked at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentVerdict {
    /// Continue to routing (with any changes the agent made).
    Pass,
    /// Kill it; it is recorded as dropped by an agent.
    Drop,
    /// The agent keeps it (to release or re-inject later); not a death.
    Take,
}

/// Where a packet came from when it reached the node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ingress {
    /// Arrived over link direction `link`.
    Link(u32),
    /// Sent by an endpoint on this node.
    Local,
}

/// What a link did with a packet offered to it, as reported to the agent
/// watching that link ([`NodeAgent::watched_link`]). Departures are computed
/// when the packet is offered (`net/link.rs`), so the report comes at the
/// offer and its times may lie in the future.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkTx {
    /// Admitted: its transmission runs from `start_ns` to `end_ns` (the
    /// channel may still lose it).
    Sent { start_ns: TimeNs, end_ns: TimeNs },
    /// The queue refused it (`cause`): it was never transmitted.
    Refused(DeathCause),
}

/// Packets an agent wants sent, each forwarded from its node as if it had
/// just arrived there (routing applies; the agent does not see its own).
#[derive(Default, Debug)]
pub struct AgentOutput {
    pub inject: Vec<Packet>,
    /// The uid the world gives `inject[0]` when it sends the packets; the
    /// others get the next ones, in order. The world sets it before each
    /// call that may inject, so that an agent can know its own packets
    /// again by identity ([`AgentOutput::next_uid`]).
    pub first_uid: u64,
}

impl AgentOutput {
    /// The uid the packet pushed next onto `inject` will carry: an agent
    /// that must later recognise that very packet (in
    /// [`NodeAgent::on_link_tx`]) keeps it, since a packet of the same
    /// segment from elsewhere (the TCP sender's retransmission) is another
    /// packet.
    #[inline]
    pub fn next_uid(&self) -> u64 {
        self.first_uid + self.inject.len() as u64
    }
}

/// An agent's armed per-connection timers, `(expiry, flow)` in expiry
/// order, kept equal to the connections' own timer fields: the earliest is
/// the agent's [`NodeAgent::deadline`], and the due ones are taken from the
/// front, so neither visits every connection the agent holds (the world
/// re-reads the deadline after every packet the agent sees).
#[derive(Clone, Debug, Default)]
pub(crate) struct FlowTimers {
    by_expiry: BTreeSet<(TimeNs, u32)>,
    /// Scratch for [`FlowTimers::take_due`] (spares an allocation per timer).
    due: Vec<u32>,
}

impl FlowTimers {
    /// `flow`'s timer went from `before` to `after` (`None`: not armed).
    pub(crate) fn moved(&mut self, flow: u32, before: Option<TimeNs>, after: Option<TimeNs>) {
        if before != after {
            if let Some(t) = before {
                self.by_expiry.remove(&(t, flow));
            }
            if let Some(t) = after {
                self.by_expiry.insert((t, flow));
            }
        }
    }

    /// The earliest armed timer.
    pub(crate) fn earliest(&self) -> Option<TimeNs> {
        self.by_expiry.first().map(|&(t, _)| t)
    }

    /// Disarm every timer expiring at or before `now_ns` and return their
    /// flows in flow order (the order a walk over the connections by flow
    /// index meets them); hand the list back with [`FlowTimers::recycle`].
    pub(crate) fn take_due(&mut self, now_ns: TimeNs) -> Vec<u32> {
        let mut due = std::mem::take(&mut self.due);
        while let Some(&(t, flow)) = self.by_expiry.first() {
            if t > now_ns {
                break;
            }
            self.by_expiry.pop_first();
            due.push(flow);
        }
        due.sort_unstable();
        due
    }

    pub(crate) fn recycle(&mut self, mut due: Vec<u32>) {
        due.clear();
        self.due = due;
    }
}

pub trait NodeAgent: Send {
    fn name(&self) -> &'static str;

    /// Look at a packet arriving at the node. `egress` is the link
    /// direction routing will send it on if the agents pass it (`None`:
    /// it is delivered here, or has no route), so that an agent can tell
    /// the packets bound over its link without a table per destination.
    fn on_packet(
        &mut self,
        now_ns: TimeNs,
        pkt: &mut Packet,
        ingress: Ingress,
        egress: Option<u32>,
        out: &mut AgentOutput,
    ) -> AgentVerdict;

    /// Earliest time the agent needs [`NodeAgent::on_timer`].
    fn deadline(&self) -> Option<TimeNs> {
        None
    }

    fn on_timer(&mut self, _now_ns: TimeNs, _out: &mut AgentOutput) {}

    /// The link direction leaving this agent's node whose transmissions the
    /// agent hears of through [`NodeAgent::on_link_tx`] (a link-layer agent
    /// at the sending end of its link). Read once, when the agent joins the
    /// loop: at the run's start, or in `World::add_agent` during it.
    fn watched_link(&self) -> Option<u32> {
        None
    }

    /// `pkt` was offered to the watched link at `now_ns`: when it is
    /// transmitted, or that the queue refused it. The world re-reads
    /// [`NodeAgent::deadline`] afterwards.
    fn on_link_tx(&mut self, _now_ns: TimeNs, _pkt: &Packet, _tx: LinkTx) {}

    /// Counters for the per-agent metrics table, each with its unit and
    /// meaning (docs/results.md lists them from here).
    fn counters(&self) -> Vec<(Column<'static>, u64)> {
        Vec::new()
    }
}
