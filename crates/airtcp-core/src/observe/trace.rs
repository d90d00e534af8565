//! The per-packet event trace: one record each time a packet is sent,
//! enqueued, starts transmission, dies, arrives at a node or is delivered,
//! filtered by flow and link. Records are buffered in a fixed-size batch and
//! handed to a [`TraceSink`] (the Python binding writes Parquet), so memory
//! stays constant however long the run.
//!
//! Records are in the order the simulator decides them. Because departures
//! are computed when a packet is enqueued (`net/link.rs`), the `dequeue`
//! record (the start of its transmission, possibly later) is written right
//! after its `enqueue` record: sort by `time_s` (stable) for a time-ordered
//! view.

use std::io;

use crate::metrics::{col, Column};
use crate::net::packet::{DeathCause, Packet, PacketKind};
use crate::observe::wire::tcp_flags_field;
use crate::sim::{ns_to_s, TimeNs};

/// What happened to a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PacketEvent {
    /// An endpoint or agent on `node` sent it.
    Send,
    /// The queue of `link` admitted it.
    Enqueue,
    /// Its transmission on `link` starts (computed at enqueue).
    Dequeue,
    /// It died: at `link` (queue, AQM, channel) or at `node` (TTL, agent,
    /// no route); `cause` says why.
    Drop,
    /// It arrived at `node` over `link`.
    Receive,
    /// It reached its destination endpoint on `node`.
    Deliver,
}

impl PacketEvent {
    pub const ALL: [PacketEvent; 6] = [
        PacketEvent::Send,
        PacketEvent::Enqueue,
        PacketEvent::Dequeue,
        PacketEvent::Drop,
        PacketEvent::Receive,
        PacketEvent::Deliver,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PacketEvent::Send => "send",
            PacketEvent::Enqueue => "enqueue",
            PacketEvent::Dequeue => "dequeue",
            PacketEvent::Drop => "drop",
            PacketEvent::Receive => "receive",
            PacketEvent::Deliver => "deliver",
        }
    }
}

/// Name of a packet kind in the trace.
pub fn kind_name(k: PacketKind) -> &'static str {
    match k {
        PacketKind::TcpData => "data",
        PacketKind::TcpAck => "ack",
        PacketKind::Udp => "udp",
        PacketKind::Control => "control",
    }
}

const KIND_NAMES: [&str; 4] = ["data", "ack", "udp", "control"];

/// One trace record: the event and a copy of the packet at that moment.
#[derive(Clone, Copy, Debug)]
pub struct TraceRecord {
    pub time_ns: TimeNs,
    pub event: PacketEvent,
    pub node: u32,
    pub link: Option<u32>,
    pub cause: Option<DeathCause>,
    pub pkt: Packet,
}

/// Where batches of records go.
pub trait TraceSink: Send {
    fn write(&mut self, records: &[TraceRecord]) -> io::Result<()>;
    /// No more records: flush and close.
    fn finish(&mut self) -> io::Result<()>;
}

/// A sink that keeps every record in memory (tests, small runs).
#[derive(Default)]
pub struct VecSink {
    pub records: Vec<TraceRecord>,
}

impl TraceSink for VecSink {
    fn write(&mut self, records: &[TraceRecord]) -> io::Result<()> {
        self.records.extend_from_slice(records);
        Ok(())
    }
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Records per batch handed to the sink.
pub const BATCH_RECORDS: usize = 1 << 16;

/// Which packets the trace keeps.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceFilter {
    /// Per flow index: traced? Empty = every flow.
    pub flows: Vec<bool>,
    /// Per link direction: traced? Empty = every link and node event; else
    /// only the events on these links (enqueue, dequeue, drops on the link,
    /// receive over it).
    pub links: Vec<bool>,
}

/// The trace writer: filter, batch, sink. The first I/O error stops it and
/// is reported by [`Tracer::finish`].
pub struct Tracer {
    filter: TraceFilter,
    batch: Vec<TraceRecord>,
    sink: Box<dyn TraceSink>,
    error: Option<io::Error>,
    pub records: u64,
}

