import type { FastifyRequest } from 'fastify';
import { GithubError } from '../github-error.ts';

/**
 * A request's JSON body read field by field, refusing what GitHub refuses: 422 Validation
 * Failed naming the resource and field.
 */
export class Body {
  private readonly fields: Record<string, unknown>;

  constructor(
    request: FastifyRequest,
    private readonly resource: string,
  ) {
    const body = request.body;
    this.fields =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? (body as Record<string, unknown>)
        : {};
  }

  has(key: string): boolean {
    return this.fields[key] !== undefined && this.fields[key] !== null;
  }

  private invalid(field: string, code: 'missing_field' | 'invalid'): GithubError {
    return GithubError.validation({ resource: this.resource, field, code });
  }

  string(key: string): string {
    const value = this.fields[key];
    if (value === undefined || value === null) throw this.invalid(key, 'missing_field');
    if (typeof value !== 'string') throw this.invalid(key, 'invalid');
    return value;
  }

  optionalString(key: string): string | undefined {
    return this.has(key) ? this.string(key) : undefined;
  }

  /** A nullable string: absent → undefined, null → null. */
  nullableString(key: string): string | null | undefined {
    if (this.fields[key] === null) return null;
    return this.optionalString(key);
  }

  optionalBoolean(key: string): boolean | undefined {
    const value = this.fields[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') throw this.invalid(key, 'invalid');
    return value;
  }

  oneOf<T extends string>(key: string, allowed: readonly T[]): T | undefined {
    const value = this.optionalString(key);
    if (value === undefined) return undefined;
    if (!allowed.includes(value as T)) throw this.invalid(key, 'invalid');
    return value as T;
  }

  stringArray(key: string): string[] {
    const value = this.fields[key];
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw this.invalid(key, 'invalid');
    return value as string[];
  }

  object(key: string): Body | undefined {
    const value = this.fields[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) throw this.invalid(key, 'invalid');
    return new Body({ body: value } as FastifyRequest, this.resource);
  }

  raw(): Record<string, unknown> {
    return this.fields;
  }
}
