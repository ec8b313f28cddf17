import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { formatActivitySummary } from '../app/activity-summary.ts';
import { GithubPermissions } from '../app/api/auth/github-permissions.ts';
import { buildServer } from '../app/api/server.ts';
import { chooseLogFormat, createLogger, type LogFormat } from '../app/logging.ts';
import { readSettings } from '../app/settings.ts';
import { openTestStore } from './support/test-store.ts';

function capture(format: LogFormat, level: 'info' | 'debug' = 'info') {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const logger = createLogger({ level, format, destination: out, colorize: false });
  return { logger, lines: () => text.split('\n').filter((l) => l !== '') };
}

describe('logs a person can read at a terminal, JSON elsewhere', () => {
  it('picks pretty on a terminal and JSON otherwise, unless LOG_FORMAT says', () => {
    expect(chooseLogFormat(undefined, true)).toBe('pretty');
    expect(chooseLogFormat(undefined, false)).toBe('json');
    expect(chooseLogFormat('json', true)).toBe('json');
    expect(chooseLogFormat('pretty', false)).toBe('pretty');
    expect(readSettings({ LOG_FORMAT: 'json' }).LOG_FORMAT).toBe('json');
    expect(readSettings({}).LOG_FORMAT).toBeUndefined();
    expect(() => readSettings(Object.fromEntries([['LOG_FORMAT', 'yaml']]))).toThrow(/LOG_FORMAT/);
  });

  it('pretty: one line per entry with the time, the level, the logger name and the fields, secrets redacted', async () => {
    const { logger, lines } = capture('pretty');
    logger.child({ name: 'sandbox' }).info({ repository: 'demo/widgets' }, 'sandbox started');
    logger.info({ req: { headers: { authorization: 'Bearer ty_secret' } } }, 'incoming request');
    logger.debug('not shown at info');
    await new Promise((resolve) => setImmediate(resolve));
    const [first, second, ...rest] = lines();
    expect(rest).toEqual([]);
    expect(first).toMatch(
      /^\[\d{2}:\d{2}:\d{2}\] INFO \(sandbox\): sandbox started \{"repository":"demo\/widgets"\}$/,
    );
    expect(second).toContain('[Redacted]');
    expect(second).not.toContain('ty_secret');
  });

  it('json: one parseable object per line, as before', async () => {
    const { logger, lines } = capture('json', 'debug');
    logger.child({ name: 'webhooks' }).debug({ id: 'd-1' }, 'webhooks: delivery processed');
    logger.info({ token: { token: 'ghs_x' } }, 'with a secret');
    await new Promise((resolve) => setImmediate(resolve));
    const entries = lines().map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries[0]).toMatchObject({
      level: 20,
      name: 'webhooks',
      id: 'd-1',
      msg: 'webhooks: delivery processed',
    });
    expect(JSON.stringify(entries[1])).not.toContain('ghs_x');
  });

  it('request lines: at info by default (production), at debug when asked (the sandbox)', async () => {
    const store = await openTestStore();
    try {
      const seen: Record<string, string[]> = {};
      for (const [name, requestLogLevel, level] of [
        ['production at info', 'info', 'info'],
        ['sandbox at info', 'debug', 'info'],
        ['sandbox at debug', 'debug', 'debug'],
      ] as const) {
        const { logger, lines } = capture('json', level);
        const server = await buildServer({
          store,
          github: new GithubPermissions({ apiBaseUrl: 'https://github.test/api/v3' }),
          logger,
          requestLogLevel,
        });
        const answer = await server.inject({ method: 'GET', url: '/v1/openapi.json' });
        expect(answer.statusCode).toBe(200);
        await server.close();
        await new Promise((resolve) => setImmediate(resolve));
        seen[name] = lines().map((l) => {
          const entry = JSON.parse(l) as { level: number; msg: string; req?: { url?: string } };
          return `${entry.level} ${entry.msg}${entry.req?.url ? ` ${entry.req.url}` : ''}`;
        });
      }
      expect(seen['production at info']).toEqual([
        '30 incoming request /v1/openapi.json',
        '30 request completed',
      ]);
      expect(seen['sandbox at info']).toEqual([]);
      expect(seen['sandbox at debug']).toEqual([
        '20 incoming request /v1/openapi.json',
        '20 request completed',
      ]);
    } finally {
      await store.close();
    }
  });

  it('the periodic summary line says how deep the queue is and how much merged in the last hour', () => {
    expect(
      formatActivitySummary({ repository: 'demo/widgets', queued: 7, batches: 2, mergedLastHour: 31 }),
    ).toBe('demo/widgets: 7 pull requests in the queue (2 batches), 31 merged in the last hour');
    expect(
      formatActivitySummary({ repository: 'demo/widgets', queued: 1, batches: 0, mergedLastHour: 0 }),
    ).toBe('demo/widgets: 1 pull request in the queue, 0 merged in the last hour');
  });
});
