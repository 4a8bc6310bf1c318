//! `cargo xtask`: the project's own build and test driver.
//!
//! * `cargo xtask serve [--port N]` builds the playground and serves it on 127.0.0.1:8080;
//! * `cargo xtask dist` writes the deployable static site to `dist/`;
//! * `cargo xtask setup` installs what the tests run with where it is missing (see setup.rs);
//! * `cargo xtask test` is the one command that runs every test (README and CI call it): it
//!   starts with `setup` (`--no-setup` skips it), then runs formatting, lints, the Rust test
//!   suites, the transcripts through the `streamlab` binary, the lessons through `streamlab
//!   check lessons/`, the real-client suites against `streamlab-server` (redis-cli, redis-py,
//!   the seed articles' own scripts, ioredis), the browser suite against a fresh `dist/`, and
//!   the differential checks against real servers (the oracles: Redis 8.2.3, and Redis 7.4 /
//!   Valkey 9 when installed, under faketime):
//!   every transcript and every lesson's golden trace, the page's export of sessions and
//!   hostile share links through redis-cli (its output against the page's replies), then a bounded run of the random differential tester
//!   (`crates/difftest`) comparing Redis 8.2.3 with a `streamlab-server`, and the malformed-RESP
//!   table (`tests/robustness/malformed_resp.py`) against both;
//! * `cargo xtask bench` runs the benchmarks and prints their numbers (nothing fails on speed):
//!   the engine's and the session's (`cargo bench`), the grader module's in Node and the page's
//!   in headless Chromium (`tests/bench/`), against a fresh `dist/`;
//! * `cargo xtask lint` checks the wasm size rules (no std sorts, B-trees, serde deserializers
//!   or float parsing in the crates the page and the grader ship; see xtask/src/lint.rs);
//! * `cargo xtask diff [ARGS]` runs the differential tester alone, for as long as asked (its
//!   options, see `streamlab-difftest --help`), against a private Redis 8.2.3.

mod lint;
mod serve;
mod setup;
mod shrink;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use setup::WASM_TARGET;

const USAGE: &str = "usage:
  cargo xtask serve [--port N]          build the playground and serve it on 127.0.0.1:8080
  cargo xtask dist                      write the static site to dist/
  cargo xtask setup                     install what the tests need where it is missing
  cargo xtask test [--no-setup] [--no-oracle] [--no-clients] [--no-browser]
                                        set up, then run every check (see README)
  cargo xtask bench                     run the benchmarks and print their numbers
  cargo xtask lint                      check the wasm size rules (xtask/src/lint.rs)
  cargo xtask diff [ARGS...]            differential tester against a private Redis 8.2.3;
                                        ARGS go to streamlab-difftest (e.g. --seeds 5000)";

