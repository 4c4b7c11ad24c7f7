/**
 * The published datasets in DATASETS_DIR: one `YYYY-MM/` folder per month, as `pnpm collector dataset
 * --out DATASETS_DIR/YYYY-MM` or the monthly job writes it. A month is listed once both files are there
 * (the export renames them into place whole). Its row count and checksums are read once per file version
 * (size and modification time) and kept: the files are immutable once published.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileNames } from './export';

export type DatasetFormat = 'parquet' | 'csv';

export interface ServedDataset {
  month: string;
  rows: number;
  files: Record<DatasetFormat, string>;
  sha256: Record<DatasetFormat, string>;
}

interface FileFacts {
  version: string;
  sha256: string;
  lines: number;
}

const MONTH_DIR = /^[0-9]{4}-(?:0[1-9]|1[0-2])$/;

export class DatasetFolder {
  readonly #facts = new Map<string, FileFacts>();
  constructor(readonly dir: string) {}

  /** The file of a month's format, or null when that month is not published. */
  path(month: string, format: DatasetFormat): string | null {
    const p = join(this.dir, month, fileNames(month)[format]);
    return existsSync(p) && statSync(p).isFile() ? p : null;
  }

  /** Checksum and line count of a file, computed once per version. */
  async facts(path: string): Promise<FileFacts> {
    const st = statSync(path);
    const version = `${st.size}:${st.mtimeMs}`;
    const known = this.#facts.get(path);
    if (known?.version === version) return known;
    const hash = createHash('sha256');
    let lines = 0;
    for await (const chunk of createReadStream(path)) {
      hash.update(chunk as Buffer);
      for (const byte of chunk as Buffer) if (byte === 10) lines++;
    }
    const facts = { version, sha256: hash.digest('hex'), lines };
    this.#facts.set(path, facts);
    return facts;
  }

  /** Every published month, oldest first. */
  async list(): Promise<ServedDataset[]> {
    if (!existsSync(this.dir)) return [];
    const months = readdirSync(this.dir)
      .filter((m) => MONTH_DIR.test(m))
      .sort();
    const out: ServedDataset[] = [];
    for (const month of months) {
      const parquet = this.path(month, 'parquet');
      const csv = this.path(month, 'csv');
      if (!parquet || !csv) continue;
      const [p, c] = [await this.facts(parquet), await this.facts(csv)];
      out.push({
        month,
        // The CSV's lines less its header: the rows of both files.
        rows: c.lines - 1,
        files: { parquet: `/v1/datasets/${month}.parquet`, csv: `/v1/datasets/${month}.csv` },
        sha256: { parquet: p.sha256, csv: c.sha256 },
      });
    }
    return out;
  }
}
