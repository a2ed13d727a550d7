/**
 * The domain corpus: one fixed dataset, and for each domain the exact records it selects.
 * tests/kernel/data/domain-corpus.test.ts runs every entry through every read path (REST list
 * and count, fw.count, reads inside a transaction, read_group, GraphQL where/count/groupBy) on
 * SQLite and PostgreSQL and compares each path with the expectation written here, never one path
 * with another: both paths share the domain translation, so a shared defect (startswith read as
 * contains, a negation dropped) would pass a differential test.
 *
 * Conventions
 * - Records are named by their `name` (unique in this dataset).
 * - `'@lead:<name>'`, `'@org:<name>'`, `'@country:<code>'`, `'@user:<key>'` stand for record ids, filled in once
 *   the data is seeded; `'@LEAD:<name>'` is the id in upper case.
 * - `expect` holds for both engines unless it is `{ sqlite, postgresql }`: the documented engine
 *   difference is case (SQLite's LIKE ignores case for ASCII letters only, so `like` and
 *   `startswith` ignore ASCII case there and `ilike` does not fold accented capitals).
 * - `codepoint`: a text comparison (`<`, `>=` …) whose expectation is code point order: SQLite's
 *   and that of PostgreSQL databases with a C collation (the test server's); skipped elsewhere.
 * - `gql`: the same filter as a GraphQL `where` (omitted only where GraphQL cannot say it).
 */

export const LEAD_NAMES = ['Acme 50%', 'acme small', 'a_b trading', 'aXb trading', 'Éclair', 'éclair', 'Zeta', 'Yak'] as const;
export type LeadName = (typeof LEAD_NAMES)[number];
export const ORG_NAMES = ['Default Organization', 'North', 'South', 'Empty'] as const;
export type OrgName = (typeof ORG_NAMES)[number];

/** Organizations besides the seeded "Default Organization" (code default, no country, active, the admin's). */
export const ORGS = [
  { name: 'North', code: 'north', country: 'FR', is_active: true },
  { name: 'South', code: 'south', country: 'DE', is_active: false },
  { name: 'Empty', code: null, country: null, is_active: true },
] as const;

/**
 * Users besides the seeded admin (Default Organization). Both sellers are called "Seller"; the one
 * without an organization is outside what Alice (a `user` of North) may read of res.user.
 */
export const USERS = [
  { key: 'seller.north', email: 'seller.north@x.test', name: 'Seller', organization: 'North' },
  { key: 'seller.none', email: 'seller.none@x.test', name: 'Seller', organization: null },
  { key: 'alice', email: 'alice@north.test', name: 'Alice', organization: 'North' },
] as const;
export const USER_PASSWORD = 'password-corpus-1';

/* eslint-disable no-multi-spaces */
export const LEADS = [
  // name, email, stage, expected_revenue, probability, closed_at, organization, country, salesperson, notes
  { name: 'Acme 50%',    email: 'a@x.test', stage: 'won',       expected_revenue: 500,        probability: 0.5,  closed_at: '2026-02-01T10:20:30.400Z', organization: 'North', country: 'FR', salesperson: 'seller.north', notes: 'hot lead' },
  { name: 'acme small',  email: null,       stage: 'new',       expected_revenue: 0,          probability: 0.25, closed_at: null,                       organization: 'North', country: 'DE', salesperson: 'seller.none', notes: null },
  { name: 'a_b trading', email: 'B@X.test', stage: 'lost',      expected_revenue: 100,        probability: null, closed_at: '2026-04-01T00:00:00.000Z', organization: 'South', country: null, salesperson: null, notes: 'Cold' },
  { name: 'aXb trading', email: 'c@x.test', stage: 'qualified', expected_revenue: 101,        probability: 0.9,  closed_at: null,                       organization: null,    country: null, salesperson: null, notes: '100% sure' },
  { name: 'Éclair',      email: 'e@x.test', stage: 'new',       expected_revenue: 2147483647, probability: 0,    closed_at: '2026-02-01T10:20:30.401Z', organization: 'Empty', country: 'FR', salesperson: null, notes: 'crème brûlée' },
  { name: 'éclair',      email: null,       stage: 'won',       expected_revenue: 7,          probability: 1,    closed_at: '2025-12-31T23:59:59.999Z', organization: 'South', country: null, salesperson: null, notes: 'a\\b' },
  { name: 'Zeta',        email: 'z@x.test', stage: 'lost',      expected_revenue: 0,          probability: null, closed_at: null,                       organization: null,    country: 'DE', salesperson: null, notes: 'ab' },
  { name: 'Yak',         email: '',         stage: 'qualified', expected_revenue: 50,         probability: 0.5,  closed_at: '2026-02-01T10:20:30.400Z', organization: 'North', country: null, salesperson: null, notes: '' },
] as const;
/* eslint-enable no-multi-spaces */

type Names<N> = readonly N[] | { sqlite: readonly N[]; postgresql: readonly N[] };

export interface CorpusEntry<N extends string = string> {
  domain: unknown[];
  expect: Names<N>;
  gql?: Record<string, unknown>;
  codepoint?: true;
}

const ALL_LEADS = LEAD_NAMES;
const leadsBut = (...out: LeadName[]): LeadName[] => LEAD_NAMES.filter((n) => !out.includes(n));

