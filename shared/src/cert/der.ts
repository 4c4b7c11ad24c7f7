/**
 * Just enough DER to read what no API hands over on every platform: a certificate's key and signature
 * algorithm (the extension's background script, the probe on Node 20) and fields of OpenSSL's serialized
 * SSL_SESSION (the probe). No Node APIs: it runs in the extension too.
 */

export interface DerNode {
  /** The identifier octet (class, constructed bit, tag number < 31). */
  tag: number;
  /** Offset of the contents within the buffer. */
  start: number;
  end: number;
}

/** The element starting at `offset`; throws on truncated or long-form tags (never seen in these structures). */
export function readNode(buf: Uint8Array, offset: number): DerNode {
  if (offset + 2 > buf.length) throw new Error('DER: truncated');
  const tag = buf[offset]!;
  if ((tag & 0x1f) === 0x1f) throw new Error('DER: high tag numbers are not supported');
  let len = buf[offset + 1]!;
  let start = offset + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || start + n > buf.length) throw new Error('DER: bad length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[start + i]!;
    start += n;
  }
  const end = start + len;
  if (end > buf.length) throw new Error('DER: truncated');
  return { tag, start, end };
}

/** The children of a constructed element. */
export function children(buf: Uint8Array, node: DerNode): DerNode[] {
  const out: DerNode[] = [];
  for (let at = node.start; at < node.end;) {
    const child = readNode(buf, at);
    out.push(child);
    at = child.end;
  }
  return out;
}

/** An unsigned INTEGER's value (up to 2^53). */
export function readUint(buf: Uint8Array, node: DerNode): number {
  if (node.tag !== 0x02) throw new Error('DER: not an INTEGER');
  let v = 0;
  for (let i = node.start; i < node.end; i++) v = v * 256 + buf[i]!;
  return v;
}

/** An OBJECT IDENTIFIER in dotted form. */
export function readOid(buf: Uint8Array, node: DerNode): string {
  if (node.tag !== 0x06) throw new Error('DER: not an OBJECT IDENTIFIER');
  const parts: number[] = [];
  let v = 0;
  for (let i = node.start; i < node.end; i++) {
    v = v * 128 + (buf[i]! & 0x7f);
    if (!(buf[i]! & 0x80)) {
      if (parts.length === 0) parts.push(Math.min(2, Math.floor(v / 40)), v - Math.min(2, Math.floor(v / 40)) * 40);
      else parts.push(v);
      v = 0;
    }
  }
  return parts.join('.');
}
