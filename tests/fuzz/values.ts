/**
 * The fuzzer's building blocks: hostile strings and numbers, deep and odd JSON, abstract ids and
 * the JSON / GraphQL printers that turn generated values into request text.
 *
 * Generated values stay abstract where the run decides the concrete value: an `IdRef` names "an id
 * of model M from pool P" and is resolved against the live fixtures when the request is sent, a
 * `Raw` is JSON/GraphQL text emitted as is (numbers JSON cannot express, duplicate keys, depth).
 */
import fc from 'fast-check';

/** "an id of `model` from `pool`", resolved when the request is built (`index` picks one of the pool). */
export class IdRef {
  constructor(
    readonly pool: 'own' | 'foreign' | 'other-model' | 'random' | 'garbage' | 'upper' | 'dbid' | 'view' | 'refresh',
    readonly model: string | null,
    readonly index: number,
    readonly garbage = '',
  ) {}
  toJSON(): string {
    return `<${this.pool}:${this.model ?? '*'}#${this.index}${this.garbage ? `:${this.garbage}` : ''}>`;
  }
}

/** Text emitted verbatim into a JSON body or a GraphQL document. */
export class Raw {
  constructor(readonly text: string) {}
  toJSON(): string {
    return `<raw ${this.text.length > 60 ? `${this.text.slice(0, 60)}… (${this.text.length} chars)` : this.text}>`;
  }
}

/** A string made of parts resolved when the request is built (e.g. an OAuth state naming a real connector). */
export class Joined {
  constructor(readonly parts: Value[]) {}
  toJSON(): unknown {
    return { joined: this.parts };
  }
}

export type Value = null | boolean | number | string | IdRef | Raw | Joined | Value[] | { [k: string]: Value };

/**
 * true with probability `p` (fast-check's numbers lean towards their bounds, so a double compared
 * with a threshold would not give `p`).
 */
export const chance = (p: number): fc.Arbitrary<boolean> => fc.oneof(
  { weight: Math.round(p * 100), arbitrary: fc.constant(true) },
  { weight: 100 - Math.round(p * 100), arbitrary: fc.constant(false) },
);

// ---------------------------------------------------------------- strings

const COMBINING = '\u0301\u0308\u0327\u0335\u036f\u20dd';
/** Strings that broke something somewhere once: encodings, escapes, injections, look-alikes. */
export const NASTY_STRINGS: string[] = [
  '', ' ', '  ', '\t', '\n', '\r\n', '\u0000', 'a\u0000b', '\u0000'.repeat(8), '\u0007\u001b[31m',
  '\uD800', '\uDFFF', 'a\uD83Db', '\uDE00\uD83D', '\uFFFE', '\uFFFF', '\uFEFF', '\uFEFFname',
  '\u202Eevil\u202C', '\u200F\u05E9\u05DC\u05D5\u05DD', 'مرحبا بالعالم', '\u200B', '\u2028\u2029', '\u00A0',
  `e${COMBINING.repeat(30)}`, `Z${COMBINING}a${COMBINING}l${COMBINING}g${COMBINING}o`, '\u0301', 'n\u0303', 'ñ',
  '👩‍👩‍👧‍👦', '🏳️‍🌈', '😀'.repeat(40), '𝕏𝔶𝔷', 'İstanbul', 'ß', 'ﬃ', 'Ａｂｃ', 'ℌ', 'Ⅻ', '١٢٣', '٣.١٤',
  'NaN', '-NaN', 'Infinity', '-Infinity', '-0', '0', '1e309', '-1e309', '0x1F', '0b101', '1_000', '١', '00012',
  '9007199254740993', '2147483648', '-2147483649', '1.7976931348623157e309', ' 42 ', '42abc', '4.2.1',
  'null', 'undefined', 'true', 'false', '[]', '{}', '[[]]', '{"a":1}', '"quoted"', "'", '"', '`', '\\', '\\u0000', '\\x00',
  '%', '%%', '%00', '%ZZ', '%E0%A4%A', '%2e%2e%2f', '_', '__', '*', '?', '#', '&', '=',
  "' OR '1'='1", "'; DROP TABLE res_user; --", '" OR 1=1 --', '1; SELECT pg_sleep(5)', 'a\') OR (\'1\'=\'1',
  '$principal.user_id', '$principal.organization_id', '$principal.nope', '$', '$$', '$where', '{"$gt":""}',
  '{{7*7}}', '${7*7}', '<script>alert(1)</script>', '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>',
  '../../../../etc/passwd', '..', '.', '/', '//', '\\\\server\\share', 'C:\\Windows\\system32', 'con', 'NUL', 'a/b/../../c',
  '~', '~root', 'file:///etc/passwd', 'http://169.254.169.254/latest/meta-data/', 'javascript:alert(1)',
  '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf',
  'admin', 'ADMIN', 'Admin', 'system', 'root', 'default', 'fuzz', 'other', 'nonexistent-tenant', 'Tenant_X', '-bad-', 'a--b',
  '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '00000000-0000-4000-8000-000000000000',
  '0000000-0000-0000-0000-000000000000', '{00000000-0000-4000-8000-000000000000}', 'urn:uuid:00000000-0000-4000-8000-000000000000',
  '2024-02-30T00:00:00Z', '2024-13-01T00:00:00Z', '0000-01-01T00:00:00Z', '+275760-09-13T00:00:00.000Z', '-271821-04-20T00:00:00Z',
  '1970-01-01', '2024-01-01T25:61:61Z', '2024-01-01T00:00:00+99:00', 'yesterday', '1e3',
];

