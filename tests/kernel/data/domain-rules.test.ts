/**
 * Rules of src/kernel/data/domain.ts that domain-where.test.ts leaves open, on models resolved by
 * the real registry (no database): which keys `twoValued` reads as relation filters (only
 * `<reference>_rel` and a One2Many, not a field whose name merely extends a Reference's), the
 * Prisma shapes it leaves alone (undefined, a relation written as null, a null check with a case
 * mode), the relation bound counted through a dotted path that ends in `any` and through an
 * empty innermost `any`, and the details of the pattern refusals (400 INVALID_DOMAIN).
 */
import { describe, expect, it } from 'vitest';
import { domainToWhere, MAX_RELATION_DEPTH, twoValued, type DomainContext, type Where } from '../../../src/kernel/data/domain.ts';
import { defineModel, f } from '../../../src/kernel/declare.ts';
import { BadRequest } from '../../../src/kernel/errors.ts';
import { createRegistry } from '../../../src/kernel/kernel.ts';
import { fixtureApp } from '../../helpers/kernel.ts';

const registry = createRegistry([fixtureApp('fixture_dr', {
  models: [
    defineModel({
      key: 'dr.team',
      description: 'Team',
      fields: { name: f.char(50, { required: true }), members: f.one2many('dr.item', 'team') },
    }),
    defineModel({
      key: 'dr.item',
      description: 'Item',
      fields: {
        name: f.char(50, { required: true }),
        note: f.text(),
        // "team" plus four characters: the same length as "team_rel", but a plain column
        team: f.reference('dr.team'),
        team_tag: f.char(20),
      },
    }),
  ],
})]);
const item = registry.model('dr.item');
const team = registry.model('dr.team');
const sqlite: DomainContext = { registry, provider: 'sqlite' };
const where = (domain: unknown, model = item) => domainToWhere(model, domain, sqlite);
const tv = (w: Where, model = item) => twoValued(registry, model, w);

function refused(domain: unknown, model = item): BadRequest {
  let err: unknown;
  try {
    domainToWhere(model, domain, sqlite);
  } catch (e) {
    err = e;
  }
  expect(err, `${JSON.stringify(domain)} should be refused`).toBeInstanceOf(BadRequest);
  expect((err as BadRequest).code).toBe('INVALID_DOMAIN');
  expect((err as BadRequest).status).toBe(400);
  return err as BadRequest;
}

const TOO_MANY = `domain goes through more than ${MAX_RELATION_DEPTH} relations one inside the other (each step of a dotted path and each "any" is one)`;

describe('twoValued reads only <reference>_rel and One2Many keys as relation filters', () => {
  it('a column whose name is a Reference\'s name plus four characters is a plain nullable column', () => {
    const cond = { team_tag: { equals: 'x' } };
    expect(tv(cond)).toEqual({ AND: [cond, { team_tag: { not: null } }] });
    expect(where(['!', ['team_tag', '=', 'x']])).toEqual({ NOT: { AND: [cond, { team_tag: { not: null } }] } });
  });

  it('a relation written as null (Prisma: no related record) is left as it is', () => {
    expect(tv({ team_rel: null })).toEqual({ team_rel: null });
  });

  it('a key set to undefined (Prisma: no condition) is left as it is, on a relation, a One2Many or a column', () => {
    for (const [w, model] of [[{ team_rel: undefined }, item], [{ members: undefined }, team], [{ note: undefined }, item]] as const) {
      const out = tv(w as Where, model);
      expect(Object.entries(out)).toEqual(Object.entries(w));
    }
  });
});

describe('twoValued: which conditions a NULL leaves unknown', () => {
  it('a null check stays a null check with a case mode beside it (the mode is not a comparison)', () => {
    const cond = { note: { equals: null, mode: 'insensitive' } };
    expect(tv(cond)).toEqual(cond);
  });

  it('a comparison beside a null check still requires the column to be set', () => {
    const cond = { note: { equals: null, contains: 'x' } };
    expect(tv(cond)).toEqual({ AND: [cond, { note: { not: null } }] });
  });
});

describe('the relation bound', () => {
  const pathTo = (relations: number) => Array.from({ length: relations }, (_, i) => (i % 2 ? 'members' : 'team')).join('.');

  it(`a dotted path ending in "any" counts each step and the "any": ${MAX_RELATION_DEPTH} relations are taken, one more is refused`, () => {
    // relations k: the path has k - 1 steps, the "any" is the k-th (an odd k ends on "team", from dr.item)
    const anyAtEnd = (k: number) => [[pathTo(k), 'any', [['name', '!=', 'x']]]];
    expect(() => where(anyAtEnd(MAX_RELATION_DEPTH))).not.toThrow();
    const err = refused(anyAtEnd(MAX_RELATION_DEPTH + 1));
    expect(err.message).toBe(TOO_MANY);
    expect(err.details).toEqual({ limit: MAX_RELATION_DEPTH });
  });

  it(`${MAX_RELATION_DEPTH + 1} nested "any" are refused even when the innermost sub-domain is empty`, () => {
    const anys = (n: number) => {
      let sub: unknown[] = [];
      for (let i = 0; i < n; i++) sub = [[(n - i) % 2 ? 'team' : 'members', 'any', sub]];
      return sub;
    };
    expect(() => where(anys(MAX_RELATION_DEPTH))).not.toThrow();
    const err = refused(anys(MAX_RELATION_DEPTH + 1));
    expect(err.message).toBe(TOO_MANY);
    expect(err.details).toEqual({ limit: MAX_RELATION_DEPTH });
  });
});

describe('pattern refusals name the field and the operator', () => {
  it('a pattern that is not text', () => {
    const err = refused([['team.name', 'ilike', 5]]);
    expect(err.message).toBe('"ilike" on "team.name" needs a text value');
    expect(err.details).toEqual({ field: 'team.name', operator: 'ilike' });
  });

  it('a pattern holding a NUL character', () => {
    const err = refused([['note', 'not like', 'a\u0000b']]);
    expect(err.message).toBe('"note" not like: contains a NUL character (U+0000), which text cannot hold');
    expect(err.details).toEqual({ field: 'note', operator: 'not like' });
  });
});
