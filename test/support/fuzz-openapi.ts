/*
 * The operations of the served OpenAPI document, reduced to what the fuzzer needs: method,
 * path template, each parameter's place and kind, and the JSON body's schema.
 */

// biome-ignore lint/suspicious/noExplicitAny: the document is walked by key, as a client reads it
type Json = any;

export type ParameterKind =
  | { kind: 'date' }
  | { kind: 'integer'; min: number; max: number }
  | { kind: 'enum'; values: string[] }
  | { kind: 'string'; minLength: number; maxLength: number }
  | { kind: 'array'; item: ParameterKind };

export interface FuzzParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  type: ParameterKind;
}

export interface FuzzBody {
  required: boolean;
  /** Object properties: name → kind, and which are required. */
  properties: Record<string, ParameterKind>;
  requiredProperties: string[];
}

export interface FuzzOperation {
  /** `GET /v1/repos/{owner}/{repository}/logs`: how reports name it. */
  id: string;
  method: string;
  path: string;
  parameters: FuzzParameter[];
  body: FuzzBody | null;
}

/** The kind of a parameter from its JSON schema (anything unknown is fuzzed as a string). */
export function kindOf(schema: Json): ParameterKind {
  if (!schema || typeof schema !== 'object') return { kind: 'string', minLength: 0, maxLength: 255 };
  const variants: Json[] = schema.anyOf ?? schema.oneOf ?? [];
  if (
    variants.some((v) => v?.format === 'date-time' || v?.format === 'date') ||
    schema.format === 'date-time'
  ) {
    return { kind: 'date' };
  }
  if (Array.isArray(schema.enum)) return { kind: 'enum', values: schema.enum.map(String) };
  if (schema.type === 'array') return { kind: 'array', item: kindOf(schema.items) };
  if (schema.type === 'integer' || schema.type === 'number') {
    const min =
      schema.minimum ?? (schema.exclusiveMinimum === undefined ? -(2 ** 31) : schema.exclusiveMinimum + 1);
    const max =
      schema.maximum ?? (schema.exclusiveMaximum === undefined ? 2 ** 31 - 1 : schema.exclusiveMaximum - 1);
    return { kind: 'integer', min, max };
  }
  return { kind: 'string', minLength: schema.minLength ?? 0, maxLength: schema.maxLength ?? 255 };
}

function bodyOf(operation: Json): FuzzBody | null {
  const requestBody = operation.requestBody;
  const schema = requestBody?.content?.['application/json']?.schema;
  if (!schema) return null;
  const properties: Record<string, ParameterKind> = {};
  for (const [name, property] of Object.entries<Json>(schema.properties ?? {}))
    properties[name] = kindOf(property);
  return { required: requestBody.required === true, properties, requiredProperties: schema.required ?? [] };
}

/** Every path and method of the document, hidden ones excepted (they are not in it). */
export function operationsOf(doc: Json): FuzzOperation[] {
  const operations: FuzzOperation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      if (!['get', 'put', 'post', 'patch', 'delete'].includes(method)) continue;
      const parameters: FuzzParameter[] = (operation.parameters ?? []).map((p: Json) => ({
        name: p.name,
        in: p.in,
        required: p.required === true,
        type: kindOf(p.schema),
      }));
      operations.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        parameters,
        body: bodyOf(operation),
      });
    }
  }
  return operations;
}
