/** A one-line progress bar on a TTY (stderr); silent elsewhere, so logs and pipes stay clean. */
export interface Progress {
  update(done: number, total: number, label: string): void;
  done(): void;
}

export function progressBar(stream: NodeJS.WriteStream = process.stderr, enabled = Boolean(stream.isTTY)): Progress {
  if (!enabled) return { update() {}, done() {} };
  let drawn = false;
  return {
    update(done, total, label) {
      const width = 30;
      const filled = total > 0 ? Math.round((done / total) * width) : 0;
      const cols = stream.columns || 100;
      const line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${label}`;
      stream.write(`\r\x1b[2K${line.slice(0, cols - 1)}`);
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\r\x1b[2K');
    },
  };
}
