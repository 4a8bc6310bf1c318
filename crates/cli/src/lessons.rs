//! `streamlab check [--bless] DIR`: validates a lesson directory (its `index.toml`, every
//! other `*.toml` as a lesson) and compares each lesson's golden trace with
//! `DIR/golden/<id>.txt`; `streamlab check FILE.toml` validates one lesson alone. The checks
//! themselves live in `streamlab_lessons::validate`; this module reads and writes the files
//! and prints the report.

use std::fmt::Write as _;
use std::path::Path;

use streamlab_lessons::validate::{parse_index, validate_index, validate_lesson, Report};

use crate::transcript::diff;

/// What checking a directory found.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The report, ending with `N passed, M failed, K skipped`.
    pub text: String,
    /// Lessons (and the index) without problems.
    pub passed: usize,
    /// Lessons (and the index) with problems.
    pub failed: usize,
    /// Lessons whose commands were not run (the engine lacks a feature they need).
    pub skipped: usize,
}

/// Checks every lesson in `dir`. With `bless`, golden traces that differ or are missing are
/// written, and traces of lessons that no longer exist are removed.
pub fn check_dir(dir: &Path, bless: bool) -> Outcome {
    let mut out = Outcome::default();
    let mut files: Vec<_> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "toml") && p.file_name().is_some_and(|n| n != "index.toml"))
            .collect(),
        Err(error) => {
            let _ = writeln!(out.text, "FAIL  {}: {error}", dir.display());
            out.failed += 1;
            return finish(out);
        }
    };
    files.sort();
    let mut reports: Vec<Report> = Vec::new();
    for path in &files {
        if let Some(report) = check_one(path, Some((dir, bless)), &mut out) {
            reports.push(report);
        }
    }
    stale_goldens(dir, &reports, bless, &mut out);
    let index_path = dir.join("index.toml");
    let index_name = index_path.display().to_string();
    let lessons: Vec<_> = reports.iter().filter_map(|r| r.lesson.as_ref()).collect();
    let index_problems = match std::fs::read_to_string(&index_path) {
        Ok(text) => match parse_index(&index_name, &text) {
            Ok(index) => validate_index(&index_name, &index, &lessons).iter().map(ToString::to_string).collect(),
            Err(error) => vec![error.to_string()],
        },
        Err(error) => vec![format!("{index_name}: {error}")],
    };
    if index_problems.is_empty() {
        let _ = writeln!(out.text, "ok    index ({} lessons)", lessons.len());
        out.passed += 1;
    } else {
        let _ = writeln!(out.text, "FAIL  index ({index_name})");
        for problem in index_problems {
            let _ = writeln!(out.text, "  - {problem}");
        }
        out.failed += 1;
    }
    finish(out)
}

/// `streamlab check FILE.toml`: one lesson on its own, as an author checks a draft (the
/// studio's export, say) before it joins a directory; with no directory around it there is no
/// index to agree with and no golden trace to compare, and the report says so.
pub fn check_file(path: &Path) -> Outcome {
    let mut out = Outcome::default();
    if check_one(path, None, &mut out).is_some_and(|r| r.passed()) {
        let _ = writeln!(out.text, "      (one file: no index, and the golden trace is not compared)");
    }
    finish(out)
}

/// Validates one lesson file and reports it; with `golden` (the directory and whether to
/// bless), its trace is compared with the directory's golden file. Returns the report, unless
/// the file could not be read.
fn check_one(path: &Path, golden: Option<(&Path, bool)>, out: &mut Outcome) -> Option<Report> {
    let name = path.display().to_string();
    let report = match std::fs::read_to_string(path) {
        Ok(text) => validate_lesson(&name, &text),
        Err(error) => {
            let _ = writeln!(out.text, "FAIL  {name}: {error}");
            out.failed += 1;
            return None;
        }
    };
    let mut problems: Vec<String> = report.problems.iter().map(ToString::to_string).collect();
    if let (Some(lesson), None, Some((dir, bless))) = (&report.lesson, &report.skipped, golden) {
        if let Some(problem) = self::golden(dir, &lesson.id, &report.trace, bless, &mut out.text) {
            problems.push(problem);
        }
    }
    let id = report.lesson.as_ref().map_or(name.clone(), |l| l.id.clone());
    if !problems.is_empty() {
        let _ = writeln!(out.text, "FAIL  {id} ({name})");
        for problem in problems {
            for (n, line) in problem.lines().enumerate() {
                let _ = writeln!(out.text, "{}{line}", if n == 0 { "  - " } else { "    " });
            }
        }
        out.failed += 1;
    } else if let Some(reason) = &report.skipped {
        let _ = writeln!(out.text, "SKIP  {id}: {reason}");
        out.skipped += 1;
    } else {
        let lesson = report.lesson.as_ref().expect("a passing lesson parsed");
        let _ = writeln!(out.text, "ok    {id} ({} tasks, {} variants)", lesson.tasks.len(), lesson.variants.len());
        out.passed += 1;
    }
    Some(report)
}

fn finish(mut out: Outcome) -> Outcome {
    let _ = writeln!(out.text, "{} passed, {} failed, {} skipped", out.passed, out.failed, out.skipped);
    out
}

/// Compares a trace with its golden file (or writes it with `bless`). Returns the problem.
fn golden(dir: &Path, id: &str, trace: &str, bless: bool, text: &mut String) -> Option<String> {
    let path = dir.join("golden").join(format!("{id}.txt"));
    let expected = std::fs::read_to_string(&path).ok();
    if expected.as_deref() == Some(trace) {
        return None;
    }
    if bless {
        let written = std::fs::create_dir_all(dir.join("golden")).and_then(|()| std::fs::write(&path, trace));
        return match written {
            Ok(()) => {
                let _ = writeln!(text, "blessed {}", path.display());
                None
            }
            Err(error) => Some(format!("{}: {error}", path.display())),
        };
    }
    Some(match expected {
        None => format!("no golden trace {}: run `streamlab check --bless` to write it", path.display()),
        Some(expected) => format!(
            "the golden trace {} differs (an engine change altered this lesson; \
             `streamlab check --bless` accepts it):\n{}",
            path.display(),
            diff(&expected, trace)
        ),
    })
}

/// Golden traces whose lesson is gone fail the run (and are removed with `bless`).
fn stale_goldens(dir: &Path, reports: &[Report], bless: bool, out: &mut Outcome) {
    let Ok(entries) = std::fs::read_dir(dir.join("golden")) else { return };
    let mut stale: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let id = p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            p.extension().is_some_and(|e| e == "txt")
                && !reports.iter().any(|r| r.lesson.as_ref().is_some_and(|l| l.id == id))
        })
        .collect();
    stale.sort();
    for path in stale {
        if bless && std::fs::remove_file(&path).is_ok() {
            let _ = writeln!(out.text, "removed {}", path.display());
        } else {
            let _ = writeln!(out.text, "FAIL  {}: a golden trace without a lesson", path.display());
            out.failed += 1;
        }
    }
}
