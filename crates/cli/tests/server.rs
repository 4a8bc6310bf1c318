//! `streamlab server` starts the same server as `streamlab-server`.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn streamlab_server_subcommand_serves_and_stops_on_sigterm() {
    let dir = std::env::temp_dir().join(format!("streamlab-cli-server-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let sock = dir.join("redis.sock");
    let mut child = Command::new(env!("CARGO_BIN_EXE_streamlab"))
        .args(["server", "--port", "0", "--unixsocket", sock.to_str().unwrap(), "--save", "", "--appendonly", "no"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("Ready to accept connections unix") {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0, "exited before it was ready");
    }
    let mut s = UnixStream::connect(&sock).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(b"XADD s 1-0 a b\r\n").unwrap();
    let mut buf = [0u8; 32];
    let n = s.read(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"$3\r\n1-0\r\n");
    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert!(!sock.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs the binary with its standard output going to a pipe whose reader is already gone, as
/// in `streamlab --help | head -1` once `head` has left: every write fails with EPIPE.
fn run_into_closed_pipe(args: &[&str]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_streamlab"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn help_and_run_do_not_panic_when_the_reader_has_gone() {
    let dir = std::env::temp_dir().join(format!("streamlab-cli-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ping.redis");
    std::fs::write(&file, "PING\n").unwrap();
    for args in [&["--help"][..], &["server", "--help"], &["server", "--version"], &["run", file.to_str().unwrap()]] {
        let (code, stderr) = run_into_closed_pipe(args);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
