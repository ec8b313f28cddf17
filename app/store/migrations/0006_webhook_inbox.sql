-- Deliveries become an inbox: a signed delivery is stored and acknowledged at once, then
-- processed (facts fetched from GitHub, the engine stepped) by app/github/inbox/delivery-processor.ts,
-- one at a time per repository in arrival order, retried after a failure, claimed with leases
-- so several instances share the work. A delivery id seen before is a redelivery: ignored.
ALTER TABLE webhook_deliveries
  ADD COLUMN seq bigserial,
  -- Deliveries with the same key are processed in order (a repository, or an installation).
  ADD COLUMN ordering_key text NOT NULL DEFAULT '',
  -- The raw JSON body; cleared once processed.
  ADD COLUMN payload text,
  ADD COLUMN processed_at timestamptz,
  ADD COLUMN attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN available_at timestamptz,
  ADD COLUMN leased_until timestamptz,
  ADD COLUMN last_error text;
UPDATE webhook_deliveries SET processed_at = received_at;
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (ordering_key, seq) WHERE processed_at IS NULL;
