import crypto from 'node:crypto';
import * as jose from 'jose';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Principal } from '../../../kernel/env.js';
import { FwError, TokenError } from '../../../kernel/errors.js';
import { RedisName } from '../../../kernel/pubsub/names.js';
import type { SessionService } from './sessions.js';

/**
 * Signed, short-lived, single-use links (a GraphQL-driven download: `exportLink`). The token is a
 * JWT signed with the access tokens' key, but of its own type (`typ: fw-link+jwt`) and audience
 * (`fw:<purpose>`), without a `role` claim: it is never taken as an access token, nor an access
 * token as a link. It binds the tenant, the user and the session (`sub`, `tenant_id`, `sid`) and
 * the request (`data`, e.g. the export's parameters), so nothing is stored when it is issued and
 * any instance can check it. At redemption the session is checked as for any request (revoked,
 * expired, user inactive: refused) and the principal rebuilt from it, so access rules apply as
 * the user is then. Single use needs shared state: the token's id is claimed with `SET NX` in
 * Redis (REDIS_URL; key `<REDIS_PREFIX>:_auth:link:<tenant>:<jti>`) until it expires, else in this
 * process only.
 */
export const LINK_TYPE = 'fw-link+jwt';

const refused = (code: 'EXPORT_LINK_INVALID' | 'EXPORT_LINK_EXPIRED' | 'EXPORT_LINK_USED', message: string) => new TokenError(code, message);

type Key = Parameters<jose.SignJWT['sign']>[0];

export class LinkService {
  private readonly used = new LRUCache<string, true>({ max: 100_000, ttlAutopurge: false });

  constructor(
    private readonly keys: { algorithm: string; signKey: Key; verifyKey: Key },
    private readonly sessions: SessionService,
    private readonly store?: Redis,
  ) {}

  async issue(principal: Principal, purpose: string, data: Record<string, unknown>, ttlSeconds: number): Promise<{ token: string; expires_at: Date }> {
    if (principal.kind !== 'user' || !principal.user_id || !principal.sid) {
      throw new FwError('EXPORT_LINK_NEEDS_SESSION', 403, 'a download link is issued to a signed-in user only');
    }
    const exp = Math.floor(Date.now() / 1000) + ttlSeconds;
    const token = await new jose.SignJWT({ tenant_id: principal.tenant_id, sid: principal.sid, data })
      .setProtectedHeader({ alg: this.keys.algorithm, typ: LINK_TYPE })
      .setSubject(principal.user_id)
      .setAudience(`fw:${purpose}`)
      .setIssuedAt()
      .setExpirationTime(exp)
      .setJti(crypto.randomUUID())
      .sign(this.keys.signKey);
    return { token, expires_at: new Date(exp * 1000) };
  }

  /**
   * The principal (as the session is now) and the data of a link; `tenant` is the one the
   * request names, if any (a link of another tenant is refused). Each check refuses with 401:
   * EXPORT_LINK_EXPIRED past `exp`, EXPORT_LINK_USED the second time, EXPORT_LINK_INVALID for
   * anything else (signature, type, purpose, tenant, ended session).
   */
  async redeem(token: string, purpose: string, tenant: string | null): Promise<{ principal: Principal; data: Record<string, unknown> }> {
    let payload: jose.JWTPayload;
    try {
      ({ payload } = await jose.jwtVerify(token, this.keys.verifyKey, { algorithms: [this.keys.algorithm], typ: LINK_TYPE, audience: `fw:${purpose}`, requiredClaims: ['exp', 'jti', 'sub'] }));
    } catch (err) {
      if (err instanceof jose.errors.JWTExpired) throw refused('EXPORT_LINK_EXPIRED', 'this download link has expired; ask for a new one');
      throw refused('EXPORT_LINK_INVALID', 'this download link is not valid');
    }
    const { sub, tenant_id, sid, jti, exp, data } = payload as Record<string, unknown>;
    if (typeof tenant_id !== 'string' || typeof sid !== 'string' || typeof sub !== 'string' || typeof jti !== 'string' || typeof exp !== 'number' || !data || typeof data !== 'object') {
      throw refused('EXPORT_LINK_INVALID', 'this download link is not valid');
    }
    if (tenant !== null && tenant !== tenant_id) throw refused('EXPORT_LINK_INVALID', 'this download link is for another tenant');
    let principal: Principal;
    try {
      principal = await this.sessions.principalOf({ sub, tenant_id, sid });
    } catch (err) {
      if (err instanceof TokenError) throw refused('EXPORT_LINK_INVALID', 'the session this download link was issued in has ended');
      throw err;
    }
    if (!(await this.claim(`${tenant_id}:${jti}`, exp))) throw refused('EXPORT_LINK_USED', 'this download link has already been used; ask for a new one');
    return { principal, data: data as Record<string, unknown> };
  }

  /** True the first time `id` is claimed, until `exp` (seconds) when the token dies anyway. */
  private async claim(id: string, exp: number): Promise<boolean> {
    const ms = Math.max(1000, exp * 1000 - Date.now() + 1000);
    if (this.store) return (await this.store.set(RedisName.app('auth', 'link', id).name, '1', 'PX', ms, 'NX')) === 'OK';
    if (this.used.has(id)) return false;
    this.used.set(id, true, { ttl: ms });
    return true;
  }
}
