/**
 * Claims and verification attempts per client address and hour (IPv6: per /64, one allocation), in
 * memory only: the addresses are never logged or stored. A fixed window per address; the map is bounded,
 * the oldest address forgotten first.
 */
import { isIPv6 } from 'node:net';
import { ipv6Bytes } from '../../platform/net/address-ranges';

const WINDOW_MS = 3_600_000;
const MAX_ADDRESSES = 100_000;

function keyOf(ip: string): string {
  if (!isIPv6(ip) || ip.includes('.')) return ip.replace(/^::ffff:/, '');
  return ipv6Bytes(ip)
    .slice(0, 8)
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('');
}

export class AddressLimiter {
  private windows = new Map<string, { count: number; resetAt: number }>();

  constructor(private readonly perHour: number) {}

  /** Counts one attempt; returns the seconds to wait when over the limit, else null. */
  take(ip: string, now = Date.now()): number | null {
    const key = keyOf(ip);
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      this.windows.delete(key);
      w = { count: 0, resetAt: now + WINDOW_MS };
      if (this.windows.size >= MAX_ADDRESSES) this.windows.delete(this.windows.keys().next().value!);
      this.windows.set(key, w);
    }
    if (w.count >= this.perHour) return Math.max(1, Math.ceil((w.resetAt - now) / 1000));
    w.count++;
    return null;
  }
}
