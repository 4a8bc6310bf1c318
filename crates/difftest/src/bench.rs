//! The consumer-group cycle load for `tests/bench/compare.sh`: fill a stream, then let
//! several consumers of one group read and acknowledge until the group is drained.
//!
//! redis-benchmark cannot drive this (its custom commands cannot use the ids a previous reply
//! returned), so it is done here with the harness's RESP client.

use std::time::Instant;

use streamlab_protocol::{encode_request, Reply};

use crate::target::Conn;

/// What a group cycle measured.
#[derive(Debug, Clone)]
pub struct CycleStats {
    /// Entries added before the cycle.
    pub messages: usize,
    /// XADD throughput while filling (pipelined), entries per second.
    pub fill_per_sec: f64,
    /// Entries read and acknowledged per second by all consumers together.
    pub cycle_per_sec: f64,
}

const KEY: &str = "difftest:bench:cycle";

fn expect_ok(reply: Reply, what: &str) -> Result<(), String> {
    match reply {
        Reply::Status(_) | Reply::Integer(_) => Ok(()),
        other => Err(format!("{what}: {other:?}")),
    }
}

/// Ids of the entries in an XREADGROUP reply (one stream), or none when it is nil.
fn read_ids(reply: &Reply) -> Result<Vec<Vec<u8>>, String> {
    match reply {
        Reply::NullArray | Reply::NullBulk => Ok(Vec::new()),
        Reply::Array(streams) => {
            let mut ids = Vec::new();
            for stream in streams {
                let Reply::Array(parts) = stream else { return Err(format!("odd XREADGROUP reply {reply:?}")) };
                let Some(Reply::Array(entries)) = parts.get(1) else {
                    return Err(format!("odd XREADGROUP reply {reply:?}"));
                };
                for entry in entries {
                    match entry {
                        Reply::Array(e) => match e.first() {
                            Some(Reply::Bulk(id)) => ids.push(id.clone()),
                            _ => return Err(format!("odd entry {entry:?}")),
                        },
                        _ => return Err(format!("odd entry {entry:?}")),
                    }
                }
            }
            Ok(ids)
        }
        other => Err(format!("XREADGROUP answered {other:?}")),
    }
}

/// Runs the cycle against `addr` with `clients` consumers reading `count` entries at a time.
pub fn group_cycle(addr: &str, messages: usize, clients: usize, count: usize) -> Result<CycleStats, String> {
    let mut control = Conn::open(addr)?;
    expect_ok(control.call(&["DEL", KEY])?, "DEL")?;
    expect_ok(control.call(&["XGROUP", "CREATE", KEY, "workers", "$", "MKSTREAM"])?, "XGROUP CREATE")?;

    // Fill, pipelined in batches of 1000.
    let started = Instant::now();
    let mut left = messages;
    while left > 0 {
        let batch = left.min(1000);
        let mut bytes = Vec::new();
        for _ in 0..batch {
            bytes.extend_from_slice(&encode_request(&["XADD", KEY, "*", "job", "payload-0123456789"]));
        }
        control.send_raw(&bytes)?;
        for _ in 0..batch {
            if let reply @ Reply::Error(_) = control.reply()? {
                return Err(format!("XADD: {reply:?}"));
            }
        }
        left -= batch;
    }
    let fill_per_sec = messages as f64 / started.elapsed().as_secs_f64();

    let started = Instant::now();
    let handles: Vec<_> = (0..clients)
        .map(|i| {
            let addr = addr.to_owned();
            std::thread::spawn(move || -> Result<usize, String> {
                let mut conn = Conn::open(&addr)?;
                let consumer = format!("consumer-{i}");
                let count = count.to_string();
                let mut done = 0;
                loop {
                    let reply = conn.call(&[
                        "XREADGROUP",
                        "GROUP",
                        "workers",
                        &consumer,
                        "COUNT",
                        &count,
                        "STREAMS",
                        KEY,
                        ">",
                    ])?;
                    let ids = read_ids(&reply)?;
                    if ids.is_empty() {
                        return Ok(done);
                    }
                    let mut ack: Vec<Vec<u8>> = vec![b"XACK".to_vec(), KEY.into(), b"workers".to_vec()];
                    ack.extend(ids.iter().cloned());
                    match conn.call(&ack)? {
                        Reply::Integer(n) if n as usize == ids.len() => done += ids.len(),
                        other => return Err(format!("XACK answered {other:?}")),
                    }
                }
            })
        })
        .collect();
    let mut done = 0;
    for handle in handles {
        done += handle.join().map_err(|_| "a consumer thread panicked".to_owned())??;
    }
    let elapsed = started.elapsed().as_secs_f64();
    if done != messages {
        return Err(format!("the consumers acknowledged {done} entries, expected {messages}"));
    }
    expect_ok(control.call(&["DEL", KEY])?, "DEL")?;
    Ok(CycleStats { messages, fill_per_sec, cycle_per_sec: done as f64 / elapsed })
}
