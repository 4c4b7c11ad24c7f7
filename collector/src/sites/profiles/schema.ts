/** The response shape of a site profile (shared/src/classify/site-profile.ts, `SiteProfile`). */
import { Type } from 'typebox';

const Flag = (description: string) => Type.Union([Type.Boolean(), Type.Null()], { description });
const PerVersion = (description: string) => Type.Object({ '1.2': Flag(description), '1.3': Flag(description) });

export const SiteProfileResponse = Type.Object(
  {
    hostname: Type.String(),
    versions: PerVersion('the servers accept this version; null: unknown or disputed'),
    maxVersion: Type.Union([Type.Literal('1.2'), Type.Literal('1.3'), Type.Null()], {
      description: 'the highest version every source agrees the servers accept',
    }),
    resumption: PerVersion('a second connection resumes the first one’s session'),
    ticketLifetimeS: Type.Union([Type.Number(), Type.Null()], {
      description: 'shortest ticket lifetime hint the probes saw, seconds',
    }),
    earlyData: Flag('tickets allow 0-RTT early data'),
    h3: Flag('Alt-Svc advertises h3'),
    confidence: Type.Object({
      probes: Type.Integer({ description: 'probe results used (≤ 2 days old)' }),
      observations: Type.Integer({
        description:
          'records of the site (TCP, last 2 days) whose version was observed or sent by Server-Timing, rounded down to a power of ten; 0 below 100 (a site’s traffic is not public)',
      }),
      agreement: Type.Number({
        description:
          'share of those records on maxVersion (1 when there are none); beside a count of 0 only 1 (all agree) or 0',
      }),
      ageS: Type.Union([Type.Number(), Type.Null()], { description: 'age of the newest probe used, seconds' }),
    }),
    disagreements: Type.Array(Type.String(), {
      description: 'what the sources disagree about; non-empty ⇒ the profile claims nothing',
    }),
    builtAt: Type.Number({ description: 'epoch ms' }),
  },
  {
    description:
      'What the site’s servers accept, where probes and reported records agree (shared/README.md, “Site profiles”).',
  },
);