/** crm.lead: Char (name, email), Text (notes), Enum (stage), Integer, Float, DateTime, UUID, Reference and paths. */
export const LEAD_CORPUS: CorpusEntry<LeadName>[] = [
  // ── Char: = != in, not in, comparisons (case-sensitive everywhere) ────────────────────────
  { domain: [['name', '=', 'Acme 50%']], expect: ['Acme 50%'], gql: { name: { eq: 'Acme 50%' } } },
  { domain: [['name', '=', 'acme 50%']], expect: [], gql: { name: { eq: 'acme 50%' } } },
  { domain: [['name', '!=', 'Zeta']], expect: leadsBut('Zeta'), gql: { name: { ne: 'Zeta' } } },
  { domain: [['name', 'in', ['Zeta', 'Yak', 'nobody']]], expect: ['Zeta', 'Yak'], gql: { name: { in: ['Zeta', 'Yak', 'nobody'] } } },
  { domain: [['name', 'not in', ['Zeta']]], expect: leadsBut('Zeta'), gql: { name: { notIn: ['Zeta'] } } },
  { domain: [['name', '<', 'B']], expect: ['Acme 50%'], gql: { name: { lt: 'B' } }, codepoint: true },
  { domain: [['name', '>=', 'a']], expect: ['acme small', 'a_b trading', 'aXb trading', 'Éclair', 'éclair'], gql: { name: { gte: 'a' } }, codepoint: true },
  { domain: [['name', '<=', 'Zeta']], expect: ['Acme 50%', 'Zeta', 'Yak'], gql: { name: { lte: 'Zeta' } }, codepoint: true },
  { domain: [['name', '>', 'aXb trading']], expect: ['acme small', 'a_b trading', 'Éclair', 'éclair'], gql: { name: { gt: 'aXb trading' } }, codepoint: true },
  { domain: [['email', '=', null]], expect: ['acme small', 'éclair'], gql: { email: { eq: null } } },
  { domain: [['email', '!=', null]], expect: leadsBut('acme small', 'éclair'), gql: { email: { ne: null } } },
  { domain: [['email', '=', '']], expect: ['Yak'], gql: { email: { eq: '' } } },
  { domain: [['email', '!=', 'c@x.test']], expect: leadsBut('aXb trading'), gql: { email: { ne: 'c@x.test' } } },
  { domain: [['email', 'in', ['a@x.test', 'B@X.test']]], expect: ['Acme 50%', 'a_b trading'], gql: { email: { in: ['a@x.test', 'B@X.test'] } } },
  { domain: [['email', 'in', ['b@x.test']]], expect: [], gql: { email: { in: ['b@x.test'] } } },
  { domain: [['email', 'not in', ['a@x.test']]], expect: leadsBut('Acme 50%'), gql: { email: { notIn: ['a@x.test'] } } },
  // null in a list stands for "no value", as in `= null`; NOT IN keeps rows without one unless it names null
  { domain: [['email', 'in', [null, 'a@x.test']]], expect: ['Acme 50%', 'acme small', 'éclair'] },
  { domain: [['email', 'in', [null]]], expect: ['acme small', 'éclair'] },
  { domain: [['email', 'not in', [null, 'a@x.test']]], expect: leadsBut('Acme 50%', 'acme small', 'éclair') },
  { domain: [['email', 'not in', [null]]], expect: leadsBut('acme small', 'éclair') },
  { domain: ['!', ['email', 'in', [null, 'a@x.test']]], expect: leadsBut('Acme 50%', 'acme small', 'éclair') },
  { domain: [['country', 'in', [null, '@country:DE']]], expect: ['acme small', 'a_b trading', 'aXb trading', 'éclair', 'Zeta', 'Yak'] },
  { domain: [['country', 'not in', [null, '@country:DE']]], expect: ['Acme 50%', 'Éclair'] },
  { domain: [['email', 'in', []]], expect: [], gql: { email: { in: [] } } },
  { domain: [['email', 'not in', []]], expect: ALL_LEADS, gql: { email: { notIn: [] } } },
  { domain: ['!', ['email', 'in', []]], expect: ALL_LEADS, gql: { NOT: { email: { in: [] } } } },
  { domain: ['!', ['email', 'not in', []]], expect: [], gql: { NOT: { email: { notIn: [] } } } },
  { domain: [['email', '>', 'b']], expect: ['aXb trading', 'Éclair', 'Zeta'], gql: { email: { gt: 'b' } }, codepoint: true },
  { domain: [['email', '<=', '']], expect: ['Yak'], gql: { email: { lte: '' } } },

  // ── Char and Text patterns: % and _ are wildcards, a backslash is a character ─────────────
  { domain: [['name', 'like', 'acme']], expect: { sqlite: ['Acme 50%', 'acme small'], postgresql: ['acme small'] }, gql: { name: { contains: 'acme' } } },
  { domain: [['name', 'ilike', 'ACME']], expect: ['Acme 50%', 'acme small'], gql: { name: { contains: 'ACME', mode: 'insensitive' } } },
  { domain: [['name', 'like', '50%']], expect: ['Acme 50%'], gql: { name: { contains: '50%' } } },
  { domain: [['name', 'like', 'a_b']], expect: ['a_b trading', 'aXb trading'], gql: { name: { contains: 'a_b' } } },
  { domain: [['name', 'like', '%']], expect: ALL_LEADS, gql: { name: { contains: '%' } } },
  { domain: [['name', 'not like', 'trading']], expect: leadsBut('a_b trading', 'aXb trading'), gql: { name: { notContains: 'trading' } } },
  { domain: [['name', 'not ilike', 'ACME']], expect: leadsBut('Acme 50%', 'acme small'), gql: { name: { notContains: 'ACME', mode: 'insensitive' } } },
  { domain: [['name', 'startswith', 'a']], expect: { sqlite: ['Acme 50%', 'acme small', 'a_b trading', 'aXb trading'], postgresql: ['acme small', 'a_b trading', 'aXb trading'] }, gql: { name: { startsWith: 'a' } } },
  { domain: [['name', 'istartswith', 'A']], expect: ['Acme 50%', 'acme small', 'a_b trading', 'aXb trading'], gql: { name: { startsWith: 'A', mode: 'insensitive' } } },
  { domain: [['name', 'startswith', 'cme']], expect: [], gql: { name: { startsWith: 'cme' } } },
  { domain: [['name', 'istartswith', 'TRADING']], expect: [], gql: { name: { startsWith: 'TRADING', mode: 'insensitive' } } },
  { domain: [['name', 'istartswith', 'z']], expect: ['Zeta'], gql: { name: { startsWith: 'z', mode: 'insensitive' } } },
  { domain: [['name', 'like', 'clair']], expect: ['Éclair', 'éclair'], gql: { name: { contains: 'clair' } } },
  { domain: [['name', 'ilike', 'éclair']], expect: { sqlite: ['éclair'], postgresql: ['Éclair', 'éclair'] }, gql: { name: { contains: 'éclair', mode: 'insensitive' } } },
  { domain: [['email', 'ilike', 'X.TEST']], expect: ['Acme 50%', 'a_b trading', 'aXb trading', 'Éclair', 'Zeta'], gql: { email: { contains: 'X.TEST', mode: 'insensitive' } } },
  { domain: [['email', 'like', 'X.test']], expect: { sqlite: ['Acme 50%', 'a_b trading', 'aXb trading', 'Éclair', 'Zeta'], postgresql: ['a_b trading'] }, gql: { email: { contains: 'X.test' } } },
  { domain: [['email', 'not like', 'x.test']], expect: { sqlite: ['acme small', 'éclair', 'Yak'], postgresql: ['acme small', 'a_b trading', 'éclair', 'Yak'] }, gql: { email: { notContains: 'x.test' } } },
  { domain: [['email', 'startswith', '']], expect: leadsBut('acme small', 'éclair'), gql: { email: { startsWith: '' } } },
  { domain: [['notes', '=', null]], expect: ['acme small'], gql: { notes: { eq: null } } },
  { domain: [['notes', '=', '']], expect: ['Yak'], gql: { notes: { eq: '' } } },
  { domain: [['notes', '!=', '']], expect: leadsBut('Yak'), gql: { notes: { ne: '' } } },
  { domain: [['notes', 'like', '']], expect: leadsBut('acme small'), gql: { notes: { contains: '' } } },
  { domain: [['notes', 'like', '100%']], expect: ['aXb trading'], gql: { notes: { contains: '100%' } } },
  { domain: [['notes', 'like', 'a\\b']], expect: ['éclair'], gql: { notes: { contains: 'a\\b' } } },
  { domain: [['notes', 'like', 'ab']], expect: ['Zeta'], gql: { notes: { contains: 'ab' } } },
  { domain: [['notes', 'like', 'a_b']], expect: ['éclair'], gql: { notes: { contains: 'a_b' } } },
  { domain: [['notes', 'not like', 'o']], expect: leadsBut('Acme 50%', 'a_b trading'), gql: { notes: { notContains: 'o' } } },
  { domain: [['notes', 'not ilike', 'HOT']], expect: leadsBut('Acme 50%'), gql: { notes: { notContains: 'HOT', mode: 'insensitive' } } },
  { domain: [['notes', 'not like', 'cold']], expect: { sqlite: leadsBut('a_b trading'), postgresql: ALL_LEADS }, gql: { notes: { notContains: 'cold' } } },
  { domain: [['notes', 'like', 'brûl']], expect: ['Éclair'], gql: { notes: { contains: 'brûl' } } },
  { domain: [['notes', 'like', 'brul']], expect: [], gql: { notes: { contains: 'brul' } } },
  { domain: [['notes', 'ilike', 'BRÛLÉE']], expect: { sqlite: [], postgresql: ['Éclair'] }, gql: { notes: { contains: 'BRÛLÉE', mode: 'insensitive' } } },
  { domain: [['notes', 'startswith', 'a']], expect: ['éclair', 'Zeta'], gql: { notes: { startsWith: 'a' } } },
  { domain: [['notes', 'istartswith', 'C']], expect: ['a_b trading', 'Éclair'], gql: { notes: { startsWith: 'C', mode: 'insensitive' } } },
  { domain: [['notes', 'startswith', 'old']], expect: [], gql: { notes: { startsWith: 'old' } } },
  { domain: [['notes', 'istartswith', 'LEAD']], expect: [], gql: { notes: { startsWith: 'LEAD', mode: 'insensitive' } } },

  // ── Enum: = != in, not in, patterns on the stored value; no order ─────────────────────────
  { domain: [['stage', '=', 'won']], expect: ['Acme 50%', 'éclair'], gql: { stage: { eq: 'won' } } },
  { domain: [['stage', '!=', 'won']], expect: leadsBut('Acme 50%', 'éclair'), gql: { stage: { ne: 'won' } } },
  { domain: [['stage', 'in', ['new', 'lost']]], expect: ['acme small', 'a_b trading', 'Éclair', 'Zeta'], gql: { stage: { in: ['new', 'lost'] } } },
  { domain: [['stage', 'not in', ['new', 'lost']]], expect: ['Acme 50%', 'aXb trading', 'éclair', 'Yak'], gql: { stage: { notIn: ['new', 'lost'] } } },
  { domain: [['stage', 'in', []]], expect: [], gql: { stage: { in: [] } } },
  { domain: [['stage', '=', null]], expect: [], gql: { stage: { eq: null } } },
  { domain: [['stage', '!=', null]], expect: ALL_LEADS, gql: { stage: { ne: null } } },
  { domain: ['!', ['stage', '!=', null]], expect: [], gql: { NOT: { stage: { ne: null } } } },
  { domain: ['!', ['stage', '=', null]], expect: ALL_LEADS, gql: { NOT: { stage: { eq: null } } } },
  { domain: [['stage', 'like', 'qual']], expect: ['aXb trading', 'Yak'], gql: { stage: { contains: 'qual' } } },
  { domain: [['stage', 'not ilike', 'W']], expect: ['a_b trading', 'aXb trading', 'Zeta', 'Yak'], gql: { stage: { notContains: 'W', mode: 'insensitive' } } },
  { domain: [['stage', 'istartswith', 'N']], expect: ['acme small', 'Éclair'], gql: { stage: { startsWith: 'N', mode: 'insensitive' } } },
  { domain: [['stage', 'startswith', 'on']], expect: [], gql: { stage: { startsWith: 'on' } } },

  // ── Integer (min 0 binds writes, not filters; 2³¹−1 is the top) ───────────────────────────
  { domain: [['expected_revenue', '=', 0]], expect: ['acme small', 'Zeta'], gql: { expected_revenue: { eq: 0 } } },
  { domain: [['expected_revenue', '!=', 0]], expect: leadsBut('acme small', 'Zeta'), gql: { expected_revenue: { ne: 0 } } },
  { domain: [['expected_revenue', '>', 100]], expect: ['Acme 50%', 'aXb trading', 'Éclair'], gql: { expected_revenue: { gt: 100 } } },
  { domain: [['expected_revenue', '>=', 100]], expect: ['Acme 50%', 'a_b trading', 'aXb trading', 'Éclair'], gql: { expected_revenue: { gte: 100 } } },
  { domain: [['expected_revenue', '<', 7]], expect: ['acme small', 'Zeta'], gql: { expected_revenue: { lt: 7 } } },
  { domain: [['expected_revenue', '<=', 7]], expect: ['acme small', 'éclair', 'Zeta'], gql: { expected_revenue: { lte: 7 } } },
  { domain: [['expected_revenue', '=', 2147483647]], expect: ['Éclair'], gql: { expected_revenue: { eq: 2147483647 } } },
  { domain: [['expected_revenue', '>', -1]], expect: ALL_LEADS, gql: { expected_revenue: { gt: -1 } } },
  { domain: [['expected_revenue', 'in', [0, 101]]], expect: ['acme small', 'aXb trading', 'Zeta'], gql: { expected_revenue: { in: [0, 101] } } },
  { domain: [['expected_revenue', 'not in', [0]]], expect: leadsBut('acme small', 'Zeta'), gql: { expected_revenue: { notIn: [0] } } },

  // ── Float (nullable) ──────────────────────────────────────────────────────────────────────
  { domain: [['probability', '=', 0.5]], expect: ['Acme 50%', 'Yak'], gql: { probability: { eq: 0.5 } } },
  { domain: [['probability', '!=', 0.5]], expect: leadsBut('Acme 50%', 'Yak'), gql: { probability: { ne: 0.5 } } },
  { domain: [['probability', '<', 0.25]], expect: ['Éclair'], gql: { probability: { lt: 0.25 } } },
  { domain: [['probability', '<=', 0.25]], expect: ['acme small', 'Éclair'], gql: { probability: { lte: 0.25 } } },
  { domain: [['probability', '>=', 0.9]], expect: ['aXb trading', 'éclair'], gql: { probability: { gte: 0.9 } } },
  { domain: [['probability', '=', 0]], expect: ['Éclair'], gql: { probability: { eq: 0 } } },
  { domain: [['probability', '=', null]], expect: ['a_b trading', 'Zeta'], gql: { probability: { eq: null } } },
  { domain: [['probability', '!=', null]], expect: leadsBut('a_b trading', 'Zeta'), gql: { probability: { ne: null } } },
  { domain: [['probability', 'in', [0, 1]]], expect: ['Éclair', 'éclair'], gql: { probability: { in: [0, 1] } } },
  { domain: [['probability', 'not in', [0.5]]], expect: leadsBut('Acme 50%', 'Yak'), gql: { probability: { notIn: [0.5] } } },

  // ── DateTime (nullable; millisecond boundaries; offsets are the same instant) ────────────
  { domain: [['closed_at', '=', '2026-02-01T10:20:30.400Z']], expect: ['Acme 50%', 'Yak'], gql: { closed_at: { eq: '2026-02-01T10:20:30.400Z' } } },
  { domain: [['closed_at', '=', '2026-02-01T12:20:30.400+02:00']], expect: ['Acme 50%', 'Yak'], gql: { closed_at: { eq: '2026-02-01T12:20:30.400+02:00' } } },
  { domain: [['closed_at', '>', '2026-02-01T10:20:30.400Z']], expect: ['a_b trading', 'Éclair'], gql: { closed_at: { gt: '2026-02-01T10:20:30.400Z' } } },
  { domain: [['closed_at', '>=', '2026-02-01T10:20:30.400Z']], expect: ['Acme 50%', 'a_b trading', 'Éclair', 'Yak'], gql: { closed_at: { gte: '2026-02-01T10:20:30.400Z' } } },
  { domain: [['closed_at', '<', '2026-01-01T00:00:00Z']], expect: ['éclair'], gql: { closed_at: { lt: '2026-01-01T00:00:00Z' } } },
  { domain: [['closed_at', '<=', '2025-12-31T23:59:59.999Z']], expect: ['éclair'], gql: { closed_at: { lte: '2025-12-31T23:59:59.999Z' } } },
  { domain: [['closed_at', '<', '2025-12-31T23:59:59.999Z']], expect: [], gql: { closed_at: { lt: '2025-12-31T23:59:59.999Z' } } },
  { domain: [['closed_at', '!=', '2026-02-01T10:20:30.400Z']], expect: leadsBut('Acme 50%', 'Yak'), gql: { closed_at: { ne: '2026-02-01T10:20:30.400Z' } } },
  { domain: [['closed_at', '=', null]], expect: ['acme small', 'aXb trading', 'Zeta'], gql: { closed_at: { eq: null } } },
  { domain: [['closed_at', '!=', null]], expect: leadsBut('acme small', 'aXb trading', 'Zeta'), gql: { closed_at: { ne: null } } },
  { domain: [['closed_at', 'in', ['2026-04-01T00:00:00Z', '2025-12-31T23:59:59.999Z']]], expect: ['a_b trading', 'éclair'], gql: { closed_at: { in: ['2026-04-01T00:00:00Z', '2025-12-31T23:59:59.999Z'] } } },
  { domain: [['closed_at', 'not in', ['2026-04-01T00:00:00Z']]], expect: leadsBut('a_b trading'), gql: { closed_at: { notIn: ['2026-04-01T00:00:00Z'] } } },

  // ── UUID (record ids; matched case-insensitively) ─────────────────────────────────────────
  { domain: [['record_uuid', '=', '@lead:Zeta']], expect: ['Zeta'], gql: { id: { eq: '@lead:Zeta' } } },
  { domain: [['record_uuid', '=', '@LEAD:Zeta']], expect: ['Zeta'], gql: { id: { eq: '@LEAD:Zeta' } } },
  { domain: [['record_uuid', '!=', '@lead:Zeta']], expect: leadsBut('Zeta'), gql: { id: { ne: '@lead:Zeta' } } },
  { domain: [['record_uuid', 'in', ['@lead:Zeta', '@lead:Yak']]], expect: ['Zeta', 'Yak'], gql: { id: { in: ['@lead:Zeta', '@lead:Yak'] } } },
  { domain: [['record_uuid', 'not in', ['@lead:Zeta']]], expect: leadsBut('Zeta'), gql: { id: { notIn: ['@lead:Zeta'] } } },
  { domain: [['record_uuid', '=', '00000000-0000-4000-8000-000000000000']], expect: [], gql: { id: { eq: '00000000-0000-4000-8000-000000000000' } } },
  { domain: [['record_uuid', '!=', null]], expect: ALL_LEADS, gql: { id: { ne: null } } },

  // ── Reference (nullable) ──────────────────────────────────────────────────────────────────
  { domain: [['organization', '=', '@org:North']], expect: ['Acme 50%', 'acme small', 'Yak'], gql: { organization: { eq: '@org:North' } } },
  { domain: [['organization', '!=', '@org:North']], expect: ['a_b trading', 'aXb trading', 'Éclair', 'éclair', 'Zeta'], gql: { organization: { ne: '@org:North' } } },
  { domain: [['organization', '=', null]], expect: ['aXb trading', 'Zeta'], gql: { organization: { eq: null } } },
  { domain: [['organization', '!=', null]], expect: leadsBut('aXb trading', 'Zeta'), gql: { organization: { ne: null } } },
  { domain: [['organization', 'in', ['@org:South', '@org:Empty']]], expect: ['a_b trading', 'Éclair', 'éclair'], gql: { organization: { in: ['@org:South', '@org:Empty'] } } },
  { domain: [['organization', 'not in', ['@org:South']]], expect: leadsBut('a_b trading', 'éclair'), gql: { organization: { notIn: ['@org:South'] } } },
  { domain: [['organization', 'in', []]], expect: [], gql: { organization: { in: [] } } },
  { domain: [['country', '=', '@country:FR']], expect: ['Acme 50%', 'Éclair'], gql: { country: { eq: '@country:FR' } } },

  // ── Dotted paths through a Reference: the referenced record exists and matches ────────────
  { domain: [['organization.name', '=', 'North']], expect: ['Acme 50%', 'acme small', 'Yak'], gql: { organization: { is: { name: { eq: 'North' } } } } },
  { domain: [['organization.name', '!=', 'North']], expect: ['a_b trading', 'Éclair', 'éclair'], gql: { organization: { is: { name: { ne: 'North' } } } } },
  { domain: [['organization.is_active', '=', false]], expect: ['a_b trading', 'éclair'], gql: { organization: { is: { is_active: { eq: false } } } } },
  { domain: [['organization.is_active', 'in', [false]]], expect: ['a_b trading', 'éclair'], gql: { organization: { is: { is_active: { in: [false] } } } } },
  { domain: [['organization.is_active', 'not in', [false]]], expect: ['Acme 50%', 'acme small', 'Éclair', 'Yak'], gql: { organization: { is: { is_active: { notIn: [false] } } } } },
  { domain: [['organization.code', '=', null]], expect: ['Éclair'], gql: { organization: { is: { code: { eq: null } } } } },
  { domain: [['organization.code', '!=', null]], expect: ['Acme 50%', 'acme small', 'a_b trading', 'éclair', 'Yak'], gql: { organization: { is: { code: { ne: null } } } } },
  { domain: [['organization.country.code', '=', 'FR']], expect: ['Acme 50%', 'acme small', 'Yak'], gql: { organization: { is: { country: { is: { code: { eq: 'FR' } } } } } } },
  { domain: [['organization.country', '=', null]], expect: ['Éclair'], gql: { organization: { is: { country: { eq: null } } } } },
  { domain: [['organization.name', 'ilike', 'OUT']], expect: ['a_b trading', 'éclair'], gql: { organization: { is: { name: { contains: 'OUT', mode: 'insensitive' } } } } },
  { domain: [['organization.name', 'not ilike', 'OUT']], expect: ['Acme 50%', 'acme small', 'Éclair', 'Yak'], gql: { organization: { is: { name: { notContains: 'OUT', mode: 'insensitive' } } } } },
  { domain: [['country.code', 'in', ['FR', 'DE']]], expect: ['Acme 50%', 'acme small', 'Éclair', 'Zeta'], gql: { country: { is: { code: { in: ['FR', 'DE'] } } } } },
  { domain: [['country.name', 'ilike', 'GERM']], expect: ['acme small', 'Zeta'], gql: { country: { is: { name: { contains: 'GERM', mode: 'insensitive' } } } } },
  { domain: [['organization', 'any', [['is_active', '=', true], ['code', '!=', null]]]], expect: ['Acme 50%', 'acme small', 'Yak'], gql: { organization: { is: { is_active: { eq: true }, code: { ne: null } } } } },
  { domain: [['organization', 'any', []]], expect: leadsBut('aXb trading', 'Zeta'), gql: { organization: { is: {} } } },

  // ── "!" is the complement (rows where the operand meets a NULL included), | and & ─────────
  { domain: ['!', ['notes', 'like', 'hot']], expect: leadsBut('Acme 50%'), gql: { NOT: { notes: { contains: 'hot' } } } },
  { domain: ['!', ['probability', '>', 0.5]], expect: leadsBut('aXb trading', 'éclair'), gql: { NOT: { probability: { gt: 0.5 } } } },
  { domain: ['!', ['email', '=', 'a@x.test']], expect: leadsBut('Acme 50%'), gql: { NOT: { email: { eq: 'a@x.test' } } } },
  { domain: ['!', ['organization.code', '=', 'north']], expect: ['a_b trading', 'aXb trading', 'Éclair', 'éclair', 'Zeta'], gql: { NOT: { organization: { is: { code: { eq: 'north' } } } } } },
  { domain: ['!', ['organization.is_active', 'in', [true]]], expect: ['a_b trading', 'aXb trading', 'éclair', 'Zeta'], gql: { NOT: { organization: { is: { is_active: { in: [true] } } } } } },
  { domain: ['!', ['organization', 'any', [['name', '=', 'North']]]], expect: ['a_b trading', 'aXb trading', 'Éclair', 'éclair', 'Zeta'], gql: { NOT: { organization: { is: { name: { eq: 'North' } } } } } },
  { domain: ['!', ['organization', '=', '@org:North']], expect: ['a_b trading', 'aXb trading', 'Éclair', 'éclair', 'Zeta'], gql: { NOT: { organization: { eq: '@org:North' } } } },
  { domain: ['!', ['organization', 'in', ['@org:South', '@org:Empty']]], expect: ['Acme 50%', 'acme small', 'aXb trading', 'Zeta', 'Yak'], gql: { NOT: { organization: { in: ['@org:South', '@org:Empty'] } } } },
  { domain: ['!', ['organization.country', '=', '@country:FR']], expect: ['a_b trading', 'aXb trading', 'Éclair', 'éclair', 'Zeta'], gql: { NOT: { organization: { is: { country: { eq: '@country:FR' } } } } } },
  { domain: [['salesperson.name', '=', 'Seller']], expect: ['Acme 50%', 'acme small'], gql: { salesperson: { is: { name: { eq: 'Seller' } } } } },
  { domain: ['!', ['salesperson.name', '=', 'Seller']], expect: leadsBut('Acme 50%', 'acme small'), gql: { NOT: { salesperson: { is: { name: { eq: 'Seller' } } } } } },
  { domain: [['salesperson.organization', '=', null]], expect: ['acme small'], gql: { salesperson: { is: { organization: { eq: null } } } } },
  { domain: ['!', ['salesperson.organization', '=', null]], expect: leadsBut('acme small'), gql: { NOT: { salesperson: { is: { organization: { eq: null } } } } } },
  { domain: ['|', ['stage', '=', 'won'], ['expected_revenue', '=', 0]], expect: ['Acme 50%', 'acme small', 'éclair', 'Zeta'], gql: { OR: [{ stage: { eq: 'won' } }, { expected_revenue: { eq: 0 } }] } },
  { domain: ['&', ['stage', '=', 'won'], '!', ['name', 'ilike', 'acme']], expect: ['éclair'], gql: { stage: { eq: 'won' }, NOT: { name: { contains: 'acme', mode: 'insensitive' } } } },
  { domain: ['!', '|', ['email', '=', null], ['probability', '=', null]], expect: ['Acme 50%', 'aXb trading', 'Éclair', 'Yak'], gql: { NOT: { OR: [{ email: { eq: null } }, { probability: { eq: null } }] } } },
  { domain: ['!', '!', ['closed_at', '>', '2026-01-01T00:00:00Z']], expect: ['Acme 50%', 'a_b trading', 'Éclair', 'Yak'], gql: { NOT: { NOT: { closed_at: { gt: '2026-01-01T00:00:00Z' } } } } },
];

