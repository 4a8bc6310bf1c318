//! `cargo xtask`: the project's own build and test driver.
//!
//! * `cargo xtask serve [--port N]` builds the playground and serves it on 127.0.0.1:8080;
//! * `cargo xtask dist` writes the deployable static site to `dist/`;
//! * `cargo xtask test` is the one command that runs every test (README and CI call it):
//!   formatting, lints, the Rust test suites, the transcripts through the `streamlab` binary,
//!   the browser suite against a fresh `dist/`, and the differential check of the transcripts
//!   against a real Redis 8.2.3 (the oracle).

mod serve;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const USAGE: &str = "usage:
  cargo xtask serve [--port N]          build the playground and serve it on 127.0.0.1:8080
  cargo xtask dist                      write the static site to dist/
  cargo xtask test [--no-oracle] [--no-browser]
                                        run every check (see README)";

const WASM_TARGET: &str = "wasm32-unknown-unknown";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().any(|a| a == name);
    let result = match args.first().map(String::as_str) {
        Some("test") => test(flag("--no-oracle"), flag("--no-browser")),
        Some("dist") => dist().map(|_| ()),
        Some("serve") => {
            let port = args.iter().position(|a| a == "--port").and_then(|i| args.get(i + 1));
            match port.map(|p| p.parse::<u16>()) {
                Some(Err(_)) => Err("--port takes a number".to_owned()),
                parsed => dist().and_then(|dir| serve::serve(&dir, parsed.map_or(Ok(8080), |p| p).unwrap_or(8080))),
            }
        }
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

/// Where cargo puts its output (CARGO_TARGET_DIR, or `target/` in the workspace).
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

/// Adds the wasm32 target through rustup when it is missing.
fn ensure_wasm_target() -> Result<(), String> {
    let installed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).lines().any(|l| l.trim() == WASM_TARGET));
    match installed {
        Ok(true) => Ok(()),
        Ok(false) => {
            run("rustup target add wasm32-unknown-unknown", Command::new("rustup").args(["target", "add", WASM_TARGET]))
        }
        // No rustup: let cargo say whether the target is there.
        Err(_) => Ok(()),
    }
}

/// Builds the app for the browser and writes the static site to `dist/`: the page, its style
/// sheet, and the wasm-bindgen output. Returns the directory. With `STREAMLAB_KEEP_NAMES` set,
/// the wasm keeps its function names, for reading browser profiles.
fn dist() -> Result<PathBuf, String> {
    ensure_wasm_target()?;
    run(
        "cargo build (streamlab-web, wasm32, wasm-release)",
        cargo().args(["build", "-p", "streamlab-web", "--target", WASM_TARGET, "--profile", "wasm-release"]),
    )?;
    let wasm = target_dir().join(WASM_TARGET).join("wasm-release").join("streamlab-web.wasm");
    let out = root().join("dist");
    if out.exists() {
        std::fs::remove_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    eprintln!("==> wasm-bindgen (in process) {}", wasm.display());
    wasm_bindgen_cli_support::Bindgen::new()
        .input_path(&wasm)
        .out_name("streamlab")
        .web(true)
        .map_err(|e| format!("wasm-bindgen: {e}"))?
        .typescript(false)
        .remove_name_section(std::env::var_os("STREAMLAB_KEEP_NAMES").is_none())
        .remove_producers_section(true)
        .generate(&out)
        .map_err(|e| format!("wasm-bindgen: {e:#}"))?;
    let assets = root().join("web/assets");
    let files = std::fs::read_dir(&assets).map_err(|e| format!("{}: {e}", assets.display()))?;
    for file in files.filter_map(Result::ok) {
        std::fs::copy(file.path(), out.join(file.file_name()))
            .map_err(|e| format!("{}: {e}", file.path().display()))?;
    }
    let size = std::fs::metadata(out.join("streamlab_bg.wasm")).map(|m| m.len()).unwrap_or(0);
    eprintln!("==> dist/ ready ({} KiB of wasm before compression)", size / 1024);
    Ok(out)
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

fn test(no_oracle: bool, no_browser: bool) -> Result<(), String> {
    run("cargo fmt --check", cargo().args(["fmt", "--all", "--", "--check"]))?;
    run("cargo clippy", cargo().args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]))?;
    run("cargo test", cargo().args(["test", "--workspace"]))?;
    run("cargo build --release (streamlab)", cargo().args(["build", "--release", "-p", "streamlab"]))?;
    let files = transcripts()?;
    let streamlab = target_dir().join("release/streamlab");
    run("streamlab replay tests/transcripts/*", Command::new(&streamlab).arg("replay").args(&files))?;
    if no_browser {
        eprintln!("==> browser tests skipped (--no-browser)");
    } else {
        browser()?;
    }
    if no_oracle {
        eprintln!("==> oracle comparison skipped (--no-oracle)");
        return Ok(());
    }
    oracle(&files)
}

/// Builds `dist/`, then runs the browser suite and the budget script in headless Chromium.
fn browser() -> Result<(), String> {
    dist()?;
    let dir = root().join("tests/browser");
    if !dir.join("node_modules").exists() {
        run("npm ci (tests/browser)", Command::new("npm").args(["ci", "--no-audit", "--no-fund"]).current_dir(&dir))?;
    }
    run(
        "browser tests (node --test tests/browser)",
        Command::new("node").args(["--test", "--test-concurrency=1", "tests/browser/"]),
    )?;
    run("budgets (tests/browser/budget.mjs)", Command::new("node").arg("tests/browser/budget.mjs"))
}

/// Starts the reference Redis 8.2.3, compares every transcript with it, stops it.
fn oracle(files: &[String]) -> Result<(), String> {
    let port = std::env::var("ORACLE_PORT").unwrap_or_else(|_| "16379".into());
    let script = root().join("tests/oracle/redis.sh");
    run("start the reference Redis 8.2.3", Command::new("bash").arg(&script).args(["start", &port]))?;
    let compared = run(
        "compare transcripts with Redis 8.2.3",
        Command::new("python3").arg(root().join("tests/oracle/compare.py")).args(["--port", &port]).args(files),
    );
    let stopped = run("stop the reference Redis", Command::new("bash").arg(&script).args(["stop", &port]));
    compared.and(stopped)
}
