/**
 * GraphQL's typed filters say what the domain language says, field type by field type: each
 * filter input offers exactly the operators the domain accepts for that type (issue 16 §1; the
 * domain corpus, tests/kernel/data/domain-corpus.test.ts, runs them against fixed results), and
 * whereToDomain turns each into the domain operator of the same meaning.
 */
import { buildSchema, GraphQLInputObjectType } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { OPERATORS_BY_TYPE } from '../../src/kernel/data/domain.ts';
import { projectLayout } from '../../src/kernel/modules/loader.ts';
import { printDefaultSdl } from '../../src/server/graphql/sdl.ts';
import { whereToDomain } from '../../src/server/graphql/where.ts';
import { bootTestKernel, type TestKernel } from '../helpers/kernel.ts';

/** GraphQL filter input → the fields it must have (written out, not derived). */
const EXPECTED_FIELDS: Record<string, string[]> = {
  StringFilter: ['eq', 'ne', 'in', 'notIn', 'lt', 'lte', 'gt', 'gte', 'contains', 'notContains', 'startsWith', 'mode'],
  IntFilter: ['eq', 'ne', 'in', 'notIn', 'lt', 'lte', 'gt', 'gte'],
  FloatFilter: ['eq', 'ne', 'in', 'notIn', 'lt', 'lte', 'gt', 'gte'],
  DateTimeFilter: ['eq', 'ne', 'in', 'notIn', 'lt', 'lte', 'gt', 'gte'],
  BooleanFilter: ['eq', 'ne', 'in', 'notIn'],
  IDFilter: ['eq', 'ne', 'in', 'notIn'],
  IrEventStatusFilter: ['eq', 'ne', 'in', 'notIn', 'contains', 'notContains', 'startsWith', 'mode'],
  ResOrganizationRefFilter: ['eq', 'ne', 'in', 'notIn', 'is'],
  ResUserListFilter: ['some', 'none', 'every'],
};

/** The domain operators a filter input's fields reach (mode turns contains into ilike, …). */
const DOMAIN_OF: Record<string, string[]> = {
  eq: ['='], ne: ['!='], in: ['in'], notIn: ['not in'], lt: ['<'], lte: ['<='], gt: ['>'], gte: ['>='],
  contains: ['like', 'ilike'], notContains: ['not like', 'not ilike'], startsWith: ['startswith', 'istartswith'],
  is: ['any'], some: ['any'], none: ['any'], every: ['any'], mode: [],
};

/** The field type each filter input serves. */
const TYPE_OF: Record<string, string> = {
  StringFilter: 'char', IntFilter: 'integer', FloatFilter: 'float', DateTimeFilter: 'datetime', BooleanFilter: 'boolean',
  IDFilter: 'uuid', IrEventStatusFilter: 'enum', ResOrganizationRefFilter: 'reference', ResUserListFilter: 'one2many',
};

describe('GraphQL filter inputs', () => {
  let inputs: Record<string, string[]>;
  beforeAll(async () => {
    const schema = buildSchema(await printDefaultSdl(projectLayout()));
    inputs = Object.fromEntries(Object.keys(EXPECTED_FIELDS).map((name) => {
      const t = schema.getType(name);
      if (!(t instanceof GraphQLInputObjectType)) throw new Error(`${name} is not an input type`);
      return [name, Object.keys(t.getFields())];
    }));
  });

  it.each(Object.keys(EXPECTED_FIELDS))('%s has the operators of its field type', (name) => {
    expect(inputs[name].sort()).toEqual([...EXPECTED_FIELDS[name]].sort());
  });

  it.each(Object.keys(EXPECTED_FIELDS))('%s reaches every domain operator its field type accepts, and no other', (name) => {
    const reached = new Set(inputs[name].flatMap((f) => DOMAIN_OF[f] ?? [`?${f}`]));
    expect([...reached].sort()).toEqual([...OPERATORS_BY_TYPE[TYPE_OF[name]]].sort());
  });
});

describe('whereToDomain', () => {
  let tk: TestKernel;
  beforeAll(async () => {
    tk = await bootTestKernel();
    return () => tk.cleanup();
  });

  it('turns each filter operator into the domain operator of the same meaning', () => {
    const lead = tk.kernel.registry.model('crm.lead');
    const org = tk.kernel.registry.model('res.organization');
    const d = (model: typeof lead, where: Record<string, unknown>) => whereToDomain(tk.kernel.registry, model, where);
    expect(d(lead, { name: { notContains: 'x' } })).toEqual([['name', 'not like', 'x']]);
    expect(d(lead, { name: { notContains: 'x', mode: 'insensitive' } })).toEqual([['name', 'not ilike', 'x']]);
    expect(d(lead, { name: { contains: 'x', mode: 'insensitive' } })).toEqual([['name', 'ilike', 'x']]);
    expect(d(lead, { name: { startsWith: 'x' } })).toEqual([['name', 'startswith', 'x']]);
    expect(d(lead, { name: { startsWith: 'x', mode: 'insensitive' } })).toEqual([['name', 'istartswith', 'x']]);
    expect(d(lead, { stage: { contains: 'qual' } })).toEqual([['stage', 'like', 'qual']]);
    expect(d(org, { is_active: { in: [true] } })).toEqual([['is_active', 'in', [true]]]);
    expect(d(org, { is_active: { notIn: [false] } })).toEqual([['is_active', 'not in', [false]]]);
    expect(d(lead, { email: { eq: null } })).toEqual([['email', '=', null]]);
    expect(d(lead, { NOT: { notes: { contains: 'x' } } })).toEqual(['!', ['notes', 'like', 'x']]);
  });
});
