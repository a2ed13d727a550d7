/**
 * The filter each domain compiles to (src/kernel/data/domain.ts `domainToWhere`, `twoValued`),
 * on models resolved by the real registry, no database: the Prisma `where` of every operator on
 * nullable and required fields, the prefix operators and their grouping, relation paths and
 * `any` with the caller's scope, placeholders, the refusals (400 INVALID_DOMAIN) with their
 * messages, and the depth and pattern bounds at their edges. What these filters match in a
 * database is checked by tests/kernel/data/domain-corpus.test.ts and sql-reads.test.ts.
 */
import { DbNull } from '@prisma/client/runtime/client';
import { describe, expect, it } from 'vitest';
import { domainToWhere, MAX_DOMAIN_DEPTH, MAX_DOMAIN_TERMS, MAX_PATTERN_LENGTH, MAX_RELATION_DEPTH, twoValued, type DomainContext, type Where } from '../../../src/kernel/data/domain.ts';
import { defineModel, f } from '../../../src/kernel/declare.ts';
import { BadRequest } from '../../../src/kernel/errors.ts';
import { createRegistry } from '../../../src/kernel/kernel.ts';
import { fixtureApp } from '../../helpers/kernel.ts';

const registry = createRegistry([fixtureApp('fixture_dw', {
  models: [
    defineModel({
      key: 'dw.team',
      description: 'Team',
      fields: { name: f.char(50, { required: true }), members: f.one2many('dw.item', 'team') },
    }),
    defineModel({
      key: 'dw.item',
      description: 'Item',
      fields: {
        name: f.char(50, { required: true }),
        note: f.text(),
        qty: f.integer(),
        price: f.float({ required: true }),
        done: f.boolean({ default: false }),
        flag: f.boolean(),
        at: f.datetime(),
        ref: f.uuid(),
        stage: f.enum(['new', 'won']),
        team: f.reference('dw.team'),
        owner: f.reference('dw.team', { required: true }),
        meta: f.json(),
      },
    }),
  ],
})]);
const item = registry.model('dw.item');
const team = registry.model('dw.team');
const sqlite: DomainContext = { registry, provider: 'sqlite' };
const pg: DomainContext = { registry, provider: 'postgresql' };

const where = (domain: unknown, ctx: DomainContext = sqlite, model = item) => domainToWhere(model, domain, ctx);
const NOTHING = { dbid: { lt: -(2 ** 31) } };
const EVERYTHING = { dbid: { gte: -(2 ** 31) } };

function refused(domain: unknown, ctx: DomainContext = sqlite, model = item): BadRequest {
  let err: unknown;
  try {
    domainToWhere(model, domain, ctx);
  } catch (e) {
    err = e;
  }
  expect(err, `${JSON.stringify(domain)} should be refused`).toBeInstanceOf(BadRequest);
  expect((err as BadRequest).code).toBe('INVALID_DOMAIN');
  expect((err as BadRequest).status).toBe(400);
  return err as BadRequest;
}

const A = ['name', '=', 'a'];
const B = ['qty', '>', 1];
const C = ['stage', '=', 'won'];
const wA = { name: { equals: 'a' } };
const wB = { qty: { gt: 1 } };
const wC = { stage: { equals: 'won' } };

describe('shape of a domain', () => {
  it('no domain, null or an empty list filter nothing', () => {
    expect(where(undefined)).toEqual({});
    expect(where(null)).toEqual({});
    expect(where([])).toEqual({});
  });

  it('a domain that is not a list is refused', () => {
    for (const d of ['name = a', { name: 'a' }, 42]) {
      expect(refused(d).message).toBe('a domain is a list of [field, operator, value] terms');
    }
  });

  it('a term that is not [field, operator, value] or one of & | ! is refused, naming the term', () => {
    for (const t of [['name', '='], ['name', '=', 'a', 'b'], [1, '=', 'a'], ['name', 1, 'a'], 'name', '&&', null]) {
      expect(refused([t]).message).toBe(`domain term ${JSON.stringify(t)} must be [field, operator, value] or one of & | !`);
    }
  });

  it('the first bad term is the one reported, in the order written', () => {
    expect(refused([['nope', '=', 1], ['name', '~', 'a']]).message).toBe('dw.item has no field "nope"');
    expect(refused([['name', '~', 'a'], ['nope', '=', 1]]).message).toMatch(/^unknown operator "~"/);
  });
});

