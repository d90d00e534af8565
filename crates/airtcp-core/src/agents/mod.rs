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

use crate::metrics::Column;
use crate::net::packet::Packet;
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

/// Packets an agent wants sent, each forwarded from its node as if it had
/// just arrived there (routing applies; the agent does not see its own).
#[derive(Default, Debug)]
pub struct AgentOutput {
    pub inject: Vec<Packet>,
}

pub trait NodeAgent: Send {
    fn name(&self) -> &'static str;

    /// Look at a packet arriving at the node.
    fn on_packet(
        &mut self,
        now_ns: TimeNs,
        pkt: &mut Packet,
        ingress: Ingress,
        out: &mut AgentOutput,
    ) -> AgentVerdict;

    /// Earliest time the agent needs [`NodeAgent::on_timer`].
    fn deadline(&self) -> Option<TimeNs> {
        None
    }

    fn on_timer(&mut self, _now_ns: TimeNs, _out: &mut AgentOutput) {}

    /// Counters for the per-agent metrics table, each with its unit and
    /// meaning (docs/results.md lists them from here).
    fn counters(&self) -> Vec<(Column<'static>, u64)> {
        Vec::new()
    }
}
