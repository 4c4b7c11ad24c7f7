/**
 * The script the collector serves at `GET /beacon.js`, for the tag
 * `<script async src="https://COLLECTOR/beacon.js" data-site="HOSTNAME"></script>`: it posts to the
 * origin it was loaded from. Optional attributes: `data-sample` (0–1) and `data-hosts` (the site's extra
 * hostnames this page connects to, separated by spaces).
 */
import { start } from './beacon';

try {
  const script = document.currentScript as HTMLScriptElement | null;
  // Only the element is kept now (it is `currentScript` only while this runs); its attributes are read when the page is hidden.
  if (script) {
    start(() => {
      const data = (name: string) => script.getAttribute(`data-${name}`);
      return {
        collector: script.src,
        site: data('site') || location.hostname,
        sample: data('sample') ? Number(data('sample')) : 1,
        hosts: (data('hosts') ?? '').split(' ').filter(Boolean),
      };
    });
  }
} catch {
  /* never into the page */
}
