/**
 * "Add your site": claim a hostname, publish the challenge (file or DNS record), verify, then save the
 * read token (shown once) and add the beacon tag and the Server-Timing line. Talks to the collector that
 * serves this page: `POST v1/sites/claims` and `POST v1/sites/claims/:hostname/verify`.
 */
import '../style.css';
import './add-site.css';
import { token } from '../state';

/** The lines of docs/server-timing.md that the lab tests, for the two servers most sites run. */
export const SERVER_TIMING = {
  nginx: `add_header Server-Timing 'tls;desc="$ssl_protocol $ssl_session_reused"' always;`,
  caddy: `header Server-Timing "tls;desc=\\"{http.request.tls.version} {http.request.tls.resumed}\\""`,
};

export const beaconTag = (collector: string, hostname: string) =>
  `<script async src="${collector}/beacon.js" data-site="${hostname}"></script>`;

interface ClaimAnswer {
  hostname: string;
  challenge: string;
  wellKnownUrl: string;
  dnsName: string;
  expiresAt: string;
}

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

function setStep(id: string, state: 'active' | 'done' | 'waiting'): void {
  $(id).dataset.state = state;
}

function problem(id: string, text: string | null): void {
  const el = $(id);
  el.textContent = text ?? '';
  el.hidden = text === null;
}

async function post(path: string): Promise<{ status: number; body: Record<string, string> | null }>;
async function post(path: string, payload: unknown): Promise<{ status: number; body: Record<string, string> | null }>;
async function post(path: string, payload?: unknown) {
  const res = await fetch(`./${path}`, {
    method: 'POST',
    headers: payload === undefined ? {} : { 'content-type': 'application/json' },
    body: payload === undefined ? undefined : JSON.stringify(payload),
    cache: 'no-store',
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, string> | null };
}

/** What a refused request means, for someone who is not an expert. */
function refusal(status: number, body: Record<string, string> | null): string {
  const said = body?.message ?? body?.reason;
  if (status === 429) return `${said ?? 'Too many tries from your address.'} Please wait before trying again.`;
  if (status >= 500 && !said) return 'The collector cannot do this right now. Please try again in a minute.';
  return said ? said.charAt(0).toUpperCase() + said.slice(1) : `The collector answered ${status}.`;
}

let claimed: ClaimAnswer | null = null;

$('claim-form').addEventListener('submit', (e) => {
  e.preventDefault();
  void (async () => {
    const button = $('claim-form').querySelector('button')!;
    button.disabled = true;
    problem('claim-error', null);
    try {
      const { status, body } = await post('v1/sites/claims', { hostname: $<HTMLInputElement>('hostname').value });
      if (status !== 201 || !body) return problem('claim-error', refusal(status, body));
      claimed = body as unknown as ClaimAnswer;
      $('well-known-url').textContent = claimed.wellKnownUrl;
      $('challenge-file').textContent = claimed.challenge;
      $('challenge-dns').textContent = claimed.challenge;
      $('dns-name').textContent = claimed.dnsName;
      $('expires').textContent =
        `This claim is open until ${new Date(claimed.expiresAt).toLocaleString()}. A DNS record can take a few minutes to be visible.`;
      $('prove-body').hidden = false;
      setStep('step-claim', 'done');
      setStep('step-prove', 'active');
      $('verify').focus();
    } catch {
      problem('claim-error', 'The collector could not be reached. Check your connection and try again.');
    } finally {
      button.disabled = false;
    }
  })();
});

$('verify').addEventListener('click', () => {
  if (!claimed) return;
  const hostname = claimed.hostname;
  void (async () => {
    const button = $<HTMLButtonElement>('verify');
    button.disabled = true;
    problem('verify-error', null);
    $('verify-status').textContent = `Looking for the file and the DNS record of ${hostname}…`;
    try {
      const { status, body } = await post(`v1/sites/claims/${encodeURIComponent(hostname)}/verify`);
      $('verify-status').textContent = '';
      if (status !== 201 || !body) return problem('verify-error', `Not proven yet. ${refusal(status, body)}`);
      showToken(hostname, body.readToken!, body.method!);
    } catch {
      $('verify-status').textContent = '';
      problem('verify-error', 'The collector could not be reached. Check your connection and try again.');
    } finally {
      button.disabled = false;
    }
  })();
});

function showToken(hostname: string, readToken: string, method: string): void {
  $('proved').textContent =
    `Done: ${hostname} is registered (proven by ${method === 'dns' ? 'its DNS record' : 'the file on the site'}).`;
  $('token').textContent = readToken;
  $('beacon-tag').textContent = beaconTag(location.origin, hostname);
  $('st-nginx').textContent = SERVER_TIMING.nginx;
  $('st-caddy').textContent = SERVER_TIMING.caddy;
  // The dashboard reads the token from this tab's session storage, never from the URL.
  token.set(readToken);
  $<HTMLAnchorElement>('open-site').href = `./?site=${encodeURIComponent(hostname)}`;
  $('measure-body').hidden = false;
  setStep('step-prove', 'done');
  setStep('step-measure', 'active');
  // A reader who asked for less motion gets the step at once, without the glide.
  const still = matchMedia('(prefers-reduced-motion: reduce)').matches;
  $('measure-body').scrollIntoView({ behavior: still ? 'auto' : 'smooth', block: 'start' });
}

async function copy(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Without the clipboard API (an http page): select the text so that Ctrl+C copies it.
    return false;
  }
}

for (const button of document.querySelectorAll<HTMLButtonElement>('button.copy')) {
  button.addEventListener('click', () => {
    const source = $(button.dataset.copy!);
    void copy(source.textContent ?? '').then((ok) => {
      if (!ok) getSelection()?.selectAllChildren(source);
      button.textContent = ok ? 'Copied' : 'Press Ctrl+C';
      setTimeout(() => (button.textContent = 'Copy'), 2000);
    });
  });
}
