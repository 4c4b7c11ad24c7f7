import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, ConfigSchema, configTable, loadConfig } from '../../src/platform/config';
import { leaves } from '../../src/platform/env-schema';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({}, '/srv/tlsrum');
    expect(c).toMatchObject({
      host: '127.0.0.1',
      port: 8787,
      dataDir: '/srv/tlsrum/data',
      clickhouse: null,
      flushMaxRows: 25_000,
      flushIntervalMs: 1000,
      bodyLimitBytes: 262_144,
      inflatedLimitBytes: 1_048_576,
      minClientsPerCell: 20,
    });
  });
  it('has the documented hardening defaults', () => {
    const c = loadConfig({}, '/srv/tlsrum');
    expect(c).toMatchObject({
      spoolDir: '/srv/tlsrum/data/spool',
      spoolMaxBytes: 512 * 1024 * 1024,
      recentBatches: 200_000,
      shutdownDrainMs: 10_000,
      rateLimitPerMinute: 600,
      maxEventLoopDelayMs: 1000,
      maxHeapUsedBytes: 0,
      corsOrigins: [],
      requestTimeoutMs: 30_000,
    });
    expect(loadConfig({ DATA_DIR: '/d', SPOOL_DIR: 'sp' }, '/w').spoolDir).toBe('/w/sp');
    expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '0', MAX_EVENT_LOOP_DELAY_MS: '0' })).toMatchObject({
      rateLimitPerMinute: 0,
      maxEventLoopDelayMs: 0,
    });
  });
  it('reads CORS origins: Chromium extension ids, any Firefox extension, web origins', () => {
    const c = loadConfig({
      CORS_ORIGINS:
        'chrome-extension://abcdefghijklmnopabcdefghijklmnop, moz-extension://*,https://dash.example.net:8443',
    });
    expect(c.corsOrigins).toEqual([
      'chrome-extension://abcdefghijklmnopabcdefghijklmnop',
      'moz-extension://*',
      'https://dash.example.net:8443',
    ]);
  });
  it('reads a ClickHouse server configuration', () => {
    const c = loadConfig({
      CLICKHOUSE_URL: 'https://ch.internal:8443',
      CLICKHOUSE_USER: 'ingest',
      CLICKHOUSE_PASSWORD: 's',
      CLICKHOUSE_DATABASE: 'rum',
    });
    expect(c.clickhouse).toEqual({
      url: 'https://ch.internal:8443',
      username: 'ingest',
      password: 's',
      database: 'rum',
      cluster: null,
    });
  });
  it.each([
    [{ PORT: 'eighty' }, /PORT must be a whole number/],
    [{ PORT: '70000' }, /PORT must be between 0 and 65535/],
    [{ FLUSH_MAX_ROWS: '0' }, /FLUSH_MAX_ROWS must be between/],
    [{ CLICKHOUSE_URL: 'tcp://x:9000' }, /CLICKHOUSE_URL must be an http\(s\) URL/],
    [{ CLICKHOUSE_DATABASE: 'x;drop' }, /CLICKHOUSE_DATABASE must be an identifier/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
    [{ ADMIN_TOKEN: 'short' }, /ADMIN_TOKEN must be at least 128 bits/],
    [{ TRUST_PROXY: 'yes' }, /TRUST_PROXY must be false, the number of proxies/],
    [{ BODY_LIMIT_BYTES: '2000000', INFLATED_LIMIT_BYTES: '1000000' }, /INFLATED_LIMIT_BYTES must be at least/],
    [{ MIN_CLIENTS_PER_CELL: '20', ALERT_MIN_CLIENTS: '5' }, /ALERT_MIN_CLIENTS must be at least MIN_CLIENTS_PER_CELL/],
    [{ CORS_ORIGINS: '*' }, /CORS_ORIGINS: "\*" is not an origin/],
    [{ CORS_ORIGINS: 'https://example.com/path' }, /CORS_ORIGINS/],
    [{ CORS_ORIGINS: 'chrome-extension://short' }, /CORS_ORIGINS/],
    [{ SPOOL_MAX_BYTES: '10' }, /SPOOL_MAX_BYTES must be between/],
    [{ RATE_LIMIT_PER_MINUTE: '-1' }, /RATE_LIMIT_PER_MINUTE must be a whole number/],
  ])('refuses %o with a message naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
  it('names every variable once, each with a meaning; every default is a value its variable accepts', () => {
    const all = leaves(ConfigSchema);
    expect(new Set(all.map((l) => l.env)).size).toBe(all.length);
    for (const l of all) expect(l.description.length, l.env).toBeGreaterThan(5);
    const spelledOut = Object.fromEntries(
      all
        .filter((l) => l.default !== undefined && l.default !== null)
        .map((l) => [l.env, Array.isArray(l.default) ? l.default.join(',') : String(l.default)]),
    );
    expect(Object.keys(spelledOut).length).toBeGreaterThan(30);
    expect(loadConfig(spelledOut, '/srv/tlsrum')).toEqual(loadConfig({}, '/srv/tlsrum'));
  });
  it('is documented by the table in docs/configuration.md, generated from the schema (`pnpm collector config`)', () => {
    const readme = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');
    const table = readme.match(/<!-- config-table[^>]*-->\n([\s\S]*?)\n<!-- \/config-table -->/)?.[1];
    expect(table).toBe(configTable());
  });
});
