import AjvDraft07 from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = Record<string, unknown>;

interface Operation {
  operationId?: string;
  parameters?: Json[];
  requestBody?: Json;
  responses?: Record<string, Json>;
}

type OpenApiDocument = {
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, unknown>;
};

/** The operation a request is for, found by method and path. */
export interface OperationMatch {
  /** `GET /repos/{owner}/{repo}/pulls/{pull_number}` */
  key: string;
  operationId: string;
  template: string;
  method: string;
  /** The path parameters' values, decoded. */
  pathParams: Record<string, string>;
}

/** What checking one request or response found: the operation (when one matched) and the problems. */
export interface CheckResult {
  operation: OperationMatch | null;
  problems: string[];
}

const escapePointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

interface Template {
  template: string;
  pattern: RegExp;
  names: string[];
  /** Literal segments: `/pulls/comments` beats `/pulls/{pull_number}`. */
  literals: number;
}

/**
 * An OpenAPI description (3.0 with `nullable`, or 3.1) that checks requests and responses: the
 * operation found by method and path template (the most literal template wins), path and query
 * parameters and the JSON body against their schemas, a response against the schema of its
 * status. Schemas are compiled on first use, each once.
 */
export class OpenApiDescription {
  private readonly ajv: AjvDraft07.default | Ajv2020.default;
  private readonly templates: Template[];
  private readonly compiled = new Map<string, ReturnType<AjvDraft07.default['compile']> | undefined>();

  constructor(
    private readonly document: OpenApiDocument,
    options: {
      dialect?: 'draft-07' | '2020-12';
      formats?: Record<string, RegExp>;
      /** Path parameters whose value may span segments (GitHub's `ref` and `path`). */
      multiSegment?: readonly string[];
    } = {},
  ) {
    const multiSegment = new Set(options.multiSegment ?? []);
    const ajvOptions = { strict: false, allErrors: true, validateFormats: true, logger: false } as const;
    this.ajv =
      options.dialect === 'draft-07' ? new AjvDraft07.default(ajvOptions) : new Ajv2020.default(ajvOptions);
    addFormats.default(this.ajv as Ajv2020.default);
    for (const [name, pattern] of Object.entries(options.formats ?? {})) this.ajv.addFormat(name, pattern);
    this.ajv.addSchema(document as object, 'openapi');
    this.templates = Object.keys(document.paths)
      .map((template) => {
        const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
        const pattern = new RegExp(
          `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_m, name: string) => (multiSegment.has(name) ? '(.*)' : '([^/]+)'))}$`,
        );
        const literals = template.split('/').filter((s) => s !== '' && !s.startsWith('{')).length;
        return { template, pattern, names, literals };
      })
      .sort((a, b) => b.literals - a.literals || a.names.length - b.names.length);
  }

  /** The operation for `method pathname`, or a problem saying why there is none. */
  findOperation(method: string, pathname: string): { match: OperationMatch | null; problem: string | null } {
    const lower = method.toLowerCase();
    const matching = this.templates.filter((t) => t.pattern.test(pathname));
    if (matching.length === 0)
      return { match: null, problem: `no path in the description matches ${pathname}` };
    for (const t of matching) {
      const operation = this.document.paths[t.template]?.[lower] as Operation | undefined;
      if (operation === undefined) continue;
      const values = t.pattern.exec(pathname)!.slice(1);
      const pathParams: Record<string, string> = {};
      t.names.forEach((name, i) => {
        pathParams[name] = decodeURIComponent(values[i]!);
      });
      const key = `${method.toUpperCase()} ${t.template}`;
      return {
        match: {
          key,
          operationId: operation.operationId ?? key,
          template: t.template,
          method: lower,
          pathParams,
        },
        problem: null,
      };
    }
    return {
      match: null,
      problem: `${method.toUpperCase()} ${matching[0]!.template} is not in the description`,
    };
  }

  /** Method, path, path parameters, query parameters and JSON body of a request. */
  checkRequest(method: string, pathname: string, query: URLSearchParams, body: unknown): CheckResult {
    const { match, problem } = this.findOperation(method, pathname);
    if (match === null) return { operation: null, problems: [problem!] };
    const problems: string[] = [];
    const opPointer = this.operationPointer(match);
    const operation = this.operation(match);
    const pathLevel = (this.document.paths[match.template]?.['parameters'] as Json[] | undefined) ?? [];
    const parameters = [
      ...pathLevel.map((p, i) => this.resolve(p, `${this.pathPointer(match)}/parameters/${i}`)),
      ...(operation.parameters ?? []).map((p, i) => this.resolve(p, `${opPointer}/parameters/${i}`)),
    ];
    const seen = new Set<string>();
    for (const { value: param, pointer } of parameters) {
      const name = String(param['name']);
      const where = param['in'];
      const schemaPointer = `${pointer}/schema`;
      if (where === 'path') {
        problems.push(...this.checkValue(schemaPointer, match.pathParams[name], `path parameter ${name}`));
      } else if (where === 'query') {
        seen.add(name);
        const values = query.getAll(name);
        if (values.length === 0) {
          if (param['required'] === true) problems.push(`query parameter ${name} is required`);
          continue;
        }
        const schema = param['schema'] as Json | undefined;
        const isArray = schema?.['type'] === 'array';
        if (!isArray && values.length > 1)
          problems.push(`query parameter ${name} is given ${values.length} times`);
        problems.push(
          ...(isArray
            ? this.checkValue(
                schemaPointer,
                values.flatMap((v) => v.split(',')),
                `query parameter ${name}`,
                true,
              )
            : this.checkValue(schemaPointer, values[0], `query parameter ${name}`)),
        );
      }
    }
    for (const name of new Set(query.keys()))
      if (!seen.has(name)) problems.push(`query parameter ${name} is not in the description`);
    problems.push(...this.checkRequestBody(match, body));
    return { operation: match, problems };
  }

