//! The `airtcp bench` dumbbells without Python, for counting what an event
//! costs under valgrind (load-independent): instructions, and misses of a
//! simulated cache shaped like the project machine's (48 KiB L1d, 32 MiB
//! last level):
//!
//! ```sh
//! cargo build --release --example event_cost
//! valgrind --tool=callgrind --cache-sim=yes --I1=32768,8,64 \
//!     --D1=49152,12,64 --LL=33554432,16,64 --collect-atstart=no \
//!     --toggle-collect='event_cost::simulate' \
//!     target/release/examples/event_cost 10000 10
//! ```
//!
//! Divide the totals (`callgrind_annotate`) by the events printed. Run
//! natively, it also prints the setup time (parsing, validating and
//! building the world once) and wall and on-CPU ns per event; built with
//! `--features event-profile`, the events and ns per event of each kind
//! (`world/profile.rs`), which tell a dearer event from a dearer mix.
//!
//! Arguments: flows (default 10), simulated seconds (default 10), and the
//! flows' `[flow.tcp]` preset (default `newreno`): `newreno` is
//! `{ variant = "newreno" }`, `sack` is `{ variant = "sack" }` (RFC 6675
//! recovery, sending by pipe), `cubic-rack` is CUBIC with SACK and RACK-TLP
//! (`{ variant = "sack", cc = "cubic", loss_detection = "rack_tlp" }`),
//! whose senders hold the stateful strategies a connection's start builds.
//! A fourth argument names the bottleneck: `fixed` (default, `airtcp
//! bench`'s 100 Mb/s whatever the flows) or `per-flow-share` (1 Mb/s per
//! flow over 60 ms, `bench.py`'s `per_flow_share_dumbbell`: the same mix
//! of events at every size; a dumbbell with fewer than a million events
//! runs again with the next seeds until it has them).
//!
//! The scenario is `python/airtcp/bench.py`'s `compact_dumbbell`: n senders
//! -> R1 -> R2 (gentle RED) -> n receivers, 100 Mb/s access links with 1
//! ms delay, one bulk flow per pair (NewReno by default), starts staggered
//! over the first second (the first half of a shorter run). Only
//! `simulate` (the event loop) is the part `airtcp bench` times as "wall
//! s" and divides by the events; the collection of results after it costs
//! per flow, not per event ("collect s").
use airtcp_core::metrics::RunResult;
use airtcp_core::scenario::Scenario;
use airtcp_core::world::World;

/// The `[flow.tcp]` table of a preset named on the command line.
fn tcp_preset(name: &str) -> &'static str {
    match name {
        "newreno" => r#"{ variant = "newreno" }"#,
        "sack" => r#"{ variant = "sack" }"#,
        "cubic-rack" => r#"{ variant = "sack", cc = "cubic", loss_detection = "rack_tlp" }"#,
        _ => panic!("unknown tcp preset {name:?}: newreno, sack or cubic-rack"),
    }
}

/// The dumbbell's bottleneck: `airtcp bench`'s fixed 100 Mb/s, 10 ms link,
/// or one whose rate grows with the flows so that each flow has the same
/// share at every size (`python/airtcp/bench.py`'s
/// `per_flow_share_dumbbell`).
#[derive(Clone, Copy, PartialEq)]
enum Bottleneck {
    /// 100 Mb/s whatever the flows: 10 flows get 10 Mb/s each, 100,000
    /// get 1 kb/s and spend much of their time in retransmission timeouts,
    /// so the mix of events changes with the number of flows.
    Fixed,
    /// 1 Mb/s per flow over 60 ms (a 124 ms round trip, about ten
    /// 1,500 B segments in flight per flow): the same mix of events at
    /// every size, so that a change of the cost per event is what many
    /// flows cost in memory.
    PerFlowShare,
}

/// The bottleneck link's fields: gentle RED sized as `bench.py`'s
/// `dumbbell` sizes it, about a bandwidth-delay product at a 25 ms round
/// trip and at least 100 packets (312 at 100 Mb/s).
fn bottleneck_link(n: usize, shape: Bottleneck) -> String {
    let (rate_mbps, delay_ms) = match shape {
        Bottleneck::Fixed => (100, 10),
        Bottleneck::PerFlowShare => (n.max(1), 60),
    };
    let limit = (rate_mbps * 25 / 8).max(100);
    let min_th = (limit / 10).max(5);
    let max_th = (limit / 3).max(3 * min_th);
    format!(
        r#"rate = "{rate_mbps}Mbps"
delay = "{delay_ms}ms"
queue = {{ kind = "red", limit = "{limit}pkt", min_th = {min_th}, max_th = {max_th}, max_p = 0.1, gentle = true, ecn = false }}"#
    )
}

