-- Repositories known to this installation (created by installation webhooks, the CLI or imports).
CREATE TABLE repositories (
  id bigserial PRIMARY KEY,
  owner text NOT NULL,
  name text NOT NULL,
  github_id bigint UNIQUE,
  installation_id bigint,
  default_branch text NOT NULL DEFAULT 'main',
  created_at timestamptz NOT NULL DEFAULT now()
);
-- GitHub names are case-insensitive.
CREATE UNIQUE INDEX repositories_owner_name ON repositories (lower(owner), lower(name));

-- The event log: the engine's audit trail and the only source of statistics.
CREATE TABLE events (
  id bigserial PRIMARY KEY,
  repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  type text NOT NULL,
  received_at timestamptz NOT NULL,
  trigger text NOT NULL,
  pull_request integer,
  base_ref text,
  metadata jsonb NOT NULL
);
-- Keyset order of the log (plain DESC: older pages read it forwards, newer ones backwards), with and without the common filters.
CREATE INDEX events_log ON events (repository_id, id DESC);
CREATE INDEX events_log_type ON events (repository_id, type, id DESC);
CREATE INDEX events_log_pull_request ON events (repository_id, pull_request, id DESC) WHERE pull_request IS NOT NULL;
CREATE INDEX events_received_at ON events (repository_id, received_at);

-- The pause record of a repository's queue; a row exists only while paused.
CREATE TABLE pauses (
  repository_id bigint PRIMARY KEY REFERENCES repositories (id) ON DELETE CASCADE,
  reason text NOT NULL,
  paused_at timestamptz NOT NULL,
  paused_by jsonb NOT NULL,
  updated_at timestamptz NOT NULL
);

-- Application keys: only a hash of the secret is kept.
CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  owner text NOT NULL,
  repository text,
  role text NOT NULL CHECK (role IN ('read', 'admin')),
  key_hash text NOT NULL UNIQUE,
  key_hint text NOT NULL,
  created_at timestamptz NOT NULL,
  revoked_at timestamptz,
  last_used_at timestamptz
);

-- Engine state per repository, saved in the same transaction as the events it produced.
CREATE TABLE queue_state (
  repository_id bigint PRIMARY KEY REFERENCES repositories (id) ON DELETE CASCADE,
  state jsonb NOT NULL,
  version bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL
);
