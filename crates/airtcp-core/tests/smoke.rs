use airtcp_core::scenario::Scenario;

#[test]
fn examples_run() {
    for ex in ["dumbbell", "wireless"] {
        let path = format!("{}/../../examples/{ex}.toml", env!("CARGO_MANIFEST_DIR"));
        let sc = Scenario::from_path(&path).unwrap_or_else(|e| panic!("{e}"));
        let t = std::time::Instant::now();
        let r = sc.run(None).unwrap();
        eprintln!(
            "{ex}: {:?} events={} hops={}",
            t.elapsed(),
            r.events,
            r.packet_hops
        );
        for f in &r.flows {
            eprintln!(
                "  {} {} goodput={:.3}Mbps rtx={} to={} fr={} ecn={} drops={:?} rtt={:.4}",
                f.name,
                f.variant,
                f.goodput_bps / 1e6,
                f.retransmitted_segments,
                f.timeouts,
                f.fast_retransmits,
                f.ecn_reductions,
                f.data_drops,
                f.mean_rtt_s
            );
        }
        for l in &r.links {
            eprintln!(
                "  {} util={:.3} drops={:?} marks={} q={:.2}",
                l.name, l.utilization, l.drops, l.ecn_marks, l.mean_queue_pkts
            );
        }
    }
}
