//! What docs/scenario.md says of fields the audit of the page against the
//! parser found the code to contradict: each test states the page's
//! sentence and checks the code does what it says.

mod common;
use airtcp_core::scenario::observe::ObserveRequest;
use common::{check_scenario_err as check, one_link, scenario, scenario_err as err};

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

/// The scenario file is TOML, and TOML 1.0 ("Table") lets a file leave
/// out a super-table ("you don't need to specify all the super-tables if
/// you don't want to") and make tables with dotted keys. `[flow.tcp.kick]`
/// in a `[[flow]]` without `[flow.tcp]`, or `tcp.variant = "sack"`, is the
/// same flow as the inline tables: it was refused with "invalid type:
/// string "kick", expected a borrowed string".
#[test]
fn implicit_parent_tables_are_the_tables_they_stand_for() {
    let head = "[simulation]\nduration = \"3s\"\n\n[[link]]\na = \"A\"\nb = \"B\"\n\
        rate = \"10Mbps\"\ndelay = \"10ms\"\nerror = { kind = \"bernoulli\", per = 0.02 }\n\n\
        [[flow]]\nfrom = \"A\"\nto = \"B\"\n";
    let inline = format!(
        "{head}app = {{ kind = \"bulk\" }}\n\
         tcp = {{ variant = \"sack\", kick = {{ interval = \"50ms\", ttl = 2 }} }}\n"
    );
    let forms = [
        // The parent's header after its child's.
        format!(
            "{head}app = {{ kind = \"bulk\" }}\n\n[flow.tcp.kick]\ninterval = \"50ms\"\nttl = 2\n\n\
             [flow.tcp]\nvariant = \"sack\"\n"
        ),
        // Dotted keys, then a sub-table of the table they made.
        format!(
            "{head}app.kind = \"bulk\"\ntcp.variant = \"sack\"\n\n\
             [flow.tcp.kick]\ninterval = \"50ms\"\nttl = 2\n"
        ),
        // Dotted keys only.
        format!(
            "{head}app.kind = \"bulk\"\ntcp.variant = \"sack\"\ntcp.kick.interval = \"50ms\"\n\
             tcp.kick.ttl = 2\n"
        ),
    ];
    let expected = scenario(&inline).run(None).unwrap();
    assert!(expected.flows[0].timeouts + expected.flows[0].fast_retransmits > 0);
    for form in &forms {
        let sc = scenario(form);
        let tcp = sc.file.flow[0].tcp.as_ref().expect("a tcp table").get_ref();
        let kick = tcp.kick.as_ref().expect("a kick table");
        assert_eq!(
            (kick.interval.get_ref().as_str(), kick.ttl),
            ("50ms", Some(2))
        );
        // Debug: the results hold NaN (no RTO sampled), which == refuses.
        let run = sc.run(None).unwrap();
        assert_eq!(format!("{run:?}"), format!("{expected:?}"), "{form}");
    }
    // A mistake in such a table is one line at the field.
    let bad =
        format!("{head}app.kind = \"bulk\"\n\n[flow.tcp.kick]\ninterval = \"50ms\"\nttl = 0\n");
    check(&err(&bad), 18, "flow[0].tcp.kick.ttl", "must be");
    let bad = format!("{head}app.kind = \"bulk\"\ntcp.mss = \"0B\"\n");
    check(&err(&bad), 15, "flow[0].tcp.mss", "must be between");
    let bad = format!("{head}app.kind = \"bulk\"\n\n[flow.tcp.kikc]\ninterval = \"50ms\"\n");
    check(&err(&bad), 16, "flow[0].tcp.kikc", "unknown field `kikc`");
}

/// docs/scenario.md, `[[link]]`: `a_to_b` and `b_to_a` are per-direction
/// overrides, "`rate`, `delay`, `queue`, `error`, each replacing the
/// link's for that direction". An empty table replaces nothing: it was
/// accepted and did nothing.
#[test]
fn an_empty_direction_table_is_refused() {
    for which in ["a_to_b", "b_to_a"] {
        let text = one_link("", &format!("{which} = {{}}"), "", "");
        check(
            &err(&text),
            9,
            &format!("link[0].{which}"),
            "overrides nothing",
        );
    }
}

/// docs/scenario.md, `[[flow]]`: `name` is the flow's "name in results,
/// unique among the flows", and `[trace] flows` names flows by it. An
/// empty or blank name labels nothing a reader can see and nothing a
/// field can name (a node's name is refused likewise); members of a
/// counted table whose names are the same are refused at the member.
#[test]
fn an_empty_flow_name_and_names_repeated_by_count_are_refused() {
    for name in ["", " "] {
        let text = one_link("", "", "", "")
            .replace("[[flow]]\n", &format!("[[flow]]\nname = \"{name}\"\n"));
        check(&err(&text), 11, "flow[0].name", "must not be empty");
    }
    let counted =
        one_link("", "", "", "").replace("[[flow]]\n", "[[flow]]\ncount = 2\nname = \"f\"\n");
    check(
        &err(&counted),
        12,
        "flow[0][i=1].name",
        "\"f\" is already the name of flow[0][i=0]",
    );
    // Two node tables declaring one node: the second's agents were silently
    // added to the first's node.
    let nodes = one_link("", "", "", "").replace(
        "[[link]]\n",
        "[[node]]\ncount = 2\nname = \"n{i}\"\n\n[[node]]\nname = \"n1\"\nagents = [{ kind = \"snoop\" }]\n\n[[link]]\n",
    );
    check(
        &err(&nodes),
        9,
        "node[1].name",
        "\"n1\" is already declared by node[0][i=1]",
    );
}

