//! Packet captures: a pcapng file per `[[capture]]`, with one interface per
//! capture point (a link direction or a node). See `docs/capture.md`.
//!
//! * A **link direction** is tapped at its entrance, after the queue's
//!   decision: every packet offered to it, as the queue admitted it (CE
//!   set if the queue marked it), time-stamped when offered. A packet the
//!   queue refused or the channel lost is written too, with a comment
//!   giving the ground-truth cause (and, for a channel loss, the pcapng
//!   "CRC error" flag): drops are visible where they happen.
//! * A **node** is tapped at its IP layer: every packet arriving over a
//!   link (inbound) or sent by its endpoints and agents (outbound), like
//!   tcpdump on a host; a router sees each forwarded packet once, on
//!   arrival.

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::PathBuf;

use super::pcapng::{epb_flags, EpbPacket, PcapngWriter};
use super::wire::{self, FlowWire};
use super::{create_parent, remove_partial, OutputError};
use crate::net::packet::{DeathCause, Packet};
use crate::sim::TimeNs;

/// A place packets are captured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapturePoint {
    /// A link direction (index), at its entrance.
    Link(u32),
    /// A node (index), at its IP layer.
    Node(u32),
}

/// Output buffer of a capture file.
const BUFFER_BYTES: usize = 1 << 18;

/// One open capture file.
pub struct Capture {
    pub path: PathBuf,
    writer: Option<PcapngWriter<BufWriter<File>>>,
    snaplen: u32,
    error: Option<io::Error>,
    pub packets: u64,
}

impl Capture {
    /// Create `path` (and the directories it goes in) and write the
    /// section header, the interfaces (named `point_names`) and the node
    /// names. An error names `path` ([`OutputError`]).
    pub fn create(
        path: PathBuf,
        point_names: &[(String, String)],
        snaplen: Option<u32>,
        node_names: &[String],
    ) -> io::Result<Self> {
        create_parent(&path)?;
        let named = |e| OutputError::wrap(&path, e);
        let file = File::create(&path).map_err(named)?;
        let app = concat!("airtcp ", env!("CARGO_PKG_VERSION"));
        let mut w =
            PcapngWriter::new(BufWriter::with_capacity(BUFFER_BYTES, file), app).map_err(named)?;
        for (name, description) in point_names {
            w.add_interface(name, description, snaplen.unwrap_or(0))
                .map_err(named)?;
        }
        w.name_resolution(
            node_names
                .iter()
                .enumerate()
                .map(|(i, n)| (wire::node_ipv4(i as u32), n.as_str())),
        )
        .map_err(named)?;
        Ok(Self {
            path,
            writer: Some(w),
            snaplen: snaplen.unwrap_or(u32::MAX),
            error: None,
            packets: 0,
        })
    }

    /// Write one packet; `headers` holds its synthesised headers and
    /// `total` its wire length.
    fn write(
        &mut self,
        interface: u32,
        time_ns: TimeNs,
        headers: &[u8],
        total: u32,
        flags: u32,
        comment: Option<&str>,
    ) {
        let Some(w) = self.writer.as_mut() else {
            return;
        };
        let captured = total.min(self.snaplen);
        let head = (headers.len() as u32).min(captured) as usize;
        let zeros = captured - head as u32;
        let r = w.packet(&EpbPacket {
            interface,
            time_ns,
            headers: &headers[..head],
            zero_payload: zeros,
            original_len: total,
            flags,
            comment,
        });
        match r {
            Ok(()) => self.packets += 1,
            Err(e) => {
                self.error = Some(e);
                self.writer = None;
            }
        }
    }

    /// Flush and close; the first write error, if any, naming the file.
    pub fn finish(&mut self) -> io::Result<u64> {
        if let Some(e) = self.error.take() {
            return Err(OutputError::wrap(&self.path, e));
        }
        if let Some(w) = self.writer.take() {
            w.finish().map_err(|e| OutputError::wrap(&self.path, e))?;
        }
        Ok(self.packets)
    }

    /// Close the file and remove it (if it is a regular file,
    /// [`remove_partial`]): the run it was made for failed before
    /// simulating anything (another output could not be created), and a
    /// file holding only headers must not pass for its capture.
    pub fn discard(mut self) {
        self.writer = None;
        remove_partial(&self.path);
    }
}

