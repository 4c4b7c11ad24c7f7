/**
 * `pnpm demo` says on every start why probes are off and how to issue a new read token, and prints no
 * secret while saying it (read tokens are shown once, when the sites are registered).
 */
import { describe, expect, it } from 'vitest';
import { demoNotes } from '../../src/demo/notes';
import { loadConfig } from '../../src/platform/config';

const BASE = 'http://127.0.0.1:8787';

describe('pnpm demo: what it says on start', () => {
  it('with probes off and no admin token: why probes are off, and the command that issues a read token', () => {
    const text = demoNotes(loadConfig({ PROBE_INTERVAL_MS: '0' }), BASE).join('\n');
    expect(text).toContain('TLS probes are off: the demo sites are made-up names');
    expect(text).toContain('PROBE_INTERVAL_MS=3600000');
    expect(text).toContain('ADMIN_TOKEN=$(openssl rand -hex 16) pnpm demo');
    expect(text).toContain(`curl -X POST ${BASE}/v1/sites -H "authorization: Bearer $ADMIN_TOKEN"`);
  });

  it('with an admin token: the command, never the token itself; no probe note when probes were asked for', () => {
    const admin = 'a'.repeat(12) + 'B7c9d0e1f2g3h4i5';
    const lines = demoNotes(loadConfig({ PROBE_INTERVAL_MS: '3600000', ADMIN_TOKEN: admin }), BASE);
    const text = lines.join('\n');
    expect(text).not.toContain(admin);
    expect(text).not.toContain('probes are off');
    expect(text).toContain('$ADMIN_TOKEN');
    expect(text).not.toContain('openssl rand');
  });
});
