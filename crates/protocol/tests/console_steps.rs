//! What a console line becomes on the timeline: `name> COMMAND`, connections opening within
//! their first command's step, steps set aside and brought back, QUIT, and lines typed on a
//! connection that waits.

use streamlab_protocol::{Clock, Console, OutputKind, Session, VIRTUAL_EPOCH_MS};

fn console(interactive: bool) -> Console {
    let console = Console::new(Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS)));
    if interactive {
        console.interactive()
    } else {
        console
    }
}

fn texts(console: &mut Console, line: &str) -> Vec<String> {
    console.run(line).into_iter().map(|o| o.text).collect()
}

#[test]
fn a_prompt_in_front_of_a_command_runs_it_on_that_connection_as_one_step() {
    let mut c = console(false);
    assert_eq!(texts(&mut c, "worker-c> CLIENT SETNAME w"), ["OK"]);
    assert_eq!(c.current(), "worker-c");
    assert_eq!(c.timeline().records().len(), 1, "opening worker-c is part of its command's step");
    assert_eq!(texts(&mut c, "CLIENT GETNAME"), ["\"w\""]);
    // Redis has no command whose name ends in `>`: such a line that is not a prompt stays an
    // unknown command, as redis-cli sends it.
    assert_eq!(texts(&mut c, "XLEN> s"), ["(error) ERR unknown command 'XLEN>', with args beginning with: 's' "]);
    assert_eq!(texts(&mut c, "bob>"), ["(error) ERR unknown command 'bob>', with args beginning with: "]);
    assert_eq!(texts(&mut c, "bob> :clock +1s"), ["(error) a `name> ` prompt must be followed by a command"]);
    assert_eq!(c.current(), "worker-c");
    // A `>` argument is an argument.
    assert!(texts(&mut c, "XREADGROUP GROUP g c STREAMS s >")[0].contains("NOGROUP"));
}

#[test]
fn one_undo_takes_back_a_command_with_the_connection_it_opened() {
    let mut c = console(false);
    c.run("XADD s 1-0 f v");
    c.run(":as b3");
    assert_eq!(c.timeline().records().len(), 1, ":as alone records nothing");
    c.run("XGROUP CREATE s g 0");
    let b3 = c.current_conn();
    assert!(c.session().conn(b3).is_some());
    assert!(c.undo());
    assert!(
        c.session().conn(b3).is_none() && c.session().keyspace().stream(b"s").unwrap().unwrap().groups().is_empty()
    );
    assert_eq!(c.connections().iter().map(|&(n, _)| n).collect::<Vec<_>>(), ["default", "b3"], "the tab stays");
    // Typed again, the name opens its connection again (the same id: nothing opened since).
    assert_eq!(texts(&mut c, "CLIENT ID"), [format!("(integer) {b3}")]);
    // Names given in another order get ids in the order their connections open.
    c.run(":as x");
    c.run(":as y");
    assert_eq!(texts(&mut c, "CLIENT ID"), [format!("(integer) {}", b3 + 2)]);
    c.run(":as x");
    assert_eq!(texts(&mut c, "CLIENT ID"), [format!("(integer) {}", b3 + 3)]);
}

#[test]
fn typing_at_an_earlier_step_sets_the_later_ones_aside_until_brought_back() {
    let mut c = console(true);
    for i in 1..=5 {
        c.run(&format!("XADD s {i}-0 f v"));
    }
    for _ in 0..3 {
        c.undo();
    }
    let out = c.run("XLEN s");
    assert_eq!(out[0].text, "(integer) 2");
    assert_eq!(
        (out[1].kind, out[1].text.as_str()),
        (OutputKind::Info, "(what was undone after step 2 is set aside, not lost: :branch 1 brings it back)")
    );
    assert_eq!(
        texts(&mut c, ":branch"),
        ["(back to step 5; what followed step 2 is set aside: :branch brings it back)"]
    );
    assert_eq!(texts(&mut c, "XLEN s")[0], "(integer) 5");
    assert_eq!(c.timeline().branches()[0].records().len(), 1);
    for bad in [":branch 7", ":branch 0", ":branch x"] {
        assert_eq!(texts(&mut c, bad), ["(error) no such steps set aside (:branch N counts from 1, oldest first)"]);
    }
    // Non-interactive consoles (command files, the grader) set steps aside without a word.
    let mut quiet = console(false);
    quiet.run("XADD s 1-0 f v");
    quiet.undo();
    assert_eq!(texts(&mut quiet, "XLEN s"), ["(integer) 0"]);
    assert_eq!(quiet.timeline().branches().len(), 1);
    assert_eq!(
        texts(&mut quiet, ":branch 1"),
        ["(back to step 1; what followed step 0 is set aside: :branch brings it back)"]
    );
    assert_eq!(texts(&mut quiet, "XLEN s"), ["(integer) 1"]);
}

