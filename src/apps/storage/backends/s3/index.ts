import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import crypto from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import {
  StorageAuthError,
  StorageConflictError,
  StorageError,
  StorageIntegrityError,
  StorageKeyError,
  StorageNotFoundError,
  StoragePayloadTooLarge,
  StoragePermissionError,
  StorageTransientError,
  type StorageContext,
} from '../errors.js';
import { checkKey, checkPrefix } from '../keys.js';
import type { GetResult, ObjectReference, PutMetadata, StorageBackend } from '../types.js';

/**
 * The AWS SDK (a large import) is loaded when the first S3 backend is created, not with this
 * module: every boot imports it through the S3 connector provider, few configure S3.
 */
let sdk: typeof import('@aws-sdk/client-s3') | undefined;
const loadSdk = async () => (sdk ??= await import('@aws-sdk/client-s3'));

export interface S3BackendOptions {
  backend_key?: string;
  bucket: string;
  region?: string;
  /** S3-compatible endpoint (`http://127.0.0.1:4568`); empty = AWS. */
  endpoint?: string;
  access_key_id: string;
  secret_access_key: string;
  /** Path-style URLs (`endpoint/bucket/key`), needed by most S3-compatible servers. */
  force_path_style?: boolean;
  /** Every key is stored under this prefix (`tenant-a/`); listings strip it again. */
  prefix?: string;
  /**
   * Where the endpoint may be (a connector's: only where the deployment lets connectors go):
   * `checkHost` refuses an IP-literal host before anything is sent, `lookup` resolves names.
   */
  network?: { lookup: LookupFunction; checkHost(host: string): void };
}

/** What the S3 backend offers beyond the contract: the bucket check used by connection tests. */
export interface S3Backend extends StorageBackend {
  readonly bucket: string;
  /** HeadBucket: resolves when the bucket exists and the credentials may use it. */
  checkBucket(): Promise<void>;
  /** Closes the client's sockets. */
  destroy(): void;
}

/**
 * Parts of a multipart upload. 5 MiB is S3's minimum part size; at most PART_SIZE × QUEUE_SIZE
 * bytes are buffered per upload, so memory stays flat whatever the object size (the last part
 * of an upload is allowed to be smaller; 10 000 parts × 5 MiB bound a single object to ~48 GiB).
 */
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;
const SHA_META = 'sha256';
const MAX_LIST = 1000;

/**
 * The S3-compatible backend. Puts stream through `@aws-sdk/lib-storage` `Upload` (one PutObject
 * below PART_SIZE, a multipart upload above it) behind a transform that hashes and counts the
 * bytes: once `max_bytes` is passed, or when the expected checksum does not match at the end,
 * the transform fails *before* the body ends, so the upload is never completed (no PutObject,
 * no CompleteMultipartUpload) and nothing becomes visible under the key. Objects are atomic
 * (S3 never shows half an object), hence `atomic_put`; multipart uploads are `resumable_upload`.
 */
