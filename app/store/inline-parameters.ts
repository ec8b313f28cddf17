/**
 * A compiled statement's text with its parameters written in as SQL literals, for sending
 * several statements in one simple-query message (the extended protocol takes one statement
 * per message, and node-postgres waits for each answer before sending the next: a round trip
 * each). Literals are escaped as libpq escapes them; placeholders inside quoted strings or
 * identifiers of the text are left alone.
 */
export function inlineParameters(text: string, parameters: readonly unknown[]): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      // A quoted literal or identifier: copied as it is (a doubled quote stays inside it).
      let end = i + 1;
      for (;;) {
        end = text.indexOf(c, end);
        if (end === -1) throw new Error('unterminated quote in a statement');
        if (text[end + 1] === c) end += 2;
        else break;
      }
      out += text.slice(i, end + 1);
      i = end + 1;
    } else if (c === '$' && /[0-9]/.test(text[i + 1] ?? '')) {
      let end = i + 1;
      while (end < text.length && /[0-9]/.test(text[end]!)) end++;
      const index = Number(text.slice(i + 1, end)) - 1;
      if (index < 0 || index >= parameters.length)
        throw new Error(`statement parameter $${index + 1} has no value`);
      out += toLiteral(parameters[index]);
      i = end;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** A value as node-postgres would send it (its text form), as a literal. */
function toLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  return escapeLiteral(toText(value));
}

/**
 * libpq's (and pg.escapeLiteral's) rule: quotes doubled, and when there is a backslash, every
 * backslash doubled in an E'' string. With native replaces: pg's loop of one concatenation per
 * character took 1.8 ms for an 84 KB JSON value, these 0.26 ms (a step's state entries and
 * events are such values).
 */
function escapeLiteral(text: string): string {
  const quoted = `'${text.replaceAll("'", "''")}'`;
  return text.includes('\\') ? ` E${quoted.replaceAll('\\', '\\\\')}` : quoted;
}

function toText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`cannot write ${value} as a statement parameter`);
      return String(value);
    case 'bigint':
    case 'boolean':
      return String(value);
    case 'object':
      if (value instanceof Date) return value.toISOString();
      if (Array.isArray(value)) return toArrayText(value);
      return JSON.stringify(value);
    default:
      throw new TypeError(`cannot write a ${typeof value} as a statement parameter`);
  }
}

/** A one-dimensional array literal, every element quoted (NULL for null), as node-postgres writes it. */
function toArrayText(values: readonly unknown[]): string {
  const elements = values.map((v) => {
    if (v === null || v === undefined) return 'NULL';
    if (Array.isArray(v)) throw new TypeError('nested arrays are not supported as statement parameters');
    return `"${toText(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  });
  return `{${elements.join(',')}}`;
}
