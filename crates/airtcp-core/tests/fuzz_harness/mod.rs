//! The fuzz harnesses (issue 13), shared by the cargo-fuzz targets in
//! `fuzz/fuzz_targets/` (which include this file by path) and by
//! `tests/fuzz_corpus.rs`, which replays the checked-in corpus on stable
//! Rust in every test run. Each harness panics when an invariant breaks.
#![allow(dead_code)]

use airtcp_core::net::packet::{flags, Ecn, Packet, PacketKind, SackBlock};
use airtcp_core::scenario::Scenario;
use airtcp_core::sim::TimeNs;
use airtcp_core::tcp::receiver::TcpReceiver;
use airtcp_core::tcp::sender::TcpSender;
use airtcp_core::tcp::spec::TcpSpec;
use airtcp_core::world::FlowKind;

/// The scenario loader on arbitrary bytes: never a panic; an error is one
/// line naming the file; a scenario it accepts builds for any seed
/// (validation does not depend on the seed).
pub fn scenario_loader(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Scenario::from_toml_str(text, "fuzz.toml") {
        Err(e) => {
            let line = e.to_string();
            assert!(!line.contains('\n'), "error is not one line: {line:?}");
            assert!(line.starts_with("fuzz.toml"), "{line}");
        }
        Ok(sc) => {
            if let Err(e) = sc.build(Some(0x005e_ed0f_f022)) {
                panic!("accepted, but fails to build for another seed: {e}");
            }
        }
    }
}

/// Reads the fuzz input as a stream of small choices.
struct Input<'a> {
    data: &'a [u8],
}

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }
    fn below(&mut self, n: usize) -> usize {
        self.byte() as usize % n.max(1)
    }
    fn flag(&mut self) -> bool {
        self.byte() & 1 == 1
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }
}

const MSS: u64 = 100;

