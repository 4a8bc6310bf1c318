//! Encoder/decoder round trips and robustness of the decoders on hostile input.

use streamlab_protocol::{decode_reply, encode, encode_request, parse_request, ProtocolError, Reply};
use streamlab_testkit::rng::Rng;

/// One value of every variant, nested inside each aggregate kind.
fn every_variant() -> Vec<Reply> {
    let scalars = vec![
        Reply::ok(),
        Reply::Status(String::new()),
        Reply::Error("ERR something went wrong".into()),
        Reply::Integer(0),
        Reply::Integer(i64::MIN),
        Reply::Integer(i64::MAX),
        Reply::bulk(b"\0\xff\r\n\"binary\""),
        Reply::bulk(""),
        Reply::NullBulk,
        Reply::NullArray,
        Reply::Double(1.5),
        Reply::Double(-0.1),
        Reply::Double(3.0),
        Reply::Double(f64::INFINITY),
        Reply::Double(f64::NEG_INFINITY),
        Reply::Double(1e300),
        Reply::Boolean(true),
        Reply::Boolean(false),
        Reply::Verbatim { format: *b"txt", text: b"line 1\r\nline 2".to_vec() },
        Reply::Verbatim { format: *b"mkd", text: Vec::new() },
    ];
    let mut all = scalars.clone();
    all.push(Reply::Array(scalars.clone()));
    all.push(Reply::Array(vec![]));
    all.push(Reply::Set(scalars.clone()));
    all.push(Reply::Set(vec![]));
    all.push(Reply::Push(vec![Reply::bulk("message"), Reply::bulk("ch"), Reply::bulk("hi")]));
    all.push(Reply::Map(scalars.iter().cloned().zip(scalars.iter().rev().cloned()).collect()));
    all.push(Reply::Map(vec![]));
    let nested = Reply::Array(vec![
        Reply::Map(vec![(Reply::bulk("k"), Reply::Set(vec![Reply::Array(vec![Reply::Integer(1)])]))]),
        Reply::Push(vec![Reply::Array(vec![])]),
    ]);
    all.push(nested);
    all
}

/// What a RESP2 client gets back for a reply: the RESP3-only shapes collapse.
fn as_resp2(reply: &Reply) -> Reply {
    match reply {
        Reply::Map(pairs) => Reply::Array(pairs.iter().flat_map(|(k, v)| [as_resp2(k), as_resp2(v)]).collect()),
        Reply::Array(items) | Reply::Set(items) | Reply::Push(items) => {
            Reply::Array(items.iter().map(as_resp2).collect())
        }
        Reply::Double(d) => Reply::bulk(streamlab_protocol::format_double(*d)),
        Reply::Boolean(b) => Reply::Integer(i64::from(*b)),
        Reply::Verbatim { text, .. } => Reply::Bulk(text.clone()),
        other => other.clone(),
    }
}

/// What a RESP3 client gets back: the two nulls are one.
fn as_resp3(reply: &Reply) -> Reply {
    match reply {
        Reply::NullArray => Reply::NullBulk,
        Reply::Array(items) => Reply::Array(items.iter().map(as_resp3).collect()),
        Reply::Set(items) => Reply::Set(items.iter().map(as_resp3).collect()),
        Reply::Push(items) => Reply::Push(items.iter().map(as_resp3).collect()),
        Reply::Map(pairs) => Reply::Map(pairs.iter().map(|(k, v)| (as_resp3(k), as_resp3(v))).collect()),
        other => other.clone(),
    }
}

#[test]
fn round_trip_both_versions() {
    for reply in every_variant() {
        for resp3 in [false, true] {
            let bytes = encode(&reply, resp3);
            let want = if resp3 { as_resp3(&reply) } else { as_resp2(&reply) };
            assert_eq!(decode_reply(&bytes, resp3), Ok(Some((want, bytes.len()))), "resp3={resp3} {reply:?}");
            // Every strict prefix is incomplete, never an error or a wrong reply.
            for cut in 0..bytes.len() {
                assert_eq!(decode_reply(&bytes[..cut], resp3), Ok(None), "cut {cut} of {reply:?}");
            }
        }
    }
}

