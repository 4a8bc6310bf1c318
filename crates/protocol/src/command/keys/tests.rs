//! Expected replies were recorded from a real Redis 8.2.3 running the same commands.

use super::*;
use crate::command::testkit::*;

const NOW: i64 = 1_700_000_000_000;

fn nil() -> Reply {
    Reply::NullBulk
}

fn invalid_expire(cmd: &str) -> Reply {
    err(&format!("ERR invalid expire time in '{cmd}' command"))
}

#[test]
fn set_and_get_basics() {
    let mut b = Bench::new(NOW);
    b.check("SET k", arity("set"));
    b.check("GET", arity("get"));
    b.check("GET k k", arity("get"));
    b.check("GET k", nil());
    b.check("SET k v", ok());
    b.check("GET k", bulk("v"));
    b.check("set k v2", ok());
    b.check("GET k", bulk("v2"));
    b.check("XADD s 1-0 f v", bulk("1-0"));
    b.check("GET s", wrongtype());
    let big = vec![b'x'; 5000];
    assert_eq!(b.call(&[b"SET", b"big", &big]), ok());
    assert_eq!(b.call(&[b"GET", b"big"]), Reply::Bulk(big));
    assert_eq!(b.call(&[b"SET", b"", b""]), ok());
    assert_eq!(b.call(&[b"GET", b""]), bulk(""));
}

#[test]
fn set_option_syntax() {
    let mut b = Bench::new(NOW);
    b.check("SET k v NX XX", syntax());
    b.check("SET k v XX NX", syntax());
    b.check("SET k v EX 10 PX 100", syntax());
    b.check("SET k v EX 10 EXAT 100", syntax());
    b.check("SET k v PXAT 10 PX 100", syntax());
    b.check("SET k v EX", syntax());
    b.check("SET k v NX EX", syntax());
    b.check("SET k v FOO", syntax());
    b.check("SET k v KEEPTTL EX 10", syntax());
    b.check("SET k v EX 10 KEEPTTL", syntax());
    b.check("SET k v KEEPTTL PXAT 10", syntax());
    b.check("SET k v GET NX XX", syntax());
    // Flags are read before the expiry value.
    b.check("SET k v EX abc FOO", syntax());
    b.check("SET k v EX 0 FOO", syntax());
    b.check("GET k", nil());
    // Repeats of the same flag are accepted; the last expiry given counts.
    b.check("SET k v KEEPTTL KEEPTTL", ok());
    b.check("SET k v NX NX", nil());
    b.check("SET k v GET GET", bulk("v"));
    b.check("SET k v nx get", bulk("v"));
    b.check("SET k v EX 10 EX 20", ok());
    b.check("TTL k", int(20));
    b.check("SET k v EX 20 EX 10", ok());
    b.check("TTL k", int(10));
    b.check("SET k v EX abc EX 10", ok());
    b.check("TTL k", int(10));
    b.check("SET k v EX 10 EX abc", not_int());
    b.check("SET k v ex 30", ok());
    b.check("TTL k", int(30));
    b.check("SET k v PX 10 PX 20", ok());
    b.check("PTTL k", int(20));
}

