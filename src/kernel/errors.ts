/**
 * Every error we raise on purpose is an FwError with a stable `code` and an HTTP status.
 * REST and GraphQL map errors here and only here (`toErrorBody`); anything else is masked as
 * INTERNAL_ERROR so stack traces and driver messages never reach clients.
 */
export class FwError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details?: Record<string, unknown>;

  constructor(code: string, status: number, message: string, details?: Record<string, unknown>) {
    // A refusal (4xx) is an answer, not a bug: its stack is never looked at, and formatting one
    // costs about 0.1 ms with source maps on (tsx), paid whenever GraphQL wraps the error (it
    // copies `stack`): an anonymous document of 39 root fields answers 39 refusals. So a 4xx
    // captures no frames (its stack is its first line); 5xx keep theirs.
    const frames = Error.stackTraceLimit;
    if (status < 500) Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = frames;
    }
    this.name = new.target.name;
    this.code = code;
    this.status = status;
    this.details = details;
  }
}

/**
 * The same error about one item of a list the caller sent (`fw.create_many`'s values): its message
 * starts with the item (`values[2]: …`) and `details.index` is its position, so a caller of a batch
 * knows which one to fix. Same class, code and status.
 */
export function aboutItem<E extends FwError>(err: E, list: string, index: number): E {
  const copy = Object.assign(Object.create(Object.getPrototypeOf(err) as object) as E, err);
  Object.defineProperty(copy, 'message', { value: `${list}[${index}]: ${err.message}`, writable: true, configurable: true });
  Object.defineProperty(copy, 'details', { value: { ...err.details, index }, enumerable: true });
  copy.stack = `${copy.name}: ${copy.message}`;
  return copy;
}

export class BadRequest extends FwError {
  constructor(message: string, details?: Record<string, unknown>, code = 'BAD_REQUEST') {
    super(code, 400, message, details);
  }
}

export class ValidationError extends FwError {
  constructor(message: string, details?: Record<string, unknown>, code = 'VALIDATION_FAILED') {
    super(code, 422, message, details);
  }
}

export class NotFound extends FwError {
  constructor(message: string, details?: Record<string, unknown>, code = 'NOT_FOUND') {
    super(code, 404, message, details);
  }
}

export class Conflict extends FwError {
  constructor(message: string, details?: Record<string, unknown>, code = 'CONFLICT') {
    super(code, 409, message, details);
  }
}

export class StaleRevision extends Conflict {
  constructor(model: string, id: string, expected: number, actual: number | null) {
    super(`${model} ${id} was changed by someone else (${actual === null ? 'concurrently' : `now at revision ${actual}`}; you had revision ${expected})`,
      { model, id, expected, actual }, 'STALE_REVISION');
  }
}

export class UniqueViolation extends Conflict {
  constructor(model: string, fields: string[]) {
    // a driver may report the clash without naming the columns
    const what = fields.length ? `the same ${fields.join(', ')}` : 'the same unique values';
    super(`${model}: a record with ${what} already exists`, { model, fields }, 'UNIQUE_VIOLATION');
  }
}

export class AuthenticationRequired extends FwError {
  constructor(message = 'Authentication required', code = 'UNAUTHENTICATED') {
    super(code, 401, message);
  }
}

export class AuthenticationFailed extends FwError {
  constructor(message = 'Invalid email or password') {
    super('AUTHENTICATION_FAILED', 401, message);
  }
}

export class TokenError extends FwError {
  constructor(code: string, message: string) {
    super(code, 401, message);
  }
}

export class ExpiredTokenError extends TokenError {
  constructor(message = 'Token expired') {
    super('TOKEN_EXPIRED', message);
  }
}

export class InvalidTokenError extends TokenError {
  constructor(message = 'Invalid token') {
    super('TOKEN_INVALID', message);
  }
}

export class AccessDenied extends FwError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('ACCESS_DENIED', 403, message, details);
  }
}

/**
 * A request naming an organization (`X-Fw-Organization`) the user does not belong to, or one that
 * does not exist: one answer for both.
 */
export class OrganizationNotAllowed extends FwError {
  constructor(asked: string) {
    super('ORGANIZATION_NOT_ALLOWED', 403, `you do not belong to the organization "${asked.slice(0, 100)}"`, { organization: asked.slice(0, 100) });
  }
}

/**
 * A request a page of another site could have sent without the browser asking first (a "simple"
 * cross-origin POST: form or text body, no custom header), refused before it runs.
 */
export class CsrfRefused extends FwError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('CSRF_HEADER_REQUIRED', 403, message, details);
  }
}

