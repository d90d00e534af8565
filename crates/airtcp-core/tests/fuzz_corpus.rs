//! Replays the checked-in fuzz corpus (`fuzz/corpus/<target>/`) through
//! the same harnesses the cargo-fuzz targets run, on stable Rust, so every
//! test run re-checks what fuzzing found (docs/fuzzing.md).

mod fuzz_harness;

use std::path::PathBuf;

fn replay(target: &str, harness: fn(&[u8])) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../fuzz/corpus/{target}"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    files.sort();
    assert!(
        files.len() >= 10,
        "{}: only {} inputs",
        dir.display(),
        files.len()
    );
    for f in &files {
        // No fuzzer writes here: a campaign (scripts/fuzz) reads this
        // directory and writes its new inputs to fuzz/campaign/<target>/,
        // and only `scripts/fuzz cmin` replaces it (docs/fuzzing.md). So
        // every listed input must read; none is skipped.
        let data = std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let outcome = std::panic::catch_unwind(|| harness(&data));
        assert!(outcome.is_ok(), "{} fails its invariants", f.display());
    }
}

#[test]
fn scenario_loader_corpus() {
    replay("scenario_loader", fuzz_harness::scenario_loader);
}

#[test]
fn tcp_endpoints_corpus() {
    replay("tcp_endpoints", fuzz_harness::tcp_endpoints);
}

#[test]
fn scenario_run_corpus() {
    replay("scenario_run", fuzz_harness::scenario_run);
}

/// The run target's seeds (`seed-*`: the examples and reproduction
/// scenarios, shortened) are valid scenarios within the harness's bounds
/// (they run in `scenario_run_corpus`): a seed the loader refuses, or the
/// harness skips, would start the campaign from nothing but parse errors.
#[test]
fn scenario_run_seeds_load_within_the_harness_bounds() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/scenario_run");
    let mut seeds = 0;
    for entry in std::fs::read_dir(&dir).expect("the run corpus") {
        let path = entry.expect("directory entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with("seed-") {
            continue;
        }
        seeds += 1;
        let text = std::fs::read_to_string(&path).expect("a text seed");
        let sc = airtcp_core::scenario::Scenario::from_toml_str(&text, &name)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            !fuzz_harness::beyond_run_size(&sc),
            "{name}: beyond the run harness's bounds, so never run"
        );
        sc.build(None).unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(seeds >= 10, "only {seeds} seeds");
}