#[test]
fn set_expire_values() {
    let mut b = Bench::new(NOW);
    for bad in ["abc", "1.5", "01", "+1", "", "9223372036854775808"] {
        assert_eq!(b.call(&[b"SET", b"k", b"v", b"EX", bad.as_bytes()]), not_int(), "{bad:?}");
    }
    assert_eq!(b.call(&[b"SET", b"k", b"v", b"EX", b" 1"]), not_int());
    for bad in [
        "SET k v EX 0",
        "SET k v EX -1",
        "SET k v PX 0",
        "SET k v PX -5",
        "SET k v EXAT 0",
        "SET k v EXAT -1",
        "SET k v PXAT 0",
        "SET k v EX 9223372036854775807",
        "SET k v EX 9223372036854775",
        "SET k v PX 9223372036854775807",
        "SET k v EXAT 9223372036854776",
    ] {
        b.check(bad, invalid_expire("set"));
    }
    b.check("EXISTS k", int(0));
    b.check("SET k v EX 9223372036854", ok());
    b.check("TTL k", int(9_223_372_036_854));
    b.check("SET k v EXAT 9223372036854775", ok());
    b.check("PTTL k", int(9_223_372_036_854_775_000 - NOW));
    b.check("SET k v PXAT 9223372036854775807", ok());
    b.check("PTTL k", int(i64::MAX - NOW));
    b.check("TTL k", int((i64::MAX - NOW + 500) / 1000));
    b.check("SET k v PXAT 9223372036854775808", not_int());
    b.check("SET k v PX 9223370000000000000", ok());
    b.check("PTTL k", int(9_223_370_000_000_000_000));
    b.check(&format!("SET k v PX {}", i64::MAX - NOW), ok());
    b.check(&format!("SET k v PX {}", i64::MAX - NOW + 1), invalid_expire("set"));
    b.check("SET k v EXAT 1700000100", ok());
    b.check("TTL k", int(100));
    b.check("SET k v PXAT 1700000000500", ok());
    b.check("PTTL k", int(500));
    b.check("TTL k", int(1));
}

#[test]
fn set_with_a_time_in_the_past_deletes() {
    let mut b = Bench::new(NOW);
    b.check("SET k v", ok());
    b.check("SET k v GET EXAT 1", bulk("v"));
    b.check("EXISTS k", int(0));
    b.check("SET k v", ok());
    b.check("SET k v2 GET PXAT 1", bulk("v"));
    b.check("EXISTS k", int(0));
    b.check(&format!("SET k v PXAT {NOW}"), ok());
    b.check("EXISTS k", int(0));
    b.check(&format!("SET k v PXAT {}", NOW + 1), ok());
    b.check("PTTL k", int(1));
    b.check("XADD s 1-0 f v", bulk("1-0"));
    b.check("SET s v EXAT 1 GET", wrongtype());
    b.check("TYPE s", status("stream"));
    b.check("SET s v EXAT 1 NX", nil());
    b.check("TYPE s", status("stream"));
    b.db.take_ready();
    b.check("SET s v EXAT 1", ok());
    b.check("EXISTS s", int(0));
    // Readers blocked on the stream must hear that it is gone.
    assert!(b.db.take_ready().contains(&b"s".to_vec()));
}

#[test]
fn set_conditions_and_get() {
    let mut b = Bench::new(NOW);
    b.check("SET k v3 XX", nil());
    b.check("SET k v3 XX GET", nil());
    b.check("EXISTS k", int(0));
    b.check("SET k v3 NX GET", nil());
    b.check("GET k", bulk("v3"));
    b.check("SET k v4 NX", nil());
    b.check("SET k v4 NX GET", bulk("v3"));
    b.check("GET k", bulk("v3"));
    b.check("SET k v5 XX GET", bulk("v3"));
    b.check("GET k", bulk("v5"));
    b.check("SET k v6 XX", ok());
    b.check("GET k", bulk("v6"));
    b.check("SET n v GET", nil());
    b.check("GET n", bulk("v"));
}

#[test]
fn set_on_a_stream() {
    let mut b = Bench::new(NOW);
    b.check("XADD s 1-0 f v", bulk("1-0"));
    b.check("SET s x GET", wrongtype());
    b.check("SET s x NX GET", wrongtype());
    b.check("SET s x XX GET", wrongtype());
    b.check("SET s x NX", nil());
    // Parsing errors come before the type check.
    b.check("SET s v EX 0 GET", invalid_expire("set"));
    b.check("SET s v EX abc GET", not_int());
    b.check("TYPE s", status("stream"));
    b.db.take_ready();
    b.db.take_touched();
    b.check("SET s x", ok());
    assert_eq!(b.db.take_ready(), vec![b"s".to_vec()]);
    assert!(b.db.take_touched().contains(&b"s".to_vec()));
    b.check("TYPE s", status("string"));
    b.check("GET s", bulk("x"));
    b.check("XADD s2 1-0 f v", bulk("1-0"));
    b.check("SET s2 x XX", ok());
    b.check("TYPE s2", status("string"));
}

