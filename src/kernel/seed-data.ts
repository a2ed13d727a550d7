import fs from 'node:fs';
import path from 'node:path';
import { delegateOf } from './data/delegate.js';
import type { Env } from './env.js';
import { BootError } from './errors.js';

interface DataRecord { xml_id: string; [field: string]: unknown }
interface DataFile { model: string; records: DataRecord[] }

/**
 * Loads an app's JSON data file (`{ model, records: [{ xml_id, … }] }`) idempotently: records
 * are matched by `xml_id`, created when missing and updated otherwise. A reference is written as
 * `<field>_id: "<xml_id of the target>"` (the spec's seed names: `parent_id`, `action_id`).
 */
export async function loadDataFile(env: Env, file: string): Promise<number> {
  const where = path.basename(file);
  const data = JSON.parse(fs.readFileSync(file, 'utf8')) as DataFile | DataFile[];
  let written = 0;
  for (const block of Array.isArray(data) ? data : [data]) {
    const model = env.registry.model(block.model);
    if (!model.fields.has('xml_id')) throw new BootError(`${where}: ${block.model} has no xml_id field, so its records cannot be seeded idempotently`);
    for (const rec of block.records) {
      const values: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(rec)) {
        const refField = k.endsWith('_id') ? model.fields.get(k.slice(0, -3)) : undefined;
        if (refField?.type === 'reference' && !model.fields.has(k)) {
          values[refField.name] = v === null ? null : await uuidOfXmlId(env, refField.target!, String(v), where);
        } else {
          values[k] = v;
        }
      }
      const existing = await delegateOf(env.db, model).findUnique({ where: { xml_id: rec.xml_id }, select: { record_uuid: true } });
      if (existing) {
        await env.dispatch('fw.update', { model: model.key, id: existing.record_uuid, values });
      } else {
        await env.dispatch('fw.create', { model: model.key, values });
      }
      written++;
    }
  }
  return written;
}

async function uuidOfXmlId(env: Env, modelKey: string, xmlId: string, where: string): Promise<string> {
  const row = await delegateOf(env.db, env.registry.model(modelKey)).findUnique({ where: { xml_id: xmlId }, select: { record_uuid: true } });
  if (!row) throw new BootError(`${where}: ${modelKey} "${xmlId}" is referenced before it is loaded`);
  return row.record_uuid as string;
}
