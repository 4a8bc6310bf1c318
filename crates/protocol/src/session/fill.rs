//! StreamLab's `:fill`: generated order events appended to a stream in one step.

use super::*;

impl Session {
    /// StreamLab's `:fill KEY COUNT` (not a Redis command): appends `count` generated order
    /// events to the stream at `key` (created if missing) as `XADD key * type order-created
    /// orderId N isbn 978-... quantity Q` would, all at the clock reading `now`, so ids run
    /// `<now>-0`, `<now>-1`, ... Lessons use it to build streams too long to type (the seed
    /// article's million orders). Returns the first and last ids added (a key of another type
    /// is a WRONGTYPE error; a stream that runs out of ids stops early), and the replies that
    /// reach blocked readers. The reply is what the console prints: `filled N entries: FIRST ..
    /// LAST` (an export replays it from those ids), or the error.
    pub fn fill(&mut self, key: &[u8], count: u64, now: i64) -> (Reply, Vec<Delivery>) {
        let mut deliveries = Vec::new();
        let reply = match self.fill_entries(key, count, now, &mut deliveries) {
            Ok(Some((first, last))) => Reply::Status(format!("filled {count} entries: {first} .. {last}")),
            Ok(None) => Reply::Status("filled 0 entries".to_owned()),
            Err(error) => Reply::Error(error.to_string()),
        };
        self.shape_deliveries(&mut deliveries);
        (reply, deliveries)
    }

    fn fill_entries(
        &mut self,
        key: &[u8],
        count: u64,
        now: i64,
        deliveries: &mut Vec<Delivery>,
    ) -> Result<Option<(StreamId, StreamId)>, CmdError> {
        self.state.now = self.state.now.max(now);
        let now = self.state.now;
        self.state.db.expire_due(now);
        if count == 0 {
            return Ok(None);
        }
        let config = self.state.db.config;
        // Check the first id before creating the key, so a failure leaves nothing behind.
        if let Some(stream) = self.state.db.stream(key)? {
            stream.next_id(AddId::Auto, now).map_err(|_| Msg::StreamExhausted)?;
        }
        let stream = self.state.db.stream_or_create(key)?;
        let base = stream.entries_added();
        let mut first = None;
        let mut last = StreamId::MIN;
        for i in 0..count {
            let n = base + i + 1;
            let fields = [
                b"type".to_vec(),
                b"order-created".to_vec(),
                b"orderId".to_vec(),
                n.to_string().into_bytes(),
                b"isbn".to_vec(),
                format!("978-{:09}", (n * 7919) % 1_000_000_000).into_bytes(),
                b"quantity".to_vec(),
                (1 + n % 3).to_string().into_bytes(),
            ];
            match stream.add(AddId::Auto, &fields, now, config) {
                Ok(id) => {
                    first.get_or_insert(id);
                    last = id;
                }
                Err(_) => break,
            }
        }
        self.state.db.touch(key);
        self.state.db.signal_ready(key);
        self.after_command(deliveries);
        Ok(first.map(|first| (first, last)))
    }
}