export function createS3Backend(opts: S3BackendOptions): S3Backend {
  if (!opts.bucket) throw new TypeError('createS3Backend: bucket is required');
  const backend_key = opts.backend_key ?? 's3';
  const bucket = opts.bucket;
  const prefix = normalisePrefix(opts.prefix ?? '', backend_key);
  const { network, endpoint } = opts;
  // an IP-literal endpoint is never looked up: refused here, on first use, where the deployment says so
  const checked = network && endpoint ? Promise.resolve(endpoint).then((e) => network.checkHost(new URL(e).hostname)) : Promise.resolve();
  const ready = checked.then(loadSdk).then((s3) => ({ s3, client: new s3.S3Client({
    region: opts.region || 'us-east-1',
    ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
    forcePathStyle: opts.force_path_style ?? Boolean(opts.endpoint),
    credentials: { accessKeyId: opts.access_key_id, secretAccessKey: opts.secret_access_key },
    // S3-compatible servers rarely implement the SDK's default CRC trailers on streamed bodies;
    // we verify SHA-256 ourselves
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    requestHandler: {
      connectionTimeout: 10_000, requestTimeout: 120_000,
      ...(opts.network ? { httpAgent: new http.Agent({ keepAlive: true, lookup: opts.network.lookup }), httpsAgent: new https.Agent({ keepAlive: true, lookup: opts.network.lookup }) } : {}),
    },
  }) }));
  // a failure surfaces where the backend is used; this keeps it from being an unhandled rejection meanwhile
  ready.catch(() => undefined);
  const full = (key: string) => prefix + key;
  const ctxOf = (key: string, operation: string): StorageContext => ({ backend_key, key, operation });

  const backend: S3Backend = {
    backend_key,
    bucket,
    capabilities: { directories: false, atomic_put: true, resumable_upload: true, integrity_checksum: true, native_sharing: false },

    async put(key: string, content: Readable | Buffer, meta: PutMetadata = {}): Promise<ObjectReference> {
      checkKey(key, backend_key, 'put');
      const ctx = ctxOf(key, 'put');
      const mime_type = meta.mime_type || 'application/octet-stream';
      const expected = meta.checksum ? parseChecksum(meta.checksum, ctx) : undefined;
      if (Buffer.isBuffer(content) && meta.max_bytes !== undefined && content.length > meta.max_bytes) {
        throw new StoragePayloadTooLarge(ctx, meta.max_bytes);
      }
      const source = Buffer.isBuffer(content) ? Readable.from([content]) : content;
      const hash = crypto.createHash('sha256');
      let size = 0;
      let refusal: StorageError | undefined;
      const meter = new Transform({
        transform(chunk: Buffer, _enc, cb) {
          size += chunk.length;
          if (meta.max_bytes !== undefined && size > meta.max_bytes) {
            refusal = new StoragePayloadTooLarge(ctx, meta.max_bytes);
            return cb(refusal);
          }
          hash.update(chunk);
          cb(null, chunk);
        },
        flush(cb) {
          // runs before the body's end reaches the uploader: a mismatch stops the completion
          const digest = hash.digest('hex');
          (meter as Transform & { digest?: string }).digest = digest;
          if (expected && expected !== digest) {
            refusal = new StorageIntegrityError(ctx, `checksum mismatch: expected sha256:${expected}, got sha256:${digest}`);
            return cb(refusal);
          }
          cb();
        },
      });
      let sourceError: unknown;
      source.once('error', (err) => {
        sourceError = err;
        meter.destroy(err);
      });
      source.pipe(meter);

      const [{ client }, { Upload }] = await Promise.all([ready, import('@aws-sdk/lib-storage')]);
      const upload = new Upload({
        client,
        partSize: PART_SIZE,
        queueSize: QUEUE_SIZE,
        leavePartsOnError: false,
        params: {
          Bucket: bucket,
          Key: full(key),
          Body: meter,
          ContentType: mime_type,
          ...(expected ? { Metadata: { [SHA_META]: expected } } : {}),
        },
      });
      let out: { ETag?: string; VersionId?: string };
      try {
        out = await upload.done();
      } catch (err) {
        source.unpipe(meter);
        if (!source.destroyed && source !== content) source.destroy();
        // our own refusal wins over whatever the aborted upload reported (some S3-compatible
        // servers do not implement AbortMultipartUpload; its error must not mask the cause)
        if (refusal) throw refusal;
        if (sourceError) throw sourceError;
        throw mapS3Error(err, ctx);
      }
      const digest = (meter as Transform & { digest?: string }).digest ?? crypto.createHash('sha256').digest('hex');
      return {
        backend_key,
        key,
        object_id: out.VersionId ?? stripQuotes(out.ETag) ?? '',
        checksum: `sha256:${digest}`,
        size,
        mime_type,
      };
    },

    async get(key: string, range?: { start: number; end: number }): Promise<GetResult> {
      checkKey(key, backend_key, 'get');
      const ctx = ctxOf(key, 'get');
      if (range) checkRange(range, ctx);
      try {
        const { s3, client } = await ready;
        const r = await client.send(new s3.GetObjectCommand({
          Bucket: bucket,
          Key: full(key),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }));
        const body = r.Body as Readable | undefined;
        const stream = body instanceof Readable ? body : Readable.from([]);
        const sha = r.Metadata?.[SHA_META];
        return {
          stream,
          size: r.ContentLength ?? 0,
          mime_type: r.ContentType || 'application/octet-stream',
          // the whole object's checksum, known when the writer supplied it (put metadata)
          ...(sha ? { checksum: `sha256:${sha}` } : {}),
        };
      } catch (err) {
        throw mapS3Error(err, ctx);
      }
    },

    async delete(key: string): Promise<void> {
      checkKey(key, backend_key, 'delete');
      try {
        const { s3, client } = await ready;
        // S3 answers 204 for a missing key too: delete is idempotent
        await client.send(new s3.DeleteObjectCommand({ Bucket: bucket, Key: full(key) }));
      } catch (err) {
        throw mapS3Error(err, ctxOf(key, 'delete'));
      }
    },

    async exists(key: string): Promise<boolean> {
      checkKey(key, backend_key, 'exists');
      try {
        const { s3, client } = await ready;
        await client.send(new s3.HeadObjectCommand({ Bucket: bucket, Key: full(key) }));
        return true;
      } catch (err) {
        const mapped = mapS3Error(err, ctxOf(key, 'exists'));
        if (!(mapped instanceof StorageNotFoundError) || isMissingBucket(err)) throw mapped;
        // HEAD answers a bare 404 for a missing bucket too: a miss is only "false" if the bucket is there
        await backend.checkBucket();
        return false;
      }
    },

    async list(listPrefix: string, max_results = MAX_LIST): Promise<ObjectReference[]> {
      checkPrefix(listPrefix, backend_key);
      const ctx = ctxOf(listPrefix, 'list');
      if (!Number.isInteger(max_results) || max_results < 1) {
        throw new StorageKeyError(ctx, 'max_results must be a positive integer');
      }
      const out: ObjectReference[] = [];
      let token: string | undefined;
      try {
        const { s3, client } = await ready;
        do {
          const r = await client.send(new s3.ListObjectsV2Command({
            Bucket: bucket,
            Prefix: full(listPrefix),
            MaxKeys: Math.min(MAX_LIST, max_results - out.length),
            ...(token ? { ContinuationToken: token } : {}),
          }));
          for (const o of r.Contents ?? []) {
            if (!o.Key || !o.Key.startsWith(prefix)) continue;
            out.push({
              backend_key,
              key: o.Key.slice(prefix.length),
              object_id: stripQuotes(o.ETag) ?? '',
              // a listing carries no metadata; the checksum is known from put() and get()
              checksum: '',
              size: o.Size ?? 0,
              mime_type: '',
            });
            if (out.length >= max_results) break;
          }
          token = r.IsTruncated && out.length < max_results ? r.NextContinuationToken : undefined;
        } while (token);
      } catch (err) {
        throw mapS3Error(err, ctx);
      }
      return out;
    },

    async checkBucket(): Promise<void> {
      try {
        const { s3, client } = await ready;
        await client.send(new s3.HeadBucketCommand({ Bucket: bucket }));
      } catch (err) {
        throw mapS3Error(err, ctxOf(bucket, 'head_bucket'), true);
      }
    },

    destroy() {
      void ready.then(({ client }) => client.destroy(), () => undefined);
    },
  };
  return backend;
}

