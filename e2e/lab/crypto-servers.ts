/**
 * The crypto-lens servers: one TLS 1.3 + h2 server per certificate / key-exchange arm, each
 * differing from `ecdsa256` in exactly one thing, so a TLS-phase difference between two of them is that
 * thing's cost. nginx (OpenSSL 3.0) serves the certificate arms; the key-exchange arms are Node ≥ 24 TLS
 * servers (OpenSSL 3.5: the only server here that can do X25519MLKEM768), see node-tls-server.mjs.
 * Certificates, nginx blocks and the Node process: crypto-lab.ts.
 *
 * Each server's configuration is declared once here (CryptoSpec) and is the truth the accuracy report
 * scores the records' crypto fields against; chain bytes are measured from the files served.
 */
import type { ServerSpec } from './servers';

export type CryptoServerId =
  'rsa2048' | 'rsa4096' | 'ecdsa256' | 'chain2' | 'chain3' | 'ocsp' | 'pq-hybrid' | 'pq-x25519';

/** What a server's certificate and key exchange are: the truth for the records' crypto fields. */
export interface CryptoSpec {
  keyType: 'rsa' | 'ecdsa';
  keyBits: number;
  /** Certificates the server sends: the leaf plus depth − 1 intermediates (never the root). */
  chainDepth: number;
  ocspStapled: boolean;
  /** Key-exchange groups the server accepts, in its order (OpenSSL names). */
  groups: string[];
  /** What the arm stands for in the effect table: `key`, `chain`, `ocsp` or `group`. */
  arm: 'key' | 'chain' | 'ocsp' | 'group' | 'baseline';
}

/** The main lab leaf (every other server): ECDSA P-256 signed by the lab CA, nothing stapled. */
export const LAB_LEAF_CRYPTO: CryptoSpec = {
  keyType: 'ecdsa',
  keyBits: 256,
  chainDepth: 1,
  ocspStapled: false,
  groups: ['X25519', 'prime256v1'],
  arm: 'baseline',
};

const CLASSIC = ['X25519', 'prime256v1'];
const base = { tlsVersion: '1.3', alpn: 'h2', resumption: true, earlyData: false, transport: 'tcp' } as const;

export const CRYPTO_SERVERS: readonly (ServerSpec & { id: CryptoServerId; crypto: CryptoSpec })[] = [
  {
    ...base,
    id: 'ecdsa256',
    software: 'nginx',
    description: 'Crypto baseline: TLS 1.3 + h2, ECDSA P-256 leaf signed by the lab CA (chain 1), no stapling',
    crypto: { ...LAB_LEAF_CRYPTO, groups: CLASSIC, arm: 'baseline' },
  },
  {
    ...base,
    id: 'rsa2048',
    software: 'nginx',
    description: 'As ecdsa256 with an RSA-2048 leaf',
    crypto: { keyType: 'rsa', keyBits: 2048, chainDepth: 1, ocspStapled: false, groups: CLASSIC, arm: 'key' },
  },
  {
    ...base,
    id: 'rsa4096',
    software: 'nginx',
    description: 'As ecdsa256 with an RSA-4096 leaf',
    crypto: { keyType: 'rsa', keyBits: 4096, chainDepth: 1, ocspStapled: false, groups: CLASSIC, arm: 'key' },
  },
  {
    ...base,
    id: 'chain2',
    software: 'nginx',
    description: 'As ecdsa256, leaf signed by an intermediate: sends 2 certificates',
    crypto: { ...LAB_LEAF_CRYPTO, chainDepth: 2, groups: CLASSIC, arm: 'chain' },
  },
  {
    ...base,
    id: 'chain3',
    software: 'nginx',
    description: 'As ecdsa256, two intermediates: sends 3 certificates',
    crypto: { ...LAB_LEAF_CRYPTO, chainDepth: 3, groups: CLASSIC, arm: 'chain' },
  },
  {
    ...base,
    id: 'ocsp',
    software: 'nginx',
    description: 'As ecdsa256 with a stapled OCSP response signed by the lab CA (ssl_stapling_file)',
    crypto: { ...LAB_LEAF_CRYPTO, ocspStapled: true, groups: CLASSIC, arm: 'ocsp' },
  },
  {
    ...base,
    id: 'pq-hybrid',
    software: 'node',
    description: 'Node ≥ 24 (OpenSSL 3.5) TLS 1.3 + h2, ECDSA P-256, accepts only X25519MLKEM768 (post-quantum hybrid)',
    crypto: { ...LAB_LEAF_CRYPTO, groups: ['X25519MLKEM768'], arm: 'group' },
  },
  {
    ...base,
    id: 'pq-x25519',
    software: 'node',
    description: 'The same Node server accepting only X25519 (classical)',
    crypto: { ...LAB_LEAF_CRYPTO, groups: ['X25519'], arm: 'group' },
  },
];

export const CRYPTO_SERVER_IDS: CryptoServerId[] = CRYPTO_SERVERS.map((s) => s.id);
export const cryptoOf = (s: ServerSpec): CryptoSpec => s.crypto ?? LAB_LEAF_CRYPTO;
