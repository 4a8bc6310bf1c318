//! The server's options, read the way `redis-server` reads them: an optional configuration
//! file as the first argument, then `--name value...` pairs on the command line.
//!
//! Each `--name` starts a directive and every following argument that does not start with
//! `--` is one of its values, so `--save ""` and `--bind 127.0.0.1 ::1` work as they do for
//! Redis. A configuration file holds one directive per line (`name value...`, `#` comments,
//! values quoted like redis-cli arguments); command-line directives come after the file's and
//! win. Directives StreamLab does not implement are reported and ignored, so a script written
//! for `redis-server` starts StreamLab unchanged.

use std::path::{Path, PathBuf};

use streamlab_protocol::command::admin::{POLICIES, POLICY_ERROR};
use streamlab_protocol::{tokenize, Profile};

use crate::limits::Limits;

/// The profile a server answers as unless told otherwise: Redis 8.2, the newest server every
/// behaviour of which was checked against a real binary (clients that look at the version
/// see a release they know).
pub const DEFAULT_PROFILE: Profile = Profile::Redis82;

/// Where the TCP listeners are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Port {
    /// No TCP listener (`--port 0`).
    Disabled,
    /// A fixed port.
    Fixed(u16),
    /// A port the system picks (library use, for tests); [`crate::Server::tcp_port`] tells it.
    Ephemeral,
}

/// Which clock the session reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockKind {
    /// The system clock (the default).
    System,
    /// A virtual clock starting at [`streamlab_protocol::VIRTUAL_EPOCH_MS`] that moves only
    /// through `DEBUG STREAMLAB-CLOCK ADVANCE <ms>` (and `DEBUG SLEEP`).
    Virtual,
}

/// Who may run DEBUG (`enable-debug-command`): the session checks it.
pub use streamlab_protocol::session::DebugAccess;

/// Everything the server needs to start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// TCP port.
    pub port: Port,
    /// Addresses to listen on; a leading `-` makes an address optional (skipped when it
    /// cannot be bound), `*` means every IPv4 address and `::*` every IPv6 one.
    pub bind: Vec<String>,
    /// A Unix socket to listen on.
    pub unixsocket: Option<PathBuf>,
    /// The Unix socket's permission bits.
    pub unixsocketperm: Option<u32>,
    /// The working directory (`dir`); the binary changes into it, as Redis does.
    pub dir: Option<PathBuf>,
    /// `maxmemory-policy`, accepted and reported by nothing (StreamLab never evicts).
    pub maxmemory_policy: String,
    /// `maxclients`: the most clients served at once (lowered at start to what the
    /// open-files limit allows).
    pub maxclients: u64,
    /// Who may run DEBUG.
    pub debug: DebugAccess,
    /// The server the session answers as.
    pub profile: Profile,
    /// The clock.
    pub clock: ClockKind,
    /// The configuration file read, if any (INFO's `config_file`).
    pub config_file: Option<PathBuf>,
    /// Print log lines on standard output (the binary does; the library is quiet by default).
    pub log: bool,
    /// `proto-max-bulk-len`, `client-query-buffer-limit` and `client-output-buffer-limit`.
    pub limits: Limits,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            port: Port::Fixed(6379),
            bind: vec!["127.0.0.1".to_owned()],
            unixsocket: None,
            unixsocketperm: None,
            dir: None,
            maxmemory_policy: "noeviction".to_owned(),
            maxclients: 10_000,
            debug: DebugAccess::No,
            profile: DEFAULT_PROFILE,
            clock: ClockKind::System,
            config_file: None,
            log: false,
            limits: Limits::default(),
        }
    }
}

/// A configuration error that stops the server, with the directive it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The directive as written (`port "abc"`).
    pub directive: String,
    /// Why it was refused.
    pub reason: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "\n*** FATAL CONFIG FILE ERROR (StreamLab) ***\n>>> '{}'\n{}", self.directive, self.reason)
    }
}

impl std::error::Error for ConfigError {}

/// What reading the options produced: the configuration and the warnings to print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// The configuration.
    pub config: Config,
    /// One line per directive that was ignored.
    pub warnings: Vec<String>,
}

