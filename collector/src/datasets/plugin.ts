/**
 * The open dataset in the app: `GET /v1/datasets` (what is published), `GET /v1/datasets/YYYY-MM.parquet`
 * and `.csv` (the files, immutable: cached for a year, ETag = their sha256), and the monthly job that
 * writes the last month into DATASETS_DIR once it is over (DATASET_MONTHLY_EXPORT).
 */
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { httpError } from '../platform/http/error-handler';
import { readRateLimit } from '../platform/http/rate-limit';
import { ErrorResponse } from '../platform/http/responses';
import { DATASET_COLUMNS } from './columns';
import { DatasetError, exportMonth } from './export';
import { latestClosedMonth } from './month';
import { DatasetFolder, type DatasetFormat } from './served';
import { repeatAfterReady } from '../platform/store/repeat-after-ready';
import { heavyQuery } from '../platform/store/query-pool';

declare module 'fastify' {
  interface FastifyInstance {
    datasets: { folder: DatasetFolder; exportDue(now?: number): Promise<string | null> };
  }
}

/** How often the job looks for a month to write; it also looks once a minute after the store is ready. */
export const EXPORT_CHECK_MS = 3_600_000;
const FIRST_CHECK_MS = 60_000;
const FILE = /^([0-9]{4}-(?:0[1-9]|1[0-2]))\.(parquet|csv)$/;
const CONTENT_TYPES: Record<DatasetFormat, string> = {
  parquet: 'application/vnd.apache.parquet',
  csv: 'text/csv; charset=utf-8',
};

const Checksums = Type.Object({ parquet: Type.String(), csv: Type.String() });
const DatasetsAnswer = Type.Object({
  datasets: Type.Array(
    Type.Object({
      month: Type.String({ description: 'YYYY-MM (UTC)' }),
      rows: Type.Integer(),
      files: Type.Object(
        { parquet: Type.String(), csv: Type.String() },
        { description: 'Paths of the two files (the same rows).' },
      ),
      sha256: Checksums,
    }),
    { description: 'Published months, oldest first.' },
  ),
});

/** Unknown query parameters are refused by name (the schema would only drop them). */
const noQuery = async (request: { query: unknown }) => {
  const names = Object.keys((request.query ?? {}) as object);
  if (names.length) throw httpError(400, `unknown query parameter "${names[0]}": this route takes none`);
};

const columnDocs = DATASET_COLUMNS.map((c) => `\`${c.name}\` (${c.type}): ${c.description}`).join('\n\n');

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const folder = app.datasets.folder;
  const limit = readRateLimit(app, app.config);
  if (limit) app.addHook('onRequest', limit);

  app.get(
    '/v1/datasets',
    {
      preValidation: noQuery,
      schema: {
        summary:
          'The monthly open datasets: TLS handshake latency by country, browser, protocol, TLS version, mode and key exchange',
        description:
          'Every site together, rows of at least DATASET_MIN_CLIENTS distinct clients that never overlap (docs/dataset.md, docs/integrity.md). Licence CC BY 4.0.',
        response: { 200: DatasetsAnswer, 400: ErrorResponse },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return { datasets: await folder.list() };
    },
  );

  app.get(
    '/v1/datasets/:file',
    {
      preValidation: noQuery,
      schema: {
        summary: "One month's dataset file: YYYY-MM.parquet or YYYY-MM.csv",
        description: `Immutable once published: \`Cache-Control: immutable\` for a year, \`ETag\` = the file's sha256 (as \`/v1/datasets\` lists it). Columns:\n\n${columnDocs}`,
        params: Type.Object({ file: Type.String({ description: 'YYYY-MM.parquet or YYYY-MM.csv' }) }),
        response: { 400: ErrorResponse, 404: ErrorResponse },
      },
    },
    async (request, typedReply) => {
      // The file is bytes, not a JSON answer: the untyped reply sends a stream (and a bodiless 304).
      const reply = typedReply as FastifyReply;
      const m = FILE.exec(request.params.file);
      if (!m)
        throw httpError(
          400,
          `"${request.params.file}" is not a dataset file: ask for YYYY-MM.parquet or YYYY-MM.csv (e.g. 2026-10.parquet)`,
        );
      const month = m[1]!;
      const format = m[2] as DatasetFormat;
      const path = folder.path(month, format);
      if (!path) throw httpError(404, `no dataset is published for ${month} (GET /v1/datasets lists those that are)`);
      const { sha256 } = await folder.facts(path);
      const etag = `"${sha256}"`;
      reply.header('cache-control', 'public, max-age=31536000, immutable');
      reply.header('etag', etag);
      const asked = request.headers['if-none-match'];
      if (asked && asked.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) return reply.status(304).send();
      reply.header('content-type', CONTENT_TYPES[format]);
      reply.header('content-disposition', `attachment; filename="${path.slice(path.lastIndexOf('/') + 1)}"`);
      return reply.send(createReadStream(path));
    },
  );
};

const datasetsPlugin: FastifyPluginAsyncTypebox = async (app) => {
  const config = app.config.datasets;
  const folder = new DatasetFolder(config.dir);
  /**
   * Months the job tried and found nothing to publish in (no data, nothing over the threshold): not retried
   * until restart. A failure that can pass (the store unreachable, a full disk) is tried again at the next check.
   */
  const given = new Set<string>();
  let running: Promise<string | null> | null = null;

  /** Writes the latest month that is over, unless it is published or was given up on; its month or null. */
  const exportDue = (now = Date.now()): Promise<string | null> => {
    running ??= (async () => {
      const { month } = latestClosedMonth(now);
      if (given.has(month) || folder.path(month, 'parquet')) return null;
      try {
        await app.ingest.flush();
        // A month of the raw table: heavy reads (query-pool.ts), which leave the dashboard's questions a slot.
        const done = await heavyQuery.run(true, () =>
          exportMonth(app.store.query, {
            month,
            outDir: join(config.dir, month),
            minClients: config.minClients,
            retentionDays: app.config.retentionDays,
            clientCap: app.config.clientRecordsPerCellDay,
            publisher: app.config.about.operator,
            now,
          }),
        );
        app.log.info({ month, rows: done.rows, dir: config.dir }, 'monthly dataset written');
        return month;
      } catch (err) {
        if (err instanceof DatasetError) {
          given.add(month);
          app.log.warn({ month, reason: err.message }, 'monthly dataset not written');
        } else
          app.log.error(
            { month, err: { message: (err as Error).message } },
            'monthly dataset failed; trying again at the next check',
          );
        return null;
      }
    })().finally(() => (running = null));
    return running;
  };
  app.decorate('datasets', { folder, exportDue });

  if (config.monthlyExport)
    repeatAfterReady(app, {
      firstMs: FIRST_CHECK_MS,
      everyMs: EXPORT_CHECK_MS,
      run: exportDue,
      settled: () => running,
    });
  await app.register(routes);
};

export default fp(datasetsPlugin, { name: 'datasets', dependencies: ['store', 'ingest'] });
