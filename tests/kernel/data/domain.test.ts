/**
 * The bounds src/kernel/data/domain.ts puts on a domain, on SQLite files and on PostgreSQL, through
 * the real server: REST list and count (the compiled SQL reader), REST read_group (Prisma's
 * groupBy), a command reading inside a transaction (Prisma), the batch writes that select by a
 * domain (fw.update_many, fw.delete_many) and GraphQL `where` (whereToDomain → the same domain).
 *   - MAX_DOMAIN_DEPTH: a domain nested deeper is 400 INVALID_DOMAIN naming the limit (it was a
 *     500 on the Prisma paths past Prisma's JSON recursion limit); a run of the same operator is
 *     one level, so a long AND or OR is never refused for its length;
 *   - MAX_RELATION_DEPTH: a domain going through more relations one inside the other (dotted path
 *     steps, `any`) is 400 INVALID_DOMAIN naming that limit (a 30-step path was a 500 on SQLite);
 *   - MAX_PATTERN_LENGTH: a longer `like`/`ilike`/`startswith` text (GraphQL contains,
 *     notContains, startsWith) is 400 INVALID_DOMAIN (it was a 500 on SQLite past 50,000 bytes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DOMAIN_DEPTH, MAX_DOMAIN_TERMS, MAX_PATTERN_LENGTH, MAX_RELATION_DEPTH } from '../../../src/kernel/data/domain.ts';
import { ADMIN_EMAIL, PROVIDERS } from '../../helpers/kernel.ts';
import { gqlRefused, refused, startProbeServer, type ProbeRead, type ProbeServer, type Reply } from './probe-server.ts';

const LEAD_PATH_STEPS = ['organization', 'users'];
/** A dotted path of `steps` relation steps from crm.lead (organization, users, organization, …) and the field at its end. */
const longPath = (steps: number) => {
  const parts = Array.from({ length: steps }, (_, i) => LEAD_PATH_STEPS[i % 2]);
  // an even number of steps ends on res.user, an odd one on res.organization
  return `${parts.join('.')}.${steps % 2 ? 'name' : 'email'}`;
};
/** `n` relation steps as nested `any` (organization, users, organization, …) around `inner` (on the model reached). */
const nestedAny = (n: number, inner: (model: 'res.user' | 'res.organization') => unknown[]): unknown[] => {
  let d = inner(n % 2 ? 'res.organization' : 'res.user');
  for (let i = n - 1; i >= 0; i--) d = [[LEAD_PATH_STEPS[i % 2], 'any', d]];
  return d;
};
/** `n` alternating "|" and "&" groups around [name = Alpha], each one level: matches what the term matches. */
const alternating = (n: number, term: unknown[] = ['name', '=', 'Alpha']): unknown[] => {
  let d: unknown[] = [term];
  for (let k = 1; k <= n; k++) d = k % 2 ? ['|', ...d, ['name', '=', `zz${k}`]] : ['&', ...d, ['name', '!=', `zz${k}`]];
  return d;
};
const nots = (n: number, term: unknown[] = ['name', '=', 'Alpha']): unknown[] => [...Array(n).fill('!'), term];
/** The GraphQL counterpart of `nots`. */
const gqlNots = (n: number, inner = '{ name: { eq: "Alpha" } }') => `${'{ NOT: '.repeat(n)}${inner}${' }'.repeat(n)}`;
/** A GraphQL where going `n` relation filters deep (organization is { users some { organization is … } }). */
const gqlRelations = (n: number) => {
  let inner = '{ name: { ne: "nobody" } }';
  for (let i = n - 1; i >= 0; i--) inner = i % 2 ? `{ users: { some: ${inner} } }` : `{ organization: { is: ${inner} } }`;
  return inner;
};

