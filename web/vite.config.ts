import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { findWebEntries, writeWebExtensions } from '../src/kernel/generate/web-extensions.ts';
import { gqlDocuments } from './build/gql-documents.ts';

const webDir = fileURLToPath(new URL('.', import.meta.url));
const fwRoot = path.resolve(webDir, '..');
/**
 * The project whose apps' web/ folders join fw's client: this repository by default, a team
 * project when FW_PROJECT_ROOT names it (its `npm run build:web` sets it). The bundle goes to
 * `<root>/web/dist`, which the project's server serves (WEB_CLIENT_DIR).
 */
const projectRoot = path.resolve(process.env.FW_PROJECT_ROOT ?? fwRoot);
const ownRepo = projectRoot === fwRoot;
const appsDir = path.join(projectRoot, 'src/apps');
const extensionsFile = path.join(projectRoot, 'generated/web-extensions.ts');
const api = process.env.FW_API ?? 'http://127.0.0.1:8000';

/**
 * Writes `@fw/extensions` (each app's web entry as a lazy import) before a build, and again in
 * the dev server when an app gains or loses its web/index.ts(x).
 */
function fwExtensions(): Plugin {
  // a team project's apps, then the foundation apps of the installed fw (documents, connectors)
  const write = () => writeWebExtensions(extensionsFile, [
    ...findWebEntries(appsDir),
    ...(ownRepo ? [] : findWebEntries(path.join(fwRoot, 'src/apps')).filter((e) => !e.name.includes('.'))),
  ]);
  write();
  return {
    name: 'fw-extensions',
    buildStart: () => { write(); },
    configureServer(server) {
      const onChange = (file: string) => {
        if (/[\\/]src[\\/]apps[\\/][^\\/]+[\\/]web[\\/]index\.tsx?$/.test(file) && write()) server.restart();
      };
      server.watcher.add(path.join(appsDir, '*/web/index.{ts,tsx}'));
      server.watcher.on('add', onChange).on('unlink', onChange);
    },
  };
}

/** Whether `file` (a module id, maybe with a query) lies under `dir`. */
const inside = (file: string, dir: string): boolean => path.resolve(file.split('?')[0]).startsWith(dir + path.sep);

/**
 * `@fw/gql` is the typed documents of the code that imports it: fw's client and foundation apps
 * get fw's own (web/src/gql, built against fw's SDL with every feature on, shipped in the
 * package), a team project's apps get the project's codegen output (its web/src/gql, against the
 * project's SDL; `fw build web` runs the codegen first). fw lies inside the project
 * (node_modules/fw), so fw is asked first.
 */
function fwGql(): Plugin {
  const own = path.join(webDir, 'src/gql/index.ts');
  const project = path.join(projectRoot, 'web/src/gql/index.ts');
  return {
    name: 'fw-gql',
    enforce: 'pre',
    resolveId(source, importer) {
      if (source !== '@fw/gql') return null;
      return ownRepo || !importer || inside(importer, fwRoot) ? own : project;
    },
  };
}

/**
 * Client source: fw's and the project's own files, not their dependencies (fw itself may lie in
 * the project's node_modules).
 */
const ownSource = (file: string): boolean => [fwRoot, projectRoot].some((root) => {
  const rel = path.relative(root, file);
  return !rel.startsWith('..') && !path.isAbsolute(rel) && !rel.split(path.sep).includes('node_modules');
});

/**
 * The web client: `npm run build:web` writes web/dist (served by the fw server at /);
 * `npm run dev:web` serves it with hot reload on :5173 (the apps' web/ code included) and
 * proxies the API to FW_API.
 */
export default defineConfig({
  root: webDir,
  // the dev server's pre-bundled dependencies live with the project, never inside the installed fw
  cacheDir: path.join(projectRoot, 'node_modules', '.vite'),
  plugins: [fwGql(), gqlDocuments(ownSource), react(), fwExtensions()],
  resolve: {
    alias: {
      '@fw/extensions': extensionsFile,
      '@fw/web': path.join(webDir, 'src/extend.ts'),
    },
    // one React (and one query client, router, intl) for fw's client and the apps' code
    dedupe: ['react', 'react-dom', 'react-intl', 'react-aria-components', '@tanstack/react-query', '@tanstack/react-router'],
  },
  build: {
    outDir: path.join(projectRoot, 'web/dist'),
    emptyOutDir: true,
    sourcemap: false,
    reportCompressedSize: true,
    chunkSizeWarningLimit: 600,
    rolldownOptions: {
      output: {
        // an app's chunk is named for the app (app-storage-….js), not for its entry file (index)
        chunkFileNames: (chunk) => {
          const app = /[\\/]src[\\/]apps[\\/]([^\\/]+)[\\/]web[\\/]index\.tsx?$/.exec(chunk.facadeModuleId ?? '')?.[1];
          return app ? `assets/app-${app}-[hash].js` : 'assets/[name]-[hash].js';
        },
      },
    },
  },
  server: {
    fs: { allow: [fwRoot, projectRoot] },
    proxy: {
      '/api': api,
      '/health': api,
      '/graphql': { target: api, ws: true },
    },
  },
});
