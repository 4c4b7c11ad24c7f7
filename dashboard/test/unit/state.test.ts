import { expect, it } from 'vitest';
import { readFilters, apiParams } from '../../src/state';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const at = Date.UTC(2026, 10, 28, 14, 37, 12);

it('asks for whole days from a week on, whole hours below: the range the collector reads, the same all day (or hour) long', () => {
  const week = apiParams(readFilters('?range=7d'), at);
  expect(week).toMatchObject({ from: String(Date.UTC(2026, 10, 21)), to: String(Date.UTC(2026, 10, 29)) });
  expect(apiParams(readFilters('?range=7d'), at + 9 * HOUR)).toEqual(week);
  expect(apiParams(readFilters('?range=7d'), Date.UTC(2026, 10, 29, 0, 0, 1)).to).toBe(String(Date.UTC(2026, 10, 30)));

  const day = apiParams(readFilters('?range=24h'), at);
  expect(day).toMatchObject({ from: String(Date.UTC(2026, 10, 27, 14)), to: String(Date.UTC(2026, 10, 28, 15)) });
  expect(apiParams(readFilters('?range=24h'), at + 20 * 60_000)).toEqual(day);
  expect(Number(day.to) - Number(day.from)).toBe(DAY + HOUR);
});
