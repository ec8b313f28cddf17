import type { FastifyInstance } from 'fastify';

export const webhookPath = '/api/github/webhooks';

/** GitHub caps a delivery's payload at 25 MB. */
const maxPayloadBytes = 25 * 1024 * 1024;

export type DeliveryOutcome =
  /** Stored; it will be processed (the answer does not wait for processing). */
  | { kind: 'accepted' }
  /** This delivery id was seen before: acknowledged and ignored. */
  | { kind: 'duplicate' }
  /** An event Trainyard does not act on: acknowledged, nothing stored. */
  | { kind: 'ignored' }
  | { kind: 'invalid_signature' }
  | { kind: 'invalid_payload'; message: string };

/** What the endpoint hands a delivery to once its headers are read (app/github/webhook-inbox.ts). */
export interface WebhookReceiver {
  receive(delivery: {
    id: string;
    name: string;
    signature: string;
    rawBody: string;
  }): Promise<DeliveryOutcome>;
}

/**
 * POST /api/github/webhooks, beside the v1 API on one server. The body is kept raw because
 * the signature is over the exact bytes GitHub sent; the answer comes as soon as the delivery
 * is stored, so GitHub's 10-second limit never depends on the queue's work.
 */
export async function registerWebhookEndpoint(
  app: FastifyInstance,
  receiver: WebhookReceiver,
): Promise<void> {
  await app.register(async (scope) => {
    // Only inside this scope: the v1 API keeps its JSON parser.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'string', bodyLimit: maxPayloadBytes },
      (_request, body, done) => done(null, body),
    );
    scope.post(webhookPath, { bodyLimit: maxPayloadBytes }, async (request, reply) => {
      const header = (name: string) => {
        const value = request.headers[name];
        return typeof value === 'string' && value.length > 0 ? value : null;
      };
      const id = header('x-github-delivery');
      const name = header('x-github-event');
      const signature = header('x-hub-signature-256');
      if (signature === null) {
        return reply.code(401).send({ detail: 'missing X-Hub-Signature-256: the delivery is not signed' });
      }
      if (id === null || name === null) {
        return reply.code(400).send({ detail: 'missing X-GitHub-Delivery or X-GitHub-Event header' });
      }
      if (!/^[\w.-]{1,100}$/.test(id) || !/^[a-z_]{1,64}$/.test(name)) {
        return reply.code(400).send({ detail: 'malformed X-GitHub-Delivery or X-GitHub-Event header' });
      }
      const rawBody = typeof request.body === 'string' ? request.body : '';
      const outcome = await receiver.receive({ id, name, signature, rawBody });
      switch (outcome.kind) {
        case 'invalid_signature':
          return reply.code(401).send({ detail: 'signature does not match the payload' });
        case 'invalid_payload':
          return reply.code(400).send({ detail: outcome.message });
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
