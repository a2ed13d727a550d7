import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from '../api/client.ts';
import type { Where } from './domain.ts';
import { countDocument, groupDocument, rowsDocument, type ModelInfo, type Row } from './records.ts';

/** Query keys start with the model key so a change of that model refreshes every view of it. */
export const recordsKey = (model: string, ...rest: unknown[]) => ['records', model, ...rest];

/** The API's largest page: a long window is fetched in blocks of this size. */
export const BLOCK = 500;

export function useCount(m: ModelInfo, where: Where) {
  return useQuery({
    queryKey: recordsKey(m.key, 'count', where),
    queryFn: async () => (await request<{ total: number }, { where: Where }>(countDocument(m), { where })).total,
    placeholderData: keepPreviousData,
  });
}

export function useBlock(m: ModelInfo, sel: string, where: Where, order: unknown, offset: number, limit: number, enabled = true) {
  return useQuery({
    queryKey: recordsKey(m.key, 'rows', sel, where, order, offset, limit),
    queryFn: async () => (await request<{ rows: Row[] }, Record<string, unknown>>(rowsDocument(m, sel), { where, orderBy: order, limit, offset })).rows,
    enabled,
    placeholderData: keepPreviousData,
  });
}

export interface Group { key: Record<string, unknown>; count: number; aggregates: Record<string, unknown> | null }

/** The groups of a grouped list, in the server's order, with `<field>_<aggregate>` per group. */
export function useGroups(m: ModelInfo, by: string | undefined, where: Where, aggregates?: Record<string, string>) {
  const agg = aggregates && Object.keys(aggregates).length ? aggregates : undefined;
  return useQuery({
    queryKey: recordsKey(m.key, 'groups', by, where, agg),
    queryFn: async () => (await request<{ groups: Group[] }, Record<string, unknown>>(groupDocument(m), { by: [by], where, aggregates: agg })).groups,
    enabled: !!by,
  });
}

export function useInvalidateModel() {
  const qc = useQueryClient();
  return (model: string) => qc.invalidateQueries({ queryKey: ['records', model] });
}
