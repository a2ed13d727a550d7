/**
 * "Successful writes must be consistent": invariants of the fuzz tenant's data checked with SQL
 * between batches, whatever the fuzzer managed to write — every reference points at a row, Char
 * values fit their size and Enum values their list, organization slugs are slugs, the folder tree
 * has no cycles and stays inside one organization, documents agree with their versions, and every
 * local version's object exists on disk (and no object is left without its row).
 */
import fs from 'node:fs';
import path from 'node:path';
import { FUZZ_TENANT, type FuzzHarness } from './harness.ts';

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

function walk(dir: string, out: string[] = []): string[] {
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

export async function integrityProblems(h: FuzzHarness): Promise<string[]> {
  const problems: string[] = [];
  const { registry } = h.kernel;
  const rows = <T = Record<string, unknown>>(sql: string) => h.probe.rows<T>(sql);
  const distinct = h.provider === 'sqlite' ? 'IS NOT' : 'IS DISTINCT FROM';

  for (const m of registry.models.values()) {
    const table = m.names.table;
    const checked: string[] = [];
    for (const f of m.fields.values()) {
      if (!f.stored) continue;
      if (f.type === 'reference' && f.target && registry.models.has(f.target)) {
        const target = registry.models.get(f.target)!.names.table;
        const [r] = await rows<{ n: number | string }>(`SELECT count(*) AS n FROM "${table}" c WHERE c."${f.name}" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "${target}" p WHERE p.record_uuid = c."${f.name}")`);
        if (Number(r.n) > 0) problems.push(`${m.key}.${f.name}: ${r.n} row(s) refer to a ${f.target} that does not exist`);
      }
      if ((f.type === 'char' && f.size) || (f.type === 'enum' && f.values)) checked.push(f.name);
    }
    if (!checked.length) continue;
    for (const row of await rows<Record<string, unknown>>(`SELECT record_uuid, ${checked.map((c) => `"${c}"`).join(', ')} FROM "${table}"`)) {
      for (const name of checked) {
        const f = m.fields.get(name)!;
        const v = row[name];
        if (v === null || v === undefined) continue;
        if (f.type === 'char' && [...String(v)].length > f.size!) problems.push(`${m.key}.${name} of ${row.record_uuid} holds ${[...String(v)].length} characters, more than its size ${f.size}`);
        if (f.type === 'enum' && !f.values!.includes(String(v))) problems.push(`${m.key}.${name} of ${row.record_uuid} holds ${JSON.stringify(v)}, not one of its values`);
      }
    }
  }

  for (const r of await rows<{ record_uuid: string; code: string | null }>('SELECT record_uuid, code FROM res_organization')) {
    if (r.code !== null && !SLUG.test(r.code)) problems.push(`res.organization ${r.record_uuid} has the code ${JSON.stringify(r.code)}, not a slug`);
  }

  // folders: one organization per tree, no cycles; documents filed in a folder of their organization
  const folders = await rows<{ record_uuid: string; parent: string | null; organization: string | null }>('SELECT record_uuid, parent, organization FROM storage_folder');
  const byId = new Map(folders.map((f) => [f.record_uuid, f]));
  for (const f of folders) {
    const parent = f.parent ? byId.get(f.parent) : undefined;
    if (parent && parent.organization !== f.organization) problems.push(`storage.folder ${f.record_uuid} belongs to another organization than its parent ${parent.record_uuid}`);
    const seen = new Set<string>();
    for (let cur: typeof f | undefined = f; cur?.parent; cur = byId.get(cur.parent)) {
      if (seen.has(cur.record_uuid)) {
        problems.push(`storage.folder ${f.record_uuid} is in a cycle`);
        break;
      }
      seen.add(cur.record_uuid);
    }
  }
  const misfiled = await rows<{ record_uuid: string }>(`SELECT d.record_uuid FROM storage_document d JOIN storage_folder f ON d.folder = f.record_uuid WHERE d.organization_id ${distinct} f.organization`);
  for (const d of misfiled) problems.push(`storage.document ${d.record_uuid} is filed in a folder of another organization`);

  // documents and their versions
  const docs = await rows<{ record_uuid: string; version_count: number; current_version: number; n: number | string; mx: number | string | null }>(
    'SELECT d.record_uuid, d.version_count, d.current_version, (SELECT count(*) FROM storage_document_version v WHERE v.document_id = d.record_uuid) AS n, (SELECT max(v.version_number) FROM storage_document_version v WHERE v.document_id = d.record_uuid) AS mx FROM storage_document d',
  );
  for (const d of docs) {
    if (Number(d.n) !== Number(d.version_count) || Number(d.mx) !== Number(d.current_version)) {
      problems.push(`storage.document ${d.record_uuid}: version_count ${d.version_count}, current_version ${d.current_version}, but ${d.n} version row(s), the highest ${d.mx}`);
    }
  }

  problems.push(...await storageProblems(h));
  return problems;
}

/**
 * Objects of the local default backend (<DATA_DIR>/storage/<key>): each version's exists, none is
 * orphaned. Cheap enough to run after every request that touches storage, so an orphan is pinned
 * on the request that left it.
 */
export async function storageProblems(h: FuzzHarness): Promise<string[]> {
  const problems: string[] = [];
  const rows = <T = Record<string, unknown>>(sql: string) => h.probe.rows<T>(sql);
  const root = path.join(h.dataDir, 'storage');
  const versions = await rows<{ storage_key: string; connector_id: string | null; storage_backend: string }>('SELECT storage_key, connector_id, storage_backend FROM storage_document_version');
  const keys = new Set<string>();
  for (const v of versions) {
    if (v.connector_id || v.storage_backend !== 'local') continue;
    keys.add(path.normalize(v.storage_key));
    if (!fs.existsSync(path.join(root, v.storage_key))) problems.push(`storage object ${v.storage_key} of a version row is missing on disk`);
  }
  for (const file of walk(path.join(root, FUZZ_TENANT))) {
    const key = path.relative(root, file);
    if (!keys.has(path.normalize(key)) && !path.basename(key).startsWith('.')) problems.push(`storage object ${key} has no version row (orphan)`);
  }
  return problems;
}
