import { channel } from 'node:diagnostics_channel';

/**
 * What the sandbox code host answers and what it delivers, published on diagnostics channels for
 * whoever subscribes: the test suite checks each answer and each webhook against GitHub's
 * published descriptions, so the sandbox cannot drift from GitHub unseen. With no subscriber
 * nothing is built.
 */
export const sandboxResponseChannel = channel('trainyard:sandbox:response');
export const sandboxWebhookChannel = channel('trainyard:sandbox:webhook');

/** One REST answer of the sandbox. */
export interface SandboxResponse {
  method: string;
  /** The path and query as requested. */
  url: string;
  status: number;
  contentType: string;
  /** The body as sent. */
  body: string;
}

/** One webhook delivery as first sent (not its retries or redeliveries). */
export interface SandboxWebhook {
  event: string;
  action: string | null;
  body: string;
}
