/** One measured load run against a started server process: throughput and latency from the load generator, CPU and RSS from /proc. */
import { startLoad } from './load-generator';
import { cpuSeconds, peakRssMiB, type Child } from './processes';

export async function measureLoad(
  child: Child,
  opts: { connections: number; warmupSeconds: number; seconds: number; track?: boolean },
) {
  const pid = child.proc.pid!;
  let cpu0 = 0;
  const { run, acknowledgedIds } = await startLoad({
    url: child.url,
    connections: opts.connections,
    warmupSeconds: opts.warmupSeconds,
    seconds: opts.seconds,
    track: opts.track ?? false,
    onWarm: () => (cpu0 = cpuSeconds(pid)),
  });
  const cpuCores = (cpuSeconds(pid) - cpu0) / opts.seconds;
  return { run, acknowledgedIds, cpuCores, rssMiB: peakRssMiB(pid) };
}
