/**
 * A real server with the AI layer on (AI_ENABLED) and a scripted OpenAI-compatible provider on
 * 127.0.0.1, configured as the default tenant's `provider_a` with its own key (BYO key, the
 * spec's default).
 */
import { expect } from 'vitest';
import { startTestServer, type Provider, type Res, type TestServer } from '../../helpers/server.ts';
import { startScriptedLlm, type ScriptedLlm, type ScriptedLlmOptions } from './scripted-llm.ts';

export const TENANT_KEY = 'sk-tenant-secret-key-0123456789';

/** A tool result as the provider receives it: inside the turn's data fence (src/apps/ai/turn.ts). */
export const FENCED = /^<<<fw-data ([\w-]+)>>>\n([\s\S]*)\n<<<end fw-data \1>>>$/;

/** The tool result inside the fence, or the content unchanged when it is not fenced. */
export const unfenced = (content: string): string => FENCED.exec(content)?.[2] ?? content;

export interface AiServer extends TestServer {
  llm: ScriptedLlm;
  admin: string;
  /** Creates a user in a new organization and returns their token and ids. */
  user(label: string, role?: string): Promise<{ token: string; id: string; org: string }>;
  /** POST /api/ai/conversations and return the id. */
  conversation(token: string, body?: Record<string, unknown>): Promise<string>;
  say(token: string, conversation: string, content: string): Promise<Res>;
  stop(): Promise<void>;
}

export async function startAiServer(settings: Record<string, string> = {}, opts: { provider?: Provider; configure?: boolean; llm?: ScriptedLlmOptions; config?: Record<string, unknown> } = {}): Promise<AiServer> {
  const llm = await startScriptedLlm(opts.llm);
  const t = await startTestServer({ ACTIVE_MODULES: 'base,auth,connectors', AI_ENABLED: 'true', AI_PROVIDER_MAX_RETRIES: '0', ...settings }, { provider: opts.provider });
  const admin = (await t.loginAdmin()).access_token;
  if (opts.configure !== false) {
    const res = await t.request('POST', '/api/data/ai.provider.config', { token: admin, body: { provider: 'provider_a', base_url: llm.url, api_key: TENANT_KEY, model: 'test-model', ...opts.config } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  let n = 0;
  return Object.assign(t, {
    llm,
    admin,
    async user(label: string, role = 'user') {
      const org = await t.createOrg(admin, `Org ${label} ${++n}`);
      const email = `${label}-${n}@example.com`;
      const u = await t.createUser(admin, { email, password: 'user-pass-123', organization: org, role });
      return { token: (await t.login(email, 'user-pass-123')).access_token, id: u.id as string, org };
    },
    async conversation(token: string, body: Record<string, unknown> = {}) {
      const res = await t.request('POST', '/api/ai/conversations', { token, body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    },
    say: (token: string, conversation: string, content: string) =>
      t.request('POST', `/api/ai/conversations/${conversation}/messages`, { token, body: { role: 'user', content } }),
    async stop() {
      await t.close();
      await llm.close();
    },
  });
}