function normalisePrefix(p: string, backend_key: string): string {
  if (!p) return '';
  const withSlash = p.endsWith('/') ? p : `${p}/`;
  return checkPrefix(withSlash, backend_key);
}

function parseChecksum(text: string, ctx: StorageContext): string {
  const m = /^sha256:([0-9a-f]{64})$/i.exec(text);
  if (!m) throw new StorageIntegrityError(ctx, `expected checksum must read sha256:<64 hex digits>, got ${JSON.stringify(text)}`);
  return m[1].toLowerCase();
}

function checkRange(range: { start: number; end: number }, ctx: StorageContext): void {
  const ok = Number.isInteger(range.start) && Number.isInteger(range.end) && range.start >= 0 && range.end >= range.start;
  if (!ok) throw new StorageError(ctx, `invalid range ${range.start}-${range.end}`, 'STORAGE_RANGE_NOT_SATISFIABLE', 416);
}

const stripQuotes = (etag: string | undefined): string | undefined => etag?.replace(/^"|"$/g, '');

const errorName = (err: unknown): string => {
  const e = err as { name?: string; Code?: string; code?: string };
  return e?.Code ?? e?.name ?? e?.code ?? '';
};
const httpStatus = (err: unknown): number | undefined => (err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
const isMissingBucket = (err: unknown): boolean => errorName(err) === 'NoSuchBucket';

const AUTH = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'ExpiredToken', 'InvalidToken', 'TokenRefreshRequired', 'CredentialsProviderError', 'InvalidClientTokenId', 'AuthorizationHeaderMalformed']);
const PERMISSION = new Set(['AccessDenied', 'AllAccessDisabled', 'AccountProblem', 'Forbidden']);
const TRANSIENT = new Set(['SlowDown', 'RequestTimeout', 'RequestTimeoutException', 'ServiceUnavailable', 'InternalError', 'TimeoutError', 'ThrottlingException', 'RequestTimeTooSkewed',
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'NetworkingError']);