describe('prefix operators', () => {
  it('one term is its condition; terms side by side are ANDed in the order written', () => {
    expect(where([A])).toEqual(wA);
    expect(where([A, B, C])).toEqual({ AND: [wA, wB, wC] });
  });

  it('"&" and "|" take the next two operands', () => {
    expect(where(['&', A, B])).toEqual({ AND: [wA, wB] });
    expect(where(['|', A, B])).toEqual({ OR: [wA, wB] });
    expect(where(['|', A, B, C])).toEqual({ AND: [{ OR: [wA, wB] }, wC] });
    expect(where([A, '|', B, C])).toEqual({ AND: [wA, { OR: [wB, wC] }] });
  });

  it('a run of the same operator is one group; a different operator nests', () => {
    expect(where(['&', '&', A, B, C])).toEqual({ AND: [wA, wB, wC] });
    expect(where(['|', '|', A, B, C])).toEqual({ OR: [wA, wB, wC] });
    expect(where(['|', '&', A, B, C])).toEqual({ OR: [{ AND: [wA, wB] }, wC] });
    expect(where(['&', A, '|', B, C])).toEqual({ AND: [wA, { OR: [wB, wC] }] });
  });

  it('"!" is the complement of its operand, also where the operand compares a NULL', () => {
    expect(where(['!', A])).toEqual({ NOT: wA });
    expect(where(['!', ['note', '=', 'x']])).toEqual({ NOT: { AND: [{ note: { equals: 'x' } }, { note: { not: null } }] } });
    expect(where(['!', '!', A])).toEqual({ NOT: { NOT: wA } });
    expect(where(['!', '|', A, ['qty', '=', 2]])).toEqual({
      NOT: { OR: [wA, { AND: [{ qty: { equals: 2 } }, { qty: { not: null } }] }] },
    });
  });

  it('an operator without its operands is refused', () => {
    for (const d of [['&', A], ['|'], ['!'], [A, '&']]) {
      expect(refused(d).message).toBe('domain ends where an operand was expected');
    }
  });
});

