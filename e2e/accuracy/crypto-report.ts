/**
 * The report's crypto section: how right the records' crypto fields are (crypto-score.ts) and what each
 * crypto choice costs — the TLS phase per key type, chain depth, OCSP stapling and key-exchange group at
 * each RTT profile, against the server that differs from it in that one thing only (crypto-servers.ts).
 */
import { CRYPTO_SERVERS, type CryptoServerId } from '../lab/crypto-servers';
import { median } from '../seeds/lab-runs';
import { CRYPTO_FIELDS, scoreCrypto } from './crypto-score';
import type { Sample } from './samples';
import { uniqueConnections, wireSpan } from './score';

/** Each comparison: the baseline server, then the servers that differ from it in one thing. */
export const EFFECTS: { title: string; what: string; servers: CryptoServerId[] }[] = [
  {
    title: 'Certificate key',
    what: 'leaf key type and size (chain 1, X25519)',
    servers: ['ecdsa256', 'rsa2048', 'rsa4096'],
  },
  {
    title: 'Chain depth',
    what: 'certificates sent (ECDSA P-256 leaf and intermediates)',
    servers: ['ecdsa256', 'chain2', 'chain3'],
  },
  { title: 'OCSP stapling', what: 'a stapled OCSP response (ECDSA P-256, chain 1)', servers: ['ecdsa256', 'ocsp'] },
  {
    title: 'Key-exchange group',
    what: 'the same Node 24 server accepting only X25519, or only the post-quantum hybrid X25519MLKEM768',
    servers: ['pq-x25519', 'pq-hybrid'],
  },
];

