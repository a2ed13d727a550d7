import type { Principal } from '../../kernel/env.js';
import { BadRequest, FwError } from '../../kernel/errors.js';
import type { ResolvedModel } from '../../kernel/registry/model.js';
import type { Registry } from '../../kernel/registry/registry.js';
import { whereToDomain } from '../graphql/where.js';
import { exportColumns, type TransferField } from './fields.js';
import { FORMATS, type TransferFormat } from './formats.js';

/**
 * The parameters of an export (format, fields, filter, where, ids, order), checked and turned
 * into what the export reads: the REST route and the GraphQL `exportLink` mutation check them
 * the same way (the link before it is issued, the download again as the user is then).
 */
type Rec = Record<string, unknown>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function formatOf(v: unknown): TransferFormat {
  const f = v ?? 'csv';
  if (typeof f !== 'string' || !(FORMATS as readonly string[]).includes(f)) {
    throw new BadRequest(`format must be one of ${FORMATS.join(', ')}`, { format: f }, 'EXPORT_INVALID_FORMAT');
  }
  return f as TransferFormat;
}

/**
 * GraphQL checks a `where` against its input type before `whereToDomain` sees it; here it is raw
 * JSON, so a shape that type would refuse (`{ "AND": 5 }`) is refused the same way, not a 500.
 */
function whereOf(registry: Registry, model: ResolvedModel, where: Rec): unknown[] {
  try {
    return whereToDomain(registry, model, where);
  } catch (err) {
    if (err instanceof FwError) throw err;
    throw new BadRequest(`where is not a ${model.key} where input: ${(err as Error).message}`, undefined, 'INVALID_FILTER');
  }
}

/** The export's records: the filter (domain), the GraphQL `where` the web client holds, and chosen ids, all ANDed. */
function exportDomain(registry: Registry, model: ResolvedModel, o: Rec): unknown[] | undefined {
  const parts: unknown[] = [];
  if (o.filter !== undefined && o.filter !== null) {
    if (!Array.isArray(o.filter)) throw new BadRequest('filter must be a list of [field, operator, value] terms', { parameter: 'filter' }, 'INVALID_DOMAIN');
    parts.push(...o.filter);
  }
  if (o.where !== undefined && o.where !== null) {
    if (typeof o.where !== 'object' || Array.isArray(o.where)) throw new BadRequest('where must be an object (a GraphQL where input)', undefined, 'INVALID_FILTER');
    parts.push(...whereOf(registry, model, o.where as Rec));
  }
  if (o.ids !== undefined && o.ids !== null) {
    if (!Array.isArray(o.ids) || o.ids.some((id) => typeof id !== 'string' || !UUID.test(id))) {
      throw new BadRequest('ids must be a list of record ids', undefined, 'INVALID_FILTER');
    }
    parts.push(['record_uuid', 'in', (o.ids as string[]).map((id) => id.toLowerCase())]);
  }
  return parts.length ? parts : undefined;
}

export interface ExportPlan { format: TransferFormat; columns: TransferField[]; domain: unknown[] | undefined; order: string | undefined }

export function exportPlan(registry: Registry, model: ResolvedModel, principal: Principal, o: Rec): ExportPlan {
  const format = formatOf(o.format);
  const columns = exportColumns(registry, model, principal, o.fields);
  const domain = exportDomain(registry, model, o);
  if (o.order !== undefined && o.order !== null && typeof o.order !== 'string') throw new BadRequest('order must be text like "name asc"', undefined, 'INVALID_ORDER');
  const order = (o.order as string | null | undefined) || undefined;
  return { format, columns, domain, order };
}