/**
 * AWS and network errors as the storage taxonomy. HEAD requests carry no error body, so a bare
 * 403 is reported by status; on a bucket check it means the credentials were refused.
 */
export function mapS3Error(err: unknown, ctx: StorageContext, bucketCheck = false): StorageError {
  if (err instanceof StorageError) return err;
  const name = errorName(err);
  const status = httpStatus(err);
  const detail = err instanceof Error && err.message && err.message !== 'UnknownError' ? `: ${err.message}` : '';
  if (name === 'NoSuchKey' || (status === 404 && name !== 'NoSuchBucket' && !bucketCheck)) return new StorageNotFoundError(ctx);
  if (name === 'NoSuchBucket' || (status === 404 && bucketCheck) || name === 'NotFound') {
    return new StorageNotFoundError(ctx, `bucket or object not found (${name || status})`);
  }
  if (AUTH.has(name)) return new StorageAuthError(ctx, `the storage backend refused our credentials (${name})`);
  if (PERMISSION.has(name)) return new StoragePermissionError(ctx, `the storage backend denied ${ctx.operation} (${name})`);
  if (status === 403) {
    return bucketCheck
      ? new StorageAuthError(ctx, 'the storage backend refused our credentials (403)')
      : new StoragePermissionError(ctx, `the storage backend denied ${ctx.operation} (403)`);
  }
  if (status === 401) return new StorageAuthError(ctx);
  if (name === 'PreconditionFailed' || status === 412 || status === 409) return new StorageConflictError(ctx);
  if (name === 'InvalidRange' || status === 416) return new StorageError(ctx, `range not satisfiable${detail}`, 'STORAGE_RANGE_NOT_SATISFIABLE', 416);
  if (TRANSIENT.has(name) || (status !== undefined && status >= 500) || (!(sdk && err instanceof sdk.S3ServiceException) && isNetworkError(err))) {
    return new StorageTransientError(ctx, `the storage backend is unavailable; retry (${name || status || 'network'})`);
  }
  return new StorageError(ctx, `storage backend error (${name || status || 'unknown'})${detail}`);
}

function isNetworkError(err: unknown): boolean {
  const e = err as { code?: string; name?: string; cause?: unknown };
  if (!e || typeof e !== 'object') return false;
  if (typeof e.code === 'string' && TRANSIENT.has(e.code)) return true;
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return true;
  return e.cause ? isNetworkError(e.cause) : false;
}
