/**
 * Reading a Chromium trace (puppeteer's page.tracing) for the extension-overhead bench: the CPU time a
 * content script's own code takes on the page's main thread, and the whole main thread's CPU time, so
 * that Chromium's cost of injecting any content script (isolated world, bindings) can be told apart
 * from what our script does.
 */
export interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  /** thread (CPU) time of the span, µs: unlike dur, excludes time the thread was descheduled */
  tdur?: number;
  pid: number;
  tid: number;
  args?: { name?: string; data?: { url?: string; scriptName?: string; frame?: string }; beginData?: { url?: string } };
}

export const TRACE_CATEGORIES = [
  'toplevel',
  'devtools.timeline',
  'v8',
  'v8.execute',
  'disabled-by-default-devtools.timeline',
];

export interface ScriptCost {
  /** CPU ms of the outermost spans attributed to the script (EvaluateScript, FunctionCall, compile). */
  ms: number;
  wallMs: number;
  /** how many such spans (≈ tasks the script ran in) */
  tasks: number;
  byKind: Record<string, number>;
}

const SCRIPT_SPANS = new Set([
  'EvaluateScript',
  'FunctionCall',
  'v8.compile',
  'v8.callFunction',
  'V8.CompileCode',
  'v8.run',
]);

/** The script's own spans; the same span nested in another of ours is counted once. */
export function scriptCost(events: readonly TraceEvent[], scriptUrl: string): ScriptCost {
  const ours = (e: TraceEvent) => (e.args?.data?.url ?? e.args?.data?.scriptName ?? '') === scriptUrl;
  const spans = events.filter((e) => e.ph === 'X' && SCRIPT_SPANS.has(e.name) && ours(e) && e.dur !== undefined);
  const cost: ScriptCost = { ms: 0, wallMs: 0, tasks: 0, byKind: {} };
  for (const e of outermost(spans)) {
    // CPU time of the thread (tdur): on a loaded machine wall time (dur) also counts waiting for a core.
    const cpu = (e.tdur ?? e.dur!) / 1000;
    cost.ms += cpu;
    cost.wallMs += e.dur! / 1000;
    cost.tasks += 1;
    cost.byKind[e.name] = (cost.byKind[e.name] ?? 0) + cpu;
  }
  return cost;
}

/**
 * CPU ms of every task on the main thread of the renderer that parsed `pageUrl` (the page's
 * CrRendererMain): the page's own work plus whatever any extension adds to it.
 */
export function rendererMainThreadMs(events: readonly TraceEvent[], pageUrl: string): number {
  const parse = events.find((e) => e.name === 'ParseHTML' && e.args?.beginData?.url === pageUrl);
  if (!parse) return NaN;
  const tasks = events.filter(
    (e) =>
      e.ph === 'X' &&
      e.pid === parse.pid &&
      e.tid === parse.tid &&
      (e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask') &&
      e.dur !== undefined,
  );
  return outermost(tasks).reduce((sum, e) => sum + (e.tdur ?? e.dur!) / 1000, 0);
}

/** Spans not contained in an earlier span of the same thread. */
function outermost(spans: readonly TraceEvent[]): TraceEvent[] {
  const out: TraceEvent[] = [];
  const endByThread = new Map<string, number>();
  for (const e of [...spans].sort((a, b) => a.ts - b.ts || b.dur! - a.dur!)) {
    const key = `${e.pid}:${e.tid}`;
    if ((endByThread.get(key) ?? -1) >= e.ts + e.dur!) continue;
    out.push(e);
    endByThread.set(key, e.ts + e.dur!);
  }
  return out;
}
