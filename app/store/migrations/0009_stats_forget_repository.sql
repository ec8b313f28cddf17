-- The statistics projections are derived from the events alone: their rows need no check
-- that the repository exists, which a foreign key made for every row appended (decision
-- 0006). What the foreign keys' ON DELETE CASCADE did, a trigger does: deleting a repository
-- deletes its projections.
ALTER TABLE stats_enters DROP CONSTRAINT stats_enters_repository_id_fkey;
ALTER TABLE stats_merges DROP CONSTRAINT stats_merges_repository_id_fkey;
ALTER TABLE stats_checks DROP CONSTRAINT stats_checks_repository_id_fkey;
ALTER TABLE stats_batches DROP CONSTRAINT stats_batches_repository_id_fkey;
ALTER TABLE stats_bisections DROP CONSTRAINT stats_bisections_repository_id_fkey;
ALTER TABLE stats_gauges DROP CONSTRAINT stats_gauges_repository_id_fkey;
ALTER TABLE stats_sessions DROP CONSTRAINT stats_sessions_repository_id_fkey;
ALTER TABLE stats_gauge_keys DROP CONSTRAINT stats_gauge_keys_repository_id_fkey;
ALTER TABLE stats_gauge_blocks DROP CONSTRAINT stats_gauge_blocks_repository_id_fkey;

-- Every table of app/stats/projection.ts STATS_PROJECTION_TABLES.
CREATE FUNCTION stats_forget_repository() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM stats_enters WHERE repository_id = OLD.id;
  DELETE FROM stats_merges WHERE repository_id = OLD.id;
  DELETE FROM stats_checks WHERE repository_id = OLD.id;
  DELETE FROM stats_batches WHERE repository_id = OLD.id;
  DELETE FROM stats_bisections WHERE repository_id = OLD.id;
  DELETE FROM stats_gauges WHERE repository_id = OLD.id;
  DELETE FROM stats_gauge_keys WHERE repository_id = OLD.id;
  DELETE FROM stats_gauge_blocks WHERE repository_id = OLD.id;
  DELETE FROM stats_sessions WHERE repository_id = OLD.id;
  DELETE FROM stats_enter_days WHERE repository_id = OLD.id;
  DELETE FROM stats_merge_days WHERE repository_id = OLD.id;
  DELETE FROM stats_check_days WHERE repository_id = OLD.id;
  DELETE FROM stats_batch_days WHERE repository_id = OLD.id;
  DELETE FROM stats_session_days WHERE repository_id = OLD.id;
  RETURN OLD;
END
$$;

CREATE TRIGGER repositories_forget_stats AFTER DELETE ON repositories
  FOR EACH ROW EXECUTE FUNCTION stats_forget_repository();
