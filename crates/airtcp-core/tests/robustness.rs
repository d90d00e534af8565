//! Issue 13: no input kills the process, hangs it, or is accepted and then
//! silently ignored or wrapped. One test (or more) per numbered case of the
//! issue; the Python and CLI sides are in tests/python/test_robustness.py.

mod common;
use airtcp_core::metrics::series::SeriesMetric;
use airtcp_core::scenario::Scenario;
use common::{check_scenario_err as check, one_link, run_world, scenario, scenario_err as err};

/// The 1-based line of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).expect(needle) + 1
}

/// Case 1: a 1 us time series on a 10 s run is 8e7 points (6 per bulk
/// flow, 1 per link direction; 16 GB with the Python tables); it is refused before anything is allocated, naming the
/// interval and the estimate. 1 ns is below the 1 us floor.
#[test]
fn case1_fine_time_series_is_refused_before_allocating() {
    let text = one_link(
        "",
        "",
        "",
        "[output]\ntimeseries = { interval = \"1us\" }\n",
    );
    let e = err(&text);
    check(
        &e,
        line_of(&text, "timeseries"),
        "output.timeseries.interval",
        "more than the memory budget of 4.0 GB",
    );
    assert!(e.message.contains("about 16.0 GB"), "{e}");
    assert!(e.message.contains("80000008 time-series points"), "{e}");
    let text = text.replace("1us", "1ns");
    check(
        &err(&text),
        line_of(&text, "timeseries"),
        "output.timeseries.interval",
        "at least 1us",
    );
    // The budget is configurable: with 20 GB the same file is accepted
    // (validated only; running it would take the memory).
    let text = one_link(
        "memory_budget = \"20GB\"",
        "",
        "",
        "[output]\ntimeseries = { interval = \"1us\" }\n",
    );
    scenario(&text);
}

/// Case 1: a million flows need about 16 GB; refused with one line naming
/// `flow`. Checked on 300,000 flows (5 GB estimated) to keep the test fast;
/// a smaller budget refuses a smaller file for the same reason.
#[test]
fn case1_too_many_flows_are_refused_with_the_estimate() {
    let mut text = String::from(
        "[simulation]\nduration = \"1s\"\n[[link]]\na = \"A\"\nb = \"B\"\nrate = \"1Gbps\"\ndelay = \"1ms\"\n",
    );
    let flow = "[[flow]]\nfrom = \"A\"\nto = \"B\"\napp = { kind = \"bulk\" }\n";
    text += &flow.repeat(300_000);
    let e = Scenario::from_toml_str(&text, "bad.toml").unwrap_err();
    assert_eq!(e.field, "flow", "{e}");
    assert!(e.message.contains("300000 flows"), "{e}");
    assert!(
        e.message.contains("more than the memory budget of 4.0 GB"),
        "{e}"
    );
    assert!(!e.to_string().contains('\n'));
    let small = text[..text.len() - 299_000 * flow.len()].replacen(
        "duration = \"1s\"",
        "duration = \"1s\"\nmemory_budget = \"10MB\"",
        1,
    );
    let e = Scenario::from_toml_str(&small, "bad.toml").unwrap_err();
    assert_eq!(e.field, "flow", "{e}");
    assert!(
        e.message.contains("more than the memory budget of 10.0 MB"),
        "{e}"
    );
}

