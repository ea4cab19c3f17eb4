/**
 * JSON parsing that keeps int64 identifiers exact. JSON.parse silently rounds integers beyond 2^53, which
 * would hide a server that emits (or mangles) large ids; lossless-json keeps them, at several times the cost,
 * so it only runs on texts that could hold such an integer.
 */
import { parse as losslessParse } from 'lossless-json';

/**
 * Integers of up to 15 digits are always safe (2^53 - 1 has 16), so shorter digit runs never need the slow
 * path. A regular expression finds a run of 16 several times faster than a loop over the characters: this
 * runs on every JSON body of a load run.
 */
const LONG_DIGIT_RUN = /[0-9]{16}/;

/** A JSON number literal is an integer when it has neither a fraction nor an exponent. */
function parseNumber(literal: string): number | bigint {
  const n = Number(literal);
  if (Number.isSafeInteger(n) || literal.includes('.') || literal.includes('e') || literal.includes('E')) return n;
  return BigInt(literal);
}

/** Like JSON.parse (last duplicate key wins, SyntaxError on bad input), but integers that are not safe JS integers become bigints. */
export function parseJsonLossless(text: string): unknown {
  if (!LONG_DIGIT_RUN.test(text)) return JSON.parse(text);
  return losslessParse(text, null, { parseNumber, onDuplicateKey: (d) => d.newValue });
}
