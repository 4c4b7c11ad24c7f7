/**
 * The Content-Security-Policy for everything the collector serves — one place to adjust it.
 *
 * - ECharts (dashboard) sets inline `style` attributes on the elements it creates and draws on canvas:
 *   `style-src 'unsafe-inline'` (styles only; scripts stay 'self'). The world map is data, not images.
 * - `data:` images: the inline favicon and ECharts' "save as image" / Swagger UI's inline SVG icons.
 * - Swagger UI at /docs loads its scripts and styles from the collector itself ('self'); it also injects
 *   `<style>` elements and uses `data:` SVG icons, which the two rules above allow. test/docs-browser.test.ts
 *   renders it in Chromium and fails on any CSP violation.
 * - `blob:` workers are not needed today; add `worker-src blob:` here if the dashboard ever uses them.
 */
export const CSP_DIRECTIVES: Record<string, string[]> = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};
