/**
 * Option values by name, as a verb's parser or an MCP tool's arguments hand them over. The option checks shared by
 * the verbs and the MCP tools (drafts/cli-flags.ts, receipts/options.ts) read this shape, so they
 * need nothing from src/cli/.
 */
export type FlagValues = Record<string, string | boolean | number | string[] | undefined>;
