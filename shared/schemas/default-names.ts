/*
 * Names that stand for "no rule" wherever Trainyard shows or stores them, defined once. No zod
 * here: the VS Code extension may import this file without bundling a schema library.
 */

/**
 * The partition (scope) of a queue without partition rules: in the engine's sessions, the
 * events' `partition_name`, the status resource's `scope_queues` and the statistics. No
 * partition rule may take it.
 */
export const DEFAULT_PARTITION_NAME = '__default__';

/*
 * "No priority rule" has no name: `priority_rule_name` is null in the status, the events and the
 * statistics' groups. Only a statistics filter, a query string that cannot say null, names it
 * DEFAULT_PARTITION_NAME (the value the statistics projections keep).
 */