describe.each(PROVIDERS)('domain bounds on %s', (provider) => {
  let s: ProbeServer;
  let userToken: string;
  const filter = (domain: unknown) => encodeURIComponent(JSON.stringify(domain));

  /** Every path a domain takes, as `token` (refusal checks include the deleting one, which a user may not run). */
  const paths = (domain: unknown, token?: string, o: { writes?: boolean; urls?: boolean } = {}): Array<[string, () => Promise<Reply>]> => [
    ...(o.urls === false ? [] : [
      ['REST list', () => s.request('GET', `/api/data/crm.lead?filter=${filter(domain)}&fields=name`, undefined, token)],
      ['REST count', () => s.request('GET', `/api/data/crm.lead/count?filter=${filter(domain)}`, undefined, token)],
    ] as Array<[string, () => Promise<Reply>]>),
    ['REST read_group', () => s.request('POST', '/api/data/crm.lead/read_group', { groupby: ['name'], filter: domain }, token)],
    ['fw.search over HTTP', () => s.request('POST', '/api/command/fw.search', { model: 'crm.lead', domain, fields: ['name'] }, token)],
    ['a read in a transaction', () => s.request('POST', '/api/command/limitprobe.read', { model: 'crm.lead', domain }, token)],
    ['fw.update_many', () => s.request('POST', '/api/command/fw.update_many', { model: 'crm.lead', domain, values: { notes: 'touched' } }, token)],
    ...(o.writes === false ? [] : [
      ['fw.delete_many', () => s.request('POST', '/api/command/fw.delete_many', { model: 'crm.lead', domain }, token)],
    ] as Array<[string, () => Promise<Reply>]>),
  ];

  /** Every GraphQL operation that takes a `where`. */
  const gqlPaths = (where: string, token?: string): Array<[string, () => Promise<Reply>]> => [
    ['GraphQL list', () => s.gql(`{ crmLeads(where: ${where}) { name } }`, undefined, token)],
    ['GraphQL count', () => s.gql(`{ crmLeadCount(where: ${where}) }`, undefined, token)],
    ['GraphQL groupBy', () => s.gql(`{ crmLeadGroupBy(by: [name], where: ${where}) { count } }`, undefined, token)],
    ['GraphQL updateMany', () => s.gql(`mutation { crmLeadUpdateMany(where: ${where}, input: { notes: "touched" }) { count } }`, undefined, token)],
    ['GraphQL deleteMany', () => s.gql(`mutation { crmLeadDeleteMany(where: ${where}) { count } }`, undefined, token)],
  ];

  /** The leads as they are, to show a refused request changed nothing. */
  const leads = async () => (await s.request('GET', '/api/data/crm.lead?fields=name,notes&order=name%20asc')).body.items
    .map((l: { name: string; notes: string | null }) => [l.name, l.notes]);

  beforeAll(async () => {
    s = await startProbeServer(provider);
    const org = (await s.request('GET', `/api/data/res.organization?filter=${filter([['code', '=', 'default']])}`)).body.items[0].id as string;
    for (const values of [
      { name: 'Alpha', organization: org },
      { name: 'Beta', organization: null },
      // the longest text a pattern may search for, inside a longer one: 30,000 bytes of it
      { name: 'Long', organization: org, notes: `a${'漢'.repeat(MAX_PATTERN_LENGTH)}z` },
    ]) {
      const res = await s.request('POST', '/api/data/crm.lead', values);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    // a `user` of the default organization: crm.lead's and res.organization's record rules apply to her
    const res = await s.request('POST', '/api/data/res.user', { email: 'reader@limits.test', name: 'Reader', password: 'reader-pass-1', role: 'user', organization: org });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    userToken = await s.login('reader@limits.test', 'reader-pass-1');
  });
  afterAll(async () => {
    await s?.close();
  });

  /** Runs every path; each must refuse with 400 INVALID_DOMAIN naming the depth limit. */
  const expectTooDeep = async (label: string, list: Array<[string, () => Promise<Reply>]>, graphql = false) => {
    for (const [where, run] of list) {
      const res = await run();
      const err = graphql ? gqlRefused(res, 400, 'INVALID_DOMAIN', `${label}, ${where}:`) : refused(res, 400, 'INVALID_DOMAIN', `${label}, ${where}:`);
      expect(err.message, `${label}, ${where}`).toContain(`deeper than ${MAX_DOMAIN_DEPTH} levels`);
      expect(graphql ? (err as { extensions: { details?: unknown } }).extensions.details : (err as { details?: unknown }).details).toEqual({ limit: MAX_DOMAIN_DEPTH });
    }
  };

  it(`a domain nested deeper than ${MAX_DOMAIN_DEPTH} levels is 400 INVALID_DOMAIN naming the limit on every path, and changes nothing`, async () => {
    const before = await leads();
    const cases: Array<[string, unknown[]]> = [
      [`${MAX_DOMAIN_DEPTH + 1} "!"`, nots(MAX_DOMAIN_DEPTH + 1)],
      ['130 "!" (the fuzzer\'s 500: past Prisma\'s recursion limit)', nots(130)],
      [`${MAX_DOMAIN_DEPTH + 1} alternating "|" and "&" groups`, alternating(MAX_DOMAIN_DEPTH + 1)],
      [`${MAX_RELATION_DEPTH} relation steps and ${MAX_DOMAIN_DEPTH - MAX_RELATION_DEPTH + 1} "!" inside`, nestedAny(MAX_RELATION_DEPTH, () => nots(MAX_DOMAIN_DEPTH - MAX_RELATION_DEPTH + 1, ['name', '!=', 'x']))],
      [`"any" nested inside "!" past ${MAX_DOMAIN_DEPTH} levels`, nots(MAX_DOMAIN_DEPTH - 1, ['organization', 'any', [['users', 'any', [['email', '=', ADMIN_EMAIL]]]]])],
      ['a level too many among flat terms', [['name', '=', 'Alpha'], ...nots(MAX_DOMAIN_DEPTH + 1), ['name', '!=', 'x']]],
    ];
    for (const [label, domain] of cases) await expectTooDeep(label, paths(domain));
    // a step into a model whose record rules apply to the caller takes one more level: the same
    // domain runs for the admin and is refused for a user
    const ruled = [['organization', 'any', nots(MAX_DOMAIN_DEPTH - 1, ['name', '=', 'x'])]];
    await expectTooDeep('one relation step with record rules around 31 "!"', paths(ruled, userToken, { writes: false }));
    expect((await s.request('GET', `/api/data/crm.lead/count?filter=${filter(ruled)}`)).body).toEqual({ count: 2 });
    expect(await leads()).toEqual(before);
  });

  it('a malformed domain is still 400 INVALID_DOMAIN naming the first bad term, or the missing operand, on every path', async () => {
    const cases: Array<[unknown[], RegExp]> = [
      [['&', ['name', '=', 'x']], /ends where an operand was expected/],
      [['!'], /ends where an operand was expected/],
      [[['name', '=', 'x'], '|'], /ends where an operand was expected/],
      [[['name', '=', 'x'], 'bogus', ['nope', '=', 1]], /domain term "bogus" must be \[field, operator, value\]/],
      [['&', ['nope', '=', 1], ['alsonope', '=', 1]], /has no field "nope"/],
    ];
    for (const [domain, message] of cases) {
      for (const [where, run] of paths(domain)) {
        const err = refused(await run(), 400, 'INVALID_DOMAIN', `${JSON.stringify(domain)}, ${where}:`);
        expect(err.message, `${JSON.stringify(domain)}, ${where}`).toMatch(message);
      }
    }
  });

  /** Runs every path; each must refuse with 400 INVALID_DOMAIN naming the relation limit. */
  const expectTooManyRelations = async (label: string, list: Array<[string, () => Promise<Reply>]>, graphql = false) => {
    for (const [where, run] of list) {
      const res = await run();
      const err = graphql ? gqlRefused(res, 400, 'INVALID_DOMAIN', `${label}, ${where}:`) : refused(res, 400, 'INVALID_DOMAIN', `${label}, ${where}:`);
      expect(err.message, `${label}, ${where}`).toContain(`more than ${MAX_RELATION_DEPTH} relations one inside the other`);
      expect(graphql ? (err as { extensions: { details?: unknown } }).extensions.details : (err as { details?: unknown }).details).toEqual({ limit: MAX_RELATION_DEPTH });
    }
  };

  it(`a domain going through more than ${MAX_RELATION_DEPTH} relations one inside the other is 400 INVALID_DOMAIN naming the limit on every path (GraphQL too), and changes nothing`, async () => {
    const before = await leads();
    const over = MAX_RELATION_DEPTH + 1;
    const cases: Array<[string, unknown[]]> = [
      [`a dotted path of ${over} steps`, [[longPath(over), '=', 'x']]],
      [`a dotted path of ${MAX_DOMAIN_DEPTH + 1} steps (a 500 on SQLite from 30 steps on)`, [[longPath(MAX_DOMAIN_DEPTH + 1), '=', 'x']]],
      [`a dotted path of 50,000 steps`, [[longPath(50_000), '=', 'x']]],
      [`${over} nested "any"`, nestedAny(over, () => [['name', '!=', 'x']])],
      [`${MAX_RELATION_DEPTH} nested "any" around a path of one step`, nestedAny(MAX_RELATION_DEPTH, (m) => [[m === 'res.user' ? 'organization.name' : 'users.name', '!=', 'x']])],
    ];
    for (const [label, domain] of cases) await expectTooManyRelations(label, paths(domain, undefined, { urls: !label.includes('50,000') }));
    await expectTooManyRelations(`${over} GraphQL relation filters`, gqlPaths(gqlRelations(over)), true);
    await expectTooManyRelations(`${MAX_DOMAIN_DEPTH + 1} GraphQL relation filters`, gqlPaths(gqlRelations(MAX_DOMAIN_DEPTH + 1)), true);
    expect(await leads()).toEqual(before);
  });

  it('a hundred thousand "!" in a flat list are refused with 400 INVALID_DOMAIN, not a stack overflow', async () => {
    await expectTooDeep('100,000 "!"', paths(nots(100_000), undefined, { urls: false }));
  });

  it(`GraphQL: a where nested deeper than ${MAX_DOMAIN_DEPTH} levels is 400 INVALID_DOMAIN naming the limit on list, count, groupBy, updateMany and deleteMany`, async () => {
    const before = await leads();
    await expectTooDeep(`${MAX_DOMAIN_DEPTH + 1} NOT`, gqlPaths(gqlNots(MAX_DOMAIN_DEPTH + 1)), true);
    await expectTooDeep('130 NOT (the fuzzer\'s 500)', gqlPaths(gqlNots(130)), true);
    let alternatingWhere = '{ name: { eq: "Alpha" } }';
    for (let k = 1; k <= MAX_DOMAIN_DEPTH + 1; k++) {
      alternatingWhere = k % 2 ? `{ OR: [${alternatingWhere}, { name: { eq: "zz" } }] }` : `{ AND: [${alternatingWhere}, { name: { ne: "zz" } }] }`;
    }
    await expectTooDeep(`${MAX_DOMAIN_DEPTH + 1} alternating OR and AND`, gqlPaths(alternatingWhere), true);
    expect(await leads()).toEqual(before);
  });

  /** Runs every read path and the update one; each must select exactly `names`. */
  const expectSelects = async (label: string, domain: unknown, names: string[], token?: string) => {
    const list = await s.request('GET', `/api/data/crm.lead?filter=${filter(domain)}&fields=name`, undefined, token);
    expect(list.status, `${label}, REST list: ${JSON.stringify(list.body)}`).toBe(200);
    expect(list.body.items.map((r: { name: string }) => r.name).sort(), `${label}, REST list`).toEqual(names);
    expect((await s.request('GET', `/api/data/crm.lead/count?filter=${filter(domain)}`, undefined, token)).body, `${label}, REST count`).toEqual({ count: names.length });
    const groups = await s.request('POST', '/api/data/crm.lead/read_group', { groupby: ['name'], filter: domain }, token);
    expect(groups.status, `${label}, REST read_group: ${JSON.stringify(groups.body)}`).toBe(200);
    expect(groups.body.groups.map((g: { name: string }) => g.name).sort(), `${label}, REST read_group`).toEqual(names);
    const probe = await s.request('POST', '/api/command/limitprobe.read', { model: 'crm.lead', domain }, token);
    expect(probe.status, `${label}, in a transaction: ${JSON.stringify(probe.body)}`).toBe(200);
    const read = probe.body as ProbeRead;
    expect([[...read.names].sort(), read.total, read.count, read.groups, read.viaPrisma], `${label}, in a transaction`)
      .toEqual([names, names.length, names.length, names.length, true]);
    const updated = await s.request('POST', '/api/command/fw.update_many', { model: 'crm.lead', domain, values: { email: 'checked@limits.test' } }, token);
    expect(updated.status, `${label}, fw.update_many: ${JSON.stringify(updated.body)}`).toBe(200);
    expect(updated.body, `${label}, fw.update_many`).toEqual({ count: names.length, ids: expect.any(Array) });
  };

  it(`a domain exactly ${MAX_DOMAIN_DEPTH} levels deep, or through ${MAX_RELATION_DEPTH} relations, runs on every path (Prisma's included), also for a user whose record rules are added`, async () => {
    for (const token of [undefined, userToken]) {
      const who = token ? 'as a user' : 'as the admin';
      await expectSelects(`${MAX_DOMAIN_DEPTH} "!" ${who}`, nots(MAX_DOMAIN_DEPTH), ['Alpha'], token);
      await expectSelects(`${MAX_DOMAIN_DEPTH} alternating groups ${who}`, alternating(MAX_DOMAIN_DEPTH), ['Alpha'], token);
    }
    // the most relations, as a path and as nested `any`, with the rest of the levels inside
    await expectSelects(`a dotted path of ${MAX_RELATION_DEPTH} steps as the admin`, [[longPath(MAX_RELATION_DEPTH), '=', ADMIN_EMAIL]], ['Alpha', 'Long']);
    // as a user the rules of each model reached are added: res.user's (the users of the caller's
    // organization: its default one or a membership) is three levels where the path's last step
    // lands, so the longest path a user may write ends one step earlier, on res.organization, and
    // the full one is refused with 400 (never a 500)
    await expectSelects(`a dotted path of ${MAX_RELATION_DEPTH - 1} steps as a user`, [[longPath(MAX_RELATION_DEPTH - 1), '=', 'Default Organization']], ['Alpha', 'Long'], userToken);
    await expectTooDeep(`a dotted path of ${MAX_RELATION_DEPTH} steps ending on res.user as a user`, paths([[longPath(MAX_RELATION_DEPTH), '=', ADMIN_EMAIL]], userToken, { writes: false }));
    await expectSelects(`${MAX_RELATION_DEPTH} nested "any" around ${MAX_DOMAIN_DEPTH - MAX_RELATION_DEPTH} "!"`,
      nestedAny(MAX_RELATION_DEPTH, () => nots(MAX_DOMAIN_DEPTH - MAX_RELATION_DEPTH, ['email', '=', ADMIN_EMAIL])), ['Alpha', 'Long']);
    const where = gqlNots(MAX_DOMAIN_DEPTH);
    for (const token of [undefined, userToken]) {
      const res = await s.gql(`{ crmLeads(where: ${where}) { name } crmLeadCount(where: ${where}) }`, undefined, token);
      expect(res.body, JSON.stringify(res.body)).toEqual({ data: { crmLeads: [{ name: 'Alpha' }], crmLeadCount: 1 } });
    }
    const relations = await s.gql(`{ crmLeadCount(where: ${gqlRelations(MAX_RELATION_DEPTH)}) }`);
    expect(relations.body, JSON.stringify(relations.body)).toEqual({ data: { crmLeadCount: 2 } });
  });

  it('a run of "&" or "|" is one level however it is written: 300 chained terms run on every path (past ~60 they were a 500 on the Prisma paths)', async () => {
    const terms = (n: number, op: '=' | '!=') => Array.from({ length: n }, (_, i) => ['name', op, `zz${i}`]);
    const rightAnd = terms(300, '!=').flatMap((t, i) => (i < 299 ? ['&', t] : [t]));
    const leftOr = [...Array(300).fill('|'), ['name', '=', 'Alpha'], ...terms(300, '=')];
    await expectSelects('300 terms "&"-chained to the right', [...rightAnd.slice(0, -1), '&', ['name', '=', 'Beta'], rightAnd.at(-1)], ['Beta']);
    await expectSelects('301 terms "|"-chained to the left', leftOr, ['Alpha']);
    await expectSelects('a run of "&" inside "!" inside a run of "|"', ['|', '!', ...rightAnd.slice(0, -1), '&', ['name', '=', 'Beta'], rightAnd.at(-1), ['name', '=', 'Alpha']], ['Alpha', 'Long']);
    // GraphQL writes a list of conditions as a run of "&"
    const and = Array.from({ length: 300 }, (_, i) => `{ name: { ne: "zz${i}" } }`).join(', ');
    const res = await s.gql(`{ crmLeadCount(where: { AND: [${and}, { name: { eq: "Beta" } }] }) }`);
    expect(res.body, JSON.stringify(res.body)).toEqual({ data: { crmLeadCount: 1 } });
  });

  it(`a domain of more than ${MAX_DOMAIN_TERMS} terms (those inside "any" counted) is 400 INVALID_DOMAIN on every path; exactly ${MAX_DOMAIN_TERMS} run (about 1,000 were a 500 on SQLite)`, async () => {
    const terms = (n: number) => Array.from({ length: n }, (_, i) => ['name', '!=', `zz${i}`]);
    await expectSelects(`${MAX_DOMAIN_TERMS} "!=" terms side by side`, [...terms(MAX_DOMAIN_TERMS - 1), ['name', '=', 'Beta']], ['Beta']);
    const before = await leads();
    for (const [label, domain] of [
      ['1,000 terms side by side', terms(1_000)],
      [`${MAX_DOMAIN_TERMS + 1} terms, some inside "any"`, [...terms(MAX_DOMAIN_TERMS - 10), ['organization', 'any', terms(11)]]],
    ] as const) {
      for (const [where, run] of paths(domain, undefined, { urls: false })) {
        const err = refused(await run(), 400, 'INVALID_DOMAIN', `${label}, ${where}:`);
        expect(err.details).toMatchObject({ limit: MAX_DOMAIN_TERMS });
      }
    }
    expect(await leads()).toEqual(before);
    const ors = Array.from({ length: 1_000 }, (_, i) => `{ name: { eq: "zz${i}" } }`).join(', ');
    expect(gqlRefused(await s.gql(`{ crmLeadCount(where: { OR: [${ors}] }) }`), 400, 'INVALID_DOMAIN', 'GraphQL OR of 1,000').extensions.details).toMatchObject({ limit: MAX_DOMAIN_TERMS });
  });

  const PATTERN_OPS = ['like', 'ilike', 'not like', 'not ilike', 'startswith', 'istartswith'];

  it(`a pattern over ${MAX_PATTERN_LENGTH} characters is 400 INVALID_DOMAIN naming the limit for every pattern operator on every path, and changes nothing`, async () => {
    const before = await leads();
    for (const op of PATTERN_OPS) {
      for (const [label, value] of [
        [`${MAX_PATTERN_LENGTH + 1} ASCII characters`, 'x'.repeat(MAX_PATTERN_LENGTH + 1)],
        // the fuzzer's case: 51,000 bytes, past SQLite's 50,000-byte LIKE pattern limit (a 500 there)
        ['17,000 CJK characters', '漢'.repeat(17_000)],
      ] as const) {
        // through a path and under "!", as anywhere in a domain
        for (const domain of [[['notes', op, value]], ['!', ['organization.name', op, value]]]) {
          for (const [where, run] of paths(domain, undefined, { urls: value.length < 12_000 })) {
            const err = refused(await run(), 400, 'INVALID_DOMAIN', `${op} ${label}, ${where}:`);
            expect(err.message).toContain(`over the limit of ${MAX_PATTERN_LENGTH}`);
            expect(err.details).toMatchObject({ operator: op, limit: MAX_PATTERN_LENGTH });
          }
        }
      }
    }
    // endswith is no operator: refused as such, whatever the length
    const err = refused(await s.request('POST', '/api/data/crm.lead/read_group', { groupby: ['name'], filter: [['notes', 'endswith', 'x'.repeat(60_000)]] }), 400, 'INVALID_DOMAIN');
    expect(err.details).toMatchObject({ field: 'notes', operator: 'endswith' });
    expect(await leads()).toEqual(before);
  });

  it(`GraphQL: contains, notContains and startsWith over ${MAX_PATTERN_LENGTH} characters, with or without mode: insensitive, are 400 INVALID_DOMAIN on every operation`, async () => {
    const before = await leads();
    const long = 'x'.repeat(MAX_PATTERN_LENGTH + 1);
    for (const op of ['contains', 'notContains', 'startsWith']) {
      for (const mode of ['', ', mode: insensitive']) {
        for (const [where, run] of gqlPaths(`{ notes: { ${op}: "${long}"${mode} } }`)) {
          const err = gqlRefused(await run(), 400, 'INVALID_DOMAIN', `${op}${mode}, ${where}:`);
          expect(err.message).toContain(`over the limit of ${MAX_PATTERN_LENGTH}`);
          expect(err.extensions.details).toMatchObject({ field: 'notes', limit: MAX_PATTERN_LENGTH });
        }
      }
    }
    // as a variable too: the same domain
    const res = await s.gql('query($w: CrmLeadWhere) { crmLeads(where: $w) { name } }', { w: { name: { contains: '漢'.repeat(17_000) } } });
    gqlRefused(res, 400, 'INVALID_DOMAIN');
    expect(await leads()).toEqual(before);
  });

  it(`a pattern of exactly ${MAX_PATTERN_LENGTH} characters (30,000 UTF-8 bytes) is searched on every path and finds the record holding it`, async () => {
    const text = '漢'.repeat(MAX_PATTERN_LENGTH);
    await expectSelects('like', [['notes', 'like', text]], ['Long']);
    await expectSelects('ilike', [['notes', 'ilike', text]], ['Long']);
    await expectSelects('startswith', [['notes', 'startswith', `a${text.slice(1)}`]], ['Long']);
    await expectSelects('not like', [['notes', 'not like', text]], ['Alpha', 'Beta']);
    const res = await s.gql(`{ crmLeads(where: { notes: { startsWith: "a${text.slice(1)}", mode: insensitive } }) { name } }`);
    expect(res.body, JSON.stringify(res.body).slice(0, 500)).toEqual({ data: { crmLeads: [{ name: 'Long' }] } });
  });
});
