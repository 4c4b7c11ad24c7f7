/**
 * A cell's mix shares never let a group of hidden joint cells be recomputed: checked against an independent
 * oracle on random cells. The oracle lists every group a query could ask about inside the cell (any values
 * of protocol, TLS version, class, resumed, stack and mode at once), keeps those all of whose joint cells
 * are hidden, and tests by Gaussian elimination in floating point whether one is a linear combination of
 * what the cell shows (its records and each shown share's joint cells).
 */
import { describe, expect, it } from 'vitest';
import { DIMENSIONS } from '@tlsrum/shared/query';
import { comboValues, MIX_VALUES, protectMix, type JointCells } from '../../src/query/mix-protection';
import { rng as random } from '../support/generate';

const ATTRIBUTES = ['protocol', 'tlsVersion', 'handshakeClass', 'resumed', 'stack', 'mode'] as const;
const COMBOS = 144;

/** The rank of some vectors, by elimination in floating point (entries are small integers). */
function rank(vectors: number[][]): number {
  const m = vectors.map((v) => [...v]);
  let r = 0;
  const cols = m[0]?.length ?? 0;
  for (let c = 0; c < cols && r < m.length; c++) {
    let best = r;
    for (let i = r + 1; i < m.length; i++) if (Math.abs(m[i]![c]!) > Math.abs(m[best]![c]!)) best = i;
    if (Math.abs(m[best]![c]!) < 1e-9) continue;
    [m[r], m[best]] = [m[best]!, m[r]!];
    for (let i = 0; i < m.length; i++) {
      if (i === r) continue;
      const f = m[i]![c]! / m[r]![c]!;
      if (f !== 0) for (let k = c; k < cols; k++) m[i]![k]! -= f * m[r]![k]!;
    }
    r++;
  }
  return r;
}

/** Every group a query could ask about inside the cell, as the cell's joint cells it holds. */
function everyGroup(combos: number[]): number[][] {
  const values = combos.map((c) => comboValues(c)!);
  const choices = ATTRIBUTES.map((a) => [null, ...new Set(values.map((v) => v[a]))]);
  const groups = new Map<string, number[]>();
  const walk = (at: number, fixed: (string | null)[]) => {
    if (at === ATTRIBUTES.length) {
      const members = combos
        .map((_, k) => k)
        .filter((k) => fixed.every((f, a) => f === null || values[k]![ATTRIBUTES[a]!] === f));
      if (members.length > 0) groups.set(members.join(','), members);
      return;
    }
    for (const c of choices[at]!) walk(at + 1, [...fixed, c]);
  };
  walk(0, []);
  return [...groups.values()];
}

/** What the cell shows, as vectors over its joint cells: its records, then every shown share with records. */
function shownVectors(joint: JointCells, shown: boolean[]): number[][] {
  const values = joint.combos.map((c) => comboValues(c)!);
  const out = [joint.combos.map(() => 1)];
  MIX_VALUES.forEach(({ mix, value }, i) => {
    if (shown[i] && joint.records[i]! > 0) out.push(values.map((v) => (v[mix] === value ? 1 : 0)));
  });
  return out;
}

/** The groups of hidden joint cells whose records follow from what the cell shows. */
function leaks(joint: JointCells, shown: boolean[]): number[][] {
  const hidden = new Set(joint.hidden);
  const all = shownVectors(joint, shown);
  const base = rank(all);
  return everyGroup([...joint.combos])
    .filter((g) => g.length < joint.combos.length && g.every((k) => hidden.has(joint.combos[k]!)))
    .filter((g) => rank([...all, joint.combos.map((_, k) => (g.includes(k) ? 1 : 0))]) === base);
}

/** A cell of random joint cells, most of them of real combinations (HTTP/3 over TLS 1.3), with a share hidden. */
function randomCell(next: () => number, hiddenShare: number, fewest = 1, most = 44): JointCells {
  const picked = new Set<number>();
  const size = fewest + Math.floor(next() * (most - fewest + 1));
  while (picked.size < size) {
    const c = Math.floor(next() * COMBOS);
    const v = comboValues(c)!;
    if (v.protocol === 'h3' && v.tlsVersion !== '1.3' && next() < 0.9) continue;
    picked.add(c);
  }
  const combos = [...picked];
  const records = combos.map(() => 1 + Math.floor(next() * 500));
  const hidden = combos.filter(() => next() < hiddenShare);
  const values = combos.map((c) => comboValues(c)!);
  return {
    combos,
    hidden,
    records: MIX_VALUES.map(({ mix, value }) =>
      values.reduce((s, v, k) => s + (v[mix] === value ? records[k]! : 0), 0),
    ),
  };
}

/** A TLS 1.3 combination's number. */
const comboNumber = (protocol: string, handshakeClass: string, resumed: string) =>
  Array.from({ length: COMBOS }, (_, c) => c).find((c) => {
    const v = comboValues(c)!;
    return (
      v.protocol === protocol && v.tlsVersion === '1.3' && v.handshakeClass === handshakeClass && v.resumed === resumed
    );
  })!;

