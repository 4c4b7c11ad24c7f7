/**
 * Counts, from the wire, the round trips a TLS connection's first request waited for the handshake.
 * TLS record headers are plaintext (type, version, length): the first client record of type 23
 * (application_data) is the request — or, in TLS 1.3, the encrypted Finished that travels with it in
 * the same flight. A client *flight* is what the client sends after having received something from the
 * server; the index of the flight that carries the first application-data record is the number of round
 * trips the request waited: 0 = early data (0-RTT), 1 = TLS 1.3, resumption or TLS 1.2 False Start,
 * 2 = full TLS 1.2 (or a TLS 1.3 HelloRetryRequest).
 */
export interface ConnectionTruth {
  host: string;
  openedAt: number;
  /** null until the client sent application data. */
  roundTripsBeforeData: number | null;
}

/** What a delaying proxy shows an observer of one connection: its chunks as they arrive, undelayed. */
export interface ConnectionObserver {
  fromClient(chunk: Buffer): void;
  fromServer(chunk: Buffer): void;
}

export function flightWatcher(truth: ConnectionTruth): ConnectionObserver {
  let flight = 0;
  let serverSpokeSinceLastClientData = false;
  let clientSentInFlight = false;
  let pending = Buffer.alloc(0);
  let skip = 0; // bytes of the current record body still to skip
  return {
    fromServer() {
      serverSpokeSinceLastClientData = true;
    },
    fromClient(chunk: Buffer) {
      if (truth.roundTripsBeforeData !== null) return;
      if (serverSpokeSinceLastClientData && clientSentInFlight) {
        flight++;
        clientSentInFlight = false;
      }
      serverSpokeSinceLastClientData = false;
      clientSentInFlight = true;
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (skip > 0) {
          const n = Math.min(skip, pending.length);
          pending = pending.subarray(n);
          skip -= n;
          if (skip > 0) return;
        }
        if (pending.length < 5) return;
        const type = pending[0]!;
        const length = pending.readUInt16BE(3);
        if (type === 23) {
          truth.roundTripsBeforeData = flight;
          return;
        }
        pending = pending.subarray(5);
        skip = length;
      }
    },
  };
}
