import type { CodeEntry } from './types.js';

/**
 * Codes of `handoff mcp`. Its tools answer with the codes of their verbs (a bad argument is
 * USAGE); these are the server's own.
 */
export const mcpCodes = [
  {
    code: 'RESOURCE_NOT_FOUND',
    exit: 3,
    where: 'mcp (resources/read)',
    when: 'A resource URI that the server does not serve: neither handoff://schema/envelope nor handoff://drafts/{draft_id}. Returned as a JSON-RPC error (-32002) whose data carries the code.',
    repair:
      'Read handoff://schema/envelope, or handoff://drafts/<draft_id> with a draft id printed by contract_init or a dispatch; resources/list names both.',
  },
  {
    code: 'PATH_OUTSIDE_ROOTS',
    exit: 2,
    where: "mcp: evidence_add's artifact_file, evidence_run's cwd (every tool input naming a file or a directory)",
    when: "The path, resolved against the server's directory and through every symlink, is not inside the server's roots: the client's MCP roots (roots/list) when it lists any, else the directory the server runs in, plus each `handoff mcp --allow-path DIR`. The opened file itself is checked too, so a symlink swapped in after the check is caught. Nothing is read or run; whether a path outside exists is not said. Also when a client that declares roots cannot list them. The command line has no such limit.",
    repair:
      'Name a path inside one of the roots the message lists, or start the server with --allow-path DIR for another directory.',
  },
  {
    code: 'PATH_HARDLINKED',
    exit: 2,
    where: "mcp: evidence_add's artifact_file (every tool input naming a file)",
    when: 'The file, inside the roots, is a regular file with more than one link: a hard link inside a root to a file outside it would otherwise be read, and its other names cannot be found. Nothing is read. `handoff mcp --allow-hardlinks` opts out. The command line has no such limit.',
    repair:
      'Copy the file into the roots (a copy, not a hard link), or start the server with --allow-hardlinks when every link to it is trusted.',
  },
  {
    code: 'MESSAGE_TOO_LARGE',
    exit: 2,
    where: 'mcp (any JSON-RPC message)',
    when: "A message is larger than the server's limit of 10 MiB (10485760 bytes). It is skipped without being read, and the request gets a JSON-RPC error (-32600) whose data carries the code, limit_bytes and size_bytes; the server goes on serving the other calls.",
    repair:
      'Send less in one call: split a large value into several contract_add or contract_set calls, or deposit a large file with evidence_add artifact_file.',
  },
] as const satisfies readonly CodeEntry[];
