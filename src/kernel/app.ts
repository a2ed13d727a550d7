import type { AccessOp, FieldDecl } from './declare.js';
import type { FastifyInstance } from 'fastify';
import type { Env, FwEvent, Principal } from './env.js';
import type { KernelHandle } from './kernel-handle.js';
import type { OutputShape } from './output.js';

/** The spec's manifest keys, verbatim. */
export interface AppManifest {
  name: string;
  summary: string;
  description: string;
  author: string;
  category: string;
  version: string;
  depends: string[];
  data: string[];
  /**
   * What the app's web client code (`src/apps/<app>/web/index.ts(x)`) registers, by name, so the
   * server checks views at boot without running client code: a view's `widget=` and view type
   * must be a built-in or a name an active app declares here. Names start with the app's prefix
   * (its domain for a domain app: `crm.probability`; its own name for a foundation app:
   * `storage.documents`). Optional; not one of the spec's keys.
   */
  web?: WebManifest;
  /**
   * Groups of users the app declares (docs/security.md#groups): model access letters, field
   * access, record rules, command `roles` and menus name them. Names start with the app's prefix
   * (`helpdesk.agent` for helpdesk.desk, `base.admin` for base). Optional; not one of the spec's keys.
   */
  groups?: GroupDecl[];
}

/** A group of users, declared by an app. */
export interface GroupDecl {
  name: string;
  /** What an administrator reads when giving users groups. */
  label: string;
  description?: string;
  /** Groups every member of this one also holds (`helpdesk.manager` implies `helpdesk.agent`). */
  implies?: string[];
  /**
   * The `res.user.role` whose users hold this group (`base.admin` for `admin`); and a member of
   * the group also holds that role's name wherever access names roles.
   */
  role?: string;
}

/** The client extensions an app contributes (docs/extend-client.md). */
export interface WebManifest {
  /** display and input widgets, used as `widget="<name>"` on a view's field */
  widgets?: string[];
  /** view types (`<view><name model=…>`) and view components (`<list js_class="<name>">`) */
  views?: string[];
  /** whole pages an action opens (`view_id: "<name>"` on an ir.action) */
  pages?: string[];
}

export interface CommandDecl {
  /** Full name, `<model key>.<verb>` for model commands (`res.user.register`) or `<app>.<verb>`. */
  name: string;
  /** Model the command belongs to; access is checked against it. */
  model?: string;
  /** Access operation the caller needs on `model`; default `update`. */
  op?: AccessOp;
  /** When true the payload's `id` names one record; record rules must let the caller see it. Needs a model. */
  record?: boolean;
  /** Anonymous callers may run it (login, refresh); everything else needs an authenticated principal. */
  public?: boolean;
  /**
   * A public command run by an anonymous caller for a tenant that does not exist: no database is
   * opened (nor created), the payload is checked against `input` as usual, then this runs and
   * must throw the refusal a caller gets from an existing tenant for bad credentials (login: 401
   * AUTHENTICATION_FAILED after the same password work), so tenant names cannot be enumerated.
   * Without it the caller gets 404 UNKNOWN_TENANT.
   */
  unknown_tenant?: (ctx: { kernel: KernelHandle; principal: Principal; payload: Record<string, unknown> }) => Promise<never>;
  /** Only these roles may run it (on top of the model's access); system principals always may. */
  roles?: string[];
  /**
   * Run inside one database transaction (default: when it mutates). Commands whose writes must
   * survive the error they then raise (refresh-token reuse revoking a session family) opt out.
   */
  transaction?: boolean;
  /** False for commands that never write (lets the AI layer and GraphQL treat them as queries). */
  mutates?: boolean;
  description?: string;
  /** Payload fields, declared with the same field types as models (validated before the handler). */
  input?: Record<string, FieldDecl>;
  /**
   * In-process only (its payload carries things JSON cannot, such as a stream): not offered
   * as a GraphQL field nor through POST /api/command.
   */
  internal?: boolean;
  /**
   * The command takes file content as `payload.stream` (plus `filename`, `content_type`,
   * `declared_size`): GraphQL offers it with a `file: File!` argument (multipart request).
   */
  file_upload?: boolean;
  /** GraphQL field name when the derived one (`res.user.register` → `resUserRegister`) is not wanted. */
  graphql_name?: string;
  /** Shape of the result, for API schemas: a record of `model`, nothing, or free JSON. */
  returns?: 'record' | 'void' | 'json';
  /**
   * Typed shape of the result (`o.object(…)`, src/kernel/output.ts): GraphQL answers that type
   * instead of `JSON`. Not with `returns: 'record'`, which already types the result.
   */
  output?: OutputShape;
  /**
   * What the handler does besides returning a value, as data. When declared it is also enforced:
   * the handler's env refuses any dispatch, event, topic or model write not listed (an
   * `UNDECLARED_EFFECT` internal error), so a proof built on it (the AI layer's read-only gate)
   * holds at run time. Undeclared = unknown, which such proofs treat as "may mutate".
   */
  effects?: CommandEffect[];
  /** Offers the command to the AI layer as a tool (used only when that layer is loaded). */
  tool?: ToolDecl;
  /**
   * Method syntax on purpose: its parameters compare bivariantly, so a handler typed with the
   * command's generated payload (`defineCommand`, src/kernel/typed-app.ts) fits this untyped slot.
   */
  handler(env: Env, payload: Record<string, unknown>): Promise<unknown>;
}

