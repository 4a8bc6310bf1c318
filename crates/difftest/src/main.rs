//! `streamlab-difftest`: the differential tester's command line. See `--help`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use streamlab_difftest::bench;
use streamlab_difftest::gen::{self, Call, CONNECTIONS};
use streamlab_difftest::run::{run, show, Run};
use streamlab_difftest::shrink::shrink;
use streamlab_difftest::target::{self, Target};
use streamlab_difftest::transcript::{render, Item, CONNECTION_NAMES};
use streamlab_protocol::console::command_line;
use streamlab_protocol::tokenize;

const USAGE: &str = "\
usage:
  streamlab-difftest [OPTIONS]              run seeded random sequences on both targets
  streamlab-difftest replay [OPTIONS] FILE...
                                            run command files / transcripts on both targets and
                                            print each as a transcript of the reference's replies
                                            (to DIR/NAME with --out DIR)
  streamlab-difftest print [--first-seed S] [--commands N]
                                            print the sequence of a seed as a command file
  streamlab-difftest group-cycle --target redis://HOST:PORT [--messages N] [--clients C] [--count B]
                                            consumer-group read/ack load (tests/bench/compare.sh)

options:
  --reference TARGET   where expected replies come from (default redis://127.0.0.1:16379)
  --target TARGET      what is checked (default inproc)
                       TARGET is redis://HOST:PORT (Redis, or streamlab-server), inproc
                       (StreamLab's Session in this process, system clock) or inproc-virtual
  --seeds N            number of seeds (default 100)
  --first-seed S       first seed (default 1)
  --commands N         commands per seed (default 1000)
  --out DIR            also write each shrunk transcript to DIR/difftest-seed-S.txt
  --no-shrink          report differences without shrinking them
  --max-shrinks K      shrink at most K differences (default 3); later ones are only reported
  --shrink-seconds T   time budget per shrink (default 300)
  --stats              print how often each command ran and how often Redis refused it

The last line printed is `N passed, M failed` (N = seeds without differences); the exit
status is 1 when any seed failed.";

struct Options {
    reference: String,
    target: String,
    seeds: u64,
    first_seed: u64,
    commands: usize,
    out: Option<PathBuf>,
    shrink: bool,
    max_shrinks: usize,
    shrink_seconds: u64,
    files: Vec<String>,
    stats: bool,
    messages: usize,
    clients: usize,
    count: usize,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        reference: "redis://127.0.0.1:16379".into(),
        target: "inproc".into(),
        seeds: 100,
        first_seed: 1,
        commands: 1000,
        out: None,
        shrink: true,
        max_shrinks: 3,
        shrink_seconds: 300,
        files: Vec::new(),
        stats: false,
        messages: 100_000,
        clients: 4,
        count: 10,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or_else(|| format!("{name} needs a value"));
        let number =
            |text: String, name: &str| text.parse::<u64>().map_err(|_| format!("{name}: not a number: {text}"));
        match arg.as_str() {
            "--reference" => o.reference = value(arg)?,
            "--target" => o.target = value(arg)?,
            "--seeds" => o.seeds = number(value(arg)?, arg)?,
            "--first-seed" => o.first_seed = number(value(arg)?, arg)?,
            "--commands" => o.commands = number(value(arg)?, arg)? as usize,
            "--out" => o.out = Some(PathBuf::from(value(arg)?)),
            "--no-shrink" => o.shrink = false,
            "--stats" => o.stats = true,
            "--max-shrinks" => o.max_shrinks = number(value(arg)?, arg)? as usize,
            "--shrink-seconds" => o.shrink_seconds = number(value(arg)?, arg)?,
            "--messages" => o.messages = number(value(arg)?, arg)? as usize,
            "--clients" => o.clients = number(value(arg)?, arg)?.max(1) as usize,
            "--count" => o.count = number(value(arg)?, arg)?.max(1) as usize,
            "-h" | "--help" => return Err(String::new()),
            other if other.starts_with("--") => return Err(format!("unknown option {other}")),
            file => o.files.push(file.to_owned()),
        }
    }
    Ok(o)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mode, rest) = match args.first().map(String::as_str) {
        Some("replay") => ("replay", &args[1..]),
        Some("group-cycle") => ("group-cycle", &args[1..]),
        Some("print") => ("print", &args[1..]),
        _ => ("fuzz", &args[..]),
    };
    let options = match parse(rest) {
        Ok(o) => o,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("streamlab-difftest: {message}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = match mode {
        "replay" => replay(&options),
        "group-cycle" => group_cycle(&options),
        "print" => {
            print_seed(&options);
            Ok(true)
        }
        _ => fuzz(&options),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("streamlab-difftest: {message}");
            ExitCode::from(2)
        }
    }
}

fn names() -> Vec<String> {
    CONNECTION_NAMES.iter().map(|n| (*n).to_owned()).collect()
}

