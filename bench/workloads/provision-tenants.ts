/**
 * Setup of workload 7, in-process through the kernel API (what `fw tenant create` does, without a
 * process per tenant): create, migrate and seed tenants, and log each one's admin in through the
 * auth command so the measured first request can carry a valid token. Settings come from the
 * environment (the orchestrator passes the tenant server's own). argv: out-file, first index, count, max seconds.
 */
import fs from 'node:fs';
import { anonymousPrincipal } from '../../src/kernel/env.ts';
import { Kernel } from '../../src/kernel/kernel.ts';

const tenantKey = (i: number) => `t${String(i).padStart(4, '0')}`;

const [out, first, count, maxSeconds] = [process.argv[2]!, Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5])];
const kernel = await Kernel.boot({ worker: false, log: () => {} });
const tokens: Record<string, string> = {};
const deadline = Date.now() + maxSeconds * 1000;
try {
  for (let i = first; i < first + count && Date.now() < deadline; i++) {
    const t = tenantKey(i);
    await kernel.tenants.get(t);
    const pair = await kernel.dispatch<{ access_token: string }>('auth.login', { email: process.env.ADMIN_EMAIL, password: process.env.ADMIN_PASSWORD }, anonymousPrincipal(t));
    tokens[t] = pair.access_token;
    if ((i - first) % 50 === 49) console.error(`provisioned ${i - first + 1}/${count}`);
  }
} finally {
  fs.writeFileSync(out, JSON.stringify(tokens));
  await kernel.close();
}
process.exit(0);
