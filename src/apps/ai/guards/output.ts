/**
 * JSON Schema validation of model output and tool arguments, and a boot-time check that tool
 * `input_schema`s are themselves valid JSON Schemas.
 *
 * Dialect follows `$schema`: none or 2020-12 → draft 2020-12 (what MCP and current model APIs
 * assume), 2019-09 → 2019-09, draft-07/06 → draft-07 engine. Ajv cannot mix 2020-12 with older
 * drafts in one instance, hence one lazily created instance per dialect.
 *
 * `format` is an annotation only (the 2020-12 default; ajv-formats is not a dependency), and
 * `strict: false` lets schemas carry vendor keywords (`x-…`, `examples`, UI hints) that tool
 * definitions often have.
 *
 * Compiled validators are cached per schema object in a WeakMap: treat schemas as immutable
 * once they were used here (a mutated object keeps its first validator).
 */
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import draft06 from 'ajv/dist/refs/json-schema-draft-06.json' with { type: 'json' };

export interface SchemaIssue {
  /** JSON Pointer into the validated value ("" = the value itself, "/items/0/name"). */
  path: string;
  message: string;
}

/** Bound on issues per validation: feedback to a model must stay short. */
export const MAX_ISSUES = 50;

const OPTIONS: Options = { allErrors: true, strict: false, validateFormats: false, logger: false };

type Engine = Ajv | Ajv2019 | Ajv2020;
type Dialect = '2020-12' | '2019-09' | 'draft-07';
const engines = new Map<Dialect, Engine>();

function engine(dialect: Dialect): Engine {
  let e = engines.get(dialect);
  if (!e) {
    if (dialect === '2020-12') e = new Ajv2020(OPTIONS);
    else if (dialect === '2019-09') e = new Ajv2019(OPTIONS);
    else {
      e = new Ajv(OPTIONS);
      e.addMetaSchema(draft06);
    }
    engines.set(dialect, e);
  }
  return e;
}

function dialectOf(schema: Record<string, unknown>): Dialect | null {
  const uri = schema.$schema;
  if (uri === undefined) return '2020-12';
  if (typeof uri !== 'string') return null;
  if (/json-schema\.org\/draft\/2020-12\/schema/.test(uri)) return '2020-12';
  if (/json-schema\.org\/draft\/2019-09\/schema/.test(uri)) return '2019-09';
  if (/json-schema\.org\/draft-0[67]\/schema/.test(uri)) return 'draft-07';
  return null;
}

type Compiled = { validate: ValidateFunction } | { error: string };
const cache = new WeakMap<object, Compiled>();

function compiled(schema: Record<string, unknown>): Compiled {
  if (schema === null || typeof schema !== 'object') return { error: 'a schema must be a JSON object' }; // not a WeakMap key
  let entry = cache.get(schema);
  if (!entry) {
    entry = compile(schema);
    cache.set(schema, entry);
  }
  return entry;
}

function compile(schema: Record<string, unknown>): Compiled {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return { error: 'a schema must be a JSON object' };
  const dialect = dialectOf(schema);
  if (!dialect) return { error: `unsupported $schema ${JSON.stringify(schema.$schema)} (use draft 2020-12, 2019-09, draft-07 or draft-06)` };
  const ajv = engine(dialect);
  try {
    if (!ajv.validateSchema(schema)) {
      const issues = toIssues(ajv.errors ?? []).slice(0, 5);
      return { error: issues.map((i) => `${i.path || '(root)'} ${i.message}`).join('; ') };
    }
    // compile() also catches what the meta-schema cannot: unresolvable $refs, invalid regexes.
    return { validate: ajv.compile(schema) };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  } finally {
    // Ajv keeps every compiled schema in its own Map (and registers its $id): drop it so the
    // WeakMap above is the only cache and two tools may reuse the same $id.
    try {
      ajv.removeSchema(schema);
    } catch {
      /* nothing was registered */
    }
  }
}

/** null when `schema` is a valid JSON Schema that compiles; otherwise a short reason. */
export function checkSchema(schema: Record<string, unknown>): string | null {
  const entry = compiled(schema);
  return 'error' in entry ? entry.error : null;
}

/** [] when `value` matches; otherwise the issues. Throws if `schema` itself is invalid. */
export function validateAgainst(schema: Record<string, unknown>, value: unknown): SchemaIssue[] {
  const entry = compiled(schema);
  if ('error' in entry) throw new Error(`invalid JSON Schema: ${entry.error}`);
  if (entry.validate(value)) return [];
  return toIssues(entry.validate.errors ?? []);
}

function toIssues(errors: ErrorObject[]): SchemaIssue[] {
  const seen = new Set<string>();
  const out: SchemaIssue[] = [];
  for (const e of errors) {
    const issue = toIssue(e);
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) continue; // allErrors repeats the same failure once per branch/item
    seen.add(key);
    out.push(issue);
    if (out.length === MAX_ISSUES) break;
  }
  return out;
}

// Messages point at the offending property itself ("/customer/email is required") rather than
// at its parent, which is what a model or a form needs to fix the value.
function toIssue(e: ErrorObject): SchemaIssue {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { path: `${e.instancePath}/${escapePointer(String(p.missingProperty))}`, message: 'is required' };
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const name = String(p.additionalProperty ?? p.unevaluatedProperty);
      return { path: `${e.instancePath}/${escapePointer(name)}`, message: 'is not an allowed property' };
    }
    case 'enum':
      return { path: e.instancePath, message: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'const':
      return { path: e.instancePath, message: `must be ${JSON.stringify(p.allowedValue)}` };
    default:
      return { path: e.instancePath, message: e.message ?? e.keyword };
  }
}

function escapePointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}
