//! The scenario options of CUBIC (`cc`), RACK-TLP (`loss_detection`) and
//! HyStart++ (`slow_start`) reach the sender: each one changes what a
//! lossy (or, for slow start, a queue-limited) run does.

use airtcp_core::metrics::FlowResult;
use airtcp_core::scenario::Scenario;

/// A 20 Mb/s path of 100 ms RTT (a window of about 250 segments, where
/// CUBIC leaves the Reno-friendly region) with random data loss; `TCP`
/// is replaced.
const LOSSY: &str = r#"[simulation]
duration = "30s"
seed = 7

[[link]]
a = "S"
b = "R"
rate = "10Mbps"
delay = "2ms"

[[link]]
a = "R"
b = "D"
rate = "20Mbps"
delay = "48ms"
a_to_b = { error = { kind = "bernoulli", per = 0.0002 } }

[[flow]]
from = "S"
to = "D"
TCP
app = { kind = "bulk" }
"#;

fn run(tcp: &str) -> FlowResult {
    let text = LOSSY.replace("TCP", tcp);
    let sc = Scenario::from_toml_str(&text, "lossy.toml").unwrap_or_else(|e| panic!("{e}"));
    sc.run(None).unwrap().flows.remove(0)
}

#[test]
fn cubic_and_each_of_its_parameters_change_the_run() {
    let reno = run("tcp = { variant = \"sack\" }");
    let cubic = run("tcp = { variant = \"sack\", cc = \"cubic\" }");
    assert_eq!(cubic.variant.as_deref(), Some("sack/cubic"));
    assert_ne!(cubic.delivered_bytes, reno.delivered_bytes);
    let defaults =
        run("tcp = { variant = \"sack\", cc = { kind = \"cubic\", c = 0.4, beta = 0.7, fast_convergence = true } }");
    assert_eq!(
        defaults.delivered_bytes, cubic.delivered_bytes,
        "RFC 9438 defaults"
    );
    for changed in ["c = 4.0", "beta = 0.5", "fast_convergence = false"] {
        let other = run(&format!(
            "tcp = {{ variant = \"sack\", cc = {{ kind = \"cubic\", {changed} }} }}"
        ));
        assert_ne!(
            other.delivered_bytes, cubic.delivered_bytes,
            "{changed} has no effect"
        );
    }
}

/// The same path with 3% loss: retransmissions are lost too, which RACK
/// detects without a timeout (RFC 8985 §6.2) where RFC 6675's DupThresh
/// waits for the RTO.
fn run_lossier(tcp: &str) -> FlowResult {
    let text = LOSSY
        .replace("TCP", tcp)
        .replace("per = 0.0002", "per = 0.03");
    let sc = Scenario::from_toml_str(&text, "lossier.toml").unwrap_or_else(|e| panic!("{e}"));
    sc.run(None).unwrap().flows.remove(0)
}

#[test]
fn rack_tlp_is_selected_by_name_and_changes_the_run() {
    let dupack = run_lossier("tcp = { variant = \"sack\", cc = \"cubic\" }");
    let explicit =
        run_lossier("tcp = { variant = \"sack\", cc = \"cubic\", loss_detection = \"dupack\" }");
    assert_eq!(
        explicit.delivered_bytes, dupack.delivered_bytes,
        "dupack is the default"
    );
    let rack =
        run_lossier("tcp = { variant = \"sack\", cc = \"cubic\", loss_detection = \"rack_tlp\" }");
    assert_eq!(rack.variant.as_deref(), Some("sack+rack_tlp/cubic"));
    assert_eq!(dupack.variant.as_deref(), Some("sack/cubic"));
    assert!(
        rack.timeouts < dupack.timeouts,
        "RACK-TLP {} timeouts, DupThresh {}",
        rack.timeouts,
        dupack.timeouts
    );
}

/// `loss_detection = "rack"` is RACK without the tail loss probe (RFC 8985
/// §6 without §7): the probe is what it takes away, so on the lossier
/// path it ends with another result than RACK-TLP.
#[test]
fn rack_without_the_probe_is_selected_by_name_and_changes_the_run() {
    let tlp =
        run_lossier("tcp = { variant = \"sack\", cc = \"cubic\", loss_detection = \"rack_tlp\" }");
    let rack =
        run_lossier("tcp = { variant = \"sack\", cc = \"cubic\", loss_detection = \"rack\" }");
    assert_eq!(rack.variant.as_deref(), Some("sack+rack/cubic"));
    assert_ne!(
        (rack.delivered_bytes, rack.timeouts),
        (tlp.delivered_bytes, tlp.timeouts)
    );
}

/// The LOSSY path without random loss and with a drop-tail queue of 500
/// packets at the 10 Mb/s first hop (four times the path's
/// bandwidth-delay product at 100 ms): the first slow start overflows it;
/// HyStart++ (RFC 9406) sees the RTT grow on the way. 10 s, timestamps (an
/// RTT sample per ACK).
fn run_queue(tcp: &str) -> FlowResult {
    let text = LOSSY
        .replace("TCP", tcp)
        .replace("duration = \"30s\"", "duration = \"10s\"")
        .replace(
            "a_to_b = { error = { kind = \"bernoulli\", per = 0.0002 } }",
            "",
        )
        .replace(
            "rate = \"10Mbps\"\ndelay = \"2ms\"",
            "rate = \"10Mbps\"\ndelay = \"2ms\"\nqueue = { kind = \"droptail\", limit = \"500pkt\" }",
        );
    let sc = Scenario::from_toml_str(&text, "queue.toml").unwrap_or_else(|e| panic!("{e}"));
    sc.run(None).unwrap().flows.remove(0)
}

#[test]
fn hystart_is_selected_by_name_and_changes_the_run() {
    for cc in ["\"cubic\"", "\"reno\""] {
        let tcp = format!("variant = \"sack\", cc = {cc}, timestamps = true");
        let standard = run_queue(&format!("tcp = {{ {tcp} }}"));
        let explicit = run_queue(&format!("tcp = {{ {tcp}, slow_start = \"rfc5681\" }}"));
        assert_eq!(
            explicit.delivered_bytes, standard.delivered_bytes,
            "rfc5681 is the default"
        );
        let hystart = run_queue(&format!("tcp = {{ {tcp}, slow_start = \"hystart++\" }}"));
        assert!(
            hystart
                .variant
                .as_deref()
                .is_some_and(|v| v.contains("+hystart++")),
            "{:?}",
            hystart.variant
        );
        assert_ne!(hystart.delivered_bytes, standard.delivered_bytes, "{cc}");
        assert_ne!(hystart.data_drops, standard.data_drops, "{cc}");
    }
}
