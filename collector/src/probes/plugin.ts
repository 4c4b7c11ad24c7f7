/**
 * The site probe in the app: the scheduler (probe/scheduler.ts) started once the store and the site list
 * are ready, its targets (registered sites + extra hostnames registered for them), the change checks
 * evaluated after each cycle into the alert engine, and the Prometheus series.
 *
 * Probing is off the ingest path: its own timer, the query client for its inserts, and nothing on the
 * ingest route waits for it.
 */
import { readFileSync } from 'node:fs';
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { scrapedCounter, scrapedGauge } from '../platform/metrics/scraped';
import { evaluateProbeChecks } from './changes';
import { ProbeScheduler, type ProbedTarget } from './scheduler';
import { listProbes, listProbeTargets, type ProbeTarget } from './store';
import { SiteCryptoFacts } from './crypto-facts';
import { connectToMap } from '../platform/net/public-connect';

export { connectToMap };

declare module 'fastify' {
  interface FastifyInstance {
    /** Scheduled TLS configuration probes of the registered sites. */
    probes: ProbeScheduler;
    /** The latest probe's crypto facts per registered site, for records that carry none (ingest). */
    siteCrypto: SiteCryptoFacts;
  }
}

/** How far back the change checks read a site's history. */
export const PROBE_HISTORY_MS = 30 * 86_400_000;

const probePlugin: FastifyPluginAsync = async (app) => {
  const config = app.config.probe;
  const connectTo = connectToMap(config.connectTo);
  const ca = config.caFile ? [readFileSync(config.caFile, 'utf8')] : [];
  const client = app.store.query;

  const targets = async (): Promise<ProbeTarget[]> => {
    const sites = app.sites.list();
    const registered = new Set(sites);
    // Extra hostnames count only while their site is registered: probes go to registered names only.
    const extra = (await listProbeTargets(client)).filter((t) => registered.has(t.site) && t.hostname !== t.site);
    return [...sites.map((s) => ({ site: s, hostname: s })), ...extra];
  };

  const siteCrypto = new SiteCryptoFacts();
  app.decorate('siteCrypto', siteCrypto);
  const refreshCrypto = () => siteCrypto.refresh(client, app.sites.list());

  const evaluate = async (probed: ProbedTarget[]) => {
    await refreshCrypto();
    const now = Date.now();
    const seen = new Set<string>();
    for (const site of new Set(probed.map((p) => p.site))) {
      const history = await listProbes(client, site, now - PROBE_HISTORY_MS, now + 1);
      for (const hostname of new Set(history.map((h) => h.hostname))) {
        const mine = history.filter((h) => h.hostname === hostname);
        const range = { count: mine.length, from: mine[0]!.at, to: mine.at(-1)!.at };
        app.alerts.applyProbeChecks(site, hostname, evaluateProbeChecks(hostname, mine), range, now);
      }
      seen.add(site);
    }
    app.alerts.dropProbeSites(new Set(app.sites.list()), now);
    // A new probe changes what the sites' profiles may claim.
    await app.profiles.refresh();
  };

  const scheduler = new ProbeScheduler({
    client,
    config,
    targets,
    urlOf: (h) => {
      const to = connectTo.get(h);
      return to ? `https://${h}:${to.port}/` : `https://${h}/`;
    },
    probeOptions: { ca },
    policy: { allow: connectTo, dnsServers: app.config.dnsServers, timeoutMs: config.timeoutMs },
    onCycle: evaluate,
    onError: (err) => app.log.error({ err: { message: (err as Error).message } }, 'probe cycle failed'),
  });
  app.decorate('probes', scheduler);

  scrapedCounter(app.registry, {
    name: 'tlsrum_probe_cycles_total',
    help: 'Completed probe cycles (every registered hostname once).',
    read: () => scheduler.cycles,
  });
  scrapedCounter(app.registry, {
    name: 'tlsrum_probes_total',
    help: 'Probes by outcome: ok, or failed (some check could not complete; reasons in the stored result).',
    labelNames: ['outcome'],
    read: () => [
      [{ outcome: 'ok' }, scheduler.probes - scheduler.failures],
      [{ outcome: 'failed' }, scheduler.failures],
    ],
  });
  scrapedGauge(app.registry, {
    name: 'tlsrum_probe_last_cycle_timestamp_seconds',
    help: 'When the last probe cycle finished (absent before the first).',
    read: () => (scheduler.lastCycleAt === null ? [] : [[{}, scheduler.lastCycleAt / 1000] as const]),
  });

  void app.storeStatus.whenReady
    .then(() => (scheduler.enabled ? app.sites.refresh() : undefined))
    // Probes stored before this start (or by another collector) serve until the next cycle.
    .then(() => refreshCrypto())
    .then(() => scheduler.start())
    .catch((err: Error) => app.log.error({ err: { message: err.message } }, 'probing could not start'));
  app.addHook('onClose', async () => {
    await scheduler.stop();
  });
};

/** Not encapsulated: the probe routes read `app.probes`. */
export default fp(probePlugin, { name: 'probe', dependencies: ['store', 'sites', 'profiles', 'alerts', 'metrics'] });
