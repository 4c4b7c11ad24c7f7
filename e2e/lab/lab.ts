/**
 * Starts and stops the whole lab: lab CA, nginx (five TCP configurations), Caddy (HTTP/3), and the
 * delaying proxies, all on loopback high ports, everything (config, certificates, logs, pids) inside
 * one lab folder. Stops what it started by process id and waits until each process has exited.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeLabCa, type LabCa } from './ca';
import { issueCryptoCerts, pemChainBytes, renderCryptoNginxServers, startNodeTlsServers } from './crypto-lab';
import { CRYPTO_SERVERS, type CryptoServerId } from './crypto-servers';
import { requireNode24 } from './node24';
import { renderCaddyfile, spawnCaddy } from './caddy-conf';
import { stderrTail, waitExit, waitListening } from './children';
import { renderNginxConf, spawnNginx, type NginxPorts } from './nginx-conf';
import { pagePath, writePages } from './pages';
import { freePort } from './ports';
import { RTT_PROFILES, geoipOverrides, type RttProfile } from './profiles';
import type { ProxiesConfig } from './proxies-main';
import { LAB_DOMAIN, SERVERS, hostOf, type ServerId } from './servers';

const HERE = fileURLToPath(new URL('.', import.meta.url));
export const DEFAULT_LAB_DIR = resolve(HERE, '..', '.lab');

export interface LabOptions {
  /** Everything the lab writes goes here (default e2e/.lab). Emptied at start. */
  dir?: string;
  profiles?: readonly RttProfile[];
  /** Start Caddy and the UDP relays (default true). */
  quic?: boolean;
  /** Extra host names the proxies may reach (e.g. the collector), mapped to an address. */
  extraHosts?: Record<string, string>;
}

export interface LabState {
  dir: string;
  startedAt: string;
  supervisorPid: number;
  pids: Record<string, number>;
  ports: Record<ServerId, number>;
  socks: Record<string, number>;
  /** Per profile: the UDP relay address in front of Caddy's QUIC port (same port as Caddy). */
  udp: Record<string, string>;
  ca: LabCa;
  profiles: RttProfile[];
  logs: { dir: string; proxy: string; geoipOverrides: string };
  urls: Record<ServerId, string>;
  /**
   * The crypto-lens servers' measured facts (crypto-servers.ts declares the rest): DER bytes of the chain
   * each server sends, its leaf's SPKI hash (Chromium trusts leaves by it), and the Node servers' OpenSSL.
   */
  crypto: { chainBytes: Record<ServerId, number>; spkis: string[]; nodeOpenssl: string };
}

export interface RunningLab extends LabState {
  stop(): Promise<void>;
}

/**
 * Stops `lab` when the command running it is interrupted (Ctrl-C, SIGTERM) and exits 130 or 143, running
 * `cleanUp` (synchronous) on the way out: its servers would otherwise outlive the command, in a temporary folder
 * no `pnpm lab stop` knows.
 * The servers get their SIGTERM at once (the first step of `stop`, before it waits for them), so they stop
 * even when a browser library exits the process on the same signal first.
 */
export function stopOnSignals(lab: RunningLab, name: string, cleanUp: () => void = () => undefined): void {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)
    process.once(signal, () => {
      console.error(`${name}: ${signal}: stopping the lab`);
      // On exit, whoever calls it: a browser library's own handler may exit before the servers have.
      process.once('exit', cleanUp);
      void lab.stop().finally(() => process.exit(code));
    });
}

export function stateFile(dir: string): string {
  return join(dir, 'state.json');
}

