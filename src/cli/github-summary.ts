/**
 * GitHub Actions' job summary: `petload run` appends each run's summary.md to the file GITHUB_STEP_SUMMARY
 * names, by default whenever that variable is set (a GitHub Actions step), on demand with --github-summary
 * (an error when the variable is missing), never with --no-github-summary. What is appended is the written
 * summary.md, so it went through the same redactor as every report file.
 */
import { appendFile, readFile } from 'node:fs/promises';
import { PetloadError } from '../core/errors.js';

export const GITHUB_SUMMARY_ENV = 'GITHUB_STEP_SUMMARY';

/** The file to append summaries to, or null: from --github-summary (true, false or not given) and the environment. */
export function githubSummaryFile(flag: boolean | undefined, env: NodeJS.ProcessEnv): string | null {
  const file = env[GITHUB_SUMMARY_ENV];
  if (flag === false) return null;
  if (file !== undefined && file !== '') return file;
  if (flag === true) {
    throw new PetloadError(
      'E_USAGE',
      `--github-summary: ${GITHUB_SUMMARY_ENV} is not set (GitHub Actions sets it in every step; elsewhere, set it to the file to append to)`,
    );
  }
  return null;
}

/**
 * Appends the summary.md at `markdownPath` to `file`, after a blank line. A failure is returned as a one-line
 * message (the run and its reports stand; the exit code is the run's), never thrown.
 */
export async function appendGithubSummary(file: string, markdownPath: string): Promise<string | null> {
  try {
    const markdown = await readFile(markdownPath, 'utf8');
    await appendFile(file, `${markdown.endsWith('\n') ? markdown : `${markdown}\n`}\n`);
    return null;
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    return `petload: could not append the summary to ${GITHUB_SUMMARY_ENV} (${file}): ${why}`;
  }
}