/// docs/scenario.md, Bounds: "Every timer, window and count has a range;
/// a value outside it is an error naming the field". `kick.ttl` is "an
/// integer from 1 to 255": 256 was refused in serde's words ("invalid value:
/// integer `256`, expected u8"), and so were the negative or too large
/// values of the other integer fields ("expected u32").
#[test]
fn integer_fields_out_of_range_say_their_range() {
    for (tcp, field, words) in [
        (
            r#"kick = { interval = "rtt", ttl = 256 }"#,
            "kick.ttl",
            "from 1 to 255",
        ),
        (
            r#"kick = { interval = "rtt", ttl = -1 }"#,
            "kick.ttl",
            "from 1 to 255",
        ),
        ("initial_cwnd = -1", "initial_cwnd", "at least 1 segment"),
        ("initial_cwnd = 4294967296", "initial_cwnd", "at most"),
        ("dupthresh = -1", "dupthresh", "from 1 to 4294967295"),
        (
            "delack_segments = 4294967296",
            "delack_segments",
            "from 1 to 4294967295",
        ),
        ("max_backoff = -3", "max_backoff", "from 1 to 4294967295"),
    ] {
        let e = err(&one_link("", "", tcp, ""));
        check(&e, 13, &format!("flow[0].tcp.{field}"), words);
        assert!(!e.message.contains("expected"), "{e}");
    }
    for (link, field, words) in [
        (
            r#"error = { kind = "drop_list", packets = [-1] }"#,
            "link[0].error.packets",
            "counted from 1",
        ),
        // Every field has an effect: a packet listed a second time drops
        // nothing more (scenario.md: "exactly the listed packets").
        (
            r#"error = { kind = "drop_list", packets = [7, 3, 7] }"#,
            "link[0].error.packets",
            "packet 7 is listed twice",
        ),
        (
            r#"a_to_b = { queue = { kind = "droptail", limit = "5pkt" } }
               [[node]]
               name = "A"
               agents = [{ kind = "arq", peer = "B", retries = -1 }]"#,
            "node[0].agents[0].retries",
            "from 0 to 255",
        ),
    ] {
        let e = err(&one_link("", link, "", ""));
        assert_eq!(e.field, field, "{e}");
        assert!(
            e.message.contains(words) && !e.message.contains("expected"),
            "{e}"
        );
    }
    let e = err(&one_link(
        "",
        "",
        "classifier = { kind = \"rtt_threshold\", ticks_above_base = -1 }",
        "",
    ));
    assert_eq!(e.field, "flow[0].tcp.classifier.ticks_above_base", "{e}");
    assert!(
        e.message.contains("from 0 to") && !e.message.contains("expected"),
        "{e}"
    );
    let repeated = one_link("", "", "", "").replace(
        "app = { kind = \"bulk\" }",
        "app = { kind = \"repeated\", size = \"10kB\", think = \"1s\", count = -1 }",
    );
    check(&err(&repeated), 14, "flow[0].app.count", "at least 1");
    for ttl in ["-1", "4294967296"] {
        let e = err(&one_link(&format!("ttl = {ttl}"), "", "", ""));
        check(&e, 3, "simulation.ttl", "must be from 1 to 255");
    }
}

/// docs/scenario.md, `[[flow]]`: `stop` is the "end of the active
/// interval", default the end of the run. A stop at or after the end of
/// the run stops nothing: it was accepted without effect (a 100 s stop in a
/// 10 s run).
#[test]
fn a_stop_at_or_after_the_end_of_the_run_is_refused() {
    for stop in ["10s", "100s"] {
        let text = one_link("", "", "", "")
            .replace("[[flow]]\n", &format!("[[flow]]\nstop = \"{stop}\"\n"));
        check(
            &err(&text),
            11,
            "flow[0].stop",
            "not before the end of the run (10s)",
        );
    }
    scenario(&one_link("", "", "", "").replace("[[flow]]\n", "[[flow]]\nstop = \"9s\"\n"));
}

/// docs/scenario.md, `[[node]]`: "Declare a node to put middlebox agents on
/// it." A declared node on no link sees no packet, nor do its agents: it was
/// accepted, its agents reporting zeros.
#[test]
fn a_declared_node_on_no_link_is_refused() {
    let text = one_link("", "", "", "").replace(
        "[[link]]\n",
        "[[node]]\nname = \"X\"\nagents = [{ kind = \"snoop\" }]\n\n[[link]]\n",
    );
    check(&err(&text), 5, "node[0].name", "\"X\" is on no [[link]]");
}

/// docs/scenario.md, agents: `arq` "keeps each TCP data segment the
/// wireless link transmits until the `dda` agent at `peer` link-ACKs it";
/// `dda`'s `peer` is "the base station running `arq`". An arq without its
/// dda was accepted and retransmitted every frame (on one 10 Mb/s link,
/// goodput fell from 9.0 to 3.0 Mb/s); a dda without its arq sent link ACKs
/// nothing read.
#[test]
fn arq_and_dda_need_each_other() {
    let with = |agents: &str| {
        one_link("", "", "", "").replace("[[link]]\n", &format!("{agents}\n[[link]]\n"))
    };
    let arq = "[[node]]\nname = \"A\"\nagents = [{ kind = \"arq\", peer = \"B\" }]\n";
    let dda = "[[node]]\nname = \"B\"\nagents = [{ kind = \"dda\", peer = \"A\" }]\n";
    check(
        &err(&with(arq)),
        6,
        "node[0].agents[0]",
        "needs a dda agent at its peer \"B\"",
    );
    check(
        &err(&with(dda)),
        6,
        "node[0].agents[0]",
        "needs a arq agent at its peer \"A\"",
    );
    scenario(&with(&format!("{arq}\n{dda}")));
}

