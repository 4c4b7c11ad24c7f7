/**
 * Firefox and TCP 0-RTT. Chromium never sends TLS early data over TCP; Firefox does to a server with
 * `ssl_early_data on` once it trusts the CA (added to its own profile with certutil) and holds a
 * ticket. Through the lab's SOCKS proxy it sent none (seen in this lab), so the probe goes direct
 * (no injected delay) and checks what the page's timing entries say about the connections the server
 * logged as early data.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
import { classifyHandshake, connectionKindOf, type ConnectionTiming } from '@tlsrum/shared/classify';
import type { RunningLab } from '../lab/lab';
import { hostOf } from '../lab/servers';
import { readPageEntries, type PageEntry } from '@tlsrum/synth/page-entries';
import { connectionId, parseLabConn, readTruth, type LabConn } from './truth';

export interface ZeroRttProbeRow {
  visit: number;
  /** The server-side connection the entry's response came over (null when not joined). */
  connection: string | null;
  host: string;
  entryType: string;
  kind: string;
  serverEarlyData: boolean | null;
  serverResumed: boolean | null;
  rumClass: string | null;
  requestStart: number;
  connectEnd: number;
}

export interface ZeroRttProbe {
  browser: string;
  rows: ZeroRttProbeRow[];
  error?: string;
}

export async function firefoxZeroRttProbe(lab: RunningLab, visits = 3): Promise<ZeroRttProbe> {
  const profile = mkdtempSync(join(tmpdir(), 'tlsrum-ff-'));
  const names = (['a', 'b', 'c'] as const).map((p) => hostOf(p, 't13-0rtt'));
  const seen: { visit: number; entry: PageEntry; conn: LabConn | null }[] = [];
  let version = 'firefox';
  try {
    execFileSync('certutil', ['-N', '-d', `sql:${profile}`, '--empty-password']);
    execFileSync('certutil', ['-A', '-d', `sql:${profile}`, '-t', 'C,,', '-n', 'tlsrum-lab', '-i', lab.ca.caCert]);
    const browser = await puppeteer.launch({
      browser: 'firefox',
      executablePath: '/usr/bin/firefox-esr',
      headless: true,
      userDataDir: profile,
      extraPrefsFirefox: {
        'network.proxy.type': 0,
        'network.dns.localDomains': names.join(','),
        'network.predictor.enabled': false,
        'network.dns.disablePrefetch': true,
        'network.http.speculative-parallel-limit': 0,
      },
    });
    try {
      version = await browser.version();
      for (let v = 0; v < visits; v++) {
        const page = await browser.newPage();
        const conns = new Map<string, LabConn>();
        page.on('response', (r) => {
          const c = parseLabConn(r.headers()['x-lab-conn']);
          if (c) conns.set(r.url(), c);
        });
        await page.goto(lab.urls['t13-0rtt'], { waitUntil: 'load', timeout: 20_000 });
        await new Promise((r) => setTimeout(r, 300));
        for (const entry of await readPageEntries(page))
          seen.push({ visit: v, entry, conn: conns.get(entry.url) ?? null });
        await page.close();
        // nginx closes idle connections after 1 s: the next visit opens a new one with the ticket.
        await new Promise((r) => setTimeout(r, 1500));
      }
    } finally {
      await browser.close();
    }
  } catch (e) {
    return { browser: version, rows: [], error: e instanceof Error ? e.message.split('\n')[0] : String(e) };
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
  await new Promise((r) => setTimeout(r, 500));
  const truth = readTruth(lab.logs.dir);
  return {
    browser: version,
    rows: seen.map(({ visit, entry, conn }) => {
      const t = conn ? truth.lookup('t13-0rtt', conn, entry.timeOrigin + entry.timing.startTime) : null;
      const timing: ConnectionTiming = entry.timing;
      const kind = connectionKindOf(entry);
      return {
        visit,
        connection: t ? connectionId(t) : null,
        host: new URL(entry.url).hostname,
        entryType: timing.entryType,
        kind,
        serverEarlyData: t ? t.earlyData : null,
        serverResumed: t ? t.resumed : null,
        rumClass: kind === 'new' ? classifyHandshake({ timing }).handshakeClass : null,
        requestStart: timing.requestStart,
        connectEnd: timing.connectEnd,
      };
    }),
  };
}
