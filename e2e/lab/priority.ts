/**
 * Raises the scheduling priority of a process tree on Linux. `setpriority(PRIO_PROCESS, pid)` changes
 * one thread only (the id is a thread id), and children forked before the call keep their own: so
 * Caddy's Go threads and nginx's workers stayed at normal priority when only the parent was raised.
 * Needs root or CAP_SYS_NICE; without it, or off Linux, everything keeps its priority.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';

const list = (dir: string) => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const tid of list(`/proc/${pid}/task`)) {
    try {
      out.push(...readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}

/** Every thread of `pid` and of its descendants at this moment; returns how many were raised. */
export function raiseTreePriority(pid: number, niceness = -10): number {
  let raised = 0;
  const todo = [pid];
  const seen = new Set<number>();
  while (todo.length) {
    const p = todo.pop()!;
    if (seen.has(p)) continue;
    seen.add(p);
    const tids = list(`/proc/${p}/task`).map(Number);
    for (const tid of tids.length ? tids : [p]) {
      try {
        setPriority(tid, niceness);
        raised++;
      } catch {
        // Not permitted, or gone: keep the default priority.
      }
    }
    todo.push(...childrenOf(p));
  }
  return raised;
}
