import { expect, it } from 'vitest';
import { int, MIX_NOT_SHOWN_NOTE, mixShare, pValueText } from '../../src/format';

it('writes p-values as a reader expects them, never in scientific notation', () => {
  expect(pValueText(3e-9)).toBe('p < 0.0001');
  expect(pValueText(0.00009)).toBe('p < 0.0001');
  expect(pValueText(0.0001)).toBe('p = 0.0001');
  expect(pValueText(0.0032)).toBe('p = 0.0032');
  expect(pValueText(0.91)).toBe('p = 0.91');
  expect(pValueText(0.049)).toBe('p = 0.049');
  expect(pValueText(null)).toBe('—');
});

it("writes counts as English does, with thousands separators, without the browser's locale data", () => {
  const values = [0, 7, 999, 1000, 12_345, 999_999, 1_000_000, 1_234_567_890, -1, -1234, -0.0001, 0.5, 1234.5678, 1e15];
  for (const v of values) expect(int(v), String(v)).toBe(v.toLocaleString('en'));
  expect(int(undefined)).toBe('—');
});

it('writes a share the collector left out as "not shown", never a bare dash', () => {
  expect(mixShare(undefined)).toBe('not shown');
  expect(mixShare(0)).toBe('0 %');
  expect(mixShare(0.734)).toBe('73 %');
  expect(MIX_NOT_SHOWN_NOTE).toMatch(/^not shown: /);
});
