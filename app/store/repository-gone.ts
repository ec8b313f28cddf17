/** PostgreSQL's SQLSTATE for a foreign key violation. */
const FOREIGN_KEY_VIOLATION = '23503';

/**
 * A write for a repository id whose row does not exist (any more): every table that hangs on
 * a repository references repositories(id) as `<table>_repository_id_fkey`. The id came from
 * somewhere that outlived the row (a lookup kept a few seconds, a concurrent removal).
 */
export function isRepositoryGoneError(error: unknown): boolean {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  return (
    code === FOREIGN_KEY_VIOLATION &&
    typeof constraint === 'string' &&
    constraint.endsWith('repository_id_fkey')
  );
}
