/*
 * The projection's rows are derived and written with the events, by the store
 * (app/store/projection/). This file only passes DEFAULT_KEY on to app/api/routes/stats.route.ts,
 * which imports it from here; it can go once that route imports it from
 * app/store/projection/projection-rows.ts (or DEFAULT_PARTITION_NAME from shared/schemas/default-names.ts).
 */
export { DEFAULT_KEY } from '../store/projection/projection-rows.ts';