/// docs/scenario.md, Queue tables: `min_th`, `max_th` are "thresholds, in
/// packets of the average queue", and the average is a moving average of
/// the queue, which a limit in packets bounds. A `min_th` at or above the
/// limit is never reached: the queue never marks or drops early, and was
/// accepted as a RED queue that acts as a DropTail one.
#[test]
fn a_red_min_th_beyond_a_packet_limit_is_refused() {
    for kind in [
        r#"kind = "red", limit = "20pkt", min_th = 20, max_th = 60"#,
        r#"kind = "wmecn", limit = "20pkt", min_th = 25, mid_th = 30, max_th = 40"#,
    ] {
        let text = one_link("", &format!("queue = {{ {kind} }}"), "", "");
        check(&err(&text), 9, "link[0].queue.min_th", "is never reached");
    }
    for fine in [
        r#"kind = "red", limit = "20pkt", min_th = 19.5, max_th = 60"#,
        r#"kind = "red", limit = "20pkt", min_th = 20, max_th = 60, weight = 1"#,
        r#"kind = "red", limit = "2KB", min_th = 20, max_th = 60"#,
    ] {
        scenario(&one_link("", &format!("queue = {{ {fine} }}"), "", ""));
    }
}

/// docs/scenario.md, TCP table: `max_backoff` is the "largest RTO backoff
/// multiplier", and `max_rto` "caps the backed-off timer in any case". The
/// RTO doubles from its base (RFC 6298 (5.5)), which is never below
/// `min_rto` (2.4) nor, before the first sample, `initial_rto` (2.1); so a
/// cap whose largest power of two times that smallest base reaches
/// `max_rto` never stops a doubling that `max_rto` would not: it was
/// accepted without effect (`max_backoff = 1000` with the defaults ran as
/// no cap).
#[test]
fn a_max_backoff_that_can_never_bind_is_refused() {
    // Defaults: the RTO doubles from 1s and reaches 60s at multiplier 64.
    for cap in ["64", "1000", "4294967295"] {
        let e = err(&one_link("", "", &format!("max_backoff = {cap}"), ""));
        check(&e, 13, "flow[0].tcp.max_backoff", "can never act");
        assert!(e.message.contains("at most 63"), "{e}");
    }
    // From 10ms (initial_rto below min_rto) to 640ms: multiplier 64 reaches it.
    let small = r#"initial_rto = "10ms", min_rto = "20ms", max_rto = "640ms", "#;
    let e = err(&one_link("", "", &format!("{small}max_backoff = 64"), ""));
    check(&e, 13, "flow[0].tcp.max_backoff", "at most 63");
    // min_rto = max_rto = initial_rto: the RTO never doubles below max_rto.
    let e = err(&one_link(
        "",
        "",
        r#"min_rto = "60s", initial_rto = "60s", max_backoff = 1"#,
        "",
    ));
    check(&e, 13, "flow[0].tcp.max_backoff", "can never act");
    // The largest value left acts: stopping at 32 (320ms) instead of
    // doubling to 640ms gives more timeouts on a link that loses every
    // data packet.
    let lossy = r#"error = { kind = "bernoulli", per = 1.0, applies_to = "data" }"#;
    let timeouts = |tcp: &str| {
        scenario(&one_link("", lossy, tcp, ""))
            .run(None)
            .unwrap()
            .flows[0]
            .timeouts
    };
    let capped = timeouts(&format!("{small}max_backoff = 63"));
    let free = timeouts(small.trim_end_matches(", "));
    assert!(capped > free, "capped {capped}, no cap {free}");
}

/// docs/scenario.md, Queue tables: thresholds are "in packets of the average
/// queue", 0 ≤ `min_th` < (`mid_th` <) `max_th`. The average is a finite
/// number of packets: an infinite `max_th` (or `mid_th`) is never reached
/// and was accepted, marking never or only at one level; a NaN `min_th` was
/// refused as "must not be negative".
#[test]
fn queue_thresholds_are_finite_increasing_numbers() {
    for (q, field, words) in [
        (
            r#"kind = "red", limit = "50pkt", min_th = 5, max_th = inf"#,
            "max_th",
            "must be a finite number of packets, got inf",
        ),
        (
            r#"kind = "red", limit = "50pkt", min_th = nan, max_th = 10"#,
            "min_th",
            "must be a finite number of packets, got NaN",
        ),
        (
            r#"kind = "red", limit = "50pkt", min_th = -1, max_th = 10"#,
            "min_th",
            "must not be negative",
        ),
        (
            r#"kind = "red", limit = "50pkt", min_th = 5, max_th = 5"#,
            "max_th",
            "must be greater than min_th",
        ),
        (
            r#"kind = "mecn", limit = "50pkt", min_th = 5, mid_th = 10, max_th = inf"#,
            "max_th",
            "got inf",
        ),
        (
            r#"kind = "mecn", limit = "50pkt", min_th = 5, mid_th = inf, max_th = inf"#,
            "mid_th",
            "got inf",
        ),
        (
            r#"kind = "wmecn", limit = "50pkt", min_th = 5, mid_th = 10, max_th = inf"#,
            "max_th",
            "got inf",
        ),
        (
            r#"kind = "wmecn", limit = "50pkt", min_th = 5, mid_th = nan, max_th = 20"#,
            "mid_th",
            "got NaN",
        ),
        (
            r#"kind = "wmecn", limit = "50pkt", min_th = 5, mid_th = 10, max_th = 10"#,
            "max_th",
            "must be greater than mid_th",
        ),
    ] {
        let text = one_link("", &format!("queue = {{ {q} }}"), "", "");
        check(&err(&text), 9, &format!("link[0].queue.{field}"), words);
    }
}

