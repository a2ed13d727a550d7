/**
 * docs/configuration.md lists every setting the code defines, with its kind and default, and no
 * setting the code does not define. The tables are found in the source (every file calling
 * `defineSettings(`), so a new app table is checked without editing this test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { APP_SETTINGS, SETTINGS } from '../../src/kernel/settings.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const KINDS = new Set(['string', 'int', 'number', 'bool', 'list']);

interface Spec { kind: string; default: string; generated?: boolean }

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

/** `| \`NAME\` | kind | default | meaning |` rows of docs/configuration.md: name → [kind, default]. */
function documentedSettings(): Map<string, [string, string]> {
  const out = new Map<string, [string, string]>();
  for (const line of fs.readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8').split('\n')) {
    const m = /^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|([^|]*)\|([^|]*)\|/.exec(line);
    if (m && KINDS.has(m[2]!.trim())) out.set(m[1]!, [m[2]!.trim(), m[3]!.trim()]);
  }
  return out;
}

/** How the docs show a default: the value in backticks; an empty one and a generated key in words. */
function shown(spec: Spec): string[] {
  if (spec.generated) return ['*(generated)*'];
  if (spec.default === '') return ['*(empty)*', 'empty'];
  return [`\`${spec.default}\``];
}

const code = new Map<string, Spec>();

beforeAll(async () => {
  const tables = sourceFiles(path.join(ROOT, 'src')).filter((f) => /\bdefineSettings\(\s*'/.test(fs.readFileSync(f, 'utf8')));
  for (const file of tables) await import(pathToFileURL(file).href);
  for (const [name, spec] of Object.entries(SETTINGS)) code.set(name, spec);
  for (const { table } of APP_SETTINGS) for (const [name, spec] of Object.entries(table)) code.set(name, spec);
}, 60_000);

describe('docs/configuration.md', () => {
  it('lists every setting of the kernel and of every app table (found in src/), with its kind and default', () => {
    expect(APP_SETTINGS.length).toBeGreaterThanOrEqual(7);
    const docs = documentedSettings();
    const problems: string[] = [];
    for (const [name, spec] of code) {
      const row = docs.get(name);
      if (!row) problems.push(`${name}: no row`);
      else if (row[0] !== spec.kind) problems.push(`${name}: kind ${row[0]}, code ${spec.kind}`);
      else if (!shown(spec).includes(row[1])) problems.push(`${name}: default ${row[1]}, code ${shown(spec)[0]}`);
    }
    expect(problems).toEqual([]);
  });

  it('lists no setting the code does not define', () => {
    expect([...documentedSettings().keys()].filter((name) => !code.has(name))).toEqual([]);
  });
});
