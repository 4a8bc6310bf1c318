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
    /// An error line without the leading `-`, e.g. `ERR syntax error`. Bytes it echoes that
    /// are not UTF-8 are carried as `raw_byte` characters, so the wire gets them raw.
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

/// The first of the 256 code points that stand for raw bytes in error text: Redis echoes a
/// command's bytes into its errors as they came (`unknown command '\xff'`), and a `String`
/// cannot hold them. They are the last 256 code points of plane 16 (private use), which
/// nothing else in a reply produces; a typed character among them is carried byte by byte
/// too, so every echoed byte survives.
const RAW_BYTES: u32 = 0x10_FF00;

/// The character that stands for `byte` in error text.
fn raw_byte(byte: u8) -> char {
    char::from_u32(RAW_BYTES + u32::from(byte)).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// Appends `bytes` to error text: UTF-8 as it is, anything else as `raw_byte`s (private-use characters).
pub fn push_echoed(text: &mut String, bytes: &[u8]) {
    if !cfg!(feature = "host") {
        // No wire to send them on (the grader): shown as they will be shown, as U+FFFD.
        return text.push_str(&String::from_utf8_lossy(bytes));
    }
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if u32::from(c) >= RAW_BYTES {
                let mut utf8 = [0u8; 4];
                for &b in c.encode_utf8(&mut utf8).as_bytes() {
                    text.push(raw_byte(b));
                }
            } else {
                text.push(c);
            }
        }
        for &b in chunk.invalid() {
            text.push(raw_byte(b));
        }
    }
}

/// The bytes error text stands for (what the wire carries).
pub fn echoed_bytes(text: &str, out: &mut Vec<u8>) {
    if !cfg!(feature = "host") {
        return out.extend_from_slice(text.as_bytes());
    }
    for c in text.chars() {
        match u32::from(c).checked_sub(RAW_BYTES) {
            Some(byte) => out.push(byte as u8),
            None => {
                let mut utf8 = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
            }
        }
    }
}

/// Error text as a terminal shows it: the echoed bytes that are not UTF-8 as U+FFFD.
pub fn shown_error(text: &str) -> String {
    if !cfg!(feature = "host") {
        return text.to_owned();
    }
    let mut bytes = Vec::new();
    echoed_bytes(text, &mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

impl Reply {
    /// The reply as a RESP2 client receives it: maps become flat arrays of keys and values,
    /// sets and pushes become arrays, doubles and verbatim strings become bulk strings,
    /// booleans become 1 or 0. Printing this is what redis-cli shows on a RESP2 connection.
    pub fn into_resp2(self) -> Reply {
        match self {
            // Loops, not `flat_map`/`map` chains collected: each chain is its own code in the
            // wasm bundles.
            Reply::Map(pairs) => {
                let mut flat = Vec::with_capacity(pairs.len() * 2);
                for (k, v) in pairs {
                    flat.push(k.into_resp2());
                    flat.push(v.into_resp2());
                }
                Reply::Array(flat)
            }
            Reply::Set(items) | Reply::Push(items) | Reply::Array(items) => {
                let mut converted = Vec::with_capacity(items.len());
                for item in items {
                    converted.push(item.into_resp2());
                }
                Reply::Array(converted)
            }
            Reply::Double(d) => Reply::Bulk(crate::double::format_double(d).into_bytes()),
            Reply::Boolean(b) => Reply::Integer(i64::from(b)),
            Reply::Verbatim { text, .. } => Reply::Bulk(text),
            other => other,
        }
    }
}

#[cfg(all(test, feature = "host"))]
mod tests {
    use super::*;
    use crate::error::CmdError;

    fn wire(error: &CmdError) -> Vec<u8> {
        crate::resp::encode(&Reply::Error(error.to_string()), false)
    }

    #[test]
    fn errors_echo_the_bytes_they_were_given() {
        // A1.46: Redis answers `-ERR unknown command '\xff\xfe', ...` with the bytes raw.
        let unknown = CmdError::UnknownCommand { name: b"\xff\xfe".to_vec(), args: vec![b"a\xc3".to_vec()] };
        assert_eq!(wire(&unknown), b"-ERR unknown command '\xff\xfe', with args beginning with: 'a\xc3' \r\n");
        // UTF-8 (also the private-use characters that carry raw bytes) goes out unchanged.
        let typed = "\u{e9}\u{10ff41}\u{10ffff}";
        let unknown = CmdError::UnknownCommand { name: typed.as_bytes().to_vec(), args: Vec::new() };
        let mut expected = b"-ERR unknown command '".to_vec();
        expected.extend_from_slice(typed.as_bytes());
        expected.extend_from_slice(b"', with args beginning with: \r\n");
        assert_eq!(wire(&unknown), expected);
        // The console shows what a terminal shows for invalid UTF-8.
        let shown = crate::format::format_reply(&Reply::Error(CmdError::NoSuchUser(b"x\xffy".to_vec()).to_string()));
        assert_eq!(shown, "(error) ERR No such user 'x\u{fffd}y'");
    }

    #[test]
    fn the_quote_limit_counts_echoed_bytes() {
        // Redis quotes arguments until 128 bytes are used; a non-UTF-8 byte is one of them.
        let args = vec![vec![0xff; 100], vec![b'a'; 100]];
        let line = wire(&CmdError::UnknownCommand { name: b"x".to_vec(), args });
        let mut expected = b"-ERR unknown command 'x', with args beginning with: '".to_vec();
        expected.extend_from_slice(&[0xff; 100]);
        expected.extend_from_slice(b"' '");
        expected.extend_from_slice(&[b'a'; 25]);
        expected.extend_from_slice(b"' \r\n");
        assert_eq!(line, expected);
    }
}