/// The bar: no unbounded allocation reaches a user. `run_many` and
/// `airtcp run --runs N` keep every run's results until the last ends, so
/// N runs of a scenario that fits the budget alone need not fit together:
/// N x (640 B a flow, 256 B a link direction or agent, 200 B a time-series
/// point) is refused before any run when it exceeds the budget, naming
/// `simulation.memory_budget` (docs/scenario.md, "Memory budget"). One run
/// is the estimate's alone. Before, nothing counted them: a thousand runs
/// of a 100,000-flow topology grew until the OS killed the process.
#[test]
fn many_runs_count_their_kept_results_against_the_memory_budget() {
    // 1,000 flows on one link: 640,000 + 2 x 256 = 640,512 B a run.
    let text = "[simulation]\nduration = \"10ms\"\nmemory_budget = \"20MB\"\n\
                [[link]]\na = \"A\"\nb = \"B\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
                [[flow]]\ncount = 1000\nname = \"f{i}\"\nfrom = \"A\"\nto = \"B\"\n\
                app = { kind = \"bulk\" }\n";
    let sc = scenario(text);
    sc.check_runs(1).unwrap();
    sc.check_runs(31).unwrap(); // 19.86 MB
    let e = sc.check_runs(32).unwrap_err(); // 20.50 MB
    assert_eq!(
        (e.line, e.field.as_str()),
        (
            Some(line_of(text, "memory_budget")),
            "simulation.memory_budget"
        ),
        "{e}"
    );
    assert!(
        e.message.starts_with(
            "32 runs would keep about 20.5 MB of results (640.5 kB a run: 1000 flows, 2 link \
             directions), more than the memory budget of 20.0 MB"
        ),
        "{e}"
    );
    assert!(!e.to_string().contains('\n'));
    // Time-series points count too: 1 s sampled every 10 ms is 101
    // samples, 6 points each for the bulk flow and 1 for each direction:
    // 808 points, 161,600 B, and 640 + 512 B of rows: 162,752 B a run.
    let text = one_link(
        "memory_budget = \"1MB\"",
        "",
        "",
        "[output]\ntimeseries = { interval = \"10ms\" }\n",
    )
    .replace("duration = \"10s\"", "duration = \"1s\"");
    let sc = scenario(&text);
    sc.check_runs(6).unwrap(); // 976.5 kB
    let e = sc.check_runs(7).unwrap_err(); // 1.139 MB
    assert!(
        e.message.contains("7 runs would keep about 1.1 MB of results (162.8 kB a run: 1 flows, 2 link directions, 808 time-series points)"),
        "{e}"
    );
}

/// The bar: no unbounded allocation reaches a user. The transfers table
/// keeps one row per completed download, and a run of a `repeated` app with
/// `count` completes at most `count` of them (a `file` app one): DCLOR's mix
/// keeps thousands a run, which the flows' 640 B did not count. They count
/// at `TRANSFER_RESULT_BYTES` a row (docs/scenario.md, "Memory budget"); a
/// `repeated` app without `count` is not known in advance and not counted.
#[test]
fn many_runs_count_their_transfer_rows_against_the_memory_budget() {
    // 10 flows of 10,000 downloads and one file on one link.
    let text = "[simulation]\nduration = \"10s\"\nmemory_budget = \"100MB\"\n\
                [[link]]\na = \"A\"\nb = \"B\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
                [[flow]]\ncount = 10\nname = \"f{i}\"\nfrom = \"A\"\nto = \"B\"\n\
                app = { kind = \"repeated\", size = \"1kB\", think = \"0s\", count = 10000 }\n\
                [[flow]]\nname = \"file\"\nfrom = \"A\"\nto = \"B\"\n\
                app = { kind = \"file\", size = \"1kB\" }\n";
    // 11 x 640 + 2 x 256 + 100,001 x 160 = 16,007,712 B a run.
    let sc = scenario(text);
    sc.check_runs(6).unwrap(); // 96.0 MB
    let e = sc.check_runs(7).unwrap_err(); // 112.1 MB
    assert_eq!(e.field, "simulation.memory_budget", "{e}");
    assert!(
        e.message.contains(
            "7 runs would keep about 112.1 MB of results (16.0 MB a run: 11 flows, 2 link \
             directions, up to 100001 transfers)"
        ),
        "{e}"
    );
    // Without count the downloads are not known in advance: the rows of
    // the flows alone.
    let uncounted = scenario(&text.replace(", count = 10000", ""));
    let e = uncounted.check_runs(100_000_000).unwrap_err();
    assert!(
        e.message
            .contains("a run: 11 flows, 2 link directions, up to 1 transfers)"),
        "{e}"
    );
}

