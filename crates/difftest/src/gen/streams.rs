//! The stream commands' generators: XADD (with its trimming and IDMP options), XRANGE,
//! XDEL, XTRIM, XSETID, XDELEX and XACKDEL.

use super::*;

impl Gen {
    pub(super) fn xadd_simple(&mut self, stream: usize) -> Args {
        let key = STREAM_KEYS[stream];
        let id = fmt_id(self.new_id(key));
        let mut args = cmd!["XADD", key, id];
        self.fields(&mut args);
        args
    }

    pub(super) fn trim_options(&mut self, key: &str, opts: &mut Vec<Args>) {
        let minid = self.rng.chance(40);
        let mut group: Args = vec![if minid { b"MINID".to_vec() } else { b"MAXLEN".to_vec() }];
        match self.rng.weighted(&[45, 20, 35]) {
            0 => group.push(b"~".to_vec()),
            1 => group.push(b"=".to_vec()),
            _ => {}
        }
        let threshold = if minid {
            if self.rng.chance(85) {
                fmt_id(self.known_id(key))
            } else {
                self.quirky_id()
            }
        } else if self.rng.chance(90) {
            if self.rng.chance(90) {
                self.rng.range(0, 10).to_string()
            } else {
                self.rng.range(10, 200).to_string()
            }
        } else {
            self.rng.pick(&QUIRKY_INTEGERS).into()
        };
        group.push(threshold.into_bytes());
        if self.rng.chance(18) {
            group.push(b"LIMIT".to_vec());
            let limit = if self.rng.chance(85) { self.rng.range(0, 5).to_string() } else { self.small_int(100) };
            group.push(limit.into_bytes());
        }
        opts.push(group);
    }

    pub(super) fn xadd(&mut self) -> Args {
        let key = self.stream_key();
        let mut opts: Vec<Args> = Vec::new();
        if self.rng.chance(7) {
            opts.push(cmd!["NOMKSTREAM"]);
        }
        if self.rng.chance(22) {
            self.trim_options(key, &mut opts);
            if self.rng.chance(3) {
                self.trim_options(key, &mut opts);
            }
        }
        if self.rng.chance(10) {
            let policy = self.policy();
            opts.push(cmd![policy]);
            if self.rng.chance(5) {
                let policy = self.policy();
                opts.push(cmd![policy]);
            }
        }
        if self.rng.chance(2) {
            let junk = self.rng.pick(&["FOO", "LIMIT", "MAXLEN", "~"]);
            opts.push(cmd![junk]);
        }
        if self.rng.chance(2) {
            opts.push(cmd!["LIMIT", "2"]);
        }
        self.shuffle(&mut opts);
        let mut args = cmd!["XADD", key];
        args.extend(opts.into_iter().flatten());
        // `*` ids (wall-clock ids, normalised when compared) and the largest id only on s3, so
        // that explicit ids keep working on s1 and s2.
        let id = match self.rng.weighted(&[75, 2, 7, 6, 8, 2]) {
            1 if key == "s3" => "*".into(),
            2 => {
                let (ms, _) = self.new_id(key);
                format!("{ms}-*")
            }
            3 => fmt_id(self.known_id(key)),
            4 => self.quirky_top_id(key),
            5 if key == "s3" => "18446744073709551615-18446744073709551615".into(),
            5 => self.rng.pick(&["0-0", "0", "0-*"]).into(),
            _ => fmt_id(self.new_id(key)),
        };
        args.push(id.into_bytes());
        self.fields(&mut args);
        args
    }

    pub(super) fn xrange(&mut self) -> Args {
        let key = self.stream_key();
        let (start, end) = (self.bound(key), self.bound(key));
        let mut args =
            if self.rng.chance(35) { cmd!["XREVRANGE", key, end, start] } else { cmd!["XRANGE", key, start, end] };
        self.count_option(&mut args, 40, 5);
        if self.rng.chance(5) {
            self.count_option(&mut args, 100, 5);
        }
        if self.rng.chance(3) {
            let junk = self.rng.pick(&["COUNT", "FOO", "LIMIT"]);
            args.push(junk.as_bytes().to_vec());
        }
        args
    }

