//! CLIENT LIST's TYPE and ID filters and CLIENT INFO over several connections, as the console
//! prints them (raw, as redis-cli does). Their errors are in tests/transcripts/client-list-filters.txt,
//! checked against Redis 8.2.3.

use streamlab_protocol::{Clock, Console, Session, VIRTUAL_EPOCH_MS};

fn texts(console: &mut Console, line: &str) -> Vec<String> {
    console.run(line).into_iter().map(|o| o.text).collect()
}

/// The `id=` of each line of a CLIENT LIST reply.
fn ids(console: &mut Console, line: &str) -> Vec<String> {
    let text = texts(console, line).concat();
    text.lines().map(|l| l.split(' ').next().unwrap_or_default().to_owned()).collect()
}

#[test]
fn filters_pick_connections_by_kind_and_by_id_and_info_is_the_callers_line() {
    let mut c = Console::new(Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS)));
    let mut id = |name: &str| texts(&mut c, &format!("{name}> CLIENT ID")).concat().replace("(integer) ", "");
    let (alice, bob, carol) = (id("alice"), id("bob"), id("carol"));
    assert!(texts(&mut c, "bob> SUBSCRIBE news").concat().contains("subscribe"));
    assert_eq!(ids(&mut c, "alice> CLIENT LIST"), [format!("id={alice}"), format!("id={bob}"), format!("id={carol}")]);
    assert_eq!(ids(&mut c, "alice> CLIENT LIST TYPE pubsub"), [format!("id={bob}")]);
    assert_eq!(ids(&mut c, "alice> CLIENT LIST TYPE Normal"), [format!("id={alice}"), format!("id={carol}")]);
    assert_eq!(texts(&mut c, "alice> CLIENT LIST TYPE replica"), [""]);
    // Ids in the order named, each as often as named; one no connection has lists nothing.
    let named = format!("alice> CLIENT LIST ID {carol} 999 {alice} {carol}");
    assert_eq!(ids(&mut c, &named), [format!("id={carol}"), format!("id={alice}"), format!("id={carol}")]);
    // CLIENT INFO: the caller's own CLIENT LIST line, printed raw.
    let info = texts(&mut c, "carol> CLIENT INFO").concat();
    assert_eq!(info, texts(&mut c, &format!("carol> CLIENT LIST ID {carol}")).concat());
    assert!(
        info.starts_with(&format!("id={carol} addr=")) && info.contains(" flags=N ") && !info.contains('"'),
        "{info}"
    );
    let bobs = texts(&mut c, &format!("alice> CLIENT LIST ID {bob}")).concat();
    assert!(bobs.contains(" flags=P ") && bobs.contains(" sub=1 "), "{bobs}");
}
