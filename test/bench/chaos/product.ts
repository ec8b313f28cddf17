import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/*
 * The product as a user starts it: `npm start`'s command line (read from package.json), run as
 * its own process group so that a kill reaches everything it started. Output goes to a log file
 * of the run; the API key the welcome prints is picked up on the way.
 */

export interface ProductOptions {
  repoRoot: string;
  env: NodeJS.ProcessEnv;
  /** Preloaded after tsx (the journal observer), or null. */
  observer: string | null;
  logFile: string;
  label: string;
}

export interface RunningProduct {
  child: ChildProcess;
  pid: number;
  spawnedAt: number;
  /** The welcome's API key, once printed. */
  apiKey: string | null;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  exit: { code: number | null; signal: NodeJS.Signals | null; at: number } | null;
  stderrTail: string;
}

const running = new Set<RunningProduct>();

/** `npm start` without npm: the start script's node arguments, with the observer imported after tsx. */
export function startCommand(repoRoot: string, observer: string | null): string[] {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const words = pkg.scripts['start']!.trim().split(/\s+/);
  if (words[0] !== 'node') throw new Error(`the start script does not run node: ${pkg.scripts['start']}`);
  const args = words.slice(1);
  if (observer !== null) {
    const script = args.findIndex((w) => w.endsWith('.ts') || w.endsWith('.js'));
    if (script < 0) throw new Error('no script in the start command');
    args.splice(script, 0, '--import', observer);
  }
  return args;
}

export function startProduct(options: ProductOptions): RunningProduct {
  const args = startCommand(options.repoRoot, options.observer);
  appendFileSync(
    options.logFile,
    `\n===== ${new Date().toISOString()} ${options.label}: node ${args.join(' ')}\n`,
  );
  const child = spawn(process.execPath, args, {
    cwd: options.repoRoot,
    env: options.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error('the product did not start (no pid)');
  const product: RunningProduct = {
    child,
    pid: child.pid,
    spawnedAt: Date.now(),
    apiKey: null,
    exited: Promise.resolve({ code: null, signal: null, at: 0 }),
    exit: null,
    stderrTail: '',
  };
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    appendFileSync(options.logFile, text);
    if (product.apiKey === null) {
      stdout = (stdout + text).slice(-8192);
      const match = /API key:\s+(ty_[A-Za-z0-9_-]+)/.exec(stdout);
      if (match) product.apiKey = match[1]!;
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    appendFileSync(options.logFile, text);
    product.stderrTail = (product.stderrTail + text).slice(-4000);
  });
  product.exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      product.exit = { code, signal, at: Date.now() };
      running.delete(product);
      resolve(product.exit);
    });
  });
  running.add(product);
  return product;
}

/** SIGKILL to the whole process group (kill -9 -pgid). */
export function killGroup(product: RunningProduct, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (product.exit !== null) return;
  try {
    process.kill(-product.pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** Waits for the exit at most `ms`; null when still running. */
export async function waitExit(product: RunningProduct, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([
    product.exited,
    new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), ms);
    }),
  ]);
  clearTimeout(timer);
  return result;
}

/** Every product still running gets SIGKILL (the bench's exit path: nothing is left behind). */
export function killAll(): void {
  for (const product of running) killGroup(product);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** GET on loopback with a timeout: the status and parsed JSON body, or null when nothing answered. */
export async function getJson(
  url: string,
  options: { token?: string | null; timeoutMs?: number } = {},
): Promise<{ status: number; body: unknown } | null> {
  try {
    const response = await fetch(url, {
      headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
      signal: AbortSignal.timeout(options.timeoutMs ?? 2_000),
    });
    const text = await response.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: response.status, body };
  } catch {
    return null;
  }
}