/** res.organization: Boolean (is_active, not null), Char (code, nullable and unique), One2Many (users). */
export const ORG_CORPUS: CorpusEntry<OrgName>[] = [
  { domain: [['is_active', '=', true]], expect: ['Default Organization', 'North', 'Empty'], gql: { is_active: { eq: true } } },
  { domain: [['is_active', '=', false]], expect: ['South'], gql: { is_active: { eq: false } } },
  { domain: [['is_active', '!=', true]], expect: ['South'], gql: { is_active: { ne: true } } },
  { domain: [['is_active', '!=', false]], expect: ['Default Organization', 'North', 'Empty'], gql: { is_active: { ne: false } } },
  { domain: [['is_active', 'in', [true]]], expect: ['Default Organization', 'North', 'Empty'], gql: { is_active: { in: [true] } } },
  { domain: [['is_active', 'in', [false]]], expect: ['South'], gql: { is_active: { in: [false] } } },
  { domain: [['is_active', 'in', [true, false]]], expect: ORG_NAMES, gql: { is_active: { in: [true, false] } } },
  { domain: [['is_active', 'in', []]], expect: [], gql: { is_active: { in: [] } } },
  { domain: [['is_active', 'not in', [true]]], expect: ['South'], gql: { is_active: { notIn: [true] } } },
  { domain: [['is_active', 'not in', [true, false]]], expect: [], gql: { is_active: { notIn: [true, false] } } },
  { domain: [['is_active', 'not in', []]], expect: ORG_NAMES, gql: { is_active: { notIn: [] } } },
  { domain: [['is_active', '=', null]], expect: [], gql: { is_active: { eq: null } } },
  { domain: [['is_active', '!=', null]], expect: ORG_NAMES, gql: { is_active: { ne: null } } },
  { domain: ['!', ['is_active', 'in', [false]]], expect: ['Default Organization', 'North', 'Empty'], gql: { NOT: { is_active: { in: [false] } } } },
  { domain: ['!', ['is_active', 'in', []]], expect: ORG_NAMES, gql: { NOT: { is_active: { in: [] } } } },
  { domain: ['!', ['is_active', 'not in', []]], expect: [], gql: { NOT: { is_active: { notIn: [] } } } },
  { domain: ['!', ['is_active', 'not in', [true, false]]], expect: ORG_NAMES, gql: { NOT: { is_active: { notIn: [true, false] } } } },
  { domain: [['code', '!=', 'north']], expect: ['Default Organization', 'South', 'Empty'], gql: { code: { ne: 'north' } } },
  { domain: [['code', 'in', ['north', 'south']]], expect: ['North', 'South'], gql: { code: { in: ['north', 'south'] } } },
  // longer than the column (Char 63): no match, not an error
  { domain: [['code', '=', 'x'.repeat(64)]], expect: [], gql: { code: { eq: 'x'.repeat(64) } } },
  { domain: [['country', '=', null]], expect: ['Default Organization', 'Empty'], gql: { country: { eq: null } } },
  { domain: [['country.code', '=', 'DE']], expect: ['South'], gql: { country: { is: { code: { eq: 'DE' } } } } },
  { domain: [['users.email', 'ilike', 'ADMIN@']], expect: ['Default Organization'], gql: { users: { some: { email: { contains: 'ADMIN@', mode: 'insensitive' } } } } },
  { domain: [['users.role', 'in', ['admin']]], expect: ['Default Organization'], gql: { users: { some: { role: { in: ['admin'] } } } } },
  { domain: [['users', 'any', []]], expect: ['Default Organization', 'North'], gql: { users: { some: {} } } },
  { domain: ['!', ['users', 'any', []]], expect: ['South', 'Empty'], gql: { users: { none: {} } } },
  { domain: [['users.name', '=', 'Seller']], expect: ['North'], gql: { users: { some: { name: { eq: 'Seller' } } } } },
  // every user's name is Seller (vacuously true without users): "every" is "no user whose name is not Seller"
  { domain: ['!', ['users', 'any', ['!', ['name', '=', 'Seller']]]], expect: ['South', 'Empty'], gql: { users: { every: { name: { eq: 'Seller' } } } } },
];

