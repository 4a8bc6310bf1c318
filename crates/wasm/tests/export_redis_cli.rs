//! The page's Export (`Playground::export` of a session loaded from a share link) run through
//! the real `redis-cli` (`redis-cli -p PORT < session.redis`) against Redis 8.2.3: hostile fill
//! keys and log lines must leave a canary key alone and produce exactly the keys the page has,
//! with the same types and lengths.
//!
//! It needs a server, so `cargo test` skips it; `cargo xtask test` runs it against the Redis
//! 8.2.3 it starts (`STREAMLAB_EXPORT_REDIS_PORT`; `REDIS_CLI` overrides the client's path):
//! `STREAMLAB_EXPORT_REDIS_PORT=6379 cargo test -p streamlab-wasm --test export_redis_cli -- --ignored`.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

use streamlab_protocol::{decode_reply, encode_request, Reply, Session};
use streamlab_wasm::share::SessionSpec;
use streamlab_wasm::Playground;

/// A key's type and length (XLEN, or a string's bytes), as both servers report it.
type Shape = BTreeMap<Vec<u8>, (String, i64)>;

struct Redis(TcpStream);

impl Redis {
    fn call(&mut self, args: &[&[u8]]) -> Reply {
        self.0.write_all(&encode_request(args)).unwrap();
        let mut buf = Vec::new();
        loop {
            if let Some((reply, _)) = decode_reply(&buf, false).unwrap() {
                return reply;
            }
            let mut chunk = [0; 65536];
            let n = self.0.read(&mut chunk).unwrap();
            assert!(n > 0, "the server closed the connection");
            buf.extend_from_slice(&chunk[..n]);
        }
    }
}

/// The keys of a server, with their types and lengths, asked through `call`.
fn shape(mut call: impl FnMut(&[&[u8]]) -> Reply) -> Shape {
    let Reply::Array(keys) = call(&[b"KEYS", b"*"]) else { panic!("KEYS failed") };
    let mut shape = Shape::new();
    for key in keys {
        let Reply::Bulk(key) = key else { panic!("a key that is not a bulk string") };
        let Reply::Status(kind) = call(&[b"TYPE", &key]) else { panic!("TYPE failed") };
        // StreamLab has no STRLEN: a string's length is its value's.
        let length = match kind.as_str() {
            "stream" => call(&[b"XLEN", &key]),
            "string" => match call(&[b"GET", &key]) {
                Reply::Bulk(value) => Reply::Integer(value.len() as i64),
                other => other,
            },
            _ => Reply::Integer(-1),
        };
        let Reply::Integer(length) = length else { panic!("no length for {key:?}: {length:?}") };
        shape.insert(key, (kind, length));
    }
    shape
}

/// A connection of its own on the page's session, so nothing a link left a connection in
/// (MULTI, a subscription) changes the answers.
const CHECKER: u64 = 1_000_000;

/// The keys the page holds after loading `spec`, asked on a copy of its session.
fn page_shape(page: &Playground) -> Shape {
    let mut session: Session = page.console().session().clone();
    shape(|args| {
        let mut replies = session.execute(CHECKER, args.iter().map(|a| a.to_vec()).collect()).replies;
        assert_eq!(replies.len(), 1);
        replies.remove(0)
    })
}

/// Percent-encodes a share fragment's value.
fn enc(text: &str) -> String {
    streamlab_wasm::share::encode(text)
}

