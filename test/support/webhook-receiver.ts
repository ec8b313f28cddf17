import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify } from '@octokit/webhooks-methods';

export interface ReceivedWebhook {
  id: string;
  event: string;
  action: string | null;
  payload: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  /** Checked with @octokit/webhooks-methods, independently of the sandbox's signing. */
  signatureValid: boolean;
  /** The status this receiver answered. */
  answered: number;
}

/**
 * A tiny webhook endpoint on loopback that records what the sandbox delivers and verifies each
 * signature. It can refuse the next deliveries, to exercise the sandbox's retries.
 */
export async function startWebhookReceiver(secret: string) {
  const received: ReceivedWebhook[] = [];
  let refusals: number[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const signature = String(request.headers['x-hub-signature-256'] ?? '');
        const answered = refusals.shift() ?? 202;
        const payload = JSON.parse(body) as Record<string, unknown>;
        received.push({
          id: String(request.headers['x-github-delivery']),
          event: String(request.headers['x-github-event']),
          action: typeof payload['action'] === 'string' ? payload['action'] : null,
          payload,
          headers: request.headers,
          signatureValid: signature !== '' && (await verify(secret, body, signature)),
          answered,
        });
        response.writeHead(answered, { 'content-type': 'application/json' }).end('{}');
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/github/webhooks`,
    received,
    /** Deliveries this receiver accepted (2xx), in arrival order. */
    accepted: () => received.filter((r) => r.answered < 300),
    /** `event.action` of the accepted deliveries, for compact assertions. */
    names: () =>
      received.filter((r) => r.answered < 300).map((r) => (r.action ? `${r.event}.${r.action}` : r.event)),
    refuseNext(statuses: number[]) {
      refusals = [...statuses];
    },
    clear() {
      received.length = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
