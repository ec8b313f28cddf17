// Starts the server as a user would (`npm start` unless a command follows `--`) with no
// configuration but a free loopback port and a new PGlite directory, and reports how long it took
// to serve `GET /v1/openapi.json`, the resident memory after --idle seconds, and that SIGTERM to
// the server's process stops it cleanly (exit code 0). Linux only (reads /proc). .ci/run runs it
// as a smoke test; docs/decisions/0026-compiled-start.md took its figures with it.
//
//   node scripts/start-check.mjs [--idle 30] [--data-dir DIR] [-- node --max-semi-space-size=64 dist/app/main.js]
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: { idle: { type: 'string', default: '0' }, 'data-dir': { type: 'string' } },
  allowPositionals: true,
});
const command = positionals.length > 0 ? positionals : ['npm', 'start'];
const idleMs = Number(values.idle) * 1000;
const scratch = values['data-dir'] ? undefined : mkdtempSync(join(tmpdir(), 'trainyard-start-'));
const dataDir = values['data-dir'] ?? join(scratch, 'db');

const port = await new Promise((resolve, reject) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
  probe.on('error', reject);
});

const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', TRAINYARD_DATA_DIR: dataDir };
for (const name of ['DATABASE_URL', 'APP_ID', 'PRIVATE_KEY', 'PRIVATE_KEY_PATH', 'WEBHOOK_SECRET'])
  delete env[name];

const startedAt = performance.now();
const child = spawn(command[0], command.slice(1), { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
let output = '';
const keep = (chunk) => {
  output = (output + chunk).slice(-20_000);
};
child.stdout.on('data', keep);
child.stderr.on('data', keep);
const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
let exit;
exited.then((value) => {
  exit = value;
});

function fail(message) {
  process.stderr.write(`${output}\nFAIL start-check: ${message}\n`);
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {}
  process.exit(1);
}

/**
 * Each live process of the child's process group (npm, sh, node…): its resident set in MB, and
 * the CPU time it and its waited-for children (the prestart build) used, in ms.
 */
function groupProcesses() {
  const found = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== child.pid) continue;
      // utime, stime, cutime, cstime in clock ticks (USER_HZ, 100 per second on Linux).
      const cpuMs = fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) * 10;
      const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      found.push({ pid: Number(pid), rssMB: Math.round(rssKb / 1024), cpuMs, cmdline });
    } catch {}
  }
  return found;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const url = `http://127.0.0.1:${port}/v1/openapi.json`;
let readyMs;
while (readyMs === undefined) {
  if (exit) fail(`exited before serving (${JSON.stringify(exit)})`);
  if (performance.now() - startedAt > 180_000) fail('not serving after 180 s');
  try {
    const response = await fetch(url);
    await response.arrayBuffer();
    if (response.status === 200) readyMs = Math.round(performance.now() - startedAt);
  } catch {
    await sleep(25);
  }
}

// CPU time to get there: unlike the wall time, hardly moved by other work on the machine.
const readyCpuMs = groupProcesses().reduce((sum, p) => sum + p.cpuMs, 0);

await sleep(idleMs);
if (exit) fail(`exited while idle (${JSON.stringify(exit)})`);
const processes = groupProcesses();
const server = processes.reduce((a, b) => (b.rssMB > (a?.rssMB ?? -1) ? b : a), undefined);

// As a process manager stops it: SIGTERM to the server's process (npm then exits with its code).
if (server) process.kill(server.pid, 'SIGTERM');
const stopped = await Promise.race([exited, sleep(30_000).then(() => undefined)]);
if (!stopped) fail('still running 30 s after SIGTERM');
if (scratch) rmSync(scratch, { recursive: true, force: true });

const report = {
  command: command.join(' '),
  readyMs,
  readyCpuMs,
  idleSeconds: idleMs / 1000,
  serverRssMB: server?.rssMB,
  groupRssMB: processes.reduce((sum, p) => sum + p.rssMB, 0),
  processes: processes.map((p) => `${p.rssMB} MB ${p.cmdline.slice(0, 80)}`),
  exit: stopped,
};
process.stdout.write(`${JSON.stringify(report)}\n`);
if (stopped.code !== 0) fail(`did not stop cleanly on SIGTERM: ${JSON.stringify(stopped)}`);
