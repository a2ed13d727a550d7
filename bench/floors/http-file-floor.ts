/**
 * Floor of workload 6 over HTTP: a bare node:http server on the server core that answers the
 * storage client's two routes with nothing but the transfer. An upload streams the body into a new
 * file (1 MiB writes, no hash, no fsync); a download streams that file back (1 MiB reads). What
 * the storage server does above this is its own cost; what this cannot reach, no Node HTTP server
 * on this machine reaches with the same client.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { serveFloor } from './serve.ts';

const dir = process.env.FLOOR_DIR!;
const CHUNK = 1024 * 1024;
const DOWNLOAD = /^\/api\/storage\/documents\/([0-9a-f]{32})\/download$/;

const server = http.createServer((req, res) => {
  const url = new URL(req.url!, 'http://floor');
  if (req.method === 'POST' && url.pathname === '/api/storage/documents') {
    const id = crypto.randomBytes(16).toString('hex');
    pipeline(req, fs.createWriteStream(path.join(dir, id), { highWaterMark: CHUNK })).then(() => {
      const body = JSON.stringify({ id });
      res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    }, (err: Error) => { res.writeHead(500).end(err.message); });
    return;
  }
  const m = req.method === 'GET' ? DOWNLOAD.exec(url.pathname) : null;
  if (url.pathname === '/' || !m) {
    req.resume();
    res.writeHead(url.pathname === '/' ? 200 : 404).end();
    return;
  }
  const file = path.join(dir, m[1]!);
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': fs.statSync(file).size });
  pipeline(fs.createReadStream(file, { highWaterMark: CHUNK }), res).catch(() => res.destroy());
});
serveFloor(server);
