/**
 * Server domains (the `<filter domain>` of a search view, an action's `domain`) turned into the
 * typed GraphQL `where` input, the inverse of the server's whereToDomain. Prefix operators
 * `&`, `|`, `!` combine the next expressions; a dotted path goes through a Reference (`is`).
 */
export type Where = Record<string, unknown>;
type Term = [string, string, unknown];
type Domain = Array<string | Term | unknown[]>;

const SIMPLE: Record<string, string> = { '=': 'eq', '!=': 'ne', in: 'in', 'not in': 'notIn', '<': 'lt', '<=': 'lte', '>': 'gt', '>=': 'gte' };

export class DomainError extends Error {}

function termToWhere([path, op, value]: Term): Where {
  const [head, ...rest] = path.split('.');
  if (rest.length) return { [head]: { is: termToWhere([rest.join('.'), op, value]) } };
  if (op === 'any') return { [head]: { is: domainToWhere(value as Domain) } };
  if (op in SIMPLE) return { [head]: { [SIMPLE[op]]: value } };
  switch (op) {
    case 'like': return { [head]: { contains: value } };
    case 'ilike': return { [head]: { contains: value, mode: 'insensitive' } };
    case 'not like': return { NOT: { [head]: { contains: value } } };
    case 'not ilike': return { NOT: { [head]: { contains: value, mode: 'insensitive' } } };
    case 'startswith': return { [head]: { startsWith: value } };
    case 'istartswith': return { [head]: { startsWith: value, mode: 'insensitive' } };
    default: throw new DomainError(`unsupported domain operator ${op}`);
  }
}

export function domainToWhere(domain: Domain | null | undefined): Where {
  if (!domain || domain.length === 0) return {};
  let i = 0;
  const next = (): Where => {
    const item = domain[i++];
    if (item === '&') return { AND: [next(), next()] };
    if (item === '|') return { OR: [next(), next()] };
    if (item === '!') return { NOT: next() };
    if (Array.isArray(item) && item.length === 3 && typeof item[0] === 'string') return termToWhere(item as Term);
    throw new DomainError(`malformed domain at position ${i - 1}`);
  };
  const parts: Where[] = [];
  while (i < domain.length) parts.push(next());
  return andWhere(parts);
}

/** AND of several `where`s, flattened and without empty ones. */
export function andWhere(parts: Array<Where | null | undefined>): Where {
  const kept = parts.filter((w): w is Where => !!w && Object.keys(w).length > 0);
  if (kept.length === 0) return {};
  if (kept.length === 1) return kept[0];
  return { AND: kept };
}
