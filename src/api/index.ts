export * from './schemas.js';
export * from './operations.js';
export * from './plans.js';
