import { useQuery } from '@tanstack/react-query';
import { request } from '../api/client.ts';
import { graphql } from '../gql/index.ts';
import type { FieldInfo, ModelInfo } from './records.ts';

/**
 * What the client may offer to write. The server leaves out of its schema every mutation no role
 * may run (a replay's runs and results, the installed apps), so the schema's mutation names say
 * which models can be created, updated or deleted at all; the bootstrap lists every name either
 * way. The names are read once per session with an introspection query; a server that refuses
 * introspection (GRAPHQL_INTROSPECTION=false) leaves the answer unknown, and the client then
 * offers what the render plan allows and shows the server's refusal.
 */
const MutationFieldsDocument = graphql(`
  query MutationFields { __type(name: "Mutation") { fields { name } } }
`);

export const mutationsQuery = {
  queryKey: ['schema', 'mutations'] as const,
  queryFn: async (): Promise<ReadonlySet<string> | null> => {
    try {
      const r = await request(MutationFieldsDocument);
      return r.__type?.fields ? new Set(r.__type.fields.map((f) => f.name)) : null;
    } catch {
      return null;
    }
  },
  staleTime: Infinity,
};

export interface Writable { create: boolean; update: boolean; delete: boolean }
const ALL: Writable = { create: true, update: true, delete: true };

/**
 * Whether the person may create, update and delete the model's records: their role allows it (the
 * bootstrap's `access`) and the schema has the mutation (all true while the schema is unknown).
 */
export function useWritable(m: ModelInfo | undefined): Writable {
  const names = useQuery(mutationsQuery).data;
  if (!m) return ALL;
  const role = m.access ?? ALL;
  if (!names) return role;
  return { create: role.create && names.has(m.names.create), update: role.update && names.has(m.names.update), delete: role.delete && names.has(m.names.delete) };
}

/** A field a person can type into (One2Many lines are edited through their own list). */
export const isWritable = (f: FieldInfo) => !f.readonly && f.type !== 'one2many';

/** Whether a view of these fields has anything to type into (else it only shows records). */
export const anyWritable = (fields: readonly FieldInfo[]) => fields.some(isWritable);

const InputFieldsDocument = 'query InputFields($name: String!) { type: __type(name: $name) { inputFields { name type { kind } } } }';

/**
 * The fields of a GraphQL input type (a model's create or update input) and whether each is
 * required (non-null), read once per session; undefined while unknown or when not `enabled`.
 * What a bulk action may set (`is_active`) and what a new One2Many line must supply come from it.
 */
export function useInputFields(typeName: string | undefined, enabled = true): Array<{ name: string; required: boolean }> | undefined {
  const r = useQuery({
    queryKey: ['schema', 'input-fields', typeName],
    queryFn: async () => (await request<{ type: { inputFields: Array<{ name: string; type: { kind: string } }> } | null }, { name: string }>(InputFieldsDocument, { name: typeName! })).type,
    enabled: enabled && !!typeName,
    staleTime: Infinity,
  });
  return r.data?.inputFields.map((f) => ({ name: f.name, required: f.type.kind === 'NON_NULL' }));
}
