/**
 * Record rules compiled into a `where`: a rule's domain, or a rule that follows a reference to
 * the record it belongs to (`follow`, src/kernel/declare.ts), which is visible exactly when that
 * record is readable by the caller: the target model's read permission and its read rules,
 * themselves followed again where they follow. Every read and write path builds its filter
 * here (`scopedWhere`, src/kernel/commands/crud.ts), so REST, GraphQL, subscriptions, the AI
 * tools and MCP all get the same answer.
 */
import { canAccess, checkAccess, principalPlaceholder, rulesFor } from '../access.js';
import type { AccessOp, FollowPair, RecordRule } from '../declare.js';
import type { DbClient, Principal } from '../env.js';
import type { ResolvedModel } from '../registry/model.js';
import { relationFieldName } from '../registry/names.js';
import type { Registry } from '../registry/registry.js';
import { delegateOf } from './delegate.js';
import { domainToWhere, type DomainContext, type Where } from './domain.js';

export interface RuleContext {
  registry: Registry;
  provider: 'sqlite' | 'postgresql';
  principal: Principal;
}

/**
 * The `where` node of a followed model-and-id pair: `{ FOLLOW: { field, model, where } }` holds
 * when the record of `model` whose id is in `field` matches `where`. The compiled-SQL path reads
 * it as an EXISTS (src/kernel/data/sql/where.ts); Prisma, which has no relation to join there,
 * gets it as the list of matching ids (`prismaWhere`). Field names are lower case, so the key
 * cannot clash with one.
 */
export const FOLLOW = 'FOLLOW';
export interface FollowNode { field: string; model: string; where: Where }

const INT_MIN = -(2 ** 31);
/** Matches no record / every record (as in domain.ts: a comparison of the always-set dbid). */
const nothing = (): Where => ({ dbid: { lt: INT_MIN } });
const everything = (): Where => ({ dbid: { gte: INT_MIN } });

/**
 * What the caller may see of `target` reached through a relation path of a filter or a rule:
 * 403 when the role may not read the model, else its read rules (or null).
 */
export function readScope(ctx: RuleContext, seen: readonly string[] = []): (target: ResolvedModel) => Where | null {
  return (target) => {
    checkAccess(target, ctx.principal, 'read');
    return ruleWhere(ctx, target, 'read', seen);
  };
}

/**
 * The rules of `op` that bind the caller on `model`, as one `where`, or null when none does.
 * As in Odoo, rules without `roles` (everyone's but administrators') are ANDed, and the rules of
 * the groups and roles the caller holds are ORed among themselves, then ANDed with those: access
 * adds up like the model letters do, so a manager group that implies the agent group can widen
 * the agents' "own records" rule with a rule of its own (an empty domain: every record). `seen` holds the models being followed into this one: a model met again on the way (a
 * message about a message) shows nothing through that path rather than looping.
 */
export function ruleWhere(ctx: RuleContext, model: ResolvedModel, op: AccessOp, seen: readonly string[] = []): Where | null {
  const rules = rulesFor(model, ctx.principal, op);
  if (!rules.length) return null;
  if (seen.includes(model.key)) return nothing();
  const next = [...seen, model.key];
  const dctx: DomainContext = {
    registry: ctx.registry,
    provider: ctx.provider,
    placeholder: principalPlaceholder(ctx.principal),
    // a rule's relation path only looks at records the caller could read directly
    scope: readScope(ctx, next),
  };
  const where = (rule: RecordRule): Where => (rule.follow !== undefined ? followWhere(ctx, model, rule.follow, next) : domainToWhere(model, rule.domain, dctx));
  const parts = rules.filter((rule) => !rule.roles).map(where);
  const granted = rules.filter((rule) => rule.roles).map(where);
  // a granted rule matching every record (an empty domain) makes the others moot; Prisma would
  // also read its empty `where` inside an OR as matching nothing
  if (granted.length && !granted.some((w) => !Object.keys(w).length)) parts.push(granted.length === 1 ? granted[0] : { OR: granted });
  if (!parts.length) return null;
  return parts.length === 1 ? parts[0] : { AND: parts };
}

