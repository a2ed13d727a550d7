import type { FastifyInstance } from 'fastify';
import { canAccess, checkAccess } from '../../kernel/access.js';
import { defineApp, serves, type CommandDecl, type RouteContext } from '../../kernel/app.js';
import { f } from '../../kernel/declare.js';
import type { Env } from '../../kernel/env.js';
import type { KernelHandle } from '../../kernel/kernel-handle.js';
import type { Registry } from '../../kernel/registry/registry.js';
import '../../server/types.js';
import { buildBootstrap } from './bootstrap.js';
import { callerLanguage } from './language.js';
import { currencyOf } from './sse.js';
import manifest from './manifest.js';
import { Bootstrap, ViewList, ViewPlan } from './outputs.js';
import { eventStreamRoute } from './sse.js';
import { ViewRegistry } from './views/registry.js';

/** Views are compiled once per registry at boot; a broken view stops the boot. */
const viewRegistries = new WeakMap<Registry, ViewRegistry>();
export function viewsOf(registry: Registry): ViewRegistry {
  let v = viewRegistries.get(registry);
  if (!v) {
    v = new ViewRegistry(registry);
    viewRegistries.set(registry, v);
  }
  return v;
}

const commands: CommandDecl[] = [
  {
    name: 'presentation.list_views',
    mutates: false,
    returns: 'json',
    output: ViewList,
    description: 'The ids and metadata of the views on models you may read',
    // reads the view registry only (no database): declared, so the AI layer can prove it read-only
    effects: [],
    tool: {
      name: 'list_views', kind: 'informer', read_only: true,
      description: 'List the screens (views) of the application you may use: id, model, type and name.',
      input_schema: { type: 'object', properties: {}, additionalProperties: false },
    },
    // the catalogue's rule: a view of a model the caller's role may not read is not listed
    handler: async (env) => ({ views: viewsOf(env.registry).list().filter((v) => canAccess(env.registry.model(v.model), env.principal, 'read')) }),
  },
  {
    name: 'presentation.get_view_plan',
    mutates: false,
    returns: 'json',
    output: ViewPlan,
    description: 'Render plan of a view (of a model you may read)',
    input: { view_id: f.char(200, { required: true }) },
    handler: async (env, p) => {
      // in the caller's language: each language has its own cached plan
      const plan = viewsOf(env.registry).plan(String(p.view_id), env.principal, new Date(), await callerLanguage(env));
      // as for the model's records: 403 ACCESS_DENIED when the caller's role may not read it
      checkAccess(env.registry.model(plan.model), env.principal, 'read');
      return plan;
    },
  },
  {
    name: 'presentation.bootstrap',
    mutates: false,
    returns: 'json',
    output: Bootstrap,
    description: 'Bootstrap payload of the web client',
    handler: (env: Env) => buildBootstrap(env, viewsOf(env.registry)),
  },
];

function routes(server: FastifyInstance, { kernel }: RouteContext): void {
  const run = (name: string, payload: Record<string, unknown>) => (req: { principal: Parameters<KernelHandle['dispatch']>[2] }) =>
    kernel.dispatch(name, payload, req.principal);
  server.get('/api/presentation/views', serves('presentation.list_views', { pick: 'views' }), async (req) => (await run('presentation.list_views', {})(req) as { views: unknown }).views);
  server.get('/api/presentation/view/:view_id', serves('presentation.get_view_plan'), (req) =>
    kernel.dispatch('presentation.get_view_plan', { view_id: (req.params as { view_id: string }).view_id }, req.principal));
  server.get('/api/presentation/bootstrap', serves('presentation.bootstrap'), run('presentation.bootstrap', {}));
  server.get('/api/base/bootstrap', serves('presentation.bootstrap'), run('presentation.bootstrap', {}));
  eventStreamRoute(server, kernel);
}

export const app = defineApp({
  manifest,
  commands,
  routes,
  boot: (kernel) => { viewsOf(kernel.registry); currencyOf(kernel); },
  // emitted by the slug handler below, outside any command
  events: ['web.client.reload'],
  eventHandlers: [
    {
      // the spec's chain: a changed organization slug makes every open tab of the tenant reload
      id: 'presentation.slug_changed_reload',
      event: 'res.organization.field_changed',
      filter: { field: 'code' },
      handler: async (env, e) => {
        env.emit('web.client.reload', {
          reason: 'org_slug_changed', org_id: e.payload.record_id, new_slug: e.payload.new_value, tenant_id: e.tenant_id,
        });
      },
    },
    {
      id: 'presentation.broadcast_reload',
      event: 'web.client.reload',
      handler: async (env, e) => {
        env.publish('client.reload', { event_id: e.id, name: e.name, payload: e.payload });
      },
    },
  ],
});