#[test]
fn quit_closes_the_connection_and_an_interactive_console_moves_on() {
    let mut c = console(true);
    c.run("PING");
    c.run(":as bob");
    c.run("PING");
    let out = c.run("QUIT");
    assert_eq!(out[0].text, "OK");
    assert_eq!(out[1].text, "(bob's connection is closed; typing on default now)");
    assert_eq!((c.current(), c.connections().len()), ("default", 1));
    // Undoing the QUIT brings the connection and its tab back.
    c.undo();
    assert_eq!(c.connections().len(), 2);
    c.redo();
    assert_eq!(c.connections().len(), 1);
    // The last connection's QUIT keeps its name: the next command opens a new connection.
    let out = c.run("QUIT");
    assert_eq!(out[1].text, "(connection closed; the next command opens a new one)");
    assert_eq!(texts(&mut c, "CLIENT ID"), ["(integer) 3"]);
    // `:as bob` brings a closed name back.
    c.run(":as bob");
    assert_eq!(texts(&mut c, "CLIENT ID"), ["(integer) 4"]);
    // A command file stays on its connection, which reconnects.
    let mut file = console(false);
    file.run("QUIT");
    assert_eq!(texts(&mut file, "CLIENT ID"), ["(integer) 2"]);
    assert_eq!(file.current(), "default");
}

#[test]
fn a_waiting_connection_refuses_lines_interactively_and_queues_them_from_a_file() {
    let mut c = console(true);
    assert!(c.run("XREAD BLOCK 0 STREAMS s $").is_empty());
    let steps = c.timeline().records().len();
    let out = c.run("XLEN s");
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].kind, OutputKind::Error);
    assert!(
        out[0].text.starts_with("(refused) default is waiting for XREAD BLOCK 0 STREAMS s 0-0;"),
        "{}",
        out[0].text
    );
    assert_eq!(c.timeline().records().len(), steps, "a refused line is no step");
    // A read with a timeout says how far the clock must move to end it.
    c.run("timed> XREAD BLOCK 1500 STREAMS s $");
    c.run(":clock +500");
    let out = c.run("XLEN s");
    assert!(
        out[0].text.starts_with(
            "(refused) timed is waiting for XREAD BLOCK 1500 STREAMS s 0-0 (it times out at :clock +1000);"
        ),
        "{}",
        out[0].text
    );
    c.run(":as default");
    // Meta-commands still work there.
    c.run(":as writer");
    let out = c.run("XADD s 1-0 f v");
    assert_eq!(out[1].to.as_deref(), Some("default"));
    let mut file = console(false);
    file.run("XREAD BLOCK 0 STREAMS s $");
    assert!(file.run("XLEN s").is_empty(), "queued behind the read, as redis-cli's pipe waits");
}

#[test]
fn a_script_names_connections_so_a_fresh_console_rebuilds_the_same_session() {
    // bob's connection opens before default's: ids alone would put bob's read on default.
    let mut c = console(false);
    for line in [":as bob", "XREAD BLOCK 0 STREAMS q $", ":as default", "XADD q 5-0 f v"] {
        c.run(line);
    }
    let script = c.script();
    assert_eq!(script, ":as bob\nXREAD BLOCK 0 STREAMS q $\n:as default\nXADD q 5-0 f v\n");
    let mut again = console(false);
    for line in script.lines() {
        again.run(line);
    }
    assert_eq!(again.script(), script);
    assert_eq!(again.connections(), c.connections());
}
