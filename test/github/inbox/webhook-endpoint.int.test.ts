import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GithubPermissions } from '../../../app/api/auth/github-permissions.ts';
import { buildServer } from '../../../app/api/server.ts';
import { createGithubApp, type GithubApp } from '../../../app/github/github-app.ts';
import {
  maxPayloadBytes,
  type WebhookEndpointOptions,
  webhookPath,
} from '../../../app/github/inbox/webhook-endpoint.ts';
import type { Store } from '../../../app/store/database.ts';
import {
  heldOpen,
  repeatedPieces,
  startUpload,
  type Upload,
  type UploadAnswer,
} from '../../support/raw-upload.ts';
import { openTestStore } from '../../support/test-store.ts';
import { appPrivateKey } from '../../support/trainyard-tester.ts';

/*
 * The webhook endpoint's door (issue "Hardening", F3 and F9), through the real server, inbox and
 * GitHub App on loopback: what the headers can refuse is refused before the body is sent; a body
 * is hashed as it arrives and refused past 25 MB, past the budget of unverified bodies or when it
 * stalls; a signed payload that lacks what Trainyard reads is refused with where it lacks it.
 */

const SECRET = 'endpoint-test-secret';
const KiB = 1024;
const MiB = 1024 * KiB;

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store?.close();
});
beforeEach(async () => {
  await store.db.deleteFrom('webhook_deliveries').execute();
});

/** The app as production wires it (its background loops not started: nothing is processed). */
async function startEndpoint(bodies: Omit<WebhookEndpointOptions, 'secret'> = {}) {
  const server: FastifyInstance = await buildServer({
    store,
    github: new GithubPermissions({ apiBaseUrl: 'http://127.0.0.1:9' }),
  });
  const app: GithubApp = await createGithubApp({
    store,
    server,
    credentials: {
      appId: 1,
      privateKey: appPrivateKey(),
      baseUrl: 'http://127.0.0.1:9',
      webhookSecret: SECRET,
    },
    logger: pino({ level: 'silent' }),
    appSlug: 'trainyard',
    webhookBodies: bodies,
  });
  const url = `${await server.listen({ host: '127.0.0.1', port: 0 })}${webhookPath}`;
  return {
    url,
    async close() {
      await app.stop();
      await server.close();
    },
  };
}

const sign = (body: Buffer | string, secret = SECRET) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const WRONG = `sha256=${'0'.repeat(64)}`;

let deliveries = 0;
function headers(signature: string | null, event = 'push'): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-github-delivery': `d-${++deliveries}`,
    'x-github-event': event,
    ...(signature === null ? {} : { 'x-hub-signature-256': signature }),
  };
}

/** The answer, or a failure when none comes within `ms` (the server is still waiting for the body). */
async function answerWithin(upload: Upload, url: string, ms = 5_000): Promise<UploadAnswer> {
  const inFlight = startUpload(url, upload);
  let timer: NodeJS.Timeout | undefined;
  try {
    const answer = await Promise.race([
      inFlight.answer,
      new Promise<{ error: string }>((resolve) => {
        timer = setTimeout(() => resolve({ error: `no answer within ${ms} ms` }), ms);
      }),
    ]);
    if ('error' in answer) throw new Error(answer.error);
    return answer;
  } finally {
    clearTimeout(timer);
    inFlight.abort();
  }
}

/** An error answer: the status, {"detail"} and the request id every answer carries. */
function expectRefusal(answer: UploadAnswer, status: number, detail: string | RegExp) {
  expect({ status: answer.status, body: answer.body }).toEqual({
    status,
    body: { detail: typeof detail === 'string' ? detail : expect.stringMatching(detail) },
  });
  expect(answer.headers['x-request-id']).toMatch(/^[\w-]{8,}$/);
}

async function storedPayloads(): Promise<(string | null)[]> {
  const rows = await store.db.selectFrom('webhook_deliveries').select('payload').orderBy('seq').execute();
  return rows.map((r) => r.payload);
}

