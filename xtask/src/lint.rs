//! `cargo xtask lint`: the wasm size rules as a check that fails the build (ARCHITECTURE.md,
//! "Wasm budget"). The crates that ship in the page and the grader must not pull in code
//! the budget has no room for; each rule names what to use instead. Test code is exempt: a
//! file's in-file `#[cfg(test)] mod tests { ... }` (last in the file, by convention) and files
//! named `tests.rs` or `testkit.rs`, which only tests compile. So is a line that says why it
//! never reaches wasm in a `// not in wasm: ...` comment (code behind the `server` feature).

use std::path::{Path, PathBuf};

/// A rule: a text that must not appear in the code of some crates, and why.
struct Rule {
    /// What is looked for, literally.
    needle: &'static str,
    /// The crates (paths from the workspace root) it applies to.
    crates: &'static [&'static str],
    /// What to use instead.
    why: &'static str,
}

/// The crates built into the page's, the grader's or the studio's wasm.
const WASM: &[&str] =
    &["crates/engine", "crates/protocol", "crates/lessons", "crates/view", "crates/grader", "crates/studio", "web"];

const RULES: &[Rule] = &[
    Rule { needle: ".sort(", crates: WASM, why: "std's sorts are ~15 KB of wasm each: use streamlab_engine::sort" },
    Rule { needle: ".sort_by(", crates: WASM, why: "std's sorts are ~15 KB of wasm each: use streamlab_engine::sort" },
    Rule {
        needle: ".sort_by_key(",
        crates: WASM,
        why: "std's sorts are ~15 KB of wasm each: use streamlab_engine::sort",
    },
    Rule {
        needle: ".sort_unstable",
        crates: WASM,
        why: "std's sorts are ~15 KB of wasm each: use streamlab_engine::sort",
    },
    Rule {
        needle: "BTreeMap",
        crates: WASM,
        why: "std's B-trees cost each key type its own copy: use ChunkMap or SortedMap",
    },
    Rule {
        needle: "BTreeSet",
        crates: WASM,
        why: "std's B-trees cost each key type its own copy: use ChunkSet or SortedSet",
    },
    Rule {
        needle: "Deserialize",
        crates: WASM,
        why: "serde's deserializers are code per type: read the few inputs by hand (lessons/src/shape.rs)",
    },
    Rule { needle: "parse::<f64>", crates: WASM, why: "std's float parser is ~12 KB: parse the digits as integers" },
];

/// In the grader's own crate, indexing by a range pulls in the panic paths of slicing for
/// every call site; `get(..)` with a fallback does not.
const GRADER_SLICING: &str = "crates/grader";

/// One rule broken: where and why.
#[derive(Debug, PartialEq, Eq)]
pub struct Finding {
    pub file: PathBuf,
    pub line: usize,
    pub why: String,
}

/// Checks every Rust file of the crates the rules name, under `root`.
pub fn check(root: &Path) -> Vec<Finding> {
    let mut findings = Vec::new();
    for krate in WASM {
        for file in rust_files(&root.join(krate).join("src")) {
            let Ok(text) = std::fs::read_to_string(&file) else { continue };
            let relative = file.strip_prefix(root).unwrap_or(&file).to_path_buf();
            findings.extend(check_text(&relative, krate, &text));
        }
    }
    findings
}

/// The findings in one file's text, of crate `krate`.
fn check_text(file: &Path, krate: &str, text: &str) -> Vec<Finding> {
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    if name == "tests.rs" || name == "testkit.rs" {
        return Vec::new();
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut findings = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let code = line.split("//").next().unwrap_or_default();
        if line.contains("// not in wasm:") {
            continue;
        }
        if line.trim() == "#[cfg(test)]" && lines.get(n + 1).is_some_and(|next| next.trim() == "mod tests {") {
            break;
        }
        for rule in RULES.iter().filter(|r| r.crates.contains(&krate)) {
            if code.contains(rule.needle) {
                findings.push(Finding {
                    file: file.to_path_buf(),
                    line: n + 1,
                    why: format!("`{}`: {}", rule.needle, rule.why),
                });
            }
        }
        if krate == GRADER_SLICING && slices_by_range(code) {
            findings.push(Finding {
                file: file.to_path_buf(),
                line: n + 1,
                why: "indexing by a range in grader code: use `get(..)` with a fallback".to_owned(),
            });
        }
    }
    findings
}

/// Whether a line of code indexes with a range: `[a..b]`, `[..]`, `[a..]`.
fn slices_by_range(code: &str) -> bool {
    let bytes = code.as_bytes();
    let mut open = None;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'[' => open = Some(i),
            b']' => {
                if let Some(start) = open.take() {
                    let inner = &code[start + 1..i];
                    // A slice type or pattern (`&[u8]`, `[a, b]`) has no `..` inside.
                    if inner.contains("..") && !inner.contains(',') && !inner.contains(';') {
                        return true;
                    }
                }
            }
            _ => {}
        }
    }
    false
}

/// The `.rs` files under `dir`, recursively, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_find_what_wasm_code_must_not_use_and_spare_tests() {
        let text = "fn a(v: &mut Vec<u8>) {\n    v.sort(); // std\n    let m = std::collections::BTreeMap::<u8, u8>::new();\n}\n\
                    // a comment may say .sort()\n#[cfg(test)]\nmod tests {\n    fn b(v: &mut Vec<u8>) { v.sort() }\n}\n";
        let found = check_text(Path::new("crates/engine/src/x.rs"), "crates/engine", text);
        assert_eq!(found.iter().map(|f| f.line).collect::<Vec<_>>(), [2, 3]);
        assert!(found[0].why.contains("streamlab_engine::sort"));
        assert!(check_text(Path::new("crates/engine/src/tests.rs"), "crates/engine", text).is_empty());
        let excused = "let x = s.parse::<f64>(); // not in wasm: the server feature\n";
        assert!(check_text(Path::new("crates/protocol/src/a.rs"), "crates/protocol", excused).is_empty());
    }

    #[test]
    fn grader_code_must_not_index_by_range() {
        assert!(slices_by_range("let x = &bytes[1..];"));
        assert!(slices_by_range("let x = &s[..n];"));
        assert!(!slices_by_range("fn f(b: &[u8]) -> [u8; 4] { [0; 4] }"));
        assert!(!slices_by_range("let v = [a, b]; let r = bytes.get(1..);"));
        let found = check_text(Path::new("crates/grader/src/lib.rs"), "crates/grader", "let a = &b[2..];\n");
        assert_eq!(found.len(), 1);
        assert!(check_text(Path::new("crates/view/src/lib.rs"), "crates/view", "let a = &b[2..];\n").is_empty());
    }

    #[test]
    fn the_workspace_keeps_the_rules() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let found = check(root);
        assert!(found.is_empty(), "{found:#?}");
    }
}
