/**
 * Regression alerts in the app: the evaluator (alerts/evaluator.ts) scheduled once the store and the
 * site list are ready, the optional webhook, and the Prometheus series on `/metrics`.
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { AlertEvaluator } from './evaluator';
import { Webhook } from './webhook';
import { scrapedCounter, scrapedGauge } from '../platform/metrics/scraped';

declare module 'fastify' {
  interface FastifyInstance {
    alerts: AlertEvaluator;
  }
}

const alertsPlugin: FastifyPluginAsync = async (app) => {
  const config = app.config.alerts;
  const webhook = config.webhookUrl
    ? new Webhook({
        url: config.webhookUrl,
        retries: config.webhookRetries,
        timeoutMs: config.webhookTimeoutMs,
        onFailed: (err, attempts) =>
          app.log.error({ err: { message: err.message }, attempts }, 'alert webhook gave up'),
      })
    : null;
  const evaluator = new AlertEvaluator({
    client: app.store.query,
    sites: () => app.sites.list(),
    config,
    clientCap: app.config.clientRecordsPerCellDay,
    webhook,
    onEvent: (e) =>
      app.log.warn({ site: e.alert.site, check: e.alert.check, window: e.alert.window, event: e.event }, e.summary),
    onError: (err) => app.log.error({ err: { message: (err as Error).message } }, 'alert evaluation failed'),
  });
  app.decorate('alerts', evaluator);

  // Per-site series: only the admin token reads them (platform/metrics/plugin.ts).
  const registry = app.siteRegistry;
  type State = ReturnType<AlertEvaluator['list']>[number];
  const perSiteAndWindow = (name: string, help: string, check: string, value: (s: State) => number | null) =>
    scrapedGauge(registry, {
      name,
      help,
      labelNames: ['site', 'window'],
      read: () =>
        evaluator
          .list()
          .filter((s) => s.check === check)
          .flatMap((s) => {
            const v = value(s);
            return v === null ? [] : [[{ site: s.site, window: s.window }, v] as const];
          }),
    });
  const seconds = (s: State) => (s.current === null ? null : s.current / 1000);
  perSiteAndWindow(
    'tlsrum_site_resumption_ratio',
    'Share of resumed handshakes among those with a known resumption state, per site and window.',
    'resumption_drop',
    (s) => s.current,
  );
  perSiteAndWindow(
    'tlsrum_site_tls13_ratio',
    'Share of TLS 1.3 among handshakes with a known version, per site and window.',
    'tls13_drop',
    (s) => s.current,
  );
  perSiteAndWindow(
    'tlsrum_site_h3_ratio',
    'Share of HTTP/3 connections, per site and window.',
    'h3_drop',
    (s) => s.current,
  );
  perSiteAndWindow(
    'tlsrum_site_tls_p75_seconds',
    'p75 of the TLS handshake phase, per site and window.',
    'tls_p75_rise',
    seconds,
  );
  perSiteAndWindow(
    'tlsrum_site_connect_p75_seconds',
    'p75 of connect (TCP + TLS), per site and window.',
    'connect_p75_rise',
    seconds,
  );
  scrapedGauge(registry, {
    name: 'tlsrum_site_alert_firing',
    help: '1 while a regression check fires for a site and window, else 0 (absent without enough data).',
    labelNames: ['site', 'window', 'check'],
    read: () =>
      evaluator
        .list()
        .filter((s) => s.status !== 'insufficient_data' && s.window !== 'probe')
        .map((s) => [{ site: s.site, window: s.window, check: s.check }, s.status === 'firing' ? 1 : 0] as const),
  });
  scrapedGauge(registry, {
    name: 'tlsrum_probe_alert_firing',
    help: "1 while a probe change check fires for a site's hostname, else 0 (absent before two probes).",
    labelNames: ['site', 'hostname', 'check'],
    read: () =>
      evaluator
        .list()
        .filter((s) => s.status !== 'insufficient_data' && s.window === 'probe')
        .map(
          (s) =>
            [{ site: s.site, hostname: s.hostname ?? s.site, check: s.check }, s.status === 'firing' ? 1 : 0] as const,
        ),
  });
  scrapedCounter(app.registry, {
    name: 'tlsrum_alert_evaluations_total',
    help: 'Completed alert evaluations (every site and window).',
    read: () => evaluator.evaluations,
  });
  scrapedCounter(app.registry, {
    name: 'tlsrum_alert_webhook_deliveries_total',
    help: 'Alert webhook deliveries by outcome.',
    labelNames: ['outcome'],
    read: () => [
      [{ outcome: 'delivered' }, webhook?.delivered ?? 0],
      [{ outcome: 'failed' }, webhook?.failed ?? 0],
    ],
  });

  // The first evaluation needs the registered sites: read them first (the registry's own start may not
  // have finished yet).
  void app.storeStatus.whenReady
    .then(() => (config.intervalMs > 0 ? app.sites.refresh() : undefined))
    .then(() => evaluator.start())
    .catch((err: Error) => app.log.error({ err: { message: err.message } }, 'alert evaluation could not start'));
  app.addHook('onClose', async () => {
    await evaluator.stop();
    await webhook?.close();
  });
};

/** Not encapsulated: the alert routes read `app.alerts`. */
export default fp(alertsPlugin, { name: 'alerts', dependencies: ['store', 'sites', 'metrics'] });
