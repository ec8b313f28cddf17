import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseSignature, readSignedBody } from './signed-body.ts';
import { UnverifiedBodyBudget } from './unverified-body-budget.ts';

export const webhookPath = '/api/github/webhooks';

/** GitHub caps a delivery's payload at 25 MB. */
export const maxPayloadBytes = 25 * 1024 * 1024;

export type DeliveryOutcome =
  /** Stored; it will be processed (the answer does not wait for processing). */
  | { kind: 'accepted' }
  /** This delivery id was seen before: acknowledged and ignored. */
  | { kind: 'duplicate' }
  /** An event Trainyard does not act on: acknowledged, nothing stored. */
  | { kind: 'ignored' }
  | { kind: 'invalid_payload'; message: string };

/** What the endpoint hands a delivery to once its signature is verified (webhook-inbox.ts). */
export interface WebhookReceiver {
  receive(delivery: { id: string; name: string; rawBody: string }): Promise<DeliveryOutcome>;
}

export interface WebhookEndpointOptions {
  /** The App's webhook secret: X-Hub-Signature-256 is the body's HMAC-SHA256 with it. */
  secret: string;
  /**
   * Bytes the bodies not yet verified may hold together (default 32 MB: one delivery of the
   * largest size and room for the small ones beside it).
   */
  unverifiedBytes?: number;
  /**
   * How long a body may take to arrive (default 10 s: GitHub gives up on a delivery after 10 s,
   * so a slower body is not worth its share of the budget).
   */
  bodyTimeoutMs?: number;
}

/**
 * POST /api/github/webhooks, beside the v1 API on one server. What the headers can refuse is
 * refused before a byte of the body is read: no signature, a body declared over 25 MB or larger
 * than the budget of unverified bodies has room for. The body is then hashed as it arrives
 * (signed-body.ts) and handed to the inbox only once the signature matches; the answer comes as
 * soon as the delivery is stored, so GitHub's 10-second limit never depends on the queue's work.
 */
export async function registerWebhookEndpoint(
  app: FastifyInstance,
  receiver: WebhookReceiver,
  options: WebhookEndpointOptions,
): Promise<void> {
  const budget = new UnverifiedBodyBudget(options.unverifiedBytes ?? 32 * 1024 * 1024);
  const timeoutMs = options.bodyTimeoutMs ?? 10_000;
  // Every body held now is verified, refused or timed out by then.
  const retryAfterSeconds = String(Math.ceil(timeoutMs / 1000));
  await app.register(async (scope) => {
    // Only inside this scope: the v1 API keeps its JSON parser. The handler reads the body itself.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.post(webhookPath, async (request, reply) => {
      const header = (name: string) => {
        const value = request.headers[name];
        return typeof value === 'string' && value.length > 0 ? value : null;
      };
      const refuse = (code: number, detail: string) => refuseDelivery(request, reply, code, detail);
      const id = header('x-github-delivery');
      const name = header('x-github-event');
      const signatureHeader = header('x-hub-signature-256');
      if (signatureHeader === null) {
        return refuse(401, 'missing X-Hub-Signature-256: the delivery is not signed');
      }
      if (id === null || name === null) {
        return refuse(400, 'missing X-GitHub-Delivery or X-GitHub-Event header');
      }
      if (!/^[\w.-]{1,100}$/.test(id) || !/^[a-z_]{1,64}$/.test(name)) {
        return refuse(400, 'malformed X-GitHub-Delivery or X-GitHub-Event header');
      }
      const signature = parseSignature(signatureHeader);
      if (signature === null) {
        return refuse(401, 'malformed X-Hub-Signature-256: expected sha256= and 64 hexadecimal digits');
      }
      // Node checked that Content-Length, when there is one, is a number.
      const declared = Number(request.headers['content-length'] ?? 0);
      if (declared > maxPayloadBytes) return refuse(413, tooLarge);
      if (declared > budget.freeBytes) {
        reply.header('retry-after', retryAfterSeconds);
        return refuse(503, busy);
      }
      const read = await readSignedBody(request.raw, {
        secret: options.secret,
        signature,
        maxBytes: maxPayloadBytes,
        budget,
        timeoutMs,
      });
      switch (read.kind) {
        case 'mismatch':
          return refuse(401, 'signature does not match the payload');
        case 'too_large':
          return refuse(413, tooLarge);
        case 'over_budget':
          reply.header('retry-after', retryAfterSeconds);
          return refuse(503, busy);
        case 'timeout':
          return refuse(408, `the body did not arrive within ${timeoutMs / 1000} s`);
        case 'aborted':
          // Nobody is left to read this answer.
          return refuse(400, 'the body was cut off');
        case 'verified':
          break;
      }
      const outcome = await receiver.receive({ id, name, rawBody: read.body.toString('utf8') });
      switch (outcome.kind) {
        case 'invalid_payload':
          return refuse(400, outcome.message);
        case 'duplicate':
          return reply.code(200).send({ delivery: id, status: 'duplicate' });
        case 'ignored':
          return reply.code(200).send({ delivery: id, status: 'ignored' });
        case 'accepted':
          return reply.code(202).send({ delivery: id, status: 'accepted' });
      }
    });
  });
}

const tooLarge = `the body is over GitHub's limit for a delivery (${maxPayloadBytes} bytes)`;
const busy = 'too many webhook bodies are arriving at once; deliver again later';

/**
 * An error answer ({"detail"}; X-Request-Id comes from the server's onRequest hook). When the
 * body was not read to its end, the connection closes after the answer, so that the rest of an
 * unwanted upload is not read (Node would otherwise read and discard it to reuse the connection).
 */
function refuseDelivery(request: FastifyRequest, reply: FastifyReply, code: number, detail: string) {
  if (!request.raw.complete) reply.header('connection', 'close');
  return reply.code(code).send({ detail });
}
