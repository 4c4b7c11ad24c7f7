/** The machine's load average, to print beside every figure (the machines here are shared). */
import { cpus, loadavg } from 'node:os';

export function loadAverage(): { load1: number; load5: number; load15: number; cpus: number } {
  const [load1, load5, load15] = loadavg().map((x) => Math.round(x * 100) / 100) as [number, number, number];
  return { load1, load5, load15, cpus: cpus().length };
}

export function describeLoad(): string {
  const l = loadAverage();
  return `load average ${l.load1} / ${l.load5} / ${l.load15} on ${l.cpus} CPUs at ${new Date().toISOString().slice(0, 19)}Z`;
}