/// The bounded differential run of `cargo xtask test`: fixed seeds, 200,000 commands.
const CI_DIFF_ARGS: &[&str] =
    &["--first-seed", "1", "--seeds", "200", "--commands", "1000", "--max-shrinks", "1", "--shrink-seconds", "120"];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().any(|a| a == name);
    let result = match args.first().map(String::as_str) {
        Some("setup") => setup::setup(),
        Some("test") => set_up(!flag("--no-setup"))
            .and_then(|()| test(flag("--no-oracle"), flag("--no-clients"), flag("--no-browser"))),
        // The differential tester needs the venv's Redis 8.2.3, the benchmarks Chromium and
        // tests/browser's playwright-core.
        Some("diff") => set_up(true).and_then(|()| diff(&args[1..])),
        Some("dist") => dist().map(|_| ()),
        Some("bench") => set_up(true).and_then(|()| bench()),
        Some("lint") => wasm_rules(),
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

/// `cargo xtask lint`: the wasm size rules (xtask/src/lint.rs).
fn wasm_rules() -> Result<(), String> {
    eprintln!("==> wasm size rules (xtask/src/lint.rs)");
    let found = lint::check(&root());
    for f in &found {
        eprintln!("{}:{}: {}", f.file.display(), f.line, f.why);
    }
    if found.is_empty() {
        Ok(())
    } else {
        Err(format!("{} place(s) break the wasm size rules (ARCHITECTURE.md, \"Wasm budget\")", found.len()))
    }
}

/// Runs `cargo xtask setup` when asked, then puts its venv first on PATH for what follows.
fn set_up(install: bool) -> Result<(), String> {
    if install {
        setup::setup()?;
    }
    setup::use_venv();
    Ok(())
}

/// `cargo xtask bench`: each benchmark prints its own numbers and the targets they meet or miss.
fn bench() -> Result<(), String> {
    run("engine (cargo bench -p streamlab-engine)", cargo().args(["bench", "-p", "streamlab-engine"]))?;
    run(
        "sessions (cargo bench -p streamlab --bench session)",
        cargo().args(["bench", "-p", "streamlab", "--bench", "session"]),
    )?;
    dist()?;
    run("grader module (node tests/bench/grader.mjs)", Command::new("node").arg("tests/bench/grader.mjs"))?;
    run("page (node tests/bench/page.mjs)", Command::new("node").arg("tests/bench/page.mjs"))
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

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

/// Builds the app and the grader for the browser and writes the static site to `dist/`: the
/// page, its style sheet, the embedding kit (`embed.js`, `embed.html`, examples) and the
/// wasm-bindgen output; the headless grader goes to `dist/grader/` with its typed wrapper,
/// the lesson studio's engine to `dist/studio/`. Returns the directory. With `STREAMLAB_KEEP_NAMES` set, the wasm keeps its function names,
/// for reading browser profiles.
fn dist() -> Result<PathBuf, String> {
    setup::wasm_target()?;
    // Two cargo runs, not one: in one run cargo would unify the features the app's
    // dependencies turn on (Yew, gloo, web-sys) into the grader's build. The crates below
    // streamlab-view still compile once.
    for package in ["streamlab-web", "streamlab-grader", "streamlab-studio"] {
        run(
            &format!("cargo build ({package}; wasm32, wasm-release)"),
            cargo().args(["build", "-p", package, "--target", WASM_TARGET, "--profile", "wasm-release"]),
        )?;
    }
    let built = target_dir().join(WASM_TARGET).join("wasm-release");
    let out = root().join("dist");
    if out.exists() {
        std::fs::remove_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    bindgen(&built.join("streamlab-web.wasm"), &out, "streamlab", false)?;
    copy_dir(&root().join("web/assets"), &out, &everything)?;
    copy_dir(&root().join("web/examples"), &out.join("examples"), &everything)?;
    copy_dir(&root().join("lessons"), &out.join("lessons"), &lesson_file)?;
    let grader = out.join("grader");
    bindgen(&built.join("streamlab_grader.wasm"), &grader, "streamlab_grader", true)?;
    copy_dir(&root().join("crates/grader/js"), &grader, &everything)?;
    // The studio's engine: its own module, loaded by studio.html on first use only.
    bindgen(&built.join("streamlab_studio.wasm"), &out.join("studio"), "streamlab_studio", false)?;
    let size = std::fs::metadata(out.join("streamlab_bg.wasm")).map(|m| m.len()).unwrap_or(0);
    eprintln!("==> dist/ ready ({} KiB of app wasm before compression)", size / 1024);
    Ok(out)
}

/// Runs wasm-bindgen in process on `wasm`, writing an ES module named `name` into `out`
/// (with its `.d.ts` when `typescript`).
fn bindgen(wasm: &Path, out: &Path, name: &str, typescript: bool) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    eprintln!("==> wasm-bindgen (in process) {}", wasm.display());
    wasm_bindgen_cli_support::Bindgen::new()
        .input_path(wasm)
        .out_name(name)
        .web(true)
        .map_err(|e| format!("wasm-bindgen: {e}"))?
        .typescript(typescript)
        .remove_name_section(std::env::var_os("STREAMLAB_KEEP_NAMES").is_none())
        .remove_producers_section(true)
        .generate(out)
        .map_err(|e| format!("wasm-bindgen: {e:#}"))?;
    let bundle = out.join(format!("{name}_bg.wasm"));
    let bytes = std::fs::read(&bundle).map_err(|e| format!("{}: {e}", bundle.display()))?;
    let shrunk = shrink::shrink(&bytes)?;
    eprintln!(
        "==> size pass: {} identical functions merged, {} -> {} bytes",
        shrunk.merged,
        bytes.len(),
        shrunk.bytes.len()
    );
    std::fs::write(&bundle, &shrunk.bytes).map_err(|e| format!("{}: {e}", bundle.display()))?;
    let glue = out.join(format!("{name}.js"));
    let js = std::fs::read_to_string(&glue).map_err(|e| format!("{}: {e}", glue.display()))?;
    let js = shrink::rename_glue(&js, &shrunk.imports).map_err(|e| format!("{}: {e}", glue.display()))?;
    std::fs::write(&glue, js).map_err(|e| format!("{}: {e}", glue.display()))
}

/// Copies the entries of a directory that `keep` accepts (files and subdirectories, the
/// latter recursively with the same test) into `out`.
fn copy_dir(from: &Path, out: &Path, keep: &dyn Fn(&Path) -> bool) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let files = std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))?;
    for file in files.filter_map(Result::ok) {
        let path = file.path();
        if !keep(&path) {
            continue;
        }
        if path.is_dir() {
            copy_dir(&path, &out.join(file.file_name()), keep)?;
        } else if STRIPPED.iter().any(|name| file.file_name() == *name) {
            let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            std::fs::write(out.join(file.file_name()), strip_comments(&text))
                .map_err(|e| format!("{}: {e}", path.display()))?;
        } else {
            std::fs::copy(&path, out.join(file.file_name())).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// The embedding kit's and the studio's scripts, shipped as they are written but for their
/// comments: they count against their budgets (tests/browser/sizes.mjs), and the source keeps
/// comments that explain it.
const STRIPPED: &[&str] = &[
    "embed.js",
    "embed-frame.js",
    "fences.js",
    "xapi.js",
    "cmi5.js",
    "scorm.js",
    "jsinput.js",
    // The lesson studio's (web/assets/studio/).
    "studio.js",
    "panels.js",
    "record.js",
    "edit.js",
    "dom.js",
    "tomltext.js",
    "insight.js",
    "check-worker.js",
];

/// `text` without its whole-line `//` comments and its `/* ... */` blocks that start a line
/// (what follows a block's `*/` on its last line stays). Nothing inside code is touched: a
/// comment after code stays, and so does every line inside a template literal (a line with an
/// odd number of backticks opens or closes one).
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_block, mut in_template) = (false, false);
    for line in text.split_inclusive('\n') {
        let code = line.trim_start();
        if in_block {
            if let Some(end) = line.find("*/") {
                in_block = false;
                keep_rest(&mut out, &line[end + 2..]);
            }
            continue;
        }
        if !in_template && code.starts_with("/*") {
            match code[2..].find("*/") {
                Some(end) => keep_rest(&mut out, &code[end + 4..]),
                None => in_block = true,
            }
            continue;
        }
        if !in_template && code.starts_with("//") {
            continue;
        }
        if line.matches('`').count() % 2 == 1 {
            in_template = !in_template;
        }
        out.push_str(line);
    }
    out
}

