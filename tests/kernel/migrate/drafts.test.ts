/**
 * fw dev's drafts in a dev tenant whose chain changed under it (src/kernel/migrate/drafts.ts): a
 * draft the developer deleted, and drafts finalised while the tenant had applied only some of
 * them, are undone in the tenant before the chain applies, so the columns they made do not stay
 * behind (the next draft adding one again failed for good with "duplicate column"). A real app
 * chain in a temp project, written by the real generator; a real SQLite file.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defineModel, f, type ModelDecl } from '../../../src/kernel/declare.ts';
import { BootError, Conflict } from '../../../src/kernel/errors.ts';
import { kernelApp } from '../../../src/kernel/kernel-app.ts';
import { generateAppMigration, type ChainApp } from '../../../src/kernel/migrate/chains.ts';
import { draftsOf, replacingDrafts, writeDrafts } from '../../../src/kernel/migrate/drafts.ts';
import { tenantPlan } from '../../../src/kernel/migrate/plan.ts';
import { upgradeSchema } from '../../../src/kernel/migrate/upgrade.ts';
import { FW_ROOT } from '../../../src/kernel/modules/loader.ts';
import { fixtureApp, tempDir, withChain } from '../../helpers/kernel.ts';

const note = (extra: Record<string, ReturnType<typeof f.char>> = {}): ModelDecl =>
  defineModel({ key: 'drafty.note', description: 'Note', fields: { name: f.char(50), ...extra } });

let app: ChainApp & { root: string };
let dataDir: string;
let file: string;

beforeEach(async () => {
  app = await withChain(fixtureApp('drafty', { models: [note()] }));
  dataDir = tempDir('drafts-data');
  file = path.join(dataDir, 'dev.db');
});
afterEach(() => {
  fs.rmSync(app.root, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The app declaring `models` now; apps as a dev server boots them. */
const declaring = (models: ModelDecl[]): ChainApp => ({ ...app, models });
const layout = () => ({ root: app.root, fwRoot: FW_ROOT });
/** Opens the dev tenant as a dev server does (FW_DEV: drafts applied, left ones undone). */
const said: string[] = [];
const devOpen = (now: ChainApp, dir = dataDir) =>
  upgradeSchema({ provider: 'sqlite', file }, tenantPlan(FW_ROOT, [kernelApp(), now], 'sqlite', async () => [kernelApp(), now], { apps: [kernelApp(), now], dataDir: dir, say: (l) => said.push(l) }));
const draft = async (now: ChainApp, at: string) => (await writeDrafts(layout(), [kernelApp(), now], { now: new Date(at) }))[0].folder;
const columns = () => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT name FROM pragma_table_info('drafty_note')").all() as Array<{ name: string }>).map((c) => c.name).filter((c) => c.startsWith('extra'));
  } finally {
    db.close();
  }
};
const recorded = () => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT name FROM _fw_migrations WHERE name LIKE 'drafty/%' ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);
  } finally {
    db.close();
  }
};

