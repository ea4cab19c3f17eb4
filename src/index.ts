/** The programmatic API of petload: re-exports only. */
export { runScenario, type RunOptions, type RunResult } from './engine/run.js';
export { createReferenceServer } from './server/index.js';
export { FAULTS, FAULT_NAMES, type FaultName } from './server/faults.js';
export { loadScenario, parseScenarioText, listScenarios } from './config/load-scenario.js';
export type { Scenario } from './config/scenario.js';
export { loadKeysFile, parseKeys } from './config/keys-file.js';
export type { ApiKey } from './core/api-key.js';
export { createClock, realClock, type Clock } from './core/clock.js';
export { CATALOGUE, CHECK_IDS, type CheckId, type Severity } from './checks/catalogue.js';
export { FAULT_MATRIX } from './checks/fault-matrix.js';
export { ReportSchema, type Report } from './report/schema.js';
export { writeReports } from './outputs/write.js';
export { EXIT, PetloadError, type ErrorCode } from './errors.js';
export * from './api/index.js';