    pub(super) fn ids(&mut self, key: &str, args: &mut Args, max: u64) {
        for _ in 0..self.rng.weighted(&[0, 70, 20, 10]).min(max as usize) {
            let id = self.any_id(key);
            args.push(id.into_bytes());
        }
    }

    pub(super) fn xdel(&mut self) -> Args {
        let key = self.stream_key();
        let mut args = cmd!["XDEL", key];
        self.ids(key, &mut args, 3);
        args
    }

    pub(super) fn xtrim(&mut self) -> Args {
        let key = self.stream_key();
        let mut opts: Vec<Args> = Vec::new();
        if self.rng.chance(95) {
            self.trim_options(key, &mut opts);
        }
        if self.rng.chance(25) {
            let policy = self.policy();
            opts.push(cmd![policy]);
            if self.rng.chance(5) {
                let policy = self.policy();
                opts.push(cmd![policy]);
            }
        }
        if self.rng.chance(4) {
            let junk = self.rng.pick(&["NOMKSTREAM", "FOO", "2", "LIMIT"]);
            opts.push(cmd![junk]);
        }
        if self.rng.chance(3) {
            opts.push(cmd!["LIMIT", "0"]);
        }
        if self.rng.chance(30) {
            self.shuffle(&mut opts);
        }
        let mut args = cmd!["XTRIM", key];
        args.extend(opts.into_iter().flatten());
        args
    }

    pub(super) fn xsetid(&mut self) -> Args {
        let key = self.stream_key();
        let id = match self.rng.weighted(&[40, 25, 20, 15]) {
            0 => fmt_id(self.model(key).last),
            1 => fmt_id(self.new_id(key)),
            2 => fmt_id(self.known_id(key)),
            _ => self.quirky_top_id(key),
        };
        let mut args = cmd!["XSETID", key, id];
        if self.rng.chance(30) {
            let n = if self.rng.chance(85) { self.rng.range(0, 40).to_string() } else { self.small_int(10) };
            args.extend(cmd!["ENTRIESADDED", n]);
        }
        if self.rng.chance(30) {
            let id = if self.rng.chance(85) { fmt_id(self.known_id(key)) } else { self.quirky_id() };
            args.extend(cmd!["MAXDELETEDID", id]);
        }
        if self.rng.chance(3) {
            args.push(b"FOO".to_vec());
        }
        args
    }

    /// `IDS numids id...` plus an optional policy, for XDELEX and XACKDEL.
    pub(super) fn ids_block(&mut self, key: &str, args: &mut Args) {
        let mut ids = Vec::new();
        for _ in 0..self.rng.weighted(&[0, 55, 25, 15, 5]) {
            ids.push(self.any_id(key).into_bytes());
        }
        let numids = match self.rng.weighted(&[86, 4, 3, 3, 2, 2]) {
            0 => ids.len().to_string(),
            1 => (ids.len() + 1).to_string(),
            2 => ids.len().saturating_sub(1).to_string(),
            3 => "0".into(),
            4 => "-1".into(),
            _ => "x".into(),
        };
        let mut block = cmd!["IDS", numids];
        block.extend(ids);
        let mut parts: Vec<Args> = Vec::new();
        if self.rng.chance(98) {
            parts.push(block);
        }
        if self.rng.chance(55) {
            let policy = self.policy();
            parts.push(cmd![policy]);
        }
        if self.rng.chance(3) {
            let policy = self.policy();
            parts.push(cmd![policy]);
        }
        if self.rng.chance(3) {
            let id = self.any_id(key);
            parts.push(cmd!["IDS", "1", id]);
        }
        if self.rng.chance(2) {
            parts.push(cmd!["FOO"]);
        }
        if self.rng.chance(30) {
            self.shuffle(&mut parts);
        }
        args.extend(parts.into_iter().flatten());
    }

    pub(super) fn xdelex(&mut self) -> Args {
        let key = self.stream_key();
        let mut args = cmd!["XDELEX", key];
        self.ids_block(key, &mut args);
        args
    }

    pub(super) fn xackdel(&mut self) -> Args {
        let key = self.group_key();
        let group = self.group();
        let mut args = cmd!["XACKDEL", key, group];
        self.ids_block(key, &mut args);
        args
    }
}
