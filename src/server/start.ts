import { Kernel } from '../kernel/kernel.js';
import { buildServer } from './index.js';

/** `npm start` / `fw serve`: boot, open the default tenant (creating and seeding it), listen. */
export async function startServer(opts: { beforeTenant?: Promise<void>; beforeListen?: () => Promise<void>; listening?: () => void } = {}): Promise<void> {
  const kernel = await Kernel.boot();
  const server = await buildServer(kernel);
  // fw dev's next server generates its Prisma client meanwhile: a tenant needs it
  await opts.beforeTenant;
  await kernel.tenants.get(kernel.settings.DEFAULT_TENANT);
  // fw dev's next server stops here until the one it replaces has let go of the port
  await opts.beforeListen?.();
  await server.listen({ host: kernel.settings.HOST, port: kernel.settings.PORT });
  opts.listening?.();
  const stop = async () => {
    await server.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