/// The bar: no unbounded allocation reaches a user. A queue fills up to its
/// limit whatever the windows (a UDP source faster than the link), so the
/// largest queue, full, is part of the estimate: a limit of 2^32 - 1
/// packets (accepted as a limit) would need terabytes and is refused
/// before anything is allocated, naming the limit, whether it is written
/// for both directions or one, in packets or in bytes (at most one packet
/// per 28 B, the smallest datagram). A million packets fit the default
/// budget.
#[test]
fn the_largest_queue_full_counts_in_the_memory_budget() {
    let text = one_link(
        "",
        "queue = { kind = \"droptail\", limit = \"4294967295pkt\" }",
        "",
        "",
    );
    let e = err(&text);
    check(
        &e,
        line_of(&text, "queue"),
        "link[0].queue.limit",
        "a full queue of 4294967295 packets",
    );
    assert!(
        e.message.contains("more than the memory budget of 4.0 GB"),
        "{e}"
    );
    let text = one_link(
        "",
        "a_to_b = { queue = { kind = \"droptail\", limit = \"280GB\" } }",
        "",
        "",
    );
    check(
        &err(&text),
        line_of(&text, "a_to_b"),
        "link[0].a_to_b.queue.limit",
        "a full queue of 10000000000 packets",
    );
    scenario(&one_link(
        "",
        "queue = { kind = \"droptail\", limit = \"1000000pkt\" }",
        "",
        "",
    ));
}

/// G-Snoop's gateway A keeps a copy of each packet its wireless link has
/// admitted until the transmission ends (the document's Fig. 2: packets
/// are cached "when [they have] been sent"): up to that direction's queue,
/// full, plus the one on the wire. The estimate counts that list besides
/// the queue itself: a 1,000,000-packet wireless queue (432 MB full) with
/// gateway A on its sending end needs 320 MB more (2 copies' room of 160
/// B, docs/scenario.md), so a 600 MB budget that admits the path without
/// G-Snoop refuses it with; on the other direction's sending end (a
/// default 50-packet queue) the list is small and the path fits.
#[test]
fn gsnoop_gateway_a_counts_its_packets_on_the_wireless_link() {
    let path = |agents: &str| {
        format!(
            "[simulation]\nduration = \"10s\"\nmemory_budget = \"600MB\"\n{agents}\
             [[link]]\na = \"A\"\nb = \"B\"\nrate = \"10Mbps\"\ndelay = \"10ms\"\n\
             a_to_b = {{ queue = {{ kind = \"droptail\", limit = \"1000000pkt\" }} }}\n\
             [[flow]]\nfrom = \"A\"\nto = \"B\"\napp = {{ kind = \"bulk\" }}\n"
        )
    };
    let gateways = |a: &str, b: &str| {
        format!(
            "[[node]]\nname = \"{a}\"\nagents = [{{ kind = \"gsnoop_a\", peer = \"{b}\" }}]\n\
             [[node]]\nname = \"{b}\"\nagents = [{{ kind = \"gsnoop_b\", peer = \"{a}\" }}]\n"
        )
    };
    scenario(&path(""));
    let text = path(&gateways("A", "B"));
    let e = err(&text);
    check(
        &e,
        line_of(&text, "a_to_b"),
        "link[0].a_to_b.queue.limit",
        "more than the memory budget of 600.0 MB",
    );
    scenario(&path(&gateways("B", "A")));
}

/// Case 2: an initial window larger than the largest window TCP can use
/// (2^30 bytes, RFC 7323 §2.3) is an error naming the limit in segments;
/// the largest accepted one runs a 1 s scenario in bounded time.
#[test]
fn case2_initial_window_is_bounded() {
    let text = one_link("", "", "initial_cwnd = 10000000", "");
    let e = err(&text);
    check(
        &e,
        line_of(&text, "tcp ="),
        "flow[0].tcp.initial_cwnd",
        "at most 1073741 segments",
    );
    let text = one_link("", "", "initial_cwnd = 1000000000", "");
    check(
        &err(&text),
        line_of(&text, "tcp ="),
        "flow[0].tcp.initial_cwnd",
        "RFC 7323",
    );
    // Within the window but not the memory: a million 1-byte segments
    // sent at once would need 152 MB for the first flight alone.
    let text = one_link(
        "memory_budget = \"100MB\"",
        "",
        "mss = \"1B\", initial_cwnd = 1000000, rwnd = \"1MB\"",
        "",
    );
    check(
        &err(&text),
        line_of(&text, "tcp ="),
        "flow[0].tcp.initial_cwnd",
        "a first flight of 1000000 segments",
    );
    // The largest accepted window, with mss 64 KB: 16384 segments at once.
    let text = one_link("", "", "mss = \"65495B\", initial_cwnd = 16394", "").replace("10s", "1s");
    let (_, r) = run_world(&text, None);
    assert!(r.flows[0].delivered_bytes > 0);
    let text = one_link("", "", "rwnd = \"2GB\"", "");
    check(
        &err(&text),
        line_of(&text, "tcp ="),
        "flow[0].tcp.rwnd",
        "at most 2^30 bytes",
    );
}

