//! Validation against theory: one Reno bulk flow (no delayed ACKs) over a
//! path with Bernoulli loss p on data, compared with the full model of
//! Padhye, Firoiu, Towsley and Kurose, "Modeling TCP Throughput: A Simple
//! Model and its Empirical Validation", SIGCOMM 1998, eq. (31), evaluated
//! with the RTT and the RTO (T0) that each run measured.
//!
//! The model's B(p) is a send rate (retransmissions included); a fraction
//! (1 - p) of those packets is delivered, so the goodput it predicts is
//! (1 - p) B(p). The path is uncongested (100 Mb/s, large buffer), so every
//! loss is a channel loss, as the model assumes.

use airtcp_core::scenario::Scenario;

/// PFTK eq. (31) in packets per second; `b` packets per ACK.
fn pftk_send_rate(p: f64, rtt: f64, t0: f64, wmax: f64, b: f64) -> f64 {
    let q = 1.0 - p;
    let ew =
        (2.0 + b) / (3.0 * b) + (8.0 * q / (3.0 * b * p) + ((2.0 + b) / (3.0 * b)).powi(2)).sqrt();
    let qhat = |w: f64| -> f64 {
        let num = (1.0 - q.powi(3)) * (1.0 + q.powi(3) * (1.0 - q.powf(w - 3.0)));
        (num / (1.0 - q.powf(w))).min(1.0)
    };
    let f = 1.0
        + p
        + 2.0 * p.powi(2)
        + 4.0 * p.powi(3)
        + 8.0 * p.powi(4)
        + 16.0 * p.powi(5)
        + 32.0 * p.powi(6);
    if ew < wmax {
        (q / p + ew + qhat(ew) / q) / (rtt * (b / 2.0 * ew + 1.0) + qhat(ew) * t0 * f / q)
    } else {
        (q / p + wmax + qhat(wmax) / q)
            / (rtt * (b / 8.0 * wmax + q / (p * wmax) + 2.0) + qhat(wmax) * t0 * f / q)
    }
}

fn scenario(p: f64) -> Scenario {
    let text = format!(
        r#"
[simulation]
duration = "200s"
[[link]]
a = "S"
b = "D"
rate = "100Mbps"
delay = "50ms"
queue = {{ kind = "droptail", limit = "5000pkt" }}
a_to_b = {{ error = {{ kind = "bernoulli", per = {p}, applies_to = "data" }} }}
[[flow]]
from = "S"
to = "D"
tcp = {{ variant = "reno", mss = "1000B", delayed_ack = false, rwnd = "10MB" }}
app = {{ kind = "bulk" }}
"#
    );
    Scenario::from_toml_str(&text, "pftk.toml").unwrap()
}

#[test]
fn reno_goodput_matches_pftk_full_model() {
    const SEEDS: u64 = 20;
    let mut table =
        String::from("\n    p     RTT(s)  T0(s)  sim goodput(pkt/s)  model (1-p)B(p)  ratio\n");
    let mut failures = Vec::new();
    for p in [0.001, 0.005, 0.01, 0.02, 0.05] {
        let sc = scenario(p);
        let (mut goodput, mut rtt, mut t0, mut t0_n) = (0.0, 0.0, 0.0, 0u32);
        for seed in 1..=SEEDS {
            let r = sc.run(Some(seed)).unwrap();
            let f = &r.flows[0];
            goodput += f.delivered_bytes as f64 / 1000.0 / (f.end_s - f.start_s);
            rtt += f.mean_rtt_s;
            if f.mean_first_rto_s.is_finite() {
                t0 += f.mean_first_rto_s;
                t0_n += 1;
            }
        }
        let n = SEEDS as f64;
        let (goodput, rtt) = (goodput / n, rtt / n);
        let t0 = if t0_n > 0 { t0 / t0_n as f64 } else { 1.0 };
        let model = (1.0 - p) * pftk_send_rate(p, rtt, t0, 1e4, 1.0);
        let ratio = goodput / model;
        table.push_str(&format!(
            "{p:7.3}  {rtt:7.4}  {t0:5.2}  {goodput:18.1}  {model:15.1}  {ratio:5.2}\n"
        ));
        if !(0.8..=1.2).contains(&ratio) {
            failures.push(p);
        }
    }
    println!("{table}");
    // Kept for scripts/test, which prints it after the suite.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../target");
    let _ = std::fs::create_dir_all(dir);
    let _ = std::fs::write(format!("{dir}/pftk_table.txt"), &table);
    assert!(
        failures.is_empty(),
        "outside +-20% of PFTK at p = {failures:?}:{table}"
    );
}
