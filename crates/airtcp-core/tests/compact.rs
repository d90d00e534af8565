//! Compact topologies (`count`, `{i}`, `stagger`; docs/scenario.md): a
//! counted table is exactly its members written out, and a mistake still
//! names the member and the line in its table.

mod common;
use airtcp_core::scenario::Scenario;
use common::{check_scenario_err as check, scenario, scenario_err as err};

const COMPACT: &str = r#"[simulation]
duration = "3s"
seed = 4

[[link]]
count = 3
a = "s{i}"
b = "R1"
rate = "100Mbps"
delay = "1ms"

[[link]]
a = "R1"
b = "R2"
rate = "10Mbps"
delay = "10ms"
queue = { kind = "red", limit = "60pkt", min_th = 5, max_th = 20, max_p = 0.1 }

[[link]]
count = 3
a = "R2"
b = "d{i}"
rate = "100Mbps"
delay = "1ms"

[[flow]]
count = 3
name = "f{i}"
from = "s{i}"
to = "d{i}"
start = "1ms"
stagger = "100ms"
app = { kind = "bulk" }
"#;

/// COMPACT with every member written out by hand.
fn written_out() -> String {
    let mut t = String::from("[simulation]\nduration = \"3s\"\nseed = 4\n");
    for i in 0..3 {
        t += &format!("[[link]]\na = \"s{i}\"\nb = \"R1\"\nrate = \"100Mbps\"\ndelay = \"1ms\"\n");
    }
    t += "[[link]]\na = \"R1\"\nb = \"R2\"\nrate = \"10Mbps\"\ndelay = \"10ms\"\n";
    t += "queue = { kind = \"red\", limit = \"60pkt\", min_th = 5, max_th = 20, max_p = 0.1 }\n";
    for i in 0..3 {
        t += &format!("[[link]]\na = \"R2\"\nb = \"d{i}\"\nrate = \"100Mbps\"\ndelay = \"1ms\"\n");
    }
    for (i, start) in ["1ms", "101ms", "201ms"].iter().enumerate() {
        t += &format!(
            "[[flow]]\nname = \"f{i}\"\nfrom = \"s{i}\"\nto = \"d{i}\"\nstart = \"{start}\"\napp = {{ kind = \"bulk\" }}\n"
        );
    }
    t
}

#[test]
fn a_counted_table_is_its_members_written_out() {
    let compact = scenario(COMPACT).run(None).unwrap();
    let long = scenario(&written_out()).run(None).unwrap();
    assert_eq!(compact, long);
    let names: Vec<&str> = compact.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["f0", "f1", "f2"]);
    assert_eq!(compact.flows[2].start_s, 0.201);
    assert_eq!(compact.links.len(), 14);
    assert!(compact.flows.iter().all(|f| f.delivered_bytes > 0));
}

#[test]
fn errors_name_the_member_and_the_line_in_its_table() {
    // No node is named d0x: the flow table's first member is wrong.
    let e = err(&COMPACT.replace("to = \"d{i}\"", "to = \"d{i}x\""));
    check(&e, 30, "flow[0][i=0].to", "unknown node \"d0x\"");
    // A table after a counted one keeps its own number in the file.
    let e = err(&COMPACT.replace("limit = \"60pkt\"", "limit = \"0pkt\""));
    check(&e, 17, "link[1].queue.limit", "at least 1 packet");
    // A mistake in a member of the second counted link table.
    let e = err(&COMPACT.replace("b = \"d{i}\"", "b = \"R2\""));
    check(&e, 22, "link[2][i=0].b", "itself");
}

