/** Navigation errors become one line a site owner can act on, Firefox's nameless security refusal included. */
import { describe, expect, it } from 'vitest';
import { describeNavigationError } from '../src/errors';

describe('navigation errors', () => {
  it("Firefox's bare NS_ERROR_GENERATE_FAILURE explains itself and says what to pass", () => {
    const line = describeNavigationError(new Error('NS_ERROR_GENERATE_FAILURE'));
    expect(line).toMatch(
      /^unreachable: NS_ERROR_GENERATE_FAILURE \(Firefox refused the connection for a security reason/,
    );
    expect(line).toContain('--ca FILE.pem');
    expect(line).toContain('self-signed certificate itself');
  });

  it('a known network error keeps its short reason', () => {
    expect(describeNavigationError(new Error('net::ERR_CONNECTION_REFUSED at https://a.test/'))).toBe(
      'unreachable: ERR_CONNECTION_REFUSED (nothing listens on that port)',
    );
  });
});
