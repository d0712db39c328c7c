/**
 * The fixed values of flags whose command class does not (yet) declare them as oclif `options`: each list is read
 * from the constant the verb checks its input against, so completion offers exactly what the verb accepts. A flag
 * that declares `options` is completed from those (the manifest carries them) and needs no entry here; a test keeps
 * every entry naming a real flag and agreeing with `options` where both exist.
 */
import { ROW_STATES } from '../envelope/vocabulary.js';
import { EVIDENCE_TYPES } from '../evidence/flags.js';
import { HARNESSES } from '../harnesses/index.js';
import { APPROVAL_STATUSES, DECISIONS } from '../store/approvals.js';

const BLOCK_OR_ALLOW = ['block', 'allow'] as const;
const SCOPES = ['project', 'user'] as const;

/** `<command id> --<flag>` -> its values. */
export const KNOWN_VALUES: Readonly<Record<string, readonly string[]>> = {
  'contract:list --state': ROW_STATES,
  'contract:gate --harness': ['auto', ...HARNESSES],
  'contract:gate --on-missing': BLOCK_OR_ALLOW,
  'contract:gate --on-store-error': BLOCK_OR_ALLOW,
  'hooks:install --harness': HARNESSES,
  'hooks:install --scope': SCOPES,
  'hooks:uninstall --harness': HARNESSES,
  'hooks:uninstall --scope': SCOPES,
  'hooks:status --harness': HARNESSES,
  'approval:decide --decision': DECISIONS,
  'approval:list --status': APPROVAL_STATUSES,
  'evidence:add --type': EVIDENCE_TYPES,
  'key:generate --type': ['ecdsa-p256', 'ed25519'],
};

/**
 * How a value of a free-text flag or argument is completed, by its placeholder (`helpValue`, or an argument's name):
 * a file or a folder name; any other is not completed.
 */
export const PATH_PLACEHOLDERS: Readonly<Record<string, 'file' | 'dir'>> = {
  PATH: 'file',
  FILE: 'file',
  PUB: 'file',
  DIR: 'dir',
};
