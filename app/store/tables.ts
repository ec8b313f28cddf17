import type { ColumnType, Generated, JSONColumnType } from 'kysely';

/** The database as kysely sees it; one interface per table of migrations/. */
export interface Tables {
  repositories: RepositoriesTable;
  events: EventsTable;
  pauses: PausesTable;
  api_keys: ApiKeysTable;
  queue_state: QueueStateTable;
  outbox: OutboxTable;
  timers: TimersTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

// int8 columns come back from pg as strings: ids are kept as strings, since an int8 may not fit a JS number.
type Int8 = ColumnType<string, string | number | bigint, string | number | bigint>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface RepositoriesTable {
  id: Generated<string>;
  owner: string;
  name: string;
  github_id: Int8 | null;
  installation_id: Int8 | null;
  default_branch: Generated<string>;
  created_at: Generated<Date>;
}

export interface EventsTable {
  id: Generated<string>;
  repository_id: Int8;
  type: string;
  received_at: Timestamp;
  trigger: string;
  pull_request: number | null;
  base_ref: string | null;
  metadata: JSONColumnType<Record<string, unknown>, string, string>;
}

export interface PausesTable {
  repository_id: Int8;
  reason: string;
  paused_at: Timestamp;
  paused_by: JSONColumnType<Record<string, unknown>, string, string>;
  updated_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  name: string;
  owner: string;
  repository: string | null;
  role: 'read' | 'admin';
  key_hash: string;
  key_hint: string;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
  last_used_at: Timestamp | null;
}

export interface QueueStateTable {
  repository_id: Int8;
  state: JSONColumnType<Record<string, unknown>, string, string>;
  version: ColumnType<string, string | number, string | number>;
  updated_at: Timestamp;
}

export interface OutboxTable {
  id: Generated<string>;
  repository_id: Int8;
  key: string;
  effect: JSONColumnType<Record<string, unknown>, string, string>;
  created_at: Timestamp;
  attempts: Generated<number>;
  available_at: Timestamp;
  leased_until: Timestamp | null;
  last_error: string | null;
  done_at: Timestamp | null;
  /** Set with done_at when the effect failed for good (last_error says why). */
  failed_at: Timestamp | null;
}

export interface TimersTable {
  repository_id: Int8;
  key: string;
  due_at: Timestamp;
}

export interface WebhookDeliveriesTable {
  delivery_id: string;
  event: string;
  received_at: Timestamp;
  seq: Generated<string>;
  ordering_key: Generated<string>;
  payload: string | null;
  processed_at: Timestamp | null;
  attempts: Generated<number>;
  available_at: Timestamp | null;
  leased_until: Timestamp | null;
  last_error: string | null;
}
