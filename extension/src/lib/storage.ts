/**
 * The part of `storage.local` we use, as an interface so the queue logic can be unit-tested over an
 * in-memory area. In the extension it is `api.storage.local`.
 */
export interface KeyValueArea {
  get(key: string): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
}

export async function readKey<T>(area: KeyValueArea, key: string, fallback: T): Promise<T> {
  const got = await area.get(key);
  return (got[key] as T | undefined) ?? fallback;
}

/** A Map-backed area with structured-clone semantics, for tests and as documentation of the contract. */
export class MemoryArea implements KeyValueArea {
  readonly data = new Map<string, unknown>();
  async get(key: string): Promise<Record<string, unknown>> {
    return this.data.has(key) ? { [key]: structuredClone(this.data.get(key)) } : {};
  }
  async set(items: Record<string, unknown>): Promise<void> {
    for (const [k, v] of Object.entries(items)) this.data.set(k, structuredClone(v));
  }
}
