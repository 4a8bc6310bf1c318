//! What commands ask of the server beyond replies ([`HostRequest`]): closing the connections
//! CLIENT KILL and QUIT ended, SHUTDOWN, DEBUG SLEEP on the system clock, and hanging up on
//! cross-protocol scripting.

use std::time::Duration;

use super::{encode_into, log, ConnId, EventLoop, HostRequest, Level, Reply, RequestEnd};

/// Redis's reply when the final save fails and SHUTDOWN gives up.
const SHUTDOWN_FAILED: &str = "ERR Errors trying to SHUTDOWN. Check logs.";

impl EventLoop {
    /// Carries out what the session asked since it last ran. `own` is the connection whose
    /// command ran (its replies go to `own_buf`); returns how that connection's request ends
    /// when it must close.
    pub(super) fn host_requests(&mut self, own: Option<ConnId>, own_buf: &mut Vec<u8>) -> Option<RequestEnd> {
        let mut end = None;
        for request in self.core.session.take_requests() {
            match request {
                HostRequest::Close(conn) if Some(conn) == own => {
                    end.get_or_insert(RequestEnd::Close);
                }
                // It has left the session; what it is owed is still written, then it closes.
                HostRequest::Close(conn) => self.core.hang_up(conn),
                HostRequest::Shutdown { conn, save, force } => {
                    if self.shutdown(save, force) {
                        if Some(conn) == own {
                            end.get_or_insert(RequestEnd::Close);
                        }
                    } else {
                        let reply = Reply::Error(SHUTDOWN_FAILED.to_owned());
                        let resp3 = self.core.resp3(conn);
                        if Some(conn) == own {
                            encode_into(&reply, resp3, own_buf);
                        } else if let Some(client) = self.core.clients.get_mut(&conn) {
                            encode_into(&reply, resp3, &mut client.output);
                            self.core.queue_write(conn);
                        }
                    }
                }
                // Like Redis, the whole server stops for that long.
                HostRequest::Sleep(micros) => std::thread::sleep(Duration::from_micros(micros)),
                HostRequest::Attack(conn) => {
                    let addr = self.core.clients.get(&conn).map(|c| c.addr.clone()).unwrap_or_default();
                    log::line(
                        self.settings.log,
                        Level::Warning,
                        &format!("Possible SECURITY ATTACK detected. It looks like somebody is sending POST or Host: commands to Redis. This is likely due to an attacker attempting to use Cross Protocol Scripting to compromise your Redis instance. Connection from {addr} aborted."),
                    );
                    if Some(conn) == own {
                        end = Some(RequestEnd::Abort);
                    } else {
                        self.core.drop_client(conn);
                    }
                }
            }
        }
        end
    }

    /// SHUTDOWN with Redis's log lines. StreamLab keeps nothing on disk, so a SAVE is a save
    /// that fails: refused as Redis refuses when its final save fails, unless FORCE.
    /// Returns whether the server stops.
    fn shutdown(&mut self, save: bool, force: bool) -> bool {
        let enabled = self.settings.log;
        log::line(enabled, Level::Notice, "User requested shutdown...");
        if save {
            log::line(enabled, Level::Notice, "Saving the final RDB snapshot before exiting.");
            log::line(enabled, Level::Warning, "StreamLab keeps no data on disk: it cannot write an RDB snapshot.");
            if !force {
                log::line(enabled, Level::Warning, "Error trying to save the DB, can't exit.");
                log::line(
                    enabled,
                    Level::Warning,
                    "Errors trying to shut down the server. Check the logs for more information.",
                );
                return false;
            }
        }
        self.shared.shut_down();
        true
    }
}
