-- The engine state's per-pull-request parts, a row each (app/store/queue-state-entries.ts): a
-- step rewrites the entries it changed, not the whole state. queue_state.state keeps the rest.
CREATE TABLE queue_state_entries (
  repository_id bigint NOT NULL REFERENCES queue_state (repository_id) ON DELETE CASCADE,
  collection text NOT NULL,
  key text NOT NULL,
  value jsonb NOT NULL,
  -- Insertion order, kept by updates: the state is put back in the order it was built.
  seq bigserial NOT NULL,
  PRIMARY KEY (repository_id, collection, key)
);

INSERT INTO queue_state_entries (repository_id, collection, key, value)
SELECT q.repository_id, c.collection, e.key, e.value
FROM queue_state q
CROSS JOIN (VALUES ('pullRequests'), ('sessions'), ('checkRuns')) AS c (collection)
CROSS JOIN LATERAL jsonb_each(q.state -> c.collection) AS e
WHERE jsonb_typeof(q.state -> c.collection) = 'object';

UPDATE queue_state SET state = state - 'pullRequests' - 'sessions' - 'checkRuns'
WHERE jsonb_typeof(state -> 'pullRequests') = 'object'
  AND jsonb_typeof(state -> 'sessions') = 'object'
  AND coalesce(jsonb_typeof(state -> 'checkRuns'), 'object') = 'object';