/// A sender and a receiver configured from the first bytes of the input,
/// through the scenario loader (the public way to make a TCP spec), and
/// the size of the transfer (None: bulk).
fn endpoints(input: &mut Input) -> (TcpSender, TcpReceiver, Option<u64>, bool) {
    // Each choice reads its byte's low bits as it always has, so that an
    // old input drives the same exchange; the options added since
    // 2026-11-23 come from the spare high bits of the same bytes.
    let variant_byte = input.byte();
    let variant = ["tahoe", "reno", "newreno", "sack"][variant_byte as usize % 4];
    // The flag is read for every variant but Tahoe, as always, so that an
    // input gives the sender it gave before; the "sack" variant is SACK
    // recovery whatever it says (`sack = false` beside it is refused).
    let sack = (variant != "tahoe" && input.flag()) || variant == "sack";
    let timestamps_byte = input.byte();
    let timestamps = timestamps_byte & 1 == 1;
    let response = match input.below(5) {
        1 if timestamps => "eifel",
        2 => "frto",
        3 if sack || variant == "sack" => "frto_sack",
        4 if sack || variant == "sack" => "dclor",
        _ => "standard",
    };
    let delayed_ack_byte = input.byte();
    let delayed_ack = delayed_ack_byte & 1 == 1;
    let handshake_byte = input.byte();
    let handshake = handshake_byte & 1 == 1;
    let ecn_byte = input.byte();
    let initial_cwnd = 1 + input.below(8);
    let rwnd = MSS * (1 + input.below(64) as u64);
    let segments = input.below(200);
    let app = if segments == 0 {
        "{ kind = \"bulk\" }".to_string()
    } else {
        format!(
            "{{ kind = \"file\", size = \"{}B\" }}",
            segments as u64 * MSS
        )
    };
    // The newer options, each only where the loader accepts it
    // (docs/scenario.md's TCP table).
    let bit = |byte: u8, n: u32| byte >> n & 1 == 1;
    let cc = [
        "reno",
        "cubic",
        "westwood",
        "westwood_plus",
        "mecn",
        "wmecn",
    ][(variant_byte >> 2) as usize % 6];
    // The loss classifier (since 2026-11-29, from the ECN byte's bits 1-6):
    // none, Teng & Chang's RTT threshold (absolute or in ticks above the
    // base RTT, with both timeout and before-first-sample policies), or
    // WMECN's filtering context. The thresholds span the harness's RTTs
    // (time passes in steps of up to 255 ms), so both verdicts happen.
    let classifier = match ecn_byte >> 1 & 3 {
        0 => None,
        kind => {
            let scale = (ecn_byte >> 5 & 3) as usize;
            let on_timeout = bit(ecn_byte, 3);
            Some(match kind {
                3 => format!(
                    "{{ kind = \"wmecn\", on_timeout = \"{}\" }}",
                    if on_timeout { "congestion" } else { "classify" }
                ),
                _ => format!(
                    "{{ kind = \"rtt_threshold\", {}, on_timeout = \"{}\", before_rtt_sample = \"{}\" }}",
                    if kind == 1 {
                        format!("threshold = \"{}\"", ["5ms", "50ms", "300ms", "2s"][scale])
                    } else {
                        format!("ticks_above_base = {}, tick = \"10ms\"", [0, 1, 3, 20][scale])
                    },
                    if on_timeout { "classify" } else { "congestion" },
                    if bit(ecn_byte, 4) { "congestion" } else { "corruption" },
                ),
            })
        }
    };
    let wmecn_classifier = ecn_byte >> 1 & 3 == 3;
    let mecn_cc = cc == "mecn" || cc == "wmecn";
    let multilevel = mecn_cc || wmecn_classifier;
    let ecn = ecn_byte & 1 == 1 && !multilevel;
    let mut extra = String::new();
    let mut option = |on: bool, text: &str| {
        if on {
            extra.push_str(", ");
            extra.push_str(text);
        }
    };
    let dupthresh = 1 + (delayed_ack_byte >> 1 & 3);
    option(dupthresh != 3, &format!("dupthresh = {dupthresh}"));
    option(
        dupthresh != 1 && bit(delayed_ack_byte, 3),
        "limited_transmit = false",
    );
    option(
        delayed_ack && bit(delayed_ack_byte, 4),
        "delack_segments = 3",
    );
    option(
        sack && bit(delayed_ack_byte, 5),
        "restart_rto_on_recovery_retransmission = true",
    );
    option(
        variant != "tahoe" && bit(delayed_ack_byte, 6),
        "timeout_in_recovery_ssthresh = \"flight_size\"",
    );
    option(
        variant == "reno" && !sack && bit(delayed_ack_byte, 7),
        "reno_one_fast_retransmit_per_window = true",
    );
    option(
        timestamps && bit(timestamps_byte, 1),
        "slow_start = \"hystart++\"",
    );
    option(
        sack && bit(timestamps_byte, 2),
        if bit(timestamps_byte, 7) {
            "loss_detection = \"rack\""
        } else {
            "loss_detection = \"rack_tlp\""
        },
    );
    option(
        sack && bit(timestamps_byte, 3),
        "rescue_retransmission = true",
    );
    option(
        bit(timestamps_byte, 4),
        "restart_rto_on_fast_retransmit = false",
    );
    option(bit(timestamps_byte, 5), "max_backoff = 4");
    option(
        variant != "tahoe" && bit(timestamps_byte, 6),
        "proportional_rate_reduction = true",
    );
    if let Some(classifier) = &classifier {
        option(true, &format!("classifier = {classifier}"));
    }
    // Kick TCP's kick timer (since 2026-11-29, the handshake byte's bits
    // 3-4): off, the smoothed RTT (with or without an interval before
    // the first sample), or a fixed 50 ms.
    option(
        handshake_byte >> 3 & 3 != 0,
        match handshake_byte >> 3 & 3 {
            1 => "kick = { interval = \"rtt\" }",
            2 => "kick = { interval = \"rtt\", before_sample = \"100ms\" }",
            _ => "kick = { interval = \"50ms\" }",
        },
    );
    // ns-2's RTT clock (bit 5) and DCLOR without a SACK block (bit 6).
    option(bit(handshake_byte, 5), "rtt_tick = \"10ms\"");
    option(
        response == "dclor" && bit(handshake_byte, 6),
        "dclor_requires_sack_block = false",
    );
    // The wmecn classifier alone reads marks without reducing on them.
    let marks_reduce = mecn_cc || (ecn && cc != "cubic");
    option(marks_reduce && bit(handshake_byte, 1), "mark_min_cwnd = 1");
    option(
        (ecn || multilevel) && bit(handshake_byte, 2),
        "ecn_capable_retransmissions = true",
    );
    // The link's queue marks ECN when the flow is ECN-capable: a scenario
    // refuses `ecn = true` on a route where nothing marks, and a marking
    // RED that no ECN-capable data crosses (only the TCP spec is used
    // here); multi-level ECN needs a queue that marks its levels.
    let queue = if multilevel {
        "{ kind = \"wmecn\", limit = \"50pkt\", min_th = 5, mid_th = 10, max_th = 15 }"
    } else if ecn {
        "{ kind = \"red\", limit = \"50pkt\", min_th = 5, max_th = 15, ecn = true }"
    } else {
        "{ kind = \"red\", limit = \"50pkt\", min_th = 5, max_th = 15 }"
    };
    let text = format!(
        "[simulation]\nduration = \"100s\"\n[[link]]\na = \"S\"\nb = \"D\"\nrate = \"1Mbps\"\ndelay = \"10ms\"\n\
         queue = {queue}\n\
         [[flow]]\nfrom = \"S\"\nto = \"D\"\napp = {app}\n\
         tcp = {{ variant = \"{variant}\", sack = {sack}, timestamps = {timestamps}, \
         timeout_response = \"{response}\", delayed_ack = {delayed_ack}, handshake = {handshake}, \
         ecn = {ecn}, initial_cwnd = {initial_cwnd}, rwnd = \"{rwnd}B\", mss = \"{MSS}B\", \
         min_rto = \"200ms\", cc = \"{cc}\"{extra} }}\n"
    );
    // Loading a scenario costs more than the exchange: keep each spec,
    // up to a bound (the inputs can name tens of millions of distinct
    // specs, so an unbounded cache grows as long as a campaign runs).
    let spec = SPECS.with(|specs| {
        let mut specs = specs.borrow_mut();
        if specs.len() >= MAX_CACHED_SPECS {
            specs.clear();
        }
        specs
            .entry(text.clone())
            .or_insert_with(|| {
                let sc =
                    Scenario::from_toml_str(&text, "fuzz.toml").unwrap_or_else(|e| panic!("{e}"));
                let world = sc.build(None).expect("validated");
                let FlowKind::Tcp(t) = &world.flows[0].kind else {
                    unreachable!("a TCP flow")
                };
                t.spec.clone()
            })
            .clone()
    });
    let size = (segments > 0).then_some(segments as u64 * MSS);
    (
        // No rtt_tick in this scenario: the tick phase has no effect.
        spec.build_sender(0, 1, 0, 1, 0),
        spec.build_receiver(0, 1, 0, 1),
        size,
        multilevel,
    )
}

