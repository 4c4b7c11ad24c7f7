/**
 * `pnpm lab`: the lab itself, in the foreground. Its commands and options, for the person running it: USAGE
 * below (`--help`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { handleArgs } from './cli-args';
import { DEFAULT_LAB_DIR, isAlive, startLab, stateFile, type LabState } from './lab';

const USAGE = `usage: pnpm lab [start] [--dir DIR] [--no-quic]   start the lab; Ctrl-C (or pnpm lab stop) stops it
       pnpm lab stop [--dir DIR]                  stop a lab started by pnpm lab
       pnpm lab status [--dir DIR]                print the running lab's ports, processes and addresses
       pnpm lab:accuracy --help, pnpm lab:seeds --help   the lab's two reports

The lab is a set of real HTTPS servers on this machine (nginx for TLS 1.2 and 1.3, Caddy for HTTP/3, Node for
post-quantum key exchange) behind proxies that add a chosen network delay (a round-trip time per profile, from 0 to 300 ms), with its own
certificate authority and the servers' own logs of every handshake: the ground truth tlsrum's measurements are
checked against. \`pnpm lab\` prints each server's address, the delaying proxies to point a browser at and
the certificate to trust, and keeps running until stopped.

options:
  --dir DIR    the lab's folder: configuration, certificates, logs (default e2e/.lab)
  --no-quic    without the HTTP/3 server and its delaying relays
  --help       this text`;

const args = process.argv.slice(2);
const cmd =
  handleArgs(
    args,
    { usage: USAGE, flags: ['--no-quic'], values: ['--dir'], commands: ['start', 'stop', 'status'] },
    'lab',
  ).command ?? 'start';
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const dir = resolve(flag('--dir') ?? DEFAULT_LAB_DIR);

function readState(): LabState | null {
  return existsSync(stateFile(dir)) ? (JSON.parse(readFileSync(stateFile(dir), 'utf8')) as LabState) : null;
}

if (cmd === 'start') {
  const lab = await startLab({ dir, quic: !args.includes('--no-quic') });
  console.log(`lab: running from ${lab.dir} (pid ${process.pid})`);
  for (const [id, url] of Object.entries(lab.urls)) console.log(`  ${id.padEnd(11)} ${url}`);
  console.log(
    `  SOCKS5 proxies: ${Object.entries(lab.socks)
      .map(([p, port]) => `${p}=127.0.0.1:${port}`)
      .join(' ')}`,
  );
  if (Object.keys(lab.udp).length)
    console.log(
      `  QUIC relays:   ${Object.entries(lab.udp)
        .map(([p, a]) => `${p}=${a}`)
        .join(' ')}`,
    );
  console.log(`  Chromium: --ignore-certificate-errors-spki-list=${lab.ca.leafSpki} ; CA: ${lab.ca.caCert}`);
  console.log(`  collector: GEOIP_OVERRIDES=${lab.logs.geoipOverrides}`);
  console.log('lab: Ctrl-C or `pnpm lab stop` stops everything');
  let stopping = false;
  const stop = async (sig: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`lab: ${sig}: stopping`);
    await lab.stop();
    console.log('lab: stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  setInterval(() => {}, 1 << 30);
} else if (cmd === 'stop') {
  const st = readState();
  if (!st || !isAlive(st.supervisorPid)) {
    console.log('lab: not running');
    process.exit(0);
  }
  process.kill(st.supervisorPid, 'SIGTERM');
  const deadline = Date.now() + 15_000;
  while (isAlive(st.supervisorPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const left = Object.entries(st.pids).filter(([, pid]) => isAlive(pid));
  if (isAlive(st.supervisorPid) || left.length) {
    console.error(
      `lab: still running: ${[`supervisor ${st.supervisorPid}`, ...left.map(([n, p]) => `${n} ${p}`)].join(', ')}`,
    );
    process.exit(1);
  }
  console.log('lab: stopped');
} else if (cmd === 'status') {
  const st = readState();
  if (!st || !isAlive(st.supervisorPid)) {
    console.log('lab: not running');
    process.exit(1);
  }
  console.log(JSON.stringify(st, null, 2));
} else {
  console.error(`unknown command "${cmd}" (start, stop, status)`);
  process.exit(2);
}
