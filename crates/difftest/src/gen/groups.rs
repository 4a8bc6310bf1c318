//! The consumer-group commands the generator writes: XREADGROUP, XACK, XPENDING, XCLAIM,
//! XAUTOCLAIM, XGROUP and XINFO, with the arguments that probe their validation.

use super::*;

impl Gen {
    pub(super) fn xreadgroup(&mut self, conn: usize) -> Args {
        let n = [1, 2, 3][self.rng.weighted(&[75, 22, 3])];
        let keys: Vec<&'static str> = (0..n).map(|_| self.group_key()).collect();
        let (group, consumer) = (self.group(), self.consumer());
        let mut opts: Vec<Args> = Vec::new();
        match self.rng.weighted(&[97, 1, 1, 1]) {
            0 => opts.push(cmd!["GROUP", group, consumer]),
            1 => {}
            2 => opts.push(cmd!["GROUP", group]),
            _ => opts.push(cmd!["GROUP", group, consumer, "GROUP", "g2", "bob"]),
        }
        if self.rng.chance(50) {
            let n = if self.rng.chance(90) { self.rng.range(1, 5).to_string() } else { self.small_int(3) };
            opts.push(cmd!["COUNT", n]);
        }
        let blocking = self.block_option(&mut opts, 10);
        if self.rng.chance(10) {
            opts.push(cmd!["NOACK"]);
        }
        if self.rng.chance(40) {
            self.shuffle(&mut opts);
        }
        let mut args = cmd!["XREADGROUP"];
        args.extend(opts.into_iter().flatten());
        args.push(b"STREAMS".to_vec());
        for key in &keys {
            args.push(key.as_bytes().to_vec());
        }
        for key in &keys {
            let id = match self.rng.weighted(&[60, 15, 12, 3, 3, 4, 3]) {
                0 => ">".into(),
                1 => "0".into(),
                2 => fmt_id(self.known_id(key)),
                3 => "$".into(),
                4 => "+".into(),
                5 => self.quirky_id(),
                _ => self.known_id(key).0.to_string(),
            };
            args.push(id.into_bytes());
        }
        if self.rng.chance(2) {
            args.pop();
        }
        if blocking {
            self.schedule_wake(conn, &keys);
        }
        args
    }

    pub(super) fn xack(&mut self) -> Args {
        let key = self.group_key();
        let group = self.group();
        let mut args = cmd!["XACK", key, group];
        for _ in 0..self.rng.range(1, 4) {
            let id = self.any_id(key);
            args.push(id.into_bytes());
        }
        args
    }

    pub(super) fn xpending(&mut self) -> Args {
        let key = self.group_key();
        let group = self.group();
        let mut args = cmd!["XPENDING", key, group];
        if self.rng.chance(35) {
            return args;
        }
        if self.rng.chance(25) {
            let idle = self.rng.pick(&["0", "-1", "3600000", "x"]);
            args.extend(cmd!["IDLE", idle]);
        }
        let (start, end) = (self.bound(key), self.bound(key));
        let count = if self.rng.chance(90) { self.rng.range(0, 10).to_string() } else { self.small_int(5) };
        args.extend(cmd![start, end, count]);
        if self.rng.chance(40) {
            let consumer = self.consumer();
            args.push(consumer.as_bytes().to_vec());
        }
        if self.rng.chance(3) {
            args.push(b"extra".to_vec());
        }
        args
    }

    pub(super) fn xclaim(&mut self) -> Args {
        let key = self.group_key();
        let (group, consumer, min_idle) = (self.group(), self.consumer(), self.min_idle());
        let mut args = cmd!["XCLAIM", key, group, consumer, min_idle];
        for _ in 0..self.rng.weighted(&[3, 60, 25, 12]) {
            let id = if self.rng.chance(90) { fmt_id(self.known_id(key)) } else { self.quirky_id() };
            args.push(id.into_bytes());
        }
        let mut opts: Vec<Args> = Vec::new();
        if self.rng.chance(15) {
            let idle = self.rng.pick(&["0", "7200000", "100000000", "-5", "x"]);
            opts.push(cmd!["IDLE", idle]);
        }
        if self.rng.chance(10) {
            let time = self.rng.pick(&["0", "1000", "99999999999999", "-1", "x"]);
            opts.push(cmd!["TIME", time]);
        }
        if self.rng.chance(15) {
            let n = self.small_int(5);
            opts.push(cmd!["RETRYCOUNT", n]);
        }
        if self.rng.chance(20) {
            opts.push(cmd!["FORCE"]);
        }
        if self.rng.chance(20) {
            opts.push(cmd!["JUSTID"]);
        }
        if self.rng.chance(10) {
            let id = self.any_id(key);
            opts.push(cmd!["LASTID", id]);
        }
        if self.rng.chance(3) {
            let junk = self.rng.pick(&["FOO", "IDLE", "LASTID", "TIME"]);
            opts.push(cmd![junk]);
        }
        self.shuffle(&mut opts);
        args.extend(opts.into_iter().flatten());
        args
    }

