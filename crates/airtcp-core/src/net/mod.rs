//! The network: packets, queues, channel impairments, links and routing.

pub mod channel;
pub mod link;
pub mod mecn;
pub mod packet;
pub mod queue;
pub mod stis;
pub mod topology;
