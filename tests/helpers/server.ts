/**
 * An in-process HTTP server for auth and access-control tests: a real kernel (SQLite files in a
 * temp folder, or PostgreSQL databases under a prefix unique to this server) behind the real
 * Fastify app, driven with `server.inject`. Nothing listens on a port.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { Kernel } from '../../src/kernel/kernel.ts';
import { loadSettings } from '../../src/kernel/settings.ts';
import { buildServer } from '../../src/server/index.ts';
import { uniqueRedisPrefix } from './redis.ts';

export type Provider = 'sqlite' | 'postgresql';

/** The machine's PostgreSQL (trust auth); `.ci/run` passes it as DATABASE_URL (FW_TEST_PG_URL wins if set). */
export const PG_URL = process.env.FW_TEST_PG_URL || process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';

export const ADMIN_EMAIL = 'admin@example.com';
export const ADMIN_PASSWORD = 'admin-pass-1';
/**
 * The public development key published in src/apps/auth/settings.ts: a token signed with it must
 * be refused, since test servers run with a key of their own (`TestServer.jwtKey`).
 */
export const PLACEHOLDER_KEY = 'fw-insecure-development-key-change-me';
/** A key only this process knows, as an operator's generated or configured key would be. */
export const randomKey = (): string => crypto.randomBytes(32).toString('base64url');

export const rand = (bytes = 3): string => crypto.randomBytes(bytes).toString('hex');

export interface Res<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Client address as the server sees it (inject's default is 127.0.0.1). */
  remoteAddress?: string;
}

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
}

export interface TestServer {
  server: FastifyInstance;
  kernel: Kernel;
  provider: Provider;
  /** The server's JWT_SECRET_KEY: tokens forged with it test claims, not the signature. */
  jwtKey: string;
  request<T = any>(method: string, url: string, opts?: RequestOptions): Promise<Res<T>>;
  /** POST /api/auth/login; returns the raw response (check `status` yourself). */
  tryLogin(email: string, password: string, tenant?: string, opts?: RequestOptions): Promise<Res>;
  /** POST /api/auth/login and expect 200. */
  login(email: string, password: string, tenant?: string, opts?: RequestOptions): Promise<TokenPair>;
  loginAdmin(tenant?: string): Promise<TokenPair>;
  /** Provisions a tenant (creates, migrates and seeds its database) the way an operator would. */
  provisionTenant(tenant: string): Promise<void>;
  /** Creates an organization as `adminToken`; returns its id. */
  createOrg(adminToken: string, name: string): Promise<string>;
  /** Registers a user through POST /api/data/res.user as `adminToken`; returns the record. */
  createUser(adminToken: string, values: { email: string; name?: string; password: string; role?: string; organization?: string }): Promise<Record<string, any>>;
  /** Every ir.session row of a tenant, read with the Prisma delegate (private fields included). */
  sessionRows(tenant?: string): Promise<Record<string, any>[]>;
  close(): Promise<void>;
}

export function decodeJwtPart(part: string): Record<string, any> {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
}

/** Header and payload of a JWT, without verifying anything. */
export function decodeJwt(token: string): { header: Record<string, any>; payload: Record<string, any> } {
  const [h, p] = token.split('.');
  return { header: decodeJwtPart(h), payload: decodeJwtPart(p) };
}

/** The error envelope every failure answers with: `{ error: { code, message } }`. */
export function expectError(res: Res, status: number, code?: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({ error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }) });
  if (code) expect(res.body.error.code).toBe(code);
}

export async function startTestServer(overrides: Record<string, string> = {}, opts: { provider?: Provider; logStream?: Writable } = {}): Promise<TestServer> {
  const provider = opts.provider ?? 'sqlite';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-auth-'));
  const pgPrefix = `fwt_${rand(4)}_`;
  const settings = loadSettings({
    DATA_DIR: dataDir,
    ACTIVE_MODULES: 'base,auth',
    ACTIVE_DOMAINS: 'crm',
    BCRYPT_COST: '4',
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    LOG_LEVEL: 'silent',
    JWT_SECRET_KEY: randomKey(),
    CONNECTOR_SECRET_KEY: randomKey(),
    // a deployment of its own on a shared Redis (tests/helpers/redis.ts); servers of one
    // deployment pass the same REDIS_PREFIX
    REDIS_PREFIX: uniqueRedisPrefix(),
    ...(provider === 'postgresql' ? { DATABASE_URL: PG_URL, PG_DATABASE_PREFIX: pgPrefix } : {}),
    ...overrides,
  });
  const kernel = await Kernel.boot({ settings, worker: false, log: () => {} });
  let server: FastifyInstance;
  try {
    server = await buildServer(kernel, { logStream: opts.logStream });
    // tenants are provisioned, never created by an anonymous request: open (create, migrate,
    // seed) the default tenant up front, as `fw serve` does
    await kernel.tenants.get(settings.DEFAULT_TENANT);
  } catch (err) {
    await kernel.close();
    throw err;
  }

  const request = async <T = any>(method: string, url: string, o: RequestOptions = {}): Promise<Res<T>> => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    const res = await server.inject({
      method: method as 'GET',
      url,
      headers,
      ...(o.body !== undefined ? { payload: o.body as object } : {}),
      ...(o.remoteAddress ? { remoteAddress: o.remoteAddress } : {}),
    });
    let body: unknown = res.body;
    try {
      body = res.body ? JSON.parse(res.body) : undefined;
    } catch { /* not JSON: keep the text */ }
    return { status: res.statusCode, body: body as T, headers: res.headers };
  };

  const tryLogin = (email: string, password: string, tenant?: string, o: RequestOptions = {}) =>
    request('POST', '/api/auth/login', {
      ...o,
      body: { email, password },
      headers: { ...(tenant ? { 'x-tenant': tenant } : {}), ...(o.headers ?? {}) },
    });

  const login = async (email: string, password: string, tenant?: string, o?: RequestOptions): Promise<TokenPair> => {
    const res = await tryLogin(email, password, tenant, o);
    expect(res.status, `login ${email}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body as TokenPair;
  };

  const ts: TestServer = {
    server,
    kernel,
    provider,
    jwtKey: settings.extra.JWT_SECRET_KEY ?? '',
    request,
    tryLogin,
    login,
    loginAdmin: (tenant) => login(ADMIN_EMAIL, ADMIN_PASSWORD, tenant),
    async provisionTenant(tenant) {
      await kernel.tenants.get(tenant);
    },
    async createOrg(adminToken, name) {
      const res = await request('POST', '/api/data/res.organization', { token: adminToken, body: { name } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    },
    async createUser(adminToken, values) {
      const res = await request('POST', '/api/data/res.user', { token: adminToken, body: { name: values.email.split('@')[0], ...values } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    },
    async sessionRows(tenant = kernel.settings.DEFAULT_TENANT) {
      const db = await kernel.tenants.get(tenant);
      return delegateOf(db, kernel.registry.model('ir.session')).findMany({ orderBy: { dbid: 'asc' } });
    },
    async close() {
      try {
        if (provider === 'postgresql') {
          // only databases under this server's unique prefix; drop() closes the tenant's client first
          for (const tenant of await kernel.tenants.list()) await kernel.tenants.drop(tenant);
        }
      } finally {
        await server.close(); // closes the kernel too
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
  return ts;
}