/**
 * crm.lead read by Alice (role user, organization North). Her record rules: leads of North only
 * (Acme 50%, acme small, Yak); of res.user only the users of North; of res.organization only North.
 * Rules along a path are ANDed in, also under "!".
 */
export const ALICE_CORPUS: CorpusEntry<LeadName>[] = [
  { domain: [], expect: ['Acme 50%', 'acme small', 'Yak'], gql: {} },
  { domain: [['salesperson', '!=', null]], expect: ['Acme 50%', 'acme small'], gql: { salesperson: { ne: null } } },
  { domain: [['salesperson.name', '=', 'Seller']], expect: ['Acme 50%'], gql: { salesperson: { is: { name: { eq: 'Seller' } } } } },
  { domain: ['!', ['salesperson.name', '=', 'Seller']], expect: ['acme small', 'Yak'], gql: { NOT: { salesperson: { is: { name: { eq: 'Seller' } } } } } },
  { domain: ['!', ['salesperson', 'any', []]], expect: ['acme small', 'Yak'], gql: { NOT: { salesperson: { is: {} } } } },
  { domain: [['salesperson.organization.name', '=', 'North']], expect: ['Acme 50%'], gql: { salesperson: { is: { organization: { is: { name: { eq: 'North' } } } } } } },
  { domain: [['organization.name', '!=', 'North']], expect: [], gql: { organization: { is: { name: { ne: 'North' } } } } },
  { domain: ['!', ['organization.name', '=', 'South']], expect: ['Acme 50%', 'acme small', 'Yak'], gql: { NOT: { organization: { is: { name: { eq: 'South' } } } } } },
  { domain: [['stage', 'in', ['won', 'qualified']]], expect: ['Acme 50%', 'Yak'], gql: { stage: { in: ['won', 'qualified'] } } },
];

