import crypto from 'node:crypto';
import * as jose from 'jose';
import { BootError, ExpiredTokenError, InvalidTokenError } from '../../../kernel/errors.js';
import { refusePublicKey } from '../../../kernel/instance-secrets.js';
import type { Settings } from '../../../kernel/settings.js';
import { authSettings, PLACEHOLDER_JWT_KEY } from '../settings.js';

export interface AccessClaims {
  sub: string;
  tenant_id: string;
  role: string;
  sid: string;
  iat: number;
  exp: number;
  jti: string;
}

const HMAC = new Set(['HS256', 'HS384', 'HS512']);
const ASYMMETRIC = new Set(['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'PS256', 'EdDSA']);

/** The spec's JWT service: encode, decode (raises on expired or invalid), validity check, from settings. */
type Key = Parameters<jose.SignJWT['sign']>[0];

/** How far apart the clocks of a deployment's instances may be (exp, iat). */
const CLOCK_SKEW_SECONDS = 30;

export class JwtService {
  private constructor(
    readonly algorithm: string,
    private readonly signKey: Key,
    private readonly verifyKey: Key,
    readonly accessTtlSeconds: number,
  ) {}

  static async fromSettings(settings: Settings): Promise<JwtService> {
    const s = authSettings(settings);
    const alg = s.JWT_ALGORITHM;
    const ttl = s.JWT_ACCESS_TOKEN_EXPIRE_MINUTES * 60;
    if (HMAC.has(alg)) {
      refusePublicKey(settings, 'JWT_SECRET_KEY', s.JWT_SECRET_KEY, PLACEHOLDER_JWT_KEY, 'INSECURE_JWT_KEY');
      if (Buffer.byteLength(s.JWT_SECRET_KEY) < 32) throw new BootError('JWT_SECRET_KEY must be at least 32 bytes', undefined, 'INSECURE_JWT_KEY');
      const key = new TextEncoder().encode(s.JWT_SECRET_KEY);
      return new JwtService(alg, key, key, ttl);
    }
    if (ASYMMETRIC.has(alg)) {
      if (!s.JWT_PRIVATE_KEY || !s.JWT_PUBLIC_KEY) throw new BootError(`${alg} needs JWT_PRIVATE_KEY and JWT_PUBLIC_KEY (PEM)`);
      return new JwtService(alg, await jose.importPKCS8(s.JWT_PRIVATE_KEY, alg), await jose.importSPKI(s.JWT_PUBLIC_KEY, alg), ttl);
    }
    throw new BootError(`JWT_ALGORITHM ${alg} is not supported`);
  }

  /** The keys, for tokens of other kinds signed alike (./links.ts). */
  get keys(): { algorithm: string; signKey: Key; verifyKey: Key } {
    return { algorithm: this.algorithm, signKey: this.signKey, verifyKey: this.verifyKey };
  }

  async encode(claims: { sub: string; tenant_id: string; role: string; sid: string }): Promise<string> {
    return new jose.SignJWT({ tenant_id: claims.tenant_id, role: claims.role, sid: claims.sid })
      .setProtectedHeader({ alg: this.algorithm, typ: 'JWT' })
      .setSubject(claims.sub)
      .setIssuedAt()
      .setExpirationTime(`${this.accessTtlSeconds}s`)
      .setJti(crypto.randomUUID())
      .sign(this.signKey);
  }

  /** Only the configured algorithm is accepted, so `alg: none` and algorithm confusion fail. */
  async decode(token: string): Promise<AccessClaims> {
    try {
      const { payload } = await jose.jwtVerify(token, this.verifyKey, { algorithms: [this.algorithm] });
      for (const k of ['sub', 'tenant_id', 'sid', 'role', 'jti'] as const) {
        if (typeof payload[k] !== 'string') throw new InvalidTokenError(`token lacks the ${k} claim`);
      }
      // jose checks exp and iat only when present: a token without an expiry would never expire
      const { exp, iat } = payload;
      if (typeof exp !== 'number') throw new InvalidTokenError('token lacks the exp claim');
      if (typeof iat !== 'number') throw new InvalidTokenError('token lacks the iat claim');
      // Only a holder of the key can sign these, so this is defence in depth: no token is issued
      // in the future (beyond what the clocks of a deployment's instances may differ by), and none
      // lives longer than the ones this deployment issues, whatever its exp says. exp itself is
      // exact (jose, no tolerance).
      const now = Math.floor(Date.now() / 1000);
      if (iat > now + CLOCK_SKEW_SECONDS) throw new InvalidTokenError('token issued in the future');
      if (now - iat >= this.accessTtlSeconds + CLOCK_SKEW_SECONDS) throw new ExpiredTokenError();
      return payload as unknown as AccessClaims;
    } catch (err) {
      if (err instanceof InvalidTokenError || err instanceof ExpiredTokenError) throw err;
      if (err instanceof jose.errors.JWTExpired) throw new ExpiredTokenError();
      throw new InvalidTokenError();
    }
  }

  async isValid(token: string): Promise<boolean> {
    return this.decode(token).then(() => true, () => false);
  }
}
