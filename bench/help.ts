/**
 * `pnpm bench <name> --help`: what that bench measures, against what, its goal and its settings, from its entry in
 * lib/catalogue.ts, the text BENCHMARKS.md shows (scripts/run-named.mjs calls it).
 */
import { pathToFileURL } from 'node:url';
import { BENCHES, type BenchEntry } from './lib/catalogue';

/** The catalogue entries a bench file prints (one file may print more than one JSON line: query and its shapes). */
export function entriesOf(name: string): BenchEntry[] {
  return BENCHES.filter((b) => b.file === `${name}.ts`);
}

const WIDTH = 100;

/** `text` in lines of at most WIDTH characters (a longer word stands alone), each after `indent`. */
function wrap(text: string, indent = ''): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent.length + line.length + 1 + word.length > WIDTH) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines.join('\n');
}

/** The help text of one bench: every entry its file prints. */
export function benchHelp(name: string): string {
  return entriesOf(name)
    .map((b) =>
      [
        `usage: ${b.command}`,
        '',
        wrap(b.measures),
        '',
        wrap(`compared with: ${b.baseline}`),
        wrap(`goal: ${b.goal}`),
        ...(b.options?.length
          ? [
              '',
              'settings (environment variables):',
              ...b.options.map((o) => wrap(o, '  ').replace(/\n {2}/g, '\n    ')),
            ]
          : []),
      ].join('\n'),
    )
    .join('\n\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const name = process.argv[2] ?? '';
  if (entriesOf(name).length === 0) {
    const names = [...new Set(BENCHES.map((b) => b.file.replace(/\.ts$/, '')))];
    console.error(`pnpm bench: no bench "${name}" — one of: ${names.join(', ')}`);
    process.exit(2);
  }
  console.log(benchHelp(name));
}
