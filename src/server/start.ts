import { Kernel } from '../kernel/kernel.js';
import { buildServer } from './index.js';

/** `npm start` / `fw serve`: boot, open the default tenant (creating and seeding it), listen. */
export async function startServer(): Promise<void> {
  const kernel = await Kernel.boot();
  const server = await buildServer(kernel);
  await kernel.tenants.get(kernel.settings.DEFAULT_TENANT);
  await server.listen({ host: kernel.settings.HOST, port: kernel.settings.PORT });
  const stop = async () => {
    await server.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