#[test]
fn set_keepttl_and_ttl_reset() {
    let mut b = Bench::new(NOW);
    b.check("SET k v", ok());
    b.check("EXPIRE k 100", int(1));
    b.check("SET k v4 KEEPTTL", ok());
    b.check("TTL k", int(100));
    b.check("SET k v5", ok());
    b.check("TTL k", int(-1));
    b.check("SET k v EX 100", ok());
    b.check("SET k v NX", nil());
    b.check("TTL k", int(100));
    b.check("SET n v KEEPTTL", ok());
    b.check("TTL n", int(-1));
}

#[test]
fn expiry_follows_the_clock() {
    let mut b = Bench::new(NOW);
    b.check("SET k v PX 1500", ok());
    b.check("TTL k", int(2));
    b.check("PTTL k", int(1500));
    b.now += 1;
    b.check("PTTL k", int(1499));
    b.check("TTL k", int(1));
    b.now += 999;
    b.check("PTTL k", int(500));
    b.check("TTL k", int(1));
    b.now += 1;
    b.check("TTL k", int(0));
    b.now += 498;
    b.check("PTTL k", int(1));
    b.check("TTL k", int(0));
    assert_eq!(b.db.len(), 1);
    b.now += 1;
    b.check("PTTL k", int(-2));
    b.check("TTL k", int(-2));
    b.check("GET k", nil());
    assert_eq!(b.db.len(), 0);
    // A stream with an expiry goes the same way, and its readers hear of it.
    b.check("XADD s 1-0 f v", bulk("1-0"));
    b.check("PEXPIRE s 10", int(1));
    b.now += 9;
    b.check("XLEN s", int(1));
    b.db.take_ready();
    b.now += 1;
    b.check("XLEN s", int(0));
    assert_eq!(b.db.take_ready(), vec![b"s".to_vec()]);
    b.check("TYPE s", status("none"));
}

#[test]
fn expire_errors_and_order() {
    let mut b = Bench::new(NOW);
    b.check("EXPIRE k", arity("expire"));
    b.check("PEXPIRE k", arity("pexpire"));
    b.check("EXPIRE nokey abc", not_int());
    b.check("EXPIRE nokey 10 FOO", err("ERR Unsupported option FOO"));
    b.check("EXPIRE nokey 10", int(0));
    b.check("EXPIRE nokey 10 NX", int(0));
    b.check("EXPIRE nokey 9223372036854775807", invalid_expire("expire"));
    b.check("EXPIRE nokey -9223372036854775808", invalid_expire("expire"));
    b.check("SET k v", ok());
    b.check("EXPIRE k abc", not_int());
    b.check("EXPIRE k 1.5", not_int());
    b.check("EXPIRE k 01", not_int());
    b.check("EXPIRE k 10 FOO", err("ERR Unsupported option FOO"));
    b.check("EXPIRE k 100 nx foo", err("ERR Unsupported option foo"));
    // Unknown flags are reported before flag conflicts, conflicts before the number.
    b.check("EXPIRE k 100 NX XX FOO", err("ERR Unsupported option FOO"));
    b.check("EXPIRE k 100 FOO NX XX", err("ERR Unsupported option FOO"));
    b.check("EXPIRE k abc FOO", err("ERR Unsupported option FOO"));
    let nx_and = err("ERR NX and XX, GT or LT options at the same time are not compatible");
    let gt_lt = err("ERR GT and LT options at the same time are not compatible");
    b.check("EXPIRE k abc NX XX", nx_and.clone());
    b.check("EXPIRE k 10 NX XX", nx_and.clone());
    b.check("EXPIRE k 10 NX GT", nx_and.clone());
    b.check("EXPIRE k 100 GT NX", nx_and.clone());
    b.check("EXPIRE k 1 GT LT NX", nx_and.clone());
    b.check("EXPIRE k 10 GT LT", gt_lt.clone());
    b.check("EXPIRE k 100 LT GT", gt_lt);
    b.check("PEXPIRE k 100 FOO", err("ERR Unsupported option FOO"));
    b.check("PEXPIRE k 9223372036854775807", invalid_expire("pexpire"));
    b.check("EXPIRE k 9223372036854775", invalid_expire("expire"));
    b.check("TTL k", int(-1));
    b.check("EXPIRE k 9223372036854", int(1));
    b.check("TTL k", int(9_223_372_036_854));
    b.check("PEXPIRE k 9223370000000000000", int(1));
    b.check("PTTL k", int(9_223_370_000_000_000_000));
    b.check(&format!("PEXPIRE k {}", i64::MAX - NOW), int(1));
    b.check(&format!("PEXPIRE k {}", i64::MAX - NOW + 1), invalid_expire("pexpire"));
}