fn compact_dumbbell(n: usize, seconds: f64, tcp: &str, shape: Bottleneck, seed: u64) -> String {
    // Starts staggered over the first second, or the first half of a
    // shorter run, as `bench.py` staggers them.
    let step_us = ((seconds / 2.0).min(1.0) * 1e6) as u64 / n.max(1) as u64;
    let bottleneck = bottleneck_link(n, shape);
    format!(
        r#"[simulation]
duration = "{seconds}s"
seed = {seed}
memory_budget = "64GB"

[[link]]
count = {n}
a = "s{{i}}"
b = "R1"
rate = "100Mbps"
delay = "1ms"

[[link]]
a = "R1"
b = "R2"
{bottleneck}

[[link]]
count = {n}
a = "R2"
b = "d{{i}}"
rate = "100Mbps"
delay = "1ms"

[[flow]]
count = {n}
name = "f{{i}}"
from = "s{{i}}"
to = "d{{i}}"
stagger = "{step_us}us"
tcp = {tcp}
app = {{ kind = "bulk" }}
"#
    )
}

/// Time this thread has spent on a CPU (Linux `/proc/self/schedstat`;
/// 0 elsewhere): on a loaded machine, less inflated than wall time by
/// waiting for a CPU, though still by other processes evicting caches.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

#[inline(never)]
fn simulate(world: &mut World) {
    world.simulate(|_| true)
}

/// Events, ns per event and share of the loop's time per kind of event
/// (clock ticks scaled to the loop's wall time).
#[cfg(feature = "event-profile")]
fn print_profile(p: &airtcp_core::world::profile::EventProfile, wall_s: f64) {
    use airtcp_core::world::profile::EventClass;
    let ticks: u64 = p.ticks.iter().sum();
    let ns_per_tick = wall_s * 1e9 / ticks.max(1) as f64;
    for c in EventClass::ALL {
        let (n, t) = (p.events[c as usize], p.ticks[c as usize]);
        println!(
            "  {:>14}: {n:>9} events, {:>6.0} ns each, {:>5.1}% of the loop",
            c.name(),
            t as f64 * ns_per_tick / n.max(1) as f64,
            100.0 * t as f64 / ticks.max(1) as f64
        );
    }
}

/// Enough events for a steady cost per event: runs of a small dumbbell
/// are repeated with the next seeds until their events add up to this.
const MIN_EVENTS: u64 = 1_000_000;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flows: usize = args.get(1).map_or(10, |s| s.parse().expect("flows"));
    let seconds: f64 = args.get(2).map_or(10.0, |s| s.parse().expect("seconds"));
    let tcp = tcp_preset(args.get(3).map_or("newreno", |s| s.as_str()));
    let shape = match args.get(4).map_or("fixed", |s| s.as_str()) {
        "fixed" => Bottleneck::Fixed,
        "per-flow-share" => Bottleneck::PerFlowShare,
        other => panic!("unknown bottleneck {other:?}: fixed or per-flow-share"),
    };
    #[cfg(feature = "event-profile")]
    let mut profile = airtcp_core::world::profile::EventProfile::default();
    let (mut setup_s, mut wall_s, mut cpu_s) = (0.0, 0.0, 0.0);
    let (mut events, mut packet_hops, mut runs) = (0u64, 0u64, 0u64);
    let mut digest = 0xcbf2_9ce4_8422_2325u64;
    // `Fixed` is one run (seed 1), as `airtcp bench` times it; a
    // `PerFlowShare` dumbbell too small for MIN_EVENTS runs again with the
    // next seeds, the same mix each time.
    while runs == 0 || (shape == Bottleneck::PerFlowShare && events < MIN_EVENTS) {
        runs += 1;
        let text = compact_dumbbell(flows, seconds, tcp, shape, runs);
        // Loading validates by building the world, once, as `airtcp run` does.
        let t_setup = std::time::Instant::now();
        let (_, mut world) = Scenario::load(&text, "event_cost", None).expect("scenario");
        setup_s += t_setup.elapsed().as_secs_f64();
        let (t, cpu0) = (std::time::Instant::now(), cpu_ns());
        simulate(&mut world);
        assert!(
            world.packets_over_budget().is_none(),
            "the packets outgrew the memory budget: a run cut short"
        );
        wall_s += t.elapsed().as_secs_f64();
        cpu_s += (cpu_ns() - cpu0) as f64 / 1e9;
        #[cfg(feature = "event-profile")]
        profile.merge(&world.profile);
        let r: RunResult = world.results();
        events += r.events;
        packet_hops += r.packet_hops;
        // A digest of the whole result (Debug prints floats exactly), to
        // check that a change to the engine leaves results bit for bit the
        // same.
        digest = format!("{r:?}").bytes().fold(digest, |h, b| {
            (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
        });
    }
    #[cfg(feature = "event-profile")]
    print_profile(&profile, wall_s);
    println!(
        "{flows} flows, {seconds} s, {runs} run(s): setup {setup_s:.3} s, {events} events, {packet_hops} packet-hops, {:.0} ns/event (wall), {:.0} ns/event (on CPU), result digest {digest:016x}",
        wall_s * 1e9 / events as f64,
        cpu_s * 1e9 / events as f64
    );
}
