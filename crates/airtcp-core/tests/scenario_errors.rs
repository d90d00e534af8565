//! Every class of user mistake yields one line naming file, line and field.

mod common;
use airtcp_core::scenario::{Scenario, ScenarioError};
use common::{check_scenario_err as check, scenario_err as err, scenario_err_with};

const GOOD: &str = r#"[simulation]
duration = "10s"

[[link]]
a = "S"
b = "R"
rate = "10Mbps"
delay = "2ms"

[[link]]
a = "R"
b = "D"
rate = "2Mbps"
delay = "10ms"
a_to_b = { error = { kind = "bernoulli", per = 0.01 } }

[[flow]]
from = "S"
to = "D"
tcp = { variant = "newreno", sack = true }
app = { kind = "bulk" }
"#;

/// Replace `from` in GOOD (which must occur) and return the error.
fn err_with(from: &str, to: &str) -> ScenarioError {
    scenario_err_with(GOOD, from, to)
}

#[test]
fn good_scenario_is_accepted() {
    Scenario::from_toml_str(GOOD, "good.toml").unwrap();
}

#[test]
fn unknown_key() {
    check(
        &err_with("delay = \"2ms\"", "delay = \"2ms\"\ncolour = \"red\""),
        9,
        "link[0].colour",
        "unknown field `colour`",
    );
}

#[test]
fn missing_unit() {
    check(
        &err_with("delay = \"2ms\"", "delay = \"2\""),
        8,
        "link[0].delay",
        "no unit",
    );
    check(
        &err_with("delay = \"2ms\"", "delay = 2"),
        8,
        "link[0].delay",
        "no unit",
    );
}

#[test]
fn wrong_unit() {
    check(
        &err_with("rate = \"10Mbps\"", "rate = \"10MB\""),
        7,
        "link[0].rate",
        "unknown rate unit",
    );
    check(
        &err_with("delay = \"2ms\"", "delay = \"2Mbps\""),
        8,
        "link[0].delay",
        "unknown duration unit",
    );
}

#[test]
fn missing_field() {
    check(
        &err_with("delay = \"2ms\"\n", ""),
        4,
        "link[0]",
        "missing field `delay`",
    );
}

#[test]
fn unknown_node_in_flow() {
    check(
        &err_with("to = \"D\"", "to = \"D9\""),
        19,
        "flow[0].to",
        "unknown node \"D9\"",
    );
}

#[test]
fn flow_without_route() {
    let text = GOOD.replacen("a = \"R\"\nb = \"D\"", "a = \"X\"\nb = \"D\"", 1);
    check(
        &err(&text),
        19,
        "flow[0].to",
        "no route from \"S\" to \"D\"",
    );
}

#[test]
fn zero_and_negative_rates() {
    check(
        &err_with("rate = \"10Mbps\"", "rate = \"0Mbps\""),
        7,
        "link[0].rate",
        "must be positive",
    );
    check(
        &err_with("rate = \"10Mbps\"", "rate = \"-3Mbps\""),
        7,
        "link[0].rate",
        "must be positive",
    );
}

#[test]
fn probability_outside_unit_interval() {
    check(
        &err_with("per = 0.01", "per = 1.5"),
        15,
        "link[1].a_to_b.error.per",
        "probability 1.5 is outside [0, 1]",
    );
    check(
        &err_with("per = 0.01", "per = -0.1"),
        15,
        "link[1].a_to_b.error.per",
        "outside [0, 1]",
    );
}

#[test]
fn unknown_variant() {
    check(
        &err_with("\"newreno\"", "\"renoo\""),
        20,
        "flow[0].tcp.variant",
        "unknown variant `renoo`",
    );
}

#[test]
fn unknown_error_kind() {
    check(
        &err_with("\"bernoulli\"", "\"bernouli\""),
        15,
        "link[1].a_to_b.error.kind",
        "unknown variant `bernouli`",
    );
}

#[test]
fn toml_syntax_error() {
    let e = err_with("[[flow]]", "[[flow]");
    let text = e.to_string();
    assert!(text.starts_with("bad.toml:17: "), "{text}");
    assert!(!text.contains('\n'));
}

