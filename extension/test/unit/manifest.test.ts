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

const read = (target: string) =>
  JSON.parse(readFileSync(join(root, 'dist', target, 'manifest.json'), 'utf8')) as Manifest;

describe.each(TARGETS)('the %s build', (target) => {
  const dir = join(root, 'dist', target);
  const m = read(target);

  it('is MV3 with the package version and only the permissions the README justifies', () => {
    expect(m.manifest_version).toBe(3);
    expect(m.version).toBe(version);
    const expected = [
      'storage',
      'alarms',
      'scripting',
      ...(target === 'firefox' ? ['webRequest', 'webRequestBlocking'] : []),
    ];
    expect([...m.permissions].sort()).toEqual([...expected].sort());
    expect(m.host_permissions).toEqual(['https://*/*', 'http://127.0.0.1/*', 'http://localhost/*', 'http://[::1]/*']);
    expect(m.optional_host_permissions).toEqual(['http://*/*']);
    // No static content script: it is registered only after opt-in.
    expect(m.content_scripts).toBeUndefined();
  });

  it('references files that exist in the build', () => {
    const files = [
      m.action.default_popup,
      m.options_ui.page,
      'onboarding/index.html',
      'content.js',
      ...(m.background.scripts ?? []),
      ...(m.background.service_worker ? [m.background.service_worker] : []),
    ];
    for (const f of files) expect(existsSync(join(dir, f)), f).toBe(true);
    for (const page of ['popup', 'options', 'onboarding']) {
      const html = readFileSync(join(dir, page, 'index.html'), 'utf8');
      for (const [, src] of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
        if (src!.startsWith('http')) continue;
        expect(existsSync(resolve(dir, page, src!)), `${page}: ${src}`).toBe(true);
      }
    }
  });

  it('has icons for every state and size, and its texts in _locales (default en)', () => {
    const raw = m as unknown as {
      icons: Record<string, string>;
      action: { default_icon: Record<string, string> };
      default_locale: string;
      name: string;
    };
    expect(Object.keys(raw.icons)).toEqual(['16', '32', '48', '128']);
    for (const state of ['on', 'paused', 'off']) {
      for (const size of [16, 32, 48, 128]) {
        const png = readFileSync(join(dir, 'icons', `${state}-${size}.png`));
        // A PNG of that size: signature, then IHDR width and height.
        expect(png.subarray(1, 4).toString()).toBe('PNG');
        expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([size, size]);
      }
    }
    for (const f of [...Object.values(raw.icons), ...Object.values(raw.action.default_icon)])
      expect(existsSync(join(dir, f)), f).toBe(true);
    expect(raw.default_locale).toBe('en');
    const messages = JSON.parse(readFileSync(join(dir, '_locales/en/messages.json'), 'utf8')) as Record<
      string,
      { message: string }
    >;
    expect(messages[raw.name.replace(/^__MSG_(.+)__$/, '$1')]?.message).toMatch(/tlsrum/);
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
    // data_collection_permissions exists from Firefox 140 (Android 142): AMO's linter warns below.
    const gecko = m.browser_specific_settings as unknown as {
      gecko: { strict_min_version: string };
      gecko_android: { strict_min_version: string };
    };
    expect(parseFloat(gecko.gecko.strict_min_version)).toBeGreaterThanOrEqual(140);
    expect(parseFloat(gecko.gecko_android.strict_min_version)).toBeGreaterThanOrEqual(142);
    expect(readFileSync(join(root, 'dist/firefox/background.js'), 'utf8')).toContain('getSecurityInfo');
  });
});
