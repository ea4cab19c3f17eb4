#!/usr/bin/env node
// `npm run bench`: registers the TypeScript loader, then runs the benchmarks (bench/main.ts).
import { register } from 'tsx/esm/api';

register();
await import('../bench/main.ts');
