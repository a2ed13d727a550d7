import { describe, expect, it } from 'vitest';
import type { Bench, Measured } from '../../bench/lib/bench.ts';
import { paired, turnsNote } from '../../bench/lib/paired.ts';

/** A bench whose yoga floor answers the req/s of `floorRps` in turn, logging each turn in `order`. */
function benchWith(pairs: number, floorRps: number[], order: string[]): Bench {
  let i = 0;
  return {
    pairs, durationS: 10, warmupS: 3, connections: 20, rows: [], raw: {}, floors: {}, log: () => {},
    ctx: {} as Bench['ctx'],
    floorServers: {
      yoga: {
        kind: 'yoga',
        measure: async (d) => {
          order.push(`floor ${d?.warmupS}+${d?.durationS}s`);
          return { rps: floorRps[i++]! } as Measured;
        },
      },
    },
  };
}

describe('rows measured in turns with their floor', () => {
  it('alternates floor and fw as ABBA and judges by the median of the turns\' ratios', async () => {
    const order: string[] = [];
    const fwRps = [900, 1000, 1500];
    let k = 0;
    const b = benchWith(3, [1000, 1000, 1000], order);
    const p = await paired(b, 'yoga', async (d) => {
      order.push(`fw ${d.warmupS}+${d.durationS}s`);
      return { rps: fwRps[k++]! };
    }, (r) => r.rps);
    expect(order).toEqual(['floor 1+5s', 'fw 1+5s', 'fw 1+5s', 'floor 1+5s', 'floor 1+5s', 'fw 1+5s']);
    expect(p!.ratios).toEqual([0.9, 1, 1.5]);
    expect(p!.ratio).toBe(1);
    // the row's own figures are those of the median turn, not of the best one
    expect(p!.fw.rps).toBe(1000);
    expect(turnsNote(p!, 'yoga')).toBe('median of 3 turns with the yoga floor: 0.90–1.50×');
  });

  it('a floor that moves moves the ratio with it: each fw turn is divided by its neighbouring floor turn', async () => {
    const b = benchWith(2, [2000, 1000], []);
    const p = await paired(b, 'yoga', async () => ({ rps: 1000 }), (r) => r.rps);
    expect(p!.ratios).toEqual([0.5, 1]);
    expect(p!.ratio).toBe(0.75);
  });

  it('measures nothing in turns with --pairs 1 or when the floor is not running', async () => {
    const fw = async () => ({ rps: 1 });
    expect(await paired(benchWith(1, [1], []), 'yoga', fw, (r) => r.rps)).toBeNull();
    expect(await paired(benchWith(3, [1], []), 'http', fw, (r) => r.rps)).toBeNull();
  });
});
