-- The engine's effects, written in the same transaction as the state that asked for them and
-- run at least once by app/github/outbox-worker.ts. A row is pending until done_at is set;
-- done rows are kept for a while as a record and pruned later.
CREATE TABLE outbox (
  id bigserial PRIMARY KEY,
  repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  key text NOT NULL,
  effect jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  -- Claims so far; also the lease's token: only the claim that holds the current count may
  -- complete or retry the row.
  attempts integer NOT NULL DEFAULT 0,
  -- Not claimed before this (the next attempt after a failure).
  available_at timestamptz NOT NULL,
  leased_until timestamptz,
  last_error text,
  done_at timestamptz
);
-- An effect asked for again while still pending is not run twice.
CREATE UNIQUE INDEX outbox_pending_key ON outbox (repository_id, key) WHERE done_at IS NULL;
-- The claim reads the oldest pending row of each repository.
CREATE INDEX outbox_pending ON outbox (repository_id, id) WHERE done_at IS NULL;
CREATE INDEX outbox_done ON outbox (done_at) WHERE done_at IS NOT NULL;

-- Wake-ups the engine asked for (schedule_wake_up); one row per key, a later one replaces it.
CREATE TABLE timers (
  repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  key text NOT NULL,
  due_at timestamptz NOT NULL,
  PRIMARY KEY (repository_id, key)
);
CREATE INDEX timers_due ON timers (due_at);

-- GitHub delivery ids already handled: a redelivered webhook is acknowledged and ignored.
CREATE TABLE webhook_deliveries (
  delivery_id text PRIMARY KEY,
  event text NOT NULL,
  received_at timestamptz NOT NULL
);
CREATE INDEX webhook_deliveries_received_at ON webhook_deliveries (received_at);
