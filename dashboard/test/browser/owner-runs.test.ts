/**
 * A site owner's own synthetic runs in a real browser against a real collector: a registered site whose only
 * figures are three visitors (hidden under the 20-people rule) and its owner's run sent with the read token.
 * The site's view opens on the owner's runs and labels them; with "All sources" chosen instead, the hidden
 * panels point to them. Its own file: the embedded store opens one data directory per process.
 * Screenshot: test-artifacts/dashboard/dashboard-own-runs.png.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'puppeteer-core';
import type { HandshakeBatch, HandshakeRecord } from '@tlsrum/shared';
import example from '@tlsrum/shared/examples/batch.json' with { type: 'json' };
import { newReadToken } from '@tlsrum/collector/auth';
import { dashboardCollector, launchChromium, type TestCollector } from './support/collector';

const artifacts = fileURLToPath(new URL('../../../test-artifacts/dashboard/', import.meta.url));
const SITE = 'www.example.com';

let work: string;
let app: TestCollector;
let browser: Browser;
let token: string;

const records = (n: number, source: HandshakeRecord['source'], clientToken: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => ({
    ...(example.records[0] as HandshakeRecord),
    // A full TLS 1.3 handshake whose resumption state was seen: a bar of the comparison (unknown modes are not drawn).
    resumed: false,
    resumedSource: 'observed' as const,
    site: SITE,
    source,
    ts: Date.now() - 60_000 - i * 100,
    clientToken: clientToken(i),
  }));

async function send(recs: HandshakeRecord[], headers: Record<string, string> = {}) {
  const batch: HandshakeBatch = {
    v: 1,
    batchId: randomUUID(),
    sentAt: Date.now(),
    agent: { name: 'tlsrum-test', version: '1.0.0' },
    records: recs,
  };
  const res = await app.inject({
    method: 'POST',
    url: '/v1/handshakes',
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(batch),
  });
  expect(res.statusCode, res.body).toBe(202);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'tlsrum-dashboard-owner-'));
  app = await dashboardCollector(work, { MIN_CLIENTS_PER_CELL: '20' });
  const issued = newReadToken();
  token = issued.token;
  await app.sites.register(SITE, issued.hash);
  // Three visitors (too few to show) and the owner's run of 12 visits (one client), sent with the token.
  await send(records(3, 'rum', (i) => `visitor-token-${i}`));
  await send(
    records(12, 'synthetic', () => 'owner-run-token'),
    { authorization: `Bearer ${token}` },
  );
  await app.ingest.flush();
  await app.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const settled = (p: Page) =>
  p.waitForFunction(
    (n: number) =>
      document.body.dataset.panels === 'settled' &&
      ((window as unknown as { tlsrumDashboard?: { renders: number } }).tlsrumDashboard?.renders ?? 0) >= n,
    { timeout: 60_000 },
    2,
  );

describe("dashboard: the site owner's own synthetic runs", () => {
  it('a site view that shows nothing else opens on them, labelled as the owner’s, without the 20-people rule', async () => {
    const p = await browser.newPage();
    await p.setViewport({ width: 1280, height: 900 });
    await p.goto(`http://127.0.0.1:${(app.server.address() as { port: number }).port}/?range=24h&site=${SITE}`);
    await p.type('input[name=token]', token);
    await p.click('#apply-token');
    await settled(p);
    expect(new URL(p.url()).searchParams.get('source')).toBe('synthetic');
    const scope = await p.$eval('#scope', (s) => ({ text: s.textContent, own: s.classList.contains('own-runs') }));
    expect(scope.own).toBe(true);
    expect(scope.text).toContain(`Site ${SITE}: your own synthetic runs, sent with your read token.`);
    expect(scope.text).toContain('shown without the 20-people rule');
    expect(await p.$eval('#compare', (s) => s.getAttribute('data-state'))).toBe('ready');
    expect(await p.$eval('#compare .status', (s) => s.textContent)).not.toContain('hidden');
    // The answer says whose connections these are, and rests its sureness on them, not on people.
    const verdict = await p.$eval('#verdict', (s) => s.textContent ?? '');
    expect(verdict).toContain(`For your own synthetic runs of ${SITE},`);
    expect(verdict).toContain('How sure: 12 connections measured by your own runs');
    mkdirSync(artifacts, { recursive: true });
    await p.screenshot({ path: join(artifacts, 'dashboard-own-runs.png') });
    await p.close();
  });

  it('with "All sources" chosen, the hidden panels point to them, and the button shows them', async () => {
    const p = await browser.newPage();
    await p.setViewport({ width: 1280, height: 900 });
    await p.goto(`http://127.0.0.1:${(app.server.address() as { port: number }).port}/?range=24h&site=${SITE}`);
    await p.type('input[name=token]', token);
    await p.click('#apply-token');
    await settled(p);
    // The reader's own choice: every source, where the three visitors' group is hidden.
    await p.select('select[name=source]', '');
    await p.waitForFunction(
      () =>
        document.body.dataset.panels === 'settled' &&
        document.querySelector('#compare')?.getAttribute('data-state') === 'empty',
      { timeout: 60_000 },
    );
    expect(new URL(p.url()).searchParams.get('source')).toBeNull();
    expect(await p.$eval('#scope', (s) => s.classList.contains('own-runs'))).toBe(false);
    const status = await p.$eval('#compare .status', (s) => s.textContent ?? '');
    expect(status).toMatch(/hidden: fewer than 20 people/);
    expect(status).toContain('Your own synthetic runs of this site (sent with your read token) can be shown.');
    await p.click('#compare .status button.action');
    await p.waitForFunction(
      () =>
        new URL(location.href).searchParams.get('source') === 'synthetic' &&
        document.body.dataset.panels === 'settled' &&
        document.querySelector('#compare')?.getAttribute('data-state') === 'ready',
      { timeout: 60_000 },
    );
    expect(await p.$eval('#scope', (s) => s.classList.contains('own-runs'))).toBe(true);
    await p.close();
  });
});
