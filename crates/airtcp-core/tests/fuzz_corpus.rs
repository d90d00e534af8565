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