describe('what the headers refuse, before the body is read', () => {
  let endpoint: Awaited<ReturnType<typeof startEndpoint>>;
  beforeAll(async () => {
    endpoint = await startEndpoint();
  });
  afterAll(async () => {
    await endpoint?.close();
  });

  it('no X-Hub-Signature-256 ⇒ 401 while the body is still unsent, and the connection closes', async () => {
    const answer = await answerWithin(
      { headers: headers(null), contentLength: MiB, pieces: heldOpen() },
      endpoint.url,
    );
    expectRefusal(answer, 401, 'missing X-Hub-Signature-256: the delivery is not signed');
    expect(answer.headers['connection']).toBe('close');
  });

  it('a malformed X-Hub-Signature-256 ⇒ 401 while the body is still unsent', async () => {
    const answer = await answerWithin(
      { headers: headers('sha1=abc'), contentLength: MiB, pieces: heldOpen() },
      endpoint.url,
    );
    expectRefusal(answer, 401, 'malformed X-Hub-Signature-256: expected sha256= and 64 hexadecimal digits');
  });

  it("a Content-Length over GitHub's 25 MB ⇒ 413 while the body is still unsent", async () => {
    const answer = await answerWithin(
      { headers: headers(WRONG), contentLength: maxPayloadBytes + 1, pieces: heldOpen() },
      endpoint.url,
    );
    expectRefusal(answer, 413, `the body is over GitHub's limit for a delivery (${maxPayloadBytes} bytes)`);
    expect(answer.headers['connection']).toBe('close');
  });

  it('a chunked body (no Content-Length) is counted: past 25 MB ⇒ 413 before its end', async () => {
    const answer = await answerWithin(
      { headers: headers(WRONG), pieces: heldOpen(repeatedPieces(26, MiB)) },
      endpoint.url,
      20_000,
    );
    expectRefusal(answer, 413, `the body is over GitHub's limit for a delivery (${maxPayloadBytes} bytes)`);
    expect(await storedPayloads()).toEqual([]);
  });
});

describe('the body is hashed as it arrives and decoded once verified', () => {
  let endpoint: Awaited<ReturnType<typeof startEndpoint>>;
  beforeAll(async () => {
    endpoint = await startEndpoint();
  });
  afterAll(async () => {
    await endpoint?.close();
  });

  it('a signed body in pieces cut inside multi-byte characters is stored byte for byte', async () => {
    const text = JSON.stringify({
      ...examplePayload('push'),
      head_commit: { message: 'Déménagement 🚂 → 駅', added: [], removed: [], modified: [] },
    });
    const bytes = Buffer.from(text, 'utf8');
    // Inside é (2 bytes), 🚂 (4) and 駅 (3), each piece sent after a pause so that the server reads
    // them one by one.
    const cuts = ['é', '🚂', '駅'].map((c) => bytes.indexOf(Buffer.from(c)) + 1);
    const pieces = (async function* () {
      for (const [n, from] of [0, ...cuts].entries()) {
        yield bytes.subarray(from, cuts[n] ?? bytes.length);
        await sleep(20);
      }
    })();
    const answer = await answerWithin({ headers: headers(sign(bytes)), pieces }, endpoint.url);
    expect(answer).toMatchObject({ status: 202, body: { status: 'accepted' } });
    expect(await storedPayloads()).toEqual([text]);
  });

  it('a body that does not match its signature ⇒ 401 once read, nothing stored', async () => {
    const body = Buffer.from(JSON.stringify(examplePayload('push')));
    for (const signature of [WRONG, sign(body, 'another-secret')]) {
      const answer = await answerWithin(
        { headers: headers(signature), contentLength: body.length, pieces: [body] },
        endpoint.url,
      );
      expectRefusal(answer, 401, 'signature does not match the payload');
    }
    expect(await storedPayloads()).toEqual([]);
  });
});

