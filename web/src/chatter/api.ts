import { graphql } from '../gql/index.ts';
import type { ChatterMessagesQuery } from '../gql/graphql.ts';

/** The messages of one record, newest first (ir.message, the base app's chatter). */
export const MessagesDocument = graphql(`
  query ChatterMessages($model: String!, $id: ID!) {
    irMessages(where: { res_model: { eq: $model }, res_id: { eq: $id } }, orderBy: [{ created_at_utc: desc }, { dbid: desc }], limit: 100) {
      id subject body message_type author_name link created_at_utc
    }
  }
`);

export const PostDocument = graphql(`
  mutation ChatterPost($model: String!, $id: ID!, $body: String!, $subject: String, $link: String) {
    irMessagePost(res_model: $model, res_id: $id, body: $body, subject: $subject, link: $link) { id }
  }
`);

export type ChatterMessage = ChatterMessagesQuery['irMessages'][number];

/**
 * Under `records` / `ir.message`: the live bridge refetches it whenever a message is posted
 * anywhere (it watches every model a view has queried), and after a reconnection.
 */
export const chatterKey = (model: string, id: string) => ['records', 'ir.message', 'chatter', model, id] as const;
