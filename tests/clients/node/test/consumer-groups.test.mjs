// Seed 001's story told again against StreamLab with ioredis: workers share a stream through
// a consumer group, one of them crashes holding work, another recovers it after an idle
// threshold, and acknowledging before working loses a job for good.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../server.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let server;

before(async () => { server = await startServer(); });
after(async () => {
  const stderr = await server.stop();
  assert.equal(stderr, '', 'every harness option is understood');
});

// The entries of a one-stream XREADGROUP reply, or [] when BLOCK timed out (null).
const entriesOf = (reply) => (reply ? reply[0][1] : []);

test('workers split new entries; a history read returns only your own', async () => {
  const admin = server.client();
  await admin.xgroup('CREATE', 'jobs', 'workers', '$', 'MKSTREAM');
  for (const [id, type, to] of [['1-0', 'email', 'ada'], ['2-0', 'sms', 'bob'], ['3-0', 'email', 'cy'], ['4-0', 'push', 'dee'], ['5-0', 'email', 'eve']]) {
    assert.equal(await admin.xadd('jobs', id, 'type', type, 'to', to), id);
  }
  await admin.xgroup('CREATE', 'jobs', 'audit', '0');
  const alice = server.client();
  const bob = server.client();
  const a1 = entriesOf(await alice.xreadgroup('GROUP', 'workers', 'alice', 'COUNT', 2, 'STREAMS', 'jobs', '>'));
  const b1 = entriesOf(await bob.xreadgroup('GROUP', 'workers', 'bob', 'COUNT', 2, 'STREAMS', 'jobs', '>'));
  const a2 = entriesOf(await alice.xreadgroup('GROUP', 'workers', 'alice', 'COUNT', 10, 'STREAMS', 'jobs', '>'));
  assert.deepEqual(a1.map((e) => e[0]), ['1-0', '2-0']);
  assert.deepEqual(b1.map((e) => e[0]), ['3-0', '4-0']);
  assert.deepEqual(a2, [['5-0', ['type', 'email', 'to', 'eve']]]);
  assert.equal(await alice.xreadgroup('GROUP', 'workers', 'alice', 'COUNT', 10, 'STREAMS', 'jobs', '>'), null);
  const history = entriesOf(await alice.xreadgroup('GROUP', 'workers', 'alice', 'STREAMS', 'jobs', '0'));
  assert.deepEqual(history.map((e) => e[0]), ['1-0', '2-0', '5-0']);
  // Another group has its own position.
  const audit = entriesOf(await admin.xreadgroup('GROUP', 'audit', 'reader', 'COUNT', 1, 'STREAMS', 'jobs', '>'));
  assert.deepEqual(audit.map((e) => e[0]), ['1-0']);
  assert.deepEqual(await admin.xpending('jobs', 'workers'), [5, '1-0', '5-0', [['alice', '3'], ['bob', '2']]]);
  assert.equal(await admin.xack('jobs', 'workers', '1-0', '2-0'), 2);
  assert.equal(await admin.xack('jobs', 'workers', '1-0'), 0);
  const detail = await admin.xpending('jobs', 'workers', '-', '+', 10);
  assert.deepEqual(detail.map(([id, owner, , count]) => [id, owner, count]), [['3-0', 'bob', 1], ['4-0', 'bob', 1], ['5-0', 'alice', 2]]);
  const groups = await admin.xinfo('GROUPS', 'jobs');
  const byName = Object.fromEntries(groups.map((g) => { const o = {}; for (let i = 0; i < g.length; i += 2) o[g[i]] = g[i + 1]; return [o.name, o]; }));
  assert.equal(byName.audit.lag, 4);
  assert.equal(byName.workers.lag, 0);
  assert.equal(byName.workers.pending, 3);
  // NOACK reads leave nothing pending.
  await admin.xreadgroup('GROUP', 'audit', 'reader', 'COUNT', 1, 'NOACK', 'STREAMS', 'jobs', '>');
  assert.deepEqual(await admin.xpending('jobs', 'audit'), [1, '1-0', '1-0', [['reader', '1']]]);
});