#[test]
fn count_mistakes_are_errors() {
    let e = err(&COMPACT.replacen("count = 3", "count = 0", 1));
    check(&e, 6, "link[0].count", "at least 1");
    let e = err(&COMPACT.replacen("count = 3", "count = 2000000", 1));
    check(&e, 6, "link[0].count", "at most 1000000");
    let e = err(&COMPACT.replacen("count = 3\n", "", 1));
    check(&e, 6, "link[0].a", "needs a count");
    let e = err(&COMPACT.replace("count = 3\nname", "name"));
    check(&e, 28, "flow[0].from", "needs a count");
    let e = err(&COMPACT.replace(
        "count = 3\nname = \"f{i}\"\nfrom = \"s{i}\"\nto = \"d{i}\"",
        "from = \"s1\"\nto = \"d1\"",
    ));
    check(&e, 30, "flow[0].stagger", "needs a count");
    let node = "[[node]]\ncount = 2\nname = \"R1\"\nagents = [{ kind = \"kick\" }]\n";
    let e = err(&COMPACT.replace(
        "[[link]]\ncount = 3\na = \"s{i}\"",
        &format!("{node}[[link]]\ncount = 3\na = \"s{{i}}\""),
    ));
    check(&e, 7, "node[0].name", "needs \"{i}\"");
}

#[test]
fn ten_thousand_flow_dumbbell_example_is_short_and_complete() {
    let path = format!(
        "{}/../../examples/dumbbell-10k.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.lines().count() < 40);
    let (sc, world) = Scenario::load(&text, &path, None).unwrap();
    assert_eq!(world.nodes.len(), 20_002);
    assert_eq!(sc.file.link.len(), 3); // kept compact
    assert_eq!(sc.link_count(), 20_001);
    assert_eq!(sc.flow_count(), 10_000);
    assert_eq!(world.links.len(), 40_002);
    assert_eq!(world.flows[9_999].name, "f9999");
    assert_eq!(world.flows[9_999].start_ns, 9_999 * 100_000);
}

/// The chain n0 - ... - n4 that `links` writes, with one flow end to end.
fn chain(links: &str) -> String {
    format!(
        "[simulation]\nduration = \"2s\"\n{links}[[flow]]\nfrom = \"n0\"\nto = \"n4\"\napp = {{ kind = \"bulk\" }}\n"
    )
}

#[test]
fn offsets_in_names_write_a_chain() {
    let compact = chain(
        "[[link]]\ncount = 4\na = \"n{i}\"\nb = \"n{i+1}\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\n",
    );
    let mut links = String::new();
    for i in 0..4 {
        links += &format!(
            "[[link]]\na = \"n{i}\"\nb = \"n{}\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\n",
            i + 1
        );
    }
    let a = scenario(&compact).run(None).unwrap();
    assert_eq!(a, scenario(&chain(&links)).run(None).unwrap());
    assert_eq!(a.links[6].name, "n3->n4");
    // {i-K} counts down; the same chain backwards.
    let down = chain(
        "[[link]]\ncount = 4\na = \"n{i+1}\"\nb = \"n{i-0}\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\n",
    );
    assert_eq!(scenario(&down).run(None).unwrap().links[0].name, "n1->n0");
}

#[test]
fn malformed_or_negative_placeholders_are_errors() {
    let link = |b: &str| {
        chain(&format!(
            "[[link]]\ncount = 4\na = \"n{{i}}\"\nb = \"{b}\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\n"
        ))
    };
    let e = err(&link("n{i-1}"));
    check(
        &e,
        6,
        "link[0][i=0].b",
        "\"{i-1}\" is negative for member i=0",
    );
    let e = err(&link("n{i*2}"));
    check(
        &e,
        6,
        "link[0][i=0].b",
        "\"{i*2}\": a placeholder is {i}, {i+K} or {i-K}",
    );
    let e = err(&link("n{i+}"));
    check(&e, 6, "link[0][i=0].b", "a placeholder is");
    let e = err(&link("n{i+1"));
    check(&e, 6, "link[0][i=0].b", "\"{i+1\": a placeholder is");
    // A name with "{i" and no count is a mistake, whatever follows.
    let e = err(&chain(
        "[[link]]\na = \"n{id}\"\nb = \"n4\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\n",
    ));
    check(&e, 4, "link[0].a", "needs a count");
}
