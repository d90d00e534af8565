//! `docs/tcp-conformance.md` names, for each rule, the tests that prove it.
//! Every name must be a test that exists where the page says: `file.rs::name`
//! in that file (of `tests/`, or under `src/` for a unit test), a bare name
//! in the module its section's heading names, `prefix_*` (or `prefix_...`)
//! for tests starting so, and `file.rs` alone for a whole module. A renamed
//! or deleted test otherwise leaves the page citing a proof that is gone.

use std::path::{Path, PathBuf};

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The file a reference names: `src/...` under the crate, else `tests/F`,
/// else the one file of that name under `src/`.
fn resolve(file: &str, src_files: &[PathBuf]) -> Result<PathBuf, String> {
    let dir = crate_dir();
    if file.starts_with("src/") {
        let p = dir.join(file);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!("no {file}"))
        };
    }
    let in_tests = dir.join("tests").join(file);
    if in_tests.is_file() {
        return Ok(in_tests);
    }
    let matches: Vec<&PathBuf> = src_files
        .iter()
        .filter(|p| p.file_name().is_some_and(|n| n == file))
        .collect();
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(format!("no tests/{file} and no src/**/{file}")),
        _ => Err(format!("{file} is ambiguous under src/: {matches:?}")),
    }
}

/// Does `file` define a function named `name` (or, with `prefix`, one whose
/// name starts so)?
fn defines(file: &Path, name: &str, prefix: bool) -> bool {
    let text = std::fs::read_to_string(file).unwrap();
    text.match_indices("fn ").any(|(i, _)| {
        let rest = &text[i + 3..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let f = &rest[..end];
        if prefix {
            f.starts_with(name)
        } else {
            f == name
        }
    })
}

#[test]
fn every_test_the_conformance_page_names_exists() {
    let page = crate_dir().join("../../docs/tcp-conformance.md");
    let text = std::fs::read_to_string(&page).unwrap();
    let mut src_files = Vec::new();
    rust_files(&crate_dir().join("src"), &mut src_files);
    let mut module: Option<String> = None;
    let mut checked = 0;
    let mut problems = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = format!("docs/tcp-conformance.md:{}", n + 1);
        if line.starts_with("## ") {
            module = line
                .split('`')
                .skip(1)
                .step_by(2)
                .filter(|t| t.ends_with(".rs"))
                .last()
                .map(str::to_string);
            continue;
        }
        if !line.starts_with('|') || line.starts_with("|---") || line == "| rule | status | test |"
        {
            continue;
        }
        let cells: Vec<&str> = line.split('|').collect();
        let tests = cells[cells.len() - 2];
        for token in tests.split('`').skip(1).step_by(2) {
            checked += 1;
            let (file, name) = match token.rsplit_once("::") {
                Some((f, n)) => (f.to_string(), Some(n)),
                None if token.ends_with(".rs") => (token.to_string(), None),
                None => match &module {
                    Some(m) => (m.clone(), Some(token)),
                    None => {
                        problems.push(format!(
                            "{at}: `{token}` outside a section naming its module"
                        ));
                        continue;
                    }
                },
            };
            let path = match resolve(&file, &src_files) {
                Ok(p) => p,
                Err(e) => {
                    problems.push(format!("{at}: `{token}`: {e}"));
                    continue;
                }
            };
            let Some(name) = name else { continue };
            let (name, prefix) = match name.strip_suffix('*').or_else(|| name.strip_suffix("...")) {
                Some(p) => (p, true),
                None => (name, false),
            };
            if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                problems.push(format!("{at}: `{token}` is not a test name"));
            } else if !defines(&path, name, prefix) {
                problems.push(format!(
                    "{at}: `{token}`: no fn {name} in {}",
                    path.display()
                ));
            }
        }
    }
    assert!(
        checked > 200,
        "only {checked} references read: is the table format still parsed?"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
