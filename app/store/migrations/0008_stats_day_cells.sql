-- Day cells (app/stats/day-cells.ts): per repository, UTC day and group keys, partial
-- aggregates of the projection rows of that day, so that statistics with buckets of a day or
-- more (periods over 7 days) read a few cells per group and day instead of every row.
-- Maintained on append with the other projections; filled below from the rows already
-- projected, as day-cells.ts computes them (test/stats/stats-day-cells.property.int.test.ts
-- runs these statements and compares). Durations are in microseconds. Like the other
-- projections since 0009, the cells go with their repository through a trigger, not a
-- foreign key.

CREATE TABLE stats_enter_days (
  repository_id bigint NOT NULL,
  day timestamptz NOT NULL,
  base_ref text NOT NULL,
  partition_name text NOT NULL,
  queue_name text NOT NULL,
  priority_rule_name text NOT NULL,
  n integer NOT NULL,
  PRIMARY KEY (repository_id, day, base_ref, partition_name, queue_name, priority_rule_name)
);

CREATE TABLE stats_merge_days (
  repository_id bigint NOT NULL,
  day timestamptz NOT NULL,
  base_ref text NOT NULL,
  partition_names text[] NOT NULL,
  queue_name text NOT NULL,
  priority_rule_name text NOT NULL,
  n integer NOT NULL,
  PRIMARY KEY (repository_id, day, base_ref, partition_names, queue_name, priority_rule_name)
);

-- runtime_n, runtime_us: the checks_end events that carry a runtime, and its sum.
CREATE TABLE stats_check_days (
  repository_id bigint NOT NULL,
  day timestamptz NOT NULL,
  base_ref text NOT NULL,
  partition_name text NOT NULL,
  queue_name text NOT NULL,
  priority_rule_name text NOT NULL,
  outcome text NOT NULL,
  n integer NOT NULL,
  runtime_n integer NOT NULL,
  runtime_us bigint NOT NULL,
  PRIMARY KEY (repository_id, day, base_ref, partition_name, queue_name, priority_rule_name, outcome)
);

CREATE TABLE stats_batch_days (
  repository_id bigint NOT NULL,
  day timestamptz NOT NULL,
  base_ref text NOT NULL,
  partition_name text NOT NULL,
  queue_name text NOT NULL,
  priority_rule_name text NOT NULL,
  n integer NOT NULL,
  size_sum bigint NOT NULL,
  size_max integer NOT NULL,
  size_min integer NOT NULL,
  PRIMARY KEY (repository_id, day, base_ref, partition_name, queue_name, priority_rule_name)
);

-- Sessions that left, by the day of their leave and their exit code ('' when the leave
-- reason has no known code). Retry figures count sessions with retries only (depth: their
-- highest retry attempt).
CREATE TABLE stats_session_days (
  repository_id bigint NOT NULL,
  day timestamptz NOT NULL,
  base_ref text NOT NULL,
  partition_name text NOT NULL,
  queue_name text NOT NULL,
  priority_rule_name text NOT NULL,
  exit_code text NOT NULL,
  n integer NOT NULL,
  capacity_us bigint NOT NULL,
  schedule_s bigint NOT NULL,
  freeze_s bigint NOT NULL,
  queue_us bigint NOT NULL,
  queue_us_max bigint NOT NULL,
  queue_us_min bigint NOT NULL,
  retries bigint NOT NULL,
  with_retries integer NOT NULL,
  recovered integer NOT NULL,
  not_recovered integer NOT NULL,
  depth_sum bigint NOT NULL,
  depth_max integer NOT NULL,
  PRIMARY KEY (repository_id, day, base_ref, partition_name, queue_name, priority_rule_name, exit_code)
);

INSERT INTO stats_enter_days
SELECT r.repository_id, date_bin('1 day'::interval, r.at, 'epoch'::timestamptz), r.base_ref, r.partition_name,
  r.queue_name, r.priority_rule_name, count(*)::integer
FROM stats_enters r GROUP BY 1, 2, 3, 4, 5, 6;

INSERT INTO stats_merge_days
SELECT r.repository_id, date_bin('1 day'::interval, r.at, 'epoch'::timestamptz), r.base_ref, r.partition_names,
  r.queue_name, r.priority_rule_name, count(*)::integer
FROM stats_merges r GROUP BY 1, 2, 3, 4, 5, 6;

INSERT INTO stats_check_days
SELECT r.repository_id, date_bin('1 day'::interval, r.at, 'epoch'::timestamptz), r.base_ref, r.partition_name,
  r.queue_name, r.priority_rule_name, r.outcome, count(*)::integer,
  sum(CASE WHEN r.runtime IS NULL THEN 0 ELSE 1 END)::integer,
  sum(coalesce(round(r.runtime * 1e6::float8)::int8, 0))::bigint
FROM stats_checks r GROUP BY 1, 2, 3, 4, 5, 6, 7;

INSERT INTO stats_batch_days
SELECT r.repository_id, date_bin('1 day'::interval, r.at, 'epoch'::timestamptz), r.base_ref, r.partition_name,
  r.queue_name, r.priority_rule_name, count(*)::integer, sum(r.size)::bigint, max(r.size), min(r.size)
FROM stats_batches r GROUP BY 1, 2, 3, 4, 5, 6;

INSERT INTO stats_session_days
SELECT repository_id, day, base_ref, partition_name, queue_name, priority_rule_name, exit_code,
  count(*)::integer, sum(capacity_us)::bigint, sum(schedule_s)::bigint, sum(freeze_s)::bigint,
  sum(queue_us)::bigint, max(queue_us), min(queue_us), sum(retries)::bigint, sum(with_retries)::integer,
  sum(recovered)::integer, sum(not_recovered)::integer, sum(depth)::bigint, max(depth)::integer
FROM (
  SELECT r.repository_id, date_bin('1 day'::interval, r.left_at, 'epoch'::timestamptz) AS day, r.base_ref,
    r.partition_name, r.queue_name, r.priority_rule_name, coalesce(r.exit_code, '') AS exit_code,
    greatest(0, round(date_part('epoch', least(coalesce(r.first_checks_at, r.left_at), r.left_at)
      - coalesce(r.queued_at, r.left_at)) * 1e6::float8)::int8) AS capacity_us,
    coalesce(r.seconds_schedule, 0) AS schedule_s,
    coalesce(r.seconds_freeze, 0) AS freeze_s,
    greatest(0, round(date_part('epoch', r.left_at - coalesce(r.queued_at, r.left_at)) * 1e6::float8)::int8)
      AS queue_us,
    r.retries,
    CASE WHEN r.retries > 0 THEN 1 ELSE 0 END AS with_retries,
    CASE WHEN r.retries > 0 AND r.last_checks_outcome = 'SUCCESS' THEN 1 ELSE 0 END AS recovered,
    CASE WHEN r.retries > 0 AND r.last_checks_outcome IN ('CHECKS_FAILED', 'CHECKS_TIMEOUT') THEN 1 ELSE 0 END
      AS not_recovered,
    CASE WHEN r.retries > 0 THEN r.max_retry_attempt ELSE 0 END AS depth
  FROM stats_sessions r
  WHERE r.left_at IS NOT NULL
) s
GROUP BY 1, 2, 3, 4, 5, 6, 7;
