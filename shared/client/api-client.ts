import type { z } from 'zod';
import { type LogsPage, logsPageSchema } from '../schemas/logs.schema.ts';
import {
  type MergeQueueStatus,
  mergeQueueStatusSchema,
  type PauseRecord,
  pauseRecordSchema,
} from '../schemas/merge-queue.schema.ts';
import {
  type DequeueImpact,
  dequeueImpactSchema,
  type MergeQueuePullRequest,
  mergeQueuePullRequestSchema,
} from '../schemas/merge-queue-pull.schema.ts';
import { type ScheduledFreeze, scheduledFreezeListSchema } from '../schemas/scheduled-freeze.schema.ts';
import type { StatsEndpoint } from '../schemas/stats-query.schema.ts';
import { type StatsResponse, statsResponseSchemas } from '../schemas/stats-response.schema.ts';
import { type PageLinks, parsePageLinks } from './link-header.ts';

/** Why a call failed, in terms a user interface can explain. */
export type ApiErrorKind =
  | 'unreachable'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'invalid'
  | 'server'
  | 'bad_response';

export class ApiError extends Error {
  constructor(
    readonly kind: ApiErrorKind,
    message: string,
    readonly status: number | null,
    readonly requestId: string | null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface LogsFilter {
  pull_request?: number;
  base_ref?: string;
  event_type?: string[];
  received_from?: string;
  received_to?: string;
  per_page?: number;
}

export interface ApiClientOptions {
  /** Server base URL, e.g. `http://127.0.0.1:3000` (without `/v1`). */
  baseUrl: string;
  /** Returns the bearer token (application key or GitHub token) for each request. */
  token: () => string | Promise<string>;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

const kindByStatus: Record<number, ApiErrorKind> = {
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  422: 'invalid',
};

/**
 * The v1 API, typed by the shared schemas: every response is validated before it is
 * returned, so a client never works on a shape the API does not promise.
 */
export class ApiClient {
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: ApiClientOptions) {
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  private repoUrl(owner: string, repository: string, path: string): string {
    const base = this.options.baseUrl.replace(/\/+$/, '');
    return `${base}/v1/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repository)}${path}`;
  }

  private async call(url: string, init: RequestInit = {}): Promise<Response> {
    const token = await this.options.token();
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        ...init,
        headers: { accept: 'application/json', authorization: `Bearer ${token}`, ...(init.headers ?? {}) },
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 15_000),
      });
    } catch (error) {
      throw new ApiError(
        'unreachable',
        `cannot reach ${new URL(url).origin}: ${(error as Error).message}`,
        null,
        null,
      );
    }
    if (response.ok) return response;
    const requestId = response.headers.get('x-request-id');
    let detail = `HTTP ${response.status}`;
    try {
      const body = (await response.json()) as { detail?: unknown };
      if (typeof body.detail === 'string') detail = body.detail;
      else if (Array.isArray(body.detail)) {
        detail = body.detail
          .map((d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).join('.')}: ${d.msg}`)
          .join('; ');
      }
    } catch {
      // not JSON: keep the status line
    }
    throw new ApiError(kindByStatus[response.status] ?? 'server', detail, response.status, requestId);
  }

  private async parse<T extends z.ZodType>(response: Response, schema: T): Promise<z.output<T>> {
    const result = schema.safeParse(await response.json().catch(() => undefined));
    if (!result.success) {
      throw new ApiError(
        'bad_response',
        `the server answered a shape this client does not understand`,
        response.status,
        response.headers.get('x-request-id'),
      );
    }
    return result.data;
  }

  /** One page of the event log; `url` continues from a link of a previous page. */
  async logs(
    owner: string,
    repository: string,
    filter: LogsFilter | { url: string } = {},
  ): Promise<{ page: LogsPage; links: PageLinks }> {
    let url: string;
    if ('url' in filter) url = filter.url;
    else {
      const query = new URLSearchParams();
      for (const [key, value] of Object.entries(filter)) {
        if (value === undefined) continue;
        for (const v of Array.isArray(value) ? value : [value]) query.append(key, String(v));
      }
      const qs = query.toString();
      url = this.repoUrl(owner, repository, `/logs${qs ? `?${qs}` : ''}`);
    }
    const response = await this.call(url);
    return {
      page: await this.parse(response, logsPageSchema),
      links: parsePageLinks(response.headers.get('link')),
    };
  }

  async status(owner: string, repository: string, branch?: string): Promise<MergeQueueStatus> {
    const qs = branch ? `?branch=${encodeURIComponent(branch)}` : '';
    return this.parse(
      await this.call(this.repoUrl(owner, repository, `/merge-queue/status${qs}`)),
      mergeQueueStatusSchema,
    );
  }

  async pause(owner: string, repository: string, reason: string): Promise<PauseRecord> {
    const response = await this.call(this.repoUrl(owner, repository, '/merge-queue/pause'), {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ reason }),
    });
    return this.parse(response, pauseRecordSchema);
  }

  async unpause(owner: string, repository: string): Promise<void> {
    await this.call(this.repoUrl(owner, repository, '/merge-queue/pause'), { method: 'DELETE' });
  }

  /** The pause record, or null when the queue is not paused. */
  async readPause(owner: string, repository: string): Promise<PauseRecord | null> {
    try {
      return await this.parse(
        await this.call(this.repoUrl(owner, repository, '/merge-queue/pause')),
        pauseRecordSchema,
      );
    } catch (error) {
      if (error instanceof ApiError && error.kind === 'not_found' && /not paused/.test(error.message))
        return null;
      throw error;
    }
  }

  /** One queued pull request (Mergify's MergeQueuePullRequest); not_found when in no queue. */
  async pull(owner: string, repository: string, number: number): Promise<MergeQueuePullRequest> {
    return this.parse(
      await this.call(this.repoUrl(owner, repository, `/merge-queue/pull/${number}`)),
      mergeQueuePullRequestSchema,
    );
  }

  /** What dequeuing the pull request would stop and test again. */
  async dequeueImpact(owner: string, repository: string, number: number): Promise<DequeueImpact> {
    return this.parse(
      await this.call(this.repoUrl(owner, repository, `/merge-queue/pull/${number}/dequeue-impact`)),
      dequeueImpactSchema,
    );
  }

  /** Removes the pull request from the queue (write access). */
  async dequeue(owner: string, repository: string, number: number): Promise<void> {
    await this.call(this.repoUrl(owner, repository, `/merge-queue/pull/${number}/dequeue`), {
      method: 'POST',
    });
  }

  /**
   * Queues the pull request again (write access), by `queueName` or the first rule that accepts
   * it; answers its place. conflict when queued already, not_found when not known open, invalid
   * when no rule accepts it.
   */
  async requeue(
    owner: string,
    repository: string,
    number: number,
    queueName?: string,
  ): Promise<MergeQueuePullRequest> {
    const response = await this.call(this.repoUrl(owner, repository, `/merge-queue/pull/${number}/requeue`), {
      method: 'POST',
      ...(queueName === undefined
        ? {}
        : {
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ queue_name: queueName }),
          }),
    });
    return this.parse(response, mergeQueuePullRequestSchema);
  }

  /** The scheduled freezes not ended yet, by start. */
  async freezes(owner: string, repository: string): Promise<ScheduledFreeze[]> {
    const response = await this.call(this.repoUrl(owner, repository, '/scheduled_freeze'));
    return (await this.parse(response, scheduledFreezeListSchema)).scheduled_freezes;
  }

  /** One statistic over a period (`start_at`/`end_at` RFC 3339 or dates). */
  async stats<E extends StatsEndpoint>(
    owner: string,
    repository: string,
    name: E,
    query: { start_at?: string; end_at?: string } = {},
  ): Promise<StatsResponse<E>> {
    const qs = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined)).toString();
    return this.parse(
      await this.call(this.repoUrl(owner, repository, `/stats/${name}${qs ? `?${qs}` : ''}`)),
      statsResponseSchemas[name],
    ) as Promise<StatsResponse<E>>;
  }
}