/** A followed Reference (the referenced record readable) or model-and-id pair. */
function followWhere(ctx: RuleContext, model: ResolvedModel, follow: string | FollowPair, seen: readonly string[]): Where {
  if (typeof follow !== 'string') return followPair(ctx, follow, seen);
  const field = model.fields.get(follow)!;
  // a Reference whose target app is not loaded reads as a plain id: there is nothing to follow
  if (field.type !== 'reference' || !field.target) return nothing();
  const target = ctx.registry.model(field.target);
  if (!canAccess(target, ctx.principal, 'read')) return nothing();
  const inner = ruleWhere(ctx, target, 'read', seen);
  // a required Reference always points at a record (a foreign key); an empty one shows nothing
  if (!inner && field.notNull) return everything();
  return { [relationFieldName(follow)]: { is: inner ?? everything() } };
}

/**
 * A record that may belong to any model (chatter): visible when the caller may read the model it
 * names and, where that model has read rules for the caller, its record matches them. A model
 * without rules for the caller needs only the read permission (its records are all readable).
 */
function followPair(ctx: RuleContext, pair: FollowPair, seen: readonly string[]): Where {
  const plain: string[] = [];
  const branches: Where[] = [];
  for (const target of ctx.registry.models.values()) {
    if (!canAccess(target, ctx.principal, 'read')) continue;
    const inner = ruleWhere(ctx, target, 'read', seen);
    if (!inner) plain.push(target.key);
    else branches.push({ AND: [{ [pair.model]: { equals: target.key } }, { [FOLLOW]: { field: pair.id, model: target.key, where: inner } satisfies FollowNode }] });
  }
  if (plain.length) branches.unshift({ [pair.model]: { in: plain } });
  return branches.length ? { OR: branches } : nothing();
}

/** Whether `where` holds a FOLLOW node anywhere (most do not, and are passed on as they are). */
function hasFollow(where: unknown): boolean {
  if (where === null || typeof where !== 'object') return false;
  if (Array.isArray(where)) return where.some(hasFollow);
  for (const [k, v] of Object.entries(where)) if (k === FOLLOW || hasFollow(v)) return true;
  return false;
}

/**
 * `where` as Prisma takes it: each FOLLOW node becomes the list of ids of the followed model
 * that match its condition (read in the same transaction, so a record written in it counts). The
 * compiled-SQL path takes FOLLOW as it is.
 */
export async function prismaWhere(db: DbClient, registry: Registry, model: ResolvedModel, where: Where): Promise<Where> {
  if (!hasFollow(where)) return where;
  const out: Where = {};
  for (const [key, value] of Object.entries(where)) {
    if (key === 'AND' || key === 'OR' || key === 'NOT') {
      out[key] = Array.isArray(value)
        ? await Promise.all((value as Where[]).map((w) => prismaWhere(db, registry, model, w)))
        : await prismaWhere(db, registry, model, value as Where);
    } else if (key === FOLLOW) {
      const node = value as FollowNode;
      const target = registry.model(node.model);
      const rows = await delegateOf(db, target).findMany({ where: await prismaWhere(db, registry, target, node.where), select: { record_uuid: true } });
      const ids = rows.map((r) => r.record_uuid as string);
      const field = model.fields.get(node.field)!;
      // an empty id is not in the list, under a NOT too (EXISTS, on the SQL path, is never unknown)
      const inList = { [node.field]: { in: ids } };
      Object.assign(out, field.notNull ? inList : { AND: [{ [node.field]: { not: null } }, inList] });
    } else {
      const relation = key.endsWith('_rel') ? model.fields.get(key.slice(0, -4)) : model.fields.get(key);
      if (relation?.target && (key.endsWith('_rel') || relation.type === 'one2many') && value && typeof value === 'object') {
        const target = registry.model(relation.target);
        const [mode, inner] = Object.entries(value as Where)[0] as [string, Where];
        out[key] = { [mode]: await prismaWhere(db, registry, target, inner) };
      } else {
        out[key] = value;
      }
    }
  }
  return out;
}

/**
 * The fields any rule of `model` reads on the record itself (the first step of each path, the
 * followed fields), with `dbid` and `record_uuid`: what a delete notice carries so a subscriber's
 * rules can still be checked once the record is gone (`fw.could_read_deleted`).
 */
export function ruleFields(model: ResolvedModel): string[] {
  const out = new Set(['dbid', 'record_uuid']);
  const walk = (domain: unknown) => {
    if (!Array.isArray(domain)) return;
    for (const t of domain) if (Array.isArray(t) && typeof t[0] === 'string') out.add(t[0].split('.')[0]);
  };
  for (const rule of model.access.rules) {
    if (typeof rule.follow === 'string') out.add(rule.follow);
    else if (rule.follow) out.add(rule.follow.model).add(rule.follow.id);
    else walk(rule.domain);
  }
  return [...out].filter((n) => model.fields.get(n)?.stored);
}
