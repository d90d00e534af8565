//! Quick core-only benchmark: `cargo run --release --example dumbbell_bench -- FLOWS SECONDS`.
use airtcp_core::scenario::Scenario;

fn dumbbell(flows: usize, seconds: u64, bottleneck: &str) -> String {
    let mut s = format!("[simulation]\nduration = \"{seconds}s\"\n");
    for i in 0..flows {
        s += &format!(
            "[[link]]\na = \"S{i}\"\nb = \"R1\"\nrate = \"100Mbps\"\ndelay = \"{}ms\"\n",
            1 + i % 10
        );
        s += &format!("[[link]]\na = \"R2\"\nb = \"D{i}\"\nrate = \"100Mbps\"\ndelay = \"2ms\"\n");
    }
    s += &format!("[[link]]\na = \"R1\"\nb = \"R2\"\nrate = \"{bottleneck}\"\ndelay = \"10ms\"\nqueue = {{ kind = \"red\", limit = \"500pkt\", min_th = 30, max_th = 90, gentle = true }}\n");
    for i in 0..flows {
        s += &format!("[[flow]]\nfrom = \"S{i}\"\nto = \"D{i}\"\nstart = \"{}ms\"\ntcp = {{ variant = \"newreno\" }}\napp = {{ kind = \"bulk\" }}\n", i % 1000);
    }
    s
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flows: usize = args.get(1).map_or(10, |s| s.parse().unwrap());
    let secs: u64 = args.get(2).map_or(100, |s| s.parse().unwrap());
    let bn = args.get(3).cloned().unwrap_or("100Mbps".into());
    let sc = Scenario::from_toml_str(&dumbbell(flows, secs, &bn), "bench").unwrap();
    let mut w = sc.build(None).unwrap();
    let t = std::time::Instant::now();
    let r = w.run(|_| true);
    let el = t.elapsed().as_secs_f64();
    let util = r.links.iter().map(|l| l.utilization).fold(0.0, f64::max);
    println!("{flows} flows {secs}s: wall {el:.3}s events {} ({:.2} M/s) hops {} ({:.2} M/s) bottleneck util {util:.3}", r.events, r.events as f64 / el / 1e6, r.packet_hops, r.packet_hops as f64 / el / 1e6);
}
