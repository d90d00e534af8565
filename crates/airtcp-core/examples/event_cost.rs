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
//! `{ variant = "newreno" }`, `cubic-rack` is CUBIC with SACK and RACK-TLP
//! (`{ variant = "sack", cc = "cubic", loss_detection = "rack_tlp" }`),
//! whose senders hold the stateful strategies a connection's start builds.
//! The scenario is `python/airtcp/bench.py`'s `compact_dumbbell`: n senders
//! -> R1 -> R2 (100 Mb/s, gentle RED) -> n receivers, 100 Mb/s access links
//! with 1 ms delay, one bulk flow per pair (NewReno by default), starts
//! staggered over the first second. Only `simulate` (the event loop) is the part `airtcp
//! bench` times as "wall s" and divides by the events; the collection of
//! results after it costs per flow, not per event ("collect s").
use airtcp_core::metrics::RunResult;
use airtcp_core::scenario::Scenario;
use airtcp_core::world::World;

/// The `[flow.tcp]` table of a preset named on the command line.
fn tcp_preset(name: &str) -> &'static str {
    match name {
        "newreno" => r#"{ variant = "newreno" }"#,
        "cubic-rack" => r#"{ variant = "sack", cc = "cubic", loss_detection = "rack_tlp" }"#,
        _ => panic!("unknown tcp preset {name:?}: newreno or cubic-rack"),
    }
}

fn compact_dumbbell(n: usize, seconds: f64, tcp: &str) -> String {
    let step_us = 1_000_000 / n.max(1);
    format!(
        r#"[simulation]
duration = "{seconds}s"
seed = 1

[[link]]
count = {n}
a = "s{{i}}"
b = "R1"
rate = "100Mbps"
delay = "1ms"

[[link]]
a = "R1"
b = "R2"
rate = "100Mbps"
delay = "10ms"
queue = {{ kind = "red", limit = "312pkt", min_th = 31, max_th = 104, max_p = 0.1, gentle = true, ecn = false }}

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

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flows: usize = args.get(1).map_or(10, |s| s.parse().expect("flows"));
    let seconds: f64 = args.get(2).map_or(10.0, |s| s.parse().expect("seconds"));
    let tcp = tcp_preset(args.get(3).map_or("newreno", |s| s.as_str()));
    // Loading validates by building the world, once, as `airtcp run` does.
    let t_setup = std::time::Instant::now();
    let (_, mut world) = Scenario::load(&compact_dumbbell(flows, seconds, tcp), "event_cost", None)
        .expect("scenario");
    let setup_s = t_setup.elapsed().as_secs_f64();
    let (t, cpu0) = (std::time::Instant::now(), cpu_ns());
    simulate(&mut world);
    let (wall_s, cpu_s) = (t.elapsed().as_secs_f64(), (cpu_ns() - cpu0) as f64 / 1e9);
    #[cfg(feature = "event-profile")]
    print_profile(&world.profile, wall_s);
    let r: RunResult = world.results();
    // A digest of the whole result (Debug prints floats exactly), to check
    // that a change to the engine leaves results bit for bit the same.
    let digest = format!("{r:?}")
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
        });
    println!(
        "{flows} flows, {seconds} s: setup {setup_s:.3} s, {} events, {} packet-hops, {:.0} ns/event (wall), {:.0} ns/event (on CPU), result digest {digest:016x}",
        r.events,
        r.packet_hops,
        wall_s * 1e9 / r.events as f64,
        cpu_s * 1e9 / r.events as f64
    );
}
