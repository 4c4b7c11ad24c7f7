/** A handshake cell's mixes from its joint cells: the same answer whatever order the store returned them in. */
import { describe, expect, it } from 'vitest';
import { protectedMix, type JointCell } from '../../src/query/cells';

const joint = (protocol: string, handshakeClass: string, records: number, shown = true): JointCell => ({
  values: { protocol, tlsVersion: 'TLS 1.3', handshakeClass, resumed: 'false' },
  records,
  shown,
});

/** One hidden joint cell and three shown ones, two of them tied for the smallest. */
const cells = (): JointCell[] => [
  joint('h2', 'full-1rtt', 400),
  joint('h3', 'full-1rtt', 30),
  joint('http/1.1', 'full-1rtt', 30),
  joint('h2', '0rtt', 5, false),
];

describe('protected mix', () => {
  it('hides the same tied smallest joint cell beside a lone hidden one in every order of the rows', () => {
    const records = 465;
    const answers = [cells(), cells().reverse(), [cells()[2]!, cells()[0]!, cells()[3]!, cells()[1]!]].map((list) =>
      protectedMix(new Map([['k', list]]), 'k', records),
    );
    for (const a of answers) expect(a).toEqual(answers[0]);
    // The tie goes to the first by value: h3 is withheld with the hidden h2 0-RTT cell, http/1.1 is shown.
    expect(answers[0]!.protocol).toEqual({ 'http/1.1': 0.0645, other: 0 });
    expect(answers[0]!.handshakeClass).not.toHaveProperty('0rtt');
  });

  it('shows no mix value at all when the joint cells were too many to read', () => {
    const mix = protectedMix(null, 'k', 10);
    expect(Object.values(mix!).every((m) => Object.keys(m).length === 0)).toBe(true);
  });
});