/// Case 3: a huge delay is an error, not a wrap to zero delay; a huge
/// rate is "too large", not "must be positive"; 1e-400ms is not 0;
/// unit case follows one rule (case-sensitive, with a hint).
#[test]
fn case3_unit_conversions_are_checked() {
    let cases = [
        (
            "delay = \"10ms\"",
            "delay = \"1.845e10s\"",
            "link[0].delay",
            "too large",
        ),
        (
            "delay = \"10ms\"",
            "delay = \"1e300s\"",
            "link[0].delay",
            "at most 10000000s",
        ),
        (
            "rate = \"10Mbps\"",
            "rate = \"1e300Gbps\"",
            "link[0].rate",
            "too large (at most 10Tbps)",
        ),
        (
            "rate = \"10Mbps\"",
            "rate = \"10mbps\"",
            "link[0].rate",
            "did you mean \"Mbps\"",
        ),
        (
            "rate = \"10Mbps\"",
            "rate = \"10mb/s\"",
            "link[0].rate",
            "did you mean \"Mb/s\"",
        ),
        (
            "duration = \"10s\"",
            "duration = \"1e20s\"",
            "simulation.duration",
            "too large",
        ),
    ];
    let good = one_link("", "", "", "");
    for (from, to, field, words) in cases {
        let text = good.replacen(from, to, 1);
        check(&err(&text), line_of(&text, to), field, words);
    }
    let text = one_link("", "", "min_rto = \"1e-400ms\"", "");
    check(
        &err(&text),
        line_of(&text, "min_rto"),
        "flow[0].tcp.min_rto",
        "below 1ns",
    );
    // Both spellings of a unit with the right case are the same rate.
    let a = scenario(&good.replacen("10Mbps", "10Mb/s", 1));
    assert_eq!(a.file.link[0].rate.0, 10_000_000);
}

/// docs/scenario.md, "Units": a number, optionally one space, then the
/// unit. A newline, a tab or a second space between them (TOML allows
/// `"10\nMbps"`) is a one-line error naming the field, never read as 10
/// Mb/s; one space is accepted.
#[test]
fn whitespace_in_a_quantity_is_at_most_one_space() {
    let good = one_link("", "", "", "");
    for (from, to, field) in [
        ("rate = \"10Mbps\"", "rate = \"10\\nMbps\"", "link[0].rate"),
        ("rate = \"10Mbps\"", "rate = \"10\\tMbps\"", "link[0].rate"),
        ("rate = \"10Mbps\"", "rate = \"10  Mbps\"", "link[0].rate"),
        ("delay = \"10ms\"", "delay = \"10ms\\n\"", "link[0].delay"),
        (
            "duration = \"10s\"",
            "duration = \"\\n10s\"",
            "simulation.duration",
        ),
    ] {
        let text = good.replacen(from, to, 1);
        let e = err(&text);
        check(&e, line_of(&text, to), field, "one space");
    }
    // Kick's interval ("rtt" or a duration) follows the same rule.
    let text = one_link("", "", "kick = { interval = \"100ms\\n\" }", "");
    check(
        &err(&text),
        line_of(&text, "kick"),
        "flow[0].tcp.kick.interval",
        "one space",
    );
    let a = scenario(&good.replacen("10Mbps", "10 Mbps", 1));
    assert_eq!(a.file.link[0].rate.0, 10_000_000);
}

