/**
 * The export and import routes in the OpenAPI document (src/server/routes/transfer.ts, docs/api.md
 * "Export and import"): their parameters, bodies and answers, which come from no command. `model`
 * is the path's, one of the registry's model keys. Kept beside the routes it describes, read by
 * src/server/openapi.ts.
 */
import { body, json, listParams, ref, type Json } from '../openapi-schemas.js';
import { CONTENT_TYPES, FORMATS } from './formats.js';

const binary = { type: 'string', format: 'binary' };
const array = (items: Json) => ({ type: 'array', items });

/** The file an export streams, in either format, with the headers that come with it. */
function exportFile(): Json {
  return {
    description: 'The file, streamed (the connection is cut if the database fails after the first byte)',
    headers: {
      'Content-Disposition': { schema: { type: 'string' }, description: 'attachment; filename="<model>-<date>.<format>"' },
      'X-Export-Rows': { schema: { type: 'integer' }, description: 'how many records the file holds (for a progress bar)' },
    },
    content: Object.fromEntries(FORMATS.map((f) => [CONTENT_TYPES[f].split(';')[0]!, { schema: binary }])),
  };
}

const exportMembers: Json = {
  format: { enum: [...FORMATS], default: 'csv' },
  fields: array({ type: 'string' }),
  filter: { type: 'array', description: 'a domain, as /api/data/{model}?filter=' },
  where: { type: 'object', description: "a GraphQL `where` input of the model (the web client's list)" },
  ids: array({ type: 'string', format: 'uuid' }),
  order: { type: 'string', description: '"<field> asc|desc[, …]"; default the model\'s order' },
};

/** The list routes' own query parameter: an export filters and orders as they do. */
const listParam = (name: string): Json => listParams.find((p) => p.name === name)!;

const exportQuery: Json[] = [
  { name: 'format', in: 'query', schema: exportMembers.format },
  { name: 'fields', in: 'query', description: 'the columns, comma-separated, in order (`id` is the record id)', schema: { type: 'string' } },
  listParam('filter'),
  { name: 'ids', in: 'query', description: 'comma-separated record ids', schema: { type: 'string' } },
  listParam('order'),
];

const transferField: Json = {
  type: 'object', required: ['name', 'label', 'source_label', 'type', 'required', 'relation', 'values'],
  properties: {
    name: { type: 'string' }, label: { type: 'string', description: "in the caller's language when an app translates it" },
    source_label: { type: 'string' }, type: { type: 'string' }, required: { type: 'boolean' },
    relation: { type: ['string', 'null'] }, values: { type: ['array', 'null'], items: { type: 'string' } },
  },
};

const rowError: Json = {
  type: 'object', required: ['line', 'code', 'message'],
  properties: {
    line: { type: 'integer' }, code: { type: 'string' }, message: { type: 'string' }, field: { type: 'string' },
    column: { type: 'string', description: "the file's column, when the error is a cell's" },
    values: { type: 'object', additionalProperties: { type: ['string', 'number'] } },
  },
};

const importReport: Json = {
  type: 'object', required: ['dry_run', 'rows', 'created', 'updated', 'errors', 'committed'],
  properties: {
    dry_run: { type: 'boolean' }, rows: { type: 'integer' }, created: { type: 'integer' }, updated: { type: 'integer' },
    errors: array(ref('ImportRowError')),
    committed: { type: 'boolean', description: 'a real run wrote everything (false: a dry run, or a batch that failed)' },
  },
};

const inspectReport: Json = {
  type: 'object', required: ['format', 'rows', 'columns', 'sample', 'fields', 'key'],
  properties: {
    format: { enum: [...FORMATS] }, rows: { type: 'integer' },
    columns: array({ type: 'object', required: ['index', 'header', 'field'], properties: { index: { type: 'integer' }, header: { type: 'string' }, field: { type: ['string', 'null'] } } }),
    sample: array(array({ type: 'string' })),
    fields: array(ref('TransferField')),
    key: { type: ['string', 'null'] },
  },
};

/** The uploaded file: the raw body, whatever its Content-Type (an XLSX is known by its ZIP signature). */
const fileBody: Json = {
  required: true,
  description: 'the CSV or XLSX file as it is (any Content-Type)',
  content: { 'application/octet-stream': { schema: binary }, 'text/csv': { schema: binary }, [CONTENT_TYPES.xlsx]: { schema: binary } },
};

const tooLarge = { 413: json(ref('Error'), 'The file (or an XLSX once unzipped) is over its limit') };

/**
 * The transfer routes' operations by path, and the schemas they name (added to `schemas`).
 * Errors are the caller's to add, as for every other route.
 */
export function transferPaths(modelKeys: readonly string[], schemas: Json): Record<string, Json> {
  schemas.TransferField = transferField;
  schemas.ImportRowError = rowError;
  const model = { name: 'model', in: 'path', required: true, schema: { type: 'string', enum: [...modelKeys] } };
  const tags = ['transfer'];
  return {
    '/api/export/{model}': {
      get: { tags, operationId: 'exportRecords', summary: 'Export records as CSV or XLSX', parameters: [model, ...exportQuery], responses: { 200: exportFile() } },
      post: { tags, operationId: 'exportRecordsPost', summary: 'Export records as CSV or XLSX (parameters in the body)', parameters: [model], requestBody: body({ type: 'object', additionalProperties: false, properties: exportMembers }), responses: { 200: exportFile() } },
    },
    '/api/export/{model}/fields': {
      get: { tags, operationId: 'exportableFields', summary: 'The fields an export can hold', parameters: [model], responses: { 200: json({ type: 'object', required: ['fields'], properties: { fields: array(ref('TransferField')) } }) } },
    },
    '/api/export/download': {
      get: {
        tags, operationId: 'exportDownload', summary: 'Follow an export link of the GraphQL exportLink mutation (single use, no bearer header)', security: [],
        parameters: [{ name: 'token', in: 'query', required: true, schema: { type: 'string' } }],
        responses: { 200: exportFile() },
      },
    },
    '/api/import/{model}/inspect': {
      post: { tags, operationId: 'importInspect', summary: 'Read a file: its columns, the suggested mapping and a sample', parameters: [model], requestBody: fileBody, responses: { 200: json(inspectReport), ...tooLarge } },
    },
    '/api/import/{model}': {
      post: {
        tags, operationId: 'importRecords', summary: 'Import a CSV or XLSX file: create or update records', requestBody: fileBody,
        parameters: [
          model,
          { name: 'dry_run', in: 'query', description: 'check every row, write nothing', schema: { type: 'boolean', default: false } },
          { name: 'mapping', in: 'query', description: 'JSON: a field name (or null) per column, or an object from header to field; default the suggested mapping', schema: { type: 'string' } },
          { name: 'key', in: 'query', description: 'a mapped field that finds the record a row updates', schema: { type: 'string' } },
        ],
        responses: { 200: json(importReport), 422: json(ref('Error'), 'Nothing written (IMPORT_FAILED, with the report in details)'), ...tooLarge },
      },
    },
  };
}
