import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config';
import { removeDir, startApp, type TestApp } from '../support/helpers';

let t: TestApp;
beforeAll(
  async () =>
    (t = await startApp({
      OPERATOR_NAME: 'Example Networks Ltd',
      OPERATOR_CONTACT: 'privacy@example.net',
      RETENTION_DAYS: '90',
    })),
);
afterAll(async () => {
  await t.close();
  removeDir(t.dataDir);
});

describe('GET /v1/about', () => {
  it('says who runs the collector, how to reach them and how long records are kept', async () => {
    const res = await t.app.inject({ url: '/v1/about' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      operator: 'Example Networks Ltd',
      contact: 'privacy@example.net',
      privacyPolicyUrl: null,
      retentionDays: 90,
      stores: { country: true, address: false },
    });
  });

  it('answers null for what is not configured, and refuses a malformed contact at start', () => {
    expect(loadConfig({}, '/w').about).toEqual({ operator: null, contact: null, privacyPolicyUrl: null });
    expect(loadConfig({ OPERATOR_CONTACT: 'https://example.net/contact' }, '/w').about.contact).toBe(
      'https://example.net/contact',
    );
    expect(() => loadConfig({ OPERATOR_CONTACT: 'call us' }, '/w')).toThrow(ConfigError);
    expect(() => loadConfig({ OPERATOR_NAME: '<script>' }, '/w')).toThrow(/OPERATOR_NAME/);
    expect(() => loadConfig({ PRIVACY_POLICY_URL: 'ftp://x' }, '/w')).toThrow(/PRIVACY_POLICY_URL/);
  });
});
