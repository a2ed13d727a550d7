/**
 * The files `fw new project` and `fw new app` write, as pure functions of their names (snapshot
 * tested). A team's project has the same top-level layout as fw's own repository, and its apps
 * import fw only through the package's public entry points (fw/app, fw/declare, fw/errors,
 * fw/testing).
 */

export type Files = Record<string, string>;

export interface ProjectTemplate {
  /** Package name of the project (the folder name, lower-cased). */
  name: string;
  /** How package.json names fw: `file:/path/to/fw` (a checkout) or `file:../fw-0.1.0.tgz` (npm pack). */
  fwSpec: string;
  /** Versions of the dev tools the project's tests use, the ones fw itself is tested with. */
  versions: { vitest: string; typescript: string };
}

const json = (v: unknown): string => `${JSON.stringify(v, null, 2)}\n`;

export function projectFiles(t: ProjectTemplate): Files {
  return {
    'package.json': json({
      name: t.name,
      version: '0.1.0',
      private: true,
      type: 'module',
      scripts: {
        // the Prisma client and SDL are the project's own: written from its apps after each install
        postinstall: 'fw generate',
        start: 'fw serve',
        // fw's web client with this project's apps' web/ code, into web/dist (served by npm start)
        'build:web': 'fw build web',
        test: 'vitest run',
        fw: 'fw',
      },
      dependencies: { fw: t.fwSpec },
      devDependencies: { typescript: t.versions.typescript, vitest: t.versions.vitest },
    }),
    // a `file:` folder dependency is packed and installed like a tarball: fw's own dependencies
    // land in this project's node_modules, one copy each (the generated Prisma client and fw must
    // share @prisma/client), and nothing is linked into the fw checkout
    '.npmrc': 'install-links=true\n',
    // generated/web-extensions.ts: written by fw build web, with this machine's paths
    '.gitignore': ['node_modules/', '/data/', 'generated/prisma/', 'generated/web-extensions.ts', 'web/dist/', 'web/src/gql/', '.env.local', ''].join('\n'),
    '.env': [
      '# Settings of this project (docs/configuration.md of fw lists them all); the environment wins.',
      '# Domains to boot: each lists its apps in src/domains/<domain>.ts (fw new app adds them).',
      'ACTIVE_DOMAINS=',
      'DATA_DIR=data',
      '',
    ].join('\n'),
    'README.md': [
      `# ${t.name}`,
      '',
      'An application built on [fw](https://example.invalid/fw): models, views and commands declared',
      'in this project; the database, GraphQL and REST APIs and the web client come from fw.',
      '',
      '```sh',
      'npm install && npm start     # install, then serve on http://127.0.0.1:8000 (embedded SQLite under data/)',
      'npm test                     # run the tests',
      'npm run build:web            # rebuild the web client once an app has client code (src/apps/<app>/web/)',
      '```',
      '',
      'Add an app with `npx fw new app <domain>.<app>`, change its declarations under `schema/<app>/`,',
      'then `npx fw generate` and `npx fw migrate generate -m "what changed" --app <app>`.',
      '',
      '| Folder | Holds |',
      '|---|---|',
      '| `src/apps/<app>/` | manifest, commands, hooks, event handlers, data files |',
      '| `src/apps/<app>/web/` | the app\'s client code: widgets, view types, pages (fw\'s docs/extend-client.md) |',
      '| `schema/<app>/` | one model declaration per file |',
      '| `views/<app>/` | list, form, kanban and search views (XML) |',
      '| `src/domains/` | the apps of each domain (`ACTIVE_DOMAINS` in `.env` turns domains on) |',
      '| `prisma/migrations/<app>/` | each app\'s migration chain |',
      '| `generated/` | the Prisma client and GraphQL SDL of this project (`fw generate`) |',
      '| `tests/` | tests (vitest), booting this project with `fw/testing` |',
      '',
    ].join('\n'),
    'tsconfig.json': json({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: true,
        allowImportingTsExtensions: true,
        noEmit: true,
        types: ['node'],
        isolatedModules: true,
      },
      include: ['src', 'schema', 'tests', 'generated', '*.ts'],
      // the apps' client code is checked by web/tsconfig.json (a browser, JSX, fw's client API);
      // fw build web's list of it imports that code, so it goes with it
      exclude: ['src/apps/*/web', 'generated/web-extensions.ts'],
    }),
    'web/tsconfig.json': json({
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        module: 'ESNext',
        moduleResolution: 'bundler',
        jsx: 'react-jsx',
        strict: true,
        skipLibCheck: true,
        isolatedModules: true,
        noEmit: true,
        allowImportingTsExtensions: true,
        types: ['vite/client'],
        // fw's client API and this project's typed documents, as fw build web resolves them
        paths: { '@fw/web': ['../node_modules/fw/web/src/extend.ts'], '@fw/gql': ['./src/gql/index.ts'] },
      },
      include: ['../src/apps/*/web'],
    }),
    'vitest.config.ts': [
      "import { defineConfig } from 'vitest/config';",
      '',
      'export default defineConfig({',
      '  // graphql 16 has no exports map: one instance for fw and the tests',
      "  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },",
      '  test: {',
      "    include: ['tests/**/*.test.ts'],",
      '    // fw ships TypeScript: vitest compiles it like the project\'s own files',
      "    server: { deps: { inline: ['fw'] } },",
      '    testTimeout: 30_000,',
      '    hookTimeout: 60_000,',
      '  },',
      '});',
      '',
    ].join('\n'),
    'codegen.ts': [
      "import type { CodegenConfig } from '@graphql-codegen/cli';",
      '',
      '/**',
      ' * Typed GraphQL documents for the apps\' client code (src/apps/<app>/web/, importing `graphql`',
      ' * from \'@fw/gql\'), checked against the SDL `fw generate` writes from this project\'s apps.',
      ' * `npm run build:web` (fw build web) runs it before bundling.',
      ' */',
      'const config: CodegenConfig = {',
      "  schema: 'generated/schema.graphql',",
      '  generates: {',
      "    'web/src/gql/': {",
      "      documents: ['src/apps/*/web/**/*.{ts,tsx}'],",
      "      preset: 'client',",
      "      presetConfig: { fragmentMasking: false },",
      '      // documents as strings, the form fw\'s client sends (and no graphql-js in the bundle)',
      "      config: { useTypeImports: true, enumsAsTypes: true, documentMode: 'string', scalars: { DateTime: 'string', JSON: 'unknown' } },",
      '    },',
      '  },',
      '  ignoreNoDocuments: true,',
      '};',
      'export default config;',
      '',
    ].join('\n'),
    'src/apps/.gitkeep': '',
    'src/domains/.gitkeep': '',
    'schema/.gitkeep': '',
    'views/.gitkeep': '',
    'prisma/migrations/.gitkeep': '',
    'generated/.gitkeep': '',
    'tests/project.test.ts': [
      "import { fileURLToPath } from 'node:url';",
      "import { afterAll, beforeAll, expect, it } from 'vitest';",
      "import { bootTestKernel, type TestKernel } from 'fw/testing';",
      '',
      "const root = fileURLToPath(new URL('..', import.meta.url));",
      'let t: TestKernel;',
      '',
      'beforeAll(async () => {',
      '  t = await bootTestKernel({ root });',
      '});',
      'afterAll(() => t?.close());',
      '',
      "it('the project boots with fw\\'s foundation apps: the default tenant is seeded', async () => {",
      "  expect(await t.dispatch('fw.count', { model: 'res.country' })).toEqual({ count: 250 });",
      '});',
      '',
    ].join('\n'),
  };
}