#[test]
fn expire_conditions() {
    let mut b = Bench::new(NOW);
    b.check("SET k v", ok());
    // No expiry counts as an infinitely distant one.
    b.check("EXPIRE k 10 XX", int(0));
    b.check("EXPIRE k 10 GT", int(0));
    b.check("EXPIRE k 100 XX GT", int(0));
    b.check("EXPIRE k 100 LT XX", int(0));
    b.check("TTL k", int(-1));
    b.check("EXPIRE k 10 LT", int(1));
    b.check("EXPIRE k 10 NX", int(0));
    b.check("TTL k", int(10));
    b.check("EXPIRE k 20 NX", int(0));
    b.check("EXPIRE k 20 XX", int(1));
    b.check("TTL k", int(20));
    b.check("EXPIRE k 10 GT", int(0));
    b.check("EXPIRE k 20 GT", int(0));
    b.check("EXPIRE k 30 GT", int(1));
    b.check("EXPIRE k 40 LT", int(0));
    b.check("EXPIRE k 30 LT", int(0));
    b.check("EXPIRE k 5 LT", int(1));
    b.check("EXPIRE k 5 xx", int(1));
    b.check("EXPIRE k 5 NX NX", int(0));
    b.check("EXPIRE k 5 XX XX", int(1));
    b.check("PEXPIRE k 100 LT XX", int(1));
    b.check("PTTL k", int(100));
    b.check("PEXPIRE k 200 GT", int(1));
    b.check("PTTL k", int(200));
    b.check("PEXPIRE k 100 NX", int(0));
    b.check("PEXPIRE nokey 100 XX", int(0));
}

#[test]
fn expire_in_the_past_deletes() {
    let mut b = Bench::new(NOW);
    for line in
        ["EXPIRE k 0", "EXPIRE k -9223372036854775", "EXPIRE k -1 NX", "PEXPIRE k 0", "PEXPIRE k -9223372036854775808"]
    {
        b.check("SET k v", ok());
        b.check(line, int(1));
        b.check("EXISTS k", int(0));
    }
    // The conditions are checked first.
    b.check("SET k v EX 100", ok());
    b.check("EXPIRE k -1 NX", int(0));
    b.check("EXPIRE k -1 GT", int(0));
    b.check("EXPIRE k 0 GT", int(0));
    b.check("EXISTS k", int(1));
    b.check("EXPIRE k -1 LT", int(1));
    b.check("EXISTS k", int(0));
    b.check("SET k v", ok());
    b.check("EXPIRE k -1 XX", int(0));
    b.check("EXPIRE k -1 GT", int(0));
    b.check("EXISTS k", int(1));
    b.check("EXPIRE k -1 LT", int(1));
    b.check("EXISTS k", int(0));
    b.check("XADD s 1-0 f v", bulk("1-0"));
    b.db.take_ready();
    b.check("EXPIRE s 0", int(1));
    assert_eq!(b.db.take_ready(), vec![b"s".to_vec()]);
}