/** One declared effect of a command handler. */
export type CommandEffect =
  /** runs this command through env.dispatch */
  | { dispatch: string }
  /** reads this model directly through env.db (find/count/groupBy) */
  | { read: string }
  /** writes this model directly through env.db */
  | { write: string }
  /** emits this event */
  | { emit: string }
  /** publishes on this live topic */
  | { publish: string }
  /** reads or writes stored file content */
  | { storage: 'read' | 'write' }
  /** calls something outside the process (an AI provider, a webhook) */
  | { network: string };

/** The spec's tool declaration, attached to a command handler. */
export interface ToolDecl {
  name: string;
  read_only: boolean;
  kind: 'informer' | 'proposer' | 'insight';
  description: string;
  /** JSON Schema of the tool's arguments (an object schema). */
  input_schema: Record<string, unknown>;
  /**
   * The tool acts on the model named by its `model` argument: the catalogue narrows that
   * argument's `enum` to the models the caller has `op` on, and leaves the tool out when none.
   */
  model_argument?: { op: AccessOp };
  /** The tool acts on these models: offered only to callers who may `read` each of them. */
  models?: string[];
}

export interface HookContext {
  env: Env;
  model: string;
  op: string;
  /** Mutable: pre hooks may change what gets written. */
  payload: Record<string, unknown>;
  /** The stored record before the operation (update/delete and record commands). */
  before?: Record<string, unknown>;
  /** The record after the operation (post hooks of create/update). */
  after?: Record<string, unknown>;
  /** Tracked fields whose value changed (post hooks declaring track_fields). */
  changes?: Array<{ field: string; old_value: unknown; new_value: unknown }>;
}

export interface HookDecl {
  /** `pre.<model>.<op>` or `post.<model>.<op>` (op = create, update, delete or a command verb). */
  point: string;
  /** Fields whose change emits `<model>.field_changed` events from this post hook. */
  track_fields?: string[];
  /** Lower runs first; ties keep app load order. */
  sequence?: number;
  /** Method syntax: a handler typed for its point (`defineHook`) fits, as for `CommandDecl.handler`. */
  handler?(ctx: HookContext): Promise<void> | void;
}

export interface EventHandlerDecl {
  /** Stable id; dead letters and retries are kept per handler. */
  id: string;
  event: string;
  /** Only events whose payload has these exact values reach the handler. */
  filter?: Record<string, unknown>;
  /** Attempts before the delivery is parked as a dead letter. */
  max_attempts?: number;
  handler: (env: Env, event: FwEvent) => Promise<void>;
}

export type SeedFn = (env: Env) => Promise<void>;

