/**
 * The run's defaults, each written once: the help text, the engine, the HTTP client, the estimate and the test
 * helpers read them here.
 */

/** How long a request may take to get its whole answer before it is a `timeout` (`--timeout`). */
export const REQUEST_TIMEOUT_MS = 10_000;

/** How long the reachability check before a run waits for the target's first answer, unless `--timeout` is given. */
export const REACHABILITY_TIMEOUT_MS = 5_000;

/** How many times faster than real time the embedded server's clock runs, unless the scenario or `--time-scale` says. */
export const EMBEDDED_TIME_SCALE = 60;