#[test]
fn ttl_pttl_persist() {
    let mut b = Bench::new(NOW);
    b.check("TTL", arity("ttl"));
    b.check("TTL k k", arity("ttl"));
    b.check("PTTL", arity("pttl"));
    b.check("PERSIST", arity("persist"));
    b.check("PERSIST k k", arity("persist"));
    b.check("TTL nokey", int(-2));
    b.check("PTTL nokey", int(-2));
    b.check("PERSIST nokey", int(0));
    b.check("SET k v", ok());
    b.check("TTL k", int(-1));
    b.check("PTTL k", int(-1));
    b.check("PERSIST k", int(0));
    b.check("EXPIRE k 100", int(1));
    b.db.take_touched();
    b.check("PERSIST k", int(1));
    assert_eq!(b.db.take_touched(), vec![b"k".to_vec()]);
    b.check("PERSIST k", int(0));
    assert!(b.db.take_touched().is_empty());
    b.check("TTL k", int(-1));
    b.check("SET k v PX 1", ok());
    b.check("TTL k", int(0));
}

#[test]
fn del_unlink_exists_type() {
    let mut b = Bench::new(NOW);
    for cmd in ["del", "unlink", "exists", "type"] {
        b.check(cmd, arity(cmd));
    }
    b.check("TYPE a b", arity("type"));
    b.check("SET a 1", ok());
    b.check("SET b 2", ok());
    b.check("XADD s 1-0 f v", bulk("1-0"));
    b.check("TYPE a", status("string"));
    b.check("TYPE s", status("stream"));
    b.check("TYPE nokey", status("none"));
    b.check("EXISTS a a b nokey s", int(4));
    b.check("DEL a a b nokey", int(2));
    b.check("EXISTS a a b", int(0));
    b.db.take_ready();
    b.check("UNLINK s s", int(1));
    assert_eq!(b.db.take_ready(), vec![b"s".to_vec()]);
    b.check("SET a 1 EX 10", ok());
    b.check("EXISTS a a a nokey", int(3));
    b.check("DEL a", int(1));
    b.check("SET a 1", ok());
    b.check("TTL a", int(-1));
    b.check("del A", int(0));
}

#[test]
fn keys_glob() {
    let mut b = Bench::new(NOW);
    b.check("KEYS", arity("keys"));
    b.check("KEYS a b", arity("keys"));
    b.check("KEYS *", arr(vec![]));
    for k in ["s", "a", "b", "user:1", "user:2", "user:10", "h[x]"] {
        b.check(&format!("SET {k} v"), ok());
    }
    b.check("KEYS *", bulks(&["a", "b", "h[x]", "s", "user:1", "user:10", "user:2"]));
    b.check("KEYS user:?", bulks(&["user:1", "user:2"]));
    b.check("KEYS user:*", bulks(&["user:1", "user:10", "user:2"]));
    b.check("KEYS [ab]", bulks(&["a", "b"]));
    b.check("KEYS [^ab]", bulks(&["s"]));
    b.check("KEYS [a-c]", bulks(&["a", "b"]));
    b.check("KEYS h\\[x]", bulks(&["h[x]"]));
    b.check("KEYS [", arr(vec![]));
    b.check("KEYS x", arr(vec![]));
    b.check("KEYS A", arr(vec![]));
}

#[test]
fn flushall_and_flushdb() {
    let mut b = Bench::new(NOW);
    for cmd in ["FLUSHALL", "FLUSHDB"] {
        b.check("SET a 1 EX 100", ok());
        b.check("XADD s 1-0 f v", bulk("1-0"));
        b.check(&format!("{cmd} FOO"), syntax());
        b.check(&format!("{cmd} ASYNC SYNC"), syntax());
        b.check(&format!("{cmd} SYNC SYNC"), syntax());
        assert_eq!(b.db.len(), 2);
        b.db.take_ready();
        b.check(cmd, ok());
        assert_eq!(b.db.take_ready(), vec![b"s".to_vec()]);
        assert_eq!(b.db.len(), 0);
        b.check(&format!("{cmd} async"), ok());
        b.check(&format!("{cmd} sync"), ok());
        b.check(&format!("{cmd} ASYNC"), ok());
    }
}

