/** Renders a collector's `GET /v1/about` answer (onboarding, options) in plain sentences. */
import type { AboutReply } from '../messages';
import { t } from '../lib/i18n';

export function renderAbout(el: HTMLElement, reply: AboutReply): void {
  el.className = reply.ok ? 'about' : 'about error';
  if (!reply.ok) {
    el.textContent = reply.error;
    return;
  }
  const a = reply.about;
  const lines = [
    a.operator ? t('aboutOperator', a.operator) : t('aboutNoOperator'),
    a.contact ? t('aboutContact', a.contact) : '',
    t('aboutRetention', a.retentionDays),
    a.stores.country && !a.stores.address ? t('aboutCountry') : '',
    a.privacyPolicyUrl ? t('aboutPolicy', a.privacyPolicyUrl) : '',
  ].filter(Boolean);
  el.replaceChildren(
    ...lines.map((line) => {
      const p = document.createElement('p');
      p.textContent = line;
      return p;
    }),
  );
}
