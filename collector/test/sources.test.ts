/** Which table or rollup cut a query reads: the smallest that holds every dimension it needs. */
import { describe, expect, it } from 'vitest';
import { chooseTable } from '../src/queries/cells';
import { chooseSource, type SourceNeeds } from '../src/queries/sources';

const DAY = 86_400_000;
const end = Date.UTC(2026, 10, 23);
const month = { from: end - 30 * DAY, to: end };
const needs = (n: Partial<SourceNeeds>): SourceNeeds => ({ table: 'rollup', dimensions: [], filters: [], site: null, ...month, ...n });

describe('chooseSource', () => {
  it('reads the daily cuts for the dashboard views over whole days', () => {
    expect(chooseSource(needs({ dimensions: ['stack', 'mode'] })).name).toBe('daily-stack');
    expect(chooseSource(needs({ dimensions: ['country'] })).name).toBe('daily-country');
    expect(chooseSource(needs({ dimensions: ['stack'], bucket: 'day' })).name).toBe('daily-stack');
    expect(chooseSource(needs({ dimensions: ['tlsVersion'], site: 'a.example.com' })).name).toBe('daily-site-stack');
    expect(chooseSource(needs({ dimensions: [], filters: ['country'], site: 'a.example.com' })).name).toBe('daily-site-country');
  });

  it('falls back to the hourly rollup when no cut has the dimensions, the grain or the range', () => {
    expect(chooseSource(needs({ dimensions: ['stack'], filters: ['browser'] })).name).toBe('hourly');
    expect(chooseSource(needs({ dimensions: ['country', 'stack'] })).name).toBe('hourly');
    expect(chooseSource(needs({ dimensions: ['source'] })).name).toBe('hourly');
    expect(chooseSource(needs({ bucket: 'hour' })).name).toBe('hourly');
    expect(chooseSource(needs({ from: month.from + 3_600_000 })).name).toBe('hourly');
  });

  it('reads the raw table when asked to', () => {
    expect(chooseSource(needs({ table: 'raw', dimensions: ['country'] })).name).toBe('raw');
  });
});

describe('chooseTable', () => {
  it('widens a rollup range to whole hours, and to whole days from a week on', () => {
    const t = Date.UTC(2026, 10, 23, 10, 17, 5);
    expect(chooseTable({ from: t - 3 * DAY, to: t })).toEqual({ table: 'rollup', from: Date.UTC(2026, 10, 20, 10), to: Date.UTC(2026, 10, 23, 11) });
    expect(chooseTable({ from: t - 7 * DAY, to: t })).toEqual({ table: 'rollup', from: Date.UTC(2026, 10, 16), to: Date.UTC(2026, 10, 24) });
    expect(chooseTable({ from: t - DAY, to: t })).toEqual({ table: 'raw', from: t - DAY, to: t });
  });
});
