/**
 * The verbs whose `--json` output the schemas cover: every verb of the oclif manifest but `help`, which prints a page,
 * not a result.
 */
import { verbIds } from '../helpers/commands.js';

export const publishedVerbs = (): string[] => verbIds().filter((id) => id !== 'help');
