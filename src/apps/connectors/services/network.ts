import dns from 'node:dns';
import net from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch, type RequestInfo, type RequestInit, type Response } from 'undici';
import { BootError } from '../../../kernel/errors.js';
import { perSettings, type Settings } from '../../../kernel/settings.js';
import { AddressNotAllowedError } from '../errors.js';
import { connectorSettings } from '../settings.js';

/**
 * Where connectors may connect. A connector's URL or host is entered by an administrator of a
 * tenant, who is not the operator of the deployment: without a rule, a webhook's connection
 * test posts to the server's own loopback services, its private network or a cloud's metadata
 * address (169.254.169.254), and says what answered (SSRF). So in production a connector
 * reaches only public addresses, plus the networks the operator lists in
 * CONNECTOR_PRIVATE_NETWORKS (an intranet SMTP relay, an S3-compatible server on the LAN).
 * Outside production every address is allowed (local test servers).
 *
 * The check runs on the addresses a connection is actually opened to (the `lookup` given to the
 * socket), not on the URL's text: a public name resolving to a private address is refused too,
 * and a second resolution cannot swap the address after the check (DNS rebinding).
 */

/** Loopback, private, shared, link-local, multicast and reserved ranges (IANA special-purpose registries). */
const SPECIAL = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) SPECIAL.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96]] as const) SPECIAL.addSubnet(prefix, bits, 'ipv6');

/** `::ffff:10.0.0.1` is 10.0.0.1. */
function plain(address: string, family: number): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = family === 6 ? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address) : null;
  if (mapped) return { address: mapped[1]!, family: 'ipv4' };
  return { address, family: family === 6 ? 'ipv6' : 'ipv4' };
}

/** `[::1]` (a URL's IPv6 host) is `::1`. */
const unbracketed = (host: string): string => host.replace(/^\[|\]$/g, '');

const invalidEntry = (entry: string, why: string) =>
  new BootError(`CONNECTOR_PRIVATE_NETWORKS entry "${entry}" ${why}`, { entry }, 'CONNECTOR_SETTINGS_INVALID');

/** CONNECTOR_PRIVATE_NETWORKS as a list: `10.0.0.0/8`, `192.168.1.5` (one address), `fd00::/8`. */
export function allowedNetworks(list: readonly string[]): net.BlockList {
  const allowed = new net.BlockList();
  for (const entry of list) {
    const [address, bits] = entry.split('/');
    const family = net.isIP(address ?? '');
    if (!family) throw invalidEntry(entry, 'is not an address or a network (10.0.0.0/8)');
    const max = family === 4 ? 32 : 128;
    const n = bits === undefined ? max : Number(bits);
    if (!/^\d+$/.test(bits ?? String(max)) || n > max) throw invalidEntry(entry, `has a prefix length outside 0–${max}`);
    allowed.addSubnet(address!, n, family === 4 ? 'ipv4' : 'ipv6');
  }
  return allowed;
}

export interface OutboundPolicy {
  /** Whether a connector may connect to this address. */
  allows(address: string, family: number): boolean;
  /** A `lookup` for sockets and agents: resolves as dns.lookup does and refuses an address the policy does not allow. */
  lookup: net.LookupFunction;
  /** An HTTP client (undici) whose connections go through `lookup`: pass as `dispatcher` to undici's `fetch`. */
  readonly dispatcher: Agent;
  /**
   * undici's `fetch` on `dispatcher`: every connection it opens, redirects included, goes where
   * the policy allows. A refusal rejects with the AddressNotAllowedError itself (fetch's own
   * error says only "fetch failed"). What providers call as `ctx.network.fetch`.
   */
  fetch(input: RequestInfo, init?: Omit<RequestInit, 'dispatcher'>): Promise<Response>;
  /**
   * Throws AddressNotAllowedError for an IP-literal host the policy does not allow; a name passes
   * (its addresses are checked by `lookup`, which a socket does not call for an IP).
   */
  checkHost(host: string): void;
  /** The first address of `host` a connection may use (an IP is itself); AddressNotAllowedError (naming the setting) when one is not allowed. */
  resolve(host: string): Promise<{ address: string; family: number }>;
}

const refused = (host: string, address: string) => new AddressNotAllowedError(
  `connectors may not reach ${host} (${address}): a loopback, private, link-local or reserved address; the operator lists such networks in CONNECTOR_PRIVATE_NETWORKS`,
  { host, address },
);

/** The policy of a deployment: everything outside production; public addresses and the listed networks in it. */
export function outboundPolicy(settings: Pick<Settings, 'NODE_ENV'> & { CONNECTOR_PRIVATE_NETWORKS: readonly string[] }): OutboundPolicy {
  const open = settings.NODE_ENV !== 'production';
  const listed = allowedNetworks(settings.CONNECTOR_PRIVATE_NETWORKS);
  const allows = (address: string, family: number): boolean => {
    if (open) return true;
    const p = plain(address, family);
    return !SPECIAL.check(p.address, p.family) || listed.check(p.address, p.family) || listed.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
  const resolve = async (host: string) => {
    const bare = unbracketed(host);
    const literal = net.isIP(bare);
    const found = literal ? [{ address: bare, family: literal }] : await dns.promises.lookup(bare, { all: true });
    // every address the name has must be allowed: the socket may pick any of them
    const bad = found.find((a) => !allows(a.address, a.family));
    if (bad) throw refused(host, bad.address);
    return found[0]!;
  };
  const lookup: net.LookupFunction = (hostname, options, callback) => {
    resolve(hostname).then(
      (a) => (options.all ? callback(null, [a]) : callback(null, a.address, a.family)),
      (err: AddressNotAllowedError | NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
  const checkHost = (host: string): void => {
    const bare = unbracketed(host);
    const family = net.isIP(bare);
    if (family && !allows(bare, family)) throw refused(host, bare);
  };
  let agent: Agent | undefined;
  // one pool per deployment policy, made on first use (most deployments send no webhook)
  const dispatcher = (): Agent => {
    if (agent) return agent;
    const connect = buildConnector({ lookup });
    agent = new Agent({
      connect: (options, callback) => {
        try {
          checkHost(options.hostname);
        } catch (err) {
          callback(err instanceof Error ? err : new Error(String(err)), null);
          return;
        }
        connect(options, callback);
      },
    });
    return agent;
  };
  return {
    allows, lookup, resolve, checkHost,
    get dispatcher() { return dispatcher(); },
    // a plain closure: `const { fetch } = ctx.network` works too
    fetch: async (input, init) => {
      try {
        return await undiciFetch(input, { ...init, dispatcher: dispatcher() });
      } catch (err) {
        throw err instanceof Error && err.cause instanceof AddressNotAllowedError ? err.cause : err;
      }
    },
  };
}

/** The deployment's policy, built once per settings object (a bad CONNECTOR_PRIVATE_NETWORKS entry: BootError). */
export const connectorPolicy = perSettings((settings): OutboundPolicy =>
  outboundPolicy({ NODE_ENV: settings.NODE_ENV, CONNECTOR_PRIVATE_NETWORKS: connectorSettings(settings).CONNECTOR_PRIVATE_NETWORKS }));
