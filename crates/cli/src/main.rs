//! `streamlab`: the StreamLab command line.

use std::process::ExitCode;

use streamlab_cli::transcript::{diff, run_script};

const USAGE: &str = "usage:
  streamlab [repl]                     interactive console (like redis-cli)
  streamlab run FILE                   run a command file, print the transcript
  streamlab replay [--bless] FILE...   check transcripts; --bless rewrites them
  streamlab server [options]           serve over RESP like redis-server (see --help)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None | Some("repl") => match streamlab_cli::repl::run() {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("streamlab: {error}");
                ExitCode::FAILURE
            }
        },
        Some("run") if args.len() == 2 => match std::fs::read_to_string(&args[1]) {
            Ok(text) => {
                print!("{}", run_script(&text));
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("streamlab: {}: {error}", args[1]);
                ExitCode::FAILURE
            }
        },
        Some("replay") => replay(&args[1..]),
        Some("server") => streamlab_server::main_with_args(&args[1..]),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn replay(args: &[String]) -> ExitCode {
    let bless = args.iter().any(|a| a == "--bless");
    let files: Vec<&String> = args.iter().filter(|a| *a != "--bless").collect();
    if files.is_empty() {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    }
    let (mut passed, mut failed) = (0, 0);
    for file in files {
        let expected = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(error) => {
                eprintln!("streamlab: {file}: {error}");
                failed += 1;
                continue;
            }
        };
        let actual = run_script(&expected);
        if actual == expected {
            passed += 1;
        } else if bless {
            if let Err(error) = std::fs::write(file, &actual) {
                eprintln!("streamlab: {file}: {error}");
                failed += 1;
            } else {
                println!("blessed {file}");
                passed += 1;
            }
        } else {
            println!("FAIL {file}\n{}", diff(&expected, &actual));
            failed += 1;
        }
    }
    println!("{passed} passed, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
