//! TCP endpoints. `sender` and `receiver` are the sans-I/O state machines;
//! the folders hold the pluggable parts of the sender.

pub mod cc;
pub mod classify;
pub mod core;
pub mod kick;
pub mod mecn;
pub mod receiver;
pub mod recovery;
pub mod rto;
pub mod rtt;
pub mod scoreboard;
pub mod sender;
pub mod spec;