impl Tracer {
    pub fn new(filter: TraceFilter, sink: Box<dyn TraceSink>) -> Self {
        Self {
            filter,
            batch: Vec::with_capacity(BATCH_RECORDS),
            sink,
            error: None,
            records: 0,
        }
    }

    #[inline]
    pub fn record(
        &mut self,
        time_ns: TimeNs,
        event: PacketEvent,
        node: u32,
        link: Option<u32>,
        cause: Option<DeathCause>,
        pkt: &Packet,
    ) {
        let f = &self.filter;
        if !f.flows.is_empty() && !f.flows.get(pkt.flow as usize).copied().unwrap_or(false) {
            return;
        }
        if !f.links.is_empty() && !link.is_some_and(|l| f.links[l as usize]) {
            return;
        }
        self.batch.push(TraceRecord {
            time_ns,
            event,
            node,
            link,
            cause,
            pkt: *pkt,
        });
        if self.batch.len() == BATCH_RECORDS {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.error.is_none() && !self.batch.is_empty() {
            self.records += self.batch.len() as u64;
            if let Err(e) = self.sink.write(&self.batch) {
                self.error = Some(e);
            }
        }
        self.batch.clear();
    }

    /// Write what is buffered and close the sink.
    pub fn finish(&mut self) -> io::Result<u64> {
        self.flush();
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.sink.finish()?;
        Ok(self.records)
    }
}

/// The names that the trace's dictionary columns index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceNames {
    pub nodes: Vec<String>,
    pub links: Vec<String>,
    pub flows: Vec<String>,
}

/// Index meaning "no value" in a dictionary column.
pub const NULL_INDEX: u32 = u32::MAX;

