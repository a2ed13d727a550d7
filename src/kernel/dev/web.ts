import path from 'node:path';
import { BadRequest } from '../errors.js';
import { runCodegen } from '../generate/codegen.js';
import { rootDirs, type ProjectLayout } from '../modules/loader.js';
import { loadSettings } from '../settings.js';

/**
 * `fw dev --web`: Vite's dev server for the web client, in the supervisor's process (it never
 * loads an app, so it outlives every server restart). It serves fw's client and the project's
 * apps' web/ code with hot reload, and proxies /api, /graphql (with its WebSocket) and /health to
 * the server `fw dev` runs (web/vite.config.ts). The project's typed documents are generated
 * before it starts and again after a save under an app's web/ folder, so a changed `graphql(…)`
 * document is typed and known to the page without a build.
 */
export async function startWebDevServer(
  layout: ProjectLayout,
  opts: { port: number; log?: (line: string) => void },
): Promise<{ url: string; close(): Promise<void> }> {
  if (!Number.isInteger(opts.port) || opts.port < 1 || opts.port > 65535) {
    throw new BadRequest(`--web takes a port (1–65535), not "${String(opts.port)}"`, { port: opts.port }, 'INVALID_PORT');
  }
  const log = opts.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const settings = loadSettings();
  const own = path.resolve(layout.root) === path.resolve(layout.fwRoot);
  const codegen = async () => {
    try {
      await runCodegen(layout.root, layout.fwRoot, log);
    } catch (err) {
      // the page keeps the last good documents; the next save tries again
      log(`fw dev: ${(err as Error).message}`);
    }
  };
  // fw's own repository generates its documents with npm ci (and its codegen has the tests' too)
  if (!own) await codegen();
  // read by web/vite.config.ts when it loads
  process.env.FW_PROJECT_ROOT = layout.root;
  process.env.FW_API = `http://${settings.HOST}:${settings.PORT}`;
  const { createServer } = await import('vite');
  const server = await createServer({
    configFile: path.join(layout.fwRoot, 'web', 'vite.config.ts'),
    server: { port: opts.port, strictPort: true, host: settings.HOST },
    logLevel: 'warn',
  });
  if (!own) {
    const apps = rootDirs(layout.root).apps;
    let timer: NodeJS.Timeout | null = null;
    server.watcher.on('change', (file: string) => {
      const rel = path.relative(apps, file).split(path.sep);
      if (rel[0] === '..' || rel[1] !== 'web' || !/\.tsx?$/.test(file)) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => void codegen(), 150);
    });
  }
  await server.listen();
  const url = server.resolvedUrls?.local[0] ?? `http://${settings.HOST}:${opts.port}/`;
  return { url, close: () => server.close() };
}
