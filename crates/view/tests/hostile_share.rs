//! Share fragments from hostile text (crates/testkit's `text`): any fragment reads as a spec
//! or a clean error, a spec read back from its own fragment is the same spec, encoding
//! round-trips any text, and a playground starts from whatever a fragment can say.

use streamlab_protocol::console::MAX_FILL;
use streamlab_protocol::PROFILES;
use streamlab_protocol::VIRTUAL_CLOCK_MAX_MS;
use streamlab_testkit::rng::Rng;
use streamlab_testkit::text;
use streamlab_view::share::{decode, encode};
use streamlab_view::{Playground, SessionSpec};

/// A percent-encoded piece of a fragment, sometimes of bytes that are not UTF-8.
fn escaped(rng: &mut Rng) -> String {
    let mut out = String::new();
    for b in text::bytes(rng, 8) {
        if b.is_ascii_alphanumeric() && rng.chance(50) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Fragment text: the known parts with hostile values, raw hostile text, escapes of any bytes,
/// broken escapes (`%`, `%4`, `%zz`).
fn fragment(rng: &mut Rng) -> String {
    let mut out = String::new();
    if rng.chance(50) {
        out.push('#');
    }
    for _ in 0..rng.below(5) {
        let name = rng.pick::<str>(&["profile", "clock", "fill", "log", "x", ""]);
        let value = match rng.below(5) {
            0 => escaped(rng),
            1 => encode(&text::text(rng, 20)),
            2 => text::text(rng, 20),
            3 => rng
                .pick(&["%", "%4", "%zz", "+", "=", "&", "big:1000001", "k:12", "-5", "9223372036854775808"])
                .to_string(),
            _ => format!("{}:{}", encode(&text::text(rng, 6)), rng.below(40)),
        };
        out.push_str(&format!("{name}={value}&"));
    }
    out
}

#[test]
fn any_fragment_reads_or_fails_cleanly_and_what_reads_round_trips() {
    let mut rng = Rng::new(14);
    let mut read = 0;
    for _ in 0..20_000 {
        let fragment = fragment(&mut rng);
        let Ok(spec) = SessionSpec::parse(&fragment) else { continue };
        read += 1;
        assert!(spec.fill.as_ref().is_none_or(|(_, count)| *count <= MAX_FILL), "{fragment:?}");
        assert_eq!(SessionSpec::parse(&spec.to_fragment()).as_ref(), Ok(&spec), "{fragment:?}");
    }
    assert!(read > 2_000, "enough fragments read ({read})");
}

#[test]
fn any_spec_round_trips_through_its_fragment() {
    let mut rng = Rng::new(15);
    for _ in 0..5_000 {
        let lines: Vec<String> = (0..rng.below(4)).map(|_| text::text(&mut rng, 20)).collect();
        let spec = SessionSpec {
            profile: PROFILES[rng.index(PROFILES.len())].profile,
            clock: rng.below(VIRTUAL_CLOCK_MAX_MS as u64 + 1) as i64,
            fill: rng.chance(50).then(|| (text::text(&mut rng, 10), rng.below(MAX_FILL + 1))),
            log: lines.join("\n"),
        };
        if spec.fill.as_ref().is_some_and(|(key, _)| key.chars().any(char::is_control)) {
            // Such a key is never a name someone typed: refused, not carried into the export.
            let refused = SessionSpec::parse(&spec.to_fragment());
            assert_eq!(refused, Err("the fill key has a control character in it".to_owned()), "{spec:?}");
            continue;
        }
        assert_eq!(SessionSpec::parse(&spec.to_fragment()), Ok(spec.clone()), "{spec:?}");
        assert_eq!(SessionSpec::parse(&format!("#{}", spec.to_fragment())), Ok(spec));
    }
}

#[test]
fn encoding_round_trips_and_decoding_takes_any_text() {
    let mut rng = Rng::new(16);
    for _ in 0..20_000 {
        let plain = text::text(&mut rng, 30);
        let encoded = encode(&plain);
        assert!(encoded.bytes().all(|b| b.is_ascii_graphic() && !matches!(b, b'&' | b'=' | b'#' | b'+')), "{encoded}");
        assert_eq!(decode(&encoded).as_deref(), Some(plain.as_str()));
        let _ = decode(&plain);
        let _ = decode(&escaped(&mut rng));
    }
}

#[test]
fn a_playground_starts_from_any_fragment() {
    let mut rng = Rng::new(17);
    for _ in 0..300 {
        let Ok(mut spec) = SessionSpec::parse(&fragment(&mut rng)) else { continue };
        // Fills are exercised (and limited) elsewhere; a small one keeps this run short.
        if let Some((_, count)) = &mut spec.fill {
            *count %= 50;
        }
        let mut playground = Playground::new(&spec);
        let _ = playground.run(&text::text(&mut rng, 20));
        let _ = playground.snapshot();
    }
}
