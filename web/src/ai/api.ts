import { request } from '../api/client.ts';
import { graphql } from '../gql/index.ts';
import type { AiConversationEventsSubscription, AiSendMessageMutation } from '../gql/graphql.ts';

/**
 * The assistant's typed operations. They exist in the schema only with AI_ENABLED, so nothing
 * here is sent unless the bootstrap lists the `ai.conversation` model (AssistantButton).
 */
export const ConversationsDocument = graphql(`
  query AiConversations($user: ID!) {
    aiConversations(where: { user_id: { eq: $user } }, orderBy: [{ updated_at_utc: desc }], limit: 100) {
      id title status updated_at_utc input_tokens output_tokens usd skill_pack_id { id key name }
    }
  }
`);

/** The latest messages of a conversation (newest first; the thread reverses them). */
export const MessagesDocument = graphql(`
  query AiMessages($id: ID!) {
    aiMessages(where: { conversation_id: { eq: $id } }, orderBy: [{ sequence: desc }], limit: 300) {
      id sequence role content tool_calls tool_call_id tool_name flags
    }
  }
`);

export const SkillPacksDocument = graphql(`
  query AiSkillPacks { aiSkillPacks(where: { is_active: { eq: true } }, limit: 100) { id key name description } }
`);

export const StartDocument = graphql(`
  mutation AiStart($skill_pack: String, $title: String) {
    aiConversationStart(skill_pack: $skill_pack, title: $title) {
      id title status updated_at_utc input_tokens output_tokens usd skill_pack_id { id key name }
    }
  }
`);

export const SendDocument = graphql(`
  mutation AiSendMessage($id: ID!, $content: String!) {
    aiConversationSendMessage(id: $id, content: $content) {
      conversation_id
      messages { id sequence role content tool_calls tool_call_id tool_name flags }
      answer stopped
      usage { input_tokens output_tokens usd calls }
      pending_confirmations { proposal_id token expires_at tool operation model record_id record_name summary changes { field before after requested } }
    }
  }
`);

export const ConfirmDocument = graphql(`
  mutation AiConfirm($id: ID!, $token: String!) {
    aiConversationConfirm(id: $id, token: $token) { status provenance_id operation record }
  }
`);

export const UndoDocument = graphql(`
  mutation AiUndo($id: ID!, $provenance_id: ID!) {
    aiConversationUndo(id: $id, provenance_id: $provenance_id) { status provenance_id operation }
  }
`);

export const CancelDocument = graphql(`
  mutation AiCancel($id: ID!) { aiConversationCancel(id: $id) { status } }
`);

export const CloseDocument = graphql(`
  mutation AiClose($id: ID!) { aiConversationClose(id: $id) { id status } }
`);

export const EventsDocument = graphql(`
  subscription AiConversationEvents($id: ID!) {
    aiConversationEvents(id: $id) {
      __typename type
      ... on AiTokenEvent { delta }
      ... on AiToolResultEvent { call_id ok code }
      ... on AiMessageEvent { message { id sequence role content tool_calls tool_call_id tool_name flags } }
    }
  }
`);

export type AiTurn = NonNullable<AiSendMessageMutation['aiConversationSendMessage']>;
/** A stored message, as listed, returned by a turn, or streamed in a `message` event. */
export type AiMessage = AiTurn['messages'][number];
export type PendingConfirmation = AiTurn['pending_confirmations'][number];

export const aiKeys = {
  conversations: ['ai', 'conversations'] as const,
  messages: (id: string) => ['ai', 'messages', id] as const,
  packs: ['ai', 'packs'] as const,
};

/** A conversation's messages, oldest first. */
export const messagesQuery = (id: string) => ({
  queryKey: aiKeys.messages(id),
  queryFn: async (): Promise<AiMessage[]> => (await request(MessagesDocument, { id })).aiMessages.slice().reverse(),
  staleTime: 60_000,
});

/** An event of `aiConversationEvents`, told apart by `__typename` (the schema's member types). */
export type AiEvent = AiConversationEventsSubscription['aiConversationEvents'];