/// A column of a batch, ready for an Arrow array.
#[derive(Clone, Copy, Debug)]
pub enum ColumnData<'a> {
    F64(&'a [f64]),
    U64(&'a [u64]),
    U32(&'a [u32]),
    U16(&'a [u16]),
    U8(&'a [u8]),
    Bool(&'a [bool]),
    /// A string column as indices into `names` ([`NULL_INDEX`]: missing).
    Dict {
        indices: &'a [u32],
        names: &'a [String],
    },
    /// A list of (start, end) pairs per row; row i is
    /// `offsets[i]..offsets[i + 1]` of `starts` and `ends`.
    Ranges {
        offsets: &'a [u32],
        starts: &'a [u64],
        ends: &'a [u64],
    },
}

impl ColumnData<'_> {
    /// The Arrow / Parquet type the column becomes.
    pub fn arrow_type(&self) -> &'static str {
        match self {
            ColumnData::F64(_) => "double",
            ColumnData::U64(_) => "uint64",
            ColumnData::U32(_) => "uint32",
            ColumnData::U16(_) => "uint16",
            ColumnData::U8(_) => "uint8",
            ColumnData::Bool(_) => "bool",
            ColumnData::Dict { .. } => "dictionary<string>",
            ColumnData::Ranges { .. } => "list<struct<start: uint64, end: uint64>>",
        }
    }
}

/// A batch of records turned into columns (buffers reused between batches).
#[derive(Default)]
pub struct TraceColumns {
    names: TraceNames,
    event_names: Vec<String>,
    kind_names: Vec<String>,
    cause_names: Vec<String>,
    time_s: Vec<f64>,
    event: Vec<u32>,
    node: Vec<u32>,
    link: Vec<u32>,
    flow: Vec<u32>,
    kind: Vec<u32>,
    connection: Vec<u32>,
    uid: Vec<u64>,
    seq: Vec<u64>,
    ack: Vec<u64>,
    payload_bytes: Vec<u32>,
    wire_bytes: Vec<u32>,
    tcp_flags: Vec<u16>,
    ecn: Vec<u8>,
    ttl: Vec<u8>,
    retransmission: Vec<bool>,
    window_bytes: Vec<u64>,
    sack_offsets: Vec<u32>,
    sack_starts: Vec<u64>,
    sack_ends: Vec<u64>,
    cause: Vec<u32>,
}

impl TraceColumns {
    pub fn new(names: TraceNames) -> Self {
        let own = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
        Self {
            names,
            event_names: PacketEvent::ALL
                .iter()
                .map(|e| e.name().to_string())
                .collect(),
            kind_names: own(&KIND_NAMES),
            cause_names: DeathCause::ALL
                .iter()
                .map(|c| c.name().to_string())
                .collect(),
            ..Default::default()
        }
    }

    /// Replace the columns with those of `records`.
    pub fn fill(&mut self, records: &[TraceRecord]) {
        macro_rules! clear {
            ($($v:ident),*) => { $( self.$v.clear(); )* };
        }
        clear!(
            time_s,
            event,
            node,
            link,
            flow,
            kind,
            connection,
            uid,
            seq,
            ack,
            payload_bytes,
            wire_bytes,
            tcp_flags,
            ecn,
            ttl,
            retransmission,
            window_bytes,
            sack_offsets,
            sack_starts,
            sack_ends,
            cause
        );
        self.sack_offsets.push(0);
        for r in records {
            let p = &r.pkt;
            self.time_s.push(ns_to_s(r.time_ns));
            self.event.push(r.event as u32);
            self.node.push(r.node);
            self.link.push(r.link.unwrap_or(NULL_INDEX));
            self.flow.push(p.flow);
            self.kind.push(p.kind as u32);
            self.connection.push(p.epoch);
            self.uid.push(p.uid);
            self.seq.push(p.seq);
            self.ack.push(p.ack);
            self.payload_bytes.push(p.payload_len);
            self.wire_bytes.push(p.wire_bytes());
            self.tcp_flags.push(tcp_flags_field(p.flags));
            self.ecn.push(p.ecn as u8);
            self.ttl.push(p.ttl);
            self.retransmission.push(p.is_retransmission);
            self.window_bytes.push(p.wnd);
            for b in p.sack_blocks() {
                self.sack_starts.push(b.start);
                self.sack_ends.push(b.end);
            }
            self.sack_offsets.push(self.sack_starts.len() as u32);
            self.cause
                .push(r.cause.map_or(NULL_INDEX, |c| c.index() as u32));
        }
    }

    /// Rows in the current batch.
    pub fn len(&self) -> usize {
        self.time_s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }

    /// The columns, in order, with their documentation: the single list of
    /// the trace's columns (the Parquet schema and docs/results.md).
    pub fn columns(&self) -> Vec<(Column<'static>, ColumnData<'_>)> {
        use ColumnData::*;
        vec![
            (
                col("time_s", "s", "When the event happened (simulated time)."),
                F64(&self.time_s),
            ),
            (
                col(
                    "event",
                    "",
                    "`send` (an endpoint or agent on `node` sent it), `enqueue` (the queue of \
                     `link` admitted it), `dequeue` (its transmission on `link` starts), `drop` \
                     (it died, see `cause`), `receive` (it arrived at `node` over `link`), \
                     `deliver` (it reached its destination endpoint on `node`). Nothing after \
                     the end of the run: a packet still waiting then has its `enqueue` row only \
                     (no `dequeue`, nor the `drop` of a channel loss, which happens on the \
                     air), one on the air then has no `receive` row.",
                ),
                Dict {
                    indices: &self.event,
                    names: &self.event_names,
                },
            ),
            (
                col(
                    "node",
                    "",
                    "Node where it happened: the sender for `send`, the transmitting node for \
                     link events, the arrival node for `receive` and `deliver`.",
                ),
                Dict {
                    indices: &self.node,
                    names: &self.names.nodes,
                },
            ),
            (
                col(
                    "link",
                    "",
                    "Link direction of `enqueue`, `dequeue`, `receive` and of a drop on a link; \
                     missing for node events.",
                ),
                Dict {
                    indices: &self.link,
                    names: &self.names.links,
                },
            ),
            (
                col("flow", "", "Name of the packet's flow."),
                Dict {
                    indices: &self.flow,
                    names: &self.names.flows,
                },
            ),
            (
                col(
                    "packet",
                    "",
                    "`data` (TCP segment from the data sender, SYN included), `ack` (TCP segment \
                     from the receiver), `udp`, `control` (an agent's link-layer message).",
                ),
                Dict {
                    indices: &self.kind,
                    names: &self.kind_names,
                },
            ),
            (
                col(
                    "connection",
                    "",
                    "Connection number within the flow, from 1 (a repeated download opens one \
                     per transfer).",
                ),
                U32(&self.connection),
            ),
            (
                col(
                    "uid",
                    "",
                    "The packet's unique id in the run: follow one packet across hops with it.",
                ),
                U64(&self.uid),
            ),
            (
                col(
                    "seq",
                    "bytes",
                    "TCP sequence number as airtcp counts it: a byte offset from 0 that never \
                     wraps (the SYN takes none; in a capture it is ISN + 1 + seq mod 2^32).",
                ),
                U64(&self.seq),
            ),
            (
                col(
                    "ack",
                    "bytes",
                    "Acknowledgment number, same byte offsets as `seq`.",
                ),
                U64(&self.ack),
            ),
            (
                col(
                    "payload_bytes",
                    "bytes",
                    "TCP payload length (0 for pure ACKs).",
                ),
                U32(&self.payload_bytes),
            ),
            (
                col(
                    "wire_bytes",
                    "bytes",
                    "Length on the wire: IP and TCP (or UDP) headers, options and payload.",
                ),
                U32(&self.wire_bytes),
            ),
            (
                col(
                    "tcp_flags",
                    "",
                    "The TCP header's 12 flag bits as Wireshark's `tcp.flags`: FIN 0x001, SYN \
                     0x002, RST 0x004, PSH 0x008, ACK 0x010, URG 0x020, ECE 0x040, CWR 0x080, \
                     then the reserved bits airtcp uses: 0x100 (MECN bit 9), 0x200 (MECN bit 8), \
                     0x400 (ARQ link ACK), 0x800 (Kick TCP's K bit).",
                ),
                U16(&self.tcp_flags),
            ),
            (
                col(
                    "ecn",
                    "",
                    "IP ECN field: 0 not ECT, 1 ECT(1), 2 ECT(0), 3 CE (MECN reads it as a level).",
                ),
                U8(&self.ecn),
            ),
            (col("ttl", "", "IP time to live."), U8(&self.ttl)),
            (
                col(
                    "retransmission",
                    "",
                    "Ground truth: the segment re-sends bytes sent before, by its TCP sender or by \
                     an agent's local retransmission (Snoop, G-Snoop, link-layer ARQ), like \
                     Wireshark's `tcp.analysis.retransmission`, or by Kick TCP's sender as a kick. \
                     Tell them apart by the copy's `send` row: on the flow's source node for the \
                     TCP sender's, where those with the K bit (`tcp_flags & 0x800`) are kicks \
                     (counted in `kicks_sent`) and the others are counted in \
                     `retransmitted_segments`; on the agent's node for a local one (counted in \
                     the agent's `local_retransmissions`); every later row of the copy (same \
                     `uid`) carries the flag.",
                ),
                Bool(&self.retransmission),
            ),
            (
                col(
                    "window_bytes",
                    "bytes",
                    "Advertised receive window of an ACK (airtcp does not scale it); 0 on the \
                     data sender's segments, whose own receive window is not modelled.",
                ),
                U64(&self.window_bytes),
            ),
            (
                col(
                    "sack",
                    "bytes",
                    "SACK blocks (RFC 2018) as a list of {start, end} byte offsets, most recent \
                     first; empty without.",
                ),
                Ranges {
                    offsets: &self.sack_offsets,
                    starts: &self.sack_starts,
                    ends: &self.sack_ends,
                },
            ),
            (
                col(
                    "cause",
                    "",
                    "For `drop`: `queue`, `aqm`, `channel`, `ttl`, `agent` or `no_route` (the \
                     `drops_*` columns of the flows table); missing otherwise.",
                ),
                Dict {
                    indices: &self.cause,
                    names: &self.cause_names,
                },
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::testing::{ack, data};
    use crate::net::packet::SackBlock;

    struct Failing;
    impl TraceSink for Failing {
        fn write(&mut self, _: &[TraceRecord]) -> io::Result<()> {
            Err(io::Error::other("disk full"))
        }
        fn finish(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn filter_by_flow_and_link() {
        let filter = TraceFilter {
            flows: vec![true, false],
            links: vec![false, true],
        };
        let mut t = Tracer::new(filter, Box::new(VecSink::default()));
        let mut other = data(0, 100);
        other.flow = 1;
        t.record(1, PacketEvent::Enqueue, 0, Some(1), None, &data(0, 100));
        t.record(2, PacketEvent::Enqueue, 0, Some(0), None, &data(0, 100));
        t.record(3, PacketEvent::Send, 0, None, None, &data(0, 100));
        t.record(4, PacketEvent::Enqueue, 0, Some(1), None, &other);
        assert_eq!(t.batch.len(), 1);
        assert_eq!(t.batch[0].time_ns, 1);
    }

    #[test]
    fn a_sink_error_is_reported_once_at_the_end() {
        let mut t = Tracer::new(TraceFilter::default(), Box::new(Failing));
        for i in 0..(BATCH_RECORDS + 10) as u64 {
            t.record(i, PacketEvent::Send, 0, None, None, &data(i, 1));
        }
        assert!(t.batch.len() < BATCH_RECORDS, "the batch is reused");
        assert_eq!(t.finish().unwrap_err().to_string(), "disk full");
    }

    #[test]
    fn columns_transpose_records() {
        let mut a = ack(500);
        a.sack_count = 2;
        a.sack[0] = SackBlock {
            start: 1000,
            end: 2000,
        };
        a.sack[1] = SackBlock {
            start: 3000,
            end: 3500,
        };
        let records = [
            TraceRecord {
                time_ns: 1_500_000_000,
                event: PacketEvent::Drop,
                node: 1,
                link: Some(0),
                cause: Some(DeathCause::ChannelError),
                pkt: data(0, 100),
            },
            TraceRecord {
                time_ns: 2_000_000_000,
                event: PacketEvent::Deliver,
                node: 0,
                link: None,
                cause: None,
                pkt: a,
            },
        ];
        let mut c = TraceColumns::new(TraceNames::default());
        c.fill(&records);
        assert_eq!(c.len(), 2);
        assert_eq!(c.time_s, vec![1.5, 2.0]);
        assert_eq!(c.link, vec![0, NULL_INDEX]);
        assert_eq!(
            c.cause,
            vec![DeathCause::ChannelError.index() as u32, NULL_INDEX]
        );
        assert_eq!(c.sack_offsets, vec![0, 0, 2]);
        assert_eq!(c.sack_starts, vec![1000, 3000]);
        assert_eq!(c.tcp_flags, vec![0x010, 0x010]);
        let cols = c.columns();
        assert!(cols.iter().all(|(_, d)| match d {
            ColumnData::F64(v) => v.len() == 2,
            ColumnData::U64(v) => v.len() == 2,
            ColumnData::U32(v) => v.len() == 2,
            ColumnData::U16(v) => v.len() == 2,
            ColumnData::U8(v) => v.len() == 2,
            ColumnData::Bool(v) => v.len() == 2,
            ColumnData::Dict { indices, .. } => indices.len() == 2,
            ColumnData::Ranges { offsets, .. } => offsets.len() == 3,
        }));
    }
}