/** Turns a bearer token into a principal, or throws a TokenError. Provided by one app (auth). */
export interface Authenticator {
  /**
   * `organization` is the one the request asks to work in (id or workspace slug); the principal's
   * `organization_id` is it when the user belongs to it, else 403 ORGANIZATION_NOT_ALLOWED.
   * Without it, the user's default organization.
   */
  authenticate(token: string, options?: { organization?: string | null }): Promise<Principal>;
  /**
   * For long-lived streams (graphql-ws connections, server-sent events), which authenticate once:
   * calls `onEnd` once, with the reason, when the session behind `token` ends (logout,
   * revocation, deactivation, expiry) or the user's role or organization changes. Returns a
   * function that stops watching (call it when the stream closes).
   */
  watch?(token: string, principal: Principal, onEnd: (reason: string) => void): () => void;
  /**
   * A signed, single-use link's principal (its session as it is now) and data, for a route a
   * browser follows without a bearer header (the export download). `tenant` is the tenant the
   * request names, if any. Refuses with 401 EXPORT_LINK_INVALID, EXPORT_LINK_EXPIRED or EXPORT_LINK_USED.
   */
  redeemLink?(token: string, purpose: string, tenant: string | null): Promise<{ principal: Principal; data: Record<string, unknown> }>;
}

/** What an app sees when it adds HTTP routes. */
export interface RouteContext {
  kernel: KernelHandle;
}

/**
 * What an app route serves, declared on the route (`{ config: { describes } }`, or the `serves` and
 * `servesRecords` helpers below) so that the OpenAPI document gives its body, query and answer the
 * schemas the registry has for them: a route is described from the command it dispatches or the
 * records it serves, never by a schema of its own. Checked when the route is registered (an
 * unknown command or model stops the boot, ROUTE_DESCRIPTION_INVALID).
 */
export type RouteDescription =
  /**
   * The route dispatches this command: the command's input, less the path's parameters, is the
   * body (the query of a GET); its output (or its model's record) is the answer, or the field
   * `pick` of it when the route answers that part only. `status`: the success status (201 for a
   * create). `stream`: the `file_upload` command a raw body (any type but JSON) goes to instead,
   * its input (and the file's `filename`) taken from the query. `path`: input fields the path's
   * parameters fill under another name (`{ id: 'recording_id' }`), left out of the body too.
   */
  | { command: string; pick?: string; status?: number; stream?: string; path?: Readonly<Record<string, string>> }
  /**
   * The route lists, creates, reads, updates or deletes a model's records, as `/api/data/{key}`
   * does. `fields`: the only fields an update takes (a route that lets some be changed);
   * `paged: false`: a list that takes no list parameters (every record, in one order).
   */
  | { records: string; as: 'list' | 'create' | 'read' | 'update' | 'delete'; fields?: readonly string[]; paged?: false }
  /** The route answers a file's bytes (a download): see `sendsFile`. */
  | { file: FileAnswer }
  /** The route answers a stream of server-sent events: see `sendsEvents`. */
  | { events: EventStream }
  /** The route takes and answers JSON-RPC 2.0 messages (MCP's Streamable HTTP): see `speaksJsonRpc`. */
  | { jsonRpc: JsonRpcEndpoint };

/**
 * What a download route answers: `types`, its content types (any type when left out); `ranges`,
 * whether it serves byte ranges and revalidation (`Range` → 206, `If-None-Match` → 304, 416 for a
 * range outside the file); `query`, the query parameters it reads, with their JSON types.
 */
export interface FileAnswer {
  types?: readonly string[];
  ranges?: boolean;
  query?: Readonly<Record<string, 'string' | 'integer'>>;
}

/**
 * What an event-stream route sends (`text/event-stream`, open until the client or the session
 * ends): `events`, the names of its `event:` lines, each with an `id` and JSON `data`; `replay`,
 * whether a client reconnecting with `Last-Event-ID` first gets the events it missed; `query`,
 * the query parameters it reads; `tokenInQuery`, whether the access token may come as
 * `?access_token=` (a browser's EventSource cannot send headers).
 */
export interface EventStream {
  events: readonly string[];
  replay?: boolean;
  query?: Readonly<Record<string, 'string' | 'integer'>>;
  tokenInQuery?: boolean;
}

/**
 * A JSON-RPC 2.0 endpoint: the body is one message or a batch, the answer the responses (202 with
 * no body when only notifications came), a refusal a JSON-RPC error object. `accept`: the types a
 * client's `Accept` must name (else 406; MCP asks for `application/json` and `text/event-stream`).
 * `allow`: this method is not one the endpoint serves; it answers 405 naming `allow` (MCP's GET
 * and DELETE on a stateless server).
 */
export interface JsonRpcEndpoint {
  accept?: readonly string[];
  allow?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
}

/** Route options saying the route dispatches `command`: `server.post(path, serves('x.y'), handler)`. */
export const serves = (command: string, opts: { pick?: string; status?: number; stream?: string; path?: Readonly<Record<string, string>> } = {}) => ({ config: { describes: { command, ...opts } satisfies RouteDescription } });

