/**
 * Hand a run's events on to another stream: a caller that starts its sinks before the run (to print their
 * addresses, or to fail on a port in use before anything is sent) subscribes them to a stream of its own
 * (createRunEvents()) and relays the run's stream to it from RunOptions.subscribe.
 */
import { RUN_EVENT_TYPES, type RunEvents } from '../core/run-events.js';

/** Relay every event of the kinds `to` has listeners for now (so the run makes no exchange event for nobody); returns the stop. */
export function relayEvents(from: RunEvents, to: RunEvents): () => void {
  const offs = RUN_EVENT_TYPES.filter((type) => to.wants(type)).map((type) => from.on(type, (e) => to.emit(e)));
  return () => {
    for (const off of offs) off();
  };
}