#[test]
#[ignore = "needs Redis 8.2.3 and redis-cli: `cargo xtask test` runs it (STREAMLAB_EXPORT_REDIS_PORT)"]
fn hostile_share_links_export_only_what_the_page_ran() {
    let port = std::env::var("STREAMLAB_EXPORT_REDIS_PORT").expect("STREAMLAB_EXPORT_REDIS_PORT names the server");
    let cli = std::env::var("REDIS_CLI").unwrap_or_else(|_| "redis-cli".to_owned());
    let mut redis = Redis(TcpStream::connect(("127.0.0.1", port.parse::<u16>().unwrap())).unwrap());
    let dir = std::env::temp_dir().join(format!("streamlab-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pwned = dir.join("PWNED");
    let touch = format!("$(touch {})", pwned.display());

    // The review's link: a line break in the fill key smuggled a FLUSHALL into the script.
    let refused = SessionSpec::parse("fill=x%0AFLUSHALL%0A%23%3A3").unwrap_err();
    assert_eq!(refused, "the fill key has a control character in it");

    let key = format!("k{touch} \"q\" 'a' \\ é🔥:");
    let log = [
        "SET \"k\\nFLUSHALL\" v".to_owned(),
        "SET r v\rDEL canary".to_owned(),
        "SET z 1\0FLUSHALL".to_owned(),
        "SET t v\r".to_owned(),
        format!("XADD \"s p a c e\" * f \"{touch}\" g \"it's\\\\\""),
        "SET 流🔥é \"\\x00\\xff\"".to_owned(),
        ":as a\"b\\c".to_owned(),
        "SET on-b 1".to_owned(),
        ":clock +1500".to_owned(),
        "\"3\" INCR repeated".to_owned(),
        "\":set\" hints".to_owned(),
        "\"connect\" 127.0.0.1 1".to_owned(),
        "\"\" SET empty v".to_owned(),
        "SET \"unbalanced v".to_owned(),
        "# a comment with \"a quote".to_owned(),
        "\"quit\"".to_owned(),
        "SET after-quit v".to_owned(),
        "DEL".to_owned(),
    ]
    .join("\n");
    // A small fill is written out as XADD lines, a big one as one EVAL.
    for count in [3, 1_500] {
        let fragment = format!("fill={}&log={}", enc(&format!("{key}:{count}")), enc(&log));
        let page = Playground::restore(&SessionSpec::parse(&fragment).unwrap());
        let script = page.export();
        let file = dir.join(format!("session-{count}.redis"));
        std::fs::write(&file, &script).unwrap();

        assert_eq!(redis.call(&[b"FLUSHALL"]), Reply::Status("OK".into()));
        assert_eq!(redis.call(&[b"SET", b"canary", b"alive"]), Reply::Status("OK".into()));
        let ran = Command::new(&cli)
            .args(["-p", &port])
            .stdin(std::fs::File::open(&file).unwrap())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .unwrap_or_else(|e| panic!("{cli}: {e}"));
        let printed = String::from_utf8_lossy(&ran.stdout);
        assert!(ran.status.success(), "redis-cli failed: {printed}{}", String::from_utf8_lossy(&ran.stderr));

        assert_eq!(redis.call(&[b"GET", b"canary"]), Reply::Bulk(b"alive".to_vec()), "{script}\n{printed}");
        let mut theirs = shape(|args| redis.call(args));
        theirs.remove(b"canary".as_slice());
        let ours = page_shape(&page);
        assert_eq!(theirs, ours, "the file:\n{script}\nredis-cli printed:\n{printed}");
        // What the page holds, so the comparison is not vacuous.
        let expected: Vec<&[u8]> =
            vec![b"k\nFLUSHALL", b"z", b"t", b"s p a c e", "流🔥é".as_bytes(), b"on-b", b"after-quit"];
        let mut names: Vec<&[u8]> = ours.keys().map(Vec::as_slice).collect();
        names.retain(|name| *name != key.as_bytes());
        names.sort();
        let mut expected = expected;
        expected.sort();
        assert_eq!(names, expected);
        assert_eq!(ours[key.as_bytes()], ("stream".to_owned(), count));
        // The fill's entries are the page's: ids `1-0`..`N-0`, field `n`.
        let last = redis.call(&[b"XREVRANGE", key.as_bytes(), b"+", b"-", b"COUNT", b"1"]);
        let entry = |id: String, n: String| {
            Reply::Array(vec![
                Reply::Bulk(id.into_bytes()),
                Reply::Array(vec![Reply::Bulk(b"n".to_vec()), Reply::Bulk(n.into_bytes())]),
            ])
        };
        assert_eq!(last, Reply::Array(vec![entry(format!("{count}-0"), count.to_string())]));
        assert_eq!(ours["流🔥é".as_bytes()], ("string".to_owned(), 2));
        assert!(!pwned.exists(), "the export ran a shell command");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
