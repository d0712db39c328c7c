import type { CodeEntry } from './types.js';

/**
 * Codes of `handoff mcp`. Its tools answer with the codes of their verbs (a bad argument is
 * USAGE); these are the server's own.
 */
export const mcpCodes: CodeEntry[] = [
  {
    code: 'RESOURCE_NOT_FOUND',
    exit: 3,
    where: 'mcp (resources/read)',
    when: 'A resource URI that the server does not serve: neither handoff://schema/envelope nor handoff://drafts/{draft_id}. Returned as a JSON-RPC error (-32002) whose data carries the code.',
    repair: 'Read handoff://schema/envelope, or handoff://drafts/<draft_id> with a draft id printed by contract_init or a dispatch; resources/list names both.',
  },
];
