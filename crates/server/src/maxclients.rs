//! How many clients the server takes, as Redis decides it: `maxclients` plus descriptors
//! kept for the server's own files must fit the open-files limit, which is raised at start
//! when it can be and otherwise lowers `maxclients`, with Redis's log lines. Also the accept
//! path's guard against a log flood when the process runs out of descriptors anyway.

use std::io;
use std::time::{Duration, Instant};

use nix::sys::resource::{getrlimit, setrlimit, Resource};

use crate::log::{self, Level};

/// Descriptors kept for the server itself (listeners, epoll, logs), as many as Redis keeps.
const RESERVED_FDS: u64 = 32;

/// What a client over `maxclients` is told before it is closed.
pub const MAX_CLIENTS_REACHED: &[u8] = b"-ERR max number of clients reached\r\n";

/// What the open-files limit allows: the `maxclients` to use, and the most CONFIG SET may
/// raise it to later (what the descriptors already hold; the limit is not raised again).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fit {
    /// `maxclients`, lowered if the limit could not be raised enough.
    pub maxclients: u64,
    /// The open-files limit less the reserved descriptors.
    pub ceiling: u64,
}

/// Makes room for `maxclients` clients: raises the open-files limit to `maxclients` + 32 if it
/// is lower, or as far as the hard limit lets it, and returns what fits. An error (the limit
/// cannot hold a single client) carries Redis's message; the server stops.
pub fn fit_open_files(maxclients: u64, log_enabled: bool) -> io::Result<Fit> {
    let needed = maxclients.saturating_add(RESERVED_FDS);
    let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE) else {
        return Ok(Fit { maxclients, ceiling: maxclients });
    };
    if soft >= needed {
        return Ok(Fit { maxclients, ceiling: (soft - RESERVED_FDS).min(u64::from(u32::MAX)) });
    }
    match setrlimit(Resource::RLIMIT_NOFILE, needed, needed) {
        Ok(()) => {
            log::line(
                log_enabled,
                Level::Notice,
                &format!("Increased maximum number of open files to {needed} (it was originally set to {soft})."),
            );
            Ok(Fit { maxclients, ceiling: maxclients })
        }
        Err(error) => {
            // As much as the hard limit allows, without privileges.
            let best = if hard > soft && setrlimit(Resource::RLIMIT_NOFILE, hard, hard).is_ok() { hard } else { soft };
            if best <= RESERVED_FDS {
                return Err(io::Error::other(format!(
                    "Your current 'ulimit -n' of {soft} is not enough for the server to start. Please increase your open file limit to at least {needed}. Exiting."
                )));
            }
            let reduced = best - RESERVED_FDS;
            for line in [
                format!("You requested maxclients of {maxclients} requiring at least {needed} max file descriptors."),
                format!("Server can't set maximum open files to {needed} because of OS error: {}.", error.desc()),
                format!("Current maximum open files is {best}. maxclients has been reduced to {reduced} to compensate for low ulimit. If you need higher maxclients increase 'ulimit -n'."),
            ] {
                log::line(log_enabled, Level::Warning, &line);
            }
            Ok(Fit { maxclients: reduced, ceiling: reduced })
        }
    }
}

/// How often a failing accept() is logged: once, then at most one line per period saying
/// how many more failed, instead of a line every retry.
const ACCEPT_LOG_PERIOD: Duration = Duration::from_secs(10);

/// accept() failures (out of descriptors) since the last line logged.
#[derive(Default)]
pub struct AcceptErrors {
    logged_at: Option<Instant>,
    unlogged: u64,
}

impl AcceptErrors {
    /// Counts a failure at `now` and logs it unless a line was logged less than a period
    /// before; returns whether it logged.
    pub fn report(&mut self, error: &io::Error, now: Instant, log_enabled: bool) -> bool {
        if self.logged_at.is_some_and(|at| now.duration_since(at) < ACCEPT_LOG_PERIOD) {
            self.unlogged += 1;
            return false;
        }
        let more = match self.unlogged {
            0 => String::new(),
            n => format!(" ({n} more since the last report)"),
        };
        log::line(log_enabled, Level::Warning, &format!("Accepting client connection: {error}{more}"));
        self.logged_at = Some(now);
        self.unlogged = 0;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_errors_log_once_per_period() {
        // The review saw a line every 10 ms retry: 6,000 lines a minute.
        let mut errors = AcceptErrors::default();
        let error = io::Error::from_raw_os_error(24);
        let start = Instant::now();
        let logged: Vec<bool> =
            (0..6000u64).map(|i| errors.report(&error, start + Duration::from_millis(10 * i), false)).collect();
        // Minute-long retries: one line at the start and one per 10 s after it.
        assert_eq!(logged.iter().filter(|&&l| l).count(), 6);
        assert!(logged[0] && logged[1000] && !logged[1] && !logged[999]);
    }
}