#[test]
fn semantic_tcp_errors() {
    check(
        &err_with(
            "variant = \"newreno\", sack = true",
            "variant = \"tahoe\", sack = true",
        ),
        20,
        "flow[0].tcp.sack",
        "Tahoe has no SACK",
    );
    check(
        &err_with("sack = true", "sack = true, mss = \"0B\""),
        20,
        "flow[0].tcp.mss",
        "between",
    );
    // RFC 5681 §4.2: an ACK MUST be generated within 500 ms.
    check(
        &err_with("sack = true", "sack = true, delack_timeout = \"501ms\""),
        20,
        "flow[0].tcp.delack_timeout",
        "500",
    );
    // A tick phase without the tick clock would be accepted and do nothing.
    check(
        &err_with("sack = true", "sack = true, rtt_tick_phase = \"random\""),
        20,
        "flow[0].tcp.rtt_tick_phase",
        "has no effect without rtt_tick",
    );
}

/// A scenario file is read to `MAX_SCENARIO_FILE_BYTES` and no further:
/// `/dev/zero` was read until memory ran out, and a file one byte over
/// the limit is refused in one line naming it and the limit.
#[test]
fn a_file_is_read_to_a_bound() {
    use airtcp_core::scenario::MAX_SCENARIO_FILE_BYTES;

    #[cfg(unix)]
    {
        let e = Scenario::from_path("/dev/zero").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("/dev/zero: {}", airtcp_core::scenario::too_large_message())
        );
    }
    let dir = std::env::temp_dir().join(format!("airtcp-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.toml");
    let f = std::fs::File::create(&path).unwrap();
    f.set_len(MAX_SCENARIO_FILE_BYTES + 1).unwrap();
    let e = Scenario::from_path(&path).unwrap_err();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(e.line, None);
    assert!(e.to_string().contains("larger than 32 MB"), "{e}");
    assert!(
        e.to_string().starts_with(&path.display().to_string()),
        "{e}"
    );
}

