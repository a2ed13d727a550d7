import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { checkTenantKey } from '../../../kernel/db/tenants.js';
import type { Principal } from '../../../kernel/env.js';
import { FwError } from '../../../kernel/errors.js';
import { Kernel } from '../../../kernel/kernel.js';
import type { Settings } from '../../../kernel/settings.js';
import { authenticatorOf } from '../../../server/authenticate.js';
import { aiSettings } from '../settings.js';
import { createMcpServer } from './server.js';

/** A refusal of `fw mcp` before it serves anything (printed as `code: message`, exit 1). */
export class McpRefused extends FwError {
  constructor(message: string) { super('MCP_REFUSED', 401, message); }
}

/**
 * Everything but the MCP messages goes to stderr: stdout is the protocol channel, and one stray
 * line there breaks the client. Done before the kernel boots, so app code logging with
 * console.log/info/debug cannot reach stdout either.
 */
function keepStdoutForMcp(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.warn = toStderr;
}

export interface StdioOptions {
  settings: Settings;
  tenant: string;
  token: string | undefined;
}

/**
 * `fw mcp --tenant <t> --token <access token>`: the read-only MCP server over stdio, as the user
 * of the token. The token is checked by the same authenticator as HTTP bearer tokens, before
 * anything is served and again on every MCP request (an ended session or an expired token
 * stops working, as it does over HTTP). Resolves once serving; the process lives until stdin
 * closes or a signal arrives.
 */
export async function serveMcpStdio(opts: StdioOptions): Promise<void> {
  keepStdoutForMcp();
  const { settings } = opts;
  const token = opts.token || process.env.FW_MCP_TOKEN || '';
  if (!aiSettings(settings).AI_ENABLED && !settings.ACTIVE_MODULES.includes('ai')) {
    throw new McpRefused('the AI layer is off: set AI_ENABLED=true to serve MCP');
  }
  if (!token) throw new McpRefused('an access token is required: --token <access token> or FW_MCP_TOKEN');
  const tenant = checkTenantKey(opts.tenant);

  const kernel = await Kernel.boot({ settings, worker: false, log: (level, msg, extra) => console.error(`[fw] ${level}: ${msg}`, extra ?? '') });
  let principal: () => Promise<Principal>;
  try {
    if (!kernel.registry.apps.some((a) => a.name === 'ai')) throw new McpRefused('the AI layer is not loaded: set AI_ENABLED=true to serve MCP');
    if (!(await kernel.tenants.exists(tenant))) throw new McpRefused(`tenant "${tenant}" does not exist`);
    const auth = authenticatorOf(kernel);
    if (!auth) throw new McpRefused('no authentication app is active, so the token cannot be checked');
    principal = async () => {
      const p = await auth.authenticate(token);
      if (p.tenant_id !== tenant) throw new McpRefused(`the token belongs to another tenant, not "${tenant}"`);
      return p;
    };
    try {
      await principal();
    } catch (err) {
      throw err instanceof McpRefused ? err : new McpRefused(`the token was refused: ${err instanceof FwError ? `${err.code}: ${err.message}` : 'invalid token'}`);
    }
  } catch (err) {
    await kernel.close();
    throw err;
  }

  const server = createMcpServer(kernel, principal);
  const transport = new StdioServerTransport();
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    try {
      await server.close();
      await kernel.close();
    } finally {
      process.exit(code);
    }
  };
  server.onerror = (err) => kernel.log('error', 'MCP stdio error', { err: err.message });
  process.stdin.once('end', () => void stop(0));
  process.once('SIGINT', () => void stop(0));
  process.once('SIGTERM', () => void stop(0));
  await server.connect(transport);
  console.error(`[fw] MCP server on stdio: tenant ${tenant}, read-only tools`);
}
