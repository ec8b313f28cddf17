import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type OpenApiDocument = {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>
  >;
};

const escapePointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Checks real responses against the OpenAPI document the server publishes: the route is
 * found by its path template, the schema by method and status.
 */
export class OpenApiResponseValidator {
  private readonly ajv: Ajv2020.default;
  private readonly templates: { template: string; pattern: RegExp }[];

  constructor(private readonly document: OpenApiDocument) {
    this.ajv = new Ajv2020.default({ strict: false, allErrors: true, validateFormats: true });
    addFormats.default(this.ajv);
    this.ajv.addSchema(document as object, 'openapi');
    this.templates = Object.keys(document.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
  }

  /** Returns a list of problems; empty when the response matches the document. */
  check(method: string, pathname: string, status: number, body: unknown): string[] {
    const route = this.templates.find((t) => t.pattern.test(pathname));
    if (!route) return [`no path in the OpenAPI document matches ${pathname}`];
    const operation = this.document.paths[route.template]?.[method.toLowerCase()];
    if (!operation) return [`${method} ${route.template} is not in the OpenAPI document`];
    const response = operation.responses?.[String(status)];
    if (!response) return [`status ${status} of ${method} ${route.template} is not in the OpenAPI document`];
    if (!response.content?.['application/json']) {
      return body === undefined || body === '' ? [] : [`status ${status} is documented without a body`];
    }
    const pointer = `openapi#/paths/${escapePointer(route.template)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
    const validate = this.ajv.getSchema(pointer);
    if (!validate) return [`cannot resolve ${pointer}`];
    if (validate(body)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
  }
}
