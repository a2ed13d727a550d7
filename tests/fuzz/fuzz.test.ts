/**
 * Property-based fuzzing of the whole HTTP surface (issue 16, section 2): requests derived from the
 * server's own OpenAPI document and GraphQL schema, with a fixed seed, on SQLite and (fewer) on
 * PostgreSQL. Every rule of tests/fuzz/runner.ts holds for every request: no 5xx, no
 * INTERNAL_ERROR, an answer, a refusal changes nothing, the other tenant's token changes nothing
 * here, error envelopes, successful writes read back and keep the data consistent, the server
 * stays alive and no tenant is created. A failure prints the shrunk request.
 *
 * The full run (10,000 requests, any seed): `npx tsx bench/fuzz.ts [--count N] [--seed N] [--pg]`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFuzzServer, type FuzzHarness, type Provider } from './harness.ts';
import { KNOWN_OPEN } from './known-open.ts';
import { formatFailure, formatStats, runFuzz } from './runner.ts';
import { deriveSpec, type FuzzSpec } from './spec.ts';

const SEED = 20_260_516;
const RUNS: Record<Provider, number> = { sqlite: 1_500, postgresql: 400 };

for (const provider of ['sqlite', 'postgresql'] as Provider[]) {
  describe(`fuzz (${provider})`, () => {
    let h: FuzzHarness;
    let spec: FuzzSpec;

    beforeAll(async () => {
      h = await startFuzzServer({ provider });
      spec = await deriveSpec(h);
    }, 120_000);

    afterAll(async () => {
      await h?.close();
    });

    it('derives every REST operation and GraphQL root field from the server', () => {
      const ids = spec.rest.map((o) => o.id);
      expect(ids).toEqual(expect.arrayContaining([
        'GET /api/data/res.organization', 'POST /api/data/crm.lead/{id}/mark_won', 'POST /api/command/{name}', 'POST /api/auth/login',
        'POST /api/storage/upload', 'PUT /api/connectors/{id}', 'GET /api/connectors/oauth/callback/{provider_type}',
      ]));
      expect(spec.models).toEqual(expect.arrayContaining(['res.user', 'crm.lead', 'storage.folder', 'ir.connector']));
      const roots = spec.gqlRoots.map((r) => r.id);
      expect(roots).toEqual(expect.arrayContaining(['gql query resOrganizations', 'gql mutation crmLeadUpdateMany', 'gql mutation login', 'gql subscription clientReload']));
    });

    it('the change probe counts committed row changes of the fuzz tenant, and only those', async () => {
      const before = await h.probe.changes();
      const refused = await h.send({ target: 'self-test', method: 'POST', url: '/api/data/crm.lead', auth: 'admin', headers: { authorization: `Bearer ${h.fixtures.admin.token}`, 'content-type': 'application/json' }, body: '{"name":null}' });
      expect(refused.status).toBe(422);
      expect(await h.probe.changes()).toEqual(before);
      const created = await h.send({ target: 'self-test', method: 'POST', url: '/api/data/crm.lead', auth: 'admin', headers: { authorization: `Bearer ${h.fixtures.admin.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Probe', organization: h.fixtures.orgA }) });
      expect(created.status).toBe(201);
      const after = await h.probe.changes();
      expect(after.crm_lead ?? 0).toBeGreaterThan(before.crm_lead ?? 0);
    });

    it(`${RUNS[provider]} generated requests (seed ${SEED}): no 5xx, refusals change nothing, the server stays up`, async () => {
      const stats = await runFuzz(h, spec, { count: RUNS[provider], seed: SEED, batchSize: 100, maxFailures: 5 });
      console.log(formatStats(stats, provider));
      expect(stats.failures, stats.failures.map(formatFailure).join('\n\n')).toEqual([]);
      // every 5xx is one of the reported, not yet fixed bugs (known-open.ts); none other
      expect(stats.serverErrors).toBe(stats.knownServerErrors);
      expect(Object.keys(stats.knownOpen).every((id) => KNOWN_OPEN.some((k) => k.id === id))).toBe(true);
      // most of the surface is reached even by the short run
      expect(stats.targetsHit.size).toBeGreaterThan((spec.rest.length + spec.gqlRoots.length) * (provider === 'sqlite' ? 0.8 : 0.5));
    }, 600_000);
  });
}