describe('drafts a dev tenant applied that left the chain', () => {
  it('a draft deleted by hand is undone in the dev database, so adding its field again drafts and applies cleanly', async () => {
    const a = declaring([note({ extra_a: f.char(20) })]);
    const d1 = await draft(a, '2030-01-01T00:00:00Z');
    await devOpen(a);
    expect(columns()).toEqual(['extra_a']);

    // the developer deletes the draft and the field
    fs.rmSync(path.join(app.root, 'prisma/migrations/drafty', d1), { recursive: true });
    const plain = declaring([note()]);
    said.length = 0;
    const out = await devOpen(plain);
    expect(out).toContain(`drafty/~rewind_dev (undid drafty/${d1})`);
    expect(said).toEqual([`fw dev: drafty/${d1} is no longer in prisma/migrations/drafty: undoing drafty/${d1} in the dev database, then applying the chain from there`]);
    expect(columns()).toEqual([]);
    expect(recorded()).not.toContain(`drafty/${d1}`);

    // the field back: a new draft, applied where it used to fail with "duplicate column name"
    const d2 = await draft(a, '2030-01-01T00:01:00Z');
    await devOpen(a);
    expect(columns()).toEqual(['extra_a']);
    expect(recorded()).toContain(`drafty/${d2}`);
    // nothing left to undo: opening again changes nothing
    expect(await devOpen(a)).toEqual([]);
  });

  it('only the drafts from the first one missing onwards are undone; earlier ones keep their columns and data', async () => {
    const a = declaring([note({ extra_a: f.char(20) })]);
    await draft(a, '2030-01-01T00:00:00Z');
    await devOpen(a);
    const db = new Database(file);
    // every NOT NULL column of the table filled, whatever the kernel adds to each model
    const required = (db.prepare("SELECT name FROM pragma_table_info('drafty_note') WHERE \"notnull\" = 1 AND dflt_value IS NULL AND pk = 0").all() as Array<{ name: string }>).map((c) => c.name);
    const values: Record<string, string> = Object.fromEntries(required.map((c) => [c, c === 'record_uuid' ? '00000000-0000-4000-8000-000000000001' : '2030-01-01T00:00:00Z']));
    Object.assign(values, { name: 'kept', extra_a: 'still here' });
    db.prepare(`INSERT INTO drafty_note (${Object.keys(values).join(', ')}) VALUES (${Object.keys(values).map(() => '?').join(', ')})`).run(...Object.values(values));
    db.close();
    const ab = declaring([note({ extra_a: f.char(20), extra_b: f.char(20) })]);
    const d2 = await draft(ab, '2030-01-01T00:01:00Z');
    await devOpen(ab);
    expect(columns()).toEqual(['extra_a', 'extra_b']);
    fs.rmSync(path.join(app.root, 'prisma/migrations/drafty', d2), { recursive: true });
    await devOpen(a);
    expect(columns()).toEqual(['extra_a']);
    const check = new Database(file, { readonly: true });
    expect(check.prepare('SELECT extra_a FROM drafty_note').get()).toEqual({ extra_a: 'still here' });
    check.close();
  });

  it('drafts finalised while the tenant had applied only some of them: those are undone and the real migration runs', async () => {
    const a = declaring([note({ extra_a: f.char(20) })]);
    await draft(a, '2030-01-01T00:00:00Z');
    await devOpen(a);
    // a second draft is written but never applied (its server did not boot), then all are finalised
    const ab = declaring([note({ extra_a: f.char(20), extra_b: f.char(20) })]);
    await draft(ab, '2030-01-01T00:01:00Z');
    const { written, replaced } = await replacingDrafts(ab, () => generateAppMigration(app.root, [kernelApp(), ab], 'drafty', { description: 'a and b', now: new Date('2030-01-01T00:02:00Z') }));
    expect(replaced).toHaveLength(2);
    expect(draftsOf(ab)).toEqual([]);
    const out = await devOpen(ab);
    expect(out).toEqual(expect.arrayContaining([expect.stringMatching(/^drafty\/~rewind_dev \(undid drafty\/\d{14}_draft_dev\)$/), `drafty/${written!.folder}`]));
    expect(columns()).toEqual(['extra_a', 'extra_b']);
    expect(recorded().filter((n) => n.endsWith('_draft_dev'))).toEqual([]);
  });

  it('a draft left without the copy fw dev keeps of it stops the open with DRAFT_GONE, naming it and how to go on; the tenant is left as it was', async () => {
    const a = declaring([note({ extra_a: f.char(20) })]);
    const d1 = await draft(a, '2030-01-01T00:00:00Z');
    // applied by a dev server keeping its copies elsewhere (an older fw kept none)
    await devOpen(a, tempDir('other-data'));
    fs.rmSync(path.join(app.root, 'prisma/migrations/drafty', d1), { recursive: true });
    const err = await devOpen(declaring([note()])).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(BootError);
    expect((err as BootError).code).toBe('DRAFT_GONE');
    expect((err as BootError).message).toContain(`drafty/${d1}`);
    expect((err as BootError).message).toContain('put the folder back');
    expect(columns()).toEqual(['extra_a']);
    expect(recorded()).toContain(`drafty/${d1}`);
  });

  it('outside fw dev (no dev plan) nothing is undone', async () => {
    const a = declaring([note({ extra_a: f.char(20) })]);
    const d1 = await draft(a, '2030-01-01T00:00:00Z');
    await devOpen(a);
    fs.rmSync(path.join(app.root, 'prisma/migrations/drafty', d1), { recursive: true });
    const plain = declaring([note()]);
    await upgradeSchema({ provider: 'sqlite', file }, tenantPlan(FW_ROOT, [kernelApp(), plain], 'sqlite', async () => [kernelApp(), plain]));
    expect(columns()).toEqual(['extra_a']);
  });
});

describe('a draft that loses data', () => {
  it('is refused under fw dev with the way on that fw dev takes (restart it with --allow-data-loss), and written with that flag', async () => {
    const a = declaring([note({ extra_a: f.char(20) })]);
    await draft(a, '2030-01-01T00:00:00Z');
    const plain = declaring([note()]);
    const err = await writeDrafts(layout(), [kernelApp(), plain]).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(Conflict);
    expect((err as Conflict).code).toBe('MIGRATION_LOSES_DATA');
    expect((err as Conflict).message).toContain('drafty.note.extra_a: column dropped');
    expect((err as Conflict).message).toContain('restart fw dev with --allow-data-loss');
    expect((err as Conflict).message).not.toContain('run again with');
    expect(draftsOf(plain)).toHaveLength(1);
    const written = await writeDrafts(layout(), [kernelApp(), plain], { allowDataLoss: true, now: new Date('2030-01-01T00:01:00Z') });
    expect(written[0].effects.filter((e) => e.loses).map((e) => e.subject)).toEqual(['drafty.note.extra_a']);
    expect(draftsOf(plain)).toHaveLength(2);
  });
});
