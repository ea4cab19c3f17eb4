/**
 * A cleanup stack: what a run opens (its target, journal, run context, deadlines, guards) is pushed as it is
 * opened, and closed in reverse order, once, whatever ends the run (src/engine/run.ts). Node 20 has no
 * AsyncDisposableStack; this is the part of it a run needs.
 */
export class CleanupStack {
  readonly #steps: (() => unknown)[] = [];
  #closed = false;

  /** Closes `close` when the stack closes (after everything pushed later). */
  defer(close: () => unknown): void {
    if (this.#closed) throw new Error('CleanupStack: defer after close');
    this.#steps.push(close);
  }

  /** Pushes a resource's close() and gives back the resource. */
  use<T extends { close(): unknown }>(resource: T): T {
    this.defer(() => resource.close());
    return resource;
  }

  /**
   * Closes everything, last pushed first. Every step runs even when one throws; the first error is thrown after
   * the last step. A second call does nothing.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    let failure: { error: unknown } | null = null;
    for (const step of this.#steps.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }
}

/**
 * Runs `body` with a fresh stack and closes the stack however `body` ends. When `body` throws, its error wins over
 * one of the closing (which would hide why the run stopped).
 */
export async function withCleanup<T>(body: (stack: CleanupStack) => Promise<T>): Promise<T> {
  const stack = new CleanupStack();
  let result: T;
  try {
    result = await body(stack);
  } catch (e) {
    await stack.close().catch(() => {});
    throw e;
  }
  await stack.close();
  return result;
}
