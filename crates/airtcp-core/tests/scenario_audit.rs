//! What docs/scenario.md says of fields the audit of the page against the
//! parser found the code to contradict: each test states the page's
//! sentence and checks the code does what it says.

mod common;
use airtcp_core::scenario::observe::ObserveRequest;
use common::{one_link, scenario};

/// docs/scenario.md, "Seeds of a deterministic scenario": a scenario in
/// which no component draws random numbers gives the same run for every
/// seed, and `Scenario.random` tells which case a scenario is. The TCP
/// table's `rtt_tick_phase = "random"` draws each connection's phase of
/// the RTT clock from the flow's random stream (so another seed gives other
/// phases: tcp_features.rs::rtt_tick_phase_is_drawn_per_connection_like_ns2_boot_time);
/// such a scenario is random, and several seeds of it are not pointless.
#[test]
fn a_random_rtt_tick_phase_makes_the_scenario_random() {
    let random = one_link(
        "",
        "",
        r#"rtt_tick = "10ms", rtt_tick_phase = "random""#,
        "",
    );
    assert!(scenario(&random).uses_randomness());
    for fixed in [
        r#"rtt_tick = "10ms", rtt_tick_phase = "zero""#,
        r#"rtt_tick = "10ms""#,
    ] {
        assert!(
            !scenario(&one_link("", "", fixed, "")).uses_randomness(),
            "{fixed}"
        );
    }
}

/// docs/scenario.md, TCP table: `trace` puts *this flow's* packets in the
/// per-packet trace. A counted `[[flow]]` table before the flow stands for
/// several flows, so the flow's place among the flows is not its table's
/// place in the file.
#[test]
fn tcp_trace_selects_its_own_flow_after_a_counted_table() {
    let text = "[simulation]\nduration = \"1s\"\n\n[[link]]\ncount = 3\na = \"s{i}\"\nb = \"R\"\n\
        rate = \"10Mbps\"\ndelay = \"1ms\"\n\n[[link]]\na = \"R\"\nb = \"D\"\nrate = \"10Mbps\"\n\
        delay = \"1ms\"\n\n[[flow]]\ncount = 3\nname = \"f{i}\"\nfrom = \"s{i}\"\nto = \"D\"\n\
        app = { kind = \"bulk\" }\n\n[[flow]]\nname = \"traced\"\nfrom = \"s0\"\nto = \"D\"\n\
        tcp = { trace = true }\napp = { kind = \"bulk\" }\n\n[[flow]]\ncount = 2\nname = \"g{i}\"\n\
        from = \"s{i}\"\nto = \"D\"\ntcp = { trace = true }\napp = { kind = \"bulk\" }\n";
    let sc = scenario(text);
    let world = sc.build(None).unwrap();
    let plan = sc.observe_plan(&world, &ObserveRequest::default()).unwrap();
    let traced: Vec<&str> = plan
        .trace
        .expect("tcp.trace = true asks for a trace")
        .filter
        .flows
        .iter()
        .zip(&world.flows)
        .filter(|(on, _)| **on)
        .map(|(_, f)| f.name.as_str())
        .collect();
    assert_eq!(traced, ["traced", "g0", "g1"]);
}
