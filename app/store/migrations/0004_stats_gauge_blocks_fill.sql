-- Fills stats_gauge_blocks (0003) from the gauge readings already projected, as
-- app/stats/gauge-blocks.ts computes them on append (test/stats/stats-reference.property.int.test.ts
-- runs this statement and compares).
INSERT INTO stats_gauge_blocks (repository_id, kind, width, block_start, base_ref, partition_name, queue_name,
  priority_rule_name, first_at, last_at, area_to_last, max_value, min_value, last_value)
SELECT repository_id, kind, width, block_start, base_ref, partition_name, queue_name, priority_rule_name,
  min(at), max(at),
  coalesce(sum(value::int8 * round((extract(epoch FROM next_at) - extract(epoch FROM at)) * 1000)::int8), 0),
  max(value), min(value),
  (array_agg(value ORDER BY at DESC, event_id DESC))[1]
FROM (
  SELECT r.*, lead(at) OVER (
      PARTITION BY repository_id, kind, width, block_start, base_ref, partition_name, queue_name, priority_rule_name
      ORDER BY at, event_id) AS next_at
  FROM (
    SELECT g.repository_id, g.kind, w.width,
      to_timestamp(floor(extract(epoch FROM g.at) / w.width) * w.width) AS block_start,
      g.base_ref, g.partition_name, g.queue_name, g.priority_rule_name, g.at, g.event_id, g.value
    FROM stats_gauges g CROSS JOIN (VALUES (3600), (86400)) AS w(width)
  ) r
) s
GROUP BY repository_id, kind, width, block_start, base_ref, partition_name, queue_name, priority_rule_name;
