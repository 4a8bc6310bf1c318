//! What commands ask of the server beyond replies ([`HostRequest`]): closing the connections
//! CLIENT KILL ended, and SHUTDOWN.

use super::{encode_into, log, ConnId, EventLoop, HostRequest, Level, Reply};

/// Redis's reply when the final save fails and SHUTDOWN gives up.
const SHUTDOWN_FAILED: &str = "ERR Errors trying to SHUTDOWN. Check logs.";

impl EventLoop {
    /// Carries out what the session asked since it last ran. `own` is the connection whose
    /// command ran (its replies go to `own_buf`); returns whether that connection must close.
    pub(super) fn host_requests(&mut self, own: Option<ConnId>, own_buf: &mut Vec<u8>) -> bool {
        let mut close_own = false;
        for request in self.core.session.take_requests() {
            match request {
                HostRequest::Close(conn) if Some(conn) == own => close_own = true,
                // It has left the session; what it is owed is still written, then it closes.
                HostRequest::Close(conn) => self.core.hang_up(conn),
                HostRequest::Shutdown { conn, save, force } => {
                    if self.shutdown(save, force) {
                        close_own |= Some(conn) == own;
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
            }
        }
        close_own
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
