import type { AppManifest } from '../../kernel/app.js';

const manifest: AppManifest = {
  name: 'ai',
  summary: 'AI capability layer: commands as LLM tools, conversations, confirmed writes, budgets, guards, MCP',
  description: 'Tools declared on command handlers (read-only proven at boot), prompt templates and skill packs, conversations through an OpenAI-compatible provider, server-held write confirmations with provenance and undo, reservation budgets, PII/injection/output guards and an MCP server. Loaded only with AI_ENABLED.',
  author: 'fw',
  category: 'Foundation',
  version: '1.0.0',
  depends: ['base', 'auth', 'connectors'],
  data: [],
};
export default manifest;
