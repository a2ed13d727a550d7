/**
 * The French catalogue (web/src/i18n/fr.ts) carries exactly the ids a person can read: every id of
 * the initial English catalogue (en.ts) and of every chunk's own messages (the modules calling
 * `chunkMessages(…)`, found by searching web/src, so a new one is not forgotten) — none missing,
 * none extra — and each translation uses the same ICU arguments as its English text, so nothing
 * the English shows (a count, a name) is lost in French. Besides, `error.code.<CODE>` entries
 * translate the server's error messages (English, by code), each naming a code the server raises.
 *
 * The apps' web extensions bring their own messages (`src/apps/<app>/web/messages.ts`, passed to
 * `defineWebExtension({ messages })`): the same rules hold for each app, in every language fw's
 * client speaks, and its ids are its own (its prefix, no other app's nor fw's).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { describe, expect, it } from 'vitest';
import { NETWORK_REASONS } from '../../../src/apps/connectors/providers/values.ts';
import { en } from '../../../web/src/i18n/en.ts';
import { fr } from '../../../web/src/i18n/fr.ts';

const WEB_SRC = path.resolve(import.meta.dirname, '../../../web/src');
const APPS = path.resolve(import.meta.dirname, '../../../src/apps');
/** The languages fw's client has a catalogue for (web/src/i18n/index.tsx): every app speaks each. */
const LANGUAGES = ['en', 'fr'];

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

/** Every app with a web folder → its `web/messages.ts` export, or null when it has none. */
async function appMessages(): Promise<Map<string, Record<string, Record<string, string>> | null>> {
  const out = new Map<string, Record<string, Record<string, string>> | null>();
  for (const app of fs.readdirSync(APPS).sort()) {
    if (!fs.existsSync(path.join(APPS, app, 'web'))) continue;
    const file = path.join(APPS, app, 'web', 'messages.ts');
    out.set(app, fs.existsSync(file) ? ((await import(file)) as { messages: Record<string, Record<string, string>> }).messages : null);
  }
  return out;
}

describe('the apps\' web messages', () => {
  it('an app whose web code reads messages (useAppT) ships web/messages.ts and passes it to defineWebExtension', async () => {
    const apps = await appMessages();
    expect([...apps.entries()].filter(([, m]) => m).map(([a]) => a)).toEqual(expect.arrayContaining(['base', 'connectors', 'crm.sales', 'storage']));
    for (const [app, messages] of apps) {
      const code = sources(path.join(APPS, app, 'web')).map((f) => fs.readFileSync(f, 'utf8'));
      if (code.some((c) => c.includes('useAppT'))) expect(messages, `${app} reads messages but has no web/messages.ts`).not.toBeNull();
      if (!messages) continue;
      const entry = fs.readFileSync(path.join(APPS, app, 'web', 'index.tsx'), 'utf8');
      expect(entry, app).toMatch(/import \{ messages \} from '\.\/messages\.ts'/);
      expect(entry, app).toMatch(/defineWebExtension\(\{[\s\S]*\bmessages\b[\s\S]*\}\)/);
    }
  });

  it('each app has every language of fw\'s client, each with exactly its English ids and the same ICU arguments', async () => {
    for (const [app, messages] of await appMessages()) {
      if (!messages) continue;
      expect(Object.keys(messages).sort(), app).toEqual(LANGUAGES);
      const ids = Object.keys(messages.en).sort();
      expect(ids.length, app).toBeGreaterThan(0);
      for (const lang of LANGUAGES) {
        expect(Object.keys(messages[lang]).sort(), `${app} ${lang}`).toEqual(ids);
        const differ = ids.filter((id) => argumentsOf(messages[lang][id]).join() !== argumentsOf(messages.en[id]).join());
        expect(differ, `${app} ${lang}: ICU arguments differ`).toEqual([]);
      }
    }
  });

  it('an app\'s ids start with its prefix and are no one else\'s: not fw\'s, not a chunk\'s, not another app\'s', async () => {
    const seen = new Map<string, string>([...Object.keys(en), ...Object.values(await chunkCatalogues()).flatMap((c) => Object.keys(c))].map((id) => [id, 'fw']));
    const clashes: string[] = [];
    for (const [app, messages] of await appMessages()) {
      if (!messages) continue;
      const prefix = `${app.split('.')[0]}.`;
      expect(Object.keys(messages.en).filter((id) => !id.startsWith(prefix)), app).toEqual([]);
      for (const id of Object.keys(messages.en)) { if (seen.has(id)) clashes.push(`${id}: ${seen.get(id)} and ${app}`); seen.set(id, app); }
    }
    expect(clashes).toEqual([]);
  });

  it('each message id the connectors server answers a test or an OAuth callback with is one of the connectors app\'s messages', async () => {
    const messages = (await appMessages()).get('connectors')!;
    const server = sources(path.join(APPS, 'connectors')).filter((f) => !f.includes(`${path.sep}web${path.sep}`)).map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    const named = [...server.matchAll(/'(connectors\.(?:test|oauth)\.[\w.]+)'/g)].map((m) => m[1]);
    const networkReasons = NETWORK_REASONS.map(([, key]) => `connectors.test.network.${key}`);
    expect(named.length).toBeGreaterThan(5);
    expect([...named, ...networkReasons].filter((id) => !(id in messages.en))).toEqual([]);
  });
});
