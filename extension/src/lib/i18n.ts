/**
 * Every user-facing string lives in `_locales/<lang>/messages.json` (default `en`): a translation is
 * one more file. Pages mark elements with `data-i18n` (text), `data-i18n-placeholder`, `data-i18n-title`;
 * code calls `t(key, ...substitutions)` ($1, $2 … in the message).
 */
import { api } from './browser';

export function t(key: string, ...subs: (string | number)[]): string {
  const text = api.i18n.getMessage(key, subs.map(String));
  // A missing message shows its key (and the unit test lists it) rather than an empty element.
  return text || key;
}

export function localize(root: ParentNode = document): void {
  for (const el of root.querySelectorAll<HTMLElement>('[data-i18n]')) el.textContent = t(el.dataset.i18n!);
  for (const el of root.querySelectorAll<HTMLElement>('[data-i18n-placeholder]'))
    el.setAttribute('placeholder', t(el.dataset.i18nPlaceholder!));
  for (const el of root.querySelectorAll<HTMLElement>('[data-i18n-title]')) el.title = t(el.dataset.i18nTitle!);
}