#[test]
fn exact_wire_bytes() {
    let cases: &[(Reply, &[u8], &[u8])] = &[
        (Reply::NullBulk, b"$-1\r\n", b"_\r\n"),
        (Reply::NullArray, b"*-1\r\n", b"_\r\n"),
        (Reply::Double(1.5), b"$3\r\n1.5\r\n", b",1.5\r\n"),
        (Reply::Double(f64::NEG_INFINITY), b"$4\r\n-inf\r\n", b",-inf\r\n"),
        (Reply::Boolean(true), b":1\r\n", b"#t\r\n"),
        (Reply::Verbatim { format: *b"txt", text: b"hi".to_vec() }, b"$2\r\nhi\r\n", b"=6\r\ntxt:hi\r\n"),
        (Reply::Map(vec![(Reply::Integer(1), Reply::Boolean(false))]), b"*2\r\n:1\r\n:0\r\n", b"%1\r\n:1\r\n#f\r\n"),
        (Reply::Set(vec![Reply::Integer(1)]), b"*1\r\n:1\r\n", b"~1\r\n:1\r\n"),
        (Reply::Push(vec![Reply::Integer(1)]), b"*1\r\n:1\r\n", b">1\r\n:1\r\n"),
        (Reply::Error("ERR a\r\nb".into()), b"-ERR a  b\r\n", b"-ERR a  b\r\n"),
    ];
    for (reply, resp2, resp3) in cases {
        assert_eq!(encode(reply, false), *resp2, "{reply:?}");
        assert_eq!(encode(reply, true), *resp3, "{reply:?}");
    }
}

#[test]
fn decoder_specifics() {
    // The reply Redis 8.2.3 sends for DEBUG PROTOCOL attrib in RESP3: the attribute is dropped.
    let attrib = b"|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n$39\r\nSome real reply following the attribute\r\n";
    assert_eq!(
        decode_reply(attrib, true),
        Ok(Some((Reply::bulk("Some real reply following the attribute"), attrib.len())))
    );
    assert_eq!(
        decode_reply(b"(1234567999999999999999999999999999999\r\n", true),
        Ok(Some((Reply::bulk("1234567999999999999999999999999999999"), 40)))
    );
    assert_eq!(decode_reply(b"!5\r\nERR x\r\n", true), Ok(Some((Reply::Error("ERR x".into()), 11))));
    assert_eq!(decode_reply(b"%-1\r\n", true), Ok(Some((Reply::NullArray, 5))));
    assert_eq!(
        decode_reply(b",nan\r\n", true).map(|r| r.map(|(r, _)| matches!(r, Reply::Double(d) if d.is_nan()))),
        Ok(Some(true))
    );
    // RESP2 mode refuses RESP3-only types.
    assert_eq!(decode_reply(b"_\r\n", false), Err(ProtocolError::UnexpectedTypeByte(b'_')));
    assert_eq!(
        decode_reply(b"|0\r\n:1\r\n", false).map_err(|e| e.to_string()),
        Err("Protocol error, got \"|\" as reply type byte".to_owned())
    );
    use ProtocolError::*;
    let errors: &[(&[u8], ProtocolError, &str)] = &[
        (b":x\r\n", BadInteger, "Bad integer value"),
        (b":01\r\n", BadInteger, "Bad integer value"),
        (b"$x\r\n", BadBulkLength, "Bad bulk string length"),
        (b"$-2\r\n", BulkLengthOutOfRange, "Bulk string length out of range"),
        (b"*x\r\n", BadMultiBulkLength, "Bad multi-bulk length"),
        (b"*-2\r\n", MultiBulkLengthOutOfRange, "Multi-bulk length out of range"),
        (b",x\r\n", BadDouble, "Bad double value"),
        (b",NaN\r\n", BadDouble, "Bad double value"),
        (b"#x\r\n", BadBool, "Bad bool value"),
        (b"_x\r\n", BadNil, "Bad nil value"),
        (b"(12a\r\n", BadBignum, "Bad bignum value"),
        (b"+a\rb\r\n", BadSimpleString, "Bad simple string value"),
        (b"=3\r\ntxt\r\n", BadVerbatim, "Verbatim string 4 bytes of content type are missing or incorrectly encoded."),
        (b"\x01\r\n", UnexpectedTypeByte(1), "Protocol error, got \"\\x01\" as reply type byte"),
        (b"$1\r\nab\r\n", MissingCrlf, "Bulk string not terminated by CRLF"),
    ];
    for (buf, err, text) in errors {
        let got = decode_reply(buf, true);
        assert_eq!(got, Err(*err), "{buf:?}");
        assert_eq!(err.to_string(), *text);
    }
}

