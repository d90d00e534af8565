//! What docs/scenario.md says of fields the audit of the page against the
//! parser found the code to contradict: each test states the page's
//! sentence and checks the code does what it says.

mod common;
use common::scenario;

fn one_flow(tcp: &str, error: &str) -> String {
    format!(
        "[simulation]\nduration = \"2s\"\n\n[[link]]\na = \"S\"\nb = \"D\"\nrate = \"10Mbps\"\n\
         delay = \"10ms\"\n{error}\n\n[[flow]]\nfrom = \"S\"\nto = \"D\"\ntcp = {{ {tcp} }}\n\
         app = {{ kind = \"bulk\" }}\n"
    )
}

/// docs/scenario.md, "Seeds of a deterministic scenario": a scenario in
/// which no component draws random numbers gives the same run for every
/// seed, and `Scenario.random` tells which case a scenario is. The TCP
/// table's `rtt_tick_phase = "random"` draws each connection's phase of
/// the RTT clock from the flow's random stream (so another seed gives other
/// phases: tcp_features.rs::rtt_tick_phase_is_drawn_per_connection_like_ns2_boot_time);
/// such a scenario is random, and several seeds of it are not pointless.
#[test]
fn a_random_rtt_tick_phase_makes_the_scenario_random() {
    let random = one_flow(r#"rtt_tick = "10ms", rtt_tick_phase = "random""#, "");
    assert!(scenario(&random).uses_randomness());
    for fixed in [
        r#"rtt_tick = "10ms", rtt_tick_phase = "zero""#,
        r#"rtt_tick = "10ms""#,
    ] {
        assert!(!scenario(&one_flow(fixed, "")).uses_randomness(), "{fixed}");
    }
}