/// How many loaded TCP specs the harness keeps (a few MB).
const MAX_CACHED_SPECS: usize = 4096;

thread_local! {
    static SPECS: std::cell::RefCell<std::collections::HashMap<String, TcpSpec>> =
        Default::default();
}

/// The most packets the adversarial network holds each way: a real path
/// holds only so much.
const NETWORK_PACKETS: usize = 4096;

/// Put an endpoint's output on a network queue, as much as it has room
/// for (the rest is lost): the first packets, never the others copied. A
/// forged ACK advertising gigabytes opens the sender's window to hundreds
/// of thousands of 100-byte segments in one call; appending them all and
/// cutting the queue back afterwards (as the harness did until
/// 2026-11-28) doubled that burst's memory, the largest part of a
/// campaign's peak RSS (docs/fuzzing.md).
fn enqueue(queue: &mut Vec<Packet>, out: &mut Vec<Packet>) {
    out.truncate(NETWORK_PACKETS.saturating_sub(queue.len()));
    queue.append(out);
}

/// The sans-I/O TCP sender and receiver, joined by an adversarial
/// network the input drives: it delivers, drops, duplicates and reorders
/// segments and ACKs, lets time pass, fires timers, marks congestion, and
/// injects forged ACKs (any acknowledgment number, SACK blocks, ECE).
/// Invariants: no panic; SND.UNA never moves back and never passes what
/// was sent; the receiver's in-order point never moves back, never passes
/// what was sent, and the bytes it delivers are exactly that point (each
/// byte in order, once); a finished file transfer delivered exactly its
/// size.
pub fn tcp_endpoints(data: &[u8]) {
    let mut input = Input { data };
    let (mut sender, mut receiver, size, multilevel) = endpoints(&mut input);
    let mut now: TimeNs = 0;
    let mut to_receiver: Vec<Packet> = Vec::new();
    let mut to_sender: Vec<Packet> = Vec::new();
    let mut out = Vec::new();
    sender.start(now, &mut out);
    sender.app_write(now, size.unwrap_or(u64::MAX), &mut out);
    enqueue(&mut to_receiver, &mut out);
    let mut snd_una = sender.core.snd_una;
    let mut rcv_nxt = receiver.rcv_nxt;
    for _ in 0..2000 {
        if input.data.is_empty() {
            break;
        }
        match input.below(9) {
            0 | 1 if !to_receiver.is_empty() => {
                let i = input.below(to_receiver.len());
                let mut p = if input.flag() {
                    to_receiver[i] // duplicate
                } else {
                    to_receiver.remove(i)
                };
                // A mark; with multi-level ECN either level (`10` or
                // `11`, WMECN §2.2), from the same byte's spare bit.
                let mark = input.byte();
                if mark.is_multiple_of(8) && p.ecn != Ecn::NotEct {
                    p.ecn = if multilevel && mark & 8 != 0 {
                        Ecn::Ect0
                    } else {
                        Ecn::Ce
                    };
                }
                receiver.on_packet(now, &p, &mut out);
                enqueue(&mut to_sender, &mut out);
            }
            2 if !to_receiver.is_empty() => {
                let i = input.below(to_receiver.len());
                to_receiver.remove(i);
            }
            3 | 4 if !to_sender.is_empty() => {
                let i = input.below(to_sender.len());
                let p = if input.flag() {
                    to_sender[i]
                } else {
                    to_sender.remove(i)
                };
                sender.on_packet(now, &p, &mut out);
                enqueue(&mut to_receiver, &mut out);
            }
            5 if !to_sender.is_empty() => {
                let i = input.below(to_sender.len());
                to_sender.remove(i);
            }
            6 => {
                // Let time pass up to the next timer, or a little.
                let next = [sender.next_deadline(), receiver.next_deadline()]
                    .into_iter()
                    .flatten()
                    .min();
                now = match next {
                    Some(t) if input.flag() => now.max(t),
                    _ => now + input.byte() as TimeNs * 1_000_000,
                };
                sender.on_timer(now, &mut out);
                enqueue(&mut to_receiver, &mut out);
                receiver.on_timer(now, &mut out);
                enqueue(&mut to_sender, &mut out);
            }
            7 => {
                // A forged ACK near the window, with an optional SACK block.
                let base = sender.core.snd_una as i64;
                let ack = (base + (input.u32() as i32 as i64 % 4096)).max(0) as u64;
                let mut p = Packet {
                    kind: PacketKind::TcpAck,
                    flow: 0,
                    epoch: 1,
                    src: 1,
                    dst: 0,
                    ack,
                    wnd: input.u32() as u64,
                    flags: flags::ACK,
                    ..Default::default()
                };
                if input.flag() {
                    p.flags |= flags::ECE;
                }
                if input.flag() {
                    let start = ack + input.below(4096) as u64;
                    p.sack[0] = SackBlock {
                        start,
                        end: start + input.below(4096) as u64,
                    };
                    p.sack_count = 1;
                }
                sender.on_packet(now, &p, &mut out);
                enqueue(&mut to_receiver, &mut out);
            }
            _ => {
                // Reorder: move the newest segment to the front.
                if let Some(p) = to_receiver.pop() {
                    to_receiver.insert(0, p);
                }
            }
        }
        let sent = sender.core.snd_max;
        assert!(sender.core.snd_una >= snd_una, "SND.UNA moved back");
        assert!(sender.core.snd_una <= sent, "SND.UNA passed SND.MAX");
        assert!(receiver.rcv_nxt >= rcv_nxt, "RCV.NXT moved back");
        assert!(receiver.rcv_nxt <= sent, "received bytes never sent");
        assert_eq!(
            receiver.stats.delivered_bytes, receiver.rcv_nxt,
            "delivered bytes are the in-order point: each byte once"
        );
        if let Some(size) = size {
            assert!(receiver.rcv_nxt <= size, "delivered beyond the file");
        }
        snd_una = sender.core.snd_una;
        rcv_nxt = receiver.rcv_nxt;
    }
}

