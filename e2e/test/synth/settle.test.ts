/**
 * settle() against a real Chromium: right after launch its processes are busy (start-up work), and the
 * runner must not start a measured visit until they are idle.
 */
import puppeteer from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_EXECUTABLES } from '@tlsrum/synth/options';
import { openSettleSession, settle } from '@tlsrum/synth/settle';

describe('settle (Chromium)', () => {
  it('does not return while a page keeps the browser busy, and then reports idle', async () => {
    const browser = await puppeteer.launch({
      executablePath: DEFAULT_EXECUTABLES.chromium,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    try {
      const session = await openSettleSession(browser);
      expect(session).not.toBeNull();
      const page = await browser.newPage();
      // The renderer spins its main thread for 1.5 s, then notes when it stopped.
      await page.evaluate(() => {
        setTimeout(() => {
          const end = Date.now() + 1_500;
          while (Date.now() < end);
          (globalThis as unknown as { spunUntil: number }).spunUntil = Date.now();
        }, 0);
      });
      // An idle budget below the CPU clock's 10 ms step: only windows without any CPU time count, so even
      // a loaded machine cannot make the spinning renderer look idle.
      const settled = await settle(session, { windowMs: 100, idleCpuMs: 5, idleWindows: 2, maxMs: 30_000 });
      const settledAt = Date.now();
      expect(settled.idle).toBe(true);
      const spunUntil = await page.evaluate(() => (globalThis as unknown as { spunUntil?: number }).spunUntil);
      expect(spunUntil).toBeTypeOf('number');
      expect(settledAt).toBeGreaterThanOrEqual(spunUntil!);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('without a session (a browser that cannot report its processes) it does not wait', async () => {
    expect(await settle(null)).toEqual({ waitedMs: 0, idle: false });
  });
});
