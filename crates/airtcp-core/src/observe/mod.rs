//! Observers: packet captures (pcapng for Wireshark) and the per-packet
//! event trace. They only watch: they take packets by shared reference and
//! draw no random numbers, so a run with observers gives bit-identical
//! results to a run without; a run without pays one never-taken branch per
//! hook (`World::observers` is `None`).

pub mod capture;
pub mod pcapng;
pub mod trace;
pub mod wire;

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use crate::net::packet::{DeathCause, Packet};
use crate::sim::{starts_within_run, TimeNs};
use crate::world::{FlowKind, World};
use capture::Captures;
use trace::{PacketEvent, Tracer};

/// An output file that cannot be created or written: its path and the
/// system's error. It travels inside the `io::Error` that the run returns
/// ([`OutputError::wrap`]), so that the caller can name the file
/// ([`OutputError::of`]): "capture.pcapng: No such file or directory",
/// not the bare "No such file or directory (os error 2)".
#[derive(Debug)]
pub struct OutputError {
    pub path: PathBuf,
    pub error: io::Error,
}

impl OutputError {
    /// `error` about `path`, as an `io::Error` of the same kind (kept as it
    /// is if it already names a file).
    pub fn wrap(path: &Path, error: io::Error) -> io::Error {
        if Self::of(&error).is_some() {
            return error;
        }
        io::Error::new(
            error.kind(),
            OutputError {
                path: path.to_path_buf(),
                error,
            },
        )
    }

    /// The file and the error that `e` carries, if it was made by
    /// [`OutputError::wrap`].
    pub fn of(e: &io::Error) -> Option<&OutputError> {
        e.get_ref()?.downcast_ref()
    }
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.error)
    }
}

impl std::error::Error for OutputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// Create the directories that output file `path` goes in. An error names
/// `path` (the file asked for, rather than one of its directories). A
/// regular file where a directory should be is left for the creation of
/// `path` itself to report, as "Not a directory".
pub fn create_parent(path: &Path) -> io::Result<()> {
    let Some(parent) = path.parent() else {
        return Ok(());
    };
    match std::fs::create_dir_all(parent) {
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => Err(OutputError::wrap(path, e)),
        _ => Ok(()),
    }
}

/// Remove the output file at `path` if it is a regular file; true if it
/// was removed. A run that did not reach its end leaves no partial capture
/// or trace that could pass for a whole run's; but a FIFO, a device
/// (`/dev/stdout`, `/dev/full`) or a directory given as an output is never
/// removed.
pub fn remove_partial(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file()) && std::fs::remove_file(path).is_ok()
}

/// What a run observes. The world calls the hooks below as packets move;
/// they are cold and never inlined, so that a run without observers keeps
/// its hot path as it was (one branch per hook site).
#[derive(Default)]
pub struct Observers {
    pub captures: Option<Captures>,
    pub tracer: Option<Tracer>,
    /// The end of the run (`World::set_observers` sets it): the trace
    /// holds nothing that would happen after it. None: no end.
    run_end_ns: Option<TimeNs>,
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
                    // The link computes the start now; a transmission that
                    // would start after the end of the run does not happen
                    // within it, nor does its loss on the air (the link
                    // then says `LostAfterEnd`: `death` is None).
                    if self
                        .run_end_ns
                        .is_none_or(|end| starts_within_run(start, end))
                    {
                        t.record(start, PacketEvent::Dequeue, node, l, None, pkt);
                        if death.is_some() {
                            t.record(start, PacketEvent::Drop, node, l, death, pkt);
                        }
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
    pub fn set_observers(&mut self, mut observers: Observers) {
        observers.run_end_ns = Some(self.duration_ns);
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
