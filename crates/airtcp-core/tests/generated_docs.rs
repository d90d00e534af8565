//! Documentation generated from the code must be committed as generated:
//! `docs/results.md` comes from the result tables' column lists.
//! Regenerate with `AIRTCP_UPDATE_DOCS=1 cargo test -p airtcp-core --test generated_docs`.

use std::path::Path;

fn check(relative: &str, want: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(relative);
    if std::env::var_os("AIRTCP_UPDATE_DOCS").is_some() {
        std::fs::write(&path, want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{relative} is stale (the code's column list changed): regenerate it with \
         AIRTCP_UPDATE_DOCS=1 cargo test -p airtcp-core --test generated_docs"
    );
}

#[test]
fn results_doc_is_current() {
    check(
        "docs/results.md",
        &airtcp_core::reference::results_markdown(),
    );
}