export interface AppTemplate {
  /** `<domain>.<app>` */
  app: string;
  /** The app's first model, `<domain>.<name>`. */
  model: string;
}

const words = (s: string): string => s.replace(/[._]/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase());

export function appFiles({ app, model }: AppTemplate): Files {
  const domain = app.slice(0, app.indexOf('.'));
  const label = words(model.slice(model.indexOf('.') + 1));
  const base = model.replace(/\./g, '_');
  const action = `${domain}.action_${base}`;
  return {
    [`src/apps/${app}/manifest.ts`]: [
      "import type { AppManifest } from 'fw/app';",
      '',
      'const manifest: AppManifest = {',
      `  name: '${app}',`,
      `  summary: '${label}',`,
      `  description: '${label} records with a state, an owner and notes.',`,
      "  author: '',",
      `  category: '${words(domain)}',`,
      "  version: '1.0.0',",
      "  depends: ['base'],",
      '  data: [',
      "    'data/menus.json',",
      `    'views/${base}_list.xml',`,
      `    'views/${base}_form.xml',`,
      `    'views/${base}_kanban.xml',`,
      `    'views/${base}_search.xml',`,
      '  ],',
      '};',
      'export default manifest;',
      '',
    ].join('\n'),
    [`src/apps/${app}/index.ts`]: [
      "import { defineApp, type CommandDecl } from 'fw/app';",
      "import { ValidationError } from 'fw/errors';",
      "import manifest from './manifest.js';",
      '',
      'const commands: CommandDecl[] = [',
      '  {',
      `    name: '${model}.mark_done',`,
      '    record: true,',
      "    returns: 'record',",
      `    description: 'Mark a ${label.toLowerCase()} as done',`,
      `    handler: (env, p) => env.dispatch('fw.update', { model: '${model}', id: p.id, values: { state: 'done' } }),`,
      '  },',
      '];',
      '',
      'export const app = defineApp({',
      '  manifest,',
      '  commands,',
      '  hooks: [{',
      `    point: 'pre.${model}.create',`,
      '    handler(ctx) {',
      '      const name = ctx.payload.name;',
      "      if (typeof name === 'string' && name.trim().length < 3) {",
      "        throw new ValidationError('a name needs at least 3 characters', { field: 'name' }, 'NAME_TOO_SHORT');",
      '      }',
      '    },',
      '  }],',
      '});',
      '',
    ].join('\n'),
    [`src/apps/${app}/data/menus.json`]: json([
      { model: 'ir.action', records: [{ xml_id: action, name: `${label}s`, model_key: model, view_type: 'list' }] },
      {
        model: 'ir.menu',
        records: [
          { xml_id: `${domain}.menu_root`, name: words(domain), sequence: 50, category: 'application' },
          { xml_id: `${domain}.menu_${base}`, name: `${label}s`, parent_id: `${domain}.menu_root`, action_id: action, sequence: 10, category: 'application' },
        ],
      },
    ]),
    [`schema/${app}/${model}.ts`]: [
      "import { defineModel, f } from 'fw/declare';",
      '',
      'export default defineModel({',
      `  key: '${model}',`,
      `  description: '${label}',`,
      "  record_name: 'name',",
      "  default_order: 'created_at_utc desc',",
      '  fields: {',
      '    name: f.char(200, { required: true }),',
      "    state: f.enum(['draft', 'open', 'done'], { default: 'draft' }),",
      '    notes: f.text(),',
      "    owner: f.reference('res.user', { default_principal: 'user_id' }),",
      "    organization: f.reference('res.organization', { on_delete: 'cascade', default_principal: 'organization_id' }),",
      '  },',
      '  access: {',
      "    roles: { admin: 'crud', user: 'cru' },",
      "    rules: [{ domain: [['organization', '=', '$principal.organization_id']] }],",
      '  },',
      '});',
      '',
    ].join('\n'),
    [`views/${app}/${base}_list.xml`]: [
      `<view id="${model}.list" version="1" title="${label}s">`,
      `  <list model="${model}" limit="50">`,
      '    <field name="name"/>',
      '    <field name="state" widget="badge"/>',
      '    <field name="owner"/>',
      '  </list>',
      '</view>',
      '',
    ].join('\n'),
    [`views/${app}/${base}_form.xml`]: [
      `<view id="${model}.form" version="1" title="${label}">`,
      `  <form model="${model}">`,
      '    <header>',
      '      <statusbar field="state" values="draft,open,done" clickable="1"/>',
      `      <button string="Mark done" name="${model}.mark_done" type="object" invisible="state == 'done'"/>`,
      '    </header>',
      '    <sheet>',
      `      <group string="${label}">`,
      '        <field name="name"/>',
      '        <field name="owner"/>',
      '        <field name="organization"/>',
      '      </group>',
      '      <notebook>',
      '        <page string="Notes">',
      '          <field name="notes"/>',
      '        </page>',
      '      </notebook>',
      '    </sheet>',
      '    <chatter/>',
      '  </form>',
      '</view>',
      '',
    ].join('\n'),
    [`views/${app}/${base}_kanban.xml`]: [
      `<view id="${model}.kanban" version="1" title="${label}s by state">`,
      `  <kanban model="${model}" groupby_field="state">`,
      '    <column value="draft" label="Draft"/>',
      '    <column value="open" label="Open"/>',
      '    <column value="done" label="Done"/>',
      '    <card_field name="name"/>',
      '    <card_field name="owner"/>',
      '  </kanban>',
      '</view>',
      '',
    ].join('\n'),
    [`views/${app}/${base}_search.xml`]: [
      `<view id="${model}.search" version="1" title="Search ${label.toLowerCase()}s">`,
      `  <search model="${model}">`,
      `    <field name="name" string="${label}"/>`,
      `    <filter string="Not done" domain="[('state', '!=', 'done')]"/>`,
      `    <filter string="Mine" domain="[('owner', '=', '%(user_id)s')]"/>`,
      '    <group_by string="State" field="state"/>',
      '  </search>',
      '</view>',
      '',
    ].join('\n'),
    [`tests/${app}/${model}.test.ts`]: [
      "import { fileURLToPath } from 'node:url';",
      "import { afterAll, beforeAll, expect, it } from 'vitest';",
      "import { bootTestKernel, type TestKernel } from 'fw/testing';",
      '',
      "const root = fileURLToPath(new URL('../..', import.meta.url));",
      'let t: TestKernel;',
      '',
      'beforeAll(async () => {',
      `  t = await bootTestKernel({ root, settings: { ACTIVE_DOMAINS: '${domain}' } });`,
      '});',
      'afterAll(() => t?.close());',
      '',
      `it('a new ${model} starts as a draft and mark_done closes it', async () => {`,
      `  const created = await t.dispatch<{ id: string; state: string }>('fw.create', { model: '${model}', values: { name: 'First one' } });`,
      "  expect(created.state).toBe('draft');",
      `  const done = await t.dispatch<{ state: string }>('${model}.mark_done', { id: created.id });`,
      "  expect(done.state).toBe('done');",
      '});',
      '',
      "it('a name shorter than 3 characters is refused by the app\\'s hook', async () => {",
      `  await expect(t.dispatch('fw.create', { model: '${model}', values: { name: 'x' } })).rejects.toMatchObject({ code: 'NAME_TOO_SHORT' });`,
      '});',
      '',
    ].join('\n'),
  };
}

/** `src/domains/<domain>.ts` listing `apps`. */
export function domainFile(domain: string, apps: string[]): string {
  return [
    `/** The apps of the ${domain} domain, booted when ACTIVE_DOMAINS lists "${domain}". */`,
    `export default { ACTIVE_MODULES: [${apps.map((a) => `'${a}'`).join(', ')}] };`,
    '',
  ].join('\n');
}
