/**
 * GraphiQL (the schema explorer at `GET /graphql` in a browser) without a CDN. yoga's default
 * page loads GraphiQL's script, styles and editor workers from unpkg.com, so the explorer is
 * blank on a machine without internet. @graphql-yoga/render-graphiql ships the same build as
 * strings (`./graphiql`: js, css, a data: favicon and the three Monaco worker sources); they are
 * served here as static files under `/graphql/graphiql/<package version>/<file>`: public,
 * immutable for a year (a new version is a new URL), gzipped for clients that accept it. The
 * page names only those same-origin URLs.
 *
 * The 9 MB module is imported on the first asset request, not at boot. With the explorer off
 * (GRAPHIQL, off by default in production) neither the page nor its assets are served.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { gzip as gzipCb } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import type { GraphiQLOptions } from 'graphql-yoga';
import { NotFound } from '../../kernel/errors.js';

const gzip = promisify(gzipCb);

/** The installed @graphql-yoga/render-graphiql version: keys the asset URLs. */
export const GRAPHIQL_VERSION: string = (createRequire(import.meta.url)('@graphql-yoga/render-graphiql/package.json') as { version: string }).version;

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
  gzipped?: Promise<Buffer>;
}

type Sources = typeof import('@graphql-yoga/render-graphiql/graphiql');

const JS = 'application/javascript; charset=utf-8';
/** File name → where it comes from in the package and its content type. */
const FILES: Record<string, { pick: (s: Sources) => string; type: string }> = {
  'graphiql.js': { pick: (s) => s.js, type: JS },
  'graphiql.css': { pick: (s) => s.css, type: 'text/css; charset=utf-8' },
  'favicon.ico': { pick: (s) => s.favicon, type: 'image/x-icon' },
  'editor.worker.js': { pick: (s) => s.editorWorkerService, type: JS },
  'json.worker.js': { pick: (s) => s.jsonWorker, type: JS },
  'graphql.worker.js': { pick: (s) => s.graphqlWorker, type: JS },
  // the page's own start-up (no inline script, so the page runs under a CSP without 'unsafe-inline')
  'boot.js': { pick: () => BOOT, type: JS },
};

/**
 * Reads the page's options and the worker URLs from its JSON data block (a `<script
 * type="application/json">` is data, not script, so CSP does not apply to it) and renders
 * GraphiQL.
 */
const BOOT = `(function () {
  var config = JSON.parse(document.getElementById('graphiql-config').textContent);
  self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: function (moduleId, label) { return config.workers[label]; } };
  YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'), config.options);
})();
`;

/** Monaco's worker labels → files. */
const WORKERS: Record<string, string> = { editorWorkerService: 'editor.worker.js', json: 'json.worker.js', graphql: 'graphql.worker.js' };

const CACHE = 'public, max-age=31536000, immutable';

function toAsset(text: string, type: string): Asset {
  // the favicon is a data: URI; everything else is text
  const data = /^data:([^;,]+)?(;base64)?,/.exec(text);
  const body = data ? Buffer.from(decodeURIComponent(text.slice(data[0].length)), data[2] ? 'base64' : 'utf8') : Buffer.from(text, 'utf8');
  return { body, type: data?.[1] ?? type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

let loading: Promise<Map<string, Asset>> | null = null;
function assets(): Promise<Map<string, Asset>> {
  loading ??= import('@graphql-yoga/render-graphiql/graphiql').then((s) => new Map(Object.entries(FILES).map(([name, f]) => [name, toAsset(f.pick(s), f.type)])));
  return loading;
}

/** JSON inside a <script> data block: `<` escaped, so no value can close the element. */
const scriptJson = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * yoga's `renderGraphiQL`: the page of @graphql-yoga/render-graphiql with the assets referenced
 * by URL instead of inlined (and the workers by URL instead of blob: copies), and no inline
 * script: `opts` (the GraphiQL options yoga passes: endpoint, subscriptions protocol, …) travel
 * unchanged in a JSON data block that boot.js reads.
 */
export function graphiqlRenderer(graphqlEndpoint: string): (opts?: GraphiQLOptions) => string {
  const base = `${graphqlEndpoint}/graphiql/${GRAPHIQL_VERSION}`;
  const workers = Object.fromEntries(Object.entries(WORKERS).map(([label, file]) => [label, `${base}/${file}`]));
  return (opts) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(opts?.title || 'Yoga GraphiQL')}</title>
    <link rel="icon" href="${escapeHtml(opts?.favicon || `${base}/favicon.ico`)}" />
    <link rel="stylesheet" href="${base}/graphiql.css" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>You need to enable JavaScript to run this app.</noscript>
    <div id="root"></div>
    <script type="application/json" id="graphiql-config">${scriptJson({ workers, options: opts ?? {} })}</script>
    <script src="${base}/graphiql.js"></script>
    <script src="${base}/boot.js"></script>
  </body>
</html>
`;
}

export const GRAPHIQL_DISABLED = 'GRAPHIQL_DISABLED';

/** The answer to a browser opening `GET /graphql` while the explorer is off (GRAPHIQL). */
export function graphiqlDisabled(): NotFound {
  return new NotFound('the GraphiQL explorer is turned off on this server (GRAPHIQL=off, the default with NODE_ENV=production)', { setting: 'GRAPHIQL' }, GRAPHIQL_DISABLED);
}

/** GET (and HEAD) `<endpoint>/graphiql/<version>/<file>`: public, immutable, gzipped when accepted. */
export function graphiqlAssetRoutes(server: FastifyInstance, graphqlEndpoint: string): void {
  server.route<{ Params: { version: string; file: string } }>({
    method: 'GET',
    url: `${graphqlEndpoint}/graphiql/:version/:file`,
    config: { auth: 'public' },
    handler: async (req, reply) => {
      const { version, file } = req.params;
      if (version !== GRAPHIQL_VERSION || !Object.hasOwn(FILES, file)) {
        throw new NotFound(`no GraphiQL asset ${req.url.split('?')[0]}`, undefined, 'ROUTE_NOT_FOUND');
      }
      const asset = (await assets()).get(file)!;
      void reply.header('content-type', asset.type).header('cache-control', CACHE).header('etag', asset.etag).header('vary', 'accept-encoding');
      if (req.headers['if-none-match'] === asset.etag) return reply.status(304).send();
      if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
        asset.gzipped ??= gzip(asset.body);
        return reply.header('content-encoding', 'gzip').send(await asset.gzipped);
      }
      return reply.send(asset.body);
    },
  });
}