/// The same steps on the virtual-clock StreamLab, for the values a transcript must show.
fn virtual_run(steps: &[Call], conns: usize) -> Result<Run, String> {
    let mut a = target::open("inproc-virtual")?;
    let mut b = target::open("inproc-virtual")?;
    run(&mut *a, &mut *b, steps, conns)
}

fn report_difference(outcome: &Run, reference: &dyn Target, target: &dyn Target) {
    let Some(last) = outcome.executed.last() else { return };
    let names: Vec<&str> = CONNECTION_NAMES.to_vec();
    println!("  > {}   (on {})", command_line(&last.step.args), CONNECTION_NAMES[last.step.conn]);
    println!("  normalised replies, --- {} (reference) +++ {}:", reference.describe(), target.describe());
    let diff =
        streamlab_protocol::transcript::diff(&show(&last.reference_norm, &names), &show(&last.target_norm, &names));
    for line in diff.lines().skip(2) {
        println!("  {line}");
    }
    if let Some(why) = &outcome.difference {
        if why != "the replies differ" {
            println!("  {why}");
        }
    }
}

fn fuzz(o: &Options) -> Result<bool, String> {
    let mut reference = target::open(&o.reference)?;
    let mut target = target::open(&o.target)?;
    if let Some(dir) = &o.out {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    println!(
        "difftest: {} seeds from {} x {} commands; reference {}, target {}",
        o.seeds,
        o.first_seed,
        o.commands,
        reference.describe(),
        target.describe()
    );
    let started = Instant::now();
    let (mut passed, mut failed, mut commands, mut shrinks) = (0u64, 0u64, 0usize, 0usize);
    let mut until_progress = 20;
    let mut stats: std::collections::BTreeMap<String, (u64, u64)> = Default::default();
    let mut errors: std::collections::BTreeMap<(String, String), u64> = Default::default();
    let (mut blocked, mut woken) = (0u64, 0u64);
    for seed in o.first_seed..o.first_seed + o.seeds {
        let steps = gen::sequence(seed, o.commands);
        let outcome = run(&mut *reference, &mut *target, &steps, CONNECTIONS)?;
        commands += outcome.commands();
        for observed in &outcome.executed {
            let entry = stats.entry(observed.step.name()).or_default();
            entry.0 += 1;
            let own = observed.reference.iter().find(|(c, _)| *c == observed.step.conn);
            blocked += u64::from(own.is_none());
            woken += observed.reference.iter().filter(|(c, _)| *c != observed.step.conn).count() as u64;
            if let Some((_, streamlab_protocol::Reply::Error(e))) = own {
                entry.1 += 1;
                let short: String = e.chars().take(60).collect();
                *errors.entry((observed.step.name(), short)).or_default() += 1;
            }
        }
        if outcome.difference.is_none() {
            passed += 1;
        } else {
            failed += 1;
            let at = outcome.executed.last().map_or(0, |l| l.index + 1);
            println!("seed {seed}: difference at command {at} of {}", steps.len());
            report_difference(&outcome, &*reference, &*target);
            if o.shrink && shrinks < o.max_shrinks {
                shrinks += 1;
                let deadline = Instant::now() + Duration::from_secs(o.shrink_seconds);
                match shrink(&mut *reference, &mut *target, &steps, CONNECTIONS, deadline) {
                    Ok((small, runs)) => {
                        print_shrunk(o, seed, steps.len(), &small, runs, &mut *reference, &mut *target)?
                    }
                    Err(why) => println!("  not shrunk: {why}"),
                }
            }
        }
        until_progress -= 1;
        if until_progress == 0 {
            until_progress = 20;
            eprintln!(
                "difftest: {} seeds, {commands} commands, {failed} failed, {:.0} s",
                seed - o.first_seed + 1,
                started.elapsed().as_secs_f64()
            );
        }
    }
    if o.stats {
        for (name, (n, refused)) in &stats {
            println!("  {name:<12} {n:>8} sent, {refused:>7} refused ({:.0}%)", 100.0 * *refused as f64 / *n as f64);
        }
        println!("  {blocked} reads blocked, {woken} blocked reads answered later");
        let mut common: Vec<_> = errors.iter().collect();
        common.sort_by(|a, b| b.1.cmp(a.1));
        for ((name, error), n) in common.iter().take(40) {
            println!("  {n:>7}  {name:<12} {error}");
        }
    }
    println!(
        "difftest: {commands} commands compared in {:.1} s, {failed} seeds with a difference",
        started.elapsed().as_secs_f64()
    );
    println!("{passed} passed, {failed} failed");
    Ok(failed == 0)
}

fn print_shrunk(
    o: &Options,
    seed: u64,
    original: usize,
    small: &[Call],
    runs: usize,
    reference: &mut dyn Target,
    target: &mut dyn Target,
) -> Result<(), String> {
    let outcome = run(reference, target, small, CONNECTIONS)?;
    let twin = virtual_run(small, CONNECTIONS)?;
    let mut items = vec![
        Item::Line(format!(
            "# Found by streamlab-difftest, seed {seed}: {original} commands shrunk to {} ({runs} runs).",
            outcome.executed.len()
        )),
        Item::Line(format!(
            "# Replies recorded from {}; {} differed on the last command (normalised, - expected + actual):",
            reference.describe(),
            target.describe()
        )),
    ];
    if let Some(last) = outcome.executed.last() {
        let names: Vec<&str> = CONNECTION_NAMES.to_vec();
        let diff =
            streamlab_protocol::transcript::diff(&show(&last.reference_norm, &names), &show(&last.target_norm, &names));
        for line in diff.lines().skip(2).filter(|l| l.starts_with('+') || l.starts_with('-')) {
            items.push(Item::Line(format!("# {line}")));
        }
    }
    items.extend(outcome.executed.iter().map(|o| Item::Call(o.index)));
    let text = render(&items, &outcome, Some(&twin), &names());
    println!("  shrunk transcript:");
    for line in text.lines() {
        println!("  | {line}");
    }
    if outcome.difference.is_none() {
        println!("  (the shrunk sequence did not differ again: timing-dependent?)");
    }
    if let Some(dir) = &o.out {
        let path = dir.join(format!("difftest-seed-{seed}.txt"));
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        println!("  written to {}", path.display());
    }
    Ok(())
}

/// Runs command files (or transcripts) on both targets; prints each as a transcript of the
/// reference's replies and the first difference, if any.
fn replay(o: &Options) -> Result<bool, String> {
    let mut reference = target::open(&o.reference)?;
    let mut target = target::open(&o.target)?;
    let (mut passed, mut failed) = (0, 0);
    for file in &o.files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
        let is_transcript = text.lines().any(|l| l.starts_with("> "));
        let mut names: Vec<String> = vec!["default".into()];
        let mut current = 0;
        let mut steps = Vec::new();
        let mut items = Vec::new();
        for line in text.lines() {
            let input = match line.strip_prefix("> ") {
                Some(input) => input,
                None if !is_transcript || line.trim().is_empty() || line.starts_with('#') => line,
                None => continue,
            };
            let trimmed = input.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                items.push(Item::Line(input.to_owned()));
            } else if let Some(name) = trimmed.strip_prefix(":as ") {
                let name = name.trim().to_owned();
                current = names.iter().position(|n| *n == name).unwrap_or_else(|| {
                    names.push(name);
                    names.len() - 1
                });
            } else if trimmed.starts_with(':') {
                return Err(format!("{file}: meta-command {trimmed} is not supported here"));
            } else {
                let args = tokenize(trimmed.as_bytes()).map_err(|e| format!("{file}: {trimmed}: {e}"))?;
                items.push(Item::Call(steps.len()));
                steps.push(Call { conn: current, args });
            }
        }
        let outcome = run(&mut *reference, &mut *target, &steps, names.len())?;
        let twin = virtual_run(&steps, names.len())?;
        let text = render(&items, &outcome, Some(&twin), &names);
        match &o.out {
            Some(dir) => {
                let name = std::path::Path::new(file).file_name().ok_or_else(|| format!("{file}: no file name"))?;
                let path = dir.join(name);
                std::fs::write(&path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
                println!("{file}: transcript written to {}", path.display());
            }
            None => print!("{text}"),
        }
        if outcome.difference.is_some() {
            failed += 1;
            println!("# !! {file}: {} differs here", target.describe());
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            if let Some(last) = outcome.executed.last() {
                print!("{}", show(&last.target_norm, &refs));
            }
        } else {
            passed += 1;
        }
    }
    println!("{passed} passed, {failed} failed");
    Ok(failed == 0)
}

fn print_seed(o: &Options) {
    let mut current = 0;
    for step in gen::sequence(o.first_seed, o.commands) {
        if step.conn != current {
            current = step.conn;
            println!(":as {}", CONNECTION_NAMES[current]);
        }
        println!("{}", command_line(&step.args));
    }
}

fn group_cycle(o: &Options) -> Result<bool, String> {
    let addr = o
        .target
        .strip_prefix("redis://")
        .ok_or_else(|| format!("group-cycle needs --target redis://HOST:PORT, not {}", o.target))?;
    let stats = bench::group_cycle(addr.trim_end_matches('/'), o.messages, o.clients, o.count)?;
    println!(
        "group-cycle: {} entries, {} consumers, COUNT {}: {:.0} entries/s read+acked (fill {:.0} XADD/s)",
        stats.messages, o.clients, o.count, stats.cycle_per_sec, stats.fill_per_sec
    );
    Ok(true)
}
