import type { CodegenConfig } from '@graphql-codegen/cli';

const common = { useTypeImports: true, scalars: { DateTime: 'string', JSON: 'unknown' } };

/**
 * Typed GraphQL documents from the committed SDL (`npm run codegen`, also run by `npm ci`):
 * - the operations of tests/api/operations → generated/gql (TypedDocumentNodes for the tests);
 * - the web client's fixed operations (written with `graphql(…)` in web/src and in the apps'
 *   web/ folders) → web/src/gql, checked
 *   against the SDL with every feature on.
 */
const config: CodegenConfig = {
  schema: 'generated/schema.graphql',
  generates: {
    'generated/gql/': {
      documents: ['tests/api/operations/**/*.graphql'],
      preset: 'client',
      config: common,
    },
    'web/src/gql/': {
      // every feature on (AI_ENABLED, …): the client runs a feature's operations only when the
      // server's bootstrap lists that feature's models
      schema: 'generated/schema.features.graphql',
      // fw's client and its apps' web/ code (which imports `graphql` from '@fw/gql', this folder)
      documents: ['web/src/**/*.{ts,tsx}', '!web/src/gql/**', 'src/apps/*/web/**/*.{ts,tsx}'],
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      // documents as strings: the client needs no graphql-js at run time (bundle size)
      config: { ...common, enumsAsTypes: true, documentMode: 'string' },
    },
  },
  ignoreNoDocuments: false,
  // ESM imports with .js extensions, as NodeNext resolution wants
  emitLegacyCommonJSImports: false,
};
export default config;