const f1 = (x: number | null) => (x === null ? '–' : x.toFixed(1));
const signed = (x: number | null) => (x === null ? '–' : `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}`);
const pct = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(1)} %`);

export interface EffectCell {
  server: CryptoServerId;
  n: number;
  medianTls: number | null;
  /** Median TLS phase minus the baseline's (same browser and profile). */
  delta: number | null;
  /**
   * The same on the wire: the handshake's round trips as the delaying proxy saw them pass (score.ts
   * wireSpan: injected delay + the server's turnaround + the client's, without the browser's own work
   * before its first and after its last flight).
   */
  wireDelta: number | null;
}

/** Full handshakes only (a resumption sends no certificate): one TLS phase per connection. */
export function cryptoEffects(samples: readonly Sample[]): {
  title: string;
  what: string;
  servers: CryptoServerId[];
  rows: { browser: string; profile: string; rttMs: number; cells: EffectCell[] }[];
}[] {
  const full = uniqueConnections(
    samples.filter(
      (s) => s.arm === 'synthetic' && s.truth.resumed === false && CRYPTO_SERVERS.some((c) => c.id === s.server),
    ),
  );
  return EFFECTS.map((e) => {
    const keys = [
      ...new Set(
        full
          .filter((s) => e.servers.includes(s.server as CryptoServerId))
          .map((s) => `${s.browser}|${s.rttMs}|${s.profile}`),
      ),
    ].sort((a, b) => {
      const [ba, ra] = a.split('|');
      const [bb, rb] = b.split('|');
      return ba === bb ? Number(ra) - Number(rb) : ba! < bb! ? -1 : 1;
    });
    const rows = keys.map((k) => {
      const [browser, rtt, profile] = k.split('|') as [string, string, string];
      const cell = (id: CryptoServerId) =>
        full.filter((s) => s.server === id && s.browser === browser && s.profile === profile);
      const tlsOf = (id: CryptoServerId) => cell(id).map((s) => s.claimed.tls);
      const wireOf = (id: CryptoServerId) => cell(id).flatMap((s) => wireSpan(s.proxy, s.expected.rttMultiple) ?? []);
      const base = median(tlsOf(e.servers[0]!));
      const baseWire = median(wireOf(e.servers[0]!));
      const cells = e.servers.map((id) => {
        const xs = tlsOf(id);
        const m = median(xs);
        const w = median(wireOf(id));
        return {
          server: id,
          n: xs.length,
          medianTls: m,
          delta: m === null || base === null ? null : m - base,
          wireDelta: w === null || baseWire === null ? null : w - baseWire,
        };
      });
      return { browser, profile, rttMs: Number(rtt), cells };
    });
    return { ...e, rows };
  });
}

function table(head: string[], rows: (string | number)[][]): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

export function renderCryptoSection(samples: readonly Sample[]): string[] {
  const score = scoreCrypto(samples);
  const out: string[] = [];
  out.push('## Crypto fields against the servers');
  out.push('');
  out.push(
    'Every crypto field a record states, compared with what the server did: cipher and group from its own log per connection ' +
      '(nginx `$ssl_cipher`/`$ssl_curve`; the Node ≥ 24 servers accept one group each), key, chain and stapling from its ' +
      'configuration (`e2e/lab/crypto-servers.ts`; chain bytes measured from the files it serves), the signature scheme the ' +
      "leaf's key implies (ECDSA P-256 → ecdsa_secp256r1_sha256, RSA → rsa_pss_rsae_sha256), and no ECH anywhere. Names are " +
      'compared in one spelling (OpenSSL and IANA cipher names; x25519 = X25519, P256 = secp256r1 = prime256v1). Stapling is ' +
      'scored on full handshakes only. A field a record leaves out is no wrong claim; *stated* is how often the synthetic ' +
      'arm stated it on full handshakes whose truth is known.',
  );
  out.push('');
  out.push(
    table(
      ['field', 'claims', 'right', 'accuracy', 'stated (synthetic, full)', 'wrong (first five)'],
      CRYPTO_FIELDS.map((f) => {
        const x = score.fields[f];
        return [
          `\`${f}\``,
          x.n,
          x.correct,
          pct(x.n ? x.correct / x.n : null),
          x.expected ? `${x.stated}/${x.expected}` : '–',
          x.wrong.join('; ') || '–',
        ];
      }),
    ),
  );
  out.push('');
  out.push(
    `**cryptoFieldAccuracy ${pct(score.accuracy)}** of ${score.n} stated fields; the synthetic arm stated ${pct(score.coverage)} of the fields it should.`,
  );
  out.push('');
  out.push('## Crypto effects: TLS phase per key, chain, stapling and group');
  out.push('');
  out.push(
    "Median TLS phase (ms, the browser's own `connectEnd − secureConnectionStart`) of full handshakes in the synthetic arm's " +
      'cold visits, per browser and RTT profile, and its difference (Δ) from the first server of each table, which differs from ' +
      'the others in that one thing only. n = connections. At 0 ms RTT the difference is CPU (signing, verifying, parsing); ' +
      'at higher RTT a larger first flight can also cost round trips (TCP initial window, or the post-quantum key share). ' +
      "Δ wire is the same difference in the handshake's span as the delaying proxy saw it pass (injected delay plus both " +
      "ends' turnaround): the part of Δ the server and the network account for; Δ − Δ wire is the browser's own work. " +
      'Medians of few connections on a shared machine: read the load average at the top before the figures.',
  );
  for (const e of cryptoEffects(samples)) {
    out.push('');
    out.push(`### ${e.title} — ${e.what}`);
    out.push('');
    if (!e.rows.length) {
      out.push('No full handshakes with these servers in this run.');
      continue;
    }
    out.push(
      table(
        [
          'browser',
          'profile',
          ...e.servers.flatMap((id, i) => (i === 0 ? [`\`${id}\` ms (n)`] : [`\`${id}\` ms (n)`, 'Δ ms', 'Δ wire ms'])),
        ],
        e.rows.map((r) => [
          r.browser,
          `${r.profile} (${r.rttMs} ms)`,
          ...r.cells.flatMap((c, i) =>
            i === 0
              ? [`${f1(c.medianTls)} (${c.n})`]
              : [`${f1(c.medianTls)} (${c.n})`, signed(c.delta), signed(c.wireDelta)],
          ),
        ]),
      ),
    );
  }
  out.push('');
  return out;
}
