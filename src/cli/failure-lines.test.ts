import { describe, expect, it } from 'vitest';
import { failureLines } from './failure-lines.js';

describe('failureLines', () => {
  it('says what went wrong, what was saved and where, and that it is a bug', () => {
    const lines = failureLines({
      message: 'the run produced a report that does not match its schema (plans[0]: …)',
      reportDir: 'R',
      files: { json: 'R/report.json', markdown: 'R/summary.md' },
    });
    expect(lines).toEqual([
      'petload: the report could not be assembled: the run produced a report that does not match its schema (plans[0]: …)',
      '  what the run collected was saved: R/report.json, R/summary.md (report.json has verdict "error" and the raw parts)',
      '  hint: This is a bug in petload; please report it with the command line.',
    ]);
  });

  it('says so when nothing could be saved', () => {
    expect(failureLines({ message: 'x', reportDir: 'R', files: {} })[1]).toBe('  nothing could be saved in R');
  });
});
