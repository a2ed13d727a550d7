import crypto from 'node:crypto';
import type { HookContext, HookDecl } from '../../kernel/app.js';
import { findScoped } from '../../kernel/commands/crud.js';
import { delegateOf } from '../../kernel/data/delegate.js';
import type { Env } from '../../kernel/env.js';
import { Conflict, FwError, ValidationError } from '../../kernel/errors.js';

/**
 * storage.folder: an organisational tree per organization. The rules live in hooks, so REST,
 * GraphQL, `/api/command` and nested dispatches all get them:
 *
 * - a folder belongs to its parent's organization (a top-level one to its creator's); a parent,
 *   and a document's folder, must be of the same organization as the child;
 * - sibling names are unique (trimmed, case-insensitive): 409 FOLDER_NAME_TAKEN;
 * - a folder cannot move under itself or one of its subfolders: 422 FOLDER_CYCLE;
 * - a folder that still holds documents (archived ones included) or subfolders cannot be deleted:
 *   409 FOLDER_NOT_EMPTY, never a cascade.
 *
 * A folder the caller cannot read is answered like one that does not exist (422
 * INVALID_REFERENCE), so its existence in another organization is not revealed.
 */

type Rec = Record<string, unknown>;

const FOLDER = 'storage.folder';
const folders = (env: Env) => delegateOf(env.db, env.registry.model(FOLDER));
const documents = (env: Env) => delegateOf(env.db, env.registry.model('storage.document'));

/** A folder the caller may read, or 422 INVALID_REFERENCE naming the field. */
export async function visibleFolder(env: Env, id: string, field: string, model: string): Promise<{ id: string; organization: string | null; parent: string | null }> {
  try {
    const row = await findScoped(env, env.registry.model(FOLDER), id, 'read', { record_uuid: true, organization: true, parent: true });
    return { id: row.record_uuid as string, organization: (row.organization as string) ?? null, parent: (row.parent as string) ?? null };
  } catch (err) {
    if (err instanceof FwError && err.code === 'RECORD_NOT_FOUND') {
      throw new ValidationError(`${model}: folder ${id} does not exist`, { model, field, id }, 'INVALID_REFERENCE');
    }
    throw err;
  }
}

function sameOrganization(folderOrg: string | null, childOrg: string | null, what: string, folderId: string): void {
  if (folderOrg !== childOrg) {
    throw new ValidationError(`${what} belongs to another organization than folder ${folderId}`,
      { folder: folderId, folder_organization: folderOrg, organization: childOrg }, 'FOLDER_ORGANIZATION_MISMATCH');
  }
}

/** Trimmed name; an empty one is a missing one. */
function cleanName(name: unknown): string {
  const n = typeof name === 'string' ? name.trim() : '';
  if (!n) throw new ValidationError('"name" is required', { model: FOLDER, errors: [{ field: 'name', code: 'REQUIRED', message: '"name" is required' }] });
  return n;
}

/** What makes two sibling names the same: trimmed, NFC, lower case. */
export function siblingKey(organization: string | null, parent: string | null, name: string): string {
  const norm = name.trim().normalize('NFC').toLowerCase();
  return crypto.createHash('sha256').update(`${organization ?? ''}\n${parent ?? ''}\n${norm}`).digest('hex');
}

async function checkSiblingName(env: Env, organization: string | null, parent: string | null, name: string, self?: string): Promise<string> {
  const key = siblingKey(organization, parent, name);
  const clash = await folders(env).findFirst({ where: { sibling_key: key, ...(self ? { NOT: { record_uuid: self } } : {}) }, select: { record_uuid: true } });
  if (clash) {
    throw new Conflict(`a folder named "${name}" already exists ${parent ? 'in this folder' : 'at the top level'}`,
      { name, parent, existing_id: clash.record_uuid }, 'FOLDER_NAME_TAKEN');
  }
  return key;
}

/** Walks up from `parent`: reaching `self` means the move would make a loop. */
async function checkNoCycle(env: Env, self: string, parent: string): Promise<void> {
  const seen = new Set<string>();
  let at: string | null = parent;
  while (at) {
    if (at === self) {
      throw new ValidationError(`a folder cannot be moved into itself or one of its subfolders`, { id: self, parent }, 'FOLDER_CYCLE');
    }
    if (seen.has(at)) return; // an existing loop above (never written by these hooks): not this move's doing
    seen.add(at);
    const row: Rec | null = await folders(env).findFirst({ where: { record_uuid: at }, select: { parent: true } });
    at = (row?.parent as string | null | undefined) ?? null;
  }
}

/**
 * Changes to one organization's tree run one at a time until their transaction ends, so the
 * checks below see every committed change: without it, on PostgreSQL, "A under B" and "B under
 * A" at the same moment both passed the cycle check and left a loop. SQLite transactions of a
 * tenant already run one at a time.
 */
async function lockTree(env: Env, organization: string | null): Promise<void> {
  if (env.provider !== 'postgresql') return;
  const key = `storage.folder:${organization ?? ''}`;
  await env.db.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
}

