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
    let mut command = Command::new(BIN);
    command.args(args);
    let (child, lines, _) = start_logged(command);
    (child, lines)
}

/// Starts `command` (the binary, possibly through a shell) and waits for its "Ready to accept
/// connections unix" line; returns the child, the log lines so far, and the rest of the log
/// once it exits.
fn start_logged(mut command: Command) -> (Child, Vec<String>, std::thread::JoinHandle<String>) {
    let mut child =
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the binary starts");
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
    let rest = std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = reader.read_to_string(&mut rest);
        rest
    });
    (child, lines, rest)
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

#[test]
fn a_low_descriptor_limit_lowers_maxclients_and_clients_over_it_are_told() {
    // The review's probe: `ulimit -n 128`, then 160 clients each sending PING. Redis 8.2.3
    // lowers maxclients to 96 (128 less the 32 it keeps), answers 96 PONGs and 64 "max number
    // of clients reached", and logs why once.
    let dir = temp_dir("fdlimit");
    let sock = dir.join("fd.sock");
    let mut command = Command::new("sh");
    command.args(["-c", "ulimit -n 128 && exec \"$0\" --port 0 --unixsocket \"$1\"", BIN, sock.to_str().unwrap()]);
    let (mut child, lines, rest) = start_logged(command);
    let log = lines.concat();
    assert!(
        log.contains("# You requested maxclients of 10000 requiring at least 10032 max file descriptors."),
        "{log}"
    );
    assert!(
        log.contains("# Current maximum open files is 128. maxclients has been reduced to 96 to compensate for low ulimit. If you need higher maxclients increase 'ulimit -n'."),
        "{log}"
    );
    let mut clients: Vec<UnixStream> = (0..160).map(|_| UnixStream::connect(&sock).unwrap()).collect();
    for client in &mut clients {
        client.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        // A refused client may be closed before its PING arrives; its answer is already
        // waiting in its socket.
        let _ = client.write_all(b"PING\r\n");
    }
    let (mut pong, mut refused) = (0, 0);
    for client in &mut clients {
        let mut reply = Vec::new();
        // Every client gets an answer: a timeout here is a client left hanging.
        while !reply.ends_with(b"\r\n") {
            let mut buf = [0u8; 64];
            let n = client.read(&mut buf).expect("an answer, not a hang");
            assert!(n > 0, "closed without an answer");
            reply.extend_from_slice(&buf[..n]);
        }
        match reply.as_slice() {
            b"+PONG\r\n" => pong += 1,
            b"-ERR max number of clients reached\r\n" => refused += 1,
            other => panic!("unexpected answer {:?}", String::from_utf8_lossy(other)),
        }
    }
    assert_eq!((pong, refused), (96, 64));
    let mut admin = clients.remove(0);
    admin.write_all(b"CONFIG GET maxclients\r\n").unwrap();
    let mut buf = [0u8; 128];
    let n = admin.read(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"*2\r\n$10\r\nmaxclients\r\n$2\r\n96\r\n");
    // More than the descriptors hold is refused, naming what they hold (as Redis does).
    admin.write_all(b"CONFIG SET maxclients 200\r\n").unwrap();
    let mut got = Vec::new();
    while !got.ends_with(b"\r\n") {
        let n = admin.read(&mut buf).unwrap();
        assert!(n > 0, "closed without an answer");
        got.extend_from_slice(&buf[..n]);
    }
    assert_eq!(
        String::from_utf8_lossy(&got),
        "-ERR CONFIG SET failed (possibly related to argument 'maxclients') - The operating system is not able to handle the specified number of clients, try with 96\r\n"
    );
    drop(clients);
    signal(&child, "TERM");
    assert_eq!(wait(&mut child), 0);
    // The log stays a handful of lines: no line per refused client, no accept-error flood.
    let rest = rest.join().unwrap();
    assert!(lines.len() + rest.lines().count() < 20, "{log}{rest}");
    assert!(!rest.contains("Accepting client connection"), "{rest}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sighup_is_ignored_as_redis_ignores_it() {
    let dir = temp_dir("hup");
    let sock = dir.join("hup.sock");
    let (mut child, _) = start(&["--port", "0", "--unixsocket", sock.to_str().unwrap()]);
    signal(&child, "HUP");
    // The server is still there after the signal was delivered and ignored.
    assert_eq!(ping(&sock), "+PONG\r\n");
    signal(&child, "HUP");
    assert_eq!(ping(&sock), "+PONG\r\n");
    assert!(child.try_wait().unwrap().is_none());
    signal(&child, "TERM");
    assert_eq!(wait(&mut child), 0);
    assert!(!sock.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Sends one inline command on a fresh connection and returns everything the server sends
/// until it closes the connection or goes quiet for a second.
fn one_command(path: &Path, line: &str) -> String {
    let mut s = UnixStream::connect(path).unwrap();
    // Generous: the read ends at the reply's CRLF or the close, never by waiting this long on
    // a healthy run, and a loaded machine may be slow.
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(format!("{line}\r\n").as_bytes()).unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 256];
    while let Ok(n) = s.read(&mut buf) {
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n]);
        if out.ends_with(b"\r\n") {
            break;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn shutdown_stops_the_server_as_redis_does_without_persistence() {
    let dir = temp_dir("shutdown");
    let sock = dir.join("sd.sock");
    let mut command = Command::new(BIN);
    command.args(["--port", "0", "--unixsocket", sock.to_str().unwrap()]);
    let (mut child, _, rest) = start_logged(command);
    assert_eq!(one_command(&sock, "SHUTDOWN ABORT"), "-ERR No shutdown in progress.\r\n");
    assert_eq!(one_command(&sock, "SHUTDOWN NOSAVE SAVE"), "-ERR syntax error\r\n");
    // Nothing can be saved: refused, as Redis refuses when its final save fails.
    assert_eq!(one_command(&sock, "SHUTDOWN SAVE"), "-ERR Errors trying to SHUTDOWN. Check logs.\r\n");
    assert!(child.try_wait().unwrap().is_none());
    let mut blocked = UnixStream::connect(&sock).unwrap();
    blocked.write_all(b"XREAD BLOCK 0 STREAMS s $\r\n").unwrap();
    assert_eq!(ping(&sock), "+PONG\r\n");
    // Accepted: no reply, the connection closes, the blocked client sees its connection
    // closed too, and the process exits 0 with its socket file removed.
    assert_eq!(one_command(&sock, "SHUTDOWN NOW"), "");
    assert_eq!(wait(&mut child), 0);
    let mut buf = [0u8; 16];
    blocked.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    assert_eq!(blocked.read(&mut buf).unwrap_or(0), 0);
    assert!(!sock.exists());
    let log = rest.join().unwrap();
    assert!(log.contains("# Error trying to save the DB, can't exit."), "{log}");
    assert!(log.contains("* User requested shutdown..."), "{log}");
    assert!(log.contains("* Removing the unix socket file."), "{log}");
    assert!(log.contains("# StreamLab is now ready to exit, bye bye..."), "{log}");
    assert!(!log.contains("Received"), "no signal was involved: {log}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn help_and_version_do_not_panic_when_the_reader_has_gone() {
    // `streamlab-server --help | head -1` once head has left: every write fails with EPIPE.
    for arg in ["--help", "--version"] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(BIN).arg(arg).stdout(writer).stderr(Stdio::piped()).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{arg}: {stderr}");
        assert!(!stderr.contains("panicked"), "{arg}: {stderr}");
    }
}