/// The most flows and links (counted tables counting their members) a
/// `scenario_run` input may have: a larger one is skipped, so that no
/// input costs more than a few milliseconds of simulation per run.
pub const RUN_MAX_FLOWS: usize = 16;
pub const RUN_MAX_LINKS: usize = 32;
/// A `scenario_run` input runs to the scenario's end (`duration`, up to
/// the loader's 10^7 s) unless one of these bounds stops it first, so that
/// what happens late in a run is reached too: with RFC 6298's 1 s minimum
/// RTO, everything after the first timeout (backoff to the maximum RTO,
/// responses to a timeout, Kick TCP's kick timer, later stalls, fades,
/// application periods and samples). Its cost is in its events, not its
/// simulated time: it runs in steps of [`RUN_STEP_NS`] of
/// `World::run_until`, and a stretch with nothing to do is stepped over
/// (the next step is the one holding the next event,
/// `World::next_event_ns`), so a quiet hour costs one step. It stops at
/// the end of the first step after which the links have been offered
/// more than [`RUN_MAX_PACKET_OFFERS`] packets or the world has processed
/// more than [`RUN_MAX_EVENTS`] events (timers, application events and
/// samples besides packets' arrivals; 50,000 to 60,000 events with
/// 20,000 offers cost 9 to 18 ms, two runs compared). A step is 10 ms of
/// simulated time, so the bounds are passed by at most what a run does
/// in 10 ms (a 10 Gb/s link carries 8,300 full-size packets).
pub const RUN_STEP_NS: TimeNs = 10_000_000;
pub const RUN_MAX_PACKET_OFFERS: u64 = 20_000;
pub const RUN_MAX_EVENTS: u64 = 100_000;
/// The most time-series points a `scenario_run` input records: it stops
/// at the last sample within this bound (the points of a sample counted
/// at most: every flow and link direction with every metric of its
/// kind). The product records a million points a simulated second at a
/// 1 us interval, as many as the memory budget (which a scenario may
/// raise) allows, and a sample is one event: without this an input with
/// a fine interval could record 100,000 samples of hundreds of points
/// (gigabytes) and stop a campaign run with an RSS limit, which is there
/// to catch memory that grows for no reason. It allows 416 samples of
/// the largest input (16 flows and 32 links: 240 points at most), which
/// cost 26 ms with their two runs compared (108 ms for 1,040 samples),
/// or 9,090 samples of one flow over one link (11 points).
pub const RUN_MAX_SERIES_POINTS: u64 = 100_000;

