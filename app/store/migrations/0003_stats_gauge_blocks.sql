-- Gauge blocks (app/stats/gauge-blocks.ts): per gauge series (kind + group keys) and per
-- epoch-aligned hour and day, a summary of the readings in that block alone, so that
-- queue_size and running_speculative_checks read a few rows per series and bucket instead of
-- every reading. Maintained on append with the other projections; 0004 fills it from the
-- readings already projected.
CREATE TABLE stats_gauge_blocks (
  repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  kind "char" NOT NULL,
  width integer NOT NULL,
  block_start timestamptz NOT NULL,
  base_ref text NOT NULL,
  partition_name text NOT NULL,
  queue_name text NOT NULL,
  priority_rule_name text NOT NULL,
  first_at timestamptz NOT NULL,
  last_at timestamptz NOT NULL,
  -- ∫ value dt from the first reading to the last, in value · milliseconds.
  area_to_last bigint NOT NULL,
  max_value integer NOT NULL,
  min_value integer NOT NULL,
  last_value integer NOT NULL,
  PRIMARY KEY (repository_id, kind, width, block_start, base_ref, partition_name, queue_name, priority_rule_name)
);

-- Readings are now read per series (stats_gauges_key); the time index only cost writes.
DROP INDEX stats_gauges_at;
