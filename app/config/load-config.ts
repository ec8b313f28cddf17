import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type YAMLError } from 'yaml';
import { type TrainyardConfig, trainyardConfigSchema } from './config.schema.ts';
import { type ConfigError, configErrorMap, formatPath } from './config-error.ts';
import { describeValue } from './describe-value.ts';

/** Where a repository keeps its configuration, read from the default branch. */
export const CONFIG_PATH = '.github/trainyard.yml';

export type ConfigResult = { ok: true; config: TrainyardConfig } | { ok: false; errors: ConfigError[] };

type Located = { line: number; column: number } | Record<string, never>;
type Yaml = ReturnType<typeof parseDocument>;

/**
 * Parses `.github/trainyard.yml`. Never throws: whatever the text, the answer is the normalized
 * configuration or the list of what is wrong, each with its path and, when known, line/column.
 * An empty file (or one with only comments) is the default configuration.
 */
export function parseConfig(yamlText: string): ConfigResult {
  try {
    if (typeof yamlText !== 'string') {
      return failure([
        { path: '', message: `expected the text of the file, found ${describeValue(yamlText)}` },
      ]);
    }
    const lineCounter = new LineCounter();
    const document = parseDocument(yamlText, { lineCounter, prettyErrors: false, merge: true });
    if (document.errors.length > 0) return failure(document.errors.map((e) => syntaxError(e, lineCounter)));
    const value: unknown = document.toJS({ maxAliasCount: 100 });
    return validate(value, (path) => locate(document, path, lineCounter));
  } catch (error) {
    return failure([{ path: '', message: `could not read the file: ${messageOf(error)}` }]);
  }
}

/** Validates an already-decoded configuration (e.g. JSON). Never throws. */
export function parseConfigValue(value: unknown): ConfigResult {
  try {
    return validate(value, () => ({}));
  } catch (error) {
    return failure([{ path: '', message: `could not read the configuration: ${messageOf(error)}` }]);
  }
}

function validate(value: unknown, locateAt: (path: readonly PropertyKey[]) => Located): ConfigResult {
  const parsed = trainyardConfigSchema.safeParse(value ?? {}, { error: configErrorMap });
  if (parsed.success) return { ok: true, config: parsed.data };
  const errors = parsed.error.issues.map((issue) => ({
    path: formatPath(issue.path),
    message: issue.message,
    ...locateAt(issue.path),
  }));
  return failure(errors);
}

function syntaxError(error: YAMLError, lineCounter: LineCounter): ConfigError {
  const { line, col } = lineCounter.linePos(error.pos[0]);
  return { path: '', message: `invalid YAML: ${error.message}`, line, column: col };
}

/** The deepest YAML node on `path`: the value when there is one, else its key. */
function locate(document: Yaml, path: readonly PropertyKey[], lineCounter: LineCounter): Located {
  let node: unknown = document.contents;
  let offset = startOf(node);
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(document);
    if (isMap(node)) {
      const pair = node.items.find((item) => keyText(item.key) === String(segment));
      if (pair === undefined) break;
      node = pair.value;
      offset = startOf(pair.value) ?? startOf(pair.key) ?? offset;
    } else if (isSeq(node) && typeof segment === 'number' && segment < node.items.length) {
      node = node.items[segment];
      offset = startOf(node) ?? offset;
    } else {
      break;
    }
  }
  if (offset === undefined) return {};
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

function keyText(key: unknown): string {
  return isScalar(key) ? String(key.value) : String(key);
}

function startOf(node: unknown): number | undefined {
  if (typeof node !== 'object' || node === null || !('range' in node)) return undefined;
  const range = (node as { range?: [number, number, number] | null }).range;
  return range?.[0];
}

/** Errors in file order, so fixing them top to bottom works (sort is stable). */
function failure(errors: ConfigError[]): ConfigResult {
  const order = (error: ConfigError) => (error.line ?? 0) * 100_000 + (error.column ?? 0);
  return { ok: false, errors: [...errors].sort((a, b) => order(a) - order(b)) };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
