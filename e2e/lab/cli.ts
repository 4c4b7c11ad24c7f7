/**
 * `pnpm lab`: the lab itself, in the foreground. Its commands and options, for the person running it: USAGE
 * below (`--help`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { handleArgs } from './cli-args';
import { DEFAULT_LAB_DIR, isAlive, startLab, stateFile, type LabState } from './lab';

const USAGE = `usage: pnpm lab [start] [--dir DIR] [--no-quic]   start the lab; Ctrl-C (or pnpm lab stop) stops it
       pnpm lab stop [--dir DIR]                  stop a lab started by pnpm lab (or what a killed one left running)
       pnpm lab status [--dir DIR]                print the running lab's ports, processes and addresses
       pnpm lab:accuracy --help, pnpm lab:seeds --help   the lab's two reports

The lab is a set of real HTTPS servers on this machine (nginx for TLS 1.2 and 1.3, Caddy for HTTP/3, Node
for post-quantum key exchange) behind proxies that add a chosen network delay (a round-trip time per
profile, from 0 to 300 ms), with its own certificate authority and the servers' own logs of every
handshake: the ground truth tlsrum's measurements are checked against. \`pnpm lab\` prints each server's
address, the delaying proxies to point a browser at and the certificate to trust, and keeps running until
stopped.

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

/**
 * The servers of a lab still running. A lab whose supervisor was killed without its clean-up (SIGKILL, a closed
 * terminal) leaves them running: `stop` stops them, and so does a new `start` in the same folder. Only a process
 * whose command line names the lab's folder is one of them (a pid the system has since given to another program is
 * left alone).
 */
function leftovers(st: LabState): [string, number][] {
  return Object.entries(st.pids).filter(([, pid]) => isAlive(pid) && runsIn(pid, st.dir));
}

/** Whether process `pid`'s command line names a file in the lab folder `dir` (each server is started with its files there). */
function runsIn(pid: number, dir: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes(`${dir}/`);
  } catch {
    return false;
  }
}

/** SIGTERM to each, then SIGKILL to any still running after 5 s. */
async function stopPids(pids: number[]): Promise<void> {
  for (const pid of pids) process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 5_000;
  while (pids.some(isAlive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const pid of pids.filter(isAlive)) process.kill(pid, 'SIGKILL');
  const killed = Date.now() + 2_000;
  while (pids.some(isAlive) && Date.now() < killed) await new Promise((r) => setTimeout(r, 100));
}

function readState(): LabState | null {
  return existsSync(stateFile(dir)) ? (JSON.parse(readFileSync(stateFile(dir), 'utf8')) as LabState) : null;
}

if (cmd === 'start') {
  const previous = readState();
  if (previous && isAlive(previous.supervisorPid)) {
    console.error(`lab: already running from ${dir} (pid ${previous.supervisorPid}); \`pnpm lab stop\` stops it`);
    process.exit(1);
  }
  const orphans = previous ? leftovers(previous) : [];
  if (orphans.length) {
    console.log(`lab: stopping what an earlier lab left running: ${orphans.map(([n, p]) => `${n} ${p}`).join(', ')}`);
    await stopPids(orphans.map(([, pid]) => pid));
  }
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
  if (!st || (!isAlive(st.supervisorPid) && leftovers(st).length === 0)) {
    console.log('lab: not running');
    process.exit(0);
  }
  const orphaned = !isAlive(st.supervisorPid);
  if (!orphaned) {
    process.kill(st.supervisorPid, 'SIGTERM');
    const deadline = Date.now() + 15_000;
    while (isAlive(st.supervisorPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  } else
    console.log(
      `lab: its supervisor (pid ${st.supervisorPid}) is gone; stopping what it left running: ${leftovers(st)
        .map(([n, p]) => `${n} ${p}`)
        .join(', ')}`,
    );
  if (orphaned) await stopPids(leftovers(st).map(([, pid]) => pid));
  const left = leftovers(st);
  if (isAlive(st.supervisorPid) || left.length) {
    console.error(
      `lab: still running: ${[`supervisor ${st.supervisorPid}`, ...left.map(([n, p]) => `${n} ${p}`)].join(', ')}`,
    );
    process.exit(1);
  }
  console.log('lab: stopped');
} else {
  // status: the only other command handleArgs lets through.
  const st = readState();
  if (!st || !isAlive(st.supervisorPid)) {
    console.log('lab: not running');
    process.exit(1);
  }
  console.log(JSON.stringify(st, null, 2));
}
