import { expect, it } from 'vitest';
import { pValueText } from '../../src/format';

it('writes p-values as a reader expects them, never in scientific notation', () => {
  expect(pValueText(3e-9)).toBe('p < 0.0001');
  expect(pValueText(0.00009)).toBe('p < 0.0001');
  expect(pValueText(0.0001)).toBe('p = 0.0001');
  expect(pValueText(0.0032)).toBe('p = 0.0032');
  expect(pValueText(0.91)).toBe('p = 0.91');
  expect(pValueText(0.049)).toBe('p = 0.049');
  expect(pValueText(null)).toBe('—');
});
