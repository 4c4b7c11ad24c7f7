import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { GECKO_ID, TARGETS } from '../../src/manifest';

const root = resolve(import.meta.dirname, '../..');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

interface Manifest {
  manifest_version: number;
  version: string;
  permissions: string[];
  host_permissions: string[];
  optional_host_permissions?: string[];
  background: { service_worker?: string; scripts?: string[] };
  content_scripts?: unknown;
  action: { default_popup: string };
  options_ui: { page: string };
  browser_specific_settings?: { gecko: { id: string; data_collection_permissions: { required: string[] } } };
}

const read = (target: string) => JSON.parse(readFileSync(join(root, 'dist', target, 'manifest.json'), 'utf8')) as Manifest;

describe.each(TARGETS)('the %s build', (target) => {
  const dir = join(root, 'dist', target);
  const m = read(target);

  it('is MV3 with the package version and only the permissions the README justifies', () => {
    expect(m.manifest_version).toBe(3);
    expect(m.version).toBe(version);
    const expected = ['storage', 'alarms', 'scripting', ...(target === 'firefox' ? ['webRequest', 'webRequestBlocking'] : [])];
    expect([...m.permissions].sort()).toEqual([...expected].sort());
    expect(m.host_permissions).toEqual(['https://*/*', 'http://127.0.0.1/*', 'http://localhost/*', 'http://[::1]/*']);
    expect(m.optional_host_permissions).toEqual(['http://*/*']);
    // No static content script: it is registered only after opt-in.
    expect(m.content_scripts).toBeUndefined();
  });

  it('references files that exist in the build', () => {
    const files = [m.action.default_popup, m.options_ui.page, 'onboarding/index.html', 'content.js', ...(m.background.scripts ?? []), ...(m.background.service_worker ? [m.background.service_worker] : [])];
    for (const f of files) expect(existsSync(join(dir, f)), f).toBe(true);
    for (const page of ['popup', 'options', 'onboarding']) {
      const html = readFileSync(join(dir, page, 'index.html'), 'utf8');
      for (const [, src] of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
        if (src!.startsWith('http')) continue;
        expect(existsSync(resolve(dir, page, src!)), `${page}: ${src}`).toBe(true);
      }
    }
  });

  it('has classic scripts for the background and the content script, without the schema library', () => {
    for (const f of ['background.js', 'content.js']) {
      const code = readFileSync(join(dir, f), 'utf8');
      expect(code).not.toMatch(/^\s*import\s|\bexport\s*\{/m);
      expect(code).not.toMatch(/typebox|TypeBox/);
    }
    // The content script runs in every page: keep it small.
    expect(readFileSync(join(dir, 'content.js')).length).toBeLessThan(8 * 1024);
  });

  it('is zipped with the manifest at the root', () => {
    const zip = unzipSync(readFileSync(join(root, 'dist', `tlsrum-${target}-${version}.zip`)));
    expect(JSON.parse(new TextDecoder().decode(zip['manifest.json']))).toEqual(m);
    expect(Object.keys(zip)).toContain('content.js');
  });
});

describe('target differences', () => {
  it('Chromium runs a service worker and has no webRequest', () => {
    const m = read('chromium');
    expect(m.background).toEqual({ service_worker: 'background.js' });
    expect(m.browser_specific_settings).toBeUndefined();
  });
  it('Firefox runs an event page, has an add-on id and declares its data collection', () => {
    const m = read('firefox');
    expect(m.background).toEqual({ scripts: ['background.js'] });
    expect(m.browser_specific_settings?.gecko.id).toBe(GECKO_ID);
    expect(m.browser_specific_settings?.gecko.data_collection_permissions.required).toEqual(['browsingActivity']);
    expect(readFileSync(join(root, 'dist/firefox/background.js'), 'utf8')).toContain('getSecurityInfo');
  });
});
