//! Applications: what a flow asks of its transport.

use crate::sim::TimeNs;

/// The application on top of a TCP flow.
#[derive(Clone, Debug, PartialEq)]
pub enum TcpApp {
    /// FTP-like: unlimited data for the whole active interval.
    Bulk,
    /// One transfer of `size_bytes`; its response time runs from the start
    /// (before the handshake, if any) until the last byte is acknowledged.
    File { size_bytes: u64 },
    /// Repeated transfers of `size_bytes`, each on a new connection, with an
    /// exponentially distributed think time between the end of one and the
    /// start of the next; at most `count` transfers if given.
    Repeated {
        size_bytes: u64,
        mean_think_ns: TimeNs,
        count: Option<u64>,
    },
}

impl TcpApp {
    /// Bytes per transfer (None for bulk).
    pub fn transfer_bytes(&self) -> Option<u64> {
        match self {
            TcpApp::Bulk => None,
            TcpApp::File { size_bytes } | TcpApp::Repeated { size_bytes, .. } => Some(*size_bytes),
        }
    }

    pub fn kind_name(&self) -> &'static str {
        match self {
            TcpApp::Bulk => "bulk",
            TcpApp::File { .. } => "file",
            TcpApp::Repeated { .. } => "repeated",
        }
    }
}

/// A UDP on/off source: exponential on and off periods, constant bit rate
/// while on (as ns-2's `Application/Traffic/Exponential`).
#[derive(Clone, Debug, PartialEq)]
pub struct OnOffConfig {
    pub rate_bps: u64,
    /// Bytes on the wire per datagram (IP and UDP headers included).
    pub packet_bytes: u32,
    pub mean_on_ns: TimeNs,
    pub mean_off_ns: TimeNs,
}

/// One completed transfer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TransferRecord {
    pub flow: u32,
    pub index: u64,
    pub start_ns: TimeNs,
    pub end_ns: TimeNs,
    pub bytes: u64,
}

impl TransferRecord {
    pub fn response_ns(&self) -> TimeNs {
        self.end_ns - self.start_ns
    }
}
