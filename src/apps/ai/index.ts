import { defineApp } from '../../kernel/app.js';
import { reserveCommand, settleCommand } from './budget.js';
import { aiCommands } from './commands.js';
import { bindKernel } from './context.js';
import { invocationHooks } from './invocation-hooks.js';
import manifest from './manifest.js';
import { AiConversationEvent } from './outputs.js';
import { providerConfigHooks, resolveProviderCommand } from './providers.js';
import { aiRoutes } from './routes.js';
import { seedAi } from './seed.js';
import { skillPackHooks } from './skill-packs.js';
import { checkAiSettings } from './settings.js';
import { callToolCommand } from './tools/call.js';
import { carrierCommands } from './tools/carriers.js';
import { bindToolsCommand } from './tools/catalogue.js';
import { recordTools } from './tools/records.js';
import { conversationTopic } from './turn.js';

/**
 * The AI capability layer. Loaded only with AI_ENABLED (src/features/ai.ts). Tools are declared
 * on command handlers in any app (`tool` on a CommandDecl); `deriveCommands` turns each into its
 * carrier `ai.tool.<name>` and proves the read-only ones at boot.
 */
export const app = defineApp({
  manifest,
  commands: [...aiCommands, ...recordTools, bindToolsCommand, callToolCommand, reserveCommand, settleCommand, resolveProviderCommand],
  hooks: [...invocationHooks, ...providerConfigHooks, ...skillPackHooks],
  // run by the app itself: each provider call (turn.ts), each tool call (tools/call.ts), each
  // tool binding per tenant (tools/catalogue.ts, a veto leaves the tool unbound)
  hookPoints: ['pre.ai.invocation', 'post.ai.invocation', 'pre.ai.tool_call', 'post.ai.tool_call', 'pre.ir.tool.registry.bind'],
  deriveCommands: carrierCommands,
  subscriptions: [{
    name: 'aiConversationEvents',
    description: "A conversation's turn as it happens: tokens, tool calls and results, messages, then done",
    output: AiConversationEvent,
    args: { id: { required: true, id: true, description: 'Conversation id' } },
    // only someone who may read the conversation (its owner, or an admin) listens to it
    topic: async ({ kernel, principal, args }) => {
      const conv = await kernel.dispatch<{ id: string }>('fw.read_one', { model: 'ai.conversation', id: args.id }, principal);
      return conversationTopic(conv.id);
    },
  }],
  seed: seedAi,
  routes: aiRoutes,
  boot: (kernel) => {
    checkAiSettings(kernel.settings);
    bindKernel(kernel);
  },
});
