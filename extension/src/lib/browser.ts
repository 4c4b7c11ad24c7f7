/**
 * The WebExtension API object. Firefox exposes `browser` (promises); Chromium exposes `chrome`, which
 * returns promises in MV3 too. Both implement the subset we use with the same shapes.
 */
const scope = globalThis as { browser?: typeof chrome; chrome?: typeof chrome };

/**
 * The API object, looked up when called. The content script calls this only when it posts: in a
 * page, the first touch of the extension namespace makes Chromium build its bindings for the content
 * script's world (≈ 0.4 ms of the page's main thread, see BENCHMARKS.md), which must not happen
 * while the page loads.
 */
export function extensionApi(): typeof chrome {
  return (scope.browser ?? scope.chrome) as typeof chrome;
}

// Undefined outside an extension (unit tests import modules that mention it without calling it).
export const api = /* @__PURE__ */ extensionApi();

/** Build target, replaced at build time (`define`); `chromium` in unit tests. */
declare const __TARGET__: 'chromium' | 'firefox' | undefined;
declare const __VERSION__: string | undefined;
export const TARGET: 'chromium' | 'firefox' = typeof __TARGET__ === 'string' ? __TARGET__ : 'chromium';
export const VERSION: string = typeof __VERSION__ === 'string' ? __VERSION__ : '0.0.0';
