/**
 * One at a time, in call order: each `run` starts when the one before it has settled (fulfilled or not),
 * so a read-modify-write sequence never interleaves with another. A failed run rejects its own caller only.
 */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}
