import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Paths the SPA fallback never answers: they belong to the API and keep their JSON 404s. */
const API_PREFIXES = ['/api/', '/graphql', '/health', '/assets/'];

/**
 * The folder to serve: WEB_CLIENT_DIR relative to the project. A team project that has not built
 * a client of its own (`npm run build:web` there) is served the client prebuilt inside the
 * installed fw, which learns the project's models, menus and views from the server anyway.
 */
export function resolveWebClientDir(dir: string, layout: { root: string; fwRoot: string }): string {
  if (!dir) return '';
  const own = path.resolve(layout.root, dir);
  if (fs.existsSync(path.join(own, 'index.html')) || path.isAbsolute(dir)) return own;
  const shipped = path.resolve(layout.fwRoot, dir);
  return fs.existsSync(path.join(shipped, 'index.html')) ? shipped : own;
}

/**
 * Serves the built web client (web/dist) as public routes: hashed files under /assets/ are
 * immutable for a year; index.html is revalidated on every load, so a new build is picked up at
 * the next reload. Returns the app shell (index.html) for the SPA fallback, or null when there
 * is no built client. The shell is read again when the file changes, so a rebuild while the
 * server runs never serves an index that names assets that are gone.
 */
export async function webClientRoutes(server: FastifyInstance, dir: string): Promise<(() => Buffer) | null> {
  if (!dir) return null;
  const root = path.resolve(dir);
  const index = path.join(root, 'index.html');
  if (!fs.existsSync(index)) {
    server.log.warn({ dir: root }, 'web client not built (run `npm run build:web`); / serves nothing');
    return null;
  }
  let cached = { mtimeMs: -1, body: Buffer.alloc(0) };
  const shell = () => {
    const { mtimeMs } = fs.statSync(index);
    if (mtimeMs !== cached.mtimeMs) cached = { mtimeMs, body: fs.readFileSync(index) };
    return cached.body;
  };
  await server.register(async (scope) => {
    // static files need no token: the auth hook reads this route config
    scope.addHook('onRoute', (r) => { r.config = { ...(r.config ?? {}), auth: 'public' }; });
    await scope.register(fastifyStatic, {
      root,
      wildcard: true,
      index: false,
      cacheControl: false,
      setHeaders: (res, file) => {
        const hashed = file.startsWith(path.join(root, 'assets') + path.sep);
        res.header('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
    scope.get('/', (_req, reply) => sendShell(reply, shell()));
  });
  return shell;
}

export function sendShell(reply: FastifyReply, shell: Buffer): FastifyReply {
  return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(shell);
}

/** The SPA fallback applies to page navigations (GET/HEAD accepting HTML) outside the API. */
export function wantsAppShell(req: FastifyRequest): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const url = req.url.split('?')[0];
  if (API_PREFIXES.some((p) => url === p.replace(/\/$/, '') || url.startsWith(p))) return false;
  return String(req.headers.accept ?? '').includes('text/html');
}