/// What follows a comment block on its last line, unless only whitespace.
fn keep_rest(out: &mut String, rest: &str) {
    if !rest.trim().is_empty() {
        out.push_str(rest);
    }
}

/// Every entry of a directory.
fn everything(_: &Path) -> bool {
    true
}

/// The lesson files (`lessons/*.toml`): the player and widgets fetch them (not compiled in:
/// the wasm stays small and a lesson edit needs no rebuild); their golden traces and README
/// stay behind.
fn lesson_file(path: &Path) -> bool {
    path.is_file() && path.extension().is_some_and(|e| e == "toml")
}

/// The `.txt` files of a directory of the workspace (`tests/transcripts`, `lessons/golden`),
/// sorted.
fn txt_files(dir: &str) -> Result<Vec<String>, String> {
    let dir = root().join(dir);
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
    let port: u16 = std::env::var("ORACLE_PORT").ok().and_then(|p| p.parse().ok()).unwrap_or(16379);
    start_reference(port, "redis-8.2", false)?;
    let worked = run(
        "streamlab-difftest against Redis 8.2.3",
        Command::new(difftest()).args(["--reference", &format!("redis://127.0.0.1:{port}")]).args(args),
    );
    worked.and(stop_references(&[port]))
}

fn test(no_oracle: bool, no_clients: bool, no_browser: bool) -> Result<(), String> {
    run("cargo fmt --check", cargo().args(["fmt", "--all", "--", "--check"]))?;
    wasm_rules()?;
    run("cargo clippy", cargo().args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]))?;
    run("cargo test", cargo().args(["test", "--workspace"]))?;
    // Public items of the engine, protocol and lessons are documented (a lint) and their docs
    // must not link to nothing.
    run(
        "cargo doc (engine, protocol, lessons)",
        cargo().env("RUSTDOCFLAGS", "-D warnings").args([
            "doc",
            "--no-deps",
            "-p",
            "streamlab-engine",
            "-p",
            "streamlab-protocol",
            "-p",
            "streamlab-lessons",
        ]),
    )?;
    build_release()?;
    let files = txt_files("tests/transcripts")?;
    let streamlab = target_dir().join("release/streamlab");
    run("streamlab replay tests/transcripts/*", Command::new(&streamlab).arg("replay").args(&files))?;
    run("streamlab check lessons/", Command::new(&streamlab).args(["check", "lessons/"]))?;
    if no_clients {
        eprintln!("==> real-client suites skipped (--no-clients)");
    } else {
        clients(&target_dir().join("release/streamlab-server"))?;
    }
    if no_browser {
        eprintln!("==> browser tests skipped (--no-browser)");
    } else {
        browser()?;
    }
    if no_oracle {
        eprintln!("==> oracle comparison skipped (--no-oracle)");
        return Ok(());
    }
    let mut goldens = files;
    goldens.extend(txt_files("lessons/golden")?);
    oracle(&goldens)
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
    run(
        "ioredis suite (node --test tests/clients/node)",
        Command::new("node").args(["--test", "test/"]).current_dir(&node).env("STREAMLAB_SERVER", server),
    )
}

