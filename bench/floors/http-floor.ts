/** Floor: a bare node:http server answering workload 1's 50-object JSON (serialised per request). */
import fs from 'node:fs';
import http from 'node:http';

const payload = JSON.parse(fs.readFileSync(process.env.FIXTURE!, 'utf8'));
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const body = JSON.stringify(payload);
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
const parent = process.ppid;
setInterval(() => { if (process.ppid !== parent) process.exit(2); }, 1_000).unref();
process.on('SIGTERM', () => server.close(() => process.exit(0)));