/** A record id from values (already checked to be a UUID), as stored: lower case. */
const idOf = (v: unknown): string | null => (typeof v === 'string' && v ? v.toLowerCase() : null);

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

async function beforeCreate(ctx: HookContext): Promise<void> {
  const { env, payload } = ctx;
  const name = cleanName(payload.name);
  const parent = idOf(payload.parent);
  let organization: string | null;
  if (parent) {
    const p = await visibleFolder(env, parent, 'parent', FOLDER);
    // a system caller may name the organization; it must then be the parent's
    if (env.principal.kind === 'system' && payload.organization !== undefined) sameOrganization(p.organization, idOf(payload.organization), 'the new folder', parent);
    organization = p.organization;
  } else {
    organization = env.principal.kind === 'system' && payload.organization !== undefined
      ? idOf(payload.organization)
      : env.principal.organization_id ?? null;
  }
  await lockTree(env, organization);
  payload.name = name;
  payload.organization = organization;
  payload.sibling_key = await checkSiblingName(env, organization, parent, name);
}

async function beforeUpdate(ctx: HookContext): Promise<void> {
  const { env, payload } = ctx;
  const before = ctx.before!;
  const self = before.id as string;
  const organization = (before.organization as string) ?? null;
  // read-only for users; a system caller may not move a folder (and so its tree) across organizations either
  if ('organization' in payload && idOf(payload.organization) !== organization) {
    throw new ValidationError(`folder ${self} keeps its organization`, { folder: self, folder_organization: organization, organization: idOf(payload.organization) }, 'FOLDER_ORGANIZATION_MISMATCH');
  }
  const parent = 'parent' in payload ? idOf(payload.parent) : ((before.parent as string) ?? null);
  const moved = parent !== ((before.parent as string) ?? null);
  if (moved || 'name' in payload) await lockTree(env, organization);
  if (moved && parent) {
    if (parent === self) throw new ValidationError('a folder cannot be moved into itself or one of its subfolders', { id: self, parent }, 'FOLDER_CYCLE');
    const p = await visibleFolder(env, parent, 'parent', FOLDER);
    sameOrganization(p.organization, organization, `folder ${self}`, parent);
    await checkNoCycle(env, self, parent);
  }
  if (moved || 'name' in payload) {
    const name = 'name' in payload ? cleanName(payload.name) : (before.name as string);
    if ('name' in payload) payload.name = name;
    payload.sibling_key = await checkSiblingName(env, organization, parent, name, self);
  }
}

async function beforeDelete(ctx: HookContext): Promise<void> {
  const { env } = ctx;
  const id = ctx.before!.id as string;
  await lockTree(env, (ctx.before!.organization as string) ?? null);
  const docs = await documents(env).count({ where: { folder: id } });
  const archived = docs ? await documents(env).count({ where: { folder: id, is_active: false } }) : 0;
  const subfolders = await folders(env).count({ where: { parent: id } });
  if (!docs && !subfolders) return;
  const parts: string[] = [];
  if (docs) parts.push(plural(docs, 'document', 'documents') + (archived ? ` (${archived} archived)` : ''));
  if (subfolders) parts.push(plural(subfolders, 'subfolder', 'subfolders'));
  throw new Conflict(`Folder "${ctx.before!.name as string}" still holds ${parts.join(' and ')}; move or delete ${docs + subfolders === 1 ? 'it' : 'them'} first`,
    { id, name: ctx.before!.name, documents: docs, archived_documents: archived, subfolders }, 'FOLDER_NOT_EMPTY');
}

/** A document's folder must be readable by the caller and of the document's organization. */
export async function checkDocumentFolder(env: Env, folder: string, organization: string | null, what = 'the document', inTransaction = false): Promise<void> {
  const f = await visibleFolder(env, folder, 'folder', 'storage.document');
  sameOrganization(f.organization, organization, what, folder);
  // a concurrent delete of the folder finishes first: the write then fails on the missing folder
  // (INVALID_REFERENCE) instead of the delete's RECORD_REFERENCED
  if (inTransaction) await lockTree(env, f.organization);
}

async function documentFolder(ctx: HookContext): Promise<void> {
  const { env, payload } = ctx;
  const folder = idOf(payload.folder);
  if (!folder || (ctx.before && folder === ctx.before.folder)) return;
  const org = ctx.before ? (ctx.before.organization_id as string) ?? null : idOf(payload.organization_id);
  await checkDocumentFolder(env, folder, org, ctx.before ? `document ${ctx.before.id as string}` : 'the document', true);
}

export const folderHooks: HookDecl[] = [
  { point: 'pre.storage.folder.create', handler: beforeCreate },
  { point: 'pre.storage.folder.update', handler: beforeUpdate },
  { point: 'pre.storage.folder.delete', handler: beforeDelete },
  { point: 'pre.storage.document.create', handler: documentFolder },
  { point: 'pre.storage.document.update', handler: documentFolder },
];
