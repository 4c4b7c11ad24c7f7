/** Parameters written into the SQL for the embedded store: every value a literal, never SQL. */
import { describe, expect, it } from 'vitest';
import { inlineParams, sqlLiteral } from '../../src/platform/store/inline-params';

describe('inlined query parameters', () => {
  it('writes each placeholder as its value cast to the declared type', () => {
    expect(
      inlineParams('SELECT x FROM t WHERE site = {site:String} AND ts >= {from:Int64} AND c IN {cs:Array(String)}', {
        site: 'a.example',
        from: 1_796_169_600_000,
        cs: ['DE', 'FR'],
      }),
    ).toBe(
      "SELECT x FROM t WHERE site = CAST('a.example' AS String) AND ts >= CAST(1796169600000 AS Int64) AND c IN CAST(['DE', 'FR'] AS Array(String))",
    );
    expect(inlineParams("f({ t : DateTime64(3, 'UTC') })", { t: '2026-12-01 00:00:00.000' })).toBe(
      "f(CAST('2026-12-01 00:00:00.000' AS DateTime64(3, 'UTC')))",
    );
  });

  it('escapes every character that could end a string literal or change its meaning', () => {
    expect(sqlLiteral("it's")).toBe("'it\\'s'");
    expect(sqlLiteral('back\\slash')).toBe("'back\\\\slash'");
    expect(sqlLiteral("\\' OR 1 = 1 --")).toBe("'\\\\\\' OR 1 = 1 --'");
    expect(sqlLiteral('a\0b\nc\rd\te\bf\fg')).toBe("'a\\0b\\nc\\rd\\te\\bf\\fg'");
    expect(sqlLiteral(['x', "y'"])).toBe("['x', 'y\\'']");
    expect(sqlLiteral(-1.5)).toBe('-1.5');
    expect(sqlLiteral(12n)).toBe('12');
  });

  it('refuses a value with no literal and a placeholder with no value', () => {
    expect(() => sqlLiteral(Number.NaN)).toThrow(/finite/);
    expect(() => sqlLiteral(Infinity)).toThrow(/finite/);
    expect(() => sqlLiteral({ a: 1 })).toThrow(/no SQL literal/);
    expect(() => sqlLiteral(null)).toThrow(/no SQL literal/);
    expect(() => inlineParams('SELECT {a:String}, {b:String}', { a: 'x' })).toThrow(/"b" has no value/);
  });
});