describe('mix protection', () => {
  it('no group of hidden joint cells follows from a random cell’s shown shares and records', () => {
    const next = random(7);
    let shownWithHidden = 0;
    let withheld = 0;
    // Up to 44 joint cells (bit sets of one word and of two), and some of 54 to 80 (bit sets as text).
    for (let i = 0; i < 440; i++) {
      const joint = i < 400 ? randomCell(next, [0.1, 0.3, 0.6][i % 3]!) : randomCell(next, 0.3, 54, 80);
      const shown = protectMix(joint);
      expect(leaks(joint, shown), JSON.stringify(joint)).toEqual([]);
      if (joint.hidden.length > 0) {
        shownWithHidden += shown.filter((s, k) => s && joint.records[k]! > 0).length;
        withheld += shown.filter((s) => !s).length;
      }
    }
    // Not vacuous: cells with hidden joint cells still show shares, and some are withheld.
    expect(shownWithHidden).toBeGreaterThan(400);
    expect(withheld).toBeGreaterThan(200);
  });

  it('shows every share of a cell with no hidden joint cell', () => {
    const next = random(11);
    for (let i = 0; i < 50; i++) expect(protectMix(randomCell(next, 0)).every(Boolean)).toBe(true);
  });

  it('shows a share a hidden joint cell holds when no hidden group then follows', () => {
    // h2 over 1-RTT (400 records), h2 with 0-RTT (5 records, hidden), h3 and HTTP/1.1 over 1-RTT (30 each).
    const combo = (protocol: string, handshakeClass: string, resumed: string) =>
      Array.from({ length: COMBOS }, (_, c) => c).find((c) => {
        const v = comboValues(c)!;
        return (
          v.protocol === protocol &&
          v.tlsVersion === '1.3' &&
          v.handshakeClass === handshakeClass &&
          v.resumed === resumed
        );
      })!;
    const cells = [
      [combo('h2', '1rtt', 'false'), 400],
      [combo('h2', '0rtt', 'true'), 5],
      [combo('h3', '1rtt', 'false'), 30],
      [combo('http/1.1', '1rtt', 'false'), 30],
    ] as const;
    const joint: JointCells = {
      combos: cells.map(([c]) => c),
      hidden: [cells[1][0]],
      records: MIX_VALUES.map(({ mix, value }) =>
        cells.reduce((s, [c, r]) => s + (comboValues(c)![mix] === value ? r : 0), 0),
      ),
    };
    const shown = Object.fromEntries(MIX_VALUES.map(({ mix, value }, i) => [`${mix}=${value}`, protectMix(joint)[i]]));
    // h2 holds the hidden joint cell, yet only with h2 over 1-RTT: every protocol's share is shown.
    expect(shown['protocol=h2']).toBe(true);
    expect(shown['protocol=h3']).toBe(true);
    // 1-RTT (and so a full handshake) is the cell's records less the hidden 0-RTT connections: withheld.
    expect(shown['handshakeClass=1rtt']).toBe(false);
    expect(shown['mode=full']).toBe(false);
    expect(shown['handshakeClass=0rtt']).toBe(false);
    expect(shown['mode=0-RTT']).toBe(false);
    expect(leaks(joint, protectMix(joint))).toEqual([]);
  });

  it('a cell all of whose joint cells are hidden shows no share that splits it', () => {
    // Two joint cells, each of too few people, together enough: the cell is shown, and so are shares that
    // hold both or neither (TLS 1.3, 1-RTT), never one that holds one of them (the cell's records less it gives the other).
    const h2 = comboNumber('h2', '1rtt', 'false');
    const h3 = comboNumber('h3', '1rtt', 'false');
    const joint: JointCells = {
      combos: [h2, h3],
      hidden: [h2, h3],
      records: MIX_VALUES.map(({ mix, value }) =>
        [h2, h3].reduce((s, c, k) => s + (comboValues(c)![mix] === value ? [40, 30][k]! : 0), 0),
      ),
    };
    const shown = protectMix(joint);
    const at = (mix: string, value: string) => shown[MIX_VALUES.findIndex((v) => v.mix === mix && v.value === value)];
    expect([at('protocol', 'h2'), at('protocol', 'h3')]).toEqual([false, false]);
    expect([at('tlsVersion', '1.3'), at('handshakeClass', '1rtt'), at('mode', 'full')]).toEqual([true, true, true]);
    expect(leaks(joint, shown)).toEqual([]);
  });

  it('a value outside the catalogue leaves every share with records out', () => {
    const joint: JointCells = { combos: [-1, 3], hidden: [3], records: MIX_VALUES.map((_, i) => (i % 2 ? 5 : 0)) };
    expect(protectMix(joint)).toEqual(MIX_VALUES.map((_, i) => i % 2 === 0));
  });

  it('knows every value of every mix column', () => {
    for (const { mix, value } of MIX_VALUES) expect(DIMENSIONS[mix].values).toContain(value);
  });
});