/** Route options saying the route answers a file's bytes: `server.get(path, sendsFile({ types: ['image/png'] }), handler)`. */
export const sendsFile = (file: FileAnswer = {}) => ({ config: { describes: { file } satisfies RouteDescription } });

/** Route options saying the route sends server-sent events: `server.get(path, sendsEvents({ events: ['x.changed'] }), handler)`. */
export const sendsEvents = (stream: EventStream) => ({ config: { describes: { events: stream } satisfies RouteDescription } });

/** Route options saying the route speaks JSON-RPC 2.0: `server.post('/rpc', speaksJsonRpc(), handler)`. */
export const speaksJsonRpc = (endpoint: JsonRpcEndpoint = {}) => ({ config: { describes: { jsonRpc: endpoint } satisfies RouteDescription } });

/** Route options saying the route serves `model`'s records as `/api/data/{key}` does. */
export const servesRecords = (model: string, as: 'list' | 'create' | 'read' | 'update' | 'delete', opts: { fields?: readonly string[]; paged?: false } = {}) => ({ config: { describes: { records: model, as, ...opts } satisfies RouteDescription } });

/**
 * A live stream an app offers as a GraphQL subscription field. `topic` runs as the subscriber
 * when they subscribe: it checks they may listen (throwing refuses the subscription) and names
 * the topic of their tenant whose messages (`env.publish` / `KernelHandle.publish`) the field delivers.
 */
export interface SubscriptionDecl {
  name: string;
  description: string;
  /** Arguments, all strings (an `ID` when `id` is true). */
  args?: Record<string, { required?: boolean; id?: boolean; description?: string }>;
  topic: (ctx: { kernel: KernelHandle; principal: Principal; args: Record<string, unknown> }) => Promise<string>;
  /**
   * Typed shape of each message (`o.*`, src/kernel/output.ts), as a command's `output`: GraphQL
   * answers that type instead of `JSON`. The publisher must send messages of that shape.
   */
  output?: OutputShape;
}

/** What `src/apps/<app>/index.ts` exports as `app`. */
export interface AppModule {
  manifest: AppManifest;
  commands?: CommandDecl[];
  hooks?: HookDecl[];
  /**
   * Hook points this app runs itself (`runPreHooks`/`runPostHooks` with a model and op of its own,
   * e.g. `pre.ai.tool_call`), so that any app may hook them. Every other hook point must name a
   * loaded model and an operation that runs hooks on it, or the boot stops (a mistyped point
   * would otherwise never run).
   */
  hookPoints?: string[];
  eventHandlers?: EventHandlerDecl[];
  /**
   * Events this app emits through `env.emit` beyond those its commands declare as `emit` effects
   * (e.g. from an event handler or a hook). An event handler must listen to an event some loaded
   * app emits (listed here or in a command's effects) or to `<model>.field_changed` of a model
   * with tracked fields, or the boot stops: a misspelt event would otherwise never arrive.
   */
  events?: string[];
  /** Run once per tenant per app version, in load order, as the system principal. */
  seed?: SeedFn;
  /** HTTP routes of the app (Fastify plugin style); each route says `config: { auth: 'public' }` to opt out of auth. */
  routes?: (server: FastifyInstance, ctx: RouteContext) => void | Promise<void>;
  /** Runs once when a kernel boots, after the registry is frozen (bind services, check settings). */
  boot?: (kernel: KernelHandle) => Promise<void> | void;
  /** The bearer-token authenticator (one active app provides it). */
  authenticator?: (kernel: KernelHandle) => Authenticator;
  /** GraphQL subscription fields of the app (live streams of its topics). */
  subscriptions?: SubscriptionDecl[];
  /**
   * Commands this app derives from every registered command (kernel and apps) before the registry
   * freezes; they are registered as the app's own. The AI app turns each `tool` declaration into
   * its carrier command `ai.tool.<name>` here, and may refuse the boot (a read-only tool that can
   * mutate) by throwing a BootError.
   */
  deriveCommands?: (commands: ReadonlyMap<string, CommandDecl & { app: string; kernel: boolean; mutates: boolean }>) => CommandDecl[];
}

export function defineApp(app: AppModule): AppModule {
  return app;
}
