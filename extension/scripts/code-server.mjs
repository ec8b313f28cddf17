// Shared by the test drivers: a throw-away code-server (real VS Code 1.139.1 server + workbench)
// and headless Debian Chromium through playwright-core. See README, "VS Code extension".
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Headless Debian Chromium through playwright-core, shared with the sandbox pages' browser test.
export { CHROMIUM_ARGS, launchChromium } from '../../scripts/chromium.mjs';

export function hostPaths() {
  const node = process.env.CODE_SERVER_NODE;
  const entry = process.env.CODE_SERVER_ENTRY;
  if (!node || !entry) {
    throw new Error(
      "CODE_SERVER_NODE and CODE_SERVER_ENTRY are not set: run eval \"export $(extension/scripts/setup-vscode-host.sh | tr '\\n' ' ')\" first",
    );
  }
  return { node, entry };
}

/**
 * Starts code-server on 127.0.0.1:<free port> with its own user data, extensions dir and HOME.
 * `settings` go to the user settings.json; `env` to the server (the extension host inherits it).
 */
export async function startCodeServer({ settings = {}, env = {}, vsix, prepareWorkspace } = {}) {
  const { node, entry } = hostPaths();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trainyard-cs-'));
  const dirs = Object.fromEntries(['ud', 'exts', 'home', 'ws'].map((d) => [d, path.join(tmp, d)]));
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
  // prepareWorkspace(dir) may set up the workspace folder and return more environment variables
  const workspaceEnv = prepareWorkspace?.(dirs.ws) ?? {};
  fs.mkdirSync(path.join(dirs.ud, 'User'), { recursive: true });
  fs.writeFileSync(
    path.join(dirs.ud, 'User', 'settings.json'),
    JSON.stringify(
      {
        'workbench.startupEditor': 'none',
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'workbench.enableExperiments': false,
        'chat.disableAIFeatures': true,
        'security.workspace.trust.enabled': false,
        'git.enabled': false,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        ...settings,
      },
      null,
      2,
    ),
  );
  const fullEnv = {
    ...process.env,
    ...env,
    ...workspaceEnv,
    HOME: dirs.home,
    XDG_CONFIG_HOME: path.join(dirs.home, '.config'),
    XDG_DATA_HOME: path.join(dirs.home, '.local/share'),
  };
  const common = [
    '--config',
    path.join(tmp, 'config.yaml'),
    '--user-data-dir',
    dirs.ud,
    '--extensions-dir',
    dirs.exts,
  ];
  let installLog = '';
  if (vsix) {
    installLog = execFileSync(node, [entry, ...common, '--install-extension', vsix], {
      env: fullEnv,
      encoding: 'utf8',
    });
  }
  const server = spawn(
    node,
    [
      entry,
      ...common,
      '--auth',
      'none',
      '--bind-addr',
      '127.0.0.1:0',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--ignore-last-opened',
      '--vscode-option',
      'enable-smoke-test-driver',
      dirs.ws,
    ],
    // own process group: code-server leaves helper processes (file watcher, agent host) behind
    { env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let log = '';
  const stop = async () => {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    await new Promise((r) => {
      if (server.exitCode !== null) r();
      server.once('exit', r);
      setTimeout(r, 5000);
    });
    await new Promise((r) => setTimeout(r, 500));
    try {
      process.kill(-server.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const port = await new Promise((resolve, reject) => {
    const onData = (d) => {
      log += d;
      const m = /HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(log);
      if (m) resolve(Number(m[1]));
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', onData);
    server.on('exit', (c) => reject(new Error(`code-server exited ${c}\n${log}`)));
    setTimeout(() => reject(new Error(`code-server did not start\n${log}`)), 30_000);
  }).catch(async (e) => {
    await stop();
    throw e;
  });
  const authority = `127.0.0.1:${port}`;
  return {
    port,
    authority,
    dirs,
    installLog,
    log: () => log,
    remote: (p) => `vscode-remote://${authority}${path.resolve(p)}`,
    url: (payload) =>
      `http://${authority}/?folder=${encodeURIComponent(dirs.ws)}${
        payload ? `&payload=${encodeURIComponent(JSON.stringify(payload))}` : ''
      }`,
    async close() {
      await stop();
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}