impl Config {
    /// Reads `redis-server`-style arguments (without the program name). A first argument
    /// not starting with `--` names a configuration file, which must exist.
    pub fn from_args(args: &[String]) -> Result<Parsed, ConfigError> {
        let mut directives: Vec<Vec<String>> = Vec::new();
        let mut config = Config::default();
        let mut rest = args;
        if let Some(first) = args.first().filter(|a| !a.starts_with("--")) {
            let path = Path::new(first);
            let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
                directive: first.clone(),
                reason: format!("Fatal error, can't open config file '{first}': {e}"),
            })?;
            directives.extend(file_directives(&text)?);
            config.config_file = Some(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()));
            rest = &args[1..];
        }
        let from_file = directives.len();
        for arg in rest {
            if let Some(name) = arg.strip_prefix("--") {
                directives.push(vec![name.to_owned()]);
            } else if directives.len() > from_file {
                directives.last_mut().expect("a command-line directive").push(arg.clone());
            } else {
                return Err(ConfigError { directive: arg.clone(), reason: "Invalid argument".into() });
            }
        }
        let mut warnings = Vec::new();
        for directive in directives {
            config.apply(&directive, &mut warnings)?;
        }
        Ok(Parsed { config, warnings })
    }

    /// Applies one directive (`name` then its values).
    fn apply(&mut self, directive: &[String], warnings: &mut Vec<String>) -> Result<(), ConfigError> {
        let shown = directive
            .iter()
            .enumerate()
            .map(|(i, a)| if i == 0 { a.clone() } else { format!("\"{a}\"") })
            .collect::<Vec<_>>()
            .join(" ");
        let fail = |reason: &str| ConfigError { directive: shown.clone(), reason: reason.to_owned() };
        let name = directive[0].to_ascii_lowercase();
        let values = &directive[1..];
        let one = || match values {
            [value] => Ok(value.as_str()),
            _ => Err(fail("wrong number of arguments")),
        };
        let yes_no = |value: &str| match value.to_ascii_lowercase().as_str() {
            "yes" => Ok(true),
            "no" => Ok(false),
            _ => Err(fail("argument must be 'yes' or 'no'")),
        };
        match name.as_str() {
            "port" => {
                let port: i64 = one()?.parse().map_err(|_| fail("argument couldn't be parsed into an integer"))?;
                let port = u16::try_from(port).map_err(|_| fail("argument must be between 0 and 65535 inclusive"))?;
                self.port = if port == 0 { Port::Disabled } else { Port::Fixed(port) };
            }
            "bind" => {
                if values.is_empty() {
                    return Err(fail("wrong number of arguments"));
                }
                self.bind = values.to_vec();
            }
            "unixsocket" => {
                let path = one()?;
                self.unixsocket = if path.is_empty() { None } else { Some(PathBuf::from(path)) };
            }
            "unixsocketperm" => {
                let perm = u32::from_str_radix(one()?, 8).map_err(|_| fail("Invalid socket file permissions"))?;
                if perm > 0o777 {
                    return Err(fail("Invalid socket file permissions"));
                }
                self.unixsocketperm = Some(perm);
            }
            "save" => {
                // `--save` alone and `--save ""` both turn snapshots off, which is all StreamLab
                // does anyway.
                if values.iter().any(|v| !v.is_empty()) {
                    warnings.push(format!("'{shown}': snapshots are not implemented; ignored"));
                }
            }
            "appendonly" => {
                if yes_no(one()?)? {
                    warnings.push(format!("'{shown}': the append-only file is not implemented; ignored"));
                }
            }
            "dir" => self.dir = Some(PathBuf::from(one()?)),
            "maxmemory-policy" => {
                let policy = one()?.to_ascii_lowercase();
                if !POLICIES.contains(&policy.as_str()) {
                    return Err(fail(POLICY_ERROR));
                }
                self.maxmemory_policy = policy;
            }
            "maxclients" => {
                // Redis's wording for each way a value can be wrong.
                let n: i64 = one()?.parse().map_err(|_| fail("argument couldn't be parsed into an integer"))?;
                if n < 0 {
                    return Err(fail("argument must be greater or equal to 0"));
                }
                if n == 0 || n > i64::from(u32::MAX) {
                    return Err(fail("argument must be between 1 and 4294967295 inclusive"));
                }
                self.maxclients = n as u64;
            }
            "enable-debug-command" => {
                self.debug = match one()?.to_ascii_lowercase().as_str() {
                    "yes" => DebugAccess::Yes,
                    "no" => DebugAccess::No,
                    "local" => DebugAccess::Local,
                    _ => return Err(fail("argument(s) must be one of the following: no, yes, local")),
                }
            }
            "daemonize" => {
                if yes_no(one()?)? {
                    return Err(fail("daemonize yes is not supported: StreamLab runs in the foreground"));
                }
            }
            "profile" => {
                self.profile = one()?.parse::<Profile>().map_err(|e| fail(&e.to_string()))?;
            }
            "clock" => {
                self.clock = match one()?.to_ascii_lowercase().as_str() {
                    "system" => ClockKind::System,
                    "virtual" => ClockKind::Virtual,
                    _ => return Err(fail("argument must be 'system' or 'virtual'")),
                }
            }
            _ => {
                if !self.limits.apply(&name, values).map_err(fail)? {
                    warnings.push(format!("'{shown}': unsupported option; ignored"));
                }
            }
        }
        Ok(())
    }
}

