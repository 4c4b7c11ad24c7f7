import { expect, it } from 'vitest';
import type { Answer } from '../../src/api';
import { coverageOf, coverageSentence, recordSourceSentence } from '../../src/coverage';

const answer = (cells: Array<{ key: Record<string, string>; records?: number; suppressed?: boolean }>) =>
  ({ cells }) as unknown as Answer;

it("names the record sources a figure rests on, in the source filter's words, leaving out suppressed groups", () => {
  const c = coverageOf(
    answer([
      { key: { versionEvidence: 'server-timing' }, records: 60 },
      { key: { versionEvidence: 'unknown' }, records: 15 },
      { key: { versionEvidence: 'observed' }, records: 25 },
      { key: { versionEvidence: 'implied' }, suppressed: true },
    ]),
    answer([
      { key: { source: 'page' }, records: 150 },
      { key: { source: 'rum' }, records: 50 },
      { key: { source: 'synthetic' }, suppressed: true },
    ]),
  );
  expect(recordSourceSentence(c)).toBe('From site visitors (beacon) 75 %, extension users 25 %.');
  expect(coverageSentence(c)).toMatch(
    /^TLS version known for 85 % of records \(observed 25 %, server-timing 60 %.*groups with too few clients left out\.$/,
  );
  expect(recordSourceSentence(coverageOf(answer([]), answer([])))).toBe('');
});

it('says groups were left out when only the record-source answer hid one', () => {
  const c = coverageOf(
    answer([{ key: { versionEvidence: 'observed' }, records: 40 }]),
    answer([
      { key: { source: 'rum' }, records: 40 },
      { key: { source: 'synthetic' }, suppressed: true },
    ]),
  );
  expect(c.suppressed).toBe(true);
  expect(coverageSentence(c)).toMatch(/groups with too few clients left out\.$/);
});
