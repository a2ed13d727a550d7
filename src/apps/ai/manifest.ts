import type { AppManifest } from '../../kernel/app.js';

const manifest: AppManifest = {
  name: 'ai',
  summary: 'AI capability layer: commands as LLM tools, conversations, confirmed writes, budgets, guards, MCP',
  description: 'Tools declared on command handlers (read-only proven at boot), prompt templates and skill packs, conversations through an OpenAI-compatible provider, server-held write confirmations with provenance and undo, reservation budgets, PII/injection/output guards and an MCP server. Loaded only with AI_ENABLED.',
  author: 'fw',
  category: 'Foundation',
  // 1.1.0: the administration screens (views and menus under Settings › AI assistant)
  version: '1.1.0',
  depends: ['base', 'auth', 'connectors'],
  data: [
    'data/menus.json',
    'i18n/fr.json',
    'views/ai_provider_config_list.xml',
    'views/ai_provider_config_form.xml',
    'views/ai_provider_routing_list.xml',
    'views/ai_provider_routing_form.xml',
    'views/ai_user_quota_list.xml',
    'views/ai_user_quota_form.xml',
    'views/ai_skill_pack_list.xml',
    'views/ai_skill_pack_form.xml',
    'views/ai_prompt_template_list.xml',
    'views/ai_prompt_template_form.xml',
    'views/ai_usage_log_list.xml',
    'views/ai_write_provenance_list.xml',
    'views/ai_write_provenance_form.xml',
  ],
};
export default manifest;