const longString = fc.oneof(
  fc.string({ minLength: 250, maxLength: 1100, unit: 'grapheme-ascii' }),
  fc.string({ minLength: 60, maxLength: 600, unit: 'binary' }),
  fc.tuple(fc.constantFrom('a', 'é', '😀', '\u0000', 'ä\u0308', '%', '\\', ' ', '漢'), fc.integer({ min: 50, max: 20_000 })).map(([c, n]) => c.repeat(n)),
);

/** Any string, weighted towards the ones that find bugs. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 3, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 24, unit: 'binary' }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 16, unit: 'grapheme' }) },
  { weight: 1, arbitrary: longString },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...NASTY_STRINGS), fc.string({ maxLength: 8 })).map(([a, b]) => a + b) },
);

/** A short, mostly printable string (names, labels). */
export const plainString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ minLength: 1, maxLength: 20 }),
  fc.constantFrom('Acme', 'Ünïcødé Ltd', 'x', 'Fuzz', 'report.pdf', 'notes.txt'),
);

// ---------------------------------------------------------------- numbers

export const NASTY_NUMBERS = [
  0, -0, 1, -1, 2, 7, 10, 49, 50, 51, 100, 499, 500, 501, 1000, 1001, 65535, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 32,
  2 ** 53 - 1, 2 ** 53 + 2, -(2 ** 53), 1e15, 1e21, 1e300, Number.MAX_VALUE, Number.MIN_VALUE, -Number.MAX_VALUE,
  0.5, -0.5, 0.1, 1.5, 0.999999999, 1.0000001, 3.14159, -1e-7,
];

/** Numbers JSON cannot write with JSON.stringify: emitted as raw text. */
export const RAW_NUMBERS = ['1e400', '-1e400', '-0', '0e0', '1E+2', '123456789012345678901234567890', '0.0000000000000000000000000001', '1.0', '-0.0', '2e-400'];

export const nastyNumber: fc.Arbitrary<number | Raw> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_NUMBERS) },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.integer({ min: -5, max: 600 }) },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.constantFrom(...RAW_NUMBERS).map((t) => new Raw(t)) },
);

// ---------------------------------------------------------------- JSON

/** Deeply nested arrays or objects, as text (the parser and every recursive walker see it). */
export const deepJson: fc.Arbitrary<Raw> = fc.tuple(fc.constantFrom('array', 'object', 'mixed', 'domain'), fc.integer({ min: 50, max: 6000 })).map(([kind, n]) => {
  switch (kind) {
    case 'array': return new Raw(`${'['.repeat(n)}${']'.repeat(n)}`);
    case 'object': return new Raw(`${'{"a":'.repeat(n)}1${'}'.repeat(n)}`);
    case 'mixed': return new Raw(`${'[{"a":'.repeat(n)}null${'}]'.repeat(n)}`);
    default: return new Raw(`${'["!",'.repeat(n)}["name","=","x"]${']'.repeat(n)}`);
  }
});

/** Objects that look cyclic or try to reach prototypes. */
export const CYCLIC_LOOKING: Raw[] = [
  '{"$ref":"#"}', '{"a":{"$ref":"#/a"}}', '{"self":{"$ref":"$"}}', '{"__proto__":{"role":"admin"}}',
  '{"constructor":{"prototype":{"role":"admin"}}}', '{"a":1,"a":2}', '{"name":"x","name":{"$ref":"#"}}',
  '[{"$ref":"#/0"}]', '{"values":{"$ref":"#"},"model":{"$ref":"#"}}', '{"id":"$self","parent":"$self"}',
].map((t) => new Raw(t));

