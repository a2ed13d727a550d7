import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
import { authCall, readTokens, refreshOnce, tokensFrom, writeTokens, type Tokens } from '../auth/session.ts';
import { ApiError, NETWORK_ERROR, TOKEN_CODES, fromResponse } from './errors.ts';
import { currentOrganization, organizationHeaders } from './organization.ts';

/**
 * The one door to the server: POST /graphql with this tab's bearer token. A missing, expired or
 * rejected access token is refreshed once (shared by every caller and tab, through the refresh
 * cookie: ../auth/session.ts) and the request sent again; a refused refresh ends the session.
 * Errors come back as ApiError with the server's code.
 */
type Doc<R, V> = DocumentTypeDecoration<R, V> | string;

interface GqlError { message: string; extensions?: { code?: string; details?: Record<string, unknown> } }

/** Refresh a little before the access token expires, so a request rarely meets a 401. */
const EARLY_MS = 20_000;

export async function request<R, V extends Record<string, unknown> = Record<string, never>>(doc: Doc<R, V>, variables?: V): Promise<R> {
  let tokens = readTokens();
  if (tokens && tokens.expires_at - Date.now() < EARLY_MS) tokens = await refresh(tokens);
  try {
    return await send(doc, variables, tokens);
  } catch (err) {
    // the URL names a workspace the user does not (or no longer) belong to: their default one
    if (err instanceof ApiError && err.code === 'ORGANIZATION_NOT_ALLOWED' && currentOrganization()) location.replace('/');
    if (!(err instanceof ApiError) || !tokens || !TOKEN_CODES.has(err.code)) throw err;
    const next = await refresh(tokens);
    if (!next) throw err;
    return send(doc, variables, next);
  }
}

/**
 * Whether this tab is signed in: its access token, or one from the refresh cookie (a new tab, a
 * reload). Offline with no token in memory counts as signed out.
 */
export async function ensureSession(): Promise<boolean> {
  // a refresh cut off on its way back (its page was unloaded, a connection reset) is sent again:
  // the cookie still holds the old token and its retry key, so the server repeats the rotation
  for (let attempt = 0; ; attempt++) {
    if (readTokens()) return true;
    try {
      return !!(await refreshOnce(null, EARLY_MS));
    } catch (err) {
      if (attempt >= 2) return false;
      await new Promise((r) => setTimeout(r, 250 * (attempt + 1)));
    }
  }
}

/** A valid access token for a transport that is not this one (graphql-ws, downloads, uploads). */
export async function accessToken(): Promise<string | null> {
  let tokens = readTokens();
  if (!tokens || tokens.expires_at - Date.now() < EARLY_MS) tokens = await refresh(tokens);
  return tokens?.access_token ?? null;
}

function refresh(tokens: Tokens | null): Promise<Tokens | null> {
  // offline: keep the session (and the token we had) rather than sign out
  return refreshOnce(tokens?.access_token ?? null, EARLY_MS).catch(() => tokens);
}

/** Signs in (the refresh cookie is set by the answer); ApiError on refusal. */
export async function login(email: string, password: string): Promise<void> {
  try {
    const r = await authCall<{ access_token: string; expires_in: number }>('login', { email, password });
    writeTokens(tokensFrom(r));
  } catch (err) {
    throw toApiError(err);
  }
}

/** Ends the session on the server (the cookie is cleared) and in every tab of this browser. */
export async function logout(): Promise<void> {
  const token = await accessToken().catch(() => null);
  if (token) await authCall('logout', {}, token).catch(() => { /* the session ends here either way */ });
  writeTokens(null, 'signed_out'); // every tab, this one included, reloads at /login (main.tsx), saying so without alarm
}

const toApiError = (err: unknown): unknown => {
  const e = err as { status?: number; code?: string; message?: string };
  return typeof e?.status === 'number' && typeof e.code === 'string' ? new ApiError(e.status === 0 ? NETWORK_ERROR : e.code, e.message ?? '', e.status) : err;
};

async function send<R, V>(doc: Doc<R, V>, variables: V | undefined, tokens: Tokens | null): Promise<R> {
  let res: Response;
  try {
    res = await fetch('/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        ...(tokens ? { authorization: `Bearer ${tokens.access_token}` } : {}),
        ...organizationHeaders(),
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