describe('the bodies not yet verified share a budget', () => {
  let endpoint: Awaited<ReturnType<typeof startEndpoint>>;
  beforeAll(async () => {
    endpoint = await startEndpoint({ unverifiedBytes: MiB, bodyTimeoutMs: 5_000 });
  });
  afterAll(async () => {
    await endpoint?.close();
  });

  /** Waits until a body declaring `bytes` is refused 503 at the door (the budget is that full). */
  async function untilRefused(bytes: number): Promise<UploadAnswer> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const probe = startUpload(endpoint.url, {
        headers: headers(WRONG),
        contentLength: bytes,
        pieces: heldOpen(),
      });
      const answer = await Promise.race([probe.answer, sleep(50).then(() => null)]);
      probe.abort();
      if (answer !== null && 'status' in answer && answer.status === 503) return answer;
    }
    throw new Error('the held body never filled the budget');
  }

  it('a body that does not fit ⇒ 503 with Retry-After, at the door or as it grows; the budget comes back', async () => {
    // A forged body, 600 KiB of its 800 sent, holds the budget of 1 MiB.
    let finishHeld: () => void = () => {};
    const release = new Promise<void>((resolve) => {
      finishHeld = resolve;
    });
    const held = startUpload(endpoint.url, {
      headers: headers(WRONG),
      contentLength: 800 * KiB,
      pieces: (async function* () {
        yield* repeatedPieces(6, 100 * KiB);
        await release;
        yield* repeatedPieces(2, 100 * KiB);
      })(),
    });
    const atDoor = await untilRefused(600 * KiB);
    expectRefusal(atDoor, 503, 'too many webhook bodies are arriving at once; deliver again later');
    expect(atDoor.headers['retry-after']).toBe('5');

    // Chunked, so nothing declared: refused when its bytes would overflow the budget.
    const growing = await answerWithin(
      { headers: headers(WRONG), pieces: heldOpen(repeatedPieces(6, 100 * KiB)) },
      endpoint.url,
    );
    expectRefusal(growing, 503, 'too many webhook bodies are arriving at once; deliver again later');
    expect(growing.headers['retry-after']).toBe('5');

    // The held body ends: refused for its signature, and its bytes are given back.
    finishHeld();
    const heldAnswer = await held.answer;
    expect('status' in heldAnswer && heldAnswer.status).toBe(401);

    // A genuine body as large as the whole budget allows now passes.
    const payload = JSON.stringify({ ...examplePayload('push'), padding: 'x'.repeat(900 * KiB) });
    const answer = await answerWithin(
      {
        headers: headers(sign(payload)),
        contentLength: Buffer.byteLength(payload),
        pieces: [Buffer.from(payload)],
      },
      endpoint.url,
    );
    expect(answer.status).toBe(202);
    expect(await storedPayloads()).toEqual([payload]);
  });
});

describe('a body that stalls', () => {
  let endpoint: Awaited<ReturnType<typeof startEndpoint>>;
  beforeAll(async () => {
    endpoint = await startEndpoint({ unverifiedBytes: MiB, bodyTimeoutMs: 300 });
  });
  afterAll(async () => {
    await endpoint?.close();
  });

  it('⇒ 408 once the time for a body is up, and its bytes are given back', async () => {
    const answer = await answerWithin(
      {
        headers: headers(WRONG),
        contentLength: 900 * KiB,
        pieces: heldOpen(repeatedPieces(1, 800 * KiB)),
      },
      endpoint.url,
    );
    expectRefusal(answer, 408, 'the body did not arrive within 0.3 s');
    // Larger than what the budget had left beside the stalled body.
    const body = Buffer.from(JSON.stringify({ ...examplePayload('push'), padding: 'x'.repeat(600 * KiB) }));
    const next = await answerWithin(
      { headers: headers(sign(body)), contentLength: body.length, pieces: [body] },
      endpoint.url,
    );
    expect(next.status).toBe(202);
  });
});

describe('a signed payload that lacks what Trainyard reads (F9)', () => {
  let endpoint: Awaited<ReturnType<typeof startEndpoint>>;
  beforeAll(async () => {
    endpoint = await startEndpoint();
  });
  afterAll(async () => {
    await endpoint?.close();
  });

  const post = (event: string, text: string) =>
    answerWithin(
      {
        headers: headers(sign(text), event),
        contentLength: Buffer.byteLength(text),
        pieces: [Buffer.from(text)],
      },
      endpoint.url,
    );

  it('⇒ 400 naming the fields, and nothing is stored', async () => {
    expectRefusal(
      await post('repository', '{"zen":"ping"}'),
      400,
      'the repository payload lacks what Trainyard reads: action: Invalid input: expected string, received undefined; ' +
        'repository: Invalid input: expected object, received undefined',
    );
    const renamed = examplePayload('repository', 'renamed') as { changes: unknown };
    renamed.changes = {};
    expectRefusal(
      await post('repository', JSON.stringify(renamed)),
      400,
      /^the repository\.renamed payload lacks what Trainyard reads: changes\.repository: /,
    );
    expect(await storedPayloads()).toEqual([]);
  });

  it("GitHub's own example of the event is accepted", async () => {
    const text = JSON.stringify(examplePayload('repository', 'renamed'));
    expect((await post('repository', text)).status).toBe(202);
    expect(await storedPayloads()).toEqual([text]);
  });
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

let examples: { name: string; examples: Record<string, unknown>[] }[] | undefined;
function examplePayload(event: string, action?: string): Record<string, unknown> {
  examples ??= JSON.parse(
    readFileSync(createRequire(import.meta.url).resolve('@octokit/webhooks-examples'), 'utf8'),
  );
  const found = examples!
    .find((d) => d.name === event)
    ?.examples.find((e) => 'installation' in e && (action === undefined || e['action'] === action));
  if (found === undefined) throw new Error(`no ${event} example`);
  return structuredClone(found);
}
