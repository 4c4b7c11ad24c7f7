/**
 * Waits for an idle browser before a measured visit. Right after `puppeteer.launch` returns, Chromium
 * (156, headless, 2 cores) keeps its processes busy at 1.2–2.1 cores for ≈ 0.6 s (SystemInfo.getProcessInfo,
 * sampled every 100 ms). A visit started in that window queues its handshakes behind that work: in the
 * lab, the first visit after a launch had its TLS phase within tolerance of the wire in 84–86 % of
 * connections against 92–98 % for later visits, with ClientHellos leaving tens of ms after
 * `secureConnectionStart`. The runner measures the network, not its own browser's start-up.
 */
import type { Browser, CDPSession } from 'puppeteer-core';

export interface SettleOptions {
  /** Sampling window. */
  windowMs: number;
  /** CPU time of all browser processes in one window below which the window counts as idle. */
  idleCpuMs: number;
  /** Consecutive idle windows needed. */
  idleWindows: number;
  /** Give up waiting after this long (a busy page in another tab, a slow machine): the visit goes ahead. */
  maxMs: number;
}

export const DEFAULT_SETTLE: SettleOptions = { windowMs: 100, idleCpuMs: 20, idleWindows: 2, maxMs: 5_000 };

export interface Settled {
  waitedMs: number;
  /** false: maxMs passed first, or the browser cannot report its processes' CPU time. */
  idle: boolean;
}

interface ProcessInfo {
  processInfo: { type: string; id: number; cpuTime: number }[];
}

/** Total CPU seconds of the browser's processes, or null when the browser cannot tell. */
async function cpuSeconds(session: CDPSession): Promise<number | null> {
  try {
    const { processInfo } = (await session.send('SystemInfo.getProcessInfo')) as ProcessInfo;
    return processInfo.reduce((sum, p) => sum + p.cpuTime, 0);
  } catch {
    return null;
  }
}

/** Opens a browser-level session for settle(); Chromium only (Firefox's BiDi has no process CPU times). */
export async function openSettleSession(browser: Browser): Promise<CDPSession | null> {
  return browser
    .target()
    .createCDPSession()
    .catch(() => null);
}

export async function settle(session: CDPSession | null, o: SettleOptions = DEFAULT_SETTLE): Promise<Settled> {
  const start = Date.now();
  if (!session) return { waitedMs: 0, idle: false };
  let previous = await cpuSeconds(session);
  if (previous === null) return { waitedMs: Date.now() - start, idle: false };
  let quiet = 0;
  while (Date.now() - start < o.maxMs) {
    await new Promise((r) => setTimeout(r, o.windowMs));
    const now = await cpuSeconds(session);
    if (now === null) return { waitedMs: Date.now() - start, idle: false };
    quiet = (now - previous) * 1000 < o.idleCpuMs ? quiet + 1 : 0;
    previous = now;
    if (quiet >= o.idleWindows) return { waitedMs: Date.now() - start, idle: true };
  }
  return { waitedMs: Date.now() - start, idle: false };
}