/// Builds `dist/`, then runs the grader module's tests in Node, the browser suite and the
/// budget script in headless Chromium, and prints the embedding kit's sizes.
fn browser() -> Result<(), String> {
    dist()?;
    run("grader module in node (node --test tests/grader)", Command::new("node").args(["--test", "tests/grader/"]))?;
    run("studio modules in node (node --test tests/studio)", Command::new("node").args(["--test", "tests/studio/"]))?;
    run(
        "browser tests (node --test tests/browser)",
        // scorm.test.mjs packages lessons with the release binary test() built; fences.test.mjs
        // builds its docs sites with setup's mdBook and the venv's MkDocs.
        Command::new("node")
            .args(["--test", "--test-concurrency=1", "tests/browser/"])
            .env("STREAMLAB", target_dir().join("release/streamlab"))
            .env("MDBOOK", setup::mdbook())
            .env("MKDOCS", setup::venv().join("bin/mkdocs")),
    )?;
    run("budgets (tests/browser/budget.mjs)", Command::new("node").arg("tests/browser/budget.mjs"))?;
    run("embedding kit sizes (tests/browser/sizes.mjs)", Command::new("node").arg("tests/browser/sizes.mjs"))
}

/// Starts the reference servers under faketime (Redis 8.2.3 always; Redis 7.4 and Valkey 9
/// when their wheels are installed, see tests/oracle/redis.sh) and compares every transcript
/// and lesson golden trace in `files` with the server its `# oracle:` header names, `:clock`
/// moving the servers' frozen clocks; then runs the bounded differential test and the
/// malformed-RESP table against a Redis 8.2.3 on the real clock. Stops every server it started.
fn oracle(files: &[String]) -> Result<(), String> {
    let port: u16 = std::env::var("ORACLE_PORT").ok().and_then(|p| p.parse().ok()).unwrap_or(16379);
    let mut started = Vec::new();
    let compared = compare_with_references(port, files, &mut started);
    // The page's Export replays on the faketime'd Redis 8.2.3 too: the test moves its clock
    // where the file waits.
    let exported = if started.contains(&port) { export_through_redis_cli(port) } else { Ok(()) };
    let stopped = stop_references(&started);
    // The differential tester compares with a running clock: a Redis 8.2.3 of its own.
    let real = port + 3;
    let differential = start_reference(real, "redis-8.2", false).and_then(|()| {
        let differential = differential_against_server(real);
        differential.and(malformed_resp(real)).and(scripts_through_redis_cli(real)).and(stop_references(&[real]))
    });
    compared.and(exported).and(stopped).and(differential)
}

/// The page's Export of sessions and hostile share links, run through `redis-cli` against the
/// faketime'd Redis 8.2.3 on `port` (crates/view/tests/export_redis_cli.rs, ignored by a plain
/// `cargo test`; one test at a time, since they share the server and its clock).
fn export_through_redis_cli(port: u16) -> Result<(), String> {
    let file = Command::new("bash")
        .arg(root().join("tests/oracle/redis.sh"))
        .args(["faketime-file", &port.to_string()])
        .output()
        .map_err(|e| format!("redis.sh faketime-file: {e}"))?;
    let file = String::from_utf8_lossy(&file.stdout).trim().to_owned();
    if file.is_empty() {
        return Err(format!("the Redis 8.2.3 on port {port} is not on a faketime clock"));
    }
    run(
        "exported sessions through redis-cli against Redis 8.2.3",
        cargo()
            .args(["test", "-p", "streamlab-view", "--test", "export_redis_cli", "--", "--ignored", "--test-threads=1"])
            .env("STREAMLAB_EXPORT_REDIS_PORT", port.to_string())
            .env("STREAMLAB_EXPORT_FAKETIME_FILE", file),
    )
}