/// Is the scenario larger than `scenario_run` runs (checked before it is
/// built: the loader accepts 200,000-flow files)?
pub fn beyond_run_size(sc: &Scenario) -> bool {
    sc.flow_count() > RUN_MAX_FLOWS || sc.link_count() > RUN_MAX_LINKS
}

/// The end of a `scenario_run` input's run: the scenario's duration, or
/// the time of the last sample within [`RUN_MAX_SERIES_POINTS`] if the
/// world samples a time series whose points would pass it.
pub fn run_end_ns(world: &airtcp_core::world::World) -> TimeNs {
    use airtcp_core::metrics::{SeriesKind, SeriesMetric};
    let Some(cfg) = &world.series_cfg else {
        return world.duration_ns;
    };
    let metrics = |kind| {
        SeriesMetric::ALL
            .iter()
            .filter(|m| m.kind() == kind)
            .count()
    };
    let per_sample = if cfg.flows {
        world.flows.len() * metrics(SeriesKind::Flow)
    } else {
        0
    } + if cfg.links {
        world.links.len() * metrics(SeriesKind::Link)
    } else {
        0
    };
    match RUN_MAX_SERIES_POINTS.checked_div(per_sample as u64) {
        // Samples at 0, interval, 2 interval, ...: `samples` of them by
        // (samples - 1) intervals.
        Some(samples) => cfg
            .interval_ns
            .saturating_mul(samples.saturating_sub(1))
            .min(world.duration_ns),
        None => world.duration_ns,
    }
}

/// The result columns that are NaN when there is nothing to average
/// (docs/results.md); every other number must be finite.
const MAY_BE_NAN: [&str; 4] = [
    "mean_rtt_s",
    "min_rtt_s",
    "mean_first_rto_s",
    "mean_cwnd_bytes",
];

/// Packets offered to all links so far.
fn packet_offers(world: &airtcp_core::world::World) -> u64 {
    world.links.iter().map(|l| l.stats.packets_offered).sum()
}