/// Case 5: the per-flow (STIS) queue reports its occupancy: a UDP source
/// sending at twice the 1 Mb/s bottleneck keeps its 20-packet shared
/// buffer full and dropping, so the mean and the sampled series are 20
/// (less the moments after a departure), not 0.
#[test]
fn case5_per_flow_queue_statistics_are_measured() {
    let text = "[simulation]\nduration = \"20s\"\n\
        [[link]]\na = \"S\"\nb = \"R\"\nrate = \"100Mbps\"\ndelay = \"1ms\"\n\
        [[link]]\na = \"R\"\nb = \"D\"\nrate = \"1Mbps\"\ndelay = \"10ms\"\n\
        queue = { kind = \"per_flow\", limit = \"20pkt\" }\n\
        [[flow]]\nfrom = \"S\"\nto = \"D\"\n\
        app = { kind = \"onoff\", rate = \"2Mbps\", mean_on = \"1000000s\", mean_off = \"1us\" }\n\
        [output]\ntimeseries = { interval = \"100ms\" }\n";
    let (_, r) = run_world(text, None);
    let bottleneck = r.links.iter().find(|l| l.name == "R->D").unwrap();
    let overflow: u64 = bottleneck.drops.iter().sum();
    assert!(overflow > 0, "the buffer must overflow: {bottleneck:?}");
    assert!(bottleneck.max_queue_pkts == 20, "{bottleneck:?}");
    assert!(
        bottleneck.mean_queue_pkts > 19.0 && bottleneck.mean_queue_pkts <= 20.0,
        "mean occupancy {}",
        bottleneck.mean_queue_pkts
    );
    let link_id = r.links.iter().position(|l| l.name == "R->D").unwrap() as u32;
    let samples: Vec<f64> = r
        .series
        .iter()
        .filter(|p| p.metric == SeriesMetric::QueuePkts && p.index == link_id)
        .map(|p| p.value)
        .collect();
    assert_eq!(samples.len(), 201);
    assert!(samples.iter().all(|&q| q <= 20.0));
    assert!(
        samples[2..].iter().all(|&q| q >= 19.0),
        "queue series {samples:?}"
    );
}

/// A chain of `n` nodes N0 - N1 - ... with one flow end to end.
fn chain(n: usize, sim: &str) -> String {
    let mut s = format!("[simulation]\nduration = \"5s\"\n{sim}\n");
    for i in 0..n - 1 {
        s += &format!(
            "[[link]]\na = \"N{i}\"\nb = \"N{}\"\nrate = \"100Mbps\"\ndelay = \"100us\"\n",
            i + 1
        );
    }
    s += &format!(
        "[[flow]]\nfrom = \"N0\"\nto = \"N{}\"\napp = {{ kind = \"bulk\" }}\n",
        n - 1
    );
    s
}

/// Case 6: a route longer than the TTL is refused (it would deliver
/// nothing); the TTL is configurable up to 255, and a 100-hop route then
/// delivers data.
#[test]
fn case6_route_longer_than_the_ttl() {
    let text = chain(100, "");
    check(
        &err(&text),
        line_of(&text, "to = \"N99\""),
        "flow[0].to",
        "has 99 hops, more than the TTL of 64",
    );
    let (_, r) = run_world(&chain(100, "ttl = 99"), None);
    assert!(r.flows[0].goodput_bps > 1e6, "{:?}", r.flows[0]);
    let (_, r) = run_world(&chain(65, ""), None);
    assert!(r.flows[0].goodput_bps > 1e6, "64 hops fit the default TTL");
    let text = chain(100, "ttl = 98");
    check(
        &err(&text),
        line_of(&text, "to = \"N99\""),
        "flow[0].to",
        "TTL of 98",
    );
    for bad in ["ttl = 0", "ttl = 256"] {
        let text = chain(3, bad);
        check(&err(&text), 3, "simulation.ttl", "from 1 to 255");
    }
    let text = chain(10_000, "");
    check(
        &err(&text),
        line_of(&text, "to = \"N9999\""),
        "flow[0].to",
        "9999 hops",
    );
}

