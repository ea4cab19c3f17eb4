/**
 * The CPU time of a child process that reports none of its own (the autocannon CLI), read from
 * /proc/<pid>/stat (user + system time of all its threads) every few milliseconds while it runs, so that the
 * CPU it used between two instants of its life (its measured window, which it reports) can be worked out.
 * Where /proc is missing (not Linux), nothing is sampled and every answer is null.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (`getconf CLK_TCK`; 100 on every Linux in practice). */
const TICKS_PER_SECOND = (() => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const n = Number(r.stdout?.trim());
  return Number.isInteger(n) && n > 0 ? n : 100;
})();

/** Cumulative CPU ms of a process at epoch ms `at`. */
export interface CpuSample {
  readonly at: number;
  readonly cpuMs: number;
}

/** User + system CPU ms of process `pid` so far, or null when it cannot be read (gone, or no /proc). */
export function processCpuMs(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces: fields are counted after its end.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : null;
}

export interface CpuSampler {
  /** The samples taken so far, oldest first (sampling goes on). */
  samples(): readonly CpuSample[];
  /** Stops sampling; the samples taken, oldest first. */
  stop(): CpuSample[];
}

/** Samples the CPU time of `pid` every `everyMs` until stopped (or until it can no longer be read). */
export function sampleCpu(pid: number, everyMs = 20): CpuSampler {
  const samples: CpuSample[] = [];
  const take = () => {
    const cpuMs = processCpuMs(pid);
    if (cpuMs === null) clearInterval(timer);
    else samples.push({ at: Date.now(), cpuMs });
  };
  const timer = setInterval(take, everyMs);
  take();
  return {
    samples: () => samples,
    stop() {
      clearInterval(timer);
      return samples;
    },
  };
}

/** CPU ms at instant `t`, interpolated between the samples around it; null outside them. */
function cpuAt(samples: readonly CpuSample[], t: number): number | null {
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1]!;
    const b = samples[i]!;
    if (t >= a.at && t <= b.at)
      return b.at === a.at ? b.cpuMs : a.cpuMs + ((b.cpuMs - a.cpuMs) * (t - a.at)) / (b.at - a.at);
  }
  return null;
}

/**
 * The process's CPU time over [from, to] (epoch ms) and its share of that time (1: a whole core), worked out
 * over the part of the window the samples cover; null when they cover less than `minCover` of it (the last
 * sample can come a few ms before the process's end).
 */
export function cpuOverWindow(
  samples: readonly CpuSample[],
  from: number,
  to: number,
  minCover = 0.8,
): { cpuMs: number; share: number } | null {
  if (samples.length < 2 || !(to > from)) return null;
  const start = Math.max(from, samples[0]!.at);
  const end = Math.min(to, samples.at(-1)!.at);
  if (end - start < minCover * (to - from)) return null;
  const a = cpuAt(samples, start);
  const b = cpuAt(samples, end);
  if (a === null || b === null) return null;
  const share = (b - a) / (end - start);
  return { cpuMs: share * (to - from), share };
}
