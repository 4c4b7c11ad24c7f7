/**
 * One observed connection → the record the collector receives, built with the shared classifier so
 * synthetic and RUM records follow the same rules. The browser's own report (CDP + NetLog, or
 * Firefox's security info) is `observed`; a site's Server-Timing `tls` metric still wins for version
 * and resumption, as in the extension.
 */
import type { HandshakeRecord } from '@tlsrum/shared';
import { measuredFields, type MeasuredConnection } from '@tlsrum/shared/classify';

export interface RecordEnv {
  browser: HandshakeRecord['browser'];
  browserMajor: number;
  os: HandshakeRecord['os'];
  clientToken: string;
}

export function buildRecord(input: MeasuredConnection & { env: RecordEnv }): HandshakeRecord {
  return { ...measuredFields(input).fields, source: 'synthetic', clientToken: input.env.clientToken };
}

export function osOfPlatform(platform: NodeJS.Platform = process.platform): HandshakeRecord['os'] {
  if (platform === 'linux') return 'linux';
  if (platform === 'darwin') return 'macos';
  if (platform === 'win32') return 'windows';
  return 'other';
}

/** "HeadlessChrome/156.0.8078.79", "Chrome/156…", "firefox/153.7.0esr" → 156 / 153. */
export function majorOf(version: string): number {
  const m = /(\d+)\.\d+/.exec(version);
  return m ? Math.min(Number(m[1]), 999) : 0;
}