/// docs/scenario.md, Units: a probability or a threshold is a number, a
/// count a whole number. Written as a string it was refused in serde's
/// words ("invalid type: string \"1e-5\", expected f64"); and a queue limit
/// of a fraction of a packet said "from 0 to 4294967295", a range whose 0
/// is refused too.
#[test]
fn a_string_for_a_number_says_what_to_write() {
    for (link, field, words) in [
        (
            r#"error = { kind = "ber", ber = "1e-5" }"#,
            "link[0].error.ber",
            "a number, not a string: write ber = 1e-5 without quotes",
        ),
        (
            r#"queue = { kind = "red", limit = "50pkt", min_th = "5", max_th = 10 }"#,
            "link[0].queue.min_th",
            "write min_th = 5 without quotes",
        ),
        (
            r#"error = { kind = "bernoulli", per = "high" }"#,
            "link[0].error.per",
            "a number, not a string: write it like per = 0.5",
        ),
        (
            r#"queue = { kind = "droptail", limit = "1.5pkt" }"#,
            "link[0].queue.limit",
            "\"1.5pkt\" is not a whole number of packets: write a limit like \"50pkt\" or \"64KB\"",
        ),
    ] {
        let e = err(&one_link("", link, "", ""));
        check(&e, 9, field, words);
        assert!(!e.message.contains("expected f64"), "{e}");
    }
    check(
        &err(&one_link("", "", "dupthresh = \"3\"", "")),
        13,
        "flow[0].tcp.dupthresh",
        "a whole number, not a string: write dupthresh = 3 without quotes",
    );
}

/// RFC 3042 §2: Limited Transmit sends new data on "each of the first two
/// duplicate acknowledgments", those that arrive before the threshold that
/// starts fast retransmit. With `dupthresh = 1` the first duplicate ACK
/// already starts it, so `limited_transmit` (either value) was accepted
/// without effect.
#[test]
fn limited_transmit_with_a_dupthresh_of_one_is_refused() {
    for on in ["true", "false"] {
        let e = err(&one_link(
            "",
            "",
            &format!("dupthresh = 1, limited_transmit = {on}"),
            "",
        ));
        check(
            &e,
            13,
            "flow[0].tcp.limited_transmit",
            "has no effect with dupthresh = 1",
        );
    }
    scenario(&one_link(
        "",
        "",
        "dupthresh = 2, limited_transmit = false",
        "",
    ));
    scenario(&one_link("", "", "dupthresh = 1", ""));
}

/// docs/scenario.md, Error tables: `gilbert_elliott` loses a packet with
/// `loss_good` in the good state and `loss_bad` in the bad one. With the
/// two equal the state never changes a packet's fate (each packet is one
/// draw at that probability, `GilbertElliott::is_lost`), so `mean_good`,
/// `mean_bad`, `loss_rule` and `initial_state` were accepted without
/// effect: the channel is a Bernoulli one.
#[test]
fn a_gilbert_elliott_channel_with_equal_losses_is_refused() {
    let ge = |losses: &str| {
        format!(
            r#"error = {{ kind = "gilbert_elliott", mean_good = "80ms", mean_bad = "20ms", loss_rule = "during", initial_state = "bad"{losses} }}"#
        )
    };
    for (losses, per) in [
        (", loss_good = 0.1, loss_bad = 0.1", "per = 0.1"),
        (", loss_good = 1", "per = 1"),
        (", loss_bad = 0", "per = 0"),
    ] {
        let e = err(&one_link("", &ge(losses), "", ""));
        check(&e, 9, "link[0].error.loss_bad", "the state never changes");
        assert!(e.message.contains(per), "{e}");
    }
    scenario(&one_link(
        "",
        &ge(", loss_good = 0.1, loss_bad = 0.2"),
        "",
        "",
    ));
    scenario(&one_link("", &ge(""), "", ""));
}

/// RFC 3168 §6.1: an ECN-capable sender changes what it does only on an
/// ACK echoing a Congestion Experienced mark, which only a router's active
/// queue sets (§5), and a TCP receiver marks no ACK ECN-capable (§6.1.4).
/// `ecn = true` on a flow whose route there passes no marking queue (RED
/// with `ecn = true`, `mecn`, `wmecn`) was accepted without effect.
#[test]
fn ecn_without_a_marking_queue_on_the_route_is_refused() {
    let red = r#"kind = "red", limit = "50pkt", min_th = 5, max_th = 15"#;
    for link in [
        String::new(),
        format!("queue = {{ {red} }}"),
        // Marking on the way back only: the ACKs are not ECN-capable.
        format!("b_to_a = {{ queue = {{ {red}, ecn = true }} }}"),
    ] {
        let e = err(&one_link("", &link, "ecn = true", ""));
        check(
            &e,
            13,
            "flow[0].tcp.ecn",
            "no queue on the route from \"A\" to \"B\" marks",
        );
    }
    for link in [
        format!("queue = {{ {red}, ecn = true }}"),
        r#"a_to_b = { queue = { kind = "mecn", limit = "50pkt", min_th = 5, mid_th = 10, max_th = 15 } }"#.to_string(),
        r#"a_to_b = { queue = { kind = "wmecn", limit = "50pkt", min_th = 5, mid_th = 10, max_th = 15 } }"#.to_string(),
    ] {
        scenario(&one_link("", &link, "ecn = true", ""));
    }
}