/// The directives of a configuration file: one per non-blank, non-comment line.
fn file_directives(text: &str) -> Result<Vec<Vec<String>>, ConfigError> {
    let mut out = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let args = tokenize(line.as_bytes()).map_err(|_| ConfigError {
            directive: line.to_owned(),
            reason: format!("Unbalanced quotes in configuration line {}", number + 1),
        })?;
        if !args.is_empty() {
            out.push(args.into_iter().map(|a| String::from_utf8_lossy(&a).into_owned()).collect());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Parsed, ConfigError> {
        Config::from_args(&args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>())
    }

    #[test]
    fn defaults_are_loopback_6379_system_clock() {
        let parsed = parse(&[]).unwrap();
        assert_eq!(parsed.config, Config::default());
        assert_eq!(parsed.config.bind, ["127.0.0.1"]);
        assert_eq!(parsed.config.port, Port::Fixed(6379));
    }

    #[test]
    fn a_harness_command_line() {
        let parsed = parse(&[
            "--port",
            "0",
            "--unixsocket",
            "/tmp/x/redis.sock",
            "--unixsocketperm",
            "700",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            "/tmp/x",
            "--maxmemory-policy",
            "noeviction",
            "--enable-debug-command",
            "local",
            "--daemonize",
            "no",
            "--profile",
            "redis-8.2",
            "--clock",
            "virtual",
        ])
        .unwrap();
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        let c = parsed.config;
        assert_eq!(c.port, Port::Disabled);
        assert_eq!(c.unixsocket.as_deref(), Some(Path::new("/tmp/x/redis.sock")));
        assert_eq!(c.unixsocketperm, Some(0o700));
        assert_eq!(c.dir.as_deref(), Some(Path::new("/tmp/x")));
        assert_eq!(c.debug, DebugAccess::Local);
        assert_eq!(c.clock, ClockKind::Virtual);
    }

    #[test]
    fn several_values_and_empty_save() {
        let c = parse(&["--bind", "127.0.0.1", "-::1", "--save"]).unwrap().config;
        assert_eq!(c.bind, ["127.0.0.1", "-::1"]);
    }

    #[test]
    fn unknown_options_warn_and_bad_values_fail() {
        let parsed = parse(&["--loglevel", "warning", "--port", "7000"]).unwrap();
        assert_eq!(parsed.warnings, ["'loglevel \"warning\"': unsupported option; ignored"]);
        assert_eq!(parsed.config.port, Port::Fixed(7000));
        assert!(parse(&["--save", "3600 1"]).unwrap().warnings[0].contains("snapshots"));
        for bad in [
            &["--port", "x"][..],
            &["--port", "70000"],
            &["--port"],
            &["--unixsocketperm", "999"],
            &["--maxmemory-policy", "lru"],
            &["--enable-debug-command", "maybe"],
            &["--daemonize", "yes"],
            &["--clock", "sundial"],
            &["--maxclients", "0"],
            &["--maxclients", "many"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(parse(&["--profile", "valkey-9"]).unwrap().config.profile, Profile::Valkey9);
        assert_eq!(parse(&["--maxclients", "96"]).unwrap().config.maxclients, 96);
        let error = parse(&["--profile", "redis-9.9"]).unwrap_err();
        assert!(error.reason.contains("unknown profile 'redis-9.9'"), "{error}");
        assert!(error.to_string().contains(">>> 'profile \"redis-9.9\"'"));
    }

    #[test]
    fn a_config_file_then_the_command_line() {
        let dir = std::env::temp_dir().join(format!("streamlab-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("redis.conf");
        std::fs::write(&file, "# comment\nport 7001\nbind 127.0.0.1 -::1\nsave \"\"\nenable-debug-command yes\n")
            .unwrap();
        let parsed = parse(&[file.to_str().unwrap(), "--port", "7002"]).unwrap();
        assert_eq!(parsed.config.port, Port::Fixed(7002));
        assert_eq!(parsed.config.bind, ["127.0.0.1", "-::1"]);
        assert_eq!(parsed.config.debug, DebugAccess::Yes);
        assert!(parsed.config.config_file.is_some());
        assert!(parse(&[dir.join("missing.conf").to_str().unwrap()]).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_client_limits() {
        let parsed = parse(&[
            "--proto-max-bulk-len",
            "2mb",
            "--client-query-buffer-limit",
            "1gb",
            "--client-output-buffer-limit",
            "pubsub",
            "1mb",
            "512kb",
            "5",
        ])
        .unwrap();
        let limits = parsed.config.limits;
        assert_eq!((limits.max_bulk, limits.query_buffer), (2 * 1024 * 1024, 1024 * 1024 * 1024));
        assert_eq!(limits.output[2].hard, 1024 * 1024);
        assert_eq!((limits.output[2].soft, limits.output[2].soft_seconds), (512 * 1024, 5));
        assert!(parsed.warnings.is_empty());
        let error = parse(&["--proto-max-bulk-len", "1k"]).unwrap_err();
        assert_eq!(error.reason, "argument must be between 1048576 and 9223372036854775807 inclusive");
        let error = parse(&["--client-output-buffer-limit", "master", "1", "2", "3"]).unwrap_err();
        assert_eq!(error.reason, "Invalid client class specified in buffer limit configuration.");
    }
}
