import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
const api = process.env.FW_API ?? 'http://127.0.0.1:8000';

/**
 * The web client: `npm run build:web` writes web/dist (served by the fw server at /);
 * `npm run dev:web` serves it with hot reload on :5173 and proxies the API to FW_API.
 */
export default defineConfig({
  root,
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    reportCompressedSize: true,
    chunkSizeWarningLimit: 600,
  },
  server: {
    proxy: {
      '/api': api,
      '/health': api,
      '/graphql': { target: api, ws: true },
    },
  },
});