    pub(super) fn xautoclaim(&mut self) -> Args {
        let key = self.group_key();
        let (group, consumer, min_idle) = (self.group(), self.consumer(), self.min_idle());
        let start = if self.rng.chance(30) { "0-0".to_owned() } else { self.bound(key) };
        let mut args = cmd!["XAUTOCLAIM", key, group, consumer, min_idle, start];
        if self.rng.chance(50) {
            let n = match self.rng.weighted(&[85, 15]) {
                0 => self.rng.range(1, 5).to_string(),
                _ => self.rng.pick(&["0", "-1", "x", "576460752303423487", "576460752303423488"]).into(),
            };
            args.extend(cmd!["COUNT", n]);
        }
        if self.rng.chance(25) {
            args.push(b"JUSTID".to_vec());
        }
        if self.rng.chance(3) {
            let junk = self.rng.pick(&["FOO", "COUNT"]);
            args.push(junk.as_bytes().to_vec());
        }
        args
    }

    pub(super) fn entries_read(&mut self) -> String {
        if self.rng.chance(85) {
            self.rng.range(0, 20).to_string()
        } else {
            self.rng.pick(&["-1", "-2", "x", "1000"]).into()
        }
    }

    pub(super) fn xgroup(&mut self) -> Args {
        let key = self.stream_key();
        let group = self.group();
        match self.rng.weighted(&[40, 25, 6, 12, 10, 2, 2]) {
            0 => {
                let id = match self.rng.weighted(&[30, 30, 25, 10, 5]) {
                    0 => "$".into(),
                    1 => "0".into(),
                    2 => fmt_id(self.known_id(key)),
                    3 => self.quirky_id(),
                    _ => self.rng.pick(&["-", "+"]).into(),
                };
                let mut args = cmd!["XGROUP", "CREATE", key, group, id];
                let mut opts: Vec<Args> = Vec::new();
                if self.rng.chance(35) {
                    opts.push(cmd!["MKSTREAM"]);
                }
                if self.rng.chance(20) {
                    let n = self.entries_read();
                    opts.push(cmd!["ENTRIESREAD", n]);
                }
                if self.rng.chance(3) {
                    opts.push(cmd!["MKSTREAM"]);
                }
                if self.rng.chance(3) {
                    opts.push(cmd!["FOO"]);
                }
                self.shuffle(&mut opts);
                args.extend(opts.into_iter().flatten());
                args
            }
            1 => {
                let id = match self.rng.weighted(&[25, 25, 30, 10, 10]) {
                    0 => "$".into(),
                    1 => "0".into(),
                    2 => fmt_id(self.known_id(key)),
                    3 => self.quirky_id(),
                    _ => self.rng.pick(&["-", "+"]).into(),
                };
                let mut args = cmd!["XGROUP", "SETID", key, group, id];
                if self.rng.chance(40) {
                    let n = self.entries_read();
                    args.extend(cmd!["ENTRIESREAD", n]);
                }
                if self.rng.chance(3) {
                    args.push(b"FOO".to_vec());
                }
                args
            }
            2 => cmd!["XGROUP", "DESTROY", key, group],
            3 => {
                let consumer = self.consumer();
                cmd!["XGROUP", "CREATECONSUMER", key, group, consumer]
            }
            4 => {
                let consumer = self.consumer();
                cmd!["XGROUP", "DELCONSUMER", key, group, consumer]
            }
            5 => cmd!["XGROUP", "HELP"],
            _ => cmd!["XGROUP", "FOO", key],
        }
    }

    pub(super) fn xinfo(&mut self) -> Args {
        let key = self.stream_key();
        match self.rng.weighted(&[30, 25, 20, 20, 2, 2, 1]) {
            0 => cmd!["XINFO", "STREAM", key],
            1 => {
                let mut args = cmd!["XINFO", "STREAM", key, "FULL"];
                if self.rng.chance(40) {
                    let n = self.small_int(5);
                    args.extend(cmd!["COUNT", n]);
                }
                args
            }
            2 => cmd!["XINFO", "GROUPS", key],
            3 => {
                let group = self.group();
                cmd!["XINFO", "CONSUMERS", key, group]
            }
            4 => cmd!["XINFO", "HELP"],
            5 => cmd!["XINFO", "FOO"],
            _ => cmd!["XINFO", "STREAM", key, "COUNT", "1"],
        }
    }
}
