import type { Readable, Writable } from 'node:stream';

/** The spec's storage backend contract. */
export interface StorageCapabilities {
  directories: boolean;
  atomic_put: boolean;
  resumable_upload: boolean;
  integrity_checksum: boolean;
  native_sharing: boolean;
}

export interface ObjectReference {
  backend_key: string;
  key: string;
  /** Backend-native id (S3 ETag/version, drive file id); may be empty. */
  object_id: string;
  /** `sha256:<hex>` */
  checksum: string;
  size: number;
  mime_type: string;
}

export interface PutMetadata {
  mime_type?: string;
  /** Refuse content beyond this many bytes (StoragePayloadTooLarge), checked while streaming. */
  max_bytes?: number;
  /** Expected `sha256:<hex>`; a mismatch after write is a StorageIntegrityError. */
  checksum?: string;
}

export interface GetResult {
  readonly stream: Readable;
  size: number;
  mime_type: string;
  checksum?: string;
  /**
   * Opens the content for a sender that owns the response (the HTTP download), so that a
   * failure to open (gone, too many open files) is still an ordinary error response. The local
   * backend offers it; the others leave senders with `stream`.
   */
  open?(): Promise<OpenContent>;
}

/** Content opened for one transfer. */
export interface OpenContent {
  /**
   * Writes every byte to `out` without handing out buffers (the local backend reuses a few),
   * then releases the content; rejects with ResponseClosed when `out` closes, or `signal`
   * aborts, before the end. The caller ends `out`.
   */
  writeTo(out: Writable, signal?: AbortSignal): Promise<void>;
  /** Releases the content without sending it. */
  close(): Promise<void>;
}

export interface StorageBackend {
  readonly backend_key: string;
  readonly capabilities: StorageCapabilities;
  put(key: string, content: Readable | Buffer, metadata?: PutMetadata): Promise<ObjectReference>;
  /** `range` is inclusive, as in HTTP Range. */
  get(key: string, range?: { start: number; end: number }): Promise<GetResult>;
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  list(prefix: string, max_results?: number): Promise<ObjectReference[]>;
}
