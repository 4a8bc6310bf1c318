//! StreamLab's network front end: a [`Session`](streamlab_protocol::Session) served over RESP2
//! and RESP3 on TCP and Unix sockets, started like `redis-server`.
//!
//! ```sh
//! streamlab-server                                   # 127.0.0.1:6379, system clock
//! streamlab server --port 7000                       # the same through the `streamlab` CLI
//! streamlab-server --port 0 --unixsocket /tmp/lab/redis.sock --unixsocketperm 700 \
//!     --save "" --appendonly no --dir /tmp/lab       # a harness's private instance
//! streamlab-server --clock virtual --enable-debug-command local
//! ```
//!
//! # Options
//!
//! The redis-server options that test harnesses use are understood (see [`config`]):
//! `--port N` (0 turns TCP off), `--bind ADDR...` (default `127.0.0.1`: loopback only),
//! `--unixsocket PATH`, `--unixsocketperm OCTAL`, `--save ""`, `--appendonly no`, `--dir PATH`,
//! `--maxmemory-policy P`, `--maxclients N`, `--enable-debug-command yes|no|local`,
//! `--daemonize no`, the client limits `--proto-max-bulk-len`, `--client-query-buffer-limit`
//! and `--client-output-buffer-limit` (see [`limits`]; CONFIG GET/SET too), and two of
//! StreamLab's own: `--profile NAME` and `--clock system|virtual`. A first argument that is
//! not an option names a configuration file with the same directives. Anything else is
//! reported on standard error and ignored. Log lines go to standard output in redis-server's
//! format, including `Ready to accept connections tcp` / `unix`. SIGTERM, SIGINT and a
//! client's SHUTDOWN close the listeners, remove the Unix socket file and exit with status 0;
//! SIGHUP is ignored, as Redis ignores it.
//!
//! At start the open-files limit is raised to `maxclients` + 32, or `maxclients` is lowered
//! to fit it, with Redis's log lines; a client beyond `maxclients` is answered
//! `-ERR max number of clients reached` and closed, and a failing accept() is logged at most
//! once per 10 s. SHUTDOWN, CLIENT KILL and CLIENT PAUSE / UNPAUSE work as in Redis (see
//! `maxclients.rs` and `server/host.rs`).
//!
//! # Connections
//!
//! Every command runs in the shared session exactly as in the console: RESP2 by default,
//! RESP3 after `HELLO 3`, pipelining, MULTI/EXEC/WATCH, Pub/Sub (arrays in RESP2, pushes in
//! RESP3), blocking XREAD/XREADGROUP served by other connections' writes or by their timeout.
//! A protocol error is answered with Redis's text and closes that connection only. The server
//! tells the session what only it knows (`Session::set_host`, `Session::set_peer`): INFO's
//! `tcp_port`, `process_id`, `executable`, `config_file` and listener lines, and each
//! connection's `addr`, `laddr`, `fd` and the `U` flag of Unix-socket clients, which CLIENT
//! LIST shows alike inside and outside MULTI. The server never looks at a command's name.
//!
//! One thread serves everything, as in Redis: an epoll loop (through `mio`) reads the clients
//! that are ready, runs their requests on the session and writes the replies. A client that
//! leaves unread more than 1 MiB of replies is not read from until it catches up. A request is
//! parsed as it arrives, each client remembering how far its request got, so a huge request
//! trickled in slowly costs the others nothing; a client past `client-query-buffer-limit` or
//! its class's `client-output-buffer-limit` is closed as Redis closes it.
//!
//! # DEBUG and the virtual clock
//!
//! DEBUG is refused with Redis's "DEBUG command not allowed" error unless
//! `--enable-debug-command` is `yes`, or `local` and the client is on the Unix socket or a
//! loopback address. Allowed, it knows:
//!
//! * `DEBUG SLEEP <seconds>`: `OK`; the system clock stops the whole server that long (as
//!   Redis does), the virtual clock moves forward that much instead; a time Redis does not
//!   sleep for (negative, NaN, more microseconds than an i64 holds) moves nothing;
//! * `DEBUG STREAMLAB-CLOCK ADVANCE <ms>`: with `--clock virtual`, moves time forward and serves
//!   the blocked reads whose timeout passed (their clients get their null reply), ends pauses,
//!   and expires keys; refused on the system clock, and past the end of year 9999 (where
//!   `*` ids and expiry times would overflow);
//! * `DEBUG STREAMLAB-CLOCK GET`: the server's time in Unix milliseconds;
//! * `DEBUG HELP`; any other subcommand gets Redis's "unknown subcommand" error.
//!
//! The virtual clock starts at [`VIRTUAL_EPOCH_MS`](streamlab_protocol::VIRTUAL_EPOCH_MS)
//! (2023-11-14 22:13:20 UTC) and moves only through those commands, so `*` ids, idle times and
//! BLOCK timeouts are reproducible. DEBUG is a command of the session's table like any other:
//! MULTI queues it (a refused DEBUG fails the transaction, as in Redis), and pipelined behind
//! a blocked read it runs when its turn comes; time a DEBUG inside EXEC lets pass passes once
//! the transaction is done. STREAMLAB-CLOCK is the world's clock, so CLIENT PAUSE never holds it.

