/**
 * `fw/errors`: the errors an app throws and a caller gets back, each with a stable `code` and an
 * HTTP `status` (the table in docs/app-api.md). Throw these (or subclass `FwError`): anything
 * else reaches clients as 500 INTERNAL_ERROR. The server's own mapping (`toErrorBody`) is not
 * part of the app API.
 */
export {
  AccessDenied, AuthenticationFailed, AuthenticationRequired, BadRequest, BootError, Conflict, CsrfRefused, DatabaseBusy,
  DatabaseUnreachable, ExpiredTokenError, FwError, InvalidTokenError, MigrationRefused, NotAcceptable, NotFound, OrganizationNotAllowed,
  PayloadTooLarge, StaleRevision, Throttled, TokenError, UndeclaredEffect, UniqueViolation, ValidationError,
} from '../kernel/errors.js';
export type { ErrorBody } from '../kernel/errors.js';
