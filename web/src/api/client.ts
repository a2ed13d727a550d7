import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
import { graphql } from '../gql/index.ts';
import { readTokens, refreshOnce, tokensFrom, writeTokens, type Tokens } from '../auth/session.ts';
import { ApiError, NETWORK_ERROR, TOKEN_CODES, fromResponse } from './errors.ts';

/**
 * The one door to the server: POST /graphql with the session's bearer token. An expired or
 * rejected access token is refreshed once (shared by every caller and tab) and the request sent
 * again; a failed refresh ends the session. Errors come back as ApiError with the server's code.
 */
type Doc<R, V> = DocumentTypeDecoration<R, V> | string;

interface GqlError { message: string; extensions?: { code?: string; details?: Record<string, unknown> } }

const RefreshDocument = graphql(`
  mutation Refresh($refresh_token: String!, $retry_key: String) {
    refresh(refresh_token: $refresh_token, retry_key: $retry_key) { access_token refresh_token expires_in }
  }
`);

/** Refresh a little before the access token expires, so a request rarely meets a 401. */
const EARLY_MS = 20_000;

export async function request<R, V extends Record<string, unknown> = Record<string, never>>(doc: Doc<R, V>, variables?: V): Promise<R> {
  let tokens = readTokens();
  if (tokens && tokens.expires_at - Date.now() < EARLY_MS) tokens = await refresh(tokens);
  try {
    return await send(doc, variables, tokens);
  } catch (err) {
    if (!(err instanceof ApiError) || !tokens || !TOKEN_CODES.has(err.code)) throw err;
    const next = await refresh(tokens);
    if (!next) throw err;
    return send(doc, variables, next);
  }
}

/** A valid access token for a transport that is not this one (graphql-ws, downloads, uploads). */
export async function accessToken(): Promise<string | null> {
  let tokens = readTokens();
  if (tokens && tokens.expires_at - Date.now() < EARLY_MS) tokens = await refresh(tokens);
  return tokens?.access_token ?? null;
}

function refresh(tokens: Tokens): Promise<Tokens | null> {
  return refreshOnce(tokens.refresh_token, async (refresh_token, retry_key) => {
    try {
      const r = await send(RefreshDocument, { refresh_token, retry_key }, null);
      return r.refresh ? tokensFrom(r.refresh) : null;
    } catch (err) {
      if (err instanceof ApiError && err.code === NETWORK_ERROR) throw err; // keep the session offline
      return null; // refused: the session is over (writeTokens(null) signs every tab out)
    }
  }).catch(() => tokens);
}

async function send<R, V>(doc: Doc<R, V>, variables: V | undefined, tokens: Tokens | null): Promise<R> {
  let res: Response;
  try {
    res = await fetch('/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        ...(tokens ? { authorization: `Bearer ${tokens.access_token}` } : {}),
      },
      body: JSON.stringify({ query: String(doc), variables }),
    });
  } catch (err) {
    throw new ApiError(NETWORK_ERROR, String(err), 0);
  }
  const type = res.headers.get('content-type') ?? '';
  if (!type.includes('json')) throw await fromResponse(res);
  const body = (await res.json()) as { data?: R; errors?: GqlError[]; error?: { code: string; message: string; details?: Record<string, unknown> } };
  if (body.error) throw new ApiError(body.error.code, body.error.message, res.status, body.error.details);
  if (body.errors?.length) {
    const e = body.errors[0];
    throw new ApiError(e.extensions?.code ?? (res.status >= 500 ? 'INTERNAL_ERROR' : 'GRAPHQL_ERROR'), e.message, res.status, e.extensions?.details);
  }
  return body.data as R;
}

/** Sign-out everywhere in this browser: the tokens go, every tab's session listener reacts. */
export function endSession(): void {
  writeTokens(null);
}
