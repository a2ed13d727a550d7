/**
 * The access-token service of src/apps/auth/services/jwt.ts on its own (no server, no database):
 * which settings boot (algorithm, key length, the placeholder key in production, PEM keys for
 * asymmetric algorithms), what an issued token carries, and how each refused token is reported
 * (TOKEN_EXPIRED, or TOKEN_INVALID without saying which check failed unless a claim is missing).
 * tests/auth/token-validation.test.ts checks the same rules through the bearer middleware.
 */
import crypto from 'node:crypto';
import * as jose from 'jose';
import { describe, expect, it } from 'vitest';
import { JwtService } from '../../src/apps/auth/services/jwt.ts';
import { PLACEHOLDER_JWT_KEY } from '../../src/apps/auth/settings.ts';
import { BootError, ExpiredTokenError, FwError, InvalidTokenError } from '../../src/kernel/errors.ts';
import { loadSettings } from '../../src/kernel/settings.ts';

/** Where the public placeholder key stops the boot: development without the switch, production with or without it. */
const REFUSING_ENVS: Array<Record<string, string>> = [{}, { NODE_ENV: 'production' }, { NODE_ENV: 'production', ALLOW_PUBLIC_DEV_KEYS: 'true' }];

const KEY = 'k'.repeat(32);
const settings = (env: Record<string, string> = {}) => loadSettings({ LOG_LEVEL: 'silent', JWT_SECRET_KEY: KEY, ...env });
const claims = { sub: crypto.randomUUID(), tenant_id: 'acme', role: 'user', sid: crypto.randomUUID() };

async function bootError(env: Record<string, string>): Promise<BootError> {
  const err = await JwtService.fromSettings(settings(env)).then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(BootError);
  return err as BootError;
}

async function refusal(jwt: JwtService, token: string): Promise<FwError> {
  const err = await jwt.decode(token).then(() => null, (e: unknown) => e);
  expect(err, 'the token should be refused').toBeInstanceOf(FwError);
  return err as FwError;
}

/** A token signed with `secret` (HS256 unless told) carrying `payload`, `iat` and `exp` (each left out when null). */
const signed = (payload: jose.JWTPayload, opts: { secret?: string; alg?: string; exp?: number | null; iat?: number | null } = {}) => {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new jose.SignJWT(payload).setProtectedHeader({ alg: opts.alg ?? 'HS256', typ: 'JWT' });
  if (opts.iat !== null) jwt.setIssuedAt(opts.iat ?? now);
  if (opts.exp !== null) jwt.setExpirationTime(opts.exp ?? now + 600);
  return jwt.sign(new TextEncoder().encode(opts.secret ?? KEY));
};

