/** `maxRequests` of a load section: a hard cap on the requests of all its phases, retries included. */
export class Budget {
  private left: number;

  constructor(max: number | undefined) {
    this.left = max ?? Number.POSITIVE_INFINITY;
  }

  /** Take one request from the budget; false when it is spent. */
  take(): boolean {
    if (this.left <= 0) return false;
    this.left--;
    return true;
  }

  /** Take `n` requests that were sent without asking (autocannon's). */
  spend(n: number): void {
    this.left = Math.max(0, this.left - n);
  }

  get spent(): boolean {
    return this.left <= 0;
  }

  /** Requests left (Infinity without a cap). */
  get remaining(): number {
    return this.left;
  }
}
