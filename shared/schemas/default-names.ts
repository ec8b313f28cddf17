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

/**
 * The status resource's `priority_rule_name` of a pull request outside every priority rule:
 * the resource has no null there.
 */
export const DEFAULT_PRIORITY_RULE_NAME = 'default';
