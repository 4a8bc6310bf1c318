//! Session benchmarks: `cargo bench -p streamlab --bench session` (or `cargo xtask bench`).
//!
//! What a long session costs as a learner or a script drives it, at 10k, 100k and 1M steps of
//! the order-event XADD line: `streamlab run` of a command file (lines per second, peak RSS
//! of the process), the console with its full undo history and with the bounded history a
//! script keeps (lines per second, heap bytes per entry), and undo and seek latency at the end
//! of the full history. Each line ends with the targets, met or missed; nothing here
//! fails (speed is measured, not tested: the allocation-counting guard is
//! `crates/protocol/tests/linear_history.rs`).
//!
//! Run without `--bench` (as `cargo test --benches` does) it works on 1% of the sizes, as a
//! smoke test that the benchmarks still run.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use streamlab_protocol::{Clock, Console, Keep, Session, VIRTUAL_EPOCH_MS};
use streamlab_testkit::alloc::{live_bytes, Counting};

#[global_allocator]
static ALLOC: Counting = Counting;

fn line(n: usize) -> String {
    format!("XADD s * type order-created orderId {n} isbn 9780441013593 quantity 2")
}

/// `streamlab run FILE` of `steps` lines: wall time and the peak resident set, read from
/// `/proc` while the process runs (its high-water mark only grows).
fn run_file(steps: usize) -> (Duration, u64) {
    let path = std::env::temp_dir().join(format!("streamlab-bench-{}-{steps}.txt", std::process::id()));
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).expect("temp file"));
    for n in 0..steps {
        writeln!(file, "{}", line(n)).expect("write");
    }
    file.flush().expect("flush");
    drop(file);
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_streamlab"))
        .args(["--profile", "redis-8.2", "run"])
        .arg(&path)
        .stdout(Stdio::null())
        .spawn()
        .expect("streamlab runs");
    let status = format!("/proc/{}/status", child.id());
    let mut peak_kb = 0;
    while child.try_wait().expect("wait").is_none() {
        if let Ok(text) = std::fs::read_to_string(&status) {
            let hwm = text.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().strip_suffix(" kB"));
            peak_kb = peak_kb.max(hwm.and_then(|v| v.trim().parse().ok()).unwrap_or(0));
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let elapsed = started.elapsed();
    let _ = std::fs::remove_file(&path);
    (elapsed, peak_kb * 1024)
}

/// A console with `keep`, after `steps` lines: lines per second and heap bytes per entry.
fn console(steps: usize, keep: Keep) -> (Console, f64, f64) {
    let lines: Vec<String> = (0..steps).map(line).collect();
    let live = live_bytes();
    let mut console = Console::new(Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS))).keeping(keep);
    let started = Instant::now();
    for text in &lines {
        console.run(text);
    }
    let rate = steps as f64 / started.elapsed().as_secs_f64();
    let bytes = (live_bytes() - live) as f64 / steps as f64;
    (console, rate, bytes)
}

/// The engine alone (pre-split arguments, no console, no history): heap bytes per entry.
fn engine_bytes(steps: usize) -> f64 {
    let live = live_bytes();
    let mut session = Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS));
    for n in 0..steps {
        session.execute(1, line(n).split(' ').map(|a| a.as_bytes().to_vec()).collect());
    }
    (live_bytes() - live) as f64 / steps as f64
}

/// The slowest of one undo (then redo, untimed) and seeks from the end to the start, the
/// middle and one before the end (then back, untimed).
fn undo_and_seek(console: &mut Console) -> (Duration, Duration) {
    let end = console.timeline().position();
    let started = Instant::now();
    console.undo();
    let undo = started.elapsed();
    console.redo();
    let mut seek = Duration::ZERO;
    for to in [0, end / 2, end.saturating_sub(1)] {
        let started = Instant::now();
        console.seek(to);
        seek = seek.max(started.elapsed());
        console.seek(end);
    }
    (undo, seek)
}

fn mark(met: bool) -> &'static str {
    if met {
        "met"
    } else {
        "MISSED"
    }
}

/// The order-event XADD as commands through `Session::execute`, with no console or history
/// above it: argument vectors, dispatch, parsing, the engine, the reply and the session's
/// bookkeeping.
fn session_xadd(steps: usize) -> f64 {
    let mut session = Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS));
    let conn = session.connect();
    let fields: Vec<Vec<u8>> = ["type", "order-created", "orderId", "0", "isbn", "9780441013593", "quantity", "2"]
        .map(|f| f.as_bytes().to_vec())
        .into();
    let started = Instant::now();
    for n in 0..steps {
        let mut args = Vec::with_capacity(11);
        args.push(b"XADD".to_vec());
        args.push(b"orders".to_vec());
        args.push(format!("{}-0", VIRTUAL_EPOCH_MS as usize + n).into_bytes());
        args.extend(fields.iter().cloned());
        let out = session.execute(conn, args);
        debug_assert!(!out.replies[0].is_error());
        std::hint::black_box(out);
    }
    steps as f64 / started.elapsed().as_secs_f64()
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let sizes: Vec<usize> = [10_000, 100_000, 1_000_000].iter().map(|n| if full { *n } else { n / 100 }).collect();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mut run_rates = Vec::new();
    let mut full_rates = Vec::new();
    for &steps in &sizes {
        println!("Session::execute {steps:>9} XADDs: {:>9.0} commands/s", session_xadd(steps));
    }
    for &steps in &sizes {
        let (elapsed, rss) = run_file(steps);
        let rate = steps as f64 / elapsed.as_secs_f64();
        run_rates.push(rate);
        println!(
            "streamlab run  {steps:>9} XADD lines: {:>7.2} s  {:>9.0} lines/s  peak RSS {:>6.1} MB",
            elapsed.as_secs_f64(),
            rate,
            rss as f64 / 1e6
        );
    }
    for &steps in &sizes {
        let engine = engine_bytes(steps);
        let (_, rate, bytes) = console(steps, Keep::Last(1_000));
        println!(
            "bounded history {steps:>8} steps: {rate:>9.0} lines/s  {bytes:>6.1} B/entry (engine alone {engine:.1} B/entry; {:.2}x)",
            bytes / engine
        );
        let (mut console, rate, bytes) = console(steps, Keep::All);
        full_rates.push(rate);
        let (undo, seek) = undo_and_seek(&mut console);
        println!(
            "full history   {steps:>9} steps: {rate:>9.0} lines/s  {bytes:>6.1} B/entry  undo {:>6.2} ms  slowest seek {:>6.2} ms",
            ms(undo),
            ms(seek)
        );
    }
    if full {
        let share = |rates: &[f64]| rates[2] / rates[0];
        println!(
            "targets: run at 1M >= 70% of 10k: {:.0}% {}; full history at 1M >= 70% of 10k: {:.0}% {}; \
             1M-line run <= 5 s: see above",
            100.0 * share(&run_rates),
            mark(share(&run_rates) >= 0.7),
            100.0 * share(&full_rates),
            mark(share(&full_rates) >= 0.7)
        );
    }
}
