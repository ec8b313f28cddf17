-- The engine state's lanes, a row each keyed by their index (app/store/queue-state-entries.ts):
-- a step rewrites the lanes it changed, not every lane with the rest of the core.
INSERT INTO queue_state_entries (repository_id, collection, key, value)
SELECT q.repository_id, 'lanes', (l.n - 1)::text, l.value
FROM queue_state q
CROSS JOIN LATERAL jsonb_array_elements(q.state -> 'lanes') WITH ORDINALITY AS l (value, n)
WHERE jsonb_typeof(q.state -> 'lanes') = 'array'
ORDER BY q.repository_id, l.n;

UPDATE queue_state SET state = state - 'lanes' WHERE jsonb_typeof(state -> 'lanes') = 'array';
