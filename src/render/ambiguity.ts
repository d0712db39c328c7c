/**
 * The two ambiguity refusals need more than one line in human mode: the header, then
 * up to five candidates. `withAmbiguityRendering` turns such a HandoffError into a Rendered result (exit 2) carrying the
 * JSON error object with all `candidates` and the human listing; every other error passes through unchanged.
 */
import type { Rendered } from './result.js';
import { isHandoffError, type HandoffError } from '../errors.js';
import { candidateLines, type CandidateView } from '../drafts/resolve.js';

export function ambiguityResult(e: HandoffError): Rendered {
  const candidates = (e.data.candidates ?? []) as CandidateView[];
  return {
    exit: e.exit,
    json: { status: 'error', code: e.code, error: e.message, candidates },
    // The first line ends in its code, like every other failure's one line.
    errText: [`Error: ${e.message} [${e.code}]`, ...candidateLines(candidates)].join('\n'),
  };
}

export async function withAmbiguityRendering(fn: () => Promise<Rendered>): Promise<Rendered> {
  try {
    return await fn();
  } catch (e) {
    if (isHandoffError(e) && (e.code === 'AMBIGUOUS_DRAFT' || e.code === 'AMBIGUOUS_AGENT_DRAFT'))
      return ambiguityResult(e);
    throw e;
  }
}