/// Every capture of a run, indexed by where they look.
pub struct Captures {
    files: Vec<Capture>,
    /// Per link direction: (file, interface) tapping it.
    on_link: Vec<Vec<(u32, u32)>>,
    /// Per node: (file, interface) tapping it.
    on_node: Vec<Vec<(u32, u32)>>,
    /// Per flow: what headers need beyond the packet (MSS, SACK).
    flows: Vec<Option<FlowWire>>,
    /// Comment per death cause.
    comments: Vec<String>,
    headers: Vec<u8>,
}

impl Captures {
    /// `files` with the points each taps, in interface order.
    pub fn new(
        files: Vec<(Capture, Vec<CapturePoint>)>,
        n_links: usize,
        n_nodes: usize,
        flows: Vec<Option<FlowWire>>,
    ) -> Self {
        let mut on_link = vec![Vec::new(); n_links];
        let mut on_node = vec![Vec::new(); n_nodes];
        let mut caps = Vec::new();
        for (fi, (cap, points)) in files.into_iter().enumerate() {
            for (iface, p) in points.iter().enumerate() {
                let at = (fi as u32, iface as u32);
                match *p {
                    CapturePoint::Link(l) => on_link[l as usize].push(at),
                    CapturePoint::Node(n) => on_node[n as usize].push(at),
                }
            }
            caps.push(cap);
        }
        let comments = DeathCause::ALL
            .iter()
            .map(|c| format!("airtcp drop: {}: {}", c.name(), c.describe()))
            .collect();
        Self {
            files: caps,
            on_link,
            on_node,
            flows,
            comments,
            headers: Vec::with_capacity(128),
        }
    }

    #[inline]
    pub fn taps_link(&self, l: u32) -> bool {
        !self.on_link[l as usize].is_empty()
    }

    #[inline]
    pub fn taps_node(&self, n: u32) -> bool {
        !self.on_node[n as usize].is_empty()
    }

    fn write_to(
        &mut self,
        taps: &[(u32, u32)],
        time_ns: TimeNs,
        pkt: &Packet,
        flags: u32,
        cause: Option<DeathCause>,
    ) {
        let flow = self.flows.get(pkt.flow as usize).and_then(|f| f.as_ref());
        let Some(total) = wire::write_headers(pkt, flow, &mut self.headers) else {
            return; // not an IP packet
        };
        let comment = cause.map(|c| self.comments[c.index()].as_str());
        for &(file, iface) in taps {
            self.files[file as usize].write(iface, time_ns, &self.headers, total, flags, comment);
        }
    }

    /// A packet offered to link direction `l`, with the queue's or the
    /// channel's verdict.
    pub fn at_link(&mut self, l: u32, time_ns: TimeNs, pkt: &Packet, death: Option<DeathCause>) {
        let taps = std::mem::take(&mut self.on_link[l as usize]);
        let mut flags = epb_flags::OUTBOUND;
        if death == Some(DeathCause::ChannelError) {
            flags |= epb_flags::CRC_ERROR;
        }
        self.write_to(&taps, time_ns, pkt, flags, death);
        self.on_link[l as usize] = taps;
    }

    /// A packet entering node `n`'s IP layer: `inbound` over a link, else
    /// sent by one of its endpoints or agents.
    pub fn at_node(&mut self, n: u32, time_ns: TimeNs, pkt: &Packet, inbound: bool) {
        let taps = std::mem::take(&mut self.on_node[n as usize]);
        let flags = if inbound {
            epb_flags::INBOUND
        } else {
            epb_flags::OUTBOUND
        };
        self.write_to(&taps, time_ns, pkt, flags, None);
        self.on_node[n as usize] = taps;
    }

    /// Close and remove every file ([`Capture::discard`]).
    pub fn discard(self) {
        self.files.into_iter().for_each(Capture::discard);
    }

    /// Close every file: (path, packets written) or the first error.
    pub fn finish(&mut self) -> io::Result<Vec<(PathBuf, u64)>> {
        let mut out = Vec::new();
        for c in &mut self.files {
            let n = c.finish()?;
            out.push((c.path.clone(), n));
        }
        Ok(out)
    }
}
