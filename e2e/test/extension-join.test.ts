/**
 * connectionOfRecord(): which proxy connection an extension record measured (the record carries no
 * address or port, only its host and its connectStart).
 */
import { describe, expect, it } from 'vitest';
import { connectionOfRecord } from '../accuracy/extension-arm';

const conn = (t: number, id: string) => ({ t, id });

describe('connectionOfRecord', () => {
  it('as many records as connections: they pair in start order', () => {
    const opened = [conn(1_300, 'second'), conn(1_000, 'first')];
    expect(connectionOfRecord(1_002, [1_301, 1_002], opened)).toMatchObject({ id: 'first' });
    expect(connectionOfRecord(1_301, [1_301, 1_002], opened)).toMatchObject({ id: 'second' });
  });

  it('a connection no record measured: the record takes the one that started clearly nearest', () => {
    expect(connectionOfRecord(1_001, [1_001], [conn(1_000, 'measured'), conn(1_180, 'other pool')])).toMatchObject({
      id: 'measured',
    });
  });

  it('no join when the nearest is too far, not clearly nearest, or nearer to another record', () => {
    expect(connectionOfRecord(1_000, [1_000], [conn(1_100, 'a'), conn(1_400, 'b')])).toMatch(/none clearly nearest/);
    expect(connectionOfRecord(1_000, [1_000], [conn(1_002, 'a'), conn(1_010, 'b')])).toMatch(/none clearly nearest/);
    expect(connectionOfRecord(1_010, [1_010, 1_001], [conn(1_000, 'a'), conn(1_100, 'b'), conn(1_400, 'c')])).toMatch(
      /none clearly nearest/,
    );
  });
});
