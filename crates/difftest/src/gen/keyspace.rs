//! The keyspace, configuration, transaction and connection commands the generator mixes in.

use super::*;

impl Gen {
    pub(super) fn keys(&mut self) -> Args {
        let key = self.stream_key();
        // Deleting s1 and s2 takes their groups with them: rarer than the rest.
        let victim = ["s3", "str", "nokey", key][self.rng.weighted(&[30, 30, 10, 30])];
        match self.rng.weighted(&[12, 6, 6, 4, 4, 18, 4, 3, 1, 1, 3, 3]) {
            0 => {
                let (key, other) = (victim, self.stream_key());
                if self.rng.chance(50) {
                    cmd!["DEL", key]
                } else {
                    cmd!["DEL", key, other]
                }
            }
            1 => {
                let other = self.stream_key();
                cmd!["EXISTS", key, other, key]
            }
            2 => cmd!["TYPE", key],
            3 => {
                let pattern = self.rng.pick(&["*", "s*", "s[12]", "?tr", "nomatch", "s\\1"]);
                cmd!["KEYS", pattern]
            }
            4 => {
                let mut args = cmd!["SCAN", "0"];
                if self.rng.chance(40) {
                    let pattern = self.rng.pick(&["*", "s*", "?tr"]);
                    args.extend(cmd!["MATCH", pattern]);
                }
                if self.rng.chance(40) {
                    args.extend(cmd!["COUNT", "1000"]);
                }
                if self.rng.chance(30) {
                    let kind = self.rng.pick(&["stream", "string", "list"]);
                    args.extend(cmd!["TYPE", kind]);
                }
                args
            }
            5 => {
                // Mostly the string key; sometimes over a stream (it becomes a string), mostly
                // s3 so that s1 and s2 stay streams most of the time.
                let target = ["str", "s3", key][self.rng.weighted(&[90, 8, 2])];
                let value = self.value();
                let mut args = cmd!["SET", target, value];
                if self.rng.chance(15) {
                    let opt = self.rng.pick(&["NX", "XX", "GET"]);
                    args.push(opt.as_bytes().to_vec());
                }
                args
            }
            6 => cmd!["GET", key],
            7 => cmd!["UNLINK", victim],
            8 => {
                if self.rng.chance(80) {
                    cmd!["FLUSHDB"]
                } else {
                    let mode = self.rng.pick(&["SYNC", "ASYNC", "FOO"]);
                    cmd!["FLUSHALL", mode]
                }
            }
            9 => cmd!["FLUSHALL"],
            10 => cmd!["EXPIRE", key, "100000"],
            _ => cmd!["PERSIST", key],
        }
    }

    pub(super) fn config(&mut self) -> Args {
        match self.rng.weighted(&[35, 35, 15, 10, 5]) {
            0 => {
                let n = self.rng.pick(&["0", "1", "2", "3", "5", "100", "-1", "x"]);
                cmd!["CONFIG", "SET", "stream-node-max-entries", n]
            }
            1 => {
                // Small byte limits are set by the prelude only. Redis 8.2.3 corrupts memory (a
                // later XINFO STREAM FULL or XADD dies with SIGSEGV) when the limit is lowered
                // while a node opened under a limit of a few hundred bytes is still open and an
                // entry that fits the old limit but not the new one comes:
                // `CONFIG SET stream-node-max-bytes 1024`, `XADD s 1-0 f v`,
                // `CONFIG SET stream-node-max-bytes 200`, `XADD s 2-0 f <900 bytes>`,
                // `XINFO STREAM s FULL`. Moving to no limit (0) or to 4096 and more never did.
                let n = self.rng.pick(&["0", "4096", "4kb", "8192", "-1", "x", "1gb"]);
                cmd!["CONFIG", "SET", "stream-node-max-bytes", n]
            }
            2 => cmd!["CONFIG", "SET", "stream-node-max-entries", "100", "stream-node-max-bytes", "4096"],
            3 => {
                let param = self.rng.pick(&["stream-node-max-entries", "stream-node-max-bytes", "stream-node-*"]);
                cmd!["CONFIG", "GET", param]
            }
            _ => cmd!["CONFIG", "SET", "stream-node-max-entries"],
        }
    }

    pub(super) fn transaction_control(&mut self) -> Args {
        match self.rng.weighted(&[40, 20, 15, 15, 10]) {
            0 => {
                let key = self.stream_key();
                cmd!["WATCH", key]
            }
            1 => cmd!["UNWATCH"],
            2 => cmd!["EXEC"],
            3 => cmd!["DISCARD"],
            _ => cmd!["MULTI"],
        }
    }

    pub(super) fn misc(&mut self) -> Args {
        match self.rng.weighted(&[20, 20, 20, 10, 10, 10]) {
            0 => cmd!["PING"],
            1 => cmd!["ECHO", "hello"],
            2 => cmd!["DBSIZE"],
            3 => {
                // StreamLab has database 0 only; an index Redis refuses too.
                let db = self.rng.pick(&["0", "99", "x"]);
                cmd!["SELECT", db]
            }
            4 => cmd!["XFOO", "s1"],
            _ => cmd!["xadd"],
        }
    }
}
