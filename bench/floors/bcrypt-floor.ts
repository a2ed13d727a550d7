/**
 * Floor of workload 5: raw `bcrypt.compare` throughput at the configured cost on the server's
 * core, with as many compares in flight as the login load has connections (the libuv thread
 * pool runs them, as in the server). Prints one JSON line.
 */
import bcrypt from 'bcrypt';

const [cost, durationS, concurrency] = process.argv.slice(2).map(Number) as [number, number, number];
const password = 'bench-floor-password';
const hash = await bcrypt.hash(password, cost);

// one compare alone: how long the event loop would stall if a hash ran on it
const singles: number[] = [];
for (let i = 0; i < 3; i++) {
  const t = performance.now();
  await bcrypt.compare(password, hash);
  singles.push(performance.now() - t);
}

let done = 0;
const t0 = performance.now();
const end = t0 + durationS * 1000;
await Promise.all(Array.from({ length: concurrency }, async () => {
  while (performance.now() < end) {
    if (!(await bcrypt.compare(password, hash))) throw new Error('compare failed');
    done++;
  }
}));
const elapsed = (performance.now() - t0) / 1000;
singles.sort((a, b) => a - b);
console.log(JSON.stringify({ cost, concurrency, compares: done, seconds: elapsed, perSecond: done / elapsed, singleMs: singles[1] }));
