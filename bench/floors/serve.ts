import type http from 'node:http';

/**
 * A floor's server on the bench's terms: it listens on 127.0.0.1:$PORT, exits when the bench that
 * started it is gone (its parent changed: no floor outlives a killed run), and closes on SIGTERM.
 */
export function serveFloor(server: http.Server): void {
  server.listen(Number(process.env.PORT), '127.0.0.1');
  const parent = process.ppid;
  setInterval(() => { if (process.ppid !== parent) process.exit(2); }, 1_000).unref();
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