/// Case 7: nanosecond timers are refused (1 ms floor, the finest real TCP
/// timer tick); a 1 ms kick interval runs 10 s in bounded time.
#[test]
fn case7_timers_have_a_floor() {
    for (tcp, field) in [
        ("kick = { interval = \"1ns\" }", "flow[0].tcp.kick.interval"),
        ("min_rto = \"1ns\"", "flow[0].tcp.min_rto"),
        ("initial_rto = \"999us\"", "flow[0].tcp.initial_rto"),
        (
            "max_rto = \"1ns\", min_rto = \"1ns\"",
            "flow[0].tcp.min_rto",
        ),
        (
            "kick = { interval = \"rtt\", before_sample = \"1ns\" }",
            "flow[0].tcp.kick.before_sample",
        ),
    ] {
        let text = one_link("", "", tcp, "");
        check(&err(&text), line_of(&text, "tcp ="), field, "at least 1ms");
    }
    let text = one_link("", "", "initial_rto = \"2min\", max_rto = \"1min\"", "");
    check(
        &err(&text),
        line_of(&text, "tcp ="),
        "flow[0].tcp.initial_rto",
        "must not exceed max_rto",
    );
    let (_, r) = run_world(&one_link("", "", "kick = { interval = \"1ms\" }", ""), None);
    assert!(r.flows[0].goodput_bps > 1e6, "{:?}", r.flows[0]);
}