// ----- SCAN -----

fn scan_reply(cursor: &str, keys: &[&str]) -> Reply {
    arr(vec![bulk(cursor), bulks(keys)])
}

/// Runs a full SCAN walk; returns every key seen (with repeats) and the number of calls.
fn walk(b: &mut Bench, options: &str) -> (Vec<String>, usize) {
    let mut cursor = "0".to_owned();
    let mut seen = Vec::new();
    let mut calls = 0;
    loop {
        calls += 1;
        let Reply::Array(parts) = b.run(&format!("SCAN {cursor} {options}")) else { panic!() };
        let [Reply::Bulk(next), Reply::Array(keys)] = parts.as_slice() else { panic!() };
        seen.extend(keys.iter().map(|k| match k {
            Reply::Bulk(k) => String::from_utf8(k.clone()).unwrap(),
            _ => panic!(),
        }));
        cursor = String::from_utf8(next.clone()).unwrap();
        if cursor == "0" {
            return (seen, calls);
        }
        assert!(calls < 10_000);
    }
}

#[test]
fn scan_errors() {
    let mut b = Bench::new(NOW);
    let invalid = err("ERR invalid cursor");
    b.check("SCAN", arity("scan"));
    for bad in ["abc", "-1", "-5", "18446744073709551616", "1a", "0x1", "+", "-", " ", "+-1", "-+0", "1 ", "-0 ", "+ 1"]
    {
        assert_eq!(b.call(&[b"SCAN", bad.as_bytes()]), invalid, "{bad:?}");
    }
    for bad in ["", "\x001", "\x00", "-9223372036854775808", " -18446744073709551616"] {
        assert_eq!(b.call(&[b"SCAN", bad.as_bytes()]), invalid, "{bad:?}");
    }
    b.check("SCAN abc FOO", invalid);
    b.check("SCAN 0 COUNT", syntax());
    b.check("SCAN 0 COUNT 0", syntax());
    b.check("SCAN 0 COUNT -1", syntax());
    b.check("SCAN 0 COUNT abc", not_int());
    b.check("SCAN 0 COUNT 01", not_int());
    b.check("SCAN 0 MATCH", syntax());
    b.check("SCAN 0 TYPE", syntax());
    b.check("SCAN 0 FOO", syntax());
    b.check("SCAN 0 FOO bar", syntax());
    b.check("SCAN 0 COUNT abc TYPE foo", not_int());
    b.check("SCAN 0 TYPE foo COUNT abc", not_int());
    b.check("SCAN 0 TYPE foo FOO", syntax());
    b.check("SCAN 0 FOO TYPE foo", syntax());
    let novalues = err("ERR NOVALUES option can only be used in HSCAN");
    b.check("SCAN 0 NOVALUES", novalues.clone());
    b.check("SCAN 0 novalues", novalues.clone());
    b.check("SCAN 0 NOVALUES FOO", novalues.clone());
    b.check("SCAN 0 NOVALUES COUNT abc", novalues);
    b.check("SCAN 0 COUNT abc NOVALUES", not_int());
    b.check("SCAN 0 FOO NOVALUES", syntax());
}

