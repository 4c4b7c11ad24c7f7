import { MAX_CELLS } from '../cells';
import { groupedCellsRoute } from './grouped-cells-route';

export default groupedCellsRoute({
  path: '/v1/phases',
  summary: 'p50/p75/p95 of each connection phase (dns, tcp, tls, connect, ttfb) per group',
  metrics: 'phases',
  limit: MAX_CELLS.phases,
});