/// Case 8: setups that can never work are refused.
#[test]
fn case8_impossible_setups() {
    // No data segment fits the byte-limited queue: 1460 + 40 > 1000.
    let text = one_link(
        "",
        "queue = { kind = \"droptail\", limit = \"1000B\" }",
        "mss = \"1460B\"",
        "",
    );
    check(
        &err(&text),
        line_of(&text, "limit"),
        "link[0].queue.limit",
        "1000B cannot hold one segment of flow[0] (mss 1460B + 40B of headers), 1500B on the wire",
    );
    // The ACK direction too: timestamps make a pure ACK 52 bytes.
    let text = one_link(
        "",
        "b_to_a = { queue = { kind = \"droptail\", limit = \"50B\" } }",
        "timestamps = true",
        "",
    );
    check(
        &err(&text),
        line_of(&text, "b_to_a"),
        "link[0].b_to_a.queue.limit",
        "cannot hold one ACK of flow[0] (52B)",
    );
    // A UDP datagram larger than the queue.
    let text = "[simulation]\nduration = \"1s\"\n[[link]]\na = \"A\"\nb = \"B\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
        queue = { kind = \"droptail\", limit = \"1000B\" }\n[[flow]]\nfrom = \"A\"\nto = \"B\"\n\
        app = { kind = \"onoff\", rate = \"1Mbps\", mean_on = \"1s\", mean_off = \"1s\", packet_size = \"1500B\" }\n";
    check(
        &err(text),
        line_of(text, "limit"),
        "link[0].queue.limit",
        "datagram of flow[0]",
    );
    // A flow that starts when (or after) the run ends.
    let text = one_link("", "", "", "").replace("app = {", "start = \"10s\"\napp = {");
    check(
        &err(&text),
        line_of(&text, "start ="),
        "flow[0].start",
        "10s is not before the end of the run (10s)",
    );
    // A scenario with no random component: seeds are pointless.
    assert!(!scenario(&one_link("", "", "", "")).uses_randomness());
    let lossy = "error = { kind = \"bernoulli\", per = 0.01 }";
    assert!(scenario(&one_link("", lossy, "", "")).uses_randomness());
    let drops = "error = { kind = \"drop_list\", packets = [3] }";
    assert!(!scenario(&one_link("", drops, "", "")).uses_randomness());
    let text = one_link(
        "",
        "error = { kind = \"drop_list\", packets = [0, 3] }",
        "",
        "",
    );
    check(
        &err(&text),
        line_of(&text, "drop_list"),
        "link[0].error.packets",
        "counted from 1",
    );
}

/// Case 9: a seed of 2^63 or more names its field; seeds up to 2^64 - 1
/// are written as strings.
#[test]
fn case9_large_seeds() {
    let text = one_link("seed = 9223372036854775808", "", "", "");
    let e = err(&text);
    check(&e, 3, "simulation.seed", "written as a string");
    let sc = scenario(&one_link("seed = \"18446744073709551615\"", "", "", ""));
    assert_eq!(sc.default_seed(), u64::MAX);
    let text = one_link("seed = -1", "", "", "");
    check(&err(&text), 3, "simulation.seed", "in [0, 2^64), got -1");
    let text = one_link("seed = \"18446744073709551616\"", "", "", "");
    check(&err(&text), 3, "simulation.seed", "in [0, 2^64)");
    // Beyond 2^64 - 1 as an integer, a string would not help either: the
    // range, not the string form (it said "written as a string").
    for big in ["18446744073709551616", "1000000000000000000000000000000"] {
        let e = err(&one_link(&format!("seed = {big}"), "", "", ""));
        check(
            &e,
            3,
            "simulation.seed",
            &format!("in [0, 2^64), got {big}"),
        );
        assert!(!e.message.contains("string"), "{e}");
    }
}

/// The bar: bad input is never silently fixed. A seed written as a string
/// is "a string of digits" (docs/scenario.md); whitespace, a sign or an
/// underscore around or in it is an error naming the field, not trimmed
/// away (Rust's and Python's integer parsers would accept some of them).
#[test]
fn seed_strings_are_digits_only() {
    for bad in [" 123", "123 ", "\\t7", "+5", "1_000", "", "0x10", "1e3"] {
        let text = one_link(&format!("seed = \"{bad}\""), "", "", "");
        check(&err(&text), 3, "simulation.seed", "decimal digits only");
    }
    let sc = scenario(&one_link("seed = \"0042\"", "", "", ""));
    assert_eq!(sc.default_seed(), 42);
}

/// Values that used to be clamped silently are errors now.
#[test]
fn no_silent_clamps() {
    let red = "queue = { kind = \"red\", limit = \"50pkt\", min_th = 5, max_th = 15, mean_packet_size = \"100KB\" }";
    let text = one_link("", red, "", "");
    check(
        &err(&text),
        line_of(&text, "red"),
        "link[0].queue.mean_packet_size",
        "65535B",
    );
    let text = one_link("", "", "initial_ssthresh = \"1000B\", mss = \"1000B\"", "");
    check(
        &err(&text),
        line_of(&text, "tcp ="),
        "flow[0].tcp.initial_ssthresh",
        "2 × mss",
    );
    let text = one_link(
        "",
        "",
        "",
        "[output]\ntimeseries = { interval = \"1s\", flows = false, links = false }\n",
    );
    check(
        &err(&text),
        line_of(&text, "timeseries"),
        "output.timeseries",
        "sample nothing",
    );
}

/// A TOML key is any string, escapes included: a key holding a newline or
/// another control character (`"a\nb" = 0`, found by the loader fuzzer)
/// is still a one-line error naming the field, the character written as
/// its escape, never a second line.
#[test]
fn keys_with_control_characters_give_one_line_errors() {
    for (text, field) in [
        ("\"a\\nb\" = 0\n", "a\\nb"),
        (
            "[simulation]\nduration = \"1s\"\n\"dur\\r\\nation\" = \"1s\"\n",
            "simulation.dur\\r\\nation",
        ),
        ("\"x\\u0007\\ty\" = 1\n", "x\\u{7}\\ty"),
        ("\"p\\u2028q\" = 1\n", "p\\u{2028}q"),
    ] {
        let e = err(text);
        check(&e, text.lines().count(), field, "unknown field");
        let key = field.rsplit('.').next().unwrap();
        assert!(
            e.message.contains(&format!("`{key}`")),
            "the key as written: {e}"
        );
    }
    // A value or a node name holding one is quoted as written, too.
    let good = one_link("", "", "", "");
    for (from, to, field, words) in [
        (
            "to = \"B\"",
            "to = \"B\\nC\"",
            "flow[0].to",
            "unknown node \"B\\nC\"",
        ),
        // A node name holding one is refused where it is written
        // (scenario_audit.rs::names_that_hide_text_or_arrows_are_refused).
        (
            "b = \"B\"",
            "b = \"B\\tC\"",
            "link[0].b",
            "\"B\\tC\" holds U+0009",
        ),
        (
            "tcp = {  }",
            "tcp = { variant = \"re\\nno\" }",
            "flow[0].tcp.variant",
            "`re\\nno`",
        ),
    ] {
        let text = good.replacen(from, to, 1);
        let at = if field == "flow[0].to" { "to =" } else { to };
        check(&err(&text), line_of(&text, at), field, words);
    }
}

/// The parts of an error read as its one line does: the attributes
/// `file`, `field` and `message` hold the escapes (`B\nC`) that the
/// string shows, not the raw control characters (6b4d58f escaped only the
/// string), so `file:line: field: message` rebuilt from them is the error.
#[test]
fn error_attributes_hold_the_escapes_the_line_shows() {
    let good = one_link("", "", "", "");
    for (from, to, field, words) in [
        ("to = \"B\"", "to = \"B\\nC\"", "flow[0].to", "\"B\\nC\""),
        ("b = \"B\"", "b = \"B\\tC\"", "link[0].b", "\"B\\tC\""),
        (
            "tcp = {  }",
            "tcp = { variant = \"re\\nno\" }",
            "flow[0].tcp.variant",
            "`re\\nno`",
        ),
        (
            "rate = \"10Mbps\"",
            "rate = \"10\\nMbps\"",
            "link[0].rate",
            "10\\nMbps",
        ),
    ] {
        let text = good.replacen(from, to, 1);
        let e = Scenario::from_toml_str(&text, "bad\u{7}.toml").unwrap_err();
        assert_eq!(e.file, "bad\\u{7}.toml");
        assert_eq!(e.field, field);
        assert!(e.message.contains(words), "{:?} lacks {words:?}", e.message);
        let raw = |s: &str| s.contains(|c: char| c.is_control());
        assert!(!raw(&e.file) && !raw(&e.field) && !raw(&e.message), "{e:?}");
        assert_eq!(
            e.to_string(),
            format!("{}:{}: {}: {}", e.file, e.line.unwrap(), e.field, e.message)
        );
    }
    // A key holding one: the field is escaped as before, and so is the
    // message that quotes it.
    let e = err("\"a\\nb\" = 0\n");
    assert_eq!(e.field, "a\\nb");
    assert!(e.message.contains("`a\\nb`"), "{:?}", e.message);
}

/// Many queues full at once are beyond the static estimate (it counts the
/// largest one), so the run enforces the budget as packets accumulate: 20
/// UDP floods, each ten times faster than its 1 Mb/s link, fill 20 queues
/// of 1,000 packets (20,000 packets, about 8.6 MB at 432 B each). With a
/// 3 MB budget the estimate passes and the run stops with an error naming
/// `simulation.memory_budget`, not an allocation past the budget; with the
/// default budget the same scenario runs to the end.
#[test]
fn a_run_whose_queues_outgrow_the_memory_budget_stops_with_an_error() {
    let flood = |budget: &str| {
        let mut t = format!("[simulation]\nduration = \"20s\"\nseed = 1\n{budget}\n");
        for i in 0..20 {
            t += &format!(
                "[[link]]\na = \"s{i}\"\nb = \"d{i}\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
                 queue = {{ kind = \"droptail\", limit = \"1000pkt\" }}\n\
                 [[flow]]\nname = \"u{i}\"\nfrom = \"s{i}\"\nto = \"d{i}\"\n\
                 app = {{ kind = \"onoff\", rate = \"10Mbps\", packet_size = \"1000B\", mean_on = \"1000s\", mean_off = \"1ms\" }}\n"
            );
        }
        Scenario::from_toml_str(&t, "flood.toml").expect("valid scenario")
    };
    let e = flood("memory_budget = \"3MB\"")
        .run(None)
        .expect_err("20,000 queued packets exceed 3 MB");
    assert_eq!(e.field, "simulation.memory_budget", "{e}");
    assert_eq!(e.file, "flood.toml");
    assert!(
        e.message
            .starts_with("the run outgrew the memory budget of 3.0 MB: more than "),
        "{e}"
    );
    assert!(!e.to_string().contains('\n'), "one line: {e}");
    let r = flood("").run(None).expect("4 GB holds 20,000 packets");
    assert_eq!(r.flows.len(), 20);
}
