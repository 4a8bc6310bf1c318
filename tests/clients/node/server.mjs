// Starts a private StreamLab server the way a harness starts redis-server: TCP off, a Unix
// socket in a fresh directory, no persistence. STREAMLAB_SERVER names the binary.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export async function startServer(extra = []) {
  const binary = process.env.STREAMLAB_SERVER;
  if (!binary) throw new Error('set STREAMLAB_SERVER to the streamlab-server binary');
  const dir = mkdtempSync(join(tmpdir(), 'streamlab-node-'));
  const path = join(dir, 'redis.sock');
  const child = spawn(binary, [
    '--port', '0', '--unixsocket', path, '--unixsocketperm', '700',
    '--save', '', '--appendonly', 'no', '--dir', dir, '--maxmemory-policy', 'noeviction', ...extra,
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const deadline = Date.now() + 5000;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`server did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const clients = [];
  return {
    path,
    // A new connection; each worker gets its own, as separate processes would.
    client(options = {}) {
      const c = new Redis({ path, maxRetriesPerRequest: 0, retryStrategy: () => null, ...options });
      clients.push(c);
      return c;
    },
    async stop() {
      for (const c of clients) c.disconnect();
      child.kill('SIGTERM');
      const { code } = await exited;
      rmSync(dir, { recursive: true, force: true });
      if (code !== 0) throw new Error(`server exited with ${code}: ${stderr}`);
      if (existsSync(path)) throw new Error('the socket file was left behind');
      return stderr;
    },
  };
}
