import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * Typed GraphQL documents from the committed SDL: `npm run codegen` turns every operation in
 * tests/api/operations (and, later, the web client's) into TypedDocumentNodes under generated/gql.
 */
const config: CodegenConfig = {
  schema: 'generated/schema.graphql',
  documents: ['tests/api/operations/**/*.graphql'],
  generates: {
    'generated/gql/': {
      preset: 'client',
      config: { useTypeImports: true, scalars: { DateTime: 'string', JSON: 'unknown' } },
    },
  },
  ignoreNoDocuments: false,
  // ESM imports with .js extensions, as NodeNext resolution wants
  emitLegacyCommonJSImports: false,
};
export default config;
