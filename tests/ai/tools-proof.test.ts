/**
 * Tools from commands: discovered at boot from every loaded app, each run as `ai.tool.<name>`,
 * and a tool marked read_only must be proven so from its command's declared effects — the boot
 * stops otherwise, naming the tool and the mutation. With AI_ENABLED off none of it exists.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandDecl, ToolDecl } from '../../src/kernel/app.ts';
import { bootTestKernel, fixtureApp, type TestKernel } from '../helpers/kernel.ts';
import { startTestServer } from '../helpers/server.ts';

const AI = { ACTIVE_MODULES: 'base,auth,connectors', AI_ENABLED: 'true' };
const schema = { type: 'object', properties: {} };
const tool = (name: string, o: Partial<ToolDecl> = {}): ToolDecl => ({ name, kind: 'informer', read_only: true, description: `tool ${name}`, input_schema: schema, ...o });
const cmd = (name: string, o: Partial<CommandDecl>): CommandDecl => ({ name, mutates: false, handler: async () => ({ ok: true }), ...o });

let k: TestKernel | undefined;
afterEach(async () => {
  await k?.cleanup();
  k = undefined;
});

async function bootWith(commands: CommandDecl[], settings: Record<string, string> = AI): Promise<TestKernel> {
  k = await bootTestKernel({ settings, apps: [fixtureApp('toolfix', { commands })] });
  return k;
}

async function bootError(commands: CommandDecl[]): Promise<{ code: string; message: string }> {
  const err = await bootWith(commands).then(() => null, (e: { code: string; message: string }) => e);
  expect(err, 'the boot should have been refused').not.toBeNull();
  return err!;
}

describe('the read-only proof', () => {
  it('a read-only tool whose command dispatches a write stops the boot, naming the tool and the path to the mutation', async () => {
    const err = await bootError([
      cmd('toolfix.summary', { effects: [{ dispatch: 'toolfix.touch' }], tool: tool('summary') }),
      cmd('toolfix.touch', { effects: [{ dispatch: 'fw.update' }] }),
    ]);
    expect(err.code).toBe('AI_TOOL_NOT_READ_ONLY');
    expect(err.message).toContain('tool summary (command toolfix.summary, app toolfix) is marked read_only but can mutate');
    expect(err.message).toContain('toolfix.summary dispatches toolfix.touch dispatches fw.update is a kernel write operation');
  });

  it('fails closed: a command without declared effects counts as mutating', async () => {
    const err = await bootError([cmd('toolfix.opaque', { tool: tool('opaque') })]);
    expect(err.code).toBe('AI_TOOL_NOT_READ_ONLY');
    expect(err.message).toContain('does not declare its effects');
  });

  it.each([
    [{ write: 'res.country' }, 'writes res.country'],
    [{ emit: 'toolfix.happened' }, 'emits the event toolfix.happened'],
    [{ publish: 'toolfix.topic' }, 'publishes on toolfix.topic'],
    [{ storage: 'write' }, 'writes stored files'],
    [{ network: 'a webhook' }, 'calls a webhook outside the process'],
  ] as const)('an effect %j is a mutation: "%s"', async (effect, text) => {
    const err = await bootError([cmd('toolfix.x', { effects: [effect], tool: tool('x') })]);
    expect(err.message).toContain(text);
  });

  it('a command declared as mutating cannot back a read-only tool, whatever its effects', async () => {
    const err = await bootError([cmd('toolfix.m', { mutates: true, effects: [], tool: tool('m') })]);
    expect(err.message).toContain('toolfix.m is declared as mutating');
  });

  it('reads pass: the kernel read operations, reads of models and of stored files, and other proven commands', async () => {
    const t = await bootWith([
      cmd('toolfix.inner', { effects: [{ dispatch: 'fw.count' }, { read: 'res.country' }, { storage: 'read' }] }),
      cmd('toolfix.outer', { effects: [{ dispatch: 'toolfix.inner' }, { dispatch: 'fw.search' }, { dispatch: 'fw.read_group' }, { dispatch: 'fw.read_one' }], tool: tool('outer') }),
    ]);
    expect(t.kernel.registry.commands.get('ai.tool.outer')).toMatchObject({ model: 'ai.tool', mutates: false, internal: true });
  });

  it('malformed tools stop the boot: bad name, no description, non-object schema, duplicate name, a writing tool that is not a proposer', async () => {
    expect((await bootError([cmd('toolfix.a', { effects: [], tool: tool('Bad-Name') })])).code).toBe('AI_TOOL_INVALID');
    expect((await bootError([cmd('toolfix.a', { effects: [], tool: tool('a', { description: ' ' }) })])).message).toContain('description is required');
    expect((await bootError([cmd('toolfix.a', { effects: [], tool: tool('a', { input_schema: { type: 'string' } }) })])).message).toContain('object schema');
    expect((await bootError([cmd('toolfix.a', { effects: [], tool: tool('dup') }), cmd('toolfix.b', { effects: [], tool: tool('dup') })])).message).toContain('also used by command toolfix.a');
    expect((await bootError([cmd('toolfix.w', { mutates: true, tool: tool('w', { read_only: false, kind: 'informer' }) })])).message).toContain('only proposer tools may write');
    expect((await bootError([cmd('toolfix.p', { tool: tool('p', { kind: 'proposer' }) })])).message).toContain('cannot be read_only');
  });

  it('an effect naming an unknown command or model stops the boot (a typo cannot fake a proof)', async () => {
    const err = await bootError([cmd('toolfix.t', { effects: [{ dispatch: 'fw.serch' }], tool: tool('t') })]);
    expect(err.message).toContain('fw.serch is not a registered command');
    // the same check holds for every command that declares effects, tool or not
    expect((await bootError([cmd('toolfix.u', { effects: [{ dispatch: 'fw.serch' }] })])).message).toContain('names an unknown command');
    expect((await bootError([cmd('toolfix.v', { effects: [{ read: 'res.contry' }] })])).message).toContain('names an unknown model');
  });

  it('a tool on models the caller cannot read is not offered to that caller (ToolDecl.models)', async () => {
    const t = await bootWith([
      cmd('toolfix.events', { effects: [{ dispatch: 'fw.count' }], tool: tool('event_count', { models: ['ir.event'] }) }),
      cmd('toolfix.orgs', { effects: [{ dispatch: 'fw.count' }], tool: tool('org_count', { models: ['res.organization'] }) }),
    ]);
    const names = async (p: Parameters<typeof t.kernel.dispatch>[2]) =>
      (await t.kernel.dispatch<{ tools: Array<{ name: string }> }>('ai.catalogue', {}, p)).tools.map((x) => x.name);
    const { adminPrincipal, userPrincipal } = await import('../helpers/kernel.ts');
    expect(await names(adminPrincipal('default'))).toEqual(expect.arrayContaining(['event_count', 'org_count']));
    const mine = await names(userPrincipal('default'));
    expect(mine).toContain('org_count');
    expect(mine).not.toContain('event_count');
  });

  it('tools are discovered from every loaded app: the presentation app\'s list_views is a tool', async () => {
    const t = await bootWith([], { ...AI, ACTIVE_MODULES: 'base,auth,presentation,connectors' });
    expect(t.kernel.registry.commands.has('ai.tool.list_views')).toBe(true);
  });
});

describe('AI_ENABLED off (the default)', () => {
  it('no AI model, command, route, GraphQL field or tool exists, and tool declarations elsewhere are inert', async () => {
    const t = await bootWith([cmd('toolfix.opaque', { tool: tool('opaque') })], { ACTIVE_MODULES: 'base,auth,connectors' });
    const reg = t.kernel.registry;
    expect([...reg.models.keys()].filter((m) => m.startsWith('ai.'))).toEqual([]);
    expect([...reg.commands.keys()].filter((c) => c.startsWith('ai.'))).toEqual([]);
    const s = await startTestServer({ ACTIVE_MODULES: 'base,auth,connectors' });
    try {
      const admin = (await s.loginAdmin()).access_token;
      expect((await s.request('GET', '/api/ai/tools', { token: admin })).status).toBe(404);
      expect((await s.request('POST', '/api/ai/conversations', { token: admin, body: {} })).status).toBe(404);
      expect((await s.request('GET', '/api/data/ai.conversation', { token: admin })).body.error.code).toBe('UNKNOWN_MODEL');
      const sdl = await s.request('POST', '/graphql', { token: admin, body: { query: '{ __schema { queryType { fields { name } } mutationType { fields { name } } } }' } });
      const names = [...sdl.body.data.__schema.queryType.fields, ...sdl.body.data.__schema.mutationType.fields].map((f: { name: string }) => f.name);
      expect(names.filter((n: string) => n.startsWith('ai'))).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('AI_ENABLED must be a boolean, and AI_DEFAULT_PROVIDER must be in AI_ALLOWED_PROVIDERS', async () => {
    await expect(bootWith([], { ...AI, AI_ENABLED: 'maybe' })).rejects.toThrow(/AI_ENABLED="maybe" must be true or false/);
    await expect(bootWith([], { ...AI, AI_DEFAULT_PROVIDER: 'provider_b' })).rejects.toMatchObject({ code: 'AI_SETTINGS_INVALID' });
    await expect(bootWith([], { ...AI, AI_PII_REDACTION_MODE: 'loud' })).rejects.toMatchObject({ code: 'AI_SETTINGS_INVALID' });
    await expect(bootWith([], { ...AI, AI_OUTPUT_VALIDATION_MODE: 'always' })).rejects.toMatchObject({ code: 'AI_SETTINGS_INVALID' });
    await expect(bootWith([], { ...AI, AI_INJECTION_DETECTION_THRESHOLD: '101' })).rejects.toMatchObject({ code: 'AI_SETTINGS_INVALID' });
  });
});
