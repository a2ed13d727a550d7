import pluralize from 'pluralize';

/**
 * The one naming function: every GraphQL, Prisma, SQL and REST name of a model comes from here
 * (Keystone's getGqlNames). Layers never derive names on their own.
 */
export interface ModelNames {
  key: string;
  /** Prisma model and GraphQL object type: `res.user` → `ResUser`. */
  typeName: string;
  /** SQL table: `res.user` → `res_user`. */
  table: string;
  /** Prisma client delegate: `resUser`. */
  delegate: string;
  one: string;
  many: string;
  connection: string;
  count: string;
  groupBy: string;
  create: string;
  createMany: string;
  update: string;
  updateMany: string;
  delete: string;
  deleteMany: string;
  changed: string;
  whereInput: string;
  whereUniqueInput: string;
  createInput: string;
  updateInput: string;
  orderByInput: string;
  groupByField: string;
  groupType: string;
  /** REST path segment under /api/data/. */
  restPath: string;
}

const segments = (key: string): string[] => key.split(/[._]/).filter(Boolean);
const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** `res.user.register` → `resUserRegister`. */
export function camelName(dotted: string): string {
  const parts = segments(dotted);
  return parts[0] + parts.slice(1).map(cap).join('');
}

export function pascalName(dotted: string): string {
  return segments(dotted).map(cap).join('');
}

/**
 * What the schema engine names after a column (Prisma's defaults): its index (`idx`), unique
 * index (`key`) and foreign key (`fkey`), `<table>_<column>_<kind>`.
 */
export function columnObjectName(table: string, column: string, kind: 'idx' | 'key' | 'fkey'): string {
  return `${table}_${column}_${kind}`;
}

export function modelNames(key: string): ModelNames {
  const typeName = pascalName(key);
  const one = camelName(key);
  let many = pluralize(one);
  if (many === one) many = `${one}List`;
  return {
    key,
    typeName,
    table: key.replace(/\./g, '_'),
    delegate: one,
    one,
    many,
    connection: `${many}Connection`,
    count: `${one}Count`,
    groupBy: `${one}GroupBy`,
    create: `${one}Create`,
    createMany: `${one}CreateMany`,
    update: `${one}Update`,
    updateMany: `${one}UpdateMany`,
    delete: `${one}Delete`,
    deleteMany: `${one}DeleteMany`,
    changed: `${one}Changed`,
    whereInput: `${typeName}Where`,
    whereUniqueInput: `${typeName}WhereUnique`,
    createInput: `${typeName}CreateInput`,
    updateInput: `${typeName}UpdateInput`,
    orderByInput: `${typeName}OrderBy`,
    groupByField: `${typeName}GroupByField`,
    groupType: `${typeName}Group`,
    restPath: key,
  };
}

/** GraphQL mutation name of a model command: `res.user.register` → `resUserRegister`. */
export function commandFieldName(command: string): string {
  return camelName(command);
}

/** Prisma relation field that carries a Reference (the declared name holds the target's uuid). */
export const relationFieldName = (field: string): string => `${field}_rel`;

/** Prisma back-relation on the target of a Reference no One2Many declares. */
export const backRelationName = (childKey: string, field: string): string =>
  `rev_${childKey.replace(/\./g, '_')}_${field}`;

/** Prisma `@relation("…")` name shared by both sides of a Reference. */
export const relationName = (childKey: string, field: string): string => `${pascalName(childKey)}_${field}`;
