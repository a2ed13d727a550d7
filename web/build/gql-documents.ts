/**
 * Build-time replacement of `graphql(`…`)` calls by the generated document they stand for.
 *
 * The codegen's client preset writes, next to the typed documents (graphql.ts), a gql.ts whose
 * `graphql()` looks each document's source text up in a map of every document: every text ships
 * twice and the whole map sits in the initial bundle. The preset (v6) has no babel plugin any
 * more, so this Vite plugin does its job: `graphql(`query Me …`)` becomes a reference to
 * `MeDocument` imported from that graphql.ts, and gql.ts drops out of the bundle. The map is read
 * from gql.ts itself, so the names are exactly the codegen's. Anything else (a call whose
 * argument is not a plain template literal, a text the map lacks because the codegen is stale)
 * stays a runtime lookup.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseSync, Visitor, type ESTree, type Plugin } from 'vite';

/** The documents of one gql folder: each source text's export, and the module to import it from. */
export interface GqlDocuments {
  exports: ReadonlyMap<string, string>;
  moduleFor: (name: string) => string;
}

/** A source text → export name map from a generated gql.ts (its `const documents = { … }`). */
export function readDocumentsMap(gqlSource: string, filename = 'gql.ts'): Map<string, string> | null {
  const { program, errors } = parseSync(filename, gqlSource);
  if (errors.length) return null;
  let map: Map<string, string> | null = null;
  new Visitor({
    VariableDeclarator(node) {
      if (node.id.type !== 'Identifier' || node.id.name !== 'documents' || node.init?.type !== 'ObjectExpression') return;
      map = new Map();
      for (const prop of node.init.properties) {
        if (prop.type !== 'Property' || prop.key.type !== 'Literal' || typeof prop.key.value !== 'string') continue;
        if (prop.value.type === 'MemberExpression' && prop.value.property.type === 'Identifier') map.set(prop.key.value, prop.value.property.name);
      }
    },
  }).visit(program);
  return map;
}

/** Whether an import specifier names `graphql` (as a value, not `import { type graphql }`). */
const importsGraphql = (s: ESTree.ImportDeclaration['specifiers'][number]): s is ESTree.ImportSpecifier =>
  s.type === 'ImportSpecifier' && s.importKind !== 'type' &&
  (s.imported.type === 'Identifier' ? s.imported.name : s.imported.value) === 'graphql';

/**
 * Rewrites a module's `graphql(`…`)` calls. `documentsFor` tells, for an import source, the gql
 * folder it leads to (null: not one, the import is left alone). Returns null when nothing changed.
 * Line count is kept (a replaced call's newlines move into a comment) so the module's lines still
 * match its source.
 */
