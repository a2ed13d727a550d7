/**
 * Generated Prisma schemas: a pure function of the registry, printed for SQLite and PostgreSQL,
 * headed "generated, do not edit", snapshot-tested, and equal to the committed prisma/ files.
 */
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { defineModel, f } from '../../src/kernel/declare.ts';
import { printSchemaFor, prismaSchemaPath } from '../../src/kernel/generate/index.ts';
import { GENERATED_HEADER } from '../../src/kernel/generate/prisma-schema.ts';
import { fullRegistry } from '../../src/kernel/generate/registry-all.ts';
import { createRegistry } from '../../src/kernel/kernel.ts';
import { pendingChanges } from '../../src/kernel/migrate/chains.ts';
import { projectLayout } from '../../src/kernel/modules/loader.ts';
import type { Registry } from '../../src/kernel/registry/registry.ts';
import resCountry from '../../schema/base/res.country.ts';
import { fixtureApp, PROVIDERS } from '../helpers/kernel.ts';

const layout = projectLayout();
let registry: Registry;

beforeAll(async () => {
  registry = await fullRegistry(layout);
});

describe.each(PROVIDERS)('the %s schema of the full registry', (provider) => {
  it('matches the reviewed snapshot', async () => {
    await expect(printSchemaFor(registry, provider)).toMatchFileSnapshot(`./__snapshots__/schema.${provider}.prisma`);
  });

  it(`equals the committed prisma/${provider}/schema.prisma (run the generator after changing a declaration)`, () => {
    const committed = fs.readFileSync(prismaSchemaPath(layout, provider), 'utf8');
    expect(printSchemaFor(registry, provider)).toBe(committed);
  });

  it("no app's declarations are ahead of its committed migration chain", () => {
    for (const app of registry.apps) expect(pendingChanges(app), app.name).toBeNull();
  });

  it('starts with the "generated, do not edit" header and declares its provider', () => {
    const text = printSchemaFor(registry, provider);
    expect(text.split('\n')[0]).toBe(GENERATED_HEADER);
    expect(text).toMatch(/Do not edit/);
    expect(text).toContain(`provider = "${provider}"`);
  });

  it('has one model per registry entry, mapped to its table', () => {
    const text = printSchemaFor(registry, provider);
    for (const m of registry.models.values()) {
      expect(text).toContain(`model ${m.names.typeName} {`);
      expect(text).toContain(`@@map("${m.names.table}")`);
    }
  });

  it('printing twice gives the same text (pure)', () => {
    expect(printSchemaFor(registry, provider)).toBe(printSchemaFor(registry, provider));
  });
});

describe('how a declaration becomes columns', () => {
  const reg = createRegistry([fixtureApp('fixture_base', {
    models: [resCountry, defineModel({
      key: 'res.thing',
      description: 'Thing',
      fields: {
        name: f.char(40, { required: true, unique: true }),
        notes: f.text(),
        size: f.integer({ default: 3 }),
        ratio: f.float(),
        active: f.boolean({ default: true }),
        seen_at: f.datetime(),
        data: f.json(),
        external: f.uuid({ index: true }),
        state: f.enum(['draft', 'done'], { default: 'draft' }),
        country: f.reference('res.country', { required: true }),
        backup_country: f.reference('res.country', { on_delete: 'cascade' }),
      },
    })],
  })]);

  it('on PostgreSQL Char(n) is VarChar(n), DateTime is timestamptz, references are uuid columns', () => {
    const text = printSchemaFor(reg, 'postgresql');
    const block = text.slice(text.indexOf('model ResThing {'));
    expect(block).toMatch(/name\s+String\s+@unique @db\.VarChar\(40\)/);
    expect(block).toMatch(/notes\s+String\?\s+@db\.Text/);
    expect(block).toMatch(/size\s+Int\s+@default\(3\)/);
    expect(block).toMatch(/ratio\s+Float\?\s+@db\.DoublePrecision/);
    expect(block).toMatch(/active\s+Boolean\s+@default\(true\)/);
    expect(block).toMatch(/seen_at\s+DateTime\?\s+@db\.Timestamptz\(3\)/);
    expect(block).toMatch(/data\s+Json\?/);
    expect(block).toMatch(/external\s+String\?\s+@db\.Uuid/);
    expect(block).toMatch(/state\s+String\s+@default\("draft"\) @db\.VarChar\(64\)/);
    expect(block).toMatch(/country\s+String\s+@db\.Uuid/);
    expect(block).toMatch(/@@index\(\[external\]\)/);
  });

  it('the automatic fields become dbid (autoincrement id), record_uuid (unique), timestamps and revision (default 1)', () => {
    const text = printSchemaFor(reg, 'sqlite');
    const block = text.slice(text.indexOf('model ResThing {'));
    expect(block).toMatch(/dbid\s+Int\s+@id @default\(autoincrement\(\)\)/);
    expect(block).toMatch(/record_uuid\s+String\s+@unique/);
    expect(block).toMatch(/created_at_utc\s+DateTime\s+@default\(now\(\)\)/);
    expect(block).toMatch(/updated_at_utc\s+DateTime\s+@updatedAt/);
    expect(block).toMatch(/revision\s+Int\s+@default\(1\)/);
  });

  it('a Reference becomes a relation on the target record_uuid with its on-delete rule, and the target gets a back-relation', () => {
    const text = printSchemaFor(reg, 'sqlite');
    expect(text).toMatch(/country_rel\s+ResCountry\s+@relation\("ResThing_country", fields: \[country\], references: \[record_uuid\], onDelete: Restrict\)/);
    expect(text).toMatch(/backup_country_rel\s+ResCountry\?\s+@relation\("ResThing_backup_country", fields: \[backup_country\], references: \[record_uuid\], onDelete: Cascade\)/);
    const country = text.slice(text.indexOf('model ResCountry {'), text.indexOf('model ResThing {'));
    expect(country).toMatch(/rev_res_thing_country\s+ResThing\[\]\s+@relation\("ResThing_country"\)/);
  });

  it('the committed schema keeps res.organization.users as the One2Many side of res.user.organization', () => {
    const text = printSchemaFor(registry, 'sqlite');
    expect(text).toMatch(/users\s+ResUser\[\]\s+@relation\("ResUser_organization"\)/);
    expect(text).toMatch(/organization_rel\s+ResOrganization\?\s+@relation\("ResUser_organization", fields: \[organization\], references: \[record_uuid\], onDelete: SetNull\)/);
  });
});