export const anyJson: fc.Arbitrary<Value> = fc.letrec<{ v: Value }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null), fc.boolean(), nastyNumber, nastyString,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(nastyString, plainString), tie('v'), { maxKeys: 4 }),
  ),
})).v;

/** Any value at all, including the odd ones. */
export const hostileValue: fc.Arbitrary<Value> = fc.oneof(
  { weight: 6, arbitrary: anyJson },
  { weight: 1, arbitrary: deepJson },
  { weight: 1, arbitrary: fc.constantFrom(...CYCLIC_LOOKING) },
);

// ---------------------------------------------------------------- ids

export const idRef = (model: string | null): fc.Arbitrary<IdRef> => fc.oneof(
  { weight: 6, arbitrary: fc.nat(200).map((i) => new IdRef('own', model, i)) },
  { weight: 2, arbitrary: fc.nat(200).map((i) => new IdRef('foreign', model, i)) },
  { weight: 2, arbitrary: fc.nat(2000).map((i) => new IdRef('other-model', model, i)) },
  { weight: 1, arbitrary: fc.nat(200).map((i) => new IdRef('upper', model, i)) },
  { weight: 1, arbitrary: fc.nat(200).map((i) => new IdRef('dbid', model, i)) },
  { weight: 2, arbitrary: fc.nat().map((i) => new IdRef('random', model, i)) },
  { weight: 2, arbitrary: nastyString.map((g) => new IdRef('garbage', model, 0, g)) },
);

// ---------------------------------------------------------------- printers

export interface Resolver {
  id(ref: IdRef): string | number;
}

/** JSON text of a value: `Raw` verbatim, `IdRef` resolved; NaN and ±Infinity are written as JSON would (null). */
export function toJsonText(v: Value, r: Resolver): string {
  if (v instanceof Raw) return v.text;
  if (v instanceof IdRef) return JSON.stringify(r.id(v));
  if (v instanceof Joined) return JSON.stringify(toParamText(v, r));
  if (Array.isArray(v)) return `[${v.map((x) => toJsonText(x, r)).join(',')}]`;
  if (v !== null && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${toJsonText(x, r)}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** The value as plain data (for query strings and GraphQL variables): `Raw` is parsed when it can be. */
export function toPlain(v: Value, r: Resolver): unknown {
  if (v instanceof Raw) {
    // deep documents stay text: as data they would only overflow the fuzzer's own JSON.stringify
    if (v.text.length > 1000) return v.text;
    try {
      return JSON.parse(v.text);
    } catch {
      return v.text;
    }
  }
  if (v instanceof IdRef) return r.id(v);
  if (v instanceof Joined) return toParamText(v, r);
  if (Array.isArray(v)) return v.map((x) => toPlain(x, r));
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toPlain(x, r)]));
  return v;
}

/** A text for a query-string parameter or path segment. */
export function toParamText(v: Value, r: Resolver): string {
  if (typeof v === 'string') return v;
  if (v instanceof IdRef) return String(r.id(v));
  if (v instanceof Joined) return v.parts.map((p) => toParamText(p, r)).join('');
  if (typeof v === 'number') return String(v);
  return toJsonText(v, r);
}

/** Encodes a path segment or query value; sometimes deliberately wrong (raw `%`, invalid UTF-8). */
export function encodeParam(text: string, mode: 'normal' | 'raw' | 'latin1' | 'double'): string {
  switch (mode) {
    case 'raw':
      // what a sloppy client sends: only the characters that would break the URL are escaped
      return text.replace(/[\s#?&/\u0000-\u001f\u007f-\uffff]/g, (c) => encodeURIComponentLenient(c).replace(/%25/g, '%'));
    case 'latin1':
      return [...Buffer.from(text, 'latin1')].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
    case 'double':
      return encodeURIComponent(encodeURIComponentLenient(text));
    default:
      return encodeURIComponentLenient(text);
  }
}

/** encodeURIComponent that does not throw on lone surrogates (it writes them as WTF-8-ish bytes). */
export function encodeURIComponentLenient(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
  }
}

/** decodeURIComponent that never throws: a malformed escape or invalid UTF-8 is kept as it is. */
export function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/(%[0-9A-Fa-f]{2})+/g, (m) => {
      try {
        return decodeURIComponent(m);
      } catch {
        return m;
      }
    });
  }
}
