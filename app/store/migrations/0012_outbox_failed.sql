-- An effect that failed for good is done (it will not run again) and failed: failed_at says
-- when, last_error why. Before, it was marked done like a success and the error was only logged.
ALTER TABLE outbox ADD COLUMN failed_at timestamptz;
CREATE INDEX outbox_failed ON outbox (repository_id, failed_at DESC) WHERE failed_at IS NOT NULL;