describe('comparisons', () => {
  it('"=" compares with the coerced value; "= null" is IS NULL, or nothing on a required column', () => {
    expect(where([['qty', '=', 3]])).toEqual({ qty: { equals: 3 } });
    expect(where([['ref', '=', 'AAAAAAAA-AAAA-4AAA-8AAA-AAAAAAAAAAAA']])).toEqual({ ref: { equals: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa' } });
    expect(where([['at', '=', '2026-01-02T03:04:05Z']])).toEqual({ at: { equals: new Date('2026-01-02T03:04:05Z') } });
    expect(where([['note', '=', null]])).toEqual({ note: null });
    expect(where([['name', '=', null]])).toEqual(NOTHING);
  });

  it('"!=" on a nullable column also matches NULL; "!= null" is IS NOT NULL, or everything on a required column', () => {
    expect(where([['note', '!=', 'x']])).toEqual({ OR: [{ note: { not: 'x' } }, { note: null }] });
    expect(where([['name', '!=', 'x']])).toEqual({ name: { not: 'x' } });
    expect(where([['note', '!=', null]])).toEqual({ note: { not: null } });
    expect(where([['name', '!=', null]])).toEqual(EVERYTHING);
  });

  it('"<", "<=", ">", ">=" are lt, lte, gt, gte', () => {
    expect(where([['qty', '<', 1]])).toEqual({ qty: { lt: 1 } });
    expect(where([['qty', '<=', 1]])).toEqual({ qty: { lte: 1 } });
    expect(where([['price', '>', 1.5]])).toEqual({ price: { gt: 1.5 } });
    expect(where([['price', '>=', -1]])).toEqual({ price: { gte: -1 } });
  });

  it('a filter value only has to fit the column: a field\'s size does not bind what is searched for', () => {
    const long = 'x'.repeat(60);
    expect(where([['name', '=', long]])).toEqual({ name: { equals: long } });
  });

  it('a value the field cannot hold is refused naming field, operator and the reason', () => {
    const err = refused([['qty', '=', 'three']]);
    expect(err.message).toBe('"qty" =: expected an integer, got "three"');
    expect(err.details).toEqual({ field: 'qty', operator: '=' });
    expect(refused([['team.name', '<', 5]]).message).toBe('"team.name" <: expected text, got number');
  });
});

describe('"in" and "not in"', () => {
  it('take a list, without duplicates', () => {
    expect(where([['qty', 'in', [1, 2, 1]]])).toEqual({ qty: { in: [1, 2] } });
    expect(where([['price', 'not in', [1.5, 1.5]]])).toEqual({ price: { notIn: [1.5] } });
    expect(where([['qty', 'not in', [1]]])).toEqual({ OR: [{ qty: { notIn: [1] } }, { qty: null }] });
  });

  it('an empty list matches nothing ("in") or everything ("not in")', () => {
    expect(where([['qty', 'in', []]])).toEqual(NOTHING);
    expect(where([['qty', 'not in', []]])).toEqual(EVERYTHING);
  });

  it('a value that is not a list is refused', () => {
    for (const op of ['in', 'not in']) {
      const err = refused([['qty', op, 1]]);
      expect(err.message).toBe(`"${op}" on "qty" needs a list value`);
      expect(err.details).toEqual({ field: 'qty', operator: op });
    }
  });

  it('on a Boolean they are equalities (Prisma has no Boolean "in")', () => {
    expect(where([['done', 'in', [true]]])).toEqual({ done: { equals: true } });
    expect(where([['done', 'in', [true, false, true]]])).toEqual({ OR: [{ done: { equals: true } }, { done: { equals: false } }] });
    expect(where([['done', 'not in', [true]]])).toEqual({ done: { not: true } });
    expect(where([['done', 'not in', [true, false]]])).toEqual({ AND: [{ done: { not: true } }, { done: { not: false } }] });
    expect(where([['flag', 'not in', [false]]])).toEqual({ OR: [{ flag: { not: false } }, { flag: null }] });
    expect(where([['flag', 'in', []]])).toEqual(NOTHING);
  });
});

describe('text patterns', () => {
  it('like and startswith are contains and startsWith; % and _ are left to the engine', () => {
    expect(where([['name', 'like', 'a_%']])).toEqual({ name: { contains: 'a_%' } });
    expect(where([['name', 'startswith', 'ab']])).toEqual({ name: { startsWith: 'ab' } });
    expect(where([['stage', 'like', 'ne']])).toEqual({ stage: { contains: 'ne' } });
  });

  it('ilike and istartswith ignore case: mode insensitive on PostgreSQL, nothing added on SQLite', () => {
    expect(where([['name', 'ilike', 'Ab']], pg)).toEqual({ name: { contains: 'Ab', mode: 'insensitive' } });
    expect(where([['name', 'istartswith', 'Ab']], pg)).toEqual({ name: { startsWith: 'Ab', mode: 'insensitive' } });
    expect(where([['name', 'ilike', 'Ab']])).toEqual({ name: { contains: 'Ab' } });
    expect(where([['name', 'istartswith', 'Ab']])).toEqual({ name: { startsWith: 'Ab' } });
    expect(where([['name', 'like', 'Ab']], pg)).toEqual({ name: { contains: 'Ab' } });
    expect(where([['name', 'startswith', 'Ab']], pg)).toEqual({ name: { startsWith: 'Ab' } });
  });

  it('"not like" and "not ilike" are the complement, NULL included on a nullable column', () => {
    expect(where([['note', 'not like', 'x']])).toEqual({ OR: [{ NOT: { note: { contains: 'x' } } }, { note: null }] });
    expect(where([['name', 'not ilike', 'x']], pg)).toEqual({ NOT: { name: { contains: 'x', mode: 'insensitive' } } });
  });

  it('a backslash is a plain character: doubled for PostgreSQL\'s LIKE, kept on SQLite', () => {
    expect(where([['name', 'like', 'a\\b']], pg)).toEqual({ name: { contains: 'a\\\\b' } });
    expect(where([['name', 'like', 'a\\b']])).toEqual({ name: { contains: 'a\\b' } });
  });

  it('a pattern must be text of at most MAX_PATTERN_LENGTH characters, without NUL', () => {
    expect(refused([['name', 'like', 5]]).message).toBe('"like" on "name" needs a text value');
    expect(where([['name', 'like', 'x'.repeat(MAX_PATTERN_LENGTH)]])).toEqual({ name: { contains: 'x'.repeat(MAX_PATTERN_LENGTH) } });
    const err = refused([['name', 'startswith', 'x'.repeat(MAX_PATTERN_LENGTH + 1)]]);
    expect(err.message).toBe(`"startswith" on "name": the text is ${MAX_PATTERN_LENGTH + 1} characters long, over the limit of ${MAX_PATTERN_LENGTH}`);
    expect(err.details).toEqual({ field: 'name', operator: 'startswith', limit: MAX_PATTERN_LENGTH });
    expect(refused([['name', 'like', 'a\u0000b']]).message).toBe('"name" like: contains a NUL character (U+0000), which text cannot hold');
  });
});

describe('which operators apply', () => {
  it('an unknown operator is refused, listing the known ones', () => {
    const err = refused([['name', '==', 'a']]);
    expect(err.message).toBe('unknown operator "==" on "name"; use one of =, !=, <, <=, >, >=, in, not in, like, ilike, not like, not ilike, startswith, istartswith, any');
    expect(err.details).toEqual({ field: 'name', operator: '==' });
  });

  it('an operator the field type does not take is refused, with a hint where one helps', () => {
    expect(refused([['done', '<', true]]).message).toBe('operator "<" does not apply to boolean field "done"');
    expect(refused([['stage', '>=', 'new']]).message).toBe('operator ">=" does not apply to enum field "stage"; Enum values have no order, use "in"');
    expect(refused([['stage', 'any', []]]).message).toBe('operator "any" does not apply to enum field "stage"');
    expect(refused([['members', '=', 'x']], sqlite, team).message)
      .toBe('operator "=" does not apply to one2many field "members"; filter on one of its fields (members.<field>) or use "any"');
    expect(refused([['ref', 'like', 'a']]).details).toEqual({ field: 'ref', operator: 'like', type: 'uuid' });
    expect(refused([['meta', 'in', []]]).message).toBe('operator "in" does not apply to json field "meta"');
  });

  it('a JSON field compares with null only', () => {
    expect(where([['meta', '=', null]])).toEqual({ meta: { equals: DbNull } });
    expect(where([['meta', '!=', null]])).toEqual({ meta: { not: DbNull } });
    const err = refused([['meta', '=', { a: 1 }]]);
    expect(err.message).toBe('"meta" is a JSON field: only "= null" and "!= null" apply');
    expect(err.details).toEqual({ field: 'meta', operator: '=', type: 'json' });
  });
});

describe('fields and relation paths', () => {
  it('an unknown field is refused naming the model and the path walked so far', () => {
    const err = refused([['nope', '=', 1]]);
    expect(err.details).toEqual({ model: 'dw.item', field: 'nope' });
    const deep = refused([['team.nope', '=', 1]]);
    expect(deep.message).toBe('dw.team has no field "nope"');
    expect(deep.details).toEqual({ model: 'dw.team', field: 'team.nope' });
  });

  it('a field the caller may not filter on is refused like a missing one would be', () => {
    const ctx: DomainContext = { ...sqlite, hidden: (m, fld) => m.key === 'dw.team' && fld.name === 'name' };
    expect(where([['name', '=', 'a']], ctx)).toEqual(wA);
    const err = refused([['team.name', '=', 'a']], ctx);
    expect(err.message).toBe('field "name" of dw.team cannot be filtered on');
    expect(err.details).toEqual({ field: 'team.name' });
  });

  it('a dotted path goes through a Reference (is) or a One2Many (some)', () => {
    expect(where([['team.name', '=', 'x']])).toEqual({ team_rel: { is: { name: { equals: 'x' } } } });
    expect(where([['members.qty', '>', 2]], sqlite, team)).toEqual({ members: { some: { qty: { gt: 2 } } } });
    expect(where([['members.team.name', '=', 'x']], sqlite, team)).toEqual({ members: { some: { team_rel: { is: { name: { equals: 'x' } } } } } });
  });

  it('a path through a field that is not a relation is refused', () => {
    const err = refused([['name.length', '=', 1]]);
    expect(err.message).toBe('"name.length": name is not a relation');
    expect(err.details).toEqual({ field: 'name.length' });
  });

  it('"any" matches the related record, or some child, against a whole sub-domain', () => {
    expect(where([['team', 'any', [['name', '=', 'x']]]])).toEqual({ team_rel: { is: { name: { equals: 'x' } } } });
    expect(where([['members', 'any', ['|', ['qty', '=', 1], ['qty', '=', 2]]]], sqlite, team))
      .toEqual({ members: { some: { OR: [{ qty: { equals: 1 } }, { qty: { equals: 2 } }] } } });
    expect(where([['team', 'any', []]])).toEqual({ team_rel: { is: {} } });
    expect(refused([['team', 'any', 'x']]).message).toBe('a domain is a list of [field, operator, value] terms');
  });

  it('the caller\'s scope of the related model is ANDed inside the relation condition', () => {
    const rules = { name: { equals: 'mine' } };
    const seen: string[] = [];
    const ctx: DomainContext = { ...sqlite, scope: (m) => { seen.push(m.key); return m.key === 'dw.team' ? rules : null; } };
    expect(where([['team.name', '!=', 'x']], ctx)).toEqual({ team_rel: { is: { AND: [{ name: { not: 'x' } }, rules] } } });
    expect(where([['team', 'any', [A]]], ctx)).toEqual({ team_rel: { is: { AND: [wA, rules] } } });
    expect(where([['members.name', '=', 'a']], ctx, team)).toEqual({ members: { some: wA } });
    expect(seen).toEqual(['dw.team', 'dw.team', 'dw.item']);
  });
});

describe('placeholders', () => {
  const ctx: DomainContext = { ...sqlite, placeholder: (n) => ({ 'principal.qty': 7, 'principal.none': null } as Record<string, unknown>)[n] };

  it('"$name" values are resolved, also inside lists; a value without "$" is taken as written', () => {
    expect(where([['qty', '=', '$principal.qty']], ctx)).toEqual({ qty: { equals: 7 } });
    expect(where([['qty', 'in', ['$principal.qty', 8]]], ctx)).toEqual({ qty: { in: [7, 8] } });
    expect(where([['qty', '=', '$principal.none']], ctx)).toEqual({ qty: null });
    expect(where([['name', '=', 'principal.qty']], ctx)).toEqual({ name: { equals: 'principal.qty' } });
  });

  it('an unknown placeholder, or any placeholder without a resolver, is refused', () => {
    expect(refused([['qty', '=', '$principal.nope']], ctx).message).toBe('unknown placeholder "$principal.nope"');
    expect(refused([['qty', '=', '$principal.qty']]).message).toBe('unknown placeholder "$principal.qty"');
  });
});

describe('depth bounds', () => {
  const nots = (n: number) => [...Array(n).fill('!'), A];
  const tooDeep = `domain nests deeper than ${MAX_DOMAIN_DEPTH} levels (each "!", each run of "&" or "|", each step of a dotted path and each "any" is a level)`;

  it(`${MAX_DOMAIN_DEPTH} levels of "!" are taken, one more is refused naming the limit`, () => {
    let w: Where = where(nots(MAX_DOMAIN_DEPTH));
    for (let i = 0; i < MAX_DOMAIN_DEPTH; i++) w = w.NOT as Where;
    expect(w).toEqual(wA);
    const err = refused(nots(MAX_DOMAIN_DEPTH + 1));
    expect(err.message).toBe(tooDeep);
    expect(err.details).toEqual({ limit: MAX_DOMAIN_DEPTH });
  });

  it('a long run of "&" is one level, however many operands it has', () => {
    const terms = Array.from({ length: 200 }, (_, i) => ['qty', '!=', i]);
    const w = where([...Array(199).fill('&'), ...terms]);
    expect((w.AND as Where[]).length).toBe(200);
  });

  it('alternating "&" and "|" nest one level each', () => {
    const alternating = (n: number) => {
      let d: unknown[] = [A];
      for (let k = 1; k <= n; k++) d = [k % 2 ? '|' : '&', ...d, B];
      return d;
    };
    expect(() => where(alternating(MAX_DOMAIN_DEPTH))).not.toThrow();
    expect(refused(alternating(MAX_DOMAIN_DEPTH + 1)).message).toBe(tooDeep);
  });

  it(`a domain goes through at most ${MAX_RELATION_DEPTH} relations one inside the other: dotted steps and "any" alike`, () => {
    const tooMany = `domain goes through more than ${MAX_RELATION_DEPTH} relations one inside the other (each step of a dotted path and each "any" is one)`;
    const path = (steps: number) => `${Array.from({ length: steps }, (_, i) => (i % 2 ? 'members' : 'team')).join('.')}.name`;
    expect(() => where([[path(MAX_RELATION_DEPTH), '=', 'x']])).not.toThrow();
    const err = refused([[path(MAX_RELATION_DEPTH + 1), '=', 'x']]);
    expect(err.message).toBe(tooMany);
    expect(err.details).toEqual({ limit: MAX_RELATION_DEPTH });
    const anys = (n: number) => {
      let sub: unknown[] = [A];
      for (let i = 0; i < n; i++) sub = [[(n - i) % 2 ? 'team' : 'members', 'any', sub]];
      return sub;
    };
    expect(() => where(anys(MAX_RELATION_DEPTH))).not.toThrow();
    expect(refused(anys(MAX_RELATION_DEPTH + 1)).message).toBe(tooMany);
    // a path inside "any" counts on from the relations around it
    expect(refused([['team', 'any', [[path(MAX_RELATION_DEPTH), '=', 'x']]]]).message).toBe(tooMany);
  });
});

describe('size bound', () => {
  const terms = (n: number) => Array.from({ length: n }, (_, i) => ['qty', '!=', i]);

  it(`${MAX_DOMAIN_TERMS} terms are taken; one more is refused naming the limit, terms inside "any" included`, () => {
    expect((where(terms(MAX_DOMAIN_TERMS)).AND as Where[]).length).toBe(MAX_DOMAIN_TERMS);
    const err = refused(terms(MAX_DOMAIN_TERMS + 1));
    expect(err.message).toBe(`domain has more than ${MAX_DOMAIN_TERMS} [field, operator, value] terms (those inside "any" included)`);
    expect(err.details).toEqual({ limit: MAX_DOMAIN_TERMS });
    expect(refused([...terms(MAX_DOMAIN_TERMS - 1), ['team', 'any', [['name', '=', 'x']]]]).details).toEqual({ limit: MAX_DOMAIN_TERMS });
    expect(() => where([...terms(MAX_DOMAIN_TERMS - 2), ['team', 'any', [['name', '=', 'x']]]])).not.toThrow();
  });

  it('operators are not terms', () => {
    expect(() => where([...Array(MAX_DOMAIN_TERMS - 1).fill('&'), ...terms(MAX_DOMAIN_TERMS)])).not.toThrow();
  });
});

describe('twoValued', () => {
  const tv = (w: Where, model = item) => twoValued(registry, model, w);

  it('a condition on a nullable column also requires the column to be set', () => {
    expect(tv({ note: { equals: 'x' } })).toEqual({ AND: [{ note: { equals: 'x' } }, { note: { not: null } }] });
    expect(tv({ note: { contains: 'x', mode: 'insensitive' } })).toEqual({ AND: [{ note: { contains: 'x', mode: 'insensitive' } }, { note: { not: null } }] });
  });

  it('null checks, conditions on required columns and unknown keys are left as they are', () => {
    expect(tv({ note: null })).toEqual({ note: null });
    expect(tv({ note: { not: null } })).toEqual({ note: { not: null } });
    expect(tv({ note: { equals: null } })).toEqual({ note: { equals: null } });
    expect(tv({ meta: { not: DbNull } })).toEqual({ meta: { not: DbNull } });
    expect(tv({ name: { equals: 'x' } })).toEqual({ name: { equals: 'x' } });
    expect(tv({ dbid: { lt: 0 } })).toEqual({ dbid: { lt: 0 } });
    expect(tv({})).toEqual({});
  });

  it('a JSON column is required to be set as not DbNull', () => {
    expect(tv({ meta: { equals: 'x' } })).toEqual({ AND: [{ meta: { equals: 'x' } }, { meta: { not: DbNull } }] });
  });

  it('a path through an optional Reference requires the reference; a required one or a One2Many does not', () => {
    expect(tv({ team_rel: { is: { name: { equals: 'x' } } } })).toEqual({ AND: [{ team: { not: null } }, { team_rel: { is: { name: { equals: 'x' } } } }] });
    expect(tv({ owner_rel: { is: { name: { equals: 'x' } } } })).toEqual({ owner_rel: { is: { name: { equals: 'x' } } } });
    expect(tv({ members: { some: { note: { equals: 'x' } } } }, team))
      .toEqual({ members: { some: { AND: [{ note: { equals: 'x' } }, { note: { not: null } }] } } });
  });

  it('AND, OR and NOT are rewritten inside; several conditions become one AND', () => {
    expect(tv({ OR: [{ note: { equals: 'x' } }, { name: { equals: 'y' } }] }))
      .toEqual({ OR: [{ AND: [{ note: { equals: 'x' } }, { note: { not: null } }] }, { name: { equals: 'y' } }] });
    expect(tv({ NOT: [{ qty: { gt: 1 } }] })).toEqual({ NOT: { AND: [{ qty: { gt: 1 } }, { qty: { not: null } }] } });
    expect(tv({ NOT: [{ name: { equals: 'a' } }, { name: { equals: 'b' } }] })).toEqual({ NOT: { AND: [{ name: { equals: 'a' } }, { name: { equals: 'b' } }] } });
    expect(tv({ name: { equals: 'a' }, qty: { lt: 2 } })).toEqual({ AND: [{ name: { equals: 'a' } }, { qty: { lt: 2 } }, { qty: { not: null } }] });
  });

  it('a filter already rewritten is returned as it is', () => {
    const once = tv({ note: { equals: 'x' } });
    expect(tv(once)).toBe(once);
  });
});
