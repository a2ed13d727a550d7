import { FwError } from '../../../kernel/errors.js';

export interface StorageContext { backend_key: string; key: string; operation: string }

/** The spec's storage error taxonomy; each carries `{backend_key, key, operation}`. */
export class StorageError extends FwError {
  constructor(readonly context: StorageContext, message: string, code = 'STORAGE_ERROR', status = 502, extra?: Record<string, unknown>) {
    super(code, status, message, { ...context, ...extra });
  }
}
export class StorageNotFoundError extends StorageError {
  constructor(c: StorageContext, m = `no object at ${c.key}`) { super(c, m, 'STORAGE_NOT_FOUND', 404); }
}
export class StorageAuthError extends StorageError {
  constructor(c: StorageContext, m = 'the storage backend refused our credentials') { super(c, m, 'STORAGE_AUTH', 502); }
}
export class StoragePermissionError extends StorageError {
  constructor(c: StorageContext, m = 'the storage backend denied the operation') { super(c, m, 'STORAGE_PERMISSION', 403); }
}
export class StorageConflictError extends StorageError {
  constructor(c: StorageContext, m = `an object already exists at ${c.key}`) { super(c, m, 'STORAGE_CONFLICT', 409); }
}
export class StorageTransientError extends StorageError {
  constructor(c: StorageContext, m = 'the storage backend is unavailable; retry') { super(c, m, 'STORAGE_TRANSIENT', 503); }
}
export class StorageNotSupportedError extends StorageError {
  constructor(c: StorageContext, m = `${c.operation} is not supported by ${c.backend_key}`) { super(c, m, 'STORAGE_NOT_SUPPORTED', 501); }
}
export class StorageIntegrityError extends StorageError {
  constructor(c: StorageContext, m = 'checksum mismatch after write') { super(c, m, 'STORAGE_INTEGRITY', 502); }
}
/** Invalid keys are the caller's fault: 400. */
export class StorageKeyError extends StorageError {
  constructor(c: StorageContext, m: string) { super(c, m, 'INVALID_STORAGE_KEY', 400); }
}
export class StoragePayloadTooLarge extends StorageError {
  constructor(c: StorageContext, limit: number) { super(c, `content exceeds ${limit} bytes`, 'PAYLOAD_TOO_LARGE', 413, { limit }); }
}

/**
 * A transfer's receiving side went away (the client disconnected) before the last byte. Routine,
 * not a storage fault: never sent to anyone, only logged at debug level by the sender.
 */
export class ResponseClosed extends Error {
  constructor() {
    super('the response closed before the content was sent');
    this.name = 'ResponseClosed';
  }
}
