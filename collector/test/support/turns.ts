/**
 * The event loop's turns counted from now: how often long work run between requests (platform/work.ts)
 * handed the thread back. `count` so far; `stop()` ends the count and returns it.
 */
export function countTurns(): { readonly count: number; stop(): number } {
  let turns = 0;
  let ticking = true;
  const tick = () => {
    turns++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get count() {
      return turns;
    },
    stop() {
      ticking = false;
      return turns;
    },
  };
}