#[test]
fn scan_accepts_what_strtoull_accepts() {
    let mut b = Bench::new(NOW);
    b.check("SCAN 0", scan_reply("0", &[]));
    b.run("SET a 1");
    for cursor in ["0", "00", "-0", "-00", "-000", "+0", " +0", " -0", "\t0", "\n0", "\r0", "\x0b0", "\x0c0", "0\x00x"]
    {
        assert_eq!(b.call(&[b"SCAN", cursor.as_bytes()]), scan_reply("0", &["a"]), "{cursor:?}");
    }
    // Any number is a cursor; the large ones land somewhere in the walk.
    for cursor in ["01", "+1", " -1", " -2", "18446744073709551615", "018446744073709551615", " -18446744073709551615"]
    {
        let reply = b.call(&[b"SCAN", cursor.as_bytes()]);
        assert!(matches!(&reply, Reply::Array(parts) if parts.len() == 2), "{cursor:?}: {reply:?}");
    }
    assert_eq!(parse_cursor(b" -1"), Ok(u64::MAX));
    assert_eq!(parse_cursor(b" -18446744073709551615"), Ok(1));
    assert_eq!(parse_cursor(b"18446744073709551615"), Ok(u64::MAX));
    assert_eq!(parse_cursor(b"000000000000000000000000000000000000001"), Ok(1));
    assert_eq!(parse_cursor(b"7\x00junk"), Ok(7));
}

#[test]
fn scan_small_keyspace() {
    let mut b = Bench::new(NOW);
    b.run("SET a 1");
    b.run("SET b 2");
    b.run("XADD s 1-0 f v");
    // A keyspace smaller than COUNT comes back in one call (bucket order, key order within
    // a bucket), like Redis's.
    let Reply::Array(parts) = b.run("SCAN 0") else { panic!() };
    assert_eq!(parts[0], bulk("0"));
    let Reply::Array(keys) = &parts[1] else { panic!() };
    let mut keys = keys.clone();
    keys.sort_by_key(|k| match k {
        Reply::Bulk(k) => k.clone(),
        _ => panic!(),
    });
    assert_eq!(keys, vec![bulk("a"), bulk("b"), bulk("s")]);
    b.check("SCAN 0 TYPE stream", scan_reply("0", &["s"]));
    b.check("SCAN 0 TYPE STREAM", scan_reply("0", &["s"]));
    let strings = b.run("SCAN 0 TYPE string MATCH *");
    b.check("SCAN 0 TYPE String MATCH ?", strings.clone());
    for t in ["hash", "zset", "list", "set", "none", "foo"] {
        b.check(&format!("SCAN 0 TYPE {t}"), scan_reply("0", &[]));
    }
    b.check("SCAN 0 MATCH a*", scan_reply("0", &["a"]));
    b.check("SCAN 0 MATCH [", scan_reply("0", &[]));
    // The last of a repeated option counts.
    b.check("SCAN 0 TYPE foo TYPE stream", scan_reply("0", &["s"]));
    b.check("SCAN 0 TYPE stream TYPE foo", scan_reply("0", &[]));
    b.check("SCAN 0 MATCH b MATCH a", scan_reply("0", &["a"]));
    let everything = b.run("SCAN 0");
    b.check("SCAN 0 COUNT 1 COUNT 9223372036854775807", everything);
    b.check("SCAN 0 count 10 match * type string", strings);
}

#[test]
fn scan_cursors_are_deterministic() {
    // Pinned so that a change of hash or walk (which would change every cursor a lesson
    // shows) is a deliberate decision.
    let mut b = Bench::new(NOW);
    for k in ["a", "b", "s"] {
        b.run(&format!("SET {k} v"));
    }
    let first = b.run("SCAN 0 COUNT 1");
    let mut again = Bench::new(0);
    for k in ["s", "b", "a"] {
        again.run(&format!("SET {k} v"));
    }
    assert_eq!(again.run("SCAN 0 COUNT 1"), first);
    for key in [&b""[..], b"a", b"user:1", &[0xff; 300]] {
        assert_eq!(scan_hash(key), scan_hash_reference(key));
    }
    assert_eq!(first, scan_reply("2", &["b"]));
    b.check("SCAN 2 COUNT 1", scan_reply("1", &["s"]));
    b.check("SCAN 1 COUNT 1", scan_reply("0", &["a"]));
}