export async function rewriteGraphqlCalls(
  code: string,
  filename: string,
  documentsFor: (source: string) => GqlDocuments | null | Promise<GqlDocuments | null>,
): Promise<{ code: string; missing: string[] } | null> {
  const { program, errors } = parseSync(filename, code);
  if (errors.length) return null;

  // the local names `graphql` is imported under, from a gql folder
  const locals = new Map<string, { decl: ESTree.ImportDeclaration; spec: ESTree.ImportSpecifier; docs: GqlDocuments; left: number }>();
  for (const decl of program.body) {
    if (decl.type !== 'ImportDeclaration' || decl.importKind === 'type') continue;
    for (const spec of decl.specifiers.filter(importsGraphql)) {
      const docs = await documentsFor(decl.source.value);
      if (docs) locals.set(spec.local.name, { decl, spec, docs, left: 0 });
    }
  }
  if (locals.size === 0) return null;

  const edits: { start: number; end: number; text: string }[] = [];
  const imported = new Map<string, Map<string, string>>(); // module → export → alias
  const missing: string[] = [];
  const aliases = new Set<string>();
  const aliasFor = (module: string, name: string): string => {
    const names = imported.get(module) ?? new Map<string, string>();
    imported.set(module, names);
    let alias = names.get(name);
    if (!alias) {
      for (alias = `__gql_${name}`; aliases.has(alias) || code.includes(alias);) alias += '_';
      aliases.add(alias);
      names.set(name, alias);
    }
    return alias;
  };
  const rewritten = new Set<ESTree.Node>();
  new Visitor({
    CallExpression(node) {
      const use = node.callee.type === 'Identifier' ? locals.get(node.callee.name) : undefined;
      const [arg, ...more] = node.arguments;
      if (!use || more.length || arg?.type !== 'TemplateLiteral' || arg.expressions.length) return;
      const text = arg.quasis[0]!.value.cooked;
      const name = text == null ? undefined : use.docs.exports.get(text);
      if (!name) { missing.push(text ?? arg.quasis[0]!.value.raw); return; }
      const newlines = code.slice(node.start, node.end).replace(/[^\n]/g, '');
      edits.push({ start: node.start, end: node.end, text: aliasFor(use.docs.moduleFor(name), name) + (newlines ? `/*${newlines}*/` : '') });
      rewritten.add(node.callee);
    },
  }).visit(program);
  if (edits.length === 0) return missing.length ? { code, missing } : null;

  // every other mention of the local name (a call left to run time, `graphql` passed on) keeps the import
  new Visitor({
    Identifier(node) {
      const use = locals.get(node.name);
      if (use && node !== use.spec.local && node !== use.spec.imported && !rewritten.has(node)) use.left++;
    },
  }).visit(program);
  for (const { decl, spec, left } of locals.values()) {
    if (left > 0) continue;
    if (decl.specifiers.length === 1) {
      edits.push({ start: decl.start, end: decl.end, text: code.slice(decl.start, decl.end).replace(/[^\n]/g, '') });
    } else {
      // drop the specifier with the comma that separates it from a neighbour
      const after = /^\s*,\s*/.exec(code.slice(spec.end));
      const before = after ? null : /,\s*$/.exec(code.slice(decl.start, spec.start));
      edits.push({ start: spec.start - (before?.[0].length ?? 0), end: spec.end + (after?.[0].length ?? 0), text: '' });
    }
  }

  let out = code;
  for (const e of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  // prepended on the first line: the lines below keep their numbers
  const imports = [...imported].map(([module, names]) =>
    `import { ${[...names].map(([name, alias]) => `${name} as ${alias}`).join(', ')} } from ${JSON.stringify(module)};`);
  return { code: imports.join(' ') + out, missing };
}

/**
 * One document of a generated graphql.ts as a module of its own, so that each lands in the chunk
 * of the code that uses it (graphql.ts as a whole would sit in the initial chunk with every
 * document of every lazy view). The codegen inlines a document's fragments into its text; a
 * document whose text is not a plain template literal gets null (imported from graphql.ts).
 */
export function documentModule(typedSource: string, name: string, typedModule: string, filename = 'graphql.ts'): string | null {
  const { program, errors } = parseSync(filename, typedSource);
  if (errors.length) return null;
  for (const stmt of program.body) {
    if (stmt.type !== 'ExportNamedDeclaration' || stmt.declaration?.type !== 'VariableDeclaration') continue;
    for (const d of stmt.declaration.declarations) {
      if (d.id.type !== 'Identifier' || d.id.name !== name) continue;
      let init = d.init;
      while (init?.type === 'TSAsExpression' || init?.type === 'TSSatisfiesExpression') init = init.expression;
      if (init?.type !== 'NewExpression' || init.callee.type !== 'Identifier' || init.callee.name !== 'TypedDocumentString') return null;
      const [text, meta, ...more] = init.arguments;
      if (text?.type !== 'TemplateLiteral' || text.expressions.length || more.length || (meta && meta.type !== 'ObjectExpression')) return null;
      const args = init.arguments.map((a) => typedSource.slice(a.start, a.end)).join(', ');
      return `import { TypedDocumentString } from ${JSON.stringify(typedModule)};\nexport const ${name} = /* @__PURE__ */ new TypedDocumentString(${args});\n`;
    }
  }
  return null;
}

/**
 * Marks a graphql.ts's `new TypedDocumentString(…)` constructions pure: a bundler must otherwise
 * keep every document (a constructor might have side effects) wherever the module is imported,
 * if only for the class the per-document modules share.
 */
export function markDocumentsPure(typedSource: string, filename = 'graphql.ts'): string | null {
  const { program, errors } = parseSync(filename, typedSource);
  if (errors.length) return null;
  const starts: number[] = [];
  new Visitor({
    NewExpression(node) {
      if (node.callee.type === 'Identifier' && node.callee.name === 'TypedDocumentString') starts.push(node.start);
    },
  }).visit(program);
  let out = typedSource;
  for (const at of starts.sort((a, b) => b - a)) out = `${out.slice(0, at)}/* @__PURE__ */ ${out.slice(at)}`;
  return starts.length ? out : null;
}

const VIRTUAL = '\0fw-gql-document:';

/**
 * The Vite plugin: rewrites the modules `include` accepts. An import leads to a gql folder when it
 * resolves (through every plugin, so `@fw/gql` gets fw's or the project's folder per importer) to
 * a file with the codegen's gql.ts and graphql.ts beside it. Each document is imported from a
 * virtual module `\0fw-gql-document:<name>:<graphql.ts path>` (documentModule).
 */
export function gqlDocuments(include: (file: string) => boolean): Plugin {
  const parsed = new Map<string, { mtimeMs: number; value: unknown }>();
  /** `read(file)`, again only when the file changed. */
  const cachedRead = <T>(file: string, read: (text: string) => T): T | null => {
    const mtimeMs = fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs;
    if (mtimeMs === undefined) return null;
    const hit = parsed.get(file);
    if (hit?.mtimeMs === mtimeMs) return hit.value as T;
    const value = read(fs.readFileSync(file, 'utf8'));
    parsed.set(file, { mtimeMs, value });
    return value;
  };
  return {
    name: 'fw-gql-documents',
    enforce: 'pre',
    resolveId(source) {
      return source.startsWith(VIRTUAL) ? source : null;
    },
    load(id) {
      if (!id.startsWith(VIRTUAL)) return null;
      const rest = id.slice(VIRTUAL.length);
      const name = rest.slice(0, rest.indexOf(':'));
      const typed = rest.slice(name.length + 1);
      this.addWatchFile(typed);
      // the generated export itself when it is not a plain document (documentModule says null)
      return documentModule(fs.readFileSync(typed, 'utf8'), name, typed, typed) ??
        `export { ${name} } from ${JSON.stringify(typed)};\n`;
    },
    async transform(code, id) {
      const file = id.split('?')[0]!;
      if (!/\.[cm]?[jt]sx?$/.test(file) || !include(file)) return null;
      if (path.basename(file) === 'graphql.ts' && fs.existsSync(path.join(path.dirname(file), 'gql.ts'))) {
        const marked = markDocumentsPure(code, file);
        return marked && { code: marked, map: null };
      }
      if (!code.includes('graphql')) return null;
      const result = await rewriteGraphqlCalls(code, file, async (source) => {
        const resolved = await this.resolve(source, id);
        if (!resolved || resolved.external) return null;
        const dir = path.dirname(resolved.id.split('?')[0]!);
        const gqlFile = path.join(dir, 'gql.ts');
        const typed = path.join(dir, 'graphql.ts');
        const exports = fs.existsSync(typed) ? cachedRead(gqlFile, (text) => readDocumentsMap(text, gqlFile)) : null;
        if (!exports) return null;
        this.addWatchFile(gqlFile);
        return { exports, moduleFor: (name) => `${VIRTUAL}${name}:${typed}` };
      });
      if (!result) return null;
      for (const text of result.missing) {
        this.warn(`graphql() text not among the generated documents (run the codegen), left to run time: ${text.trim().slice(0, 60)}…`);
      }
      return result.code === code ? null : { code: result.code, map: null };
    },
  };
}
