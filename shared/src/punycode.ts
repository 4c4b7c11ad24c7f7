/**
 * Punycode (RFC 3492) decoding and encoding of one label, pure TypeScript. The hostname check validates
 * `xn--` labels with it instead of trusting the platform's IDNA conversion: Node's `domainToASCII` accepts
 * some malformed A-labels in one version and refuses them in another, and a hostname must be valid or not
 * whatever runs the check.
 */
const BASE = 36;
const T_MIN = 1;
const T_MAX = 26;
const SKEW = 38;
const DAMP = 700;
const INITIAL_BIAS = 72;
const INITIAL_N = 128;
const MAX_CODE_POINT = 0x10ffff;

function adapt(delta: number, numPoints: number, firstTime: boolean): number {
  let d = firstTime ? Math.floor(delta / DAMP) : delta >> 1;
  d += Math.floor(d / numPoints);
  let k = 0;
  while (d > ((BASE - T_MIN) * T_MAX) >> 1) {
    d = Math.floor(d / (BASE - T_MIN));
    k += BASE;
  }
  return k + Math.floor(((BASE - T_MIN + 1) * d) / (d + SKEW));
}

function digitOf(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30 + 26; // 0-9 → 26-35
  if (c >= 0x61 && c <= 0x7a) return c - 0x61; // a-z → 0-25
  if (c >= 0x41 && c <= 0x5a) return c - 0x41; // A-Z → 0-25
  return -1;
}

const charOf = (d: number): string => String.fromCharCode(d < 26 ? 0x61 + d : 0x30 + d - 26);

const threshold = (k: number, bias: number): number => (k <= bias ? T_MIN : k >= bias + T_MAX ? T_MAX : k - bias);

/** The code points `input` (the part after `xn--`) encodes, or null when it is not valid Punycode. */
export function punycodeDecode(input: string): string | null {
  const out: number[] = [];
  const basicEnd = input.lastIndexOf('-');
  for (let j = 0; j < Math.max(basicEnd, 0); j++) {
    const c = input.charCodeAt(j);
    if (c >= 0x80) return null;
    out.push(c);
  }
  let n = INITIAL_N;
  let bias = INITIAL_BIAS;
  let i = 0;
  for (let pos = basicEnd > 0 ? basicEnd + 1 : 0; pos < input.length;) {
    const oldI = i;
    for (let w = 1, k = BASE; ; k += BASE) {
      if (pos >= input.length) return null;
      const digit = digitOf(input.charCodeAt(pos++));
      if (digit < 0) return null;
      i += digit * w;
      if (i > MAX_CODE_POINT * (out.length + 1)) return null; // overflow: no valid label gets here
      const t = threshold(k, bias);
      if (digit < t) break;
      w *= BASE - t;
    }
    bias = adapt(i - oldI, out.length + 1, oldI === 0);
    n += Math.floor(i / (out.length + 1));
    i %= out.length + 1;
    if (n > MAX_CODE_POINT || (n >= 0xd800 && n <= 0xdfff)) return null;
    out.splice(i++, 0, n);
  }
  return String.fromCodePoint(...out);
}

/** `label` (lower-case Unicode) as Punycode, without the `xn--` prefix. */
export function punycodeEncode(label: string): string {
  const cps = Array.from(label, (c) => c.codePointAt(0)!);
  let out = cps
    .filter((c) => c < 0x80)
    .map((c) => String.fromCharCode(c))
    .join('');
  const basic = out.length;
  if (basic > 0) out += '-';
  let n = INITIAL_N;
  let bias = INITIAL_BIAS;
  let delta = 0;
  for (let h = basic; h < cps.length;) {
    const m = Math.min(...cps.filter((c) => c >= n));
    delta += (m - n) * (h + 1);
    n = m;
    for (const c of cps) {
      if (c < n) delta++;
      if (c !== n) continue;
      let q = delta;
      for (let k = BASE; ; k += BASE) {
        const t = threshold(k, bias);
        if (q < t) break;
        out += charOf(t + ((q - t) % (BASE - t)));
        q = Math.floor((q - t) / (BASE - t));
      }
      out += charOf(q);
      bias = adapt(delta, h + 1, h === basic);
      delta = 0;
      h++;
    }
    delta++;
    n++;
  }
  return out;
}

/**
 * Whether an `xn--` label is a canonical A-label: it decodes, encodes at least one non-ASCII code point,
 * holds no control or space, and encodes back to itself. With a converter, the decoded U-label must also convert back to the same
 * label (IDNA's own rules: no disallowed code points).
 */
export function isValidALabel(label: string, toAscii?: (domain: string) => string): boolean {
  if (!label.startsWith('xn--')) return true;
  const encoded = label.slice(4);
  const unicode = punycodeDecode(encoded);
  if (unicode === null || !/[^\p{ASCII}]/u.test(unicode)) return false;
  // Controls, separators and unpaired surrogates are never in a host name (IDNA disallows them; checked
  // here so that a caller without a converter refuses them too).
  if (/[\p{Cc}\p{Cs}\p{Z}]/u.test(unicode)) return false;
  if (punycodeEncode(unicode) !== encoded) return false;
  return toAscii ? toAscii(unicode) === label : true;
}