test('a crashed worker\'s jobs are recovered with XAUTOCLAIM after the idle threshold', async () => {
  const stream = 'orders';
  const group = 'fulfil';
  const admin = server.client();
  await admin.xgroup('CREATE', stream, group, '0', 'MKSTREAM');
  for (let i = 1; i <= 5; i++) await admin.xadd(stream, '*', 'order', `o-${i}`);

  // worker-a takes two jobs and dies without acknowledging anything.
  const workerA = server.client();
  const lost = entriesOf(await workerA.xreadgroup('GROUP', group, 'worker-a', 'COUNT', 2, 'BLOCK', 200, 'STREAMS', stream, '>'));
  assert.equal(lost.length, 2);
  workerA.disconnect();
  assert.equal((await admin.xpending(stream, group))[0], 2);

  // worker-b processes first, then acknowledges, until a blocking read times out.
  const workerB = server.client();
  const done = [];
  for (;;) {
    const batch = entriesOf(await workerB.xreadgroup('GROUP', group, 'worker-b', 'COUNT', 10, 'BLOCK', 200, 'STREAMS', stream, '>'));
    if (batch.length === 0) break;
    for (const [id, fields] of batch) { done.push(fields[1]); assert.equal(await workerB.xack(stream, group, id), 1); }
  }
  assert.deepEqual(done, ['o-3', 'o-4', 'o-5']);
  assert.equal((await admin.xpending(stream, group))[0], 2);

  // Too fresh to steal, then idle long enough.
  const [cursor0, early] = await workerB.xautoclaim(stream, group, 'worker-b', 60000, '0-0', 'COUNT', 10);
  assert.equal(cursor0, '0-0');
  assert.deepEqual(early, []);
  await sleep(400);
  const [cursor, claimed, deleted] = await workerB.xautoclaim(stream, group, 'worker-b', 300, '0-0', 'COUNT', 10);
  assert.equal(cursor, '0-0');
  assert.deepEqual(deleted, []);
  assert.deepEqual(claimed.map((e) => e[1][1]), ['o-1', 'o-2']);
  const owners = await admin.xpending(stream, group, '-', '+', 10);
  assert.deepEqual(owners.map(([, owner, , count]) => [owner, count]), [['worker-b', 2], ['worker-b', 2]]);
  for (const [id] of claimed) await workerB.xack(stream, group, id);
  assert.deepEqual(await admin.xpending(stream, group), [0, null, null, null]);
});

test('acknowledging before the work leaves nothing to recover', async () => {
  const stream = 'orders-ackfirst';
  const admin = server.client();
  await admin.xgroup('CREATE', stream, 'fulfil', '0', 'MKSTREAM');
  await admin.xadd(stream, '*', 'order', 'o-99');
  const workerC = server.client();
  const [[id]] = entriesOf(await workerC.xreadgroup('GROUP', 'fulfil', 'worker-c', 'STREAMS', stream, '>'));
  assert.equal(await workerC.xack(stream, 'fulfil', id), 1);
  workerC.disconnect(); // crashes before doing the work
  await sleep(400);
  const [, gone] = await admin.xautoclaim(stream, 'fulfil', 'worker-d', 300, '0-0');
  assert.deepEqual(gone, []);
  assert.equal((await admin.xpending(stream, 'fulfil'))[0], 0);
  // The entry is still in the stream: only the receipt is gone.
  assert.equal(await admin.xlen(stream), 1);
});

test('a blocked worker is woken by another connection\'s XADD', async () => {
  const admin = server.client();
  await admin.xgroup('CREATE', 'wake', 'g', '$', 'MKSTREAM');
  const worker = server.client();
  const waiting = worker.xreadgroup('GROUP', 'g', 'w', 'BLOCK', 0, 'STREAMS', 'wake', '>');
  await sleep(100);
  await admin.xadd('wake', '7-0', 'job', 'x');
  assert.deepEqual(entriesOf(await waiting), [['7-0', ['job', 'x']]]);
});

test('RESP3 connections and pipelines', async () => {
  const c = server.client({ protocol: 3 });
  const pipeline = c.pipeline();
  pipeline.xadd('r3', '1-0', 'a', '1');
  pipeline.xadd('r3', '2-0', 'a', '2');
  pipeline.xlen('r3');
  pipeline.xrange('r3', '-', '+', 'COUNT', 1);
  const results = await pipeline.exec();
  assert.deepEqual(results.map(([err, value]) => [err, value]), [[null, '1-0'], [null, '2-0'], [null, 2], [null, [['1-0', ['a', '1']]]]]);
  const tx = await c.multi().xadd('r3', '3-0', 'a', '3').xlen('r3').exec();
  assert.deepEqual(tx, [[null, '3-0'], [null, 3]]);
});
