/**
 * The self-service routes (`POST /v1/sites/claims`, `POST /v1/sites/claims/:hostname/verify`) and the
 * re-check timer. `SELF_SERVICE=false` answers both routes with 403 (sites registered by their owners
 * before keep being re-checked); the admin routes keep working either way.
 */
import { readFileSync } from 'node:fs';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { STATUS_CODES } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { httpError } from '../../platform/http/error-handler';
import { connectToMap, dnsResolver, type ConnectPolicy } from '../../platform/net/public-connect';
import { ErrorResponse } from '../../platform/http/responses';
import { ClaimError, Claims } from './claims';
import { checkClaimHostname } from './hostname';
import { dnsNameOf, wellKnownUrlOf } from './proof';
import { AddressLimiter } from './rate-limit';

declare module 'fastify' {
  interface FastifyInstance {
    /** Self-service claims: open, verify, re-check. */
    claims: Claims;
  }
}

const METHOD = Type.Union([Type.Literal('well-known'), Type.Literal('dns')]);

const claimsPlugin: FastifyPluginAsyncTypebox = async (app) => {
  const config = app.config.claims;
  const allow = connectToMap(app.config.probe.connectTo);
  const policy: ConnectPolicy = { allow, dnsServers: app.config.dnsServers, timeoutMs: config.checkTimeoutMs };
  const ca = app.config.probe.caFile ? [readFileSync(app.config.probe.caFile, 'utf8')] : [];
  const claims = new Claims({
    client: app.store.query,
    sites: app.sites,
    proof: { policy, resolver: dnsResolver(policy), timeoutMs: config.checkTimeoutMs, ca },
    config,
    onSitesChanged: () =>
      void app.profiles
        .refresh()
        .catch((err: Error) => app.log.error({ err: { message: err.message } }, 'site profiles could not be built')),
  });
  app.decorate('claims', claims);
  let timer: NodeJS.Timeout | null = null;
  // Sites their owners registered stay checked even once new claims are turned off.
  if (config.recheckIntervalMs > 0) {
    void app.storeStatus.whenReady.then(() => {
      timer = setInterval(() => {
        claims
          .recheck()
          .then((s) => {
            if (s.checked)
              app.log.info(
                { checked: s.checked, failing: s.failing, revoked: s.revoked.length },
                'site ownership re-checked',
              );
          })
          .catch((err: Error) => app.log.error({ err: { message: err.message } }, 'site ownership re-check failed'));
      }, config.recheckIntervalMs);
      timer.unref();
    });
  }
  app.addHook('onClose', async () => {
    if (timer) clearInterval(timer);
  });
};

/** Not encapsulated: the routes below, tests and the operator's tooling reach `app.claims`. */
export default fp(claimsPlugin, { name: 'claims', dependencies: ['store', 'sites', 'profiles'] });

/** The routes, registered after the OpenAPI document so that it describes them. */
export const claimRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const config = app.config.claims;
  const allow = connectToMap(app.config.probe.connectTo);
  const claims = app.claims;
  const limiter = new AddressLimiter(config.perAddressPerHour);

  const guard = (request: FastifyRequest) => {
    if (!config.selfService)
      throw httpError(
        403,
        'self-service registration is turned off on this collector: ask its operator to register your site',
      );
    if (!app.storeStatus.ready) throw httpError(503, 'the store is not reachable yet', { 'retry-after': '5' });
    const wait = limiter.take(request.ip);
    if (wait !== null)
      throw httpError(
        429,
        `too many claims from your address: at most ${config.perAddressPerHour} an hour; retry in ${wait} s`,
        { 'retry-after': String(wait) },
      );
  };
  const hostnameOr400 = (raw: unknown) => {
    const checked = checkClaimHostname(raw, (h) => allow.has(h));
    if ('reason' in checked) throw httpError(400, checked.reason);
    return checked.hostname;
  };
  // Sent here rather than thrown: the error handler hides the message of a 5xx, and these say what to do.
  const answer = (err: unknown, reply: FastifyReply) => {
    if (!(err instanceof ClaimError)) throw err;
    if (err.retryAfterS) reply.header('retry-after', String(err.retryAfterS));
    return reply
      .status(err.status)
      .send({ statusCode: err.status, error: STATUS_CODES[err.status] ?? 'Error', message: err.message });
  };
  const errors = {
    400: ErrorResponse,
    403: ErrorResponse,
    404: ErrorResponse,
    409: ErrorResponse,
    429: ErrorResponse,
    502: ErrorResponse,
    503: ErrorResponse,
  };

  app.post(
    '/v1/sites/claims',
    {
      schema: {
        summary: 'Claim a site (no token): get the challenge that proves you control it',
        description:
          'Publish the challenge as the content of `wellKnownUrl` or as a TXT record at `dnsName`, then call the verify route. The hostname must be a public DNS name whose addresses are all public. At most `CLAIM_RATE_LIMIT_PER_HOUR` claims and verifications an hour from one address.',
        body: Type.Object({ hostname: Type.String({ maxLength: 1024 }) }, { additionalProperties: false }),
        response: {
          201: Type.Object({
            hostname: Type.String(),
            challenge: Type.String({ description: 'what to publish' }),
            wellKnownUrl: Type.String({ description: 'serve the challenge as this file…' }),
            dnsName: Type.String({ description: '…or as a TXT record of this name' }),
            expiresAt: Type.String({ description: 'ISO 8601: verify before this time' }),
          }),
          ...errors,
        },
      },
    },
    async (request, reply) => {
      guard(request);
      const hostname = hostnameOr400(request.body.hostname);
      reply.header('cache-control', 'no-store');
      let claim;
      try {
        claim = await claims.claim(hostname);
      } catch (err) {
        return answer(err, reply);
      }
      return reply.status(201).send({
        hostname,
        challenge: claim.challenge,
        wellKnownUrl: wellKnownUrlOf(hostname),
        dnsName: dnsNameOf(hostname),
        expiresAt: new Date(claim.expiresAt).toISOString(),
      });
    },
  );

  app.post(
    '/v1/sites/claims/:hostname/verify',
    {
      schema: {
        summary: 'Prove control of a claimed site: registers it and answers its read token (shown once)',
        description:
          'Looks for the challenge of an open claim in the TXT record of `_tlsrum.HOSTNAME` (`method: "dns"`) and in `https://HOSTNAME/.well-known/tlsrum.txt` (`"well-known"`); `?method=` checks that one only. 422 says in words why the proof was not found. Only the SHA-256 of the token is stored; proving control again issues a new token and revokes the previous one.',
        params: Type.Object({ hostname: Type.String({ maxLength: 1024 }) }),
        querystring: Type.Object({ method: Type.Optional(METHOD) }, { additionalProperties: false }),
        response: {
          201: Type.Object({
            hostname: Type.String(),
            readToken: Type.String({
              description: 'Bearer token that reads this site only (query API, dashboard); not shown again',
            }),
            method: METHOD,
          }),
          422: Type.Object({ reason: Type.String({ description: 'why the proof was not found, in words' }) }),
          ...errors,
        },
      },
    },
    async (request, reply) => {
      guard(request);
      const hostname = hostnameOr400(request.params.hostname);
      reply.header('cache-control', 'no-store');
      try {
        const { readToken, method } = await claims.verify(hostname, request.query.method);
        return reply.status(201).send({ hostname, readToken, method });
      } catch (err) {
        if (err instanceof ClaimError && err.status === 422) return reply.status(422).send({ reason: err.message });
        return answer(err, reply);
      }
    },
  );
};
