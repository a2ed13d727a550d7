/**
 * The app contract hands apps a KernelHandle (src/kernel/kernel-handle.ts); foundation apps that
 * reach kernel internals narrow it with concreteKernel, which accepts only the kernel itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KernelHandle } from '../../src/kernel/kernel-handle.ts';
import { concreteKernel } from '../../src/kernel/kernel.ts';
import { bootTestKernel, expectFwError, type TestKernel } from '../helpers/kernel.ts';

describe('concreteKernel', () => {
  let t: TestKernel;
  beforeAll(async () => {
    t = await bootTestKernel({ settings: { ACTIVE_MODULES: 'base', ACTIVE_DOMAINS: '' } });
  });
  afterAll(() => t?.cleanup());

  it('returns the kernel a handle is, and an object derived from it (the QA replay\'s server kernel)', () => {
    const handle: KernelHandle = t.kernel;
    expect(concreteKernel(handle)).toBe(t.kernel);
    const derived = Object.create(t.kernel, { close: { value: async () => undefined } });
    expect(concreteKernel(derived)).toBe(derived);
  });

  it('refuses another KernelHandle implementation with 500 KERNEL_REQUIRED', async () => {
    const k = t.kernel;
    const other: KernelHandle = {
      registry: k.registry, settings: k.settings, provider: k.provider,
      dispatch: (command, payload, principal) => k.dispatch(command, payload, principal),
      publish: (tenant, topic, message) => k.publish(tenant, topic, message),
      subscribe: (tenant, topic, handler) => k.subscribe(tenant, topic, handler),
      log: () => {},
    };
    await expectFwError(Promise.resolve().then(() => concreteKernel(other)), 500, 'KERNEL_REQUIRED');
  });
});