export async function startLab(opts: LabOptions = {}): Promise<RunningLab> {
  const dir = resolve(opts.dir ?? DEFAULT_LAB_DIR);
  const profiles = [...(opts.profiles ?? RTT_PROFILES)];
  const quic = opts.quic ?? true;
  if (existsSync(stateFile(dir))) {
    const old = JSON.parse(readFileSync(stateFile(dir), 'utf8')) as LabState;
    if (isAlive(old.supervisorPid) && old.supervisorPid !== process.pid) {
      throw new Error(`a lab is already running from ${dir} (pid ${old.supervisorPid}); stop it first: pnpm lab stop`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  for (const sub of ['logs', 'tmp', 'www', 'ca', 'caddy-storage']) mkdirSync(join(dir, sub), { recursive: true });

  const names = [...SERVERS.map((s) => `*.${s.id}.${LAB_DOMAIN}`), `*.${LAB_DOMAIN}`];
  const ca = makeLabCa(join(dir, 'ca'), names);
  const cryptoFiles = issueCryptoCerts(ca.dir);
  // Before anything starts: a lab without Node ≥ 24 says how to get it rather than failing half-way.
  const node24 = requireNode24();

  const nginxPorts: NginxPorts = {
    't12-noalpn': await freePort(),
    noalpnBackend: await freePort(),
    't12-h2': await freePort(),
    't13-h2': await freePort(),
    't13-notix': await freePort(),
    't13-0rtt': await freePort(),
  };
  const h3Port = await freePort(true);
  const cryptoPorts = {} as Record<CryptoServerId, number>;
  for (const s of CRYPTO_SERVERS) cryptoPorts[s.id] = await freePort();
  const ports = { ...nginxPorts, ...cryptoPorts, h3: h3Port } as Record<ServerId, number> & NginxPorts;
  const www = join(dir, 'www');
  writePages(www, ports);

  const children: { name: string; child: ChildProcess }[] = [];
  const stopAll = async () => {
    for (const { child } of [...children].reverse()) {
      if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(child.pid, 'SIGTERM');
    }
    for (const { name, child } of children) {
      if (!(await waitExit(child, 5000)) && child.pid) {
        console.error(`lab: ${name} (pid ${child.pid}) ignored SIGTERM; sending SIGKILL`);
        process.kill(child.pid, 'SIGKILL');
        await waitExit(child, 2000);
      }
    }
  };

  try {
    const cryptoNginx = {
      blocks: renderCryptoNginxServers(dir, www, cryptoFiles, cryptoPorts),
      labServers: Object.fromEntries(
        CRYPTO_SERVERS.filter((s) => s.software === 'nginx').map((s) => [s.id, cryptoPorts[s.id]]),
      ),
    };
    writeFileSync(join(dir, 'nginx.conf'), renderNginxConf(dir, www, ca, nginxPorts, cryptoNginx));
    const nginx = spawnNginx(dir, join(dir, 'nginx.conf'), join(dir, 'logs', 'nginx-error.log'));
    const nginxErr = stderrTail(nginx);
    children.push({ name: 'nginx', child: nginx });
    const nginxErrLog = () => nginxErr() + tail(join(dir, 'logs', 'nginx-error.log'));
    for (const s of SERVERS.filter((x) => x.software === 'nginx' || x.software === 'nginx-stream'))
      await waitListening(ports[s.id], nginx, 'nginx', nginxErrLog);
    const nodeTls = await startNodeTlsServers(node24, dir, www, cryptoFiles, cryptoPorts);
    children.push({ name: 'node-tls', child: nodeTls.child });

    if (quic) {
      writeFileSync(join(dir, 'Caddyfile'), renderCaddyfile(dir, www, ca, h3Port));
      // Caddy writes nothing outside the lab folder.
      const caddy = spawnCaddy(join(dir, 'Caddyfile'), dir, join(dir, 'caddy-storage'));
      children.push({ name: 'caddy', child: caddy });
      await waitListening(h3Port, caddy, 'caddy', stderrTail(caddy), 15_000);
    }

    const proxyLog = join(dir, 'logs', 'proxy.log');
    const relayAddresses = Object.fromEntries(profiles.map((p, i) => [p.name, `127.0.1.${10 + i}`]));
    const proxiesCfg: ProxiesConfig = {
      profiles,
      labAddress: '127.0.0.1',
      extraHosts: opts.extraHosts ?? {},
      logFile: proxyLog,
      ...(quic ? { quic: { targetPort: h3Port, relayAddresses } } : {}),
    };
    writeFileSync(join(dir, 'proxies.json'), JSON.stringify(proxiesCfg, null, 2));
    const proxies = spawn(
      process.execPath,
      ['--import', 'tsx', join(HERE, 'proxies-main.ts'), join(dir, 'proxies.json')],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
        cwd: HERE,
      },
    );
    children.push({ name: 'proxies', child: proxies });
    const proxiesErr = stderrTail(proxies);
    const ready = await new Promise<{ socks: Record<string, number>; udp: Record<string, string> }>((res, rej) => {
      const t = setTimeout(() => rej(new Error(`proxies not ready within 20 s: ${proxiesErr()}`)), 20_000);
      createInterface({ input: proxies.stdout! }).once('line', (line) => {
        clearTimeout(t);
        try {
          res(JSON.parse(line));
        } catch {
          rej(new Error(`proxies: unexpected output ${line} ${proxiesErr()}`));
        }
      });
      proxies.once('exit', (code) => rej(new Error(`proxies exited (${code}): ${proxiesErr()}`)));
    });

    raisePriority(children.map((c) => c.child.pid));
    const geo = join(dir, 'geoip-overrides.txt');
    writeFileSync(geo, geoipOverrides(profiles));
    const state: LabState = {
      dir,
      startedAt: new Date().toISOString(),
      supervisorPid: process.pid,
      pids: Object.fromEntries(children.map(({ name, child }) => [name, child.pid ?? 0])),
      ports,
      socks: ready.socks,
      udp: ready.udp,
      ca,
      profiles,
      logs: { dir: join(dir, 'logs'), proxy: proxyLog, geoipOverrides: geo },
      urls: Object.fromEntries(
        SERVERS.map((s) => [s.id, `https://${hostOf('a', s.id)}:${ports[s.id]}${pagePath(s.id)}`]),
      ) as Record<ServerId, string>,
      crypto: {
        // Every other server sends the lab leaf alone.
        chainBytes: Object.fromEntries(
          SERVERS.map((s) => [
            s.id,
            s.id in cryptoFiles ? cryptoFiles[s.id as CryptoServerId].chainBytes : pemChainBytes(ca.leafCert)[0]!,
          ]),
        ) as Record<ServerId, number>,
        spkis: Object.values(cryptoFiles).map((f) => f.spki),
        nodeOpenssl: nodeTls.openssl,
      },
    };
    writeFileSync(stateFile(dir), JSON.stringify(state, null, 2));
    let stopped = false;
    return {
      ...state,
      stop: async () => {
        if (stopped) return;
        stopped = true;
        await stopAll();
        rmSync(stateFile(dir), { force: true });
      },
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
}

/**
 * The lab's processes inject and serve the delays the report measures: on a shared, loaded machine
 * their timers fire late unless they run ahead of the browsers. Raise their priority where allowed
 * (root or CAP_SYS_NICE); otherwise leave them as they are (the report shows the proxy's lateness).
 */
function raisePriority(pids: (number | undefined)[]): void {
  for (const pid of pids) {
    if (!pid) continue;
    try {
      setPriority(pid, -10);
    } catch {
      // Not permitted: keep the default priority.
    }
  }
}

/** True while the process exists and has not exited (an exited child not yet reaped is a zombie: dead). */
export function isAlive(pid: number): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/PID/stat: "pid (comm) STATE …"; comm may contain spaces or parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').slice(-2000);
  } catch {
    return '';
  }
}
