//! The helpers behind INFO and CONFIG on their own, and the command table's summaries;
//! what the commands answer is in `tests/transcripts/admin-*.txt` and
//! `crates/protocol/tests/admin.rs`.

use super::*;
use crate::command::lookup;

#[test]
fn microseconds_and_mean_ttls_are_exact_at_the_extremes() {
    assert_eq!(micros(0), "0");
    assert_eq!(micros(1_795_993_823_728), "1795993823728000");
    assert_eq!(micros(-5), "-5000");
    assert_eq!(micros(i64::MAX), (i128::from(i64::MAX) * 1000).to_string());
    assert_eq!(mean(&[]), 0);
    assert_eq!(mean(&[100_000, 50_000]), 75_000);
    assert_eq!(mean(&[1, 2]), 1);
    assert_eq!(mean(&[i64::MAX, i64::MAX, i64::MAX - 1]), i64::MAX - 1);
    assert_eq!(mean(&[i64::MAX, i64::MAX]), i64::MAX);
}

#[test]
fn the_policy_error_lists_the_policies() {
    assert_eq!(POLICY_ERROR, format!("argument(s) must be one of the following: {}", POLICIES.join(", ")));
}

#[test]
fn summaries_match_redis() {
    // Summaries, since and groups as Redis 8.2.3's COMMAND DOCS gives them.
    let expected: &[(&str, &str, &str, &str)] = &[
        ("del", "Deletes one or more keys.", "1.0.0", "generic"),
        ("unlink", "Asynchronously deletes one or more keys.", "4.0.0", "generic"),
        ("exists", "Determines whether one or more keys exist.", "1.0.0", "generic"),
        ("type", "Determines the type of value stored at a key.", "1.0.0", "generic"),
        ("keys", "Returns all key names that match a pattern.", "1.0.0", "generic"),
        ("scan", "Iterates over the key names in the database.", "2.8.0", "generic"),
        ("flushall", "Removes all keys from all databases.", "1.0.0", "server"),
        ("flushdb", "Remove all keys from the current database.", "1.0.0", "server"),
        (
            "set",
            "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.",
            "1.0.0",
            "string",
        ),
        ("get", "Returns the string value of a key.", "1.0.0", "string"),
        ("expire", "Sets the expiration time of a key in seconds.", "1.0.0", "generic"),
        ("pexpire", "Sets the expiration time of a key in milliseconds.", "2.6.0", "generic"),
        ("ttl", "Returns the expiration time in seconds of a key.", "1.0.0", "generic"),
        ("pttl", "Returns the expiration time in milliseconds of a key.", "2.6.0", "generic"),
        ("persist", "Removes the expiration time of a key.", "2.2.0", "generic"),
        ("echo", "Returns the given string.", "1.0.0", "connection"),
        ("time", "Returns the server time.", "2.6.0", "server"),
        ("config", "A container for server configuration commands.", "2.0.0", "server"),
        ("command", "Returns detailed information about all commands.", "2.8.13", "server"),
        ("info", "Returns information and statistics about the server.", "1.0.0", "server"),
        ("dbsize", "Returns the number of keys in the database.", "1.0.0", "server"),
    ];
    for &(name, summary, since, group) in expected {
        let spec = lookup(name.as_bytes()).unwrap();
        assert_eq!((spec.summary, spec.since, spec.group), (summary, since, group), "{name}");
    }
    // Arities as COMMAND INFO reports them.
    for (name, arity) in [("config", -2), ("command", -1), ("info", -1), ("flushall", -1), ("scan", -2), ("set", -3)] {
        assert_eq!(lookup(name.as_bytes()).unwrap().arity, arity, "{name}");
    }
}