/// The same hash written out separately, to pin its definition.
fn scan_hash_reference(key: &[u8]) -> u64 {
    let mut h = 14_695_981_039_346_656_037_u64;
    for &b in key {
        h = (h ^ u64::from(b)).wrapping_mul(1_099_511_628_211);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ceb9fe1a85ec53);
    h ^ (h >> 33)
}

#[test]
fn scan_walks_visit_every_key_once() {
    let mut b = Bench::new(NOW);
    let mut expected: Vec<String> = (0..200).map(|i| format!("key:{i}")).collect();
    for k in &expected {
        b.run(&format!("SET {k} v"));
    }
    expected.sort();
    for count in [1, 3, 10, 1000] {
        let (mut seen, calls) = walk(&mut b, &format!("COUNT {count}"));
        seen.sort();
        assert_eq!(seen, expected, "COUNT {count}");
        if count == 1000 {
            assert_eq!(calls, 1);
        } else {
            assert!(calls > 200 / count / 2, "COUNT {count}: {calls} calls");
        }
    }
    // Filters apply after the walk: the number of calls does not change.
    let (_, plain) = walk(&mut b, "COUNT 5");
    let (seen, filtered) = walk(&mut b, "COUNT 5 MATCH key:1?");
    assert_eq!(plain, filtered);
    let mut seen = seen;
    seen.sort();
    assert_eq!(seen, (10..20).map(|i| format!("key:{i}")).collect::<Vec<_>>());
    let (seen, _) = walk(&mut b, "TYPE stream");
    assert!(seen.is_empty());
}

#[test]
fn scan_survives_growth_and_shrinking() {
    // Keys present for the whole walk come back at least once even when the imaginary
    // table grows or shrinks between calls.
    for (start, change) in [(20usize, 500usize), (500, 20)] {
        let mut b = Bench::new(NOW);
        let stable: Vec<String> = (0..start.min(change)).map(|i| format!("stable:{i}")).collect();
        for k in &stable {
            b.run(&format!("SET {k} v"));
        }
        for i in 0..start.saturating_sub(stable.len()) {
            b.run(&format!("SET extra:{i} v"));
        }
        let mut cursor = "0".to_owned();
        let mut seen = std::collections::BTreeSet::new();
        let mut calls = 0;
        loop {
            let Reply::Array(parts) = b.run(&format!("SCAN {cursor} COUNT 7")) else { panic!() };
            let [Reply::Bulk(next), Reply::Array(keys)] = parts.as_slice() else { panic!() };
            for k in keys {
                let Reply::Bulk(k) = k else { panic!() };
                seen.insert(String::from_utf8(k.clone()).unwrap());
            }
            cursor = String::from_utf8(next.clone()).unwrap();
            calls += 1;
            if calls == 2 {
                // Resize in the middle of the walk.
                if change > start {
                    for i in 0..change - start {
                        b.run(&format!("SET more:{i} v"));
                    }
                } else {
                    b.run("SCAN 0 MATCH nothing");
                    let extra: Vec<Vec<u8>> = b.db.keys_matching(b"extra:*").cloned().collect();
                    for k in extra {
                        b.db.remove(&k);
                    }
                }
            }
            if cursor == "0" {
                break;
            }
        }
        for k in &stable {
            assert!(seen.contains(k), "{start}->{change}: missed {k}");
        }
    }
}

#[test]
fn next_cursor_counts_reversed_bits() {
    // With 8 buckets the walk visits 0, 4, 2, 6, 1, 5, 3, 7 and then ends.
    let mut cursor = 0;
    let mut order = vec![];
    loop {
        order.push(cursor);
        cursor = next_cursor(cursor, 7);
        if cursor == 0 {
            break;
        }
    }
    assert_eq!(order, vec![0, 4, 2, 6, 1, 5, 3, 7]);
    assert_eq!(next_cursor(u64::MAX, 7), 0);
}
