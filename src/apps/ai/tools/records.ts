import { canReadField, checkAccess } from '../../../kernel/access.js';
import type { CommandDecl } from '../../../kernel/app.js';
import type { Env } from '../../../kernel/env.js';


type Rec = Record<string, unknown>;

/**
 * The generic tools shipped for the foundation models. Each is an internal command (reachable
 * only through its carrier `ai.tool.<name>`) that dispatches a kernel command as the caller, so
 * RBAC, record rules and hooks apply exactly as for REST and GraphQL. The read tools declare
 * their effects, which is what lets the boot prove them read-only.
 */
const domainSchema = {
  type: 'array',
  description: 'Filter as a list of [field, operator, value] terms (ANDed); operators: =, !=, in, not in, <, <=, >, >= (text, numbers, dates), like, ilike, not like, not ilike, startswith, istartswith (text, enums), = null and != null. Dotted paths follow references (country.code).',
  items: { type: 'array', minItems: 3, maxItems: 3 },
};
const modelArg = { type: 'string', description: 'Model key, e.g. res.organization' };
const MAX_TOOL_ROWS = 50;

const asList = (v: unknown) => (Array.isArray(v) ? v.map(String) : undefined);

export const recordTools: CommandDecl[] = [
  {
    name: 'ai.search_records',
    internal: true, mutates: false, returns: 'json',
    description: 'Records of a model matching a filter',
    effects: [{ dispatch: 'fw.search' }],
    tool: {
      name: 'search_records', kind: 'informer', read_only: true, model_argument: { op: 'read' },
      description: 'Find records of a model you may read. Returns at most 50 rows and the total count.',
      input_schema: {
        type: 'object', required: ['model'], additionalProperties: false,
        properties: {
          model: modelArg, domain: domainSchema,
          fields: { type: 'array', items: { type: 'string' }, description: 'Fields to return (default: all readable)' },
          order: { type: 'string', description: 'e.g. "name asc, created_at_utc desc"' },
          limit: { type: 'integer', minimum: 1, maximum: MAX_TOOL_ROWS },
          offset: { type: 'integer', minimum: 0 },
        },
      },
    },
    handler: (env, p) => env.dispatch('fw.search', {
      model: p.model, domain: p.domain ?? [], fields: asList(p.fields), order: p.order,
      limit: Math.min(Number(p.limit ?? 20) || 20, MAX_TOOL_ROWS), offset: p.offset ?? 0, count: true,
    }),
  },
  {
    name: 'ai.read_record',
    internal: true, mutates: false, returns: 'json',
    description: 'One record by id',
    effects: [{ dispatch: 'fw.read_one' }],
    tool: {
      name: 'read_record', kind: 'informer', read_only: true, model_argument: { op: 'read' },
      description: 'Read one record of a model by its id.',
      input_schema: {
        type: 'object', required: ['model', 'id'], additionalProperties: false,
        properties: { model: modelArg, id: { type: 'string', format: 'uuid' }, fields: { type: 'array', items: { type: 'string' } } },
      },
    },
    handler: (env, p) => env.dispatch('fw.read_one', { model: p.model, id: p.id, fields: asList(p.fields) }),
  },
  {
    name: 'ai.count_records',
    internal: true, mutates: false, returns: 'json',
    description: 'Number of records matching a filter',
    effects: [{ dispatch: 'fw.count' }],
    tool: {
      name: 'count_records', kind: 'informer', read_only: true, model_argument: { op: 'read' },
      description: 'Count the records of a model you may read that match a filter.',
      input_schema: { type: 'object', required: ['model'], additionalProperties: false, properties: { model: modelArg, domain: domainSchema } },
    },
    handler: (env, p) => env.dispatch('fw.count', { model: p.model, domain: p.domain ?? [] }),
  },
  {
    name: 'ai.group_records',
    internal: true, mutates: false, returns: 'json',
    description: 'Counts and aggregates per group',
    effects: [{ dispatch: 'fw.read_group' }],
    tool: {
      name: 'group_records', kind: 'insight', read_only: true, model_argument: { op: 'read' },
      description: 'Group the records of a model by one or more fields, with counts and sums/averages/min/max of numeric fields.',
      input_schema: {
        type: 'object', required: ['model', 'groupby'], additionalProperties: false,
        properties: {
          model: modelArg, domain: domainSchema,
          groupby: { type: 'array', minItems: 1, items: { type: 'string' } },
          aggregates: { type: 'object', additionalProperties: { enum: ['sum', 'avg', 'min', 'max', 'count'] } },
        },
      },
    },
    handler: (env, p) => env.dispatch('fw.read_group', { model: p.model, domain: p.domain ?? [], groupby: p.groupby, aggregates: p.aggregates }),
  },
  {
    name: 'ai.describe_model',
    internal: true, mutates: false, returns: 'json',
    description: 'Fields of a model the caller may read',
    effects: [],
    tool: {
      name: 'describe_model', kind: 'informer', read_only: true, model_argument: { op: 'read' },
      description: 'Describe a model: its fields (name, type, description, target of references, enum values) that you may read.',
      input_schema: { type: 'object', required: ['model'], additionalProperties: false, properties: { model: modelArg } },
    },
    handler: async (env, p) => describeModel(env, String(p.model)),
  },
  {
    name: 'ai.create_record',
    internal: true, returns: 'json',
    description: 'Creates one record (run only after the person confirms)',
    effects: [{ dispatch: 'fw.create' }],
    tool: {
      name: 'create_record', kind: 'proposer', read_only: false, model_argument: { op: 'create' },
      description: 'Propose creating a record. Nothing is written until the person confirms the proposal.',
      input_schema: {
        type: 'object', required: ['model', 'values'], additionalProperties: false,
        properties: { model: modelArg, values: { type: 'object', description: 'Field values' } },
      },
    },
    handler: (env, p) => env.dispatch('fw.create', { model: p.model, values: p.values }),
  },
  {
    name: 'ai.update_record',
    internal: true, returns: 'json',
    description: 'Updates one record (run only after the person confirms)',
    effects: [{ dispatch: 'fw.update' }, { dispatch: 'fw.read_one' }],
    tool: {
      name: 'update_record', kind: 'proposer', read_only: false, model_argument: { op: 'update' },
      description: 'Propose changing fields of one record. Nothing is written until the person confirms the proposal.',
      input_schema: {
        type: 'object', required: ['model', 'id', 'values'], additionalProperties: false,
        properties: { model: modelArg, id: { type: 'string', format: 'uuid' }, values: { type: 'object', description: 'Field values to change' } },
      },
    },
    handler: (env, p) => env.dispatch('fw.update', { model: p.model, id: p.id, values: p.values }),
  },
];

function describeModel(env: Env, key: string): Rec {
  const model = env.registry.model(key);
  checkAccess(model, env.principal, 'read');
  const fields = [...model.fields.values()]
    .filter((f) => f.stored && !f.private && canReadField(model, f, env.principal))
    .map((f) => ({ name: f.name, type: f.type, description: f.description, required: f.required, ...(f.target ? { target: f.target } : {}), ...(f.values ? { values: f.values } : {}) }));
  return { model: key, description: model.description, record_name: model.recordName, fields };
}
