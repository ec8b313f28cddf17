-- Statistics projections (app/stats/): typed rows derived from the event log when events are
-- appended (app/stats/projection.ts), in the same transaction, and rebuildable from the events
-- alone (`trainyard stats rebuild`). Group keys are never null: a missing partition or
-- priority rule is stored as `__default__`, a missing base ref as ''.

-- One row per action.queue.enter.
CREATE TABLE stats_enters (
  repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  at timestamptz NOT NULL,
  base_ref text NOT NULL,
  partition_name text NOT NULL,
  queue_name text NOT NULL,
  priority_rule_name text NOT NULL
);
CREATE INDEX stats_enters_at ON stats_enters (repository_id, at);

-- One row per action.queue.merged.
CREATE TABLE stats_merges (
  repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  at timestamptz NOT NULL,
  base_ref text NOT NULL,
  partition_names text[] NOT NULL,
  queue_name text NOT NULL,
  priority_rule_name text NOT NULL
);
CREATE INDEX stats_merges_at ON stats_merges (repository_id, at);

-- One row per action.queue.checks_end. outcome: SUCCESS or an abort code.
CREATE TABLE stats_checks (
  repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  at timestamptz NOT NULL,
  base_ref text NOT NULL,
  partition_name text NOT NULL,
  queue_name text NOT NULL,
  priority_rule_name text NOT NULL,
  outcome text NOT NULL,
  runtime double precision
);
CREATE INDEX stats_checks_at ON stats_checks (repository_id, at);

-- One row per checks run of a batch (the checks_start events of one batch at one instant).
CREATE TABLE stats_batches (
  repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  at timestamptz NOT NULL,
  run_key text NOT NULL,
  base_ref text NOT NULL,
  partition_name text NOT NULL,
  queue_name text NOT NULL,
  priority_rule_name text NOT NULL,
  size integer NOT NULL
);
CREATE UNIQUE INDEX stats_batches_run ON stats_batches (repository_id, run_key);
CREATE INDEX stats_batches_at ON stats_batches (repository_id, at);

-- One row per batch_bisection_start (kind 's') or batch_bisection_end (kind 'e').
CREATE TABLE stats_bisections (
  repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  at timestamptz NOT NULL,
  kind "char" NOT NULL,
  base_ref text NOT NULL,
  partition_name text NOT NULL,
  queue_name text NOT NULL,
  priority_rule_name text NOT NULL,
  depth integer,
  size_before_split integer,
  culprit_found boolean,
  max_failure_reached boolean
);
CREATE INDEX stats_bisections_at ON stats_bisections (repository_id, at);

-- One row per gauge reading: action.queue.change (kind 'q', size) and
-- action.queue.checks.change (kind 'r', running checks; priority_rule_name '').
CREATE TABLE stats_gauges (
  repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  event_id bigint NOT NULL,
  at timestamptz NOT NULL,
  kind "char" NOT NULL,
  base_ref text NOT NULL,
  partition_name text NOT NULL,
  queue_name text NOT NULL,
  priority_rule_name text NOT NULL,
  value integer NOT NULL
);
CREATE INDEX stats_gauges_at ON stats_gauges (repository_id, kind, at);
CREATE INDEX stats_gauges_key ON stats_gauges
  (repository_id, kind, base_ref, partition_name, queue_name, priority_rule_name, at DESC, event_id DESC);

-- One row per queue session (enter … leave), updated as its events arrive. Keys come from
-- the leave once it is known (from the enter before). session_key is the session id, or
-- 'event:<id>' for a leave without one.
CREATE TABLE stats_sessions (
  repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  session_key text NOT NULL,
  base_ref text,
  partition_name text,
  queue_name text,
  priority_rule_name text,
  queued_at timestamptz,
  first_checks_at timestamptz,
  left_at timestamptz,
  merged boolean,
  exit_code text,
  seconds_freeze integer,
  seconds_schedule integer,
  retries integer NOT NULL DEFAULT 0,
  max_retry_attempt integer NOT NULL DEFAULT 0,
  last_checks_outcome text,
  PRIMARY KEY (repository_id, session_key)
);
CREATE INDEX stats_sessions_left ON stats_sessions (repository_id, left_at) WHERE left_at IS NOT NULL;

-- The gauge groups seen so far, to find the value in force at a period's start per group.
CREATE TABLE stats_gauge_keys (
  repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  kind "char" NOT NULL,
  base_ref text NOT NULL,
  partition_name text NOT NULL,
  queue_name text NOT NULL,
  priority_rule_name text NOT NULL,
  PRIMARY KEY (repository_id, kind, base_ref, partition_name, queue_name, priority_rule_name)
);
