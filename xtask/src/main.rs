//! `cargo xtask`: the project's own build and test driver.
//!
//! `cargo xtask test` is the one command that runs every test (README and CI call it):
//! formatting, lints, the Rust test suites, the transcripts through the `streamlab` binary,
//! the lessons through `streamlab check lessons/`, the real-client suites against
//! `streamlab-server` (redis-cli, redis-py, the seed articles' own scripts, ioredis), and the
//! differential checks against real servers (the oracles: Redis 8.2.3, and Redis 7.4 /
//! Valkey 9 when installed): every transcript, then a bounded run of the random differential
//! tester (`crates/difftest`) against Redis 8.2.3.
//!
//! `cargo xtask diff [ARGS]` runs the differential tester alone, for as long as asked (its
//! options, see `streamlab-difftest --help`), against a private Redis 8.2.3.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const USAGE: &str = "\
usage: cargo xtask test [--no-oracle] [--no-clients]   run every check (see README)
       cargo xtask diff [ARGS...]                      differential tester against a private Redis 8.2.3;
                                                       ARGS go to streamlab-difftest (e.g. --seeds 5000)";

/// The bounded differential run of `cargo xtask test`: fixed seeds, 200,000 commands.
const CI_DIFF_ARGS: &[&str] =
    &["--first-seed", "1", "--seeds", "200", "--commands", "1000", "--max-shrinks", "1", "--shrink-seconds", "120"];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => test(args.iter().any(|a| a == "--no-oracle"), args.iter().any(|a| a == "--no-clients")),
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

fn run(step: &str, command: &mut Command) -> Result<(), String> {
    eprintln!("==> {step}");
    if command.get_current_dir().is_none() {
        command.current_dir(root());
    }
    let status = command.status().map_err(|e| format!("{step}: cannot start: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{step} failed ({status})"))
    }
}

/// Where cargo puts its builds (`CARGO_TARGET_DIR` if set).
fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => root().join(dir),
        None => root().join("target"),
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
        "cargo build --release (streamlab, streamlab-server, streamlab-difftest)",
        cargo().args(["build", "--release", "-p", "streamlab", "-p", "streamlab-server", "-p", "streamlab-difftest"]),
    )
}

/// The bounded differential run: the same random commands over RESP to Redis 8.2.3 and to a
/// `streamlab-server` started here, side by side.
fn differential_against_server(reference_port: u16) -> Result<(), String> {
    let port = reference_port + 10;
    let server = target_dir().join("release/streamlab-server");
    eprintln!("==> start streamlab-server on 127.0.0.1:{port}");
    let mut child = Command::new(&server)
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", server.display()))?;
    // Wait until it accepts connections (it prints its banner as it binds; polling is simpler).
    let ready = (0..100).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    let result = if ready {
        run(
            "differential run: Redis 8.2.3 vs streamlab-server (200 seeds x 1000 commands)",
            Command::new(difftest())
                .args(["--reference", &format!("redis://127.0.0.1:{reference_port}")])
                .args(["--target", &format!("redis://127.0.0.1:{port}")])
                .args(CI_DIFF_ARGS),
        )
    } else {
        Err(format!("streamlab-server did not listen on port {port}"))
    };
    let _ = child.kill();
    let _ = child.wait();
    result
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
    let port = std::env::var("ORACLE_PORT").unwrap_or_else(|_| "16379".into());
    let script = root().join("tests/oracle/redis.sh");
    run("start the reference Redis 8.2.3", Command::new("bash").arg(&script).args(["start", &port]))?;
    let worked = run(
        "streamlab-difftest against Redis 8.2.3",
        Command::new(difftest()).args(["--reference", &format!("redis://127.0.0.1:{port}")]).args(args),
    );
    let stopped = run("stop the reference Redis", Command::new("bash").arg(&script).args(["stop", &port]));
    worked.and(stopped)
}

fn test(no_oracle: bool, no_clients: bool) -> Result<(), String> {
    run("cargo fmt --check", cargo().args(["fmt", "--all", "--", "--check"]))?;
    run("cargo clippy", cargo().args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]))?;
    run("cargo test", cargo().args(["test", "--workspace"]))?;
    build_release()?;
    let files = transcripts()?;
    let streamlab = target_dir().join("release/streamlab");
    run("streamlab replay tests/transcripts/*", Command::new(&streamlab).arg("replay").args(&files))?;
    run("streamlab check lessons/", Command::new(&streamlab).args(["check", "lessons/"]))?;
    if no_clients {
        eprintln!("==> real-client suites skipped (--no-clients)");
    } else {
        clients(&target_dir().join("release/streamlab-server"))?;
    }
    if no_oracle {
        eprintln!("==> oracle comparison skipped (--no-oracle)");
        return Ok(());
    }
    oracle(&files)
}

/// The real-client suites against the release `streamlab-server` (tests/clients/README.md):
/// redis-cli and redis-py (pytest), the seed articles' own scripts, ioredis (node --test).
fn clients(server: &Path) -> Result<(), String> {
    run(
        "redis-cli and redis-py suites (pytest tests/clients/python)",
        Command::new("python3")
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/clients/python"])
            .env("STREAMLAB_SERVER", server),
    )?;
    run(
        "seed articles 000 and 002, their scripts unmodified",
        Command::new("python3").arg("tests/clients/seeds/run_seeds.py").arg("--server").arg(server),
    )?;
    let node = root().join("tests/clients/node");
    if !node.join("node_modules/ioredis").exists() {
        run("npm ci (ioredis)", Command::new("npm").args(["ci", "--no-audit", "--no-fund"]).current_dir(&node))?;
    }
    run(
        "ioredis suite (node --test tests/clients/node)",
        Command::new("node").args(["--test", "test/"]).current_dir(&node).env("STREAMLAB_SERVER", server),
    )
}

/// Starts the reference servers (Redis 8.2.3 always; Redis 7.4 and Valkey 9 when their wheels
/// are installed, see tests/oracle/redis.sh), compares every transcript with the server its
/// `# oracle:` header names, stops them.
fn oracle(files: &[String]) -> Result<(), String> {
    let port: u16 = std::env::var("ORACLE_PORT").ok().and_then(|p| p.parse().ok()).unwrap_or(16379);
    let script = root().join("tests/oracle/redis.sh");
    run("start the reference Redis 8.2.3", Command::new("bash").arg(&script).args(["start", &port.to_string()]))?;
    let mut started = vec![port];
    let mut extra = Vec::new();
    for (offset, kind) in [(1, "redis-7.4"), (2, "valkey-9")] {
        let found = Command::new("bash")
            .arg(&script)
            .args(["find", kind])
            .current_dir(root())
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            eprintln!("==> {kind} is not installed: its transcripts are skipped");
            continue;
        }
        let p = port + offset;
        run(
            &format!("start the reference {kind}"),
            Command::new("bash").arg(&script).args(["start", &p.to_string(), kind]),
        )?;
        started.push(p);
        extra.extend(["--server".to_owned(), format!("{kind}={p}")]);
    }
    let compared = run(
        "compare transcripts with the reference servers",
        Command::new("python3")
            .arg(root().join("tests/oracle/compare.py"))
            .args(["--port", &port.to_string()])
            .args(&extra)
            .args(files),
    );
    let differential = differential_against_server(port);
    let compared = compared.and(differential);
    let mut stopped = Ok(());
    for p in started {
        stopped = stopped
            .and(run("stop a reference server", Command::new("bash").arg(&script).args(["stop", &p.to_string()])));
    }
    compared.and(stopped)
}
