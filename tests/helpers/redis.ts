/**
 * Redis for the tests that use one (127.0.0.1:6379, which `.ci/run` starts). Every test server or
 * kernel is a deployment of its own there: the harnesses (startTestServer, bootTestKernel,
 * startWeb) give each a REDIS_PREFIX nobody else uses, so concurrent test files on the same Redis,
 * all with tenant `default`, never hear each other's record changes, revocations or throttle
 * counters. Servers meant to be one deployment pass the same prefix.
 */
import crypto from 'node:crypto';

export const TEST_REDIS_URL = process.env.FW_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** `fwt-<random>`: a Redis namespace of its own (valid REDIS_PREFIX). */
export const uniqueRedisPrefix = (): string => `fwt-${crypto.randomBytes(5).toString('hex')}`;
