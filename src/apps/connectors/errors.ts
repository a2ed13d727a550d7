import { FwError } from '../../kernel/errors.js';

/**
 * The spec's connector error taxonomy. Every class has a stable `code` and an HTTP status, so
 * REST and GraphQL map them like every other FwError.
 */
export class ConnectorError extends FwError {
  constructor(message: string, details?: Record<string, unknown>, code = 'CONNECTOR_ERROR', status = 502) {
    super(code, status, message, details);
  }
}

/** The (category, provider_type) pair is not registered. */
export class ConnectorNotFoundError extends ConnectorError {
  constructor(category: string, provider_type: string, message = `no ${category} connector provider "${provider_type}" is registered`) {
    super(message, { category, provider_type }, 'CONNECTOR_PROVIDER_NOT_FOUND', 404);
  }
}

/** Missing or invalid configuration (required keys, bad values, undecryptable secrets). */
export class ConnectorConfigError extends ConnectorError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, details, 'CONNECTOR_CONFIG_INVALID', 422);
  }
}

/**
 * The address a connector would connect to is loopback, private, link-local or reserved, and the
 * operator has not listed its network (services/network.ts).
 */
export class AddressNotAllowedError extends ConnectorError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, details, 'CONNECTOR_ADDRESS_NOT_ALLOWED', 403);
  }
}

/**
 * A local storage connector's folder is outside STORAGE_LOCAL_ROOT and the folders the operator
 * lists in CONNECTOR_LOCAL_ROOTS (services/folders.ts).
 */
export class FolderNotAllowedError extends ConnectorError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, details, 'CONNECTOR_FOLDER_NOT_ALLOWED', 403);
  }
}

/** Network or authentication failure while talking to the external service. */
export class ConnectionFailedError extends ConnectorError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, details, 'CONNECTION_FAILED', 502);
  }
}

/**
 * The provider does not offer this operation (OAuth on a provider without it, a backend of a
 * non-storage provider): the request does not fit this connector, a client error (409), not a
 * server failure.
 */
export class ConnectorNotSupportedError extends ConnectorError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, details, 'CONNECTOR_NOT_SUPPORTED', 409);
  }
}

/** `ir.connector.activate` on a connector whose last test did not succeed. */
export class ConnectorNotConnectedError extends ConnectorError {
  constructor(id: string, status: string) {
    super(`connector ${id} is "${status}"; run a successful connection test before activating it`, { id, status }, 'CONNECTOR_NOT_CONNECTED', 409);
  }
}

/**
 * OAuth callback state refusals: missing or not shaped like a state (400 OAUTH_STATE_MALFORMED),
 * unknown (401 OAUTH_STATE_INVALID), already used (401 OAUTH_STATE_REPLAYED), past its lifetime
 * (400 OAUTH_STATE_EXPIRED). One code, one status.
 */
export class OAuthStateError extends ConnectorError {
  constructor(code: 'OAUTH_STATE_MALFORMED' | 'OAUTH_STATE_INVALID' | 'OAUTH_STATE_REPLAYED' | 'OAUTH_STATE_EXPIRED', message: string, status: 400 | 401) {
    super(message, undefined, code, status);
  }
}
