/**
 * pnpm lab [start] [--dir DIR] [--no-quic]   start the lab in the foreground; Ctrl-C (or `pnpm lab stop`) stops it
 * pnpm lab stop [--dir DIR]                  stop a lab started by `pnpm lab` (SIGTERM to its pid)
 * pnpm lab status [--dir DIR]                print the running lab's state (ports, pids, URLs)
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_LAB_DIR, isAlive, startLab, stateFile, type LabState } from './lab';

const args = process.argv.slice(2);
const cmd = args[0] && !args[0].startsWith('-') ? args[0] : 'start';
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
