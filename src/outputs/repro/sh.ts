/**
 * The writer of reproduction scripts: steps (steps.ts) to a POSIX shell script that runs with curl and the standard
 * tools. A header comment says what it shows and how to run it; the variables come next (the target, the clock's
 * speed, each key by its label's name, never the key itself), then the functions the steps use, then the steps,
 * each printed with its expectation as it runs. Exit 1: the defect shows; 0: it does not; 2: could not run or tell.
 */
import { callWords } from './failure.js';
import { expectFunction, functionsText, PRELUDE, type ShName } from './sh-functions.js';
import type { Call, Credential, Expectation, Step } from './steps.js';

export interface ScriptHead {
  readonly file: string;
  readonly check: string;
  readonly title: string;
  readonly severity: string;
  readonly plan: string | null;
  /** The defect as the report words it. */
  readonly defect: string;
  /** When and where it was seen. */
  readonly seen: string;
  /** The report's target: the default of PETLOAD_TARGET. */
  readonly target: string;
  /** The default of PETLOAD_TIME_SCALE: the embedded server's scale, 1 for a real target. */
  readonly timeScale: number;
  /** For the embedded server: the command that serves the same one. */
  readonly serve?: string;
}

export interface Script {
  readonly text: string;
  /** The header and the first steps: what a report shows under the failure. */
  readonly preview: readonly string[];
}

/** A shell word that is exactly `s`. */
export const shq = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

/** Text for a comment line: no control character, nothing that ends the line. */
const plain = (s: string): string => s.replace(/[\u0000-\u001f\u007f]+/g, ' ');