  /** A response's status and body against the operation's documented responses. */
  checkResponse(method: string, pathname: string, status: number, body: unknown): CheckResult {
    const { match, problem } = this.findOperation(method, pathname);
    if (match === null) return { operation: null, problems: [problem!] };
    return { operation: match, problems: this.checkResponseOf(match, status, body) };
  }

  /** The body against the documented response of `status` for an operation already found. */
  checkResponseOf(match: OperationMatch, status: number, body: unknown): string[] {
    const operation = this.operation(match);
    const raw = operation.responses?.[String(status)];
    if (raw === undefined) return [`status ${status} of ${match.key} is not in the description`];
    const { value: response, pointer } = this.resolve(
      raw,
      `${this.operationPointer(match)}/responses/${status}`,
    );
    const content = response['content'] as Record<string, unknown> | undefined;
    const mediaType = content === undefined ? undefined : Object.keys(content).find((t) => /json/.test(t));
    if (mediaType === undefined) {
      if (body === undefined || body === '' || body === null) return [];
      return [`status ${status} of ${match.key} is documented without a body`];
    }
    return this.checkValue(`${pointer}/content/${escapePointer(mediaType)}/schema`, body, 'body');
  }

  /** Checks `value` against the schema at a JSON pointer into the document. */
  checkAt(pointer: string, value: unknown, what: string): string[] {
    return this.checkValue(pointer, value, what);
  }

  private checkRequestBody(match: OperationMatch, body: unknown): string[] {
    const operation = this.operation(match);
    const present = body !== undefined && body !== null && body !== '';
    if (operation.requestBody === undefined) return present ? [`${match.key} takes no request body`] : [];
    const { value: requestBody, pointer } = this.resolve(
      operation.requestBody,
      `${this.operationPointer(match)}/requestBody`,
    );
    if (!present) return requestBody['required'] === true ? [`${match.key} requires a body`] : [];
    const content = requestBody['content'] as Record<string, unknown> | undefined;
    const mediaType = content === undefined ? undefined : Object.keys(content).find((t) => /json/.test(t));
    if (mediaType === undefined) return [`${match.key} documents no JSON body`];
    return this.checkValue(`${pointer}/content/${escapePointer(mediaType)}/schema`, body, 'request body');
  }

  /**
   * A value against a schema; `fromText` path and query values (always text) are first read as
   * the number or boolean their schema asks for.
   */
  private checkValue(
    pointer: string,
    value: unknown,
    what: string,
    fromText = typeof value === 'string',
  ): string[] {
    const validate = this.validator(pointer);
    if (validate === undefined) return [];
    const schema = validate.schema as Json;
    const candidate = fromText ? coerce(value, schema) : value;
    if (validate(candidate)) return [];
    return (validate.errors ?? [])
      .slice(0, 8)
      .map(
        (e) =>
          `${what}${e.instancePath || ''} ${e.message ?? ''}${e.params && 'allowedValues' in e.params ? ` (${(e.params.allowedValues as unknown[]).join(', ')})` : ''}`,
      );
  }

  private validator(pointer: string) {
    if (!this.compiled.has(pointer)) {
      const schema = this.pointee(pointer);
      this.compiled.set(pointer, schema === undefined ? undefined : this.ajv.getSchema(`openapi#${pointer}`));
    }
    return this.compiled.get(pointer);
  }

  private operation(match: OperationMatch): Operation {
    return this.document.paths[match.template]![match.method] as Operation;
  }

  private pathPointer(match: OperationMatch): string {
    return `/paths/${escapePointer(match.template)}`;
  }

  private operationPointer(match: OperationMatch): string {
    return `${this.pathPointer(match)}/${match.method}`;
  }

  /** Follows `$ref`s to the document's components; returns the value and its pointer. */
  private resolve(value: Json, pointer: string): { value: Json; pointer: string } {
    let current = value;
    let at = pointer;
    for (let hops = 0; typeof current['$ref'] === 'string' && hops < 8; hops++) {
      at = (current['$ref'] as string).replace(/^#/, '');
      current = this.pointee(at) as Json;
    }
    return { value: current, pointer: at };
  }

  private pointee(pointer: string): unknown {
    let node: unknown = this.document;
    for (const raw of pointer.split('/').slice(1)) {
      const part = raw.replaceAll('~1', '/').replaceAll('~0', '~');
      if (typeof node !== 'object' || node === null) return undefined;
      node = (node as Json)[part];
    }
    return node;
  }
}

/** A path or query value read as its schema's type. */
function coerce(value: unknown, schema: Json): unknown {
  if (Array.isArray(value)) {
    const items = (schema['items'] as Json | undefined) ?? {};
    return value.map((v) => coerce(v, items));
  }
  if (typeof value !== 'string') return value;
  const types = ([] as unknown[]).concat(schema['type'] ?? []);
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(value))
    return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/**
 * Checks real responses against the OpenAPI document the server publishes: the route is
 * found by its path template, the schema by method and status.
 */
export class OpenApiResponseValidator {
  private readonly description: OpenApiDescription;

  constructor(document: OpenApiDocument) {
    this.description = new OpenApiDescription(document, { dialect: '2020-12' });
  }

  /** Returns a list of problems; empty when the response matches the document. */
  check(method: string, pathname: string, status: number, body: unknown): string[] {
    return this.description.checkResponse(method, pathname, status, body).problems;
  }
}
