import { MAX_CELLS } from '../cells';
import { groupedCellsRoute } from './grouped-cells-route';

export default groupedCellsRoute({
  path: '/v1/compare',
  summary: 'Handshake metrics per group: records, distinct clients, p50/p75/p95 of tls, connect, ttfb, class shares',
  description:
    'Groups by up to three dimensions (default `stack,mode`: TLS 1.2 / TLS 1.3 / h3 × full / resumed / 0-RTT). Cells with fewer distinct clients than `minClients` come back as `{key, suppressed: true}`.',
  metrics: 'handshake',
  limit: MAX_CELLS.compare,
});
