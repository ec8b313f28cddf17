-- time_to_merge (app/stats/time-to-merge.ts) reads every session that left in the 90 days
-- before `at`. The time to merge of a merged session is kept computed next to it rather than
-- computed again for 100k sessions on each read.
ALTER TABLE stats_sessions ADD COLUMN merge_seconds double precision GENERATED ALWAYS AS (
  CASE WHEN merged AND left_at IS NOT NULL THEN greatest(0,
    date_part('epoch', left_at - coalesce(queued_at, left_at))
      - coalesce(seconds_freeze, 0) - coalesce(seconds_schedule, 0))
  END) STORED;