/// docs/scenario.md, `[[link]]`: `delay` is the "one-way propagation
/// delay", and a packet crosses its route's links one after another, so it
/// arrives no sooner than the sum of their delays after it is sent. A flow
/// whose route there has at least the whole run's duration of delay can
/// deliver nothing, whenever it starts and whatever it sends (TCP or UDP,
/// bulk or a finite file): `delay = "10s"` in a 10 s run (most likely a
/// typo for "10ms") was accepted and delivered nothing.
#[test]
fn a_route_slower_than_the_whole_run_is_refused() {
    let long = |link: &str, app: &str| {
        one_link("", link, "", "")
            .replace("delay = \"10ms\"", "delay = \"10s\"")
            .replace("app = { kind = \"bulk\" }", app)
    };
    let bulk = "app = { kind = \"bulk\" }";
    let file = "app = { kind = \"file\", size = \"10kB\" }";
    for app in [bulk, file] {
        check(
            &err(&long("", app)),
            12,
            "flow[0].to",
            "the route from \"A\" to \"B\" has 10s of propagation delay, at least the whole run (simulation.duration = 10s)",
        );
    }
    // UDP: a datagram can no more arrive than a segment.
    let udp = one_link("", "", "", "")
        .replace("delay = \"10ms\"", "delay = \"20s\"")
        .replace("tcp = {  }\n", "")
        .replace(
            "app = { kind = \"bulk\" }",
            "app = { kind = \"onoff\", rate = \"1Mbps\", mean_on = \"1s\", mean_off = \"1s\" }",
        );
    check(&err(&udp), 12, "flow[0].to", "20s of propagation delay");
    // The delays add up along the route; a direction's own delay counts.
    let two_hops = "[simulation]\nduration = \"10s\"\n\n[[link]]\na = \"A\"\nb = \"R\"\n\
        rate = \"10Mbps\"\ndelay = \"6s\"\n\n[[link]]\na = \"R\"\nb = \"B\"\nrate = \"10Mbps\"\n\
        delay = \"4s\"\n\n[[flow]]\nfrom = \"A\"\nto = \"B\"\napp = { kind = \"bulk\" }\n";
    check(
        &err(two_hops),
        18,
        "flow[0].to",
        "has 10s of propagation delay",
    );
    let there = one_link("", "a_to_b = { delay = \"10s\" }", "", "");
    check(
        &err(&there),
        12,
        "flow[0].to",
        "has 10s of propagation delay",
    );
    // Accepted: a route just faster than the run; a flow starting so late
    // that its own packets cannot arrive (it still loads the links it
    // shares: airtcp bench's staggered members); a slow way back only (the
    // data arrives, the ACKs do not).
    scenario(&one_link("", "", "", "").replace("delay = \"10ms\"", "delay = \"9.999s\""));
    scenario(
        &one_link("", "", "", "")
            .replace("delay = \"10ms\"", "delay = \"5s\"")
            .replace("[[flow]]\n", "[[flow]]\nstart = \"9s\"\n"),
    );
    scenario(&one_link("", "b_to_a = { delay = \"10s\" }", "", ""));
}

