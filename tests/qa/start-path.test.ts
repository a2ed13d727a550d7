/**
 * A use case's start page stays on the platform (src/apps/qa/same-origin.ts): where a use case
 * or a recording is written (qa.recording.start, qa.usecase.import, the generic create/update of
 * either model), a start_path that leads to another origin — another site, a protocol-relative
 * `//host`, a `file:` or `javascript:` URL — is refused with 422 QA_START_PATH_NOT_SAME_ORIGIN
 * and nothing is written; the replay checks it again (startUrl, also used by navigate steps
 * through onOrigin).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onOrigin, startUrl } from '../../src/apps/qa/same-origin.ts';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { toErrorBody } from '../../src/kernel/errors.ts';
import { expectError, startTestServer, type Res, type TestServer } from '../helpers/server.ts';

const ELSEWHERE = ['https://evil.example/', '//evil.example', '//evil.example/default', '/\\evil.example', 'file:///etc/passwd', 'javascript:alert(document.cookie)', 'data:text/html,<form>', 'http://127.0.0.1:8000/default'];
const ON_THE_APP = ['/', '/default/action-base.action_organizations', '/{{org}}/action-base.action_users?view=list#top', 'default/relative'];

let t: TestServer;
let qa: string;
beforeAll(async () => {
  t = await startTestServer({ ACTIVE_MODULES: 'base,auth,presentation', ENABLE_QA_AUTOMATION: 'true' });
  const adminToken = (await t.loginAdmin()).access_token;
  // use cases are the qa role's to write
  await t.createUser(adminToken, { email: 'qa@example.com', password: 'qa-pass-1234', role: 'qa' });
  qa = (await t.login('qa@example.com', 'qa-pass-1234')).access_token;
});
afterAll(async () => {
  await t?.close();
});

/** `fw e2e import` runs the command as the system (qa.usecase has no create access for any role). */
const importUsecase = (key: string, start_path: string) => t.kernel.dispatch('qa.usecase.import', {
  usecase_key: key, name: key, module: 'base', start_path, steps: [{ kind: 'navigate', value: { kind: 'literal', value: '/default' } }],
}, systemPrincipal('default')).then((body): Res => ({ status: 200, body, headers: {} }), (err: unknown): Res => ({ ...toErrorBody(err), headers: {} }));

describe('writing a use case or a recording', () => {
  it('refuses a start_path on another origin (another site, //host, file:, javascript:, data:, an absolute URL) with 422 QA_START_PATH_NOT_SAME_ORIGIN, and writes nothing', async () => {
    for (const [i, start] of ELSEWHERE.entries()) {
      const res = await importUsecase(`evil.import-${i}`, start);
      expectError(res, 422, 'QA_START_PATH_NOT_SAME_ORIGIN');
      expect(res.body.error.details.errors[0]).toMatchObject({ field: 'start_path', code: 'QA_START_PATH_NOT_SAME_ORIGIN' });
      expectError(await t.request('POST', '/api/qa/recordings', { token: qa, body: { usecase_key: `evil.rec-${i}`, module: 'base', start_path: start } }), 422, 'QA_START_PATH_NOT_SAME_ORIGIN');
    }
    const written = await t.request('GET', '/api/qa/usecases', { token: qa });
    expect(written.body.items.filter((u: { key: string }) => u.key.startsWith('evil.'))).toEqual([]);
  });

  it('refuses it through the generic create and update of qa.usecase and qa.recording too', async () => {
    expect((await importUsecase('fine.generic', '/default')).status).toBe(200);
    const uc = await t.request('GET', '/api/qa/usecases/fine.generic', { token: qa });
    for (const start of ELSEWHERE) {
      expectError(await t.request('PATCH', `/api/data/qa.usecase/${uc.body.id}`, { token: qa, body: { start_path: start } }), 422, 'QA_START_PATH_NOT_SAME_ORIGIN');
      expectError(await t.request('POST', '/api/data/qa.recording', { token: qa, body: { name: 'x', usecase_key: 'evil.generic', module: 'base', start_path: start } }), 422, 'QA_START_PATH_NOT_SAME_ORIGIN');
    }
    expect((await t.request('GET', '/api/qa/usecases/fine.generic', { token: qa })).body.start_path).toBe('/default');
  });

  it('accepts paths on the app: absolute, with variables, query and fragment, or relative', async () => {
    for (const [i, start] of ON_THE_APP.entries()) {
      const res = await importUsecase(`fine.path-${i}`, start);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  });
});

describe('replaying', () => {
  const base = 'http://127.0.0.1:8123';

  it('opens a start page only on the replay\'s own origin: paths and absolute URLs of that origin, nothing else (QA_START_PATH_NOT_SAME_ORIGIN)', () => {
    expect(startUrl('/default/x?y=1', base).href).toBe(`${base}/default/x?y=1`);
    expect(startUrl(`${base}/default`, base).href).toBe(`${base}/default`);
    for (const start of ELSEWHERE.filter((s) => !s.startsWith('http://127.0.0.1:8000'))) {
      expect(() => startUrl(start, base)).toThrow(expect.objectContaining({ code: 'QA_START_PATH_NOT_SAME_ORIGIN', status: 422 }));
    }
    // another port is another origin
    expect(() => startUrl('http://127.0.0.1:8000/default', base)).toThrow(expect.objectContaining({ code: 'QA_START_PATH_NOT_SAME_ORIGIN' }));
  });

  it('navigate steps use the same check (onOrigin)', () => {
    expect(onOrigin('/a', base)?.href).toBe(`${base}/a`);
    for (const target of ELSEWHERE) expect(onOrigin(target, base)).toBeNull();
  });
});
