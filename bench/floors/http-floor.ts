/** Floor: a bare node:http server answering workload 1's 50-object JSON (serialised per request). */
import fs from 'node:fs';
import http from 'node:http';
import { serveFloor } from './serve.ts';

const payload = JSON.parse(fs.readFileSync(process.env.FIXTURE!, 'utf8'));
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const body = JSON.stringify(payload);
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
serveFloor(server);
