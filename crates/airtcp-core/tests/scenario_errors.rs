//! Every class of user mistake yields one line naming file, line and field.

use airtcp_core::scenario::{Scenario, ScenarioError};

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

fn err(text: &str) -> ScenarioError {
    match Scenario::from_toml_str(text, "bad.toml") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

/// Replace `from` in GOOD (which must occur) and return the error.
fn err_with(from: &str, to: &str) -> ScenarioError {
    assert!(GOOD.contains(from), "{from}");
    err(&GOOD.replacen(from, to, 1))
}

fn check(e: &ScenarioError, line: usize, field: &str, words: &str) {
    let text = e.to_string();
    assert!(!text.contains('\n'), "not one line: {text}");
    assert_eq!(e.file, "bad.toml", "{text}");
    assert_eq!(e.line, Some(line), "{text}");
    assert_eq!(e.field, field, "{text}");
    assert!(text.contains(words), "{text:?} lacks {words:?}");
    assert!(
        text.starts_with(&format!("bad.toml:{line}: {field}: ")),
        "{text}"
    );
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
    // The tagged error table is buffered by serde, so the path stops at the
    // table; the line and the message name the value.
    check(
        &err_with("per = 0.01", "per = 1.5"),
        15,
        "link[1].a_to_b.error",
        "probability 1.5 is outside [0, 1]",
    );
    check(
        &err_with("per = 0.01", "per = -0.1"),
        15,
        "link[1].a_to_b.error",
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