/// The malformed-RESP table of the reliability review, case by case against Redis 8.2.3 and a
/// `streamlab-server` the script starts: the same replies and the same connection handling
/// (tests/robustness/malformed_resp.py, about 15 s).
fn malformed_resp(reference_port: u16) -> Result<(), String> {
    run(
        "malformed RESP: Redis 8.2.3 vs streamlab-server (tests/robustness)",
        Command::new("python3")
            .arg(root().join("tests/robustness/malformed_resp.py"))
            .args(["--reference-port", &reference_port.to_string()])
            .arg("--server-bin")
            .arg(target_dir().join("release/streamlab-server"))
            .args(["--server-port", &(reference_port + 11).to_string()]),
    )
}

/// The command files of tests/oracle/scripts through `streamlab run` and through `redis-cli`
/// against the real-clock Redis 8.2.3 on `port`: the same replies, blocked reads that time
/// out included (tests/oracle/scripts.py).
fn scripts_through_redis_cli(port: u16) -> Result<(), String> {
    run(
        "command files: streamlab run vs redis-cli and Redis 8.2.3 (tests/oracle/scripts)",
        Command::new("python3")
            .arg(root().join("tests/oracle/scripts.py"))
            .args(["--port", &port.to_string()])
            .arg("--streamlab")
            .arg(target_dir().join("release/streamlab"))
            .args(txt_files("tests/oracle/scripts")?),
    )
}

/// Starts the faketime'd references on `port` (8.2), `port + 1` (7.4), `port + 2` (Valkey),
/// noting each in `started`, and runs compare.py on `files`.
fn compare_with_references(port: u16, files: &[String], started: &mut Vec<u16>) -> Result<(), String> {
    start_reference(port, "redis-8.2", true)?;
    started.push(port);
    let mut extra = Vec::new();
    for (offset, kind) in [(1, "redis-7.4"), (2, "valkey-9")] {
        let found = Command::new("bash")
            .arg(root().join("tests/oracle/redis.sh"))
            .args(["find", kind])
            .current_dir(root())
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            eprintln!("==> {kind} is not installed: its transcripts and lessons are skipped");
            continue;
        }
        let p = port + offset;
        start_reference(p, kind, true)?;
        started.push(p);
        extra.extend(["--server".to_owned(), format!("{kind}={p}")]);
    }
    run(
        "compare transcripts and lesson golden traces with the reference servers",
        Command::new("python3")
            .arg(root().join("tests/oracle/compare.py"))
            // The frozen clocks move only on `:clock`, so times need no normalising: idle
            // times, `*` ids and timestamps are compared as printed.
            .arg("--exact-clock")
            .args(["--port", &port.to_string()])
            .args(&extra)
            .args(files),
    )
}

/// `tests/oracle/redis.sh start PORT KIND`, under faketime (a frozen clock record.py moves)
/// or on the real clock.
fn start_reference(port: u16, kind: &str, faketime: bool) -> Result<(), String> {
    let clock = if faketime { "faketime" } else { "real clock" };
    run(
        &format!("start the reference {kind} on port {port} ({clock})"),
        Command::new("bash")
            .arg(root().join("tests/oracle/redis.sh"))
            .args(["start", &port.to_string(), kind])
            .env("ORACLE_FAKETIME", if faketime { "1" } else { "0" }),
    )
}

fn stop_references(ports: &[u16]) -> Result<(), String> {
    let mut stopped = Ok(());
    for p in ports {
        stopped = stopped.and(run(
            "stop a reference server",
            Command::new("bash").arg(root().join("tests/oracle/redis.sh")).args(["stop", &p.to_string()]),
        ));
    }
    stopped
}

#[cfg(test)]
mod tests {
    use super::strip_comments;

    #[test]
    fn strips_whole_line_comments_only() {
        let source = "/* A header\n * of two lines. */\n(() => {\n  // why\n  const a = 1; // stays\n  /** one line */\n  const url = 'http://x'; /* stays */\n  /* a block */ const b = 2;\n})();\n";
        assert_eq!(
            strip_comments(source),
            "(() => {\n  const a = 1; // stays\n  const url = 'http://x'; /* stays */\n const b = 2;\n})();\n"
        );
    }

    #[test]
    fn keeps_template_literals_whole() {
        let source = "const t = `line\n// not a comment\n/* nor this */\n`;\n// gone\nok();\n";
        assert_eq!(strip_comments(source), "const t = `line\n// not a comment\n/* nor this */\n`;\nok();\n");
    }

    #[test]
    fn an_unclosed_block_runs_to_its_end() {
        assert_eq!(strip_comments("a();\n/* open\nstill\n*/\nb();\n"), "a();\nb();\n");
    }
}