const ORDERING = ['<', '<=', '>', '>='];
const PATTERN = ['like', 'ilike', 'not like', 'not ilike', 'startswith', 'istartswith'];

/**
 * Operator/type pairs the domain language refuses: 400 INVALID_DOMAIN naming the field and the
 * operator, on every path (never a 500, never an empty result). Written out, not derived from
 * the implementation's table. `value` is a value of the field's type, so the operator is what
 * is refused; pattern operators get text and `any` a sub-domain.
 */
export const REFUSED: Array<{ model: 'crm.lead' | 'res.organization' | 'ir.action'; field: string; type: string; value: unknown; ops: string[] }> = [
  { model: 'res.organization', field: 'is_active', type: 'boolean', value: true, ops: [...ORDERING, ...PATTERN, 'any'] },
  { model: 'crm.lead', field: 'organization.is_active', type: 'boolean', value: false, ops: [...ORDERING, ...PATTERN] },
  { model: 'crm.lead', field: 'stage', type: 'enum', value: 'won', ops: [...ORDERING, 'any'] },
  { model: 'crm.lead', field: 'expected_revenue', type: 'integer', value: 1, ops: [...PATTERN, 'any'] },
  { model: 'crm.lead', field: 'probability', type: 'float', value: 0.5, ops: [...PATTERN, 'any'] },
  { model: 'crm.lead', field: 'closed_at', type: 'datetime', value: '2026-01-01T00:00:00Z', ops: [...PATTERN, 'any'] },
  { model: 'crm.lead', field: 'record_uuid', type: 'uuid', value: '@lead:Zeta', ops: [...ORDERING, ...PATTERN, 'any'] },
  { model: 'crm.lead', field: 'organization', type: 'reference', value: '@org:North', ops: [...ORDERING, ...PATTERN] },
  { model: 'crm.lead', field: 'name', type: 'char', value: 'Zeta', ops: ['any'] },
  { model: 'crm.lead', field: 'notes', type: 'text', value: 'ab', ops: ['any'] },
  { model: 'res.organization', field: 'users', type: 'one2many', value: '@org:North', ops: ['=', '!=', 'in', 'not in', ...ORDERING, ...PATTERN] },
  // JSON: only "= null" and "!= null"; a value (or any other operator) is refused
  { model: 'ir.action', field: 'domain', type: 'json', value: [['a', '=', 1]], ops: ['=', '!=', 'in', 'not in', ...ORDERING, ...PATTERN, 'any'] },
];

/** Operators the domain language does not have: 400 INVALID_DOMAIN naming the operator. */
export const UNKNOWN_OPERATORS = ['=like', '=ilike', 'endswith', 'child_of', 'not any', 'LIKE', '=='];
