/**
 * The programmatic API of petload (`import { ... } from 'petload'`): re-exports only, one per line, each
 * with what it is for. Everything not listed here is internal and may change in any release.
 * docs/api.md shows them in use.
 */

// Running scenarios

/** Runs one scenario against a target (or the embedded reference server), writes its reports, returns the report and the exit code. */
export { runScenario } from './engine/run.js';
/** The options of runScenario: the scenario, the target and its keys, the report directory, overrides. */
export type { RunOptions } from './engine/run.js';
/** Deprecated: runScenario's options in the flat form of version 0.1 (target settings beside the scenario). */
export type { FlatRunOptions } from './engine/run.js';
/** What a run is pointed at (RunOptions.target): the embedded reference server or an external target. */
export type { RunTarget } from './engine/run-target.js';
/** The embedded reference server as a run's target, with its faults, clock scale, window report, ban, figures. */
export type { EmbeddedTarget } from './engine/run-target.js';
/** An external target: its URL and keys, the clock it runs on, remote treatment, quota policy and network. */
export type { ExternalTarget } from './engine/run-target.js';
/** How runScenario reaches an external target (ExternalTarget.network): proxy, CA, client certificate, HTTP/2, headers. */
export type { RunNetwork } from './engine/network.js';
/** What runScenario gives back: the report, the exit code (0, 1, 3 or 130) and where the report files went. */
export type { RunResult } from './engine/run.js';
/** Loads a scenario by shipped name (`compliance`) or by path to a YAML file, validated; throws a PetloadError (E_SCENARIO). */
export { loadScenario } from './config/load-scenario.js';
/** Parses and validates scenario YAML text; `file` names it in error messages. */
export { parseScenarioText } from './config/load-scenario.js';
/** The shipped scenarios, each with its name and description. */
export { listScenarios } from './config/load-scenario.js';
/** A validated scenario, as loadScenario returns it. */
export type { Scenario } from './config/scenario.js';
/** A run's focus (RunOptions.focus, `petload run --check --probe`): the checks and probes it judges; the rest is out of scope. */
export type { Focus } from './config/focus.js';
/** The scenario cut to what judges a focus, with the checks in and out of scope; throws a PetloadError (E_USAGE) outside it. */
export { focusScenario } from './config/focus.js';

// Keys

/** Reads a keys file (`{"keys": [{"key", "plan", ...}]}`); throws a PetloadError (E_KEYS_FILE) naming the entry, never the key. */
export { loadKeysFile } from './config/keys-file.js';
/** Validates an already parsed keys document; `source` names it in error messages. */
export { parseKeys } from './config/keys-file.js';
/** One API key: its secret, plan, limits, printable label (`pro#1 (…9a3f)`) and whether it is sacrificial. */
export type { ApiKey } from './core/api-key.js';

// The reference server

/** Starts the reference Animal Store server (compliant, or with faults) on a loopback port; resolves with its URL, keys and close(). */
export { createReferenceServer } from './reference-server/index.js';
/** The options of createReferenceServer: host, port, keys, clock or timeScale, faults, window report, ban rule. */
export type { ReferenceServerOptions } from './reference-server/index.js';
/** A running reference server: url, port, keys, clock, stats() and close(). */
export type { ReferenceServer } from './reference-server/index.js';
/** The reference server's faults, by name, each with what it breaks. */
export { FAULTS } from './reference-server/faults.js';
/** The names of the faults, in catalogue order. */
export { FAULT_NAMES } from './reference-server/faults.js';
/** The name of one fault of the reference server. */
export type { FaultName } from './reference-server/faults.js';
/** For each fault, the checks that must fail when the reference server runs with it. */
export { FAULT_MATRIX } from './checks/fault-matrix.js';

// Clocks

/** A clock running `scale` times faster than real time (1: real time), for a reference server and a run to share. */
export { createClock } from './core/clock.js';
/** The real clock. */
export { realClock } from './core/clock.js';
/** A clock: wall time and monotonic time, both in ms, and sleeps on that clock. */
export type { Clock } from './core/clock.js';

// Checks and reports

/** The check catalogue: each check id with its title, severity and family. Check ids are a public contract. */
export { CATALOGUE } from './checks/catalogue.js';
/** Every check id, in catalogue order. */
export { CHECK_IDS } from './checks/catalogue.js';
/** The id of one check of the catalogue. */
export type { CheckId } from './checks/catalogue.js';
/** A check's severity: critical, major, minor, advisory or info. */
export type { Severity } from './checks/catalogue.js';
/** The zod schema of report.json; every report petload writes is valid against it. */
export { ReportSchema } from './report/schema.js';
/** A report (report.json), as inferred from ReportSchema. */
export type { Report } from './report/schema.js';
/** Writes report.json, junit.xml, summary.md and report.html of a report into a directory, atomically. */
export { writeReports } from './outputs/write.js';

// Errors

/** The exit codes: pass 0, fail 1, usage 2, aborted 3, internal 4, interrupted 130. */
export { EXIT } from './core/errors.js';
/** The error petload throws for a problem of the tool's input or use, with a stable code and a hint. */
export { PetloadError } from './core/errors.js';
/** The stable code of a PetloadError (E_USAGE, E_SCENARIO, E_KEYS_FILE, ...). */
export type { ErrorCode } from './core/errors.js';

// The interface as code

/** The zod schema of a Pet (id, name, status, categoryId); also its type. */
export { Pet } from './api/schemas.js';
/** The zod schema of a list of Pets (GET /pets); also its type. */
export { Pets } from './api/schemas.js';
/** The zod schema of a NewPet (POST /pets body); also its type. */
export { NewPet } from './api/schemas.js';
/** The zod schema of an Error body (code, message, status); also its type. */
export { ErrorBody } from './api/schemas.js';
/** The zod schema of a pet status (available, pending, sold); also its type. */
export { PetStatus } from './api/schemas.js';
/** The pet statuses, in interface order. */
export { PET_STATUSES } from './api/schemas.js';
/** The zod schema of an int64 (a number or bigint within the 64-bit range); also its type. */
export { Int64 } from './api/schemas.js';
/** GET /pets' page size: min 1, max 100, default 20. */
export { PAGE_SIZE } from './api/schemas.js';
/** The operations of the interface (listPets, createPet, getPet): method, path, documented statuses. */
export { OPERATIONS } from './api/operations.js';
/** The operation ids, in interface order. */
export { OPERATION_IDS } from './api/operations.js';
/** The id of one operation. */
export type { OperationId } from './api/operations.js';
/** The plan names: free, pro, business, enterprise. */
export { PLAN_NAMES } from './api/plans.js';
/** The name of one plan. */
export type { PlanName } from './api/plans.js';
/** The published figures of each plan but enterprise (per minute, per day). */
export { PLANS } from './api/plans.js';
/** A plan's figures: requests per minute and per day. */
export type { PlanLimits } from './api/plans.js';
/** The figures of a plan, with custom figures (required for enterprise). */
export { limitsFor } from './api/plans.js';
