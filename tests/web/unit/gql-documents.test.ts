import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { documentModule, markDocumentsPure, readDocumentsMap, rewriteGraphqlCalls, type GqlDocuments } from '../../../web/build/gql-documents.ts';

const ME = '\n  query Me { me { id } }\n';
const FRAGMENT = 'fragment Parts on Thing { name }';
const docs: GqlDocuments = {
  exports: new Map([[ME, 'MeDocument'], [FRAGMENT, 'PartsFragmentDoc']]),
  moduleFor: (name) => `virtual:${name}`,
};
/** The gql folder is what '../gql/index.ts' and '@fw/gql' lead to; anything else is not one. */
const lookup = (source: string) => (source === '../gql/index.ts' || source === '@fw/gql' ? docs : null);
const rewrite = (code: string, file = 'a.tsx') => rewriteGraphqlCalls(code, file, lookup);

describe('graphql() calls replaced by their generated documents at build time', () => {
  it('a call with a plain template literal becomes the generated export, imported from its own module, and the graphql import goes', async () => {
    const out = await rewrite(`import { graphql } from '../gql/index.ts';\nexport const Me = graphql(\`${ME}\`);\n`);
    expect(out?.code).toBe(`import { MeDocument as __gql_MeDocument } from "virtual:MeDocument";\nexport const Me = __gql_MeDocument/*\n\n*/;\n`);
    expect(out?.missing).toEqual([]);
  });

  it('a fragment becomes its FragmentDoc export, and an import renamed or from @fw/gql is followed', async () => {
    const out = await rewrite(`import { graphql as gql } from '@fw/gql';\ngql(\`${FRAGMENT}\`);\n`);
    expect(out?.code).toBe(`import { PartsFragmentDoc as __gql_PartsFragmentDoc } from "virtual:PartsFragmentDoc";\n__gql_PartsFragmentDoc;\n`);
  });

  it('the rewritten module keeps its line count, so its lines still match the source', async () => {
    const code = `import { graphql } from '../gql/index.ts';\n// café → the offsets are UTF-16\nconst a = graphql(\`${ME}\`), b = 1;\nexport { a, b };\n`;
    const out = await rewrite(code);
    expect(out?.code.split('\n')).toHaveLength(code.split('\n').length);
    expect(out?.code).toContain('const a = __gql_MeDocument/*\n\n*/, b = 1;');
  });

  it('a call that is not one plain template literal stays a run-time lookup, and so does the graphql import', async () => {
    const code = `import { graphql } from '../gql/index.ts';\nconst q = 'query';\nexport const A = graphql(\`\${q} Me { me { id } }\`);\nexport const B = graphql(q);\nexport const C = graphql(\`${ME}\`);\n`;
    const out = await rewrite(code);
    expect(out?.code).toContain("import { graphql } from '../gql/index.ts';");
    expect(out?.code).toContain('graphql(`${q} Me { me { id } }`)');
    expect(out?.code).toContain('graphql(q)');
    expect(out?.code).toContain('export const C = __gql_MeDocument');
  });

  it('a text the generated documents lack (a stale codegen) is left to run time and reported', async () => {
    const code = `import { graphql } from '../gql/index.ts';\nexport const X = graphql(\`query Unknown { x }\`);\n`;
    expect(await rewrite(code)).toEqual({ code, missing: ['query Unknown { x }'] });
  });

  it('graphql from anywhere else, or imported as a type only, is not touched', async () => {
    expect(await rewrite(`import { graphql } from 'some-lib';\ngraphql(\`${ME}\`);\n`)).toBeNull();
    expect(await rewrite(`import type { graphql } from '../gql/index.ts';\nlet x: typeof graphql;\n`)).toBeNull();
  });

  it('the other names of the same import survive when graphql is dropped from it', async () => {
    const out = await rewrite(`import { graphql, type MeQuery } from '../gql/index.ts';\nconst a: MeQuery | null = null;\nexport const Me = graphql(\`${FRAGMENT}\`);\n`);
    expect(out?.code).toContain("import { type MeQuery } from '../gql/index.ts';");
  });

  it('a local name taken by the generated export is not shadowed (the import is aliased)', async () => {
    const out = await rewrite(`import { graphql } from '../gql/index.ts';\nexport const MeDocument = graphql(\`${ME}\`);\n`);
    expect(out?.code).toMatch(/^import \{ MeDocument as __gql_MeDocument \} .*\nexport const MeDocument = __gql_MeDocument/);
  });
});

describe('the generated documents the plugin reads', () => {
  const gql = fs.readFileSync('web/src/gql/gql.ts', 'utf8');
  const typed = fs.readFileSync('web/src/gql/graphql.ts', 'utf8');

  it("gql.ts's map gives an operation's Document and a fragment's FragmentDoc, as graphql.ts exports them", () => {
    const map = readDocumentsMap(gql)!;
    const names = [...map.values()];
    expect(names).toContain('MeDocument');
    expect(names).toContain('PlanFieldPartsFragmentDoc');
    for (const name of names) expect(typed).toContain(`export const ${name} = new TypedDocumentString(`);
  });

  it("every graphql() call of fw's client modules is rewritten (none is left to the run-time map)", async () => {
    const map = readDocumentsMap(gql)!;
    const files = ['web/src/app/meta.ts', 'web/src/views/search/Favorites.tsx', 'src/apps/storage/web/VersionHistory.tsx'];
    for (const file of files) {
      const out = await rewriteGraphqlCalls(fs.readFileSync(file, 'utf8'), file, () => ({ exports: map, moduleFor: (n) => n }));
      expect(out?.missing).toEqual([]);
      expect(out?.code).not.toMatch(/\bgraphql\(/);
    }
  });

  it("one document's module holds its own text (fragments inlined) and meta, constructed pure", () => {
    const mod = documentModule(typed, 'ViewPlanDocument', '/gql/graphql.ts')!;
    expect(mod).toMatch(/^import \{ TypedDocumentString \} from "\/gql\/graphql.ts";\nexport const ViewPlanDocument = \/\* @__PURE__ \*\/ new TypedDocumentString\(`/);
    expect(mod).toContain('fragment PlanFieldParts on PlanField');
    expect(mod).not.toContain('query Me');
    expect(documentModule(typed, 'PlanFieldPartsFragmentDoc', 'g')).toContain('{"fragmentName":"PlanFieldParts"}');
  });

  it('a document whose text interpolates something, or that does not exist, has no module of its own', () => {
    const src = 'export const ADocument = new TypedDocumentString(`query A { ...F } ${FDoc}`) as unknown as X;';
    expect(documentModule(src, 'ADocument', 'g')).toBeNull();
    expect(documentModule(src, 'NoDocument', 'g')).toBeNull();
  });

  it("graphql.ts's document constructions are marked pure, so unused ones are dropped", () => {
    const out = markDocumentsPure(typed)!;
    const count = (s: string, part: string) => s.split(part).length - 1;
    expect(count(out, '/* @__PURE__ */ new TypedDocumentString(')).toBe(count(typed, 'new TypedDocumentString('));
  });
});
