//! `cargo xtask`: the project's own build and test driver.
//!
//! `cargo xtask test` is the one command that runs every test (README and CI call it):
//! formatting, lints, the Rust test suites, the transcripts through the `streamlab` binary,
//! and the differential checks against a real Redis 8.2.3 (the oracle): every transcript, then
//! a bounded run of the random differential tester (`crates/difftest`).
//!
//! `cargo xtask diff [ARGS]` runs the differential tester alone, for as long as asked (its
//! options, see `streamlab-difftest --help`), against a private Redis 8.2.3.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const USAGE: &str = "\
usage: cargo xtask test [--no-oracle]   run every check (see README)
       cargo xtask diff [ARGS...]       differential tester against a private Redis 8.2.3;
                                        ARGS go to streamlab-difftest (e.g. --seeds 5000)";

/// The bounded differential run of `cargo xtask test`: fixed seeds, 200,000 commands.
const CI_DIFF_ARGS: &[&str] =
    &["--first-seed", "1", "--seeds", "200", "--commands", "1000", "--max-shrinks", "1", "--shrink-seconds", "120"];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => test(args.iter().any(|a| a == "--no-oracle")),
        Some("diff") => diff(&args[1..]),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace").to_path_buf()
}

/// Where cargo puts build products: `$CARGO_TARGET_DIR` if set, else `target/`.
fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => root().join(dir),
        None => root().join("target"),
    }
}

fn run(step: &str, command: &mut Command) -> Result<(), String> {
    eprintln!("==> {step}");
    let status = command.current_dir(root()).status().map_err(|e| format!("{step}: cannot start: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{step} failed ({status})"))
    }
}

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

fn transcripts() -> Result<Vec<String>, String> {
    let dir = root().join("tests/transcripts");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    files.sort();
    Ok(files)
}

fn build_release() -> Result<(), String> {
    run(
        "cargo build --release (streamlab, streamlab-difftest)",
        cargo().args(["build", "--release", "-p", "streamlab", "-p", "streamlab-difftest"]),
    )
}

fn test(no_oracle: bool) -> Result<(), String> {
    run("cargo fmt --check", cargo().args(["fmt", "--all", "--", "--check"]))?;
    run("cargo clippy", cargo().args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]))?;
    run("cargo test", cargo().args(["test", "--workspace"]))?;
    build_release()?;
    let files = transcripts()?;
    let streamlab = target_dir().join("release/streamlab");
    run("streamlab replay tests/transcripts/*", Command::new(&streamlab).arg("replay").args(&files))?;
    if no_oracle {
        eprintln!("==> oracle comparisons skipped (--no-oracle)");
        return Ok(());
    }
    with_oracle(|port| {
        let compared = run(
            "compare transcripts with Redis 8.2.3",
            Command::new("python3").arg(root().join("tests/oracle/compare.py")).args(["--port", port]).args(&files),
        );
        let differential = run(
            "differential run against Redis 8.2.3 (200 seeds x 1000 commands)",
            Command::new(difftest()).args(["--reference", &format!("redis://127.0.0.1:{port}")]).args(CI_DIFF_ARGS),
        );
        compared.and(differential)
    })
}

fn difftest() -> PathBuf {
    target_dir().join("release/streamlab-difftest")
}

/// `cargo xtask diff ARGS`: the differential tester against a private Redis 8.2.3 (unless
/// ARGS name their own `--reference`).
fn diff(args: &[String]) -> Result<(), String> {
    build_release()?;
    if args.iter().any(|a| a == "--reference") {
        return run("streamlab-difftest", Command::new(difftest()).args(args));
    }
    with_oracle(|port| {
        run(
            "streamlab-difftest against Redis 8.2.3",
            Command::new(difftest()).args(["--reference", &format!("redis://127.0.0.1:{port}")]).args(args),
        )
    })
}

/// Starts the reference Redis 8.2.3 on `$ORACLE_PORT` (default 16379), runs `work` with its
/// port, stops it.
fn with_oracle(work: impl FnOnce(&str) -> Result<(), String>) -> Result<(), String> {
    let port = std::env::var("ORACLE_PORT").unwrap_or_else(|_| "16379".into());
    let script = root().join("tests/oracle/redis.sh");
    run("start the reference Redis 8.2.3", Command::new("bash").arg(&script).args(["start", &port]))?;
    let worked = work(&port);
    let stopped = run("stop the reference Redis", Command::new("bash").arg(&script).args(["stop", &port]));
    worked.and(stopped)
}
