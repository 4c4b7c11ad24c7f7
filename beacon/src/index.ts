/**
 * The site's own beacon for bundlers: `init({ collector, site, sample })` once per page. It measures the
 * page's new TLS connections to the site's own hosts and posts them to `collector` once per page view.
 * The same code runs as the script the collector serves at `GET /beacon.js` (served.ts).
 */
export { init, type BeaconOptions } from './beacon';
