/**
 * The French catalogue (web/src/i18n/fr.ts) carries exactly the ids a person can read: every id of
 * the initial English catalogue (en.ts) and of every chunk's own messages (the modules calling
 * `chunkMessages(…)`, found by searching web/src, so a new one is not forgotten) — none missing,
 * none extra — and each translation uses the same ICU arguments as its English text, so nothing
 * the English shows (a count, a name) is lost in French. Besides, `error.code.<CODE>` entries
 * translate the server's error messages (English, by code), each naming a code the server raises.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { describe, expect, it } from 'vitest';
import { en } from '../../../web/src/i18n/en.ts';
import { fr } from '../../../web/src/i18n/fr.ts';

const WEB_SRC = path.resolve(import.meta.dirname, '../../../web/src');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? (e.name === 'gql' ? [] : sources(p)) : /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** `export const useXT = chunkMessages(xMessages)` → the module's `xMessages` export. */
async function chunkCatalogues(): Promise<Record<string, Record<string, string>>> {
  const out: Record<string, Record<string, string>> = {};
  for (const file of sources(WEB_SRC)) {
    if (file.endsWith(path.join('i18n', 'chunk-messages.ts'))) continue;
    for (const m of fs.readFileSync(file, 'utf8').matchAll(/chunkMessages\((\w+)\)/g)) {
      const mod = (await import(file)) as Record<string, Record<string, string>>;
      out[path.relative(WEB_SRC, file)] = mod[m[1]];
    }
  }
  return out;
}

function argumentsOf(message: string): string[] {
  const names = new Set<string>();
  const walk = (els: MessageFormatElement[]) => {
    for (const el of els) {
      if (el.type === TYPE.literal || el.type === TYPE.pound) continue;
      if ('value' in el && typeof el.value === 'string') names.add(el.value);
      if (el.type === TYPE.plural || el.type === TYPE.select) for (const o of Object.values(el.options)) walk(o.value);
      if (el.type === TYPE.tag) walk(el.children);
    }
  };
  walk(parse(message));
  return [...names].sort();
}

describe('the French catalogue', () => {
  it('has exactly the ids of en.ts and of every chunk\'s messages: none missing, none extra', async () => {
    const chunks = await chunkCatalogues();
    expect(Object.keys(chunks).length).toBeGreaterThanOrEqual(8);
    const expected = new Set([...Object.keys(en), ...Object.values(chunks).flatMap((c) => Object.keys(c))]);
    const ids = new Set(Object.keys(fr).filter((id) => !id.startsWith('error.code.') && !id.startsWith('error.field.')));
    expect([...expected].filter((id) => !ids.has(id)), 'missing in fr.ts').toEqual([]);
    expect([...ids].filter((id) => !expected.has(id)), 'in fr.ts but nowhere in English').toEqual([]);
  });

  it('each French message parses and uses the same ICU arguments as its English one', async () => {
    const english: Record<string, string> = { ...en, ...Object.assign({}, ...Object.values(await chunkCatalogues())) };
    const differ = Object.keys(fr).filter((id) => id in english && argumentsOf(fr[id]).join() !== argumentsOf(english[id]).join());
    expect(differ).toEqual([]);
  });

  it('each error.code.<CODE> and error.field.<CODE> entry names a code the server raises (a string in src/)', () => {
    const server = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const p = path.join(dir, e.name);
      return e.isDirectory() ? (e.name === 'web' ? [] : server(p)) : e.name.endsWith('.ts') ? [fs.readFileSync(p, 'utf8')] : [];
    });
    const text = server(path.resolve(import.meta.dirname, '../../../src')).join('\n');
    const codes = Object.keys(fr).filter((id) => id.startsWith('error.code.') || id.startsWith('error.field.')).map((id) => id.replace(/^error\.(code|field)\./, ''));
    expect(codes.length).toBeGreaterThan(0);
    expect(codes.filter((c) => !text.includes(`'${c}'`))).toEqual([]);
  });

  it('an id is either in the initial catalogue or in one chunk\'s messages, never both', async () => {
    const seen = new Map<string, string>(Object.keys(en).map((id) => [id, 'i18n/en.ts']));
    const twice: string[] = [];
    for (const [file, messages] of Object.entries(await chunkCatalogues())) {
      for (const id of Object.keys(messages)) { if (seen.has(id)) twice.push(`${id}: ${seen.get(id)} and ${file}`); seen.set(id, file); }
    }
    expect(twice).toEqual([]);
  });
});
