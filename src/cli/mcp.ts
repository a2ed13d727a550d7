import type { Command } from 'commander';
import { keepsRunning, settings, tenantOption } from './common.js';

export function registerMcp(program: Command): void {
  const cmd = program.command('mcp')
    .description("serve the caller's read-only AI tools over MCP on stdio (AI_ENABLED=true)")
    .addOption(tenantOption())
    .option('--token <token>', 'access token of the caller (default: FW_MCP_TOKEN)')
    .action(async (opts: { tenant?: string; token?: string }) => {
      // stdout carries the MCP messages only; every log goes to stderr
      const { serveMcpStdio } = await import('../apps/ai/mcp/stdio.js');
      const s = await settings();
      await serveMcpStdio({ settings: s, tenant: opts.tenant ?? s.DEFAULT_TENANT, token: opts.token });
    });
  // serves until stdin closes
  keepsRunning.add(cmd);
}
