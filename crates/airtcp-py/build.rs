//! Computes the build identity `_core.__build__`: the package version and a
//! digest of the simulator's Rust sources (this crate's and airtcp-core's).
//! Result caches (reproductions, sweeps) and Dask workers compare it, so
//! runs made by other simulator code are never reused or mixed, even when a
//! change did not bump the version.

use std::hash::Hasher;
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let roots = [
        manifest.join("src"),
        manifest.join("Cargo.toml"),
        manifest.join("../airtcp-core/src"),
        manifest.join("../airtcp-core/Cargo.toml"),
    ];
    let mut files = Vec::new();
    for root in &roots {
        // Cargo rescans a directory named here recursively.
        println!("cargo:rerun-if-changed={}", root.display());
        if root.is_dir() {
            sources(root, &mut files);
        } else {
            files.push(root.clone());
        }
    }
    let mut named: Vec<(String, PathBuf)> = files
        .into_iter()
        .map(|p| {
            let name = p
                .strip_prefix(&manifest)
                .unwrap_or(&p)
                .to_string_lossy()
                .replace('\\', "/");
            (name, p)
        })
        .collect();
    named.sort();
    let mut digest = fnv::FnvHasher::default();
    for (name, path) in &named {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        digest.write(name.as_bytes());
        digest.write_u64(bytes.len() as u64);
        digest.write(&bytes);
    }
    let version = std::env::var("CARGO_PKG_VERSION").expect("cargo sets it");
    println!(
        "cargo:rustc-env=AIRTCP_BUILD={version}+src.{:016x}",
        digest.finish()
    );
}
