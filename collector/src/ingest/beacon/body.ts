/**
 * The body of `POST /v1/beacon` (shared/src/beacon.ts): its schema, and the checks made before it — a
 * client token or any field the beacon does not send is refused by name rather than dropped.
 */
import { Type } from 'typebox';
import { BEACON_MAX_ENTRIES, BEACON_VERSION, ENTRY_TYPES, TIMING_FIELDS } from '@tlsrum/shared';
import { httpError } from '../../platform/http/error-handler';

const Time = (description: string) => Type.Number({ minimum: -1e12, maximum: 1e12, description });

export const EntryTupleSchema = Type.Tuple(
  [
    Type.String({ minLength: 1, maxLength: 253, description: 'hostname of the entry (never its URL)' }),
    Type.Enum([...ENTRY_TYPES], { description: 'entryType' }),
    Type.String({ maxLength: 32, description: 'nextHopProtocol' }),
    Type.Union([Type.String({ maxLength: 200 }), Type.Null()], {
      description: 'the `tls` Server-Timing description, or null',
    }),
    ...TIMING_FIELDS.map((f) => Time(`${f} (ms after timeOrigin)`)),
  ],
  {
    description:
      'One new connection: [host, entryType, nextHopProtocol, tls Server-Timing, ...timing fields in the order of TIMING_FIELDS].',
  },
);

export const BeaconBodySchema = Type.Object(
  {
    v: Type.Literal(BEACON_VERSION, { description: 'Beacon format version.' }),
    site: Type.String({
      minLength: 1,
      maxLength: 253,
      description: "The registered site's hostname (the tag's data-site).",
    }),
    timeOrigin: Type.Number({ minimum: 0, maximum: 1e13, description: "The page's performance.timeOrigin, epoch ms." }),
    entries: Type.Array(EntryTupleSchema, { minItems: 1, maxItems: BEACON_MAX_ENTRIES }),
  },
  {
    additionalProperties: false,
    description: "One page view's new connections to the site's own hosts, sent by the site's beacon.",
  },
);

const FIELDS = new Set(Object.keys(BeaconBodySchema.properties));

/** Refuses, naming it, what the beacon never sends: a client token, records, any other field. */
export function refuseForeignFields(body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw httpError(400, "body must be a JSON object (the beacon's page view)");
  if ('clientToken' in body || 'token' in body) {
    throw httpError(
      400,
      'body/clientToken: a beacon sends no client token; the collector derives the client identity itself (docs/privacy.md)',
    );
  }
  const records = (body as { records?: unknown }).records;
  if (Array.isArray(records) && records.some((r) => typeof r === 'object' && r !== null && 'clientToken' in r)) {
    throw httpError(
      400,
      'body/records: a beacon sends entries, not records with client tokens; records go to POST /v1/handshakes',
    );
  }
  for (const key of Object.keys(body))
    if (!FIELDS.has(key))
      throw httpError(400, `body/${key} is not a field of a beacon body (v, site, timeOrigin, entries)`);
}
