//! What a host tells the session about itself and its connections (the `host` feature): the
//! process INFO's server section describes, and where each connection comes from. The
//! commands that report them (INFO, CLIENT LIST, CLIENT INFO, DEBUG's access check) answer
//! from here, so they answer alike inside and outside MULTI and no host rewrites reply text.

use std::sync::Arc;

use super::{ConnId, Session};

/// Who may run DEBUG, as `enable-debug-command` says.
#[cfg(feature = "server")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DebugAccess {
    /// Every connection.
    Yes,
    /// No connection (Redis's default).
    #[default]
    No,
    /// Connections from the loopback interface or a Unix socket.
    Local,
}

/// The process a session runs in, as INFO's server section reports it. The default is what
/// a page reports: no process of its own, Redis's default port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostInfo {
    /// `tcp_port` (0 with TCP off, as Redis reports it).
    pub tcp_port: u16,
    /// `process_id`.
    pub process_id: u32,
    /// `executable`: the absolute path of the binary.
    pub executable: String,
    /// `config_file`: the absolute path of the configuration file, empty without one.
    pub config_file: String,
    /// The `listenerN` values in order (`name=tcp,bind=*,bind=-::*,port=6379`).
    pub listeners: Vec<String>,
    /// Who may run DEBUG.
    #[cfg(feature = "server")]
    pub debug: DebugAccess,
}

impl Default for HostInfo {
    fn default() -> HostInfo {
        HostInfo {
            tcp_port: 6379,
            process_id: 1,
            executable: String::new(),
            config_file: String::new(),
            listeners: vec!["name=tcp,bind=*,bind=-::*,port=6379".to_owned()],
            #[cfg(feature = "server")]
            debug: DebugAccess::default(),
        }
    }
}

/// Where one connection comes from, as its host accepted it (CLIENT LIST's `addr`, `laddr`,
/// `fd` and `U` flag; CLIENT KILL's ADDR and LADDR; DEBUG's `local`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peer {
    /// The client's address, `ip:port` (a Unix socket's path and `:0`).
    pub addr: String,
    /// The address it reached.
    pub laddr: String,
    /// The socket's descriptor.
    pub fd: u64,
    /// It came over a Unix socket.
    pub unix: bool,
    /// It came from the loopback interface or a Unix socket.
    pub local: bool,
}

impl Session {
    /// Tells the session about the process it runs in (INFO's server section).
    pub fn set_host(&mut self, host: HostInfo) {
        self.host = Arc::new(host);
    }

    /// What the host told about its process.
    pub fn host(&self) -> &HostInfo {
        &self.host
    }

    /// Tells the session where a connection comes from (a host that does not leaves CLIENT
    /// LIST's placeholders).
    pub fn set_peer(&mut self, id: ConnId, peer: Peer) {
        if let Some(c) = self.state.conns.get_mut(&id) {
            c.peer = Some(Box::new(peer));
        }
    }
}