function pemPair(type: 'rsa' | 'ec' | 'ed25519'): { JWT_PRIVATE_KEY: string; JWT_PUBLIC_KEY: string } {
  const { privateKey, publicKey } = type === 'rsa'
    ? crypto.generateKeyPairSync('rsa', { modulusLength: 2048 })
    : type === 'ec' ? crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }) : crypto.generateKeyPairSync('ed25519');
  return {
    JWT_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    JWT_PUBLIC_KEY: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

describe('which settings boot', () => {
  it('HS256 is the default; the token lifetime is JWT_ACCESS_TOKEN_EXPIRE_MINUTES × 60 seconds', async () => {
    const jwt = await JwtService.fromSettings(settings({ JWT_ACCESS_TOKEN_EXPIRE_MINUTES: '7' }));
    expect(jwt.algorithm).toBe('HS256');
    expect(jwt.accessTtlSeconds).toBe(420);
  });

  it('an HMAC key of 32 bytes boots; 31 bytes are refused with INSECURE_JWT_KEY', async () => {
    await expect(JwtService.fromSettings(settings({ JWT_SECRET_KEY: 'k'.repeat(32) }))).resolves.toBeInstanceOf(JwtService);
    const err = await bootError({ JWT_SECRET_KEY: 'k'.repeat(31) });
    expect(err).toMatchObject({ code: 'INSECURE_JWT_KEY', message: 'JWT_SECRET_KEY must be at least 32 bytes' });
  });

  it('the key length counts UTF-8 bytes, not characters', async () => {
    await expect(JwtService.fromSettings(settings({ JWT_SECRET_KEY: 'é'.repeat(16) }))).resolves.toBeInstanceOf(JwtService);
    expect((await bootError({ JWT_SECRET_KEY: 'é'.repeat(15) })).code).toBe('INSECURE_JWT_KEY');
  });

  it('the public placeholder key is refused (INSECURE_JWT_KEY) for every HMAC algorithm, in development too, unless ALLOW_PUBLIC_DEV_KEYS=true outside production', async () => {
    for (const alg of ['HS256', 'HS384', 'HS512']) {
      for (const env of REFUSING_ENVS) {
        const err = await bootError({ JWT_ALGORITHM: alg, JWT_SECRET_KEY: PLACEHOLDER_JWT_KEY, ...env });
        expect(err.code).toBe('INSECURE_JWT_KEY');
        expect(err.message).toMatch(/public placeholder/);
      }
      await expect(JwtService.fromSettings(settings({ JWT_ALGORITHM: alg, JWT_SECRET_KEY: PLACEHOLDER_JWT_KEY, ALLOW_PUBLIC_DEV_KEYS: 'true' }))).resolves.toBeInstanceOf(JwtService);
    }
    await expect(JwtService.fromSettings(settings({ NODE_ENV: 'production' }))).resolves.toBeInstanceOf(JwtService);
  });

  it('an algorithm that is neither HMAC nor one of the asymmetric ones is refused, naming it', async () => {
    for (const alg of ['none', 'HS1', 'hs256', 'RS1']) {
      const err = await bootError({ JWT_ALGORITHM: alg });
      expect(err).toMatchObject({ code: 'BOOT_ERROR', message: `JWT_ALGORITHM ${alg} is not supported` });
    }
  });

  it('an asymmetric algorithm needs both PEM keys', async () => {
    const pair = pemPair('rsa');
    const partial: Array<Record<string, string>> = [{}, { JWT_PRIVATE_KEY: pair.JWT_PRIVATE_KEY }, { JWT_PUBLIC_KEY: pair.JWT_PUBLIC_KEY }];
    for (const env of partial) {
      const err = await bootError({ JWT_ALGORITHM: 'RS256', ...env });
      expect(err.message).toBe('RS256 needs JWT_PRIVATE_KEY and JWT_PUBLIC_KEY (PEM)');
    }
  });
});

describe('issued tokens', () => {
  it('carry sub, tenant_id, role, sid, a fresh jti, iat and exp = iat + lifetime, with the header { alg, typ: "JWT" }', async () => {
    const jwt = await JwtService.fromSettings(settings());
    const token = await jwt.encode(claims);
    expect(jose.decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const got = await jwt.decode(token);
    expect(got).toMatchObject(claims);
    expect(got.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(got.exp - got.iat).toBe(1800);
    expect(Math.abs(got.iat - Date.now() / 1000)).toBeLessThan(60);
    expect((await jwt.decode(await jwt.encode(claims))).jti).not.toBe(got.jti);
  });

  for (const [alg, type] of [['RS256', 'rsa'], ['ES256', 'ec'], ['EdDSA', 'ed25519']] as const) {
    it(`${alg}: signed with JWT_PRIVATE_KEY, verified with JWT_PUBLIC_KEY; an HMAC token is refused`, async () => {
      const jwt = await JwtService.fromSettings(settings({ JWT_ALGORITHM: alg, ...pemPair(type) }));
      const token = await jwt.encode(claims);
      expect(jose.decodeProtectedHeader(token).alg).toBe(alg);
      expect(await jwt.decode(token)).toMatchObject(claims);
      expect((await refusal(jwt, await signed({ ...claims, jti: 'x' }))).code).toBe('TOKEN_INVALID');
      // another key pair of the same type does not verify
      const other = await JwtService.fromSettings(settings({ JWT_ALGORITHM: alg, ...pemPair(type) }));
      expect((await refusal(other, token)).code).toBe('TOKEN_INVALID');
    });
  }
});

describe('refused tokens', () => {
  it('an expired token is TOKEN_EXPIRED', async () => {
    const jwt = await JwtService.fromSettings(settings());
    const err = await refusal(jwt, await signed({ ...claims, jti: 'x' }, { exp: Math.floor(Date.now() / 1000) - 120 }));
    expect(err).toBeInstanceOf(ExpiredTokenError);
    expect(err).toMatchObject({ status: 401, code: 'TOKEN_EXPIRED' });
  });

  it('a token lacking sub, tenant_id, sid, role or jti (or holding one that is not a string) is TOKEN_INVALID naming the claim', async () => {
    const jwt = await JwtService.fromSettings(settings());
    const full: Record<string, unknown> = { ...claims, jti: crypto.randomUUID() };
    for (const k of ['sub', 'tenant_id', 'sid', 'role', 'jti']) {
      const { [k]: _, ...without } = full;
      const missing = await refusal(jwt, await signed(without as jose.JWTPayload));
      expect(missing).toBeInstanceOf(InvalidTokenError);
      expect(missing.message).toBe(`token lacks the ${k} claim`);
      // jose checks no claim types but exp, iat and nbf: a number where text belongs is ours to refuse
      expect((await refusal(jwt, await signed({ ...full, [k]: 42 } as jose.JWTPayload))).message).toBe(`token lacks the ${k} claim`);
    }
    expect(await jwt.decode(await signed(full as jose.JWTPayload))).toMatchObject(claims);
  });

  it('a correctly signed token without exp (it would never expire) or without iat is TOKEN_INVALID naming the claim', async () => {
    const jwt = await JwtService.fromSettings(settings());
    const full = { ...claims, jti: crypto.randomUUID() };
    const noExp = await refusal(jwt, await signed(full, { exp: null }));
    expect(noExp).toMatchObject({ status: 401, code: 'TOKEN_INVALID', message: 'token lacks the exp claim' });
    const noIat = await refusal(jwt, await signed(full, { iat: null }));
    expect(noIat).toMatchObject({ status: 401, code: 'TOKEN_INVALID', message: 'token lacks the iat claim' });
  });

  it('a token issued in the future is TOKEN_INVALID (beyond the 30 s the clocks of instances may differ); one older than the access TTL is TOKEN_EXPIRED whatever its exp says', async () => {
    const jwt = await JwtService.fromSettings(settings());
    const full = { ...claims, jti: crypto.randomUUID() };
    const now = Math.floor(Date.now() / 1000);
    const future = await refusal(jwt, await signed(full, { iat: now + 3600, exp: now + 4000 }));
    expect(future).toMatchObject({ status: 401, code: 'TOKEN_INVALID', message: 'token issued in the future' });
    // another instance's clock a few seconds ahead
    expect(await jwt.decode(await signed(full, { iat: now + 10 }))).toMatchObject(claims);
    // a lifetime longer than this deployment gives (exp a year on)
    const old = await refusal(jwt, await signed(full, { iat: now - jwt.accessTtlSeconds - 120, exp: now + 365 * 86400 }));
    expect(old).toBeInstanceOf(ExpiredTokenError);
  });

  it('another key, another algorithm and garbage are TOKEN_INVALID with no detail', async () => {
    const jwt = await JwtService.fromSettings(settings());
    const full = { ...claims, jti: crypto.randomUUID() };
    for (const token of [await signed(full, { secret: 'x'.repeat(32) }), await signed(full, { alg: 'HS512' }), 'not-a-jwt', '']) {
      const err = await refusal(jwt, token);
      expect(err).toBeInstanceOf(InvalidTokenError);
      expect(err).toMatchObject({ status: 401, code: 'TOKEN_INVALID', message: 'Invalid token' });
    }
  });

  it('isValid is true for a token decode accepts and false for any refused one, expired included', async () => {
    const jwt = await JwtService.fromSettings(settings());
    expect(await jwt.isValid(await jwt.encode(claims))).toBe(true);
    expect(await jwt.isValid('not-a-jwt')).toBe(false);
    expect(await jwt.isValid(await signed({ ...claims, jti: 'x' }, { exp: Math.floor(Date.now() / 1000) - 120 }))).toBe(false);
  });
});
