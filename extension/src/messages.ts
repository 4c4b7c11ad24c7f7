/**
 * Every message exchanged between the content script, the extension pages and the background, as one
 * discriminated union. Only the background stores or uploads anything; the others ask it.
 */
import type { HandshakeRecord } from '@tlsrum/shared';
import type { AboutAnswer } from '@tlsrum/shared/query/schemas';
import type { HandshakeClass } from '@tlsrum/shared/constants';
import { api } from './lib/browser';
import type { EntryTuple } from '@tlsrum/shared/classify';
import type { Settings } from './lib/settings';

import type { PageCounts } from '@tlsrum/shared/classify';
export type { Measurement, PageCounts } from '@tlsrum/shared/classify';

export interface NetworkHints {
  effectiveType: string | null;
  rttHint: number | null;
}

export type Message =
  /** From the content script: the page's https timing entries (`timeOrigin` = performance.timeOrigin). */
  | { type: 'measurements'; timeOrigin: number; entries: EntryTuple[] }
  | { type: 'get-state' }
  | { type: 'set-opt-in'; optedIn: boolean }
  | { type: 'pause'; minutes: number }
  | { type: 'resume' }
  | { type: 'set-excluded'; host: string; excluded: boolean }
  | { type: 'set-collector'; url: string }
  | { type: 'flush' }
  /** `host`: the active tab's site; its own field figures are asked for when it is registered. */
  | { type: 'get-field'; host: string | null }
  /** Asks a collector (the configured one, or `url`) who runs it: `GET /v1/about`. Only on a user's click. */
  | { type: 'get-about'; url?: string };

export interface QueueSummary {
  /** Records waiting, exactly as they will be sent. */
  records: HandshakeRecord[];
  /** The batch being (re)sent, with its id. */
  pending: { batchId: string; records: number; attempt: number } | null;
  dropped: number;
  rejected: number;
  expired: number;
  sent: number;
  nextAttemptAt: number;
  lastError: string | null;
}

export interface State {
  settings: Settings;
  paused: boolean;
  queue: QueueSummary;
  counts: PageCounts & { measured: number };
  recent: { host: string; record: HandshakeRecord }[];
  /** Waiting records with the site each was measured on (kept on this device), same order as `queue.records`. */
  queuePages: (string | null)[];
}

export interface FieldPercentiles {
  available: boolean;
  /** p50/p75/p95 of `tls` per handshake class over the collector's field data. */
  byClass: Partial<Record<HandshakeClass, { p50: number; p75: number; p95?: number; records: number }>>;
  /** Whose connections: one registered site's (`site`), or every site's together. */
  scope: 'site' | 'all';
  site: string | null;
  /** Why the figures are for all sites although the tab's site is registered (the collector keeps per-site figures for the site's owner). */
  siteRefused?: boolean;
  note?: string;
}

/** `GET /v1/about`: the collector's own answer schema. */
export type About = AboutAnswer;

export type AboutReply = { ok: true; url: string; about: About } | { ok: false; url: string; error: string };

export interface Replies {
  measurements: { accepted: number };
  'get-state': State;
  /** `deleted`: waiting records deleted by turning measuring off. */
  'set-opt-in': { state: State; deleted: number };
  pause: State;
  resume: State;
  /** `dropped`: waiting records of that site deleted by excluding it. */
  'set-excluded': { state: State; dropped: number };
  'set-collector': State;
  flush: { sent: number; ok: boolean; error: string | null };
  'get-field': FieldPercentiles;
  'get-about': AboutReply;
}

export type MessageOf<T extends Message['type']> = Extract<Message, { type: T }>;

/** Sends a message to the background and types its reply. */
export async function ask<T extends Message['type']>(message: MessageOf<T>): Promise<Replies[T]> {
  const reply = (await api.runtime.sendMessage(message)) as Replies[T] | { failed: string } | undefined;
  if (reply === undefined) throw new Error('the background did not answer');
  if (typeof reply === 'object' && reply !== null && 'failed' in reply) throw new Error(reply.failed);
  return reply as Replies[T];
}
