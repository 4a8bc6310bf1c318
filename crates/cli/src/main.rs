//! `streamlab`: the StreamLab command line.

use std::io::Write;
use std::process::ExitCode;

use streamlab_cli::transcript::{replay_file, run_file, Replayed};
use streamlab_protocol::Profile;

const USAGE: &str = "usage:
  streamlab [--profile NAME] [repl]                     interactive console (like redis-cli)
  streamlab [--profile NAME] run FILE                   run a command file, print the transcript
  streamlab [--profile NAME] replay [--bless] FILE...   check transcripts; --bless rewrites them
  streamlab check [--bless] DIR                         validate the lessons in DIR; --bless rewrites golden traces
  streamlab check FILE.toml                             validate one lesson file on its own
  streamlab server [options]                            serve over RESP like redis-server (see --help)
  streamlab package cmi5 --base URL [options] ID...     write a cmi5 course (cmi5.xml) of lessons (see --help)
  streamlab package scorm --scorm 1.2|2004 [options] -o FILE.zip ID...
                                                        write a SCORM package of lessons (see --help)
profiles: redis-7.4, redis-8.2, redis-8.4, redis-8.6, redis-8.8, redis-8.10 (default), valkey-9";

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut profile = Profile::default();
    if let Some(at) = args.iter().position(|a| a == "--profile" || a.starts_with("--profile=")) {
        let value = match args[at].strip_prefix("--profile=") {
            Some(value) => Some(value.to_owned()),
            None => args.get(at + 1).cloned(),
        };
        let Some(value) = value else {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        };
        match value.parse::<Profile>() {
            Ok(p) => profile = p,
            Err(error) => {
                eprintln!("streamlab: {error}");
                return ExitCode::from(2);
            }
        }
        let width = if args[at].contains('=') { 1 } else { 2 };
        args.drain(at..at + width);
    }
    match args.first().map(String::as_str) {
        None | Some("repl") => match streamlab_cli::repl::run(profile) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("streamlab: {error}");
                ExitCode::FAILURE
            }
        },
        Some("run") if args.len() == 2 => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            match run_file(std::path::Path::new(&args[1]), profile, &mut out) {
                Ok(true) => ExitCode::SUCCESS,
                // The transcript says what was left stuck; the status says the script failed.
                Ok(false) => ExitCode::FAILURE,
                // A reader that has gone (`streamlab run FILE | head`) is not a failure.
                Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(error) => {
                    drop(out);
                    eprintln!("streamlab: {}: {error}", args[1]);
                    ExitCode::FAILURE
                }
            }
        }
        Some("replay") => replay(&args[1..], profile),
        Some("check") => check(&args[1..]),
        Some("server") => streamlab_server::main_with_args(&args[1..]),
        Some("package") if args.get(1).is_some_and(|a| a == "cmi5") => package_cmi5(&args[2..]),
        Some("package") if args.get(1).is_some_and(|a| a == "scorm") => package_scorm(&args[2..]),
        Some("-h" | "--help" | "help") => {
            emit(&format!("{USAGE}\n"));
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// Writes to standard output, ignoring a reader that has gone (`streamlab --help | head -1`),
/// where `print!` would panic.
fn emit(text: &str) {
    let _ = std::io::stdout().write_all(text.as_bytes());
}

fn check(args: &[String]) -> ExitCode {
    let bless = args.iter().any(|a| a == "--bless");
    let dirs: Vec<&String> = args.iter().filter(|a| *a != "--bless").collect();
    let [dir] = dirs.as_slice() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let path = std::path::Path::new(dir);
    let outcome = if path.is_file() {
        if bless {
            eprintln!("streamlab check: --bless writes a directory's golden traces; one file has none\n{USAGE}");
            return ExitCode::from(2);
        }
        streamlab_cli::lessons::check_file(path)
    } else {
        streamlab_cli::lessons::check_dir(path, bless)
    };
    emit(&outcome.text);
    if outcome.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// What a package command starts from: its arguments and every lesson it names, or the exit
/// code once its help, a usage error or the lessons not found are said (`what` is the file
/// not written).
fn package_input<A>(
    args: &[String],
    usage: &str,
    parse: fn(&[String]) -> Result<A, String>,
    lessons_of: fn(&A) -> (&String, &Vec<String>),
    what: &str,
) -> Result<(A, Vec<streamlab_cli::package::LessonFile>), ExitCode> {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        emit(&format!("{usage}\n"));
        return Err(ExitCode::SUCCESS);
    }
    let args = parse(args).map_err(|error| {
        eprintln!("streamlab: {error}\n{usage}");
        ExitCode::from(2)
    })?;
    let (dir, ids) = lessons_of(&args);
    let (lessons, problems) = streamlab_cli::package::read_lessons(std::path::Path::new(dir), ids);
    if !problems.is_empty() {
        for problem in problems {
            eprintln!("streamlab: {problem}");
        }
        eprintln!("streamlab: no {what} written");
        return Err(ExitCode::FAILURE);
    }
    Ok((args, lessons))
}

/// `package cmi5`: the course of the lessons found, or nothing and the ids that were not
/// (a course missing a lesson is an author's mistake, not a smaller course).
fn package_cmi5(args: &[String]) -> ExitCode {
    use streamlab_cli::cmi5;
    let (args, lessons) = match package_input(args, cmi5::USAGE, cmi5::parse_args, |a| (&a.dir, &a.ids), "course") {
        Ok(input) => input,
        Err(code) => return code,
    };
    let lessons: Vec<_> = lessons.into_iter().map(|l| l.lesson).collect();
    let xml = cmi5::course_xml(&args.course, &lessons);
    match &args.out {
        None => emit(&xml),
        Some(file) => {
            if let Err(error) = std::fs::write(file, xml) {
                eprintln!("streamlab: {file}: {error}");
                return ExitCode::FAILURE;
            }
            eprintln!("streamlab: wrote {file} ({} AUs)", lessons.len());
        }
    }
    ExitCode::SUCCESS
}

/// `package scorm`: the zip of the lessons found, or nothing (as `package cmi5`). Lessons
/// whose receipts could outgrow the version's suspend_data are warned about, not refused:
/// the score and status are recorded whatever their size.
fn package_scorm(args: &[String]) -> ExitCode {
    use streamlab_cli::scorm;
    let (args, lessons) = match package_input(args, scorm::USAGE, scorm::parse_args, |a| (&a.dir, &a.ids), "package") {
        Ok(input) => input,
        Err(code) => return code,
    };
    let zip = match scorm::build(&args.package, &lessons) {
        Ok(built) => built.zip,
        Err(error) => {
            eprintln!("streamlab: {error}\nstreamlab: no package written");
            return ExitCode::FAILURE;
        }
    };
    if let scorm::Form::Thin { base } = &args.package.form {
        if base.starts_with("http://") && !["http://localhost", "http://127.0.0.1"].iter().any(|l| base.starts_with(l))
        {
            eprintln!("streamlab: warning: --base is http://: an LMS served over https cannot load StreamLab from it (mixed content)");
        }
    }
    for lesson in &lessons {
        match scorm::size_warning(&args.package, &lesson.lesson) {
            Some(warning) => eprintln!("streamlab: warning: {warning}"),
            None if args.package.version == scorm::Version::Scorm12 => eprintln!(
                "streamlab: lesson \"{}\": its receipt is about {} characters when played by its solutions (SCORM 1.2 keeps 4,096)",
                lesson.lesson.id,
                scorm::receipt_estimate(&lesson.lesson, args.package.quiz)
            ),
            None => {}
        }
    }
    if let Err(error) = std::fs::write(&args.out, &zip) {
        eprintln!("streamlab: {}: {error}", args.out);
        return ExitCode::FAILURE;
    }
    let form = match args.package.form {
        scorm::Form::SelfContained { .. } => "self-contained",
        scorm::Form::Thin { .. } => "thin",
    };
    let version = match args.package.version {
        scorm::Version::Scorm12 => "SCORM 1.2",
        scorm::Version::Scorm2004 => "SCORM 2004 4th edition",
    };
    eprintln!("streamlab: wrote {} ({version}, {form}, {} SCOs, {} bytes)", args.out, lessons.len(), zip.len());
    ExitCode::SUCCESS
}

fn replay(args: &[String], profile: Profile) -> ExitCode {
    let bless = args.iter().any(|a| a == "--bless");
    let files: Vec<&String> = args.iter().filter(|a| *a != "--bless").collect();
    if files.is_empty() {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    }
    let (mut passed, mut failed) = (0, 0);
    for file in files {
        match replay_file(std::path::Path::new(file), profile, bless) {
            Ok(Replayed::Same) => passed += 1,
            Ok(Replayed::Blessed) => {
                emit(&format!("blessed {file}\n"));
                passed += 1;
            }
            Ok(Replayed::Differs(diff)) => {
                emit(&format!("FAIL {file}\n{diff}\n"));
                failed += 1;
            }
            Err(error) => {
                eprintln!("streamlab: {file}: {error}");
                failed += 1;
            }
        }
    }
    emit(&format!("{passed} passed, {failed} failed\n"));
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