/** A value inside double quotes, as the shell reads it. */
const dq = (s: string): string => s.replace(/[\\"$`]/g, '\\$&');

function asArg(as: Credential): string {
  if (as.kind === 'key') return as.variable;
  return as.kind === 'none' ? "''" : shq(`=${as.header}`);
}

function callArgs(c: Call): string {
  const path = c.path.split('{created}').map(shq).join('"$created"');
  return [c.method, path, asArg(c.as), ...(c.body !== undefined ? [shq(c.body)] : [])].join(' ');
}

function expectArgs(e: Expectation): string[] {
  switch (e.kind) {
    case 'status':
      return e.is.map(String);
    case 'not-status':
      return e.not.map(String);
    case 'headers':
      return e.names.map(shq);
    case 'limit-of-plan':
      return [String(e.perMinute), String(e.perDay)];
    case 'pets':
      return [shq(e.max === undefined ? '' : String(e.max)), shq(e.status ?? '')];
    default:
      return [];
  }
}

/** The lines of one step, and the functions they call. */
function stepLines(s: Step): { lines: string[]; uses: ShName[] } {
  switch (s.kind) {
    case 'fresh-window':
      return {
        lines: [
          `step ${shq(`${callWords(s.call)}, to learn when its window ends`)} 'any answer: its Reset less Date is the wait'`,
          `request ${callArgs(s.call)}`,
          'fresh_window',
        ],
        uses: ['fresh_window'],
      };
    case 'send':
      return {
        lines: [
          `steps ${s.times} ${shq(`${callWords(s.call)}, ${s.times} times at once`)} ${shq(s.says)}`,
          `send ${s.times} ${callArgs(s.call)}`,
          `sent ${s.refusal}`,
        ],
        uses: ['send'],
      };
    case 'expect': {
      const fn = expectFunction(s.expect.kind);
      const check = [fn, ...expectArgs(s.expect)].join(' ');
      const guard: ShName | null = s.sameWindow ? 'in_window' : s.beforeReset ? 'before_reset' : null;
      const guarded = guard ? `${guard} && ${check}` : check;
      const uses: ShName[] = guard ? [fn, guard] : [fn];
      if (s.call === null) return { lines: [`also ${shq(s.says)}`, guarded], uses };
      return {
        lines: [`step ${shq(callWords(s.call))} ${shq(s.says)}`, `request ${callArgs(s.call)}`, guarded],
        uses,
      };
    }
    case 'note-remaining':
      return {
        lines: [
          `step ${shq(callWords(s.call))} 'an answer with X-RateLimit-Remaining, noted'`,
          `request ${callArgs(s.call)}`,
          'note_remaining',
        ],
        uses: ['note_remaining'],
      };
    case 'create':
      return {
        lines: [
          `step ${shq(callWords(s.call))} 'a Pet created, looked at next'`,
          `request ${callArgs(s.call)}`,
          'created',
        ],
        uses: ['created'],
      };
    case 'wait-retry-after':
      return { lines: [s.andReset ? 'wait_retry_after both' : 'wait_retry_after'], uses: ['wait_retry_after'] };
  }
}

/**
 * The steps as text. From a fresh window to the first request judged after it, the steps are one attempt, made
 * again (three times at most) when that request's answer came once the fresh window's minute had ended: a sequence
 * slower than its window (a fast clock, a busy machine) proves nothing. Its judging comes after the attempts.
 */
function stepsText(steps: readonly Step[]): { text: string[]; uses: ShName[]; plain: string[] } {
  const blocks = steps.map(stepLines);
  const uses = blocks.flatMap((b) => b.uses);
  const text = blocks.map((b) => b.lines.join('\n'));
  // The steps one after another, as a reader takes them in (the preview).
  const plain = blocks.flatMap((b) => b.lines);
  const start = steps.findIndex((s) => s.kind === 'fresh-window');
  const end = steps.findIndex((s, i) => i > start && s.kind === 'expect' && s.call !== null);
  if (start < 0 || end < 0) return { text, uses, plain };
  const attempt = blocks.slice(start, end + 1).map((b) => [...b.lines]);
  const judging = attempt.at(-1)!.pop()!;
  const loop = [
    'attempt=0',
    'while :; do',
    '  attempt=$((attempt + 1))',
    attempt.map((lines) => lines.map((l) => `  ${l}`).join('\n')).join('\n\n'),
    '  rolled_over && [ "$attempt" -lt 3 ] || break',
    `  printf '  the window ended before this answer: the sequence again (attempt %d of 3)\\n' "$((attempt + 1))"`,
    'done',
    judging,
  ].join('\n');
  return { text: [...text.slice(0, start), loop, ...text.slice(end + 1)], uses: [...uses, 'rolled_over'], plain };
}

/** The keys the steps send with: variable -> label, in their order. */
function keysOf(steps: readonly Step[]): Map<string, string> {
  const keys = new Map<string, string>();
  for (const s of steps) {
    const call = s.kind === 'wait-retry-after' ? null : s.call;
    if (call?.as.kind === 'key') keys.set(call.as.variable, call.as.label);
  }
  return keys;
}

function headLines(h: ScriptHead, keys: Map<string, string>): string[] {
  const vars = [...keys].map(([v, label]) => `${v}='<the key of ${plain(label)}>'`).join(' ');
  return [
    `# petload reproduction: ${h.check} (${h.severity})${h.plan ? ` on the ${h.plan} plan` : ''}`,
    `#   ${plain(h.title)}`,
    `# Defect seen: ${plain(h.defect)}`,
    `# Seen: ${plain(h.seen)}`,
    `# Run: ${vars ? `${vars} ` : ''}sh ${h.file}`,
    "#   (PETLOAD_TARGET: another target than the report's; PETLOAD_TIME_SCALE: how fast its clock runs)",
    '# Exit: 1 = the defect shows; 0 = it does not (fixed); 2 = could not run (a variable or curl missing, the',
    '#   target unreachable or not the base URL, a key refused with 401 or 403) or could not tell.',
    ...(h.serve
      ? [
          "# The target was petload's embedded reference server. The same one, with the keys of the run:",
          `#   ${plain(h.serve)}`,
          '#   then PETLOAD_TARGET=http://127.0.0.1:8080/v1',
        ]
      : []),
  ];
}

export function writeScript(h: ScriptHead, steps: readonly Step[]): Script {
  const keys = keysOf(steps);
  const body = stepsText(steps);
  const uses = new Set<ShName>(body.uses);
  const head = headLines(h, keys);
  const stepText = body.text;
  const lines = [
    '#!/bin/sh',
    ...head,
    'set -u',
    `PETLOAD_TARGET="\${PETLOAD_TARGET:-${dq(h.target)}}"`,
    `PETLOAD_TIME_SCALE="\${PETLOAD_TIME_SCALE:-${h.timeScale}}"`,
    '',
    PRELUDE,
    functionsText(uses),
    '',
    'command -v curl >/dev/null 2>&1 || cannot_run "curl is not installed"',
    ...[...keys].map(([v, label]) => `need ${v} ${shq(plain(label))}`),
    '',
    stepText.join('\n\n'),
    '',
    `if [ "$defects" -gt 0 ]; then printf '%s\\n' ${shq(`DEFECT SHOWN: ${plain(h.defect)}`)}; exit 1; fi`,
    `[ -z "$unsure" ] || { printf 'could not tell: %s\\n' "$unsure"; exit 2; }`,
    `printf '%s\\n' ${shq(`not reproduced: every answer was right (${h.check})`)}`,
    'exit 0',
    '',
  ];
  const preview = [...head.slice(0, 5), '# ...', ...body.plain];
  return { text: lines.join('\n'), preview: preview.slice(0, 14) };
}
