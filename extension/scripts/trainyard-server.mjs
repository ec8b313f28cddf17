// Starts the real Trainyard server for the extension tests (test/support/extension-server.ts:
// PGlite in memory, a queue made by the engine, imported events) and reads what it prints.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(path.join(root, 'package.json'));

/** @returns {Promise<{ info: any, stop: () => Promise<void> }>} */
export async function startTrainyardServer() {
  const tsx = require.resolve('tsx/cli');
  const child = spawn(process.execPath, [tsx, path.join(root, 'test/support/extension-server.ts')], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => {
    err += d;
  });
  const info = await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n')[0];
      if (out.includes('\n')) {
        try {
          resolve(JSON.parse(line));
        } catch {
          reject(new Error(`unexpected output from the Trainyard server: ${line}\n${err}`));
        }
      }
    });
    child.on('exit', (code) => reject(new Error(`the Trainyard server exited (${code})\n${err}`)));
    setTimeout(() => reject(new Error(`the Trainyard server did not start in 60 s\n${err}`)), 60_000);
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((r) => {
      child.once('exit', r);
      setTimeout(r, 5000);
    });
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  return { info, stop };
}
