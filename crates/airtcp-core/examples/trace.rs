//! Print a flow's sender event log: `cargo run --example trace -- FILE [FLOW]`.
use airtcp_core::scenario::Scenario;
use airtcp_core::tcp::sender::TraceEvent;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let sc = Scenario::from_path(&args[1]).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let fi: usize = args.get(2).map_or(0, |s| s.parse().unwrap());
    let mut w = sc.build(None).unwrap();
    w.record_sender_events();
    let r = w.run(|_| true);
    let s = w.tcp_sender(fi).expect("tcp flow");
    let mss = s.core.mss;
    for (t, ev) in &s.core.trace {
        let ms = *t as f64 / 1e6;
        match ev {
            TraceEvent::Send {
                seq,
                retransmission,
                ..
            } => println!(
                "{ms:10.3} send {} {}",
                seq / mss,
                if *retransmission { "RTX" } else { "" }
            ),
            TraceEvent::Window { cwnd, ssthresh } => println!(
                "{ms:10.3} cwnd={:.2} ssthresh={:.2}",
                *cwnd as f64 / mss as f64,
                *ssthresh as f64 / mss as f64
            ),
            other => println!("{ms:10.3} {other:?}"),
        }
    }
    println!("{:#?}", r.flows[fi]);
}
