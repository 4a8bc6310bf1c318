//! The `streamlab-server` binary, started the way test harnesses start redis-server.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_streamlab-server");

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("streamlab-bin-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Starts the binary and waits for its "Ready to accept connections unix" line; returns the
/// child and the log lines read so far.
fn start(args: &[&str]) -> (Child, Vec<String>) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stdout = child.stdout.take().unwrap();
    let mut lines = Vec::new();
    let mut reader = BufReader::new(stdout);
    loop {
        let mut line = String::new();
        assert!(reader.read_line(&mut line).unwrap() > 0, "exited before it was ready: {lines:?}");
        let ready = line.contains("Ready to accept connections unix");
        lines.push(line);
        if ready {
            break;
        }
    }
    // Keep draining stdout so the server never blocks on a full pipe.
    std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = reader.read_to_string(&mut rest);
    });
    (child, lines)
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill").args([&format!("-{name}"), &child.id().to_string()]).status().unwrap();
    assert!(status.success());
}

fn wait(child: &mut Child) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code().expect("exited, not killed");
        }
        assert!(Instant::now() < deadline, "the server did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn ping(path: &Path) -> String {
    let mut s = UnixStream::connect(path).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(b"PING\r\n").unwrap();
    let mut buf = [0u8; 64];
    let n = s.read(&mut buf).unwrap();
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

fn harness_args(dir: &Path, sock: &Path) -> Vec<String> {
    [
        "--port",
        "0",
        "--unixsocket",
        sock.to_str().unwrap(),
        "--unixsocketperm",
        "700",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        dir.to_str().unwrap(),
        "--maxmemory-policy",
        "noeviction",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect()
}

#[test]
fn sigterm_exits_0_and_removes_the_socket() {
    let dir = temp_dir("term");
    let sock = dir.join("redis.sock");
    let args = harness_args(&dir, &sock);
    let (mut child, lines) = start(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(lines.iter().any(|l| l.contains("* Ready to accept connections unix")), "{lines:?}");
    assert!(!lines.iter().any(|l| l.contains("connections tcp")), "TCP is off: {lines:?}");
    assert_eq!(ping(&sock), "+PONG\r\n");
    // A connection left open (and blocked) does not keep the server alive.
    let mut blocked = UnixStream::connect(&sock).unwrap();
    blocked.write_all(b"XREAD BLOCK 0 STREAMS s $\r\n").unwrap();
    signal(&child, "TERM");
    assert_eq!(wait(&mut child), 0);
    assert!(!sock.exists());
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert_eq!(stderr, "", "the harness options are all understood");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sigint_exits_0_too() {
    let dir = temp_dir("int");
    let sock = dir.join("s.sock");
    let (mut child, _) = start(&["--port", "0", "--unixsocket", sock.to_str().unwrap()]);
    assert_eq!(ping(&sock), "+PONG\r\n");
    signal(&child, "INT");
    assert_eq!(wait(&mut child), 0);
    assert!(!sock.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unknown_options_are_reported_and_ignored_and_a_config_file_is_read() {
    let dir = temp_dir("conf");
    let sock = dir.join("c.sock");
    let conf = dir.join("redis.conf");
    std::fs::write(
        &conf,
        format!("# a private instance\nport 0\nunixsocket {}\nsave \"\"\nenable-debug-command yes\n", sock.display()),
    )
    .unwrap();
    let (mut child, _) = start(&[conf.to_str().unwrap(), "--loglevel", "warning", "--clock", "virtual"]);
    let mut s = UnixStream::connect(&sock).unwrap();
    s.write_all(b"DEBUG STREAMLAB-CLOCK GET\r\n").unwrap();
    let mut buf = [0u8; 64];
    let n = s.read(&mut buf).unwrap();
    assert_eq!(&buf[..n], b":1700000000000\r\n");
    signal(&child, "TERM");
    assert_eq!(wait(&mut child), 0);
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert_eq!(stderr, "streamlab-server: 'loglevel \"warning\"': unsupported option; ignored\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_options_stop_the_server_with_status_1() {
    for args in [&["--profile", "redis-9.9"][..], &["--port", "nope"], &["--daemonize", "yes"], &["--port", "0"]] {
        let out = Command::new(BIN).args(args).stdin(Stdio::null()).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(!all.is_empty(), "{args:?} explains itself");
    }
    let out = Command::new(BIN).args(["--profile", "redis-9.9"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown profile 'redis-9.9'"));
    let out = Command::new(BIN).arg("--version").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("v=8.2.3"));
}
