#!/usr/bin/env node
// Development entry point (not shipped): runs the CLI from the TypeScript sources through tsx, so that the
// tests exercise the code as it is, without a build. Users run bin/petload.js, the compiled CLI in dist/.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
