/**
 * The client token: random, replaced every UTC day, used by the collector only to count distinct
 * clients (and suppress small cells). It links a client's records within one day at most.
 */
import { readKey, type KeyValueArea } from './storage';

interface StoredToken {
  token: string;
  day: string;
}

export function randomToken(bytes = 16): string {
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...raw))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

export async function currentClientToken(area: KeyValueArea, now = Date.now()): Promise<string> {
  const day = new Date(now).toISOString().slice(0, 10);
  const stored = await readKey<StoredToken | null>(area, 'clientToken', null);
  if (stored && stored.day === day) return stored.token;
  const token = randomToken();
  await area.set({ clientToken: { token, day } });
  return token;
}
