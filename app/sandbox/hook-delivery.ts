/**
 * One webhook delivery the sandbox sent or will send, as GitHub keeps it for an app's hook: its
 * body, and each attempt's outcome. The change log queues it; the webhook sender fills it in.
 */
export interface Delivery {
  /** X-GitHub-Delivery: the same id again when redelivered, as on GitHub. */
  id: string;
  event: string;
  action: string | null;
  body: string;
  repositoryId: number | null;
  installationId: number;
  redelivery: boolean;
  status: 'pending' | 'delivered' | 'failed';
  /** One entry per attempt: the HTTP status, or the network error. */
  attempts: { status: number | null; error: string | null }[];
}
