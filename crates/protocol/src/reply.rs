//! The reply tree every command produces.
//!
//! `Reply` is shaped after RESP3 so that one value can be written in either protocol version:
//! the RESP2 encoder flattens maps into arrays and sets into arrays, the RESP3 encoder keeps
//! them. The redis-cli formatter prints the same tree as `redis-cli` would after reading it from
//! the wire in the connection's protocol.

/// One reply (or one element of a nested reply).
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A simple string (`+OK`): printed bare by redis-cli.
    Status(String),
    /// An error line without the leading `-`, e.g. `ERR syntax error`.
    Error(String),
    /// A signed 64-bit integer.
    Integer(i64),
    /// A binary-safe bulk string.
    Bulk(Vec<u8>),
    /// The null bulk string (`$-1` in RESP2, `_` in RESP3).
    NullBulk,
    /// The null array (`*-1` in RESP2, `_` in RESP3). Distinct from an empty array.
    NullArray,
    /// An array of replies.
    Array(Vec<Reply>),
    /// A map (RESP3 `%`); an array of alternating keys and values in RESP2.
    Map(Vec<(Reply, Reply)>),
    /// A set (RESP3 `~`); an array in RESP2.
    Set(Vec<Reply>),
    /// A double (RESP3 `,`); a bulk string in RESP2.
    Double(f64),
    /// A boolean (RESP3 `#`); the integer 1 or 0 in RESP2.
    Boolean(bool),
    /// A verbatim string (RESP3 `=`) with its three-letter format; a bulk string in RESP2.
    Verbatim {
        /// The format, `txt` or `mkd`.
        format: [u8; 3],
        /// The text itself.
        text: Vec<u8>,
    },
    /// An out-of-band push message (RESP3 `>`); an array in RESP2 (Pub/Sub messages).
    Push(Vec<Reply>),
}

impl Reply {
    /// The `OK` status.
    pub fn ok() -> Reply {
        Reply::Status("OK".to_owned())
    }

    /// A bulk string from anything byte-like.
    pub fn bulk(bytes: impl AsRef<[u8]>) -> Reply {
        Reply::Bulk(bytes.as_ref().to_vec())
    }

    /// Whether this reply is an error.
    pub fn is_error(&self) -> bool {
        matches!(self, Reply::Error(_))
    }

    /// How many replies this tree holds, itself included (a map pair counts its key and value).
    pub fn size(&self) -> u64 {
        let mut size = 1;
        match self {
            Reply::Array(items) | Reply::Set(items) | Reply::Push(items) => {
                for item in items {
                    size += item.size();
                }
            }
            Reply::Map(pairs) => {
                for (key, value) in pairs {
                    size += key.size() + value.size();
                }
            }
            _ => {}
        }
        size
    }
}

impl Reply {
    /// The reply as a RESP2 client receives it: maps become flat arrays of keys and values,
    /// sets and pushes become arrays, doubles and verbatim strings become bulk strings,
    /// booleans become 1 or 0. Printing this is what redis-cli shows on a RESP2 connection.
    pub fn into_resp2(self) -> Reply {
        match self {
            Reply::Map(pairs) => {
                Reply::Array(pairs.into_iter().flat_map(|(k, v)| [k.into_resp2(), v.into_resp2()]).collect())
            }
            Reply::Set(items) | Reply::Push(items) | Reply::Array(items) => {
                Reply::Array(items.into_iter().map(Reply::into_resp2).collect())
            }
            Reply::Double(d) => Reply::Bulk(crate::resp::format_double(d).into_bytes()),
            Reply::Boolean(b) => Reply::Integer(i64::from(b)),
            Reply::Verbatim { text, .. } => Reply::Bulk(text),
            other => other,
        }
    }
}