mod client;
pub mod config;
mod conns;
pub mod limits;
mod log;
mod maxclients;
mod memory;
mod server;

use std::io::Write;
use std::process::ExitCode;

pub use config::{ClockKind, Config, ConfigError, DebugAccess, Parsed, Port, DEFAULT_PROFILE};
pub use server::{system_ms, Server};

const USAGE: &str = "Usage: streamlab-server [/path/to/redis.conf] [options]
       streamlab-server -v or --version
       streamlab-server -h or --help

Examples:
       streamlab-server (run the server on 127.0.0.1:6379)
       streamlab-server --port 7777
       streamlab-server --port 0 --unixsocket /tmp/lab/redis.sock --save \"\" --appendonly no
       streamlab-server --clock virtual --enable-debug-command local
       streamlab-server /etc/redis/6379.conf --loglevel verbose

Options: --port --bind --unixsocket --unixsocketperm --save --appendonly --dir
         --maxmemory-policy --maxclients --enable-debug-command --daemonize --profile --clock";

/// The `streamlab-server` program (also `streamlab server`): reads options, serves until
/// SIGTERM or SIGINT, exits 0 after closing its listeners.
pub fn main_with_args(args: &[String]) -> ExitCode {
    match args.first().map(String::as_str) {
        // Written without println!, which panics when the reader has gone (`| head -1`).
        Some("-h" | "--help") => {
            let _ = writeln!(std::io::stdout(), "{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some("-v" | "--version") => {
            let _ = writeln!(
                std::io::stdout(),
                "StreamLab server v={} sha=00000000:0 malloc=libc bits=64 build=streamlab-{}",
                config::DEFAULT_PROFILE.caps().version,
                env!("CARGO_PKG_VERSION")
            );
            return ExitCode::SUCCESS;
        }
        _ => {}
    }
    let Parsed { mut config, warnings } = match Config::from_args(args) {
        Ok(parsed) => parsed,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    for warning in &warnings {
        eprintln!("streamlab-server: {warning}");
    }
    config.log = true;
    if let Some(dir) = &config.dir {
        if let Err(e) = std::env::set_current_dir(dir) {
            eprintln!("Can't chdir to '{}': {e}", dir.display());
            return ExitCode::FAILURE;
        }
    }
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    // SIGHUP is taken only to be ignored, as Redis ignores it (the default would kill the
    // server and leave its Unix socket file behind).
    let mut signals = match signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP]) {
        Ok(signals) => signals,
        Err(e) => {
            eprintln!("streamlab-server: cannot install signal handlers: {e}");
            return ExitCode::FAILURE;
        }
    };
    use log::Level::{Notice, Warning};
    log::line(true, Notice, "oO0OoO0OoO0Oo StreamLab is starting oO0OoO0OoO0Oo");
    log::line(
        true,
        Notice,
        &format!(
            "StreamLab version={}, profile={} ({} {}), clock={}, pid={}, just started",
            env!("CARGO_PKG_VERSION"),
            config.profile,
            config.profile.caps().server,
            config.profile.caps().version,
            match config.clock {
                ClockKind::System => "system",
                ClockKind::Virtual => "virtual",
            },
            std::process::id()
        ),
    );
    log::line(true, Notice, "Configuration loaded");
    let server = match Server::start(&config) {
        Ok(server) => server,
        Err(e) => {
            log::line(true, Warning, &e.to_string());
            return ExitCode::FAILURE;
        }
    };
    log::line(true, Notice, &format!("Running mode=standalone, port={}.", server.tcp_port().unwrap_or(0)));
    log::line(true, Notice, "Server initialized");
    if server.tcp_port().is_some() {
        log::line(true, Notice, "Ready to accept connections tcp");
    }
    if server.unix_socket().is_some() {
        log::line(true, Notice, "Ready to accept connections unix");
    }
    // A client's SHUTDOWN ends the wait too (the loop has logged it).
    let handle = signals.handle();
    server.on_shutdown(move || handle.close());
    if let Some(signal) = signals.forever().find(|&signal| signal != SIGHUP) {
        let name = if signal == SIGINT { "SIGINT" } else { "SIGTERM" };
        log::line(true, Warning, &format!("Received {name} scheduling shutdown..."));
        log::line(true, Notice, "User requested shutdown...");
    }
    let unix = server.unix_socket().is_some();
    server.shutdown();
    if unix {
        log::line(true, Notice, "Removing the unix socket file.");
    }
    log::line(true, Warning, "StreamLab is now ready to exit, bye bye...");
    ExitCode::SUCCESS
}
