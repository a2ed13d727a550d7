import crypto from 'node:crypto';

/**
 * Names this server process under `fw dev`. Live connections (graphql-ws's acknowledgement, the
 * event stream's ids) carry it, so a browser tab that reconnects and finds another name knows the
 * server was replaced, and reloads into the new views and code.
 */
export const DEV_INSTANCE = `fw-dev-${crypto.randomUUID()}`;