#[test]
fn deep_nesting_is_refused_not_a_stack_overflow() {
    let deep = b"*1\r\n".repeat(100_000);
    assert_eq!(decode_reply(&deep, true), Err(ProtocolError::TooDeep));
    let attrs = b"|0\r\n".repeat(100_000);
    assert_eq!(decode_reply(&attrs, true), Err(ProtocolError::TooDeep));
    let ok = [b"*1\r\n".repeat(500), b":1\r\n".to_vec()].concat();
    assert!(matches!(decode_reply(&ok, true), Ok(Some(_))));
}

#[test]
fn requests_round_trip() {
    let args: Vec<&[u8]> = vec![b"XADD", b"s", b"*", b"f", b"\0\r\n\xff", b""];
    let bytes = encode_request(&args);
    let parsed = parse_request(&bytes);
    assert_eq!(parsed, Ok(Some((args.iter().map(|a| a.to_vec()).collect(), bytes.len()))));
    for cut in 0..bytes.len() {
        assert_eq!(parse_request(&bytes[..cut]), Ok(None));
    }
}

/// Bytes that look enough like RESP to reach deep into the parsers.
fn garbage(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    const ALPHABET: &[u8] = b"*$+-:_,#(!=%~>|\r\n0123456789-x \0\"'\\tf";
    let seeded = rng.index(2) == 0;
    let mut out = if seeded { seeds[rng.index(seeds.len())].clone() } else { Vec::new() };
    // A few edits keep a seed mostly valid; from scratch, more bytes are needed.
    let len = if seeded { rng.index(4) } else { rng.index(40) };
    for _ in 0..len {
        let at = if out.is_empty() { 0 } else { rng.index(out.len() + 1) };
        match rng.index(4) {
            0 if !out.is_empty() => {
                out.remove(at.min(out.len() - 1));
            }
            1 => out.insert(at, rng.next() as u8),
            _ => out.insert(at, ALPHABET[rng.index(ALPHABET.len())]),
        }
    }
    if !out.is_empty() && rng.index(4) == 0 {
        out.truncate(rng.index(out.len()));
    }
    out
}

#[test]
fn never_panics_on_garbage() {
    let mut seeds: Vec<Vec<u8>> = every_variant().iter().flat_map(|r| [encode(r, false), encode(r, true)]).collect();
    seeds.push(encode_request(&["SET", "k", "v"]));
    seeds.push(b"ECHO \"a\\x41\" 'b'\r\n".to_vec());
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut decoded = 0usize;
    for _ in 0..300_000 {
        let input = garbage(&mut rng, &seeds);
        for resp3 in [false, true] {
            if let Ok(Some((_, used))) = decode_reply(&input, resp3) {
                assert!(used > 0 && used <= input.len());
                decoded += 1;
            }
        }
        if let Ok(Some((_, used))) = parse_request(&input) {
            assert!(used > 0 && used <= input.len());
        }
    }
    // The generator must reach the success paths too, or the test proves little.
    assert!(decoded > 10_000, "only {decoded} inputs decoded");
}