export class PayloadTooLarge extends FwError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('PAYLOAD_TOO_LARGE', 413, message, details);
  }
}

/** The request's `Accept` names no type the endpoint can answer with; refused before anything runs. */
export class NotAcceptable extends FwError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('NOT_ACCEPTABLE', 406, message, details);
  }
}

export class Throttled extends FwError {
  constructor(message: string, readonly retryAfterSeconds: number) {
    super('THROTTLED', 429, message, { retry_after_seconds: retryAfterSeconds });
  }
}

/**
 * The database cannot take another connection right now: this process's connection budget
 * (PG_MAX_CONNECTIONS_PER_PROCESS) stayed full for PG_CONNECTION_WAIT_MS, or PostgreSQL itself
 * refused one (SQLSTATE 53300, "too many clients already"). A 503 with Retry-After: the client
 * tries again; nothing ran.
 */
export class DatabaseBusy extends FwError {
  constructor(message: string, readonly retryAfterSeconds: number, details?: Record<string, unknown>) {
    super('DATABASE_BUSY', 503, message, { retry_after_seconds: retryAfterSeconds, ...details });
  }
}

/** PostgreSQL's refusals of a new connection: too many clients (53300), slots reserved for superusers. */
const PG_FULL = /too many clients already|remaining connection slots are reserved|too many connections for (role|database)/i;

/**
 * DatabaseBusy for a driver error that says the server is out of connections, however deep a
 * driver or Prisma wrapped it (`cause`, Prisma's `meta.driverAdapterError`); null otherwise.
 */
export function databaseBusy(err: unknown): DatabaseBusy | null {
  let e: unknown = err;
  for (let depth = 0; e && typeof e === 'object' && depth < 6; depth++) {
    if (e instanceof DatabaseBusy) return e;
    const o = e as { code?: unknown; kind?: unknown; message?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } };
    if (o.code === '53300' || o.kind === 'TooManyConnections' || (typeof o.message === 'string' && PG_FULL.test(o.message))) {
      return new DatabaseBusy('the database has no free connection; try again shortly', 1, { reason: 'server_full' });
    }
    e = o.meta?.driverAdapterError ?? o.cause;
  }
  return null;
}

/** The thrown value as one of our errors: itself, or a recognised driver error (databaseBusy); else null. */
export function asFwError(err: unknown): FwError | null {
  return err instanceof FwError ? err : databaseBusy(err);
}

/**
 * Stored migrations that cannot be applied as they are: one already applied and changed since
 * (`MIGRATION_CHANGED`: write a new one instead), or the store itself broken (`MIGRATION_CORRUPT`,
 * `MIGRATION_DUPLICATE`). The operator's to fix, never a client's input: a 500 with its own code.
 */
export class MigrationRefused extends FwError {
  constructor(message: string, details: Record<string, unknown>, code: 'MIGRATION_CHANGED' | 'MIGRATION_CORRUPT' | 'MIGRATION_DUPLICATE') {
    super(code, 500, message, details);
  }
}

/**
 * PostgreSQL cannot be reached or refuses the login: a setting or an outage for the operator, said
 * with the server's address (its password hidden) and the setting it comes from.
 */
export class DatabaseUnreachable extends FwError {
  constructor(url: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super('DATABASE_UNREACHABLE', 503, `cannot connect to PostgreSQL at ${urlShown(url)} (from DATABASE_URL): ${reason}; start it, or correct DATABASE_URL`, { url: urlShown(url) });
  }
}

/** A connection URL as messages show it: a password in it is never printed. */
export function urlShown(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'an unreadable URL';
  }
}

/** A declaration, manifest or module configuration that cannot boot. Raised at start-up only. */
export class BootError extends FwError {
  constructor(message: string, details?: Record<string, unknown>, code = 'BOOT_ERROR') {
    super(code, 500, message, details);
  }
}

export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

/** The single mapping from a thrown value to what a client sees. */
export function toErrorBody(thrown: unknown): { status: number; body: ErrorBody } {
  const err = asFwError(thrown);
  if (err) {
    const body: ErrorBody = { error: { code: err.code, message: err.message } };
    if (err.details) body.error.details = err.details;
    return { status: err.status, body };
  }
  return { status: 500, body: { error: { code: 'INTERNAL_ERROR', message: 'Internal server error' } } };
}

/**
 * A handler did something its command's declared `effects` do not list. A programming error,
 * answered as a 500 with its own code so it is never mistaken for bad input; the work is rolled
 * back with the command.
 */
export class UndeclaredEffect extends FwError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('UNDECLARED_EFFECT', 500, message, details);
  }
}