#[test]
fn a_file_that_is_not_utf8_names_its_line() {
    let dir = std::env::temp_dir().join(format!("airtcp-utf8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bin.toml");
    std::fs::write(&path, b"[simulation]\nduration = \"\xff\"\n").unwrap();
    let e = Scenario::from_path(&path).unwrap_err();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(e.line, Some(2), "{e}");
    assert!(e.to_string().ends_with("file is not valid UTF-8"), "{e}");
}

#[test]
fn missing_file() {
    let e = Scenario::from_path("/nonexistent/x.toml").unwrap_err();
    assert_eq!(e.line, None);
    assert!(
        e.to_string()
            .starts_with("/nonexistent/x.toml: cannot read file"),
        "{e}"
    );
}

#[test]
fn fields_that_do_not_fit_the_kind() {
    check(
        &err_with("per = 0.01", "ber = 0.01"),
        15,
        "link[1].a_to_b.error.ber",
        "not used by kind \"bernoulli\"",
    );
    check(
        &err_with("per = 0.01", "applies_to = \"data\""),
        15,
        "link[1].a_to_b.error",
        "kind \"bernoulli\" needs `per`",
    );
    check(
        &err_with("{ kind = \"bulk\" }", "{ kind = \"file\" }"),
        21,
        "flow[0].app",
        "kind \"file\" needs `size`",
    );
    check(
        &err_with(
            "{ kind = \"bulk\" }",
            "{ kind = \"bulk\", size = \"10KB\" }",
        ),
        21,
        "flow[0].app.size",
        "not used by kind \"bulk\"",
    );
}

#[test]
fn degenerate_values() {
    let ge = r#"{ kind = "gilbert_elliott", mean_good = "0s", mean_bad = "1s" }"#;
    check(
        &err_with(r#"{ kind = "bernoulli", per = 0.01 }"#, ge),
        15,
        "link[1].a_to_b.error.mean_good",
        "at least 1us",
    );
    let q = "delay = \"2ms\"\nqueue = { kind = \"droptail\", limit = \"0pkt\" }";
    check(
        &err_with("delay = \"2ms\"", q),
        9,
        "link[0].queue.limit",
        "at least 1 packet",
    );
    let red = "delay = \"2ms\"\nqueue = { kind = \"red\", limit = \"50pkt\", min_th = 5, max_th = 15, weight = 0 }";
    check(
        &err_with("delay = \"2ms\"", red),
        9,
        "link[0].queue.weight",
        "must be in (0, 1]",
    );
    let ts = format!("{GOOD}\n[output]\ntimeseries = {{ interval = \"0s\" }}\n");
    check(
        &err(&ts),
        24,
        "output.timeseries.interval",
        "must be at least 1us",
    );
}

#[test]
fn section_tables_point_at_the_value() {
    let text = GOOD.replacen(
        "a_to_b = { error = { kind = \"bernoulli\", per = 0.01 } }\n",
        "",
        1,
    ) + "\n[link.error]\nkind = \"bernoulli\"\nper = 1.5\n";
    // [link.error] extends the last [[link]] (index 1).
    check(&err(&text), 24, "link[1].error.per", "outside [0, 1]");
}

#[test]
fn numbers_with_exponents() {
    let sc =
        Scenario::from_toml_str(&GOOD.replacen("\"10Mbps\"", "\"1e7bps\"", 1), "e.toml").unwrap();
    assert_eq!(sc.file.link[0].rate.0, 10_000_000);
}

/// `cc = "cubic"` is the table `{ kind = "cubic" }`; CUBIC's parameters
/// are checked against RFC 9438's meaning of them.
#[test]
fn cubic_cc_by_name_or_table_with_checked_parameters() {
    let tcp = "tcp = { variant = \"newreno\", sack = true }";
    for ok in [
        "tcp = { variant = \"sack\", cc = \"cubic\" }",
        "tcp = { variant = \"sack\", cc = { kind = \"cubic\", beta = 0.7, c = 0.4, fast_convergence = true } }",
    ] {
        Scenario::from_toml_str(&GOOD.replace(tcp, ok), "good.toml").unwrap();
    }
    for (cc, field, words) in [
        ("\"cubik\"", "flow[0].tcp.cc", "unknown variant `cubik`"),
        (
            "{ kind = \"cubic\", beta = 1.0 }",
            "flow[0].tcp.cc.beta",
            "below 1",
        ),
        (
            "{ kind = \"cubic\", beta = 0 }",
            "flow[0].tcp.cc.beta",
            "above 0",
        ),
        (
            "{ kind = \"cubic\", c = 0 }",
            "flow[0].tcp.cc.c",
            "positive",
        ),
        (
            "{ kind = \"cubic\", c = -0.4 }",
            "flow[0].tcp.cc.c",
            "positive",
        ),
        (
            "{ kind = \"cubic\", c = nan }",
            "flow[0].tcp.cc.c",
            "positive",
        ),
        (
            "{ kind = \"cubic\", tau = \"1s\" }",
            "flow[0].tcp.cc.tau",
            "cubic",
        ),
        (
            "{ kind = \"reno\", beta = 0.7 }",
            "flow[0].tcp.cc.beta",
            "reno",
        ),
        (
            "{ kind = \"cubic\", fast_convergence = 1 }",
            "flow[0].tcp.cc.fast_convergence",
            "expected true or false, found 1",
        ),
    ] {
        let bad = format!("tcp = {{ variant = \"sack\", cc = {cc} }}");
        check(&err_with(tcp, &bad), 20, field, words);
    }
}

/// GOOD's flow with each TCP table of `ok` is accepted; with each of
/// `bad`, one line naming `field` and containing the words given.
fn tcp_tables_accepted_and_refused(ok: &[&str], bad: &[(&str, &str)], field: &str) {
    let tcp = "tcp = { variant = \"newreno\", sack = true }";
    for ok in ok {
        Scenario::from_toml_str(&GOOD.replace(tcp, ok), "good.toml").unwrap();
    }
    for (bad, words) in bad {
        check(&err_with(tcp, bad), 20, field, words);
    }
}

/// `loss_detection = "rack_tlp"` and `"rack"` (RACK without the tail loss
/// probe) need SACK (RFC 8985 §4): a SACK variant or `sack = true`;
/// anything else is one line naming the field.
#[test]
fn rack_tlp_needs_sack() {
    tcp_tables_accepted_and_refused(
        &[
            "tcp = { variant = \"sack\", loss_detection = \"rack_tlp\" }",
            "tcp = { variant = \"sack\", cc = \"cubic\", loss_detection = \"rack_tlp\" }",
            "tcp = { variant = \"newreno\", sack = true, loss_detection = \"rack_tlp\" }",
            "tcp = { variant = \"sack\", loss_detection = \"rack\" }",
            "tcp = { variant = \"newreno\", loss_detection = \"dupack\" }",
        ],
        &[
            (
                "tcp = { variant = \"newreno\", loss_detection = \"rack_tlp\" }",
                "\"rack_tlp\" needs SACK",
            ),
            (
                "tcp = { variant = \"reno\", loss_detection = \"rack_tlp\" }",
                "needs SACK",
            ),
            (
                "tcp = { variant = \"reno\", loss_detection = \"rack\" }",
                "\"rack\" needs SACK",
            ),
            (
                "tcp = { variant = \"sack\", loss_detection = \"tlp\" }",
                "unknown variant `tlp`",
            ),
        ],
        "flow[0].tcp.loss_detection",
    );
}

/// `slow_start`: "rfc5681" (the default) or "hystart++" (RFC 9406), with
/// any controller and timestamps (an RTT sample per ACK: §4.2 needs 8 per
/// round); anything else is one line naming the field.
#[test]
fn slow_start_is_rfc5681_or_hystart() {
    tcp_tables_accepted_and_refused(
        &[
            "tcp = { variant = \"sack\", cc = \"cubic\", timestamps = true, slow_start = \"hystart++\" }",
            "tcp = { variant = \"newreno\", timestamps = true, slow_start = \"hystart++\" }",
            "tcp = { variant = \"reno\", cc = \"westwood\", slow_start = \"rfc5681\" }",
        ],
        &[
            (
                "tcp = { variant = \"sack\", slow_start = \"hystart\" }",
                "unknown variant `hystart`, expected `rfc5681` or `hystart++`",
            ),
            (
                "tcp = { variant = \"sack\", slow_start = true }",
                "expected a name in quotes or a table, found true",
            ),
            (
                "tcp = { variant = \"sack\", cc = \"cubic\", slow_start = \"hystart++\" }",
                "needs timestamps = true",
            ),
        ],
        "flow[0].tcp.slow_start",
    );
}

/// The RTT-threshold classifier's `before_rtt_sample` (what a loss before
/// the first RTT sample is; Teng & Chang are silent): "corruption" or
/// "congestion"; anything else is one line naming the field.
#[test]
fn classifier_before_rtt_sample_is_corruption_or_congestion() {
    let threshold = "classifier = { kind = \"rtt_threshold\", ticks_above_base = 2";
    tcp_tables_accepted_and_refused(
        &[
            &format!("tcp = {{ variant = \"reno\", {threshold} }} }}"),
            &format!("tcp = {{ variant = \"reno\", {threshold}, before_rtt_sample = \"corruption\" }} }}"),
            &format!("tcp = {{ variant = \"reno\", {threshold}, before_rtt_sample = \"congestion\" }} }}"),
        ],
        &[
            (
                &format!("tcp = {{ variant = \"reno\", {threshold}, before_rtt_sample = \"wireless\" }} }}"),
                "unknown variant `wireless`, expected `corruption` or `congestion`",
            ),
            (
                &format!("tcp = {{ variant = \"reno\", {threshold}, before_rtt_sample = true }} }}"),
                "expected a name in quotes or a table, found true",
            ),
        ],
        "flow[0].tcp.classifier.before_rtt_sample",
    );
}

/// RFC 6675's options (`rescue_retransmission`, NextSeg rule (4);
/// `restart_rto_on_recovery_retransmission`, §6) act only in SACK loss
/// recovery: turned on without SACK they would do nothing, so they are
/// refused, one line naming the field.
#[test]
fn rfc6675_options_need_sack() {
    let tcp = "tcp = { variant = \"newreno\", sack = true }";
    for field in [
        "rescue_retransmission",
        "restart_rto_on_recovery_retransmission",
    ] {
        for ok in [
            format!("tcp = {{ variant = \"sack\", {field} = true }}"),
            format!("tcp = {{ variant = \"newreno\", sack = true, {field} = true }}"),
            format!("tcp = {{ variant = \"newreno\", {field} = false }}"),
        ] {
            Scenario::from_toml_str(&GOOD.replace(tcp, &ok), "good.toml").unwrap();
        }
        for variant in ["newreno", "reno"] {
            let bad = format!("tcp = {{ variant = \"{variant}\", {field} = true }}");
            check(
                &err_with(tcp, &bad),
                20,
                &format!("flow[0].tcp.{field}"),
                "has no effect without SACK",
            );
        }
    }
}

/// RFC 9937 PRR (`proportional_rate_reduction`) paces fast recovery, with
/// SACK (RFC 6675, RACK-TLP) or without (Reno, NewReno: §6.2's estimates
/// from duplicate ACKs). Tahoe has none (a fast retransmit, then slow
/// start from one segment): nothing for the option to act on, so it is
/// refused there, one line naming the field and the reason.
#[test]
fn rfc9937_prr_needs_fast_recovery() {
    let tcp = "tcp = { variant = \"newreno\", sack = true }";
    for ok in [
        "tcp = { variant = \"sack\", proportional_rate_reduction = true }",
        "tcp = { variant = \"newreno\", sack = true, proportional_rate_reduction = true }",
        "tcp = { variant = \"newreno\", sack = true, loss_detection = \"rack_tlp\", proportional_rate_reduction = true }",
        "tcp = { variant = \"reno\", proportional_rate_reduction = true }",
        "tcp = { variant = \"newreno\", proportional_rate_reduction = true }",
        "tcp = { variant = \"reno\", reno_one_fast_retransmit_per_window = true, proportional_rate_reduction = true }",
        "tcp = { variant = \"tahoe\", proportional_rate_reduction = false }",
    ] {
        Scenario::from_toml_str(&GOOD.replace(tcp, ok), "good.toml").unwrap();
    }
    check(
        &err_with(
            tcp,
            "tcp = { variant = \"tahoe\", proportional_rate_reduction = true }",
        ),
        20,
        "flow[0].tcp.proportional_rate_reduction",
        "is not offered with Tahoe, which has no fast recovery",
    );
}

/// Every field we accept has an effect: a TCP field that its flow's other
/// settings leave with nothing to act on is refused, one line naming it,
/// and the same field where it acts is accepted.
#[test]
fn tcp_fields_with_nothing_to_act_on_are_refused() {
    // The delayed-ACK timer and count belong to a receiver that delays ACKs.
    for field in ["delack_timeout = \"100ms\"", "delack_segments = 3"] {
        let name = field.split(' ').next().unwrap();
        tcp_tables_accepted_and_refused(
            &[&format!("tcp = {{ variant = \"newreno\", {field} }}")],
            &[(
                &format!("tcp = {{ variant = \"newreno\", delayed_ack = false, {field} }}"),
                "has no effect with delayed_ack = false",
            )],
            &format!("flow[0].tcp.{name}"),
        );
    }
    // DCLOR §6's rule is read only by the DCLOR response.
    tcp_tables_accepted_and_refused(
        &[
            "tcp = { variant = \"sack\", timeout_response = \"dclor\", dclor_requires_sack_block = false }",
        ],
        &[
            (
                "tcp = { variant = \"sack\", dclor_requires_sack_block = false }",
                "has no effect without timeout_response = \"dclor\"",
            ),
            (
                "tcp = { variant = \"sack\", timeout_response = \"eifel\", timestamps = true, dclor_requires_sack_block = true }",
                "has no effect without timeout_response = \"dclor\"",
            ),
        ],
        "flow[0].tcp.dclor_requires_sack_block",
    );
    // ns-2's bug_fix_ is a rule of Reno's own recovery: NewReno, SACK
    // recovery (RFC 6675) and Tahoe never read it.
    tcp_tables_accepted_and_refused(
        &[
            "tcp = { variant = \"reno\", reno_one_fast_retransmit_per_window = true }",
            "tcp = { variant = \"newreno\", reno_one_fast_retransmit_per_window = false }",
        ],
        &[
            (
                "tcp = { variant = \"newreno\", reno_one_fast_retransmit_per_window = true }",
                "rule of Reno's recovery without SACK",
            ),
            (
                "tcp = { variant = \"reno\", sack = true, reno_one_fast_retransmit_per_window = true }",
                "rule of Reno's recovery without SACK",
            ),
            (
                "tcp = { variant = \"tahoe\", reno_one_fast_retransmit_per_window = true }",
                "rule of Reno's recovery without SACK",
            ),
        ],
        "flow[0].tcp.reno_one_fast_retransmit_per_window",
    );
    // Tahoe leaves no fast recovery for a timeout to interrupt.
    tcp_tables_accepted_and_refused(
        &["tcp = { variant = \"reno\", timeout_in_recovery_ssthresh = \"flight_size\" }"],
        &[(
            "tcp = { variant = \"tahoe\", timeout_in_recovery_ssthresh = \"keep\" }",
            "has no effect with Tahoe",
        )],
        "flow[0].tcp.timeout_in_recovery_ssthresh",
    );
    // A fixed kick interval needs no estimate before the first RTT sample.
    tcp_tables_accepted_and_refused(
        &["tcp = { variant = \"reno\", kick = { interval = \"rtt\", before_sample = \"150ms\" } }"],
        &[(
            "tcp = { variant = \"reno\", kick = { interval = \"150ms\", before_sample = \"150ms\" } }",
            "only used with interval = \"rtt\"",
        )],
        "flow[0].tcp.kick.before_sample",
    );
    // variant = "sack" is SACK recovery; sack = false would be overruled.
    tcp_tables_accepted_and_refused(
        &[
            "tcp = { variant = \"sack\", sack = true }",
            "tcp = { variant = \"reno\", sack = false }",
        ],
        &[("tcp = { variant = \"sack\", sack = false }", "contradicts")],
        "flow[0].tcp.sack",
    );
}