/// Every number of a result row is finite (NaN only where the column
/// says "none") and not negative (every column is a count, a rate, a
/// time, a size or an index).
fn check_row(table: &str, row: &dyn airtcp_core::metrics::Row) {
    use airtcp_core::metrics::Cell;
    row.visit(&mut |column, cell| {
        let name = column.name;
        match cell {
            Cell::F64(v) => {
                assert!(
                    !v.is_infinite() && (!v.is_nan() || MAY_BE_NAN.contains(&name)),
                    "{table}.{name} is {v}"
                );
                assert!(v.is_nan() || v >= 0.0, "{table}.{name} is negative: {v}");
            }
            Cell::U32(_) | Cell::U64(_) | Cell::OptU64(_) | Cell::Str(_) | Cell::OptStr(_) => {}
        }
    });
}

/// A scenario run to its end or to a bound on its work (the loader's
/// bytes, then the run path the loader harness never reaches; the bounds
/// at [`RUN_STEP_NS`]). Invariants: no panic; the same
/// scenario and seed give identical results, whether run in steps of
/// `run_until` or at once; every number in the result tables is finite
/// and not negative; per flow, bytes delivered <= bytes sent and, for a
/// file transfer, <= the file; per link direction, packets delivered
/// plus dropped <= packets offered.
pub fn scenario_run(data: &[u8]) {
    use airtcp_core::app::TcpApp;
    use airtcp_core::net::packet::DeathCause;
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(sc) = Scenario::from_toml_str(text, "fuzz.toml") else {
        return; // the loader harness checks the errors
    };
    if beyond_run_size(&sc) {
        return;
    }
    // First run: in steps, to the end or until a bound; a quiet stretch
    // is one step.
    let mut world = sc.build(None).expect("loaded, so it builds");
    let end_ns = run_end_ns(&world);
    let mut until_ns = 0;
    loop {
        // Nothing is scheduled before the first step; after the last
        // event, nothing more happens.
        let next_ns = if until_ns == 0 {
            0
        } else {
            world.next_event_ns().unwrap_or(end_ns)
        };
        until_ns = (until_ns + RUN_STEP_NS)
            .max(next_ns.next_multiple_of(RUN_STEP_NS))
            .min(end_ns);
        world.run_until(until_ns);
        if until_ns == end_ns
            || packet_offers(&world) > RUN_MAX_PACKET_OFFERS
            || world.events_processed() > RUN_MAX_EVENTS
        {
            break;
        }
    }
    let _ = sc.overrun_error(&world);
    let stepped = world.results();
    // Second run, the same seed: at once (`World::run`, as `airtcp run`
    // does, when it reached the scenario's end).
    let mut again = sc.build(None).expect("built before");
    let at_once = if until_ns == again.duration_ns {
        again.run(|_| true)
    } else {
        again.run_until(until_ns);
        again.results()
    };
    // Debug, not ==: NaN (no RTT sample) is equal to itself here.
    assert_eq!(
        format!("{stepped:?}"),
        format!("{at_once:?}"),
        "same scenario and seed, different results"
    );
    let r = stepped;
    for f in &r.flows {
        check_row("flows", f);
        assert!(
            f.delivered_bytes <= f.bytes_sent,
            "flow {}: delivered {} > sent {}",
            f.name,
            f.delivered_bytes,
            f.bytes_sent
        );
        if let FlowKind::Tcp(t) = &world.flows[f.flow as usize].kind {
            if let TcpApp::File { size_bytes } = &t.app {
                assert!(
                    f.delivered_bytes <= *size_bytes,
                    "flow {}: delivered {} > file {size_bytes}",
                    f.name,
                    f.delivered_bytes
                );
                assert!(f.transfers_completed <= 1, "flow {}: one file", f.name);
            }
        }
    }
    for (l, dir) in r.links.iter().zip(&world.links) {
        check_row("links", l);
        let dropped: u64 = l.drops.iter().sum();
        let delivered = l.packets_sent - l.drops[DeathCause::ChannelError.index()];
        assert!(
            delivered + dropped <= dir.stats.packets_offered,
            "link {}: delivered {delivered} + dropped {dropped} > offered {}",
            l.name,
            dir.stats.packets_offered
        );
    }
    for t in &r.transfers {
        check_row("transfers", t);
    }
    for row in r.series_rows() {
        check_row("series", &row);
    }
}
