/**
 * generated/fw-types.ts: a pure function of the registry (snapshot of a fixture covering every
 * field type and command form), equal to the committed file for fw's own apps, written only
 * when its text changes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defineModel, f } from '../../src/kernel/declare.ts';
import { APP_TYPES_FILE, printAppTypes, writeAppTypes } from '../../src/kernel/generate/app-types.ts';
import { fullRegistry } from '../../src/kernel/generate/registry-all.ts';
import { createRegistry } from '../../src/kernel/kernel.ts';
import { projectLayout } from '../../src/kernel/modules/loader.ts';
import { o } from '../../src/kernel/output.ts';
import { fixtureApp } from '../helpers/kernel.ts';

const ticket = defineModel({
  key: 'acme.ticket',
  description: 'Ticket',
  fields: {
    title: f.char(100, { required: true }),
    body: f.text(),
    points: f.integer({ default: 1 }),
    weight: f.float(),
    urgent: f.boolean({ required: true }),
    due: f.datetime(),
    meta: f.json(),
    token: f.uuid({ readonly: true }),
    secret: f.char(50, { private: true }),
    state: f.enum(['open', 'done'], { default: 'open' }),
    owner: f.reference('acme.person'),
    subtasks: f.one2many('acme.person', 'ticket'),
  },
});
const person = defineModel({
  key: 'acme.person',
  description: 'Person',
  fields: { name: f.char(80, { required: true }), ticket: f.reference('acme.ticket') },
});
const none = async (): Promise<unknown> => undefined;

function fixtureRegistry() {
  return createRegistry([fixtureApp('acme.desk', {
    models: [ticket, person],
    commands: [
      { name: 'acme.ticket.close', record: true, returns: 'record', input: { note: f.text({ required: true }) }, handler: none },
      { name: 'acme.ticket.ping', record: true, returns: 'void', handler: none },
      { name: 'acme.desk.stats', mutates: false, output: o.object('DeskStats', { open: o.int(), names: o.list(o.string()), last: o.nullable(o.datetime()) }), handler: none },
      { name: 'acme.desk.flat', mutates: false, output: o.object('DeskFlat', { n: o.int({ from: () => 1 }) }), handler: none },
      { name: 'acme.desk.free', returns: 'json', input: { level: f.integer({ default: 2 }) }, handler: none },
      { name: 'acme.desk.triage', mutates: false, output: o.object('DeskTriage', { next: o.record('acme.ticket', { nullable: true }), people: o.list(o.record('acme.person')) }), handler: none },
    ],
  })]);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-app-types-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('printAppTypes', () => {
  it('matches the reviewed snapshot for a fixture with every field type and command form', async () => {
    await expect(printAppTypes(fixtureRegistry())).toMatchFileSnapshot('./__snapshots__/fw-types.fixture.ts.snap');
  });

  it('types a record (private and one2many left out, nullable unless required or defaulted), create (required without default) and update (all optional)', () => {
    const text = printAppTypes(fixtureRegistry());
    expect(text).toContain('export type AcmeTicketRecord = {\n  id: string;');
    expect(text).not.toMatch(/secret/);
    expect(text).toContain('  title: string;\n  body: string | null;\n  points: number;');
    expect(text).toContain('  state: "open" | "done";');
    // a one2many has no column: records (toRecord) do not carry it
    expect(text).not.toMatch(/subtasks/);
    expect(text).toMatch(/AcmeTicketCreate = \{\n {2}title: string;\n {2}body\?: string \| null;\n {2}points\?: number;/);
    // read-only fields are not writable through fw.create / fw.update; one2many has no column
    expect(text).not.toMatch(/AcmeTicketCreate = \{[^}]*token/);
    expect(text).toMatch(/AcmeTicketUpdate = \{\n {2}title\?: string;/);
  });

  it("types each command's payload from its input and its result from returns/output; a shape with `from` stays unknown", () => {
    const text = printAppTypes(fixtureRegistry());
    expect(text).toContain('"acme.ticket.close": {\n    payload: {\n      id: string;\n      note: string;\n    };\n    result: AcmeTicketRecord;\n    model: "acme.ticket";');
    expect(text).toContain('"acme.ticket.ping": {\n    payload: { id: string; [field: string]: unknown };\n    result: void;');
    expect(text).toMatch(/"acme\.desk\.stats": \{\n {4}payload: Record<string, unknown>;\n {4}result: \{\n {6}open: number;\n {6}names: Array<string>;\n {6}last: string \| null;/);
    expect(text).toMatch(/"acme\.desk\.flat": \{\n {4}payload: Record<string, unknown>;\n {4}result: unknown;/);
    expect(text).toMatch(/"acme\.desk\.free": \{\n {4}payload: \{\n {6}level\?: number;\n {4}\};\n {4}result: unknown;/);
    expect(text).toContain("declare module 'fw/app' {\n  interface FwModels extends Models {}\n  interface FwCommands extends Commands {}\n}");
  });
});

describe('generated/fw-types.ts of fw itself', () => {
  it('equals the types printed from every app (run `fw generate` after changing a declaration or command)', async () => {
    const layout = projectLayout();
    const committed = fs.readFileSync(path.join(layout.root, 'generated', APP_TYPES_FILE), 'utf8');
    expect(printAppTypes(await fullRegistry(layout)).split('\n')).toEqual(committed.split('\n'));
  });
});

describe('writeAppTypes', () => {
  it('writes <root>/generated/fw-types.ts, then reports no change for the same registry and rewrites after one', () => {
    const reg = fixtureRegistry();
    expect(writeAppTypes(tmp, reg)).toBe(true);
    expect(fs.readFileSync(path.join(tmp, 'generated', APP_TYPES_FILE), 'utf8')).toBe(printAppTypes(reg));
    expect(writeAppTypes(tmp, reg)).toBe(false);
    fs.appendFileSync(path.join(tmp, 'generated', APP_TYPES_FILE), '// edited by hand\n');
    expect(writeAppTypes(tmp, reg)).toBe(true);
  });
});
