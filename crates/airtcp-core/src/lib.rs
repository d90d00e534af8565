//! airtcp-core: a deterministic packet-level simulator of TCP over wireless,
//! satellite and lossy paths. No Python here; `airtcp-py` wraps it.
//!
//! Layers: [`sim`] (time, events, random streams), [`net`] (packets,
//! queues, channels, links, routing), [`tcp`] (sans-I/O endpoints and their
//! pluggable parts), [`agents`] (middleboxes), [`app`], [`metrics`],
//! [`scenario`] (TOML files to a [`world::World`]), [`observe`] (packet
//! captures and traces), [`reference`] (documentation generated from the code).

pub mod agents;
pub mod app;
pub mod metrics;
pub mod net;
pub mod observe;
pub mod reference;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod world;