/// docs/scenario.md, Stalls: every `period` a connection draws r; r < `p1`
/// stalls it for `d1`, `p1` ≤ r < `p1` + `p2` for `d2`, and "packets
/// arriving during a stall wait until its end". A stall of 0 s ends where
/// it starts and holds no packet (`StallProcess::release_time`: a packet
/// waits only if start ≤ now < end), and the draws that fall in `p1` do not
/// change which fall in `p2`'s band: `p1 > 0` with `d1 = "0s"` was accepted
/// without effect (p1 = 0.9, d1 = 0s every 10 ms gave the run without a
/// stall table, flows and links equal); the same for `p2` with `d2`.
#[test]
fn a_stall_probability_with_a_zero_duration_is_refused() {
    let stall = |fields: &str| one_link("", &format!("stall = {{ {fields} }}"), "", "");
    check(
        &err(&stall(r#"p1 = 0.1, d1 = "0s", p2 = 0.01, d2 = "4s""#)),
        9,
        "link[0].stall.p1",
        "has no effect: d1 = 0s",
    );
    check(
        &err(&stall(r#"p1 = 0.1, d1 = "1s", p2 = 0.01, d2 = "0ms""#)),
        9,
        "link[0].stall.p2",
        "has no effect: d2 = 0s",
    );
    for fine in [
        r#"p1 = 0.1, d1 = "1ns", p2 = 0.01, d2 = "4s""#,
        // A zero probability turns that kind of stall off.
        r#"p1 = 0, d1 = "0s", p2 = 0.01, d2 = "4s""#,
        r#"p1 = 0.1, d1 = "1s", p2 = 0, d2 = "0s""#,
    ] {
        scenario(&stall(fine));
    }
}

/// docs/scenario.md, `[[link]]`: "Routing is by shortest path in hops
/// (ties: the link listed first)". Two links between the same two nodes are
/// always a tie, which the first wins both ways (net/topology.rs: the
/// lowest-indexed link direction one hop closer), so the second never
/// carries traffic: it was accepted, its directions reporting zeros (the
/// pinned mesh's `R3->R2#2` and `R2->R3#2`).
#[test]
fn a_parallel_link_is_refused() {
    let second =
        |link: &str| one_link("", "", "", "").replace("[[flow]]\n", &format!("{link}\n[[flow]]\n"));
    check(
        &err(&second("[[link]]\na = \"B\"\nb = \"A\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n")),
        11,
        "link[1]",
        "joins \"B\" and \"A\", as link[0] does: routes take the first; this one would never carry traffic",
    );
    // Members of counted tables are named as such.
    let counted =
        "[simulation]\nduration = \"1s\"\n\n[[link]]\ncount = 3\na = \"s{i}\"\nb = \"R\"\n\
        rate = \"10Mbps\"\ndelay = \"1ms\"\n\n[[link]]\na = \"R\"\nb = \"s1\"\nrate = \"10Mbps\"\n\
        delay = \"1ms\"\n\n[[flow]]\nfrom = \"s0\"\nto = \"s2\"\napp = { kind = \"bulk\" }\n";
    check(&err(counted), 12, "link[1]", "as link[0][i=1] does");
    // A cycle is no parallel link: its routes use every link.
    scenario(&second(
        "[[link]]\na = \"B\"\nb = \"C\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\n\
         [[link]]\na = \"C\"\nb = \"A\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n",
    ));
}

/// docs/scenario.md, Error tables: `route_change` "loses nothing: per
/// connection, each packet switches route with the probability; the second
/// route adds the delay". With `extra_delay = "0s"` both routes take the
/// same time (`RouteChange::delay_for` adds 0 on either), so switching
/// reorders nothing: `switch_probability` above 0 was accepted without
/// effect, like a stall's probability with a zero duration.
#[test]
fn a_route_change_without_extra_delay_is_refused() {
    let rc = |p: &str, d: &str| {
        format!(
            r#"error = {{ kind = "route_change", switch_probability = {p}, extra_delay = "{d}" }}"#
        )
    };
    check(
        &err(&one_link("", &rc("0.1", "0s"), "", "")),
        9,
        "link[0].error.switch_probability",
        "has no effect: extra_delay = 0s",
    );
    let there = format!("a_to_b = {{ {} }}", rc("1", "0ms"));
    check(
        &err(&one_link("", &there, "", "")),
        9,
        "link[0].a_to_b.error.switch_probability",
        "has no effect",
    );
    // A probability of 0 turns switching off (a control); a delay reorders.
    scenario(&one_link("", &rc("0", "20ms"), "", ""));
    scenario(&one_link("", &rc("0", "0s"), "", ""));
    scenario(&one_link("", &rc("0.1", "1ns"), "", ""));
}

/// docs/scenario.md, `[output]`: `timeseries` samples "over the interval",
/// and the points are (duration / interval + 1) samples: the first at 0 s,
/// each later one at the end of an interval. An interval longer than the
/// run ends no interval in it: the series held only the sample at 0 s
/// (each flow's initial cwnd, the first flight queued), and was accepted.
#[test]
fn a_timeseries_interval_longer_than_the_run_is_refused() {
    let series = |interval: &str| {
        one_link(
            "",
            "",
            "",
            &format!("[output]\ntimeseries = {{ interval = \"{interval}\" }}\n"),
        )
    };
    check(
        &err(&series("11s")),
        16,
        "output.timeseries.interval",
        "11s is longer than the run (simulation.duration = 10s)",
    );
    scenario(&series("10s"));
}

/// docs/scenario.md, Kick TCP: the kick timer "is set and stopped with the
/// retransmission timer"; kicks are sent when it "expires before the
/// retransmission timer" (draft-bahk-pilc-tcp-wireless-00 §2; tcp/kick.rs
/// arms it only if now + interval is before the RTO deadline). The
/// retransmission timer is always set from now for at most `max_rto`, so a
/// fixed `interval` of `max_rto` or more never expires first: the kick
/// table (and every `kick` agent) was accepted without effect.
#[test]
fn a_kick_interval_the_rto_always_beats_is_refused() {
    for tcp in [
        r#"kick = { interval = "60s" }"#,
        r#"kick = { interval = "3s" }, max_rto = "2s""#,
    ] {
        check(
            &err(&one_link("", "", tcp, "")),
            13,
            "flow[0].tcp.kick.interval",
            "never expires before the retransmission timer",
        );
    }
    scenario(&one_link("", "", r#"kick = { interval = "59.999s" }"#, ""));
    scenario(&one_link(
        "",
        "",
        r#"kick = { interval = "rtt" }, max_rto = "2s""#,
        "",
    ));
}

/// `mark_min_cwnd` (docs/scenario.md, `[flow.tcp]`): the smallest cwnd a
/// congestion mark's reduction leaves, 1 or 2 segments. It acts through
/// RFC 3168's ECN-Echo (`ecn = true`) or an mecn/wmecn cc's mark response
/// (WMECN §2.3); any other value is refused, and so is the field where no
/// mark reduces the window: without ECN, with the wmecn classifier alone
/// (it reads marks, Reno does not cut on them), and with CUBIC, whose
/// ECN-Echo reduction goes to one segment whatever the field says (RFC
/// 9438 §4.6).
#[test]
fn mark_min_cwnd_is_one_or_two_segments_where_a_mark_reduces() {
    let red = r#"queue = { kind = "red", limit = "50pkt", min_th = 5, max_th = 15, ecn = true }"#;
    let wmecn = r#"a_to_b = { queue = { kind = "wmecn", limit = "50pkt", min_th = 5, mid_th = 10, max_th = 15 } }"#;
    for bad in [0, 3, -1] {
        let e = err(&one_link(
            "",
            red,
            &format!("ecn = true, mark_min_cwnd = {bad}"),
            "",
        ));
        check(&e, 13, "flow[0].tcp.mark_min_cwnd", "must be 1 (RFC 3168");
    }
    for (link, tcp, why) in [
        ("", "mark_min_cwnd = 1", "no congestion mark reduces"),
        (
            wmecn,
            r#"classifier = { kind = "wmecn" }, mark_min_cwnd = 1"#,
            "no congestion mark reduces",
        ),
        (
            red,
            r#"ecn = true, cc = "cubic", mark_min_cwnd = 1"#,
            "CUBIC's ECN-Echo reduction already goes down to one segment",
        ),
    ] {
        let e = err(&one_link("", link, tcp, ""));
        check(&e, 13, "flow[0].tcp.mark_min_cwnd", why);
    }
    for floor in [1, 2] {
        scenario(&one_link(
            "",
            red,
            &format!("ecn = true, mark_min_cwnd = {floor}"),
            "",
        ));
        scenario(&one_link(
            "",
            wmecn,
            &format!(
                r#"cc = {{ kind = "wmecn" }}, classifier = {{ kind = "wmecn" }}, mark_min_cwnd = {floor}"#
            ),
            "",
        ));
    }
}

/// RFC 3168 §5: a RED queue with `ecn = true` marks an ECN-capable packet
/// where it would drop it early and drops any other packet as RED without
/// ECN does; only an ECN flow's data is ECN-capable (ACKs are not,
/// §6.1.4; nor are UDP datagrams). The mirror of
/// `ecn_without_a_marking_queue_on_the_route_is_refused`: a queue with
/// `ecn = true` that only non-ECN traffic crosses never marks. Three TCP
/// flows and an on/off UDP flow through a 5 Mb/s RED bottleneck ran the
/// same with `ecn = true` as with `ecn = false` (flows and links tables
/// equal, seeds 1-3: 259 early drops, no mark); it was accepted.
#[test]
fn a_red_ecn_queue_no_ecn_data_crosses_is_refused() {
    let red = r#"kind = "red", limit = "50pkt", min_th = 5, max_th = 15, ecn = true"#;
    let udp = "app = { kind = \"onoff\", rate = \"1Mbps\", mean_on = \"1s\", mean_off = \"1s\" }";
    // Non-ECN TCP (data one way, ACKs the other); UDP.
    check(
        &err(&one_link("", &format!("queue = {{ {red} }}"), "", "")),
        9,
        "link[0].queue.ecn",
        "no ECN-capable data crosses this queue (it is crossed by flow[0]:",
    );
    let only_udp = one_link("", &format!("queue = {{ {red} }}"), "", "")
        .replace("tcp = {  }\n", "")
        .replace("app = { kind = \"bulk\" }", udp);
    check(&err(&only_udp), 9, "link[0].queue.ecn", "has no effect");
    // A direction's own queue that only the ACKs of an ECN flow cross.
    let ack_way = one_link(
        "",
        &format!("queue = {{ {red} }}\nb_to_a = {{ queue = {{ {red} }} }}"),
        "ecn = true",
        "",
    );
    check(
        &err(&ack_way),
        10,
        "link[0].b_to_a.queue.ecn",
        "crossed by flow[0]",
    );
    // Accepted: an ECN flow's data crosses the table (the way back's ACKs
    // share it); multi-level ECN data counts; UDP beside an ECN flow (the
    // WMECN reproduction's background); a table no flow crosses (as any
    // queue on an unused direction).
    scenario(&one_link(
        "",
        &format!("queue = {{ {red} }}"),
        "ecn = true",
        "",
    ));
    scenario(&one_link(
        "",
        &format!("queue = {{ {red} }}"),
        r#"cc = { kind = "wmecn" }"#,
        "",
    ));
    scenario(&one_link(
        "",
        &format!("queue = {{ {red} }}"),
        "ecn = true",
        &format!("\n[[flow]]\nname = \"u\"\nfrom = \"A\"\nto = \"B\"\n{udp}\n"),
    ));
    scenario(&one_link(
        "",
        &format!("queue = {{ {red} }}"),
        "ecn = true",
        &format!("\n[[link]]\na = \"B\"\nb = \"C\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\nqueue = {{ {red} }}\n"),
    ));
}

/// A packet crosses each link of its route in its transmission time at
/// the direction's rate, then the link's propagation delay (store and
/// forward), so the first packet a flow sends arrives no sooner than the
/// sum of both over the route; with `handshake = true` no data leaves
/// before the SYN has crossed there and the SYN-ACK back (RFC 9293 §3.5).
/// A flow whose first packet, sent at 0 s on idle links, arrives after the
/// end of the run delivers nothing: 9.99 s of delay at 1 Mb/s in a 10 s run
/// with a handshake (19.98 s before any data) was accepted and delivered
/// nothing, as was a 1040 B segment over 9.991681 s (it arrives 1 µs
/// late; at 9.99168 s it arrives exactly at the end and is delivered).
#[test]
fn a_first_packet_that_cannot_arrive_in_the_run_is_refused() {
    let at = |delay: &str, tcp: &str| {
        one_link("", "", tcp, "").replace(
            "rate = \"10Mbps\"\ndelay = \"10ms\"",
            &format!("rate = \"1Mbps\"\ndelay = \"{delay}\""),
        )
    };
    // 1000 B of payload (mss) + 40 B of headers at 1 Mb/s: 8.32 ms.
    check(
        &err(&at("9.991681s", r#"mss = "1000B""#)),
        12,
        "flow[0].to",
        "its first segment (1040B on the wire) sent at 0s would reach \"B\" from \"A\" at 10.000001s at the earliest",
    );
    let delivered = |text: &str| scenario(text).run(None).unwrap().flows[0].delivered_bytes;
    assert_eq!(delivered(&at("9.99168s", r#"mss = "1000B""#)), 1000);
    // A handshake: SYN there and SYN-ACK back (48 B each) before any data.
    let e = err(&at("9.9s", r#"mss = "1000B", handshake = true"#));
    check(
        &e,
        12,
        "flow[0].to",
        "after 19.800768s for the handshake (a 48B SYN there, the SYN-ACK back)",
    );
    // Three crossings of 3.330304 s, two of 48 B and one of 1040 B at 1 Mb/s:
    // the data arrives exactly at the end; a microsecond more and it cannot.
    let hs = r#"mss = "1000B", handshake = true"#;
    assert_eq!(delivered(&at("3.330304s", hs)), 1000);
    check(
        &err(&at("3.330305s", hs)),
        12,
        "flow[0].to",
        "at 10.000003s at the earliest",
    );
    // A small file's first segment is the file; a datagram is packet_size.
    // (10 B + 40 B at 1 Mb/s: 400 µs.)
    let small = at("9.9996s", r#"mss = "1000B""#).replace(
        "app = { kind = \"bulk\" }",
        "app = { kind = \"file\", size = \"10B\" }",
    );
    assert_eq!(delivered(&small), 10);
    check(
        &err(&small.replace("9.9996s", "9.9997s")),
        12,
        "flow[0].to",
        "its first segment (50B on the wire)",
    );
    // (1500 B at 1 Mb/s: 12 ms.)
    let udp = at("9.988s", "")
        .replace("tcp = {  }\n", "")
        .replace(
            "app = { kind = \"bulk\" }",
            "app = { kind = \"onoff\", rate = \"1Mbps\", mean_on = \"1s\", mean_off = \"1s\", packet_size = \"1500B\" }",
        );
    scenario(&udp);
    check(
        &err(&udp.replace("9.988s", "9.98801s")),
        12,
        "flow[0].to",
        "its first datagram (1500B) sent at 0s",
    );
    // Two hops: each link's own transmission time counts.
    let two_hops = "[simulation]\nduration = \"10s\"\n\n[[link]]\na = \"A\"\nb = \"R\"\n\
        rate = \"1Mbps\"\ndelay = \"5s\"\n\n[[link]]\na = \"R\"\nb = \"B\"\nrate = \"2Mbps\"\n\
        delay = \"4.98s\"\n\n[[flow]]\nfrom = \"A\"\nto = \"B\"\ntcp = { mss = \"1000B\" }\n\
        app = { kind = \"bulk\" }\n";
    // 8.32 ms + 4.16 ms: arrives at 9.99248 s.
    assert_eq!(delivered(two_hops), 1000);
    check(
        &err(&two_hops.replace("4.98s", "4.9876s")),
        18,
        "flow[0].to",
        "at 10.00008s at the earliest",
    );
}

/// docs/scenario.md, `[[node]]` and `[[flow]]` `name`: names are shown in
/// tables, CSV files and captures, so a name holding a character that
/// breaks or hides text there (a control character such as NUL, a
/// zero-width or bidirectional formatting character) is refused, naming
/// the character; and a node name must not hold `->`, which names link
/// directions (`x->y` and `z` made a link `x->y->z`, which `x` and `y->z`
/// would make too).
#[test]
fn names_that_hide_text_or_arrows_are_refused() {
    let base = one_link("", "", "", "");
    for (c, code) in [
        ("\\u0000", "U+0000"),
        ("\\u202e", "U+202E"),
        ("\\u200b", "U+200B"),
        ("\\t", "U+0009"),
    ] {
        let flow = base.replace("[[flow]]\n", &format!("[[flow]]\nname = \"f{c}g\"\n"));
        check(&err(&flow), 11, "flow[0].name", &format!("holds {code}"));
        let node = base.replace("a = \"A\"", &format!("a = \"A{c}\""));
        check(&err(&node), 5, "link[0].a", &format!("holds {code}"));
        let declared = base.replace(
            "[[link]]\n",
            &format!("[[node]]\nname = \"B{c}\"\n[[link]]\n"),
        );
        check(&err(&declared), 5, "node[0].name", &format!("holds {code}"));
    }
    for arrow in ["x->y", "x<->y"] {
        let text = base.replace("\"A\"", &format!("\"{arrow}\""));
        check(&err(&text), 5, "link[0].a", "must not hold \"->\"");
    }
    // What stays accepted: letters of any script, spaces, dashes, arrows' halves.
    let text = base.replace("\"A\"", "\"Zürich base-station > 1\"");
    scenario(&text);
}

/// docs/scenario.md, "Quantities": a value of the wrong kind is an error
/// that says what the field takes and what was written, in the page's
/// words ("a whole number", "true or false", "a table"). They came in
/// serde's ("invalid type: floating point `2.5`, expected i64", "expected
/// struct QueueSpec", "invalid type: map" for a date, "wanted string or
/// table" for a number where a kind's name goes).
#[test]
fn a_value_of_the_wrong_kind_says_what_the_field_takes() {
    for (link, tcp, tail, line, field, words) in [
        (
            "",
            "initial_cwnd = 2.5",
            "",
            13,
            "flow[0].tcp.initial_cwnd",
            "expected a whole number, found 2.5",
        ),
        (
            "",
            "initial_cwnd = 2.0",
            "",
            13,
            "flow[0].tcp.initial_cwnd",
            "expected a whole number, found 2.0: write initial_cwnd = 2",
        ),
        (
            "",
            "initial_cwnd = true",
            "",
            13,
            "flow[0].tcp.initial_cwnd",
            "expected a whole number, found true",
        ),
        (
            "",
            "initial_cwnd = 2024-01-01",
            "",
            13,
            "flow[0].tcp.initial_cwnd",
            "expected a whole number, found a date",
        ),
        (
            "",
            "initial_cwnd = { a = 1 }",
            "",
            13,
            "flow[0].tcp.initial_cwnd",
            "expected a whole number, found a table",
        ),
        (
            "",
            "initial_cwnd = [2]",
            "",
            13,
            "flow[0].tcp.initial_cwnd",
            "expected a whole number, found a list",
        ),
        (
            "",
            "sack = 1",
            "",
            13,
            "flow[0].tcp.sack",
            "expected true or false, found 1",
        ),
        (
            "",
            "sack = \"yes\"",
            "",
            13,
            "flow[0].tcp.sack",
            "expected true or false, found \"yes\"",
        ),
        (
            "",
            "",
            "count = 1.5",
            15,
            "flow[0].count",
            "expected a whole number, found 1.5",
        ),
        (
            "error = { kind = \"bernoulli\", per = true }",
            "",
            "",
            9,
            "link[0].error.per",
            "expected a number, found true",
        ),
        (
            "queue = 3",
            "",
            "",
            9,
            "link[0].queue",
            "expected a table, found 3",
        ),
        (
            "queue = { kind = 3 }",
            "",
            "",
            9,
            "link[0].queue.kind",
            "expected a name in quotes or a table, found 3",
        ),
        (
            "",
            "variant = 3",
            "",
            13,
            "flow[0].tcp.variant",
            "expected a name in quotes or a table, found 3",
        ),
        (
            "delay = 1979-05-27T07:32:00Z",
            "",
            "",
            8,
            "link[0].delay",
            "expected a string like \"30ms\", found a date",
        ),
        (
            "",
            "",
            "start = true",
            15,
            "flow[0].start",
            "expected a string like \"30ms\", found true",
        ),
    ] {
        let text = one_link("", link, tcp, tail);
        let text = if link.starts_with("delay") {
            text.replacen("delay = \"10ms\"\n", "", 1)
        } else {
            text
        };
        let e = err(&text);
        check(&e, line, field, words);
        for serde_words in [
            "invalid type",
            "expected i64",
            "expected f64",
            "struct ",
            "wanted ",
        ] {
            assert!(!e.message.contains(serde_words), "{e}");
        }
    }
}
