/**
 * Bounded samplers for numeric series of unknown length (a run may last a day): memory and output stay under
 * a cap by doubling a stride, so early and late parts of a run keep the same density. Samples are taken as
 * plain numbers, so that pushing one allocates nothing on the hot path.
 */

/**
 * Keeps every `stride`-th sample `[t, value]`; when `cap` samples are held, drops every other one and doubles
 * the stride. The kept samples are always those whose arrival index is a multiple of the stride.
 */
export class StrideSampler {
  private ts: number[] = [];
  private values: (number | null)[] = [];
  /** A second value per sample, when pushed with one (undefined: none). */
  private extras: (number | null | undefined)[] = [];
  private stride = 1;
  private seen = 0;

  constructor(private readonly cap: number) {
    if (!(cap >= 2)) throw new RangeError(`sampler cap must be at least 2, got ${cap}`);
  }

  push(t: number, value: number | null, extra?: number | null): void {
    const index = this.seen++;
    if (index % this.stride !== 0) return;
    if (this.ts.length === this.cap) {
      this.ts = this.ts.filter((_, i) => i % 2 === 0);
      this.values = this.values.filter((_, i) => i % 2 === 0);
      this.extras = this.extras.filter((_, i) => i % 2 === 0);
      this.stride *= 2;
      if (index % this.stride !== 0) return;
    }
    this.ts.push(t);
    this.values.push(value);
    this.extras.push(extra);
  }

  /** [t, value], or [t, value, extra] for a sample pushed with an extra. */
  samples(): ([number, number | null] | [number, number | null, number | null])[] {
    return this.ts.map((t, i) => {
      const extra = this.extras[i];
      return extra === undefined ? [t, this.values[i] ?? null] : [t, this.values[i] ?? null, extra];
    });
  }
}

interface Group {
  loT: number;
  loValue: number;
  loExtra: number;
  /** Arrival index of the low and high samples, to emit them in order. */
  loSeq: number;
  hiT: number;
  hiValue: number;
  hiExtra: number;
  hiSeq: number;
}

/**
 * Min/max envelope of samples `[t, value, extra]`: consecutive samples are grouped `stride` at a time and
 * each group keeps its lowest and its highest value, so a series that touches 0 (Remaining exhausted) still
 * shows it however long the run. When `cap / 2` groups are full, neighbouring groups merge pairwise and the
 * stride doubles. Output: at most `cap` samples, in arrival order.
 */
export class EnvelopeSampler {
  private groups: Group[] = [];
  private stride = 1;
  private inLast = 0;
  private seen = 0;
  private readonly maxGroups: number;

  constructor(cap: number) {
    if (!(cap >= 4)) throw new RangeError(`sampler cap must be at least 4, got ${cap}`);
    // An even number of groups, so that pairwise merging leaves only full groups.
    this.maxGroups = Math.floor(cap / 4) * 2;
  }

  push(t: number, value: number, extra: number): void {
    const seq = this.seen++;
    const last = this.groups[this.groups.length - 1];
    if (last !== undefined && this.inLast < this.stride) {
      this.inLast++;
      if (value < last.loValue) {
        last.loT = t;
        last.loValue = value;
        last.loExtra = extra;
        last.loSeq = seq;
      }
      if (value > last.hiValue) {
        last.hiT = t;
        last.hiValue = value;
        last.hiExtra = extra;
        last.hiSeq = seq;
      }
      return;
    }
    if (this.groups.length === this.maxGroups) this.compact();
    this.groups.push({
      loT: t,
      loValue: value,
      loExtra: extra,
      loSeq: seq,
      hiT: t,
      hiValue: value,
      hiExtra: extra,
      hiSeq: seq,
    });
    this.inLast = 1;
  }

  private compact(): void {
    const merged: Group[] = [];
    for (let i = 0; i < this.groups.length; i += 2) {
      const a = this.groups[i]!;
      const b = this.groups[i + 1]!;
      if (b.loValue < a.loValue) {
        a.loT = b.loT;
        a.loValue = b.loValue;
        a.loExtra = b.loExtra;
        a.loSeq = b.loSeq;
      }
      if (b.hiValue > a.hiValue) {
        a.hiT = b.hiT;
        a.hiValue = b.hiValue;
        a.hiExtra = b.hiExtra;
        a.hiSeq = b.hiSeq;
      }
      merged.push(a);
    }
    this.groups = merged;
    this.stride *= 2;
  }

  samples(): [number, number, number][] {
    const out: [number, number, number][] = [];
    for (const g of this.groups) {
      const lo: [number, number, number] = [g.loT, g.loValue, g.loExtra];
      const hi: [number, number, number] = [g.hiT, g.hiValue, g.hiExtra];
      if (g.loSeq === g.hiSeq) out.push(lo);
      else if (g.loSeq < g.hiSeq) out.push(lo, hi);
      else out.push(hi, lo);
    }
    return out;
  }
}
