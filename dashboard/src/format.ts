import { DIMENSIONS } from '@tlsrum/shared/query';
import type { Cell, Quantiles } from './api';

export const ms = (v: number | undefined) => (v === undefined ? '—' : `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`);
export const pct = (v: number | undefined) => (v === undefined ? '—' : `${Math.round(v * 100)} %`);
/** Why a mix value is missing from a cell's answer (the collector leaves out a share that gives a small group away). */
export const MIX_NOT_SHOWN_NOTE = 'not shown: that share would single out a group of too few people';
/** A cell's share of one mix value, or "not shown" when the collector left it out (MIX_NOT_SHOWN_NOTE). */
export const mixShare = (v: number | undefined) => (v === undefined ? 'not shown' : pct(v));
/** "p < 0.0001" below the smallest value worth printing, else two significant digits: "p = 0.91", "p = 0.0032", "p = 0.5". */
export function pValueText(p: number | null): string {
  if (p === null) return '—';
  if (p < 0.0001) return 'p < 0.0001';
  return `p = ${String(Number(p.toPrecision(2)))}`;
}
/**
 * A count with thousands separators, "12,345", as `toLocaleString('en')` writes it (up to three decimals), written
 * out: the page's first use of the browser's locale data costs 40–70 ms of a slow machine's main thread.
 */
export function int(v: number | undefined): string {
  if (v === undefined) return '—';
  if (!Number.isFinite(v)) return String(v);
  const [whole, fraction] = String(Math.round(Math.abs(v) * 1000) / 1000).split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+$)/g, ',');
  return `${v < 0 || Object.is(v, -0) ? '-' : ''}${grouped}${fraction ? `.${fraction}` : ''}`;
}
/** Distinct clients; the rollup counts them only up to a cap, so a capped count reads "≥ 100". */
/** A group marked "few" rests on few people: one person's records can move its figures. */
export const clientsText = (c: Pick<Cell, 'clients' | 'clientsCapped' | 'fewClients'>) =>
  `${c.clientsCapped ? `≥ ${int(c.clients)}` : int(c.clients)}${c.fewClients ? ' (few)' : ''}`;
export const FEW_CLIENTS_NOTE = "few people: one person's records can move these figures";

/** Comparison groups in the catalogue's reading order (the known ones): protocol stack, then handshake mode. */
const known = (values: readonly string[]) => values.filter((v) => v !== 'unknown');
export const STACKS = known(DIMENSIONS.stack.values);
export const MODES = known(DIMENSIONS.mode.values);
export const label = (c: Cell) => `${c.key.stack} · ${c.key.mode}`;

export function sortByStackMode(cells: Cell[]): Cell[] {
  const rank = (v: string | undefined, order: readonly string[]) => {
    const i = order.indexOf(v ?? '');
    return i < 0 ? order.length : i;
  };
  return [...cells].sort(
    (a, b) =>
      rank(a.key.stack, STACKS) - rank(b.key.stack, STACKS) || rank(a.key.mode, MODES) - rank(b.key.mode, MODES),
  );
}

/** The groups a stack × mode chart draws: shown (not suppressed) and with both stack and mode known. */
export const drawnStackModes = (cells: Cell[]) =>
  sortByStackMode(cells).filter((c) => !c.suppressed && c.key.stack !== 'unknown' && c.key.mode !== 'unknown');

/** CSV columns `<prefix>_p50`, `_p75`, `_p95` (empty for a suppressed cell). */
export const quantileColumns = (prefix: string, q: Quantiles | undefined) => ({
  [`${prefix}_p50`]: q?.p50,
  [`${prefix}_p75`]: q?.p75,
  [`${prefix}_p95`]: q?.p95,
});

export const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1'];
